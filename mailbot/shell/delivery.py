"""The outbox's delivery loop: the rows due, sent over SMTP, each on its own.

The store keeps the rows (:mod:`mailbot.store.outbox`); this module sends them
through the postman and records how each went, through the store's named
operations. Each row is composed and sent on its own, so one bad row never holds
up the others: a permanent failure (a 5xx answer, an address the SMTP path
cannot carry) marks that row ``failed`` with its reason and tells the tournament
director once; a temporary one backs that row off; a server that cannot be
reached ends the pass and leaves the rest waiting.

>>> backoff(1), backoff(3), backoff(30)
(datetime.timedelta(seconds=60), datetime.timedelta(seconds=900), datetime.timedelta(seconds=21600))
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
from collections.abc import Callable, Sequence

from sqlalchemy.orm import Session, sessionmaker

from mailbot.mail.addresses import AddressError
from mailbot.mail.bounces import return_path
from mailbot.mail.postman import Postman, SendError, SendFailure
from mailbot.mail.wire import compose, envelope, plain_line
from mailbot.store import outbox, xfccpasswords
from mailbot.store.kinds import OutboxStatus
from mailbot.store.models import Outbox

log = logging.getLogger(__name__)

#: Rows marked sent in one transaction (one commit, one disk flush).
MARKS = 25
#: After this many failed attempts a row is given up (status ``failed``).
MAX_ATTEMPTS = 25
_STEPS = (60, 300, 900, 3600, 3 * 3600)
_CAP = 6 * 3600
#: The longest error text kept on a row.
_LONGEST_ERROR = 2000


def backoff(attempts: int) -> datetime.timedelta:
    """How long to wait after the ``attempts``-th failure."""
    seconds = _STEPS[attempts - 1] if 1 <= attempts <= len(_STEPS) else _CAP
    return datetime.timedelta(seconds=seconds)


@dataclasses.dataclass(frozen=True)
class Delivery:
    """What one pass over the outbox did."""

    sent: int = 0
    deferred: int = 0
    failed: int = 0

    def __add__(self, other: Delivery) -> Delivery:
        return Delivery(
            self.sent + other.sent, self.deferred + other.deferred, self.failed + other.failed
        )

    def line(self) -> str:
        """``sent=3 deferred=0 failed=0``."""
        return f"sent={self.sent} deferred={self.deferred} failed={self.failed}"


#: Called when a row is given up, in the transaction that gives it up.
GiveUp = Callable[[Session, Outbox, datetime.datetime], None]


def _never() -> bool:
    return False


@dataclasses.dataclass(frozen=True)
class Dispatch:
    """What every row of one delivery shares: the postman that sends them, the
    instant, the address their return paths are made on (None: the sender's), who
    is told of a row given up, and whether to stop before the next row."""

    postman: Postman
    now: datetime.datetime
    bounce_address: str | None = None
    on_give_up: GiveUp | None = None
    stopping: Callable[[], bool] = _never


def deliver_due(
    sessions: sessionmaker[Session],
    postman: Postman,
    now: datetime.datetime,
    *,
    batch: int = 500,
    on_give_up: GiveUp | None = None,
    stopping: Callable[[], bool] = _never,
    bounce_address: str | None = None,
) -> Delivery:
    """Send every pending row that is due, ``batch`` rows at a time over one connection.

    Each row goes with its own return path (:func:`mailbot.mail.bounces.return_path`, on
    ``bounce_address`` when given, else on the sender's address), so a delivery
    report that comes back later names it (:func:`mailbot.store.outbox.bounce_of`).

    Rows are locked and marked :data:`MARKS` to a transaction, so a crash
    resends at most those of the group in flight, each with its stable
    Message-ID; a row another worker holds is skipped (``SKIP LOCKED``), so
    two workers never send the same row. When the server cannot be reached,
    the pass ends and the other rows wait for the next one; while the postman
    pauses after such a failure, nothing is tried. ``stopping()`` is asked
    before each row: once it says so, the row in hand has been finished and
    marked, the marks are committed and the pass ends, so a stop that waits
    for this call sends nothing twice.
    """
    dispatch = Dispatch(postman, now, bounce_address, on_give_up, stopping)
    total = Delivery()
    after = 0
    while postman.available() and not stopping():
        with sessions() as session:
            ids = outbox.due(session, now, after=after, limit=batch)
        if not ids:
            return total
        after = ids[-1]
        with postman.batch():
            done, reachable = _deliver(sessions, dispatch, ids)
        total += done
        if not reachable:
            return total
    return total


def _deliver(
    sessions: sessionmaker[Session], dispatch: Dispatch, ids: Sequence[int]
) -> tuple[Delivery, bool]:
    tally = _Tally()
    for start in range(0, len(ids), MARKS):
        if dispatch.stopping():
            break
        with sessions() as session, session.begin():
            rows = outbox.lock_pending(session, ids[start : start + MARKS])
            if not _send_group(session, rows, dispatch, tally):
                return tally.delivery(), False
    return tally.delivery(), True


def _send_group(
    session: Session, rows: Sequence[Outbox], dispatch: Dispatch, tally: _Tally
) -> bool:
    """Send ``rows`` in one transaction, until a stop; False: the server is away. A
    password a mail carried is hidden in the store's copy once the server has taken
    the mail (a mail given up keeps it: a corrected address sends it again)."""
    sent: list[Outbox] = []
    reachable = True
    for row in rows:
        if dispatch.stopping():
            break
        if not _send(session, row, dispatch, tally):
            reachable = False
            break
        if row.status == OutboxStatus.SENT:
            sent.append(row)
    xfccpasswords.hide_sent(session, sent)
    return reachable


@dataclasses.dataclass
class _Tally:
    """What one delivery has done so far."""

    sent: int = 0
    deferred: int = 0
    failed: int = 0
    #: Messages in a row whose sending broke off midway.
    broken: int = 0

    def delivery(self) -> Delivery:
        return Delivery(self.sent, self.deferred, self.failed)


def _error(text: str) -> str:
    return plain_line(text)[:_LONGEST_ERROR]


def _send(session: Session, row: Outbox, dispatch: Dispatch, tally: _Tally) -> bool:
    """Send one message of the outbox and record how it went; False: the server is
    away (or broke off twice in a row), and the mail waits."""
    postman = dispatch.postman
    check = outbox.return_check(row)
    try:
        mail, sender = outbox.outgoing(row), postman.settings.sender
        refused = postman.send(
            lambda smtputf8: compose(mail, sender, smtputf8=smtputf8),
            lambda smtputf8: envelope(mail, smtputf8),
            envelope_from=return_path(dispatch.bounce_address or sender, row.id, check),
        )
    except (AddressError, SendError) as exc:
        return _not_sent(session, row, exc, dispatch, tally)
    except Exception as exc:  # composing failed: this row's fault, not the others'
        outbox.count_attempt(row, _error(f"{type(exc).__name__}: {exc}"))
        _give_up(session, row, dispatch)
        tally.failed += 1
        return True
    tally.broken = 0
    outbox.mark_sent(row, dispatch.now, _error(f"refused: {refused}") if refused else None)
    if refused:
        log.warning("outbox %s: some recipients refused: %s", row.id, refused)
    log.info("sent %s to %s: %s", row.event, _to(row), plain_line(row.subject)[:120])
    tally.sent += 1
    return True


def _not_sent(
    session: Session,
    row: Outbox,
    exc: AddressError | SendError,
    dispatch: Dispatch,
    tally: _Tally,
) -> bool:
    """Record a message the server did not take: deferred, given up, or (False) waiting
    with the rest because the server is away or broke off twice in a row."""
    # an address no path can carry (AddressError) is this message's, for good
    failure = exc.failure if isinstance(exc, SendError) else SendFailure.PERMANENT
    if failure is SendFailure.UNREACHABLE:
        # the server's fault, not this message's: no attempt is counted
        outbox.note_delay(row, _error(str(exc)))
        log.warning("outbox: %s; the mail waits", exc)
        return False
    attempts = outbox.count_attempt(row, _error(str(exc)))
    tally.broken = tally.broken + 1 if failure is SendFailure.MIDWAY else 0
    if tally.broken >= 2:
        # twice in a row: the server, not the messages; they wait
        outbox.retry_at(row, dispatch.now + backoff(attempts))
        dispatch.postman.pause()
        log.warning("outbox: %s, twice in a row; the mail waits", exc)
        tally.deferred += 1
        return False
    if failure is SendFailure.PERMANENT or attempts >= MAX_ATTEMPTS:
        _give_up(session, row, dispatch)
        tally.failed += 1
    else:
        outbox.retry_at(row, dispatch.now + backoff(attempts))
        tally.deferred += 1
        log.warning("outbox %s to %s deferred: %s", row.id, _to(row), exc)
    return True


def _to(row: Outbox) -> str:
    return ", ".join([*row.to_addrs, *row.cc_addrs])


def _give_up(session: Session, row: Outbox, dispatch: Dispatch) -> None:
    outbox.give_up(row)
    log.error("outbox %s to %s given up: %s", row.id, _to(row), row.last_error)
    if dispatch.on_give_up is not None and outbox.UNDELIVERABLE not in row.headers:
        dispatch.on_give_up(session, row, dispatch.now)
