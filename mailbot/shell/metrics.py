"""Prometheus metrics of the daemon, through the official client library (prometheus_client).

Most figures are read from the database at each scrape, so every worker of a
federation reports the same totals and a restart loses none: messages by
outcome (``inbound_messages.status``), mail sent, given up and bounced
(``outbox.status``), the mail given up and bounced that ``mailbot health``
still warns about (not dismissed), the outbox's pending rows and the oldest
one's age, and
the last successful poll and sweep (the ``heartbeats`` table, as ``mailbot
health`` reads them). What only the running process knows is measured in
it: how long each pass over the inbox and each sweep took, how many messages
the last pass found waiting, and how many sends were deferred.

A database that cannot be read at scrape time gives ``mailbot_store_up 0``
and no figures from it, instead of an error page.

>>> registry = CollectorRegistry()
>>> process = Process(registry)
>>> process.backlog.set(3)
>>> b"mailbot_backlog_messages 3.0" in generate_latest(registry)
True
"""

from __future__ import annotations

import datetime
import logging
import threading
from collections.abc import Iterator
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client import Gauge as ProcessGauge
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import start_http_server
from prometheus_client.registry import Collector
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from mailbot.config import parse_listen
from mailbot.store.kinds import OutboxStatus
from mailbot.store.models import INBOUND_STATUSES, Heartbeat, InboundMessage, Outbox
from mailbot.store.outbox import gone_wrong

log = logging.getLogger(__name__)

__all__ = ["CollectorRegistry", "Process", "StoreCollector", "generate_latest", "serve"]

#: The buckets of the pass and sweep durations, in seconds.
BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0)


class StoreCollector(Collector):
    """The figures the database holds, read at each scrape."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("mailbot_store_up", "Whether the database could be read (1 or 0)")
        try:
            figures = list(self._figures())
        except Exception as exc:  # a scrape must answer even with the database down
            log.warning("metrics: the database could not be read: %s", type(exc).__name__)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from figures

    def _figures(self) -> Iterator[Metric]:
        with self.sessions() as session:
            inbound = dict(
                session.execute(
                    select(InboundMessage.status, func.count()).group_by(InboundMessage.status)
                ).all()
            )
            outbox = dict(
                session.execute(select(Outbox.status, func.count()).group_by(Outbox.status)).all()
            )
            warning = gone_wrong(session)
            oldest = session.scalar(
                select(func.min(Outbox.created_at)).where(Outbox.status == "pending")
            )
            beats = {b.name: b.at for b in session.scalars(select(Heartbeat))}
        messages = CounterMetricFamily(
            "mailbot_messages", "Inbound messages by what became of them", labels=["outcome"]
        )
        for status in INBOUND_STATUSES:
            messages.add_metric([status], inbound.get(status, 0))
        yield messages
        for sent, name, text in (
            (OutboxStatus.SENT, "mailbot_mails_sent", "Mails the SMTP server accepted"),
            (OutboxStatus.FAILED, "mailbot_mails_failed", "Mails given up"),
            (
                OutboxStatus.BOUNCED,
                "mailbot_mails_bounced",
                "Mails a delivery report said did not arrive",
            ),
        ):
            counter = CounterMetricFamily(name, text)
            counter.add_metric([], outbox.get(sent, 0))
            yield counter
        for gone, name, text in (
            (OutboxStatus.FAILED, "mailbot_outbox_failed", "Mails given up and not dismissed"),
            (OutboxStatus.BOUNCED, "mailbot_outbox_bounced", "Mails bounced and not dismissed"),
        ):
            # what `mailbot health` warns about; `mailbot outbox dismiss` takes a row out
            gauge = GaugeMetricFamily(name, text)
            gauge.add_metric([], warning[gone][0])
            yield gauge
        pending = GaugeMetricFamily("mailbot_outbox_pending", "Mails waiting to be sent")
        pending.add_metric([], outbox.get(OutboxStatus.PENDING, 0))
        yield pending
        age = GaugeMetricFamily(
            "mailbot_outbox_oldest_pending_age_seconds",
            "How long the oldest mail waiting has waited (0 when none waits)",
        )
        now = datetime.datetime.now(datetime.UTC)
        age.add_metric([], max(0.0, (now - oldest).total_seconds()) if oldest else 0.0)
        yield age
        for kind in ("poll", "sweep"):
            stamp = GaugeMetricFamily(
                f"mailbot_last_{kind}_success_timestamp_seconds",
                f"When the last successful {kind} ended (Unix time; 0: never)",
            )
            at = beats.get(kind)
            stamp.add_metric([], at.timestamp() if at else 0.0)
            yield stamp


class Process:
    """What the running daemon measures itself."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.poll_seconds = Histogram(
            "mailbot_poll_duration_seconds",
            "How long a pass over the inbox took",
            buckets=BUCKETS,
            registry=registry,
        )
        self.sweep_seconds = Histogram(
            "mailbot_sweep_duration_seconds",
            "How long a deadline sweep took",
            buckets=BUCKETS,
            registry=registry,
        )
        self.backlog = ProcessGauge(
            "mailbot_backlog_messages",
            "Messages the last pass found waiting in the inbox",
            registry=registry,
        )
        self.deferred = Counter(
            "mailbot_mails_deferred",
            "Sends deferred after a temporary failure, by this process",
            registry=registry,
        )


class Served:
    """The metrics endpoint of a running daemon."""

    def __init__(self, server: WSGIServer, thread: threading.Thread, process: Process) -> None:
        self.server = server
        self.thread = thread
        self.process = process

    @property
    def port(self) -> int:
        return int(self.server.server_port)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


def serve(listen: str, sessions: sessionmaker[Session]) -> Served:
    """Serve ``/metrics`` at ``listen`` (``host:port``) in a thread of its own."""
    host, port = parse_listen(listen)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(StoreCollector(sessions))
    process = Process(registry)
    server, thread = start_http_server(port, addr=host, registry=registry)
    log.info("metrics at http://%s:%s/metrics", host, server.server_port)
    return Served(server, thread, process)
