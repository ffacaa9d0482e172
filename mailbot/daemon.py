"""The shell around the desk: one polling pass, and the long-running daemon.

A pass fetches every message waiting in the inbox, hands each to the desk,
files it (done or quarantine) only after the desk committed, then sends what
the outbox has due. The daemon repeats passes, waiting with IMAP IDLE in
between (re-issued every few minutes), reconnects with back-off when the
server goes away, and stops cleanly on SIGTERM.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable
from types import FrameType
from zoneinfo import ZoneInfo

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from sqlalchemy.orm import Session, sessionmaker

from mailbot.config import Config
from mailbot.desk import Desk, Outcome, Policy
from mailbot.inbox import Mailbox, MailboxError
from mailbot.outbox import Delivery, deliver_due
from mailbot.postman import Postman

log = logging.getLogger(__name__)

Clock = Callable[[], datetime.datetime]


def wall_clock() -> datetime.datetime:
    """The real time, for commands run without ``--now``."""
    return datetime.datetime.now(datetime.UTC)


def fixed_clock(moment: datetime.datetime) -> Clock:
    """A clock stopped at ``moment`` (``--now``)."""
    return lambda: moment


def policy_of(config: Config) -> Policy:
    return Policy(
        sender=config.smtp.sender,
        authserv_id=config.policy.authserv_id,
        require_dmarc=config.policy.require_dmarc,
        replies_per_sender_per_day=config.policy.replies_per_sender_per_day,
        timezone=config.timezone,
    )


@dataclasses.dataclass(frozen=True)
class PassReport:
    """What one pass did: outcomes by kind and the outbox delivery."""

    outcomes: dict[str, int]
    delivery: Delivery

    def line(self) -> str:
        parts = [f"{k}={v}" for k, v in sorted(self.outcomes.items())]
        d = self.delivery
        parts.append(f"sent={d.sent} deferred={d.deferred} failed={d.failed}")
        return "poll: " + " ".join(parts)


def read_mailbox(mailbox: Mailbox, desk: Desk, now: Clock) -> Counter[str]:
    """Hand every waiting message to the desk and file it by the outcome."""
    counts: Counter[str] = Counter()
    uids = mailbox.pending_uids()
    for fetched in mailbox.fetch(uids):
        outcome = desk.receive(fetched, now())
        counts[outcome.value] += 1
        if outcome is Outcome.QUARANTINED:
            mailbox.file_quarantine(fetched.uid)
        elif outcome is not Outcome.FAILED:
            mailbox.file_done(fetched.uid)
    return counts


def poll_once(config: Config, sessions: sessionmaker[Session], now: Clock) -> PassReport:
    """One pass: read the inbox, then send what is due (``mailbot poll --once``)."""
    desk = Desk(sessions, policy_of(config))
    try:
        with Mailbox(config.imap) as mailbox:
            counts = read_mailbox(mailbox, desk, now)
    finally:
        # what is committed goes out even when the mailbox fails mid-pass
        delivery = deliver_due(sessions, Postman(config.smtp), now())
    return PassReport(dict(counts), delivery)


class _Stop(Exception):
    """Raised by the SIGTERM handler to leave a blocking IDLE wait."""


class Daemon:
    """``mailbot run``: passes, IDLE waits, the daily sweep, clean stop."""

    def __init__(
        self,
        config: Config,
        sessions: sessionmaker[Session],
        *,
        sweep: Callable[[datetime.datetime], None] | None = None,
    ) -> None:
        self.config = config
        self.sessions = sessions
        self.desk = Desk(sessions, policy_of(config))
        self.postman = Postman(config.smtp)
        self.sweep = sweep
        self.stopping = threading.Event()
        self._waiting = False
        #: Set by the scheduler at the configured hour (and at start, to catch up).
        self.sweep_due = threading.Event()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        log.info("signal %s: stopping", signum)
        self.stopping.set()
        if self._waiting:
            raise _Stop

    def _maybe_sweep(self) -> None:
        """Run the sweep when the scheduler said it is due (in this thread: one writer)."""
        if self.sweep is None or not self.sweep_due.is_set():
            return
        self.sweep_due.clear()
        try:
            self.sweep(wall_clock())
        except Exception:
            log.exception("sweep failed")

    def _scheduler(self) -> BackgroundScheduler:
        """APScheduler marks the daily sweep due; the loop runs it between IDLE waits."""
        zone = ZoneInfo(self.config.timezone)
        scheduler = BackgroundScheduler(timezone=zone)
        scheduler.add_job(
            self.sweep_due.set,
            CronTrigger(hour=self.config.sweep.hour, timezone=zone),
            id="daily-sweep",
            coalesce=True,
            misfire_grace_time=3600,
        )
        return scheduler

    def run(self) -> int:
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
        scheduler = self._scheduler()
        scheduler.start()
        self.sweep_due.set()  # catch up on whatever fell due while the bot was down
        try:
            return self._loop()
        finally:
            scheduler.shutdown(wait=False)

    def _loop(self) -> int:
        delay = 1.0
        while not self.stopping.is_set():
            try:
                with Mailbox(self.config.imap) as mailbox:
                    delay = 1.0
                    log.info("connected to %s", self.config.imap.host)
                    while not self.stopping.is_set():
                        counts = read_mailbox(mailbox, self.desk, wall_clock)
                        if counts:
                            log.info("handled %s", dict(counts))
                        self._maybe_sweep()
                        delivery = deliver_due(self.sessions, self.postman, wall_clock())
                        if delivery.sent or delivery.deferred or delivery.failed:
                            log.info("outbox: %s", delivery)
                        if self.stopping.is_set():
                            break
                        self._waiting = True
                        try:
                            mailbox.wait(
                                self.config.imap.idle_seconds, self.config.imap.poll_seconds
                            )
                        finally:
                            self._waiting = False
            except _Stop:
                break
            except MailboxError as exc:
                if self.stopping.is_set():
                    break
                log.warning("mailbox: %s; reconnecting in %.0f s", exc, delay)
                self._maybe_sweep()  # deadlines do not wait for the mailbox
                try:
                    deliver_due(self.sessions, self.postman, wall_clock())
                except Exception:
                    log.exception("outbox delivery failed")
                self._waiting = True
                try:
                    time.sleep(delay)
                except _Stop:
                    break
                finally:
                    self._waiting = False
                delay = min(delay * 2, 300.0)
        log.info("stopped")
        return 0
