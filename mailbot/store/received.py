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
    ...     reject(row, "no game")
    ...     mark_processed(row, now, "no game")
    ...     row.status, row.reason, row.handled_at == now
    (<InboundStatus.REJECTED: 'rejected'>, 'no game', True)
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from typing import Any

from sqlalchemy import false, update
from sqlalchemy.orm import Session

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
        .values(status=InboundStatus.NEW, attempts=0, reason=None, last_error=None, handled_at=None)
    )
    return bool(changed.rowcount == 1)


def reject(
    row: InboundMessage, reason: str, status: InboundStatus = InboundStatus.REJECTED
) -> None:
    """The bot does not act on the message (rejected, or ``status``), for ``reason``."""
    row.status, row.reason = status, reason


def ignore(row: InboundMessage, reason: str) -> None:
    """The message is ignored (machine mail, an untrusted From), for ``reason``."""
    row.status, row.reason = InboundStatus.IGNORED, reason


def give_reason(row: InboundMessage, reason: str) -> None:
    """Say what became of the message, its status unchanged."""
    row.reason = reason


def link_game(row: InboundMessage, game_id: int | None) -> None:
    """The message is about the game ``game_id`` (None: about no game)."""
    row.game_id = game_id


def mark_processed(row: InboundMessage, now: datetime.datetime, reason: str | None) -> None:
    """The message is handled: processed unless refused or ignored, at ``now``, for
    ``reason`` (as it may be stored)."""
    if row.status == InboundStatus.NEW:
        row.status = InboundStatus.PROCESSED
    row.handled_at = now
    row.reason = reason


def count_failure(row: InboundMessage, error: str) -> int:
    """Count a failed attempt at the message, with its error; the attempts so far."""
    row.attempts += 1
    row.last_error = error
    return row.attempts


def quarantine_failed(row: InboundMessage, now: datetime.datetime) -> None:
    """The message failed too often: quarantined at ``now``, the count as the reason."""
    row.status = InboundStatus.QUARANTINED
    row.reason = f"failed {row.attempts} times"
    row.handled_at = now
