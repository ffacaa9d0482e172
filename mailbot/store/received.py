"""The ledger of received messages: each row's way from ``new`` to its end.

A message is recorded when it arrives (:func:`record_inbound`), taken by the batch
that handles it (:func:`take_new`), and ends processed, ignored, rejected or
quarantined, with the reason why::

    >>> import datetime
    >>> from mailbot.store.engine import make_engine, session_factory
    >>> from mailbot.store.models import Base
    >>> engine = make_engine("sqlite://")
    >>> Base.metadata.create_all(engine)
    >>> now = datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC)
    >>> with session_factory(engine).begin() as session:
    ...     row = record_inbound(session, now, raw_sha256="ab", internaldate=now, raw=b"")
    ...     reject(row, Phrase("reason.no-move"))
    ...     mark_processed(row, now)
    ...     row.status, row.reason_phrase, row.handled_at == now
    (<InboundStatus.REJECTED: 'rejected'>, {'code': 'reason.no-move', 'details': {}}, True)

A reason is a :class:`~mailbot.rules.phrase.Phrase`: the row keeps its code and
details, as data and as one line of text (``reason.echo``); whoever reads it writes
it in the reader's language (:func:`mailbot.compose.catalogue.say_kept`): the dispute
file in the event's, the logs and the command line in English. A row kept before
reasons were phrases has its English in that line, and no phrase.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from typing import Any

from sqlalchemy import false, update
from sqlalchemy.orm import Session

from mailbot.mail.storable import storable
from mailbot.rules.phrase import Phrase
from mailbot.store.kinds import InboundStatus
from mailbot.store.models import InboundMessage

__all__ = [
    "count_failure",
    "forget_inbound",
    "give_reason",
    "ignore",
    "link_game",
    "mark_processed",
    "quarantine_failed",
    "record_inbound",
    "reject",
    "release_quarantined",
    "take_new",
    "take_write_lock",
]


def record_inbound(
    session: Session, now: datetime.datetime, *, flush: bool = True, **fields: Any
) -> InboundMessage:
    """A new row for a received message (``new``, no attempt yet); flushed for its id
    unless ``flush`` is false."""
    row = InboundMessage(**fields, status=InboundStatus.NEW, attempts=0, created_at=now)
    session.add(row)
    if flush:
        session.flush()
    return row


def forget_inbound(session: Session, row: InboundMessage) -> None:
    """Drop the row of a message a pass leaves in the mailbox (the next records it again)."""
    session.delete(row)


def take_new(session: Session, ids: Iterable[int]) -> int:
    """Lock the rows ``ids`` that are still ``new`` (a write that changes nothing);
    how many were."""
    taken = session.connection().execute(
        update(InboundMessage)
        .where(InboundMessage.id.in_(list(ids)), InboundMessage.status == InboundStatus.NEW)
        .values(attempts=InboundMessage.attempts)
    )
    return int(taken.rowcount)


def take_write_lock(session: Session) -> None:
    """Take SQLite's write lock now, by a write that changes nothing."""
    session.connection().execute(update(InboundMessage).where(false()).values(id=InboundMessage.id))


def release_quarantined(session: Session, row_id: int) -> bool:
    """Set a quarantined row back to ``new``, its attempts and errors forgotten;
    False if it was not quarantined (released meanwhile by another)."""
    changed = session.connection().execute(
        update(InboundMessage)
        .where(InboundMessage.id == row_id, InboundMessage.status == InboundStatus.QUARANTINED)
        .values(
            status=InboundStatus.NEW,
            attempts=0,
            reason=None,
            reason_phrase=None,
            last_error=None,
            handled_at=None,
        )
    )
    return bool(changed.rowcount == 1)


#: The longest reason a row keeps (a delivery report may quote a long answer).
REASON_SIZE = 2000


def _say(row: InboundMessage, reason: Phrase) -> None:
    """Keep ``reason`` on ``row``: its code and details, as text and as data."""
    row.reason = storable(str(reason), REASON_SIZE)
    row.reason_phrase = _storable(reason.to_data())


def _storable(value: Any) -> Any:
    """``value`` (a phrase's data) with every text as the database can keep it (a
    delivery report quotes a server's words, which may hold anything)."""
    if isinstance(value, str):
        return storable(value, REASON_SIZE)
    if isinstance(value, dict):
        return {k: _storable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_storable(v) for v in value]
    return value


def reject(
    row: InboundMessage, reason: Phrase, status: InboundStatus = InboundStatus.REJECTED
) -> None:
    """The bot does not act on the message (rejected, or ``status``), for ``reason``."""
    row.status = status
    _say(row, reason)


def ignore(row: InboundMessage, reason: Phrase) -> None:
    """The message is ignored (machine mail, an untrusted From), for ``reason``."""
    row.status = InboundStatus.IGNORED
    _say(row, reason)


def give_reason(row: InboundMessage, reason: Phrase) -> None:
    """Say what became of the message, its status unchanged."""
    _say(row, reason)


def link_game(row: InboundMessage, game_id: int | None) -> None:
    """The message is about the game ``game_id`` (None: about no game)."""
    row.game_id = game_id


def mark_processed(row: InboundMessage, now: datetime.datetime) -> None:
    """The message is handled: processed unless refused or ignored, at ``now`` (its
    reason, if any, given already)."""
    if row.status == InboundStatus.NEW:
        row.status = InboundStatus.PROCESSED
    row.handled_at = now


def count_failure(row: InboundMessage, error: str) -> int:
    """Count a failed attempt at the message, with its error; the attempts so far."""
    row.attempts += 1
    row.last_error = error
    return row.attempts


def quarantine_failed(row: InboundMessage, now: datetime.datetime) -> None:
    """The message failed too often: quarantined at ``now``, the count as the reason."""
    row.status = InboundStatus.QUARANTINED
    _say(row, Phrase("reason.failed", {"attempts": row.attempts}))
    row.handled_at = now
