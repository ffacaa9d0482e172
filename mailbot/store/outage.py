"""When the store, not a message, is at fault.

A message that makes the bot fail is poison: its failure is counted, it is
tried again, and after the last attempt it goes to quarantine. A database that
refuses work for its own reasons is an outage instead: a disk or quota that is
full, a database or file that is read-only (a file restored by root, a
filesystem mounted read-only, a PostgreSQL server in read-only transactions or
in recovery), an I/O error, a lock held too long, a server that cannot be
reached. An outage stops the pass before any message is charged for it: the
messages stay in the inbox, ``poll`` exits 1 with one line naming the fault and
what to check, and the daemon waits with back-off and resumes by itself
(docs/operators.md, "When a server is down").

The driver's own error decides (its SQLSTATE on PostgreSQL, its result code on
SQLite); where it says nothing that decides, :func:`probe` asks the database to
read and to write.

>>> import sqlite3
>>> fault_of(sqlite3.OperationalError("database or disk is full"), "sqlite:///bot.db").kind
<Fault.FULL: 'full'>
>>> fault_of(ValueError("no such move"), "sqlite:///bot.db") is None
True
"""

from __future__ import annotations

import dataclasses
import enum
import sqlite3
from collections.abc import Iterator

from sqlalchemy import text
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm import Session, sessionmaker

from mailbot.rules.errors import StoreError


class Fault(enum.Enum):
    """What is wrong with the store."""

    UNREACHABLE = "unreachable"
    FULL = "full"
    READ_ONLY = "read-only"
    IO = "io"
    LOCKED = "locked"
    DAMAGED = "damaged"
    RESOURCES = "resources"

    @property
    def says(self) -> str:
        """The fault in words, after "the database URL"."""
        return _SAYS[self]

    @property
    def check(self) -> str:
        """What the operator should look at."""
        return _CHECK[self]


_SAYS = {
    Fault.UNREACHABLE: "cannot be reached",
    Fault.FULL: "cannot write: the disk or the quota is full",
    Fault.READ_ONLY: "cannot write: it is read-only",
    Fault.IO: "cannot write: the disk reports an I/O error",
    Fault.LOCKED: "cannot write: another process holds its lock",
    Fault.DAMAGED: "reports damage",
    Fault.RESOURCES: "is out of memory or connections",
}

_CHECK = {
    Fault.UNREACHABLE: "check that the server runs and `database` in {config}",
    Fault.FULL: "free space on the disk that holds it (or raise the quota)",
    Fault.READ_ONLY: (
        "check that the service user may write the database file, its folder and "
        "the file's -wal and -shm companions (owner and mode, as after a restore), "
        "that its filesystem is mounted read-write, and that the server takes writes "
        "(default_transaction_read_only, a replica)"
    ),
    Fault.IO: "check the disk and the system log",
    Fault.LOCKED: "check for another process or a long transaction on the database",
    Fault.DAMAGED: "check the disk; restore the database from a backup if it stays",
    Fault.RESOURCES: "check the database server's memory and max_connections",
}


@dataclasses.dataclass(frozen=True)
class StoreFault:
    """One outage of the store: what, where, and the driver's own words.

    >>> f = StoreFault(Fault.FULL, "sqlite:///bot.db", "database or disk is full")
    >>> f.line()
    'the database sqlite:///bot.db cannot write: the disk or the quota is full (database or disk is full)'
    >>> f.advice("config.yaml")
    'free space on the disk that holds it (or raise the quota); the messages wait in the inbox'
    """  # noqa: E501

    kind: Fault
    where: str
    reason: str

    def line(self) -> str:
        return f"the database {self.where} {self.kind.says} ({self.reason})"

    def advice(self, config: str) -> str:
        return f"{self.kind.check.format(config=config)}; the messages wait in the inbox"

    def __str__(self) -> str:
        return self.line()


class StoreUnavailable(StoreError, RuntimeError):
    """The store cannot do its work (:class:`StoreFault`): no message is handled
    until it is back, and none is charged for it."""

    def __init__(self, fault: StoreFault) -> None:
        super().__init__(fault.line())
        self.fault = fault


#: SQLite's primary result codes (https://sqlite.org/rescode.html) that are the store's.
_SQLITE = {
    3: Fault.READ_ONLY,  # SQLITE_PERM
    5: Fault.LOCKED,  # SQLITE_BUSY
    6: Fault.LOCKED,  # SQLITE_LOCKED
    7: Fault.RESOURCES,  # SQLITE_NOMEM
    8: Fault.READ_ONLY,  # SQLITE_READONLY
    10: Fault.IO,  # SQLITE_IOERR
    11: Fault.DAMAGED,  # SQLITE_CORRUPT
    13: Fault.FULL,  # SQLITE_FULL
    14: Fault.UNREACHABLE,  # SQLITE_CANTOPEN
    15: Fault.LOCKED,  # SQLITE_PROTOCOL
    26: Fault.DAMAGED,  # SQLITE_NOTADB
}

#: The same, by the words of SQLite's messages, for errors that carry no code.
_SQLITE_WORDS = (
    ("database or disk is full", Fault.FULL),
    ("readonly database", Fault.READ_ONLY),
    ("disk i/o error", Fault.IO),
    ("database is locked", Fault.LOCKED),
    ("unable to open database", Fault.UNREACHABLE),
    ("malformed", Fault.DAMAGED),
    ("file is not a database", Fault.DAMAGED),
)

#: PostgreSQL's SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html)
#: that are the server's, exact codes before classes.
_SQLSTATE = {
    "25006": Fault.READ_ONLY,  # read_only_sql_transaction
    "53100": Fault.FULL,  # disk_full
    "53200": Fault.RESOURCES,  # out_of_memory
    "53300": Fault.RESOURCES,  # too_many_connections
    "53400": Fault.RESOURCES,  # configuration_limit_exceeded
    "55P03": Fault.LOCKED,  # lock_not_available
    "57014": Fault.LOCKED,  # query_canceled (statement_timeout, lock_timeout)
    "40001": Fault.LOCKED,  # serialization_failure
    "40P01": Fault.LOCKED,  # deadlock_detected
    "XX001": Fault.DAMAGED,  # data_corrupted
    "XX002": Fault.DAMAGED,  # index_corrupted
}
_SQLSTATE_CLASS = {
    "08": Fault.UNREACHABLE,  # connection exception
    "53": Fault.RESOURCES,  # insufficient resources
    "57": Fault.UNREACHABLE,  # operator intervention (shutdown, cannot connect now)
    "58": Fault.IO,  # system error (io_error, undefined_file)
}


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc``, the driver's error SQLAlchemy wraps, and what it was raised from."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop(0)
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        orig = getattr(current, "orig", None)
        todo += [orig if isinstance(orig, BaseException) else None]
        todo += [current.__cause__, current.__context__]


def classify(exc: BaseException) -> Fault | None:
    """The store's fault that ``exc`` reports, or None when it reports none (then the
    message may be at fault).

    >>> classify(sqlite3.OperationalError("attempt to write a readonly database"))
    <Fault.READ_ONLY: 'read-only'>
    >>> classify(sqlite3.IntegrityError("UNIQUE constraint failed: outbox.message_id")) is None
    True
    """
    for cause in _causes(exc):
        if isinstance(cause, DisconnectionError | PoolTimeout):
            return Fault.UNREACHABLE
        if isinstance(cause, sqlite3.Error):
            code = getattr(cause, "sqlite_errorcode", None)
            if isinstance(code, int) and (code & 0xFF) in _SQLITE:
                return _SQLITE[code & 0xFF]
            words = str(cause).lower()
            found = next((f for w, f in _SQLITE_WORDS if w in words), None)
            if found is not None:
                return found
        found = _postgres(cause)
        if found is not None:
            return found
    return None


def _postgres(exc: BaseException) -> Fault | None:
    try:
        import psycopg
    except ImportError:  # pragma: no cover - psycopg is a dependency
        return None
    if not isinstance(exc, psycopg.Error):
        return None
    state = exc.sqlstate
    if state is None:
        # no answer from the server at all: the connection failed or was lost
        return Fault.UNREACHABLE if isinstance(exc, psycopg.OperationalError) else None
    return _SQLSTATE.get(state) or _SQLSTATE_CLASS.get(state[:2])


def _reason(exc: BaseException) -> str:
    lines = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def fault_of(exc: BaseException, where: str) -> StoreFault | None:
    """The outage ``exc`` reports at ``where`` (a URL with its password hidden), or None."""
    kind = classify(exc)
    return StoreFault(kind, where, _reason(exc)) if kind is not None else None


def raise_if_outage(sessions: sessionmaker[Session], exc: BaseException) -> None:
    """Raise :class:`StoreUnavailable` from ``exc`` when the driver's error says the store
    of ``sessions`` is at fault (:func:`fault_of`); else return, for the caller to go on.

    >>> raise_if_outage(sessionmaker(), ValueError("a message's own fault"))
    """
    fault = fault_of(exc, where_of(sessions))
    if fault is not None:
        raise StoreUnavailable(fault) from exc


def where_of(sessions: sessionmaker[Session]) -> str:
    """The database of ``sessions``, its password hidden."""
    bind = sessions.kw.get("bind")
    if bind is None:
        return "the database"
    return str(bind.url.render_as_string(hide_password=True))


def probe(sessions: sessionmaker[Session], *, write: bool = True) -> StoreFault | None:
    """Ask the database to read and (with ``write``) to write; the outage it shows, or None.

    The write changes nothing and is committed, so that the file, the journal
    and the server's own checks all take part: on SQLite it sets the schema's
    user version to what it is; on PostgreSQL it asks whether transactions are
    read-only and rewrites the migration row. An error that reports no fault of
    the store (a database without the bot's tables) counts as none.

    >>> from mailbot.store.engine import make_engine, session_factory
    >>> probe(session_factory(make_engine("sqlite://"))) is None
    True
    """
    where = where_of(sessions)
    try:
        with sessions() as session, session.begin():
            session.execute(text("SELECT 1"))
            refusal = _write_nothing(session) if write else None
    except Exception as exc:
        kind = classify(exc)
        if kind is None and not write:
            kind = Fault.UNREACHABLE  # not even a SELECT 1 answered
        return StoreFault(kind, where, _reason(exc)) if kind is not None else None
    return StoreFault(Fault.READ_ONLY, where, refusal) if refusal else None


def _write_nothing(session: Session) -> str | None:
    """A write that changes nothing; why the server refuses writes, if it says so."""
    name = session.get_bind().dialect.name
    if name == "sqlite":
        version = session.execute(text("PRAGMA user_version")).scalar() or 0
        session.execute(text(f"PRAGMA user_version = {int(version)}"))
    elif name == "postgresql":
        if session.execute(text("SHOW transaction_read_only")).scalar() == "on":
            return "its transactions are read-only"
        if session.execute(text("SELECT to_regclass('alembic_version')")).scalar() is not None:
            session.execute(text("UPDATE alembic_version SET version_num = version_num"))
    return None


def diagnose(sessions: sessionmaker[Session], exc: BaseException) -> StoreFault | None:
    """Whether the store, not the work that raised ``exc``, is at fault: the driver's
    error decides, else a read of the database (one that cannot be reached is)."""
    return fault_of(exc, where_of(sessions)) or probe(sessions, write=False)
