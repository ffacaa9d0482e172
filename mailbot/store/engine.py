"""Engines and sessions on SQLite and PostgreSQL (``postgresql+psycopg://...``).

>>> describe_url("postgresql+psycopg://bot:secret@db.example.org/chess")
'postgresql+psycopg://bot:***@db.example.org/chess'
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import itertools
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Engine,
    create_engine,
    event,
)
from sqlalchemy.engine import URL, Dialect, make_url
from sqlalchemy.exc import InvalidatePoolError
from sqlalchemy.orm import (
    Session,
    sessionmaker,
)

from mailbot.store.changes import mark_changed_games
from mailbot.store.models import (
    _RECENT,
    Base,
    Game,
    Outbox,
    Player,
    PlayerAddress,
    ReplyCount,
    Tournament,
)


def make_engine(url: str | URL, **kwargs: Any) -> Engine:
    """An engine for ``url``; plain ``postgresql://`` uses psycopg 3.

    On SQLite, foreign keys are enforced and writers wait for each other.

    >>> make_engine("postgresql://bot@db/cc").url.drivername
    'postgresql+psycopg'
    """
    parsed = make_url(url)
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() == "sqlite":
        kwargs.setdefault("connect_args", {}).setdefault("timeout", 30)
    else:
        # do not wait long for a server that does not answer
        kwargs.setdefault("connect_args", {}).setdefault("connect_timeout", 10)
    engine = create_engine(parsed, **kwargs)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    else:
        # a server restarted under the bot leaves dead connections in the pool
        event.listen(engine.pool, "checkin", _note_return)
        event.listen(engine.pool, "checkout", _pinger(engine.dialect))
    return engine


#: Seconds a PostgreSQL connection may have sat unused in the pool and still be taken
#: without a ping first (:func:`needs_ping`).
IDLE_BEFORE_PING = 1.0
#: Where a pooled connection's record keeps when it came back to the pool; the pool
#: empties a record's ``info`` when it connects it anew.
_RETURNED = "mailbot.returned_at"


def needs_ping(returned_at: float | None, now: float) -> bool:
    """Whether a pooled connection that came back to the pool at ``returned_at``
    (``time.monotonic()``; None: never, it is new) is asked ``SELECT 1`` before use.

    A server restarted under the bot leaves dead connections in the pool, and a pass
    that took one would fail at its first statement. SQLAlchemy's ``pool_pre_ping``
    asks at every checkout; but a pass takes a connection for each of its
    transactions, one after the other, and a ping is a round trip to the server:
    months of daily sweeps, run day by day, took a sixth longer with them. A
    connection used a moment ago answered then, so only one that sat idle at least
    :data:`IDLE_BEFORE_PING` seconds is asked, as every connection is at the start
    of a pass after the daemon's wait between passes.

    >>> needs_ping(None, 100.0), needs_ping(99.5, 100.0), needs_ping(90.0, 100.0)
    (False, False, True)
    """
    return returned_at is not None and now - returned_at >= IDLE_BEFORE_PING


def _note_return(dbapi_connection: Any, connection_record: Any) -> None:
    connection_record.info[_RETURNED] = time.monotonic()


def _pinger(dialect: Dialect) -> Callable[[Any, Any, Any], None]:
    """The pool's checkout listener for ``dialect``: a connection :func:`needs_ping`
    says to ask, and that does not answer, is thrown away with every other connection
    of the pool taken before (a restarted server has dropped them all), and the pool
    connects anew (SQLAlchemy's ``DisconnectionError`` on checkout)."""

    def ping_if_idle(dbapi_connection: Any, connection_record: Any, proxy: Any) -> None:
        if not needs_ping(connection_record.info.get(_RETURNED), time.monotonic()):
            return
        try:
            dialect.do_ping(dbapi_connection)
        except dialect.loaded_dbapi.Error as exc:
            raise InvalidatePoolError(f"the database did not answer a ping: {exc}") from exc

    return ping_if_idle


def _sqlite_pragmas(dbapi_connection: Any, connection_record: Any) -> None:
    """Foreign keys on; the file in write-ahead-log mode, every commit on disk.

    In WAL mode a reader (the courier, the site, ``health``) does not wait for a
    writer nor a writer for readers, and a commit is one flush of the log rather
    than the three of a rollback journal. ``synchronous=FULL`` flushes the log at
    each commit, so what the bot sends after a commit survives a power cut. The mode
    is kept in the file: set once, by the first connection that can write it (a
    read-only file stays as it is and is read as it is).
    """
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys=ON")
        # a no-op on a file already in the mode (and in memory); on a read-only file in
        # another mode it fails, and the file is read as it is
        with contextlib.suppress(sqlite3.OperationalError):
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
    finally:
        cursor.close()


@contextlib.contextmanager
def held_back(session: Session, *kinds: type[Base]) -> Iterator[None]:
    """Query without flushing first, unless the session holds new, changed or deleted
    rows of ``kinds``.

    For a query that only rows of ``kinds`` could answer differently once
    flushed: what the session holds back then goes to the database later,
    with more, in one flush instead of two (each flush costs the unit of work
    a pass over the session).

    >>> engine = make_engine("sqlite://")
    >>> Base.metadata.create_all(engine)
    >>> from sqlalchemy import func, select
    >>> now = datetime.datetime(2026, 3, 2, 9, 0, tzinfo=datetime.UTC)
    >>> with session_factory(engine)() as session:
    ...     session.add(ReplyCount(sender="a@example.org", day=now.date(), count=1, updated_at=now))
    ...     counted = select(func.count()).select_from(ReplyCount)
    ...     with held_back(session, Outbox):
    ...         session.scalar(counted)
    ...     with held_back(session, ReplyCount):
    ...         session.scalar(counted)
    0
    1
    """
    if pending(session, *kinds):
        yield
        return
    with session.no_autoflush:
        yield


def pending(session: Session, *kinds: type[Base], new: bool = True) -> bool:
    """Whether ``session`` holds new (unless ``new`` is false), changed or deleted rows
    of ``kinds`` not yet written.

    A batch holds hundreds of rows by its end and asks this for every message:
    their classes are gathered first (a few), and only those are looked at.
    """
    # the session's own books of its changed, deleted and new states: its public views
    # (session.dirty, .deleted, .new) would build three identity sets at each ask
    states = session.identity_map._modified, session._deleted, session._new if new else ()
    return any(issubclass(kind, kinds) for kind in {s.class_ for s in itertools.chain(*states)})


@dataclasses.dataclass
class Recent:
    """What a session loaded or wrote that its later reads would otherwise ask the
    database for, and flush first to ask: a batch of messages then writes once.

    - ``games``: the games :func:`prefetch_games` loaded, by tournament index and
      number (games are made by a start list's import, never by mail);
    - ``threads``: for those games, the Message-IDs and recipients of their
      latest mail in the database when they were loaded, newest first;
    - ``mail``: the outbox rows queued in the session, by game;
    - ``counts``: the reply counts read or made in the session, by sender and
      day, and ``counted``, the senders and days whose count was read (found
      or not);
    - ``writers`` and ``directed``: for the senders :func:`prefetch_senders`
      loaded, the players who write from each address and the tournaments it
      directs, until a player, an address or a tournament is written;
    - ``directors``: the addresses of every tournament's director, once
      :func:`is_director` read them, until a tournament is written;
    - ``texts``: for the texts of a batch's messages (their ``text_sha256``), the
      ids of every stored message with that text, read once for the batch by
      :func:`prefetch_texts` (messages are stored before a batch is handled);
    - ``held``: other rows loaded for the batch, kept here because the session
      itself keeps only weak references.

    It lasts one transaction: a commit or a rollback forgets it.

    >>> engine = make_engine("sqlite://")
    >>> Base.metadata.create_all(engine)
    >>> with session_factory(engine)() as session:
    ...     with session.begin():
    ...         recent(session).mail[1] = []
    ...         1 in recent(session).mail
    ...     1 in recent(session).mail
    True
    False
    """

    games: dict[tuple[str, int], Game] = dataclasses.field(default_factory=dict)
    threads: dict[int, list[tuple[str, list[str]]]] = dataclasses.field(default_factory=dict)
    mail: dict[int, list[Outbox]] = dataclasses.field(default_factory=dict)
    counts: dict[tuple[str, datetime.date], ReplyCount] = dataclasses.field(default_factory=dict)
    counted: set[tuple[str, datetime.date]] = dataclasses.field(default_factory=set)
    writers: dict[str, list[Player]] = dataclasses.field(default_factory=dict)
    directed: dict[str, list[Tournament]] = dataclasses.field(default_factory=dict)
    directors: frozenset[str] | None = None
    texts: dict[str, list[int]] = dataclasses.field(default_factory=dict)
    held: list[Base] = dataclasses.field(default_factory=list)


def recent(session: Session) -> Recent:
    """The session's :class:`Recent`."""
    found = session.info.get(_RECENT)
    if found is None:
        found = session.info[_RECENT] = Recent()
    return found


def _forget_recent(session: Session, *args: Any) -> None:
    session.info.pop(_RECENT, None)


#: Every session of the bot: the games a flush may move are marked due first
#: (mailbot.store.changes), then the caches of this module are kept true. The
#: listeners are wired here, where sessions are made, so that no session misses one.
event.listen(Session, "before_flush", mark_changed_games)
event.listen(Session, "after_commit", _forget_recent)
event.listen(Session, "after_soft_rollback", _forget_recent)


def _forget_changed_people(session: Session, *args: Any) -> None:
    """Before a flush that writes a player, an address or a tournament: who writes
    from an address, and what it directs, are read from the database again."""
    memo = session.info.get(_RECENT)
    if memo is None or not (memo.writers or memo.directed or memo.directors is not None):
        return
    for row in (*session.new, *session.dirty, *session.deleted):
        if isinstance(row, (Player, PlayerAddress)):
            memo.writers.clear()
        elif isinstance(row, Tournament):
            memo.directed.clear()
            memo.directors = None


event.listen(Session, "before_flush", _forget_changed_people)


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions on ``engine``; objects stay readable after commit."""
    return sessionmaker(engine, expire_on_commit=False)


def describe_place(url: str | URL) -> str:
    """Where the database is, whole: an SQLite file's absolute path, otherwise the URL
    with its password hidden (:func:`describe_url`).

    >>> describe_place("sqlite:////var/lib/mailbot/mailbot.db")
    '/var/lib/mailbot/mailbot.db'
    >>> describe_place("postgresql+psycopg://bot:s3cret@db/cc")
    'postgresql+psycopg://bot:***@db/cc'
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        return str(Path(str(parsed.database)).expanduser().absolute())
    return describe_url(parsed)


def describe_url(url: str | URL) -> str:
    """The URL with its password hidden, for messages and logs.

    >>> describe_url("postgresql+psycopg://bot:s3cret@db/cc")
    'postgresql+psycopg://bot:***@db/cc'
    """
    return make_url(url).render_as_string(hide_password=True)
