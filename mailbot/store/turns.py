"""A mailbox's turn: one worker at a time handles a batch of its messages and files it.

Two workers on one PostgreSQL database read the same inbox. The rows decide who
handles a message (:mod:`mailbot.desk.claims`), but filing happens on the IMAP
server after the commit, and an IMAP ``MOVE`` is no atomic step between two
sessions: two workers moving one message at once can each copy it before either
expunges it, leaving it twice in the done folder. So a worker holds the mailbox's
turn, a PostgreSQL advisory lock, from a batch's claim to the end of its filing;
the other waits, then finds the messages handled and their UIDs gone. The lock
belongs to its connection, so a worker that dies lets go of it at once.

SQLite has one worker (a second process waits on the database's own lock), and
there the turn is no more than the batch itself.

>>> turn_key("bot@imap.example:993/INBOX") == turn_key("bot@imap.example:993/INBOX")
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

from mailbot.store.outage import raise_if_outage


def turn_key(name: str) -> int:
    """The advisory lock's key for ``name``: 64 bits of its SHA-256, signed as PostgreSQL's
    ``bigint`` is."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


@contextmanager
def mailbox_turn(sessions: sessionmaker[Session], name: str) -> Iterator[None]:
    """Hold the turn of the mailbox ``name`` (its account and folder) for the block,
    waiting for another worker's; on SQLite, return at once.

    The lock is taken on a connection of its own, outside any transaction, and
    let go when the block ends; a connection that cannot say so is dropped
    rather than handed back to the pool with the lock.
    """
    bind = sessions.kw.get("bind")
    if bind is None or bind.dialect.name != "postgresql":
        yield
        return
    key = turn_key(name)
    try:
        connection = bind.connect()
    except Exception as exc:
        raise_if_outage(sessions, exc)
        raise
    with connection:
        try:
            connection.execution_options(isolation_level="AUTOCOMMIT")
            connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": key})
        except Exception as exc:
            raise_if_outage(sessions, exc)
            raise
        try:
            yield
        finally:
            try:
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
            except Exception:
                # the server lets go of the lock with the connection; what the block
                # raised, if anything, is the error worth reporting
                connection.invalidate()
