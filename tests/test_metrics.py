"""Prometheus metrics read from the store: what a scrape of a running bot shows.

The endpoint is served as the daemon serves it (:func:`mailbot.shell.metrics.serve`,
a real HTTP listener on loopback) over a store with a game under way, and
scraped with an HTTP GET; the text is read with prometheus_client's own
parser, as Prometheus reads it.
"""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator

import pytest
from deskbench import BLACK, WHITE, Bench, at
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import update

from mailbot.desk.pipeline import Outcome
from mailbot.shell.health import POLL, beat
from mailbot.shell.metrics import serve
from mailbot.store.models import Outbox

GAME = "[PX-1/1] move"


@pytest.fixture
def bench(store_url: str) -> Iterator[Bench]:
    b = Bench(store_url)
    try:
        yield b
    finally:
        b.close()


def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        assert answer.status == 200
        text = answer.read().decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_a_scrape_shows_the_messages_the_mail_and_the_heartbeats(bench: Bench) -> None:
    assert bench.send(WHITE, "1. e2-e4", at(2, 10), subject=GAME) is Outcome.HANDLED
    assert bench.send(BLACK, "1... e7-e5", at(3, 10), subject=GAME) is Outcome.HANDLED
    assert (
        bench.send("auto@example.net", "x", at(3, 11), headers=[("Auto-Submitted", "auto-replied")])
        is Outcome.IGNORED
    )
    served = serve("127.0.0.1:0", bench.sessions)
    try:
        first = scrape(served.port)
        assert first[("mailbot_store_up", ())] == 1
        assert first[("mailbot_messages_total", (("outcome", "processed"),))] == 2
        assert first[("mailbot_messages_total", (("outcome", "ignored"),))] == 1
        queued = len(bench.outbox())
        assert first[("mailbot_outbox_pending", ())] == queued > 0
        assert first[("mailbot_mails_sent_total", ())] == 0
        assert first[("mailbot_last_poll_success_timestamp_seconds", ())] == 0

        with bench.sessions.begin() as session:
            session.execute(update(Outbox).where(Outbox.id <= 2).values(status="sent"))
        beat(bench.sessions, POLL, "handled=3")
        served.process.poll_seconds.observe(0.2)
        served.process.backlog.set(7)
        second = scrape(served.port)
        assert second[("mailbot_mails_sent_total", ())] == 2
        assert second[("mailbot_outbox_pending", ())] == queued - 2
        assert second[("mailbot_last_poll_success_timestamp_seconds", ())] > 1.7e9
        assert second[("mailbot_poll_duration_seconds_count", ())] == 1
        assert second[("mailbot_backlog_messages", ())] == 7
    finally:
        served.close()


def test_a_store_that_cannot_be_read_gives_store_up_0_not_an_error(bench: Bench) -> None:
    served = serve("127.0.0.1:0", bench.sessions)
    try:
        bench.engine.dispose()
        bench.sessions.configure(bind=None)  # every query now fails
        figures = scrape(served.port)
        assert figures[("mailbot_store_up", ())] == 0
        assert ("mailbot_outbox_pending", ()) not in figures
    finally:
        served.close()
