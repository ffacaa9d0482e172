"""A batch's claim on its messages' rows, so that two workers never handle one message.

A batch claims the rows that were ``new`` when it began (:func:`claim`)
before it reads a game, so a second worker on PostgreSQL waits for the first
and then finds the messages handled (:class:`BatchTaken`). On SQLite, which
has one worker and one write lock for the whole database, the claim comes with
the batch's first write (:data:`CLAIM` in the session's ``info``), and under
that lock the new rows are numbered by the store
(:func:`~mailbot.store.numbering.number_new_rows`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import Session

from mailbot.rules.errors import DeskError
from mailbot.store.numbering import number_new_rows
from mailbot.store.received import take_new, take_write_lock

#: The session's ``info`` key of the rows a batch claims at its first write (SQLite).
CLAIM = "mailbot.claim"

_LOCKED = "mailbot.locked"


class BatchTaken(DeskError, RuntimeError):
    """Another worker handled messages of a batch while this one did: it is rolled back."""


def claim(session: Session, ids: Iterable[int]) -> None:
    """Take the rows ``ids`` (``new`` when the batch began) as this batch's:
    :class:`BatchTaken` if another worker has handled one meanwhile.

    It locks the rows (on SQLite the whole database), so it waits for
    any transaction holding them and then sees them handled.
    """
    wanted = sorted(set(ids))
    if not wanted:
        return
    claimed = take_new(session, wanted)
    if claimed != len(wanted):
        raise BatchTaken(f"{len(wanted) - claimed} of the batch's messages")


def _claim_before_writing(session: Session, *args: Any) -> None:
    """Before a batch's first write on SQLite: its claim (:func:`claim`); and
    before each write once it holds the write lock, the new rows' ids."""
    ids = session.info.pop(CLAIM, None)
    if ids:
        claim(session, ids)
        session.info[_LOCKED] = True
    if session.info.get(_LOCKED):
        number_new_rows(session)


def hold_write_lock(session: Session) -> None:
    """Take SQLite's write lock now (a write that changes nothing), to write at once."""
    take_write_lock(session)
    session.info[_LOCKED] = True


def _unlocked(session: Session, *args: Any) -> None:
    session.info.pop(_LOCKED, None)


event.listen(Session, "before_flush", _claim_before_writing)
event.listen(Session, "after_commit", _unlocked)
event.listen(Session, "after_soft_rollback", _unlocked)


def single_writer(session: Session) -> bool:
    """Whether the database takes one writer at a time (SQLite), not row locks."""
    return session.get_bind().dialect.name == "sqlite"
