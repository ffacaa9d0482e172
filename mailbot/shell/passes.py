"""One polling pass: the inbox read, each batch handled and filed, then the outbox sent.

A pass fetches every message waiting in the inbox, hands it to the desk ``BATCH``
at a time, files each message (done or quarantine) only after the desk
committed its batch, then sends what the outbox has due. With a backlog, a
courier process (:mod:`mailbot.shell.courier`) sends each batch's answers while
the desk reads the next. ``mailbot poll --once`` is one pass; the daemon
(:mod:`mailbot.shell.daemon`) repeats them. This module imports nothing of the
daemon's own (its scheduler, metrics endpoint, Xfcc listener), so a single pass
starts without them.

>>> fixed_clock(datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC))().isoformat()
'2026-03-01T00:00:00+00:00'
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

from sqlalchemy.orm import Session, sessionmaker

from mailbot.config import Config
from mailbot.desk.pipeline import Desk, Outcome, Policy
from mailbot.mail.inbox import Fetched, Mailbox
from mailbot.mail.postman import Postman
from mailbot.shell.courier import Courier, alone_with_courier, deliver, shareable
from mailbot.shell.delivery import Delivery
from mailbot.shell.health import POLL, beat
from mailbot.store.outage import StoreUnavailable
from mailbot.store.turns import mailbox_turn

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
        tablebases=config.tablebases,
        xfcc_url=config.xfcc.url,
    )


@dataclasses.dataclass(frozen=True)
class PassReport:
    """What one pass did: outcomes by kind and the outbox delivery."""

    outcomes: dict[str, int]
    delivery: Delivery

    def line(self) -> str:
        parts = [f"{k}={v}" for k, v in sorted(self.outcomes.items())]
        parts.append(self.delivery.line())
        return "poll: " + " ".join(parts)


#: Messages handled in one transaction and filed with one IMAP ``UID MOVE``.
BATCH = 50


def mailbox_name(mailbox: Mailbox) -> str:
    """The account and folder ``mailbox`` reads, as its turn is named: ``bot@host:993/INBOX``."""
    s = mailbox.settings
    return f"{s.username}@{s.host}:{s.port}/{mailbox.folders.inbox}"


def read_mailbox(
    mailbox: Mailbox,
    desk: Desk,
    now: Clock,
    stopping: Callable[[], bool] = lambda: False,
    guard: Callable[[], AbstractContextManager[None]] | None = None,
    batch: int = BATCH,
    uids: list[int] | None = None,
    after_batch: Callable[[], None] | None = None,
) -> Counter[str]:
    """Hand every waiting message to the desk and file it by the outcome.

    Messages go to the desk ``batch`` at a time (:meth:`Desk.receive_all`:
    one commit for the batch), and are filed once the batch is committed:
    a crash before the commit leaves them all waiting in the inbox, one
    after it leaves them recorded, and the next pass files them as
    duplicates. Once ``stopping()`` says so, the desk commits what it has
    handled of the batch, those are filed, and the rest waits in the inbox.
    ``guard`` wraps the desk's work on each batch and its filing (the daemon
    holds its stop signal there, so a stop never comes between the two); so
    does the mailbox's turn (:func:`~mailbot.store.turns.mailbox_turn`), so a
    second worker files none of the batch while this one does.
    ``uids`` are the messages waiting, if the caller asked already;
    ``after_batch`` is called once each batch is committed and filed.
    """
    counts: Counter[str] = Counter()
    waiting: list[Fetched] = []

    turn = mailbox_name(mailbox)

    def handle() -> None:
        with nullcontext() if guard is None else guard(), mailbox_turn(desk.sessions, turn):
            outcomes = desk.receive_all(waiting, now(), stopping)
            counts.update(outcome.value for outcome in outcomes)
            handled = list(zip(waiting, outcomes, strict=False))  # a stop may cut it short
            mailbox.file_quarantine(*(f.uid for f, o in handled if o is Outcome.QUARANTINED))
            mailbox.file_done(
                *(f.uid for f, o in handled if o not in (Outcome.QUARANTINED, Outcome.FAILED))
            )
        waiting.clear()
        if after_batch is not None:
            after_batch()

    for fetched in mailbox.fetch(mailbox.pending_uids() if uids is None else uids):
        if stopping():
            waiting.clear()
            break
        waiting.append(fetched)
        if len(waiting) >= batch:
            handle()
    if waiting and not stopping():
        handle()
    return counts


def read_backlog(
    config: Config,
    sessions: sessionmaker[Session],
    mailbox: Mailbox,
    desk: Desk,
    now: Clock,
    stopping: Callable[[], bool] = lambda: False,
    guard: Callable[[], AbstractContextManager[None]] | None = None,
) -> tuple[Counter[str], Delivery]:
    """:func:`read_mailbox`, with a courier when more than one batch waits.

    Returns the outcomes and what the courier sent. The courier has ended
    when this returns or raises, so the caller's own sending goes after it
    and no message goes twice: it finishes what is due once the inbox is
    read, and stops after the message in hand on a stop or a failure.
    """
    uids = mailbox.pending_uids()
    courier = _courier_for(config, sessions, len(uids), now())
    if courier is None:
        return read_mailbox(mailbox, desk, now, stopping, guard, uids=uids), Delivery()
    with alone_with_courier():  # the Xfcc listener's sending stands aside meanwhile
        try:
            counts = read_mailbox(
                mailbox,
                desk,
                now,
                stopping,
                guard,
                uids=uids,
                after_batch=lambda: courier.nudge(now()),
            )
            sent = Delivery() if stopping() else courier.finish(now())
        finally:
            courier.abandon()  # at once if it finished
    return counts, sent


def poll_once(config: Config, sessions: sessionmaker[Session], now: Clock) -> PassReport:
    """One pass: read the inbox, then send what is due (``mailbot poll --once``).

    With a backlog, a courier (:mod:`mailbot.shell.courier`) sends each batch's
    answers while the desk handles the next. Raises :class:`MailboxError` or
    :class:`StoreUnavailable` when a server cannot be reached; a bad message
    never makes it fail.
    """
    desk = Desk(sessions, policy_of(config))
    postman = Postman(config.smtp)
    try:
        with Mailbox(config.imap) as mailbox:
            counts, early = read_backlog(config, sessions, mailbox, desk, now)
    except StoreUnavailable:
        raise
    except BaseException:
        # what is committed goes out even when the mailbox fails mid-pass
        _deliver_quietly(config, sessions, postman, now())
        raise
    delivery = early + deliver(config, sessions, postman, now())
    report = PassReport(dict(counts), delivery)
    beat(sessions, POLL, report.line())
    return report


def _courier_for(
    config: Config, sessions: sessionmaker[Session], waiting: int, now: datetime.datetime
) -> Courier | None:
    """A courier for a backlog of ``waiting`` messages, or None (one batch or fewer, a
    database no other process can open, or it cannot start)."""
    bind = sessions.kw.get("bind")
    if waiting <= BATCH or bind is None:
        return None
    if not shareable(bind.url):
        return None
    try:
        return Courier.start(config, bind, now)
    except OSError as exc:
        log.warning("courier: cannot start (%s); the pass sends after reading", exc)
        return None


def _deliver_quietly(
    config: Config, sessions: sessionmaker[Session], postman: Postman, now: datetime.datetime
) -> None:
    try:
        deliver(config, sessions, postman, now)
    except Exception as exc:
        log.warning("outbox: %s", exc)
