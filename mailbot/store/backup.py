"""Backup and restore of the whole store, from either kind of database into either kind.

A backup is one file: gzip-compressed JSON lines, written atomically with
mode 0600 (it holds every player's address and every raw message). Its
first line says what it is::

    {"format": "mailbot-backup", "version": 1, "revision": "0011",
     "created_at": "2026-12-01T10:00:00+00:00", "source": "sqlite"}

Then, table after table in the order their foreign keys allow, a line
``{"table": NAME, "columns": [...]}`` followed by one JSON array per row, and
last ``{"end": true, "rows": N}``, so a file cut short is recognised. A value
is a JSON number, string, boolean or null as it is; anything else is an
object with ``"$"`` naming its kind: ``{"$": "datetime", "v": ISO-8601 in UTC}``,
``{"$": "date", "v": ...}``, ``{"$": "bytes", "v": base64}`` (the raw
messages), ``{"$": "json", "v": ...}`` (a JSON column).

The snapshot is consistent while the daemon runs: SQLite's online backup
copies the database in one step into a temporary file that is then read, and
PostgreSQL reads in one ``REPEATABLE READ READ ONLY`` transaction.

:func:`restore` loads a backup into an empty database of either kind: it
takes the schema to the backup's revision, inserts every row, sets the id
sequences past the highest id (PostgreSQL), and upgrades to the
installation's newest revision. A database with rows in it, a backup of a
revision this installation does not know (a newer one), or a file that is
not a whole backup is refused with one line, before anything is written.
Every line is checked first (:mod:`mailbot.store.backupcheck`) against the
schema of the backup's revision, and each mistake found is told on a line of
its own; the rows are then inserted in one transaction.

>>> encode(datetime.datetime(2026, 3, 1, 9, 30, tzinfo=datetime.UTC))
{'$': 'datetime', 'v': '2026-03-01T09:30:00+00:00'}
>>> decode(encode(b"raw"))
b'raw'
>>> decode(encode({"a": [1]})), decode(7), decode("x")
({'a': [1]}, 7, 'x')
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import datetime
import functools
import gzip
import json
import os
import sqlite3
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import MetaData, Table, func, insert, select, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DataError, IntegrityError, SAWarning
from sqlalchemy.types import DateTime

from mailbot.mail.files import replaced_privately
from mailbot.rules.errors import StoreError
from mailbot.store import backupcheck
from mailbot.store.engine import make_engine
from mailbot.store.schema import downgrade, migrations_head, schema_revision, upgrade

#: What the first line's ``format`` says.
FORMAT = "mailbot-backup"
#: The version of the file's layout (not of the schema: that is ``revision``).
VERSION = 1
#: Rows inserted per statement when restoring.
CHUNK = 500
_ALEMBIC = "alembic_version"


class BackupError(StoreError, RuntimeError):
    """A backup cannot be written or restored; the message is the one line to show."""


@dataclasses.dataclass(frozen=True)
class Summary:
    """What a backup or a restore did."""

    revision: str
    tables: int
    rows: int
    seconds: float
    #: The size of the backup file, in bytes.
    size: int

    def line(self) -> str:
        """``revision 0011, 19 tables, 1234 rows, 0.4 s, 88 KiB``."""
        return (
            f"revision {self.revision}, {self.tables} tables, {self.rows} rows, "
            f"{self.seconds:.1f} s, {max(1, round(self.size / 1024))} KiB"
        )


def encode(value: Any) -> Any:
    """A column's value as JSON can carry it (see the module's description)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime.datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=datetime.UTC)
        return {"$": "datetime", "v": aware.astimezone(datetime.UTC).isoformat()}
    if isinstance(value, datetime.date):
        return {"$": "date", "v": value.isoformat()}
    if isinstance(value, bytes | bytearray | memoryview):
        return {"$": "bytes", "v": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, dict | list):
        return {"$": "json", "v": value}
    raise BackupError(f"a value of an unknown kind in the store: {type(value).__name__}")


def decode(value: Any) -> Any:
    """The inverse of :func:`encode`."""
    if not isinstance(value, dict):
        return value
    kind, inner = value.get("$"), value.get("v", "")
    if kind == "datetime":
        return datetime.datetime.fromisoformat(inner)
    if kind == "date":
        return datetime.date.fromisoformat(inner)
    if kind == "bytes":
        return base64.b64decode(inner)
    if kind == "json":
        return inner
    raise BackupError(f"the backup holds a value of an unknown kind: {kind!r}")


# ---------------------------------------------------------------------------
# Backup


def backup(url: str, path: str | os.PathLike[str]) -> Summary:
    """Write a consistent snapshot of the database at ``url`` into the file ``path``."""
    started = time.monotonic()
    target = Path(path)
    engine = make_engine(url)
    try:
        with _snapshot(engine) as (connection, name):
            revision = _revision_of(connection)
            if revision is None:
                raise BackupError("the database has no schema yet: run `mailbot init` first")
            tables, rows = _write(connection, target, revision, name)
    finally:
        engine.dispose()
    return Summary(revision, tables, rows, time.monotonic() - started, target.stat().st_size)


@contextlib.contextmanager
def _snapshot(engine: Engine) -> Iterator[tuple[Connection, str]]:
    """A connection that sees the database as it was at one instant, and the kind's name."""
    if engine.dialect.name == "sqlite":
        with tempfile.TemporaryDirectory(prefix="mailbot-backup-") as folder:
            copy = Path(folder) / "snapshot.db"
            source = engine.raw_connection()
            try:
                driver = source.driver_connection
                assert isinstance(driver, sqlite3.Connection)
                with contextlib.closing(sqlite3.connect(copy)) as destination:
                    driver.backup(destination)  # all pages in one step: one instant
            finally:
                source.close()
            snapshot = make_engine(f"sqlite:///{copy}")
            try:
                with snapshot.connect() as connection:
                    yield connection, "sqlite"
            finally:
                snapshot.dispose()
        return
    with engine.connect() as connection:
        connection = connection.execution_options(isolation_level="REPEATABLE READ")
        with connection.begin():
            connection.exec_driver_sql("SET TRANSACTION READ ONLY")
            yield connection, engine.dialect.name


def _revision_of(connection: Connection) -> str | None:
    from alembic.migration import MigrationContext

    revision = MigrationContext.configure(connection).get_current_revision()
    return None if revision is None else str(revision)


def _tables(connection: Connection) -> list[Table]:
    """The store's tables as the database has them (its rows, not its indexes, matter here)."""
    metadata = MetaData()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Skipped unsupported reflection", SAWarning)
        metadata.reflect(connection)
    return [t for t in metadata.sorted_tables if t.name != _ALEMBIC]


def _write(connection: Connection, target: Path, revision: str, source: str) -> tuple[int, int]:
    tables = _tables(connection)
    rows = 0
    with replaced_privately(target) as raw, gzip.GzipFile(fileobj=raw, mode="wb") as out:
        header = {
            "format": FORMAT,
            "version": VERSION,
            "revision": revision,
            "created_at": datetime.datetime.now(datetime.UTC).isoformat(),
            "source": source,
        }
        _line(out, header)
        for table in tables:
            columns = [c.name for c in table.columns]
            _line(out, {"table": table.name, "columns": columns})
            order = list(table.primary_key.columns) or list(table.columns)
            result = connection.execution_options(yield_per=1000).execute(
                select(table).order_by(*order)
            )
            for row in result:
                _line(out, [encode(v) for v in row])
                rows += 1
        _line(out, {"end": True, "rows": rows})
    return len(tables), rows


def _line(out: gzip.GzipFile, value: Any) -> None:
    out.write(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    out.write(b"\n")


# ---------------------------------------------------------------------------
# Restore


def read_header(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The first line of a backup, checked; :class:`BackupError` if it is none."""
    try:
        first = next(backupcheck.lines(path), (1, b""))[1]
        header = backupcheck.parse(first)
    except FileNotFoundError:
        raise BackupError(f"{path}: no such file") from None
    except (OSError, backupcheck.Mistake):
        raise BackupError(
            f"{path}: not a mailbot backup (not gzip-compressed JSON lines)"
        ) from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise BackupError(f"{path}: not a mailbot backup")
    if header.get("version") != VERSION:
        raise BackupError(
            f"{path}: a backup of layout version {backupcheck.shown(header.get('version'))}; "
            f"this installation reads version {VERSION}"
        )
    return header


def restore(url: str, path: str | os.PathLike[str]) -> Summary:
    """Load the backup ``path`` into the empty database at ``url``; raises BackupError."""
    started = time.monotonic()
    header = read_header(path)
    revision = header.get("revision")
    known = _known_revisions()
    if revision not in known or not isinstance(revision, str):
        raise BackupError(
            f"the backup is of schema revision {str(revision)[:40]}, which this installation "
            f"does not know (it ends at {migrations_head()}): restore it with the mailbot "
            "that wrote it"
        )
    engine = make_engine(url)
    try:
        _check_empty(engine)
        found = backupcheck.mistakes(path, _schema_at(revision))
        if found:
            raise BackupError("\n".join(found))
        current = schema_revision(engine)
        if current is not None and known.index(current) > known.index(revision):
            downgrade(engine, revision)  # empty: nothing is lost
        else:
            upgrade(engine, revision)
        tables, rows = _load(engine, path)
        upgrade(engine)
    finally:
        engine.dispose()
    return Summary(revision, tables, rows, time.monotonic() - started, Path(path).stat().st_size)


def _known_revisions() -> list[str]:
    """The revisions of the shipped migrations, oldest first."""
    from alembic.script import ScriptDirectory

    from mailbot.store.schema import alembic_config

    scripts = ScriptDirectory.from_config(alembic_config())
    return [str(s.revision) for s in reversed(list(scripts.walk_revisions()))]


@functools.cache
def _schema_at(revision: str) -> dict[str, Table]:
    """The store's tables at ``revision``, as a new SQLite database made there has them:
    what a backup of that revision is checked against before anything is written."""
    with tempfile.TemporaryDirectory(prefix="mailbot-restore-") as folder:
        scratch = make_engine(f"sqlite:///{Path(folder) / 'schema.db'}")
        try:
            upgrade(scratch, revision)
            with scratch.connect() as connection:
                return {t.name: t for t in _tables(connection)}
        finally:
            scratch.dispose()


def _records(path: str | os.PathLike[str]) -> Iterator[Any]:
    """The lines after the header, parsed (the file is checked already)."""
    for number, line in backupcheck.lines(path):
        if number > 1:
            yield backupcheck.parse(line)


def _check_empty(engine: Engine) -> None:
    with engine.connect() as connection:
        for table in _tables(connection):
            if connection.execute(select(func.count()).select_from(table)).scalar_one():
                raise BackupError(
                    f"the database is not empty (table {table.name} has rows): restore into "
                    "a new, empty database"
                )


def _load(engine: Engine, path: str | os.PathLike[str]) -> tuple[int, int]:
    """Every row inserted in one transaction: a row the database refuses undoes them all."""
    try:
        return _insert_all(engine, path)
    except (IntegrityError, DataError) as exc:
        lines = str(exc.orig).strip().splitlines()
        raise BackupError(
            f"{path}: the database refused a row ({lines[0] if lines else type(exc).__name__}); "
            "nothing was written"
        ) from None


def _insert_all(engine: Engine, path: str | os.PathLike[str]) -> tuple[int, int]:
    with engine.connect() as connection, connection.begin():
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            connection.exec_driver_sql("PRAGMA defer_foreign_keys=ON")
        tables = {t.name: t for t in _tables(connection)}
        table: Table | None = None
        columns: list[str] = []
        chunk: list[dict[str, Any]] = []
        rows = seen = 0

        def flush() -> None:
            if chunk and table is not None:
                connection.execute(insert(table), chunk)
                chunk.clear()

        for record in _records(path):
            if isinstance(record, list):
                if table is None:
                    raise BackupError(f"{path}: a row before its table's line")
                if len(record) != len(columns):
                    raise BackupError(f"{path}: a row of {table.name} with the wrong columns")
                try:
                    values = [decode(v) for v in record]
                except (ValueError, TypeError):
                    raise BackupError(f"{path}: a damaged value in table {table.name}") from None
                chunk.append(
                    {
                        c: _for_column(table, c, v, sqlite)
                        for c, v in zip(columns, values, strict=True)
                    }
                )
                rows += 1
                if len(chunk) >= CHUNK:
                    flush()
            elif isinstance(record, dict) and "table" in record:
                flush()
                name = record["table"]
                if name not in tables:
                    raise BackupError(f"{path}: table {name} is not in the schema it names")
                table, columns = tables[name], list(record["columns"])
                unknown = set(columns) - set(table.columns.keys())
                if unknown:
                    raise BackupError(f"{path}: table {name} has no column {sorted(unknown)[0]}")
                seen += 1
        flush()
        if not sqlite:
            _set_sequences(connection, list(tables.values()))
    return seen, rows


def _for_column(table: Table, name: str, value: Any, sqlite: bool) -> Any:
    """A decoded value as the reflected column takes it."""
    date_time = isinstance(value, datetime.datetime)
    if sqlite and date_time and isinstance(table.columns[name].type, DateTime):
        return value.astimezone(datetime.UTC).replace(tzinfo=None)  # as UTCDateTime keeps it
    return value


def _set_sequences(connection: Connection, tables: list[Table]) -> None:
    """Each id sequence past the highest id restored (PostgreSQL)."""
    for table in tables:
        for column in table.primary_key.columns:
            sequence = connection.execute(
                text("SELECT pg_get_serial_sequence(:t, :c)"),
                {"t": table.name, "c": column.name},
            ).scalar()
            if sequence is None:
                continue
            connection.execute(
                text(
                    f'SELECT setval(:s, COALESCE((SELECT MAX("{column.name}") '
                    f'FROM "{table.name}"), 0) + 1, false)'
                ),
                {"s": sequence},
            )
