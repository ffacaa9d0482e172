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
        self._last_sweep: datetime.date | None = None

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        log.info("signal %s: stopping", signum)
        self.stopping.set()
        if self._waiting:
            raise _Stop

    def _maybe_sweep(self) -> None:
        if self.sweep is None:
            return
        now = wall_clock()
        if now.hour >= self.config.sweep.hour and self._last_sweep != now.date():
            self.sweep(now)
            self._last_sweep = now.date()

    def run(self) -> int:
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
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
                        delivery = deliver_due(self.sessions, self.postman, wall_clock())
                        if delivery.sent or delivery.deferred or delivery.failed:
                            log.info("outbox: %s", delivery)
                        self._maybe_sweep()
                        if self.stopping.is_set():
                            break
                        self._waiting = True
                        try:
                            mailbox.wait(self.config.imap.idle_seconds)
                        finally:
                            self._waiting = False
            except _Stop:
                break
            except MailboxError as exc:
                if self.stopping.is_set():
                    break
                log.warning("mailbox: %s; reconnecting in %.0f s", exc, delay)
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
