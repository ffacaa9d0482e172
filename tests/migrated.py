"""A database at the migrations' head without running them per test: a copy of a template.

Running the fifteen Alembic migrations takes more than a second per database; most
tests only need the schema they end at. The migrations run once into a template,
keyed by the migration files' contents (a changed or new migration makes a new
template; a template another run made is reused): on SQLite a migrated file, copied
per test; on PostgreSQL the statements the migrations sent, run again in the test's
schema in one round trip (:func:`postgres_script` says why not a template database).
Concurrent test processes (pytest-xdist workers, other runs) make it once, under a file
lock, in a folder of the user's in the temp dir.

:func:`migrated` puts the template into an empty database (an SQLite file not yet
written, a PostgreSQL schema with no tables yet; there, a schema an earlier test of the
process left as migrated, its rows deleted, when one is kept: :func:`release`) and
runs the real upgrade on any other: a test that migrates on purpose (from an older
revision, twice, down and up) keeps doing so with ``mailbot.store.schema.upgrade``.

>>> len(schema_key())
16
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import hashlib
import importlib.metadata
import os
import shutil
import sqlite3
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

from mailbot.store.engine import make_engine
from mailbot.store.schema import migrations_directory, upgrade

#: The PostgreSQL server of the tests (``conftest.postgres_url`` makes a schema per test)
POSTGRES_URL = os.environ.get(
    "MAILBOT_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


@functools.cache
def schema_key() -> str:
    """A digest of what the migrated schema depends on: the migration scripts and the
    versions of Alembic and SQLAlchemy that run them (read once per process: no test
    changes them, and every database test asks)."""
    digest = hashlib.sha256()
    folder = migrations_directory()
    for path in sorted([folder / "env.py", *(folder / "versions").glob("*.py")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    for package in ("alembic", "sqlalchemy"):
        digest.update(f"{package}={importlib.metadata.version(package)}\0".encode())
    return digest.hexdigest()[:16]


def migrated(url: str) -> None:
    """Bring the database at ``url`` to the head revision: the template's copy when it is
    empty (see the module's docstring), else :func:`mailbot.store.schema.upgrade`."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database:
        target = Path(parsed.database)
        if not target.exists() or target.stat().st_size == 0:
            shutil.copyfile(sqlite_template(), target)
            return
    elif parsed.get_backend_name() == "postgresql" and _fill_postgres_schema(parsed):
        return
    upgrade(url)


def copy_database(source: str, target: str) -> None:
    """Put the schema and rows of the database at ``source`` into the new one at
    ``target`` (both SQLite, or both schemas of :func:`new_schema`), sequences and
    all: a state that took many messages to reach is played once and copied per test.

    On SQLite the file is copied through SQLite's backup API; on PostgreSQL the
    target is migrated (:func:`migrated`) and every table's rows and every
    sequence's value are copied in one round trip."""
    parsed, into = make_url(source), make_url(target)
    if parsed.get_backend_name() == "sqlite":
        assert into.get_backend_name() == "sqlite" and parsed.database and into.database
        with (
            contextlib.closing(sqlite3.connect(parsed.database)) as old,
            contextlib.closing(sqlite3.connect(into.database)) as new,
        ):
            old.backup(new)
        return
    migrated(target)
    (source_schema, target_schema) = (schema_of(parsed), schema_of(into))
    assert source_schema and target_schema, (source, target)
    with _admin() as admin, admin.begin():
        oid = _oid(admin, source_schema)
        tables = admin.execute(_RELATIONS, {"oid": oid, "kind": "r"}).scalars().all()
        sequences = admin.execute(_RELATIONS, {"oid": oid, "kind": "S"}).scalars().all()
        script = ["SET LOCAL session_replication_role = replica"]  # rows in any order
        script += [
            f'INSERT INTO "{target_schema}"."{t}" SELECT * FROM "{source_schema}"."{t}"'
            for t in tables
            if t != "alembic_version"
        ]
        script += [
            f'SELECT setval(\'"{target_schema}"."{q}"\', last_value, is_called)'
            f' FROM "{source_schema}"."{q}"'
            for q in sequences
        ]
        admin.exec_driver_sql("; ".join(script))


# SQLite ---------------------------------------------------------------------

_sqlite_templates: dict[str, Path] = {}


def sqlite_template() -> Path:
    """The migrated SQLite file of this :func:`schema_key`, made once per machine and user."""
    key = schema_key()
    if key not in _sqlite_templates:
        _sqlite_templates[key] = _made_once(
            f"schema-{key}.db", lambda building: upgrade(f"sqlite:///{building}")
        )
    return _sqlite_templates[key]


def _made_once(name: str, build: Callable[[Path], object]) -> Path:
    """The file ``name`` in :func:`_folder`, which ``build`` writes under another name
    the first time (under a file lock, so one process of several builds it), renamed
    into place once whole."""
    folder = _folder()
    made = folder / name
    with (folder / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not made.exists():
            building = folder / f"{name}.{uuid.uuid4().hex}.building"
            try:
                build(building)
                os.replace(building, made)
            finally:
                building.unlink(missing_ok=True)
    return made


def _folder() -> Path:
    """Where the templates are kept between runs: a folder of the user's in the temp dir."""
    folder = Path(tempfile.gettempdir()) / f"mailbot-tests-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


# PostgreSQL -----------------------------------------------------------------

_postgres_scripts: dict[str, str] = {}


@contextlib.contextmanager
def autocommit(url: URL) -> Iterator[Connection]:
    """A connection to ``url`` of its own, each statement committed as it runs."""
    engine = create_engine(url, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    try:
        with engine.connect() as connection:
            yield connection
    finally:
        engine.dispose()


def postgres_script(connection: Connection) -> str:
    """The SQL the migrations send to an empty PostgreSQL schema, as one script.

    PostgreSQL copies a database, not a schema, and a database per test costs more than
    the migrations: ``CREATE DATABASE`` copies the server's catalogs (8 MB) and ``DROP
    DATABASE`` waits for a checkpoint (seconds on a busy machine). So the template is
    the migrations' own statements, recorded once while they run into a schema of
    their own and sent to each test's schema in one round trip. It is made once per
    machine, server version and :func:`schema_key` (a file beside the SQLite template,
    under a file lock).
    """
    version = connection.execute(text("SHOW server_version_num")).scalar_one()
    key = f"{schema_key()}-pg{version}"
    if key not in _postgres_scripts:
        script = _made_once(f"schema-{key}.sql", _write_migrations)
        _postgres_scripts[key] = script.read_text()
    return _postgres_scripts[key]


def _write_migrations(path: Path) -> None:
    with autocommit(make_url(POSTGRES_URL)) as admin:
        path.write_text(_record_migrations(admin))


def _record_migrations(admin: Connection) -> str:
    """Run the migrations into a scratch schema and return what they sent, literal
    values in place (psycopg's client-side binding), one statement a line."""
    from psycopg import ClientCursor

    schema = f"mailbot_record_{uuid.uuid4().hex}"
    admin.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        url = admin.engine.url.update_query_dict({"options": f"-csearch_path={schema}"})
        engine = make_engine(url)
        statements: list[str] = []

        @event.listens_for(engine, "before_cursor_execute")
        def record(
            connection: Any, cursor: Any, statement: str, parameters: Any, context: Any,
            executemany: bool,
        ) -> None:  # fmt: skip
            binder = ClientCursor(cursor.connection)
            many = parameters if executemany else [parameters]
            statements.extend(binder.mogrify(statement, p) for p in many)

        try:
            upgrade(engine)
        finally:
            engine.dispose()
        # SELECTs read the catalogs (Alembic looking before it writes): not needed again
        kept = [s for s in statements if not s.lstrip().upper().startswith("SELECT")]
        return "".join(f"{s.strip().rstrip(';')};\n" for s in kept)
    finally:
        admin.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))


def _fill_postgres_schema(url: URL) -> bool:
    """Put the migrated schema into the schema of ``url`` when it has no tables yet: a
    kept one renamed into its place (:func:`release`), else the recorded migrations
    run in it; False when it has tables."""
    schema = schema_of(url)
    if schema not in _made:  # a URL of no :func:`new_schema`: its own user and schema
        with autocommit(url) as connection:
            current = connection.execute(text("SELECT current_schema()")).scalar_one()
            if _tables(connection, current):
                return False
            connection.exec_driver_sql(postgres_script(connection))
        return True
    with _admin() as admin:
        with admin.begin():
            if _tables(admin, schema):
                return False
        if _kept:
            kept = _kept.pop()
            try:  # the test's empty schema gives way (RESTRICT: only if it holds nothing)
                with admin.begin():
                    admin.execute(text(f'DROP SCHEMA "{schema}" RESTRICT'))
                    admin.execute(text(f'ALTER SCHEMA "{kept}" RENAME TO "{schema}"'))
                return True
            except DBAPIError:  # the test's schema holds something: migrated where it is
                _kept.append(kept)
        with admin.begin():
            script = postgres_script(admin)
            # one query of many statements: one round trip
            admin.exec_driver_sql(f'SET LOCAL search_path TO "{schema}"; {script}')
        with admin.begin():
            oid = _oid(admin, schema)
            tables = admin.execute(_RELATIONS, {"oid": oid, "kind": "r"}).scalars().all()
            sequences = admin.execute(_RELATIONS, {"oid": oid, "kind": "S"}).scalars().all()
            _shapes[oid] = _Shape(
                _digest(admin, oid), _revision(admin, schema), tuple(tables), tuple(sequences)
            )
    return True


def _tables(connection: Connection, schema: str) -> bool:
    query = text(
        "SELECT EXISTS (SELECT FROM pg_class"
        " WHERE relnamespace = to_regnamespace(:schema) AND relkind = 'r')"
    )
    return bool(connection.execute(query, {"schema": f'"{schema}"'}).scalar_one())


# PostgreSQL schemas kept for the next test ------------------------------------

#: Migrated schemas of this process, their rows deleted, each under a name of its own
_kept: list[str] = []


@dataclasses.dataclass(frozen=True)
class _Shape:
    """A schema as the migrations made it, but for its rows: the digest of its
    catalogs (:data:`_DIGEST`), Alembic's revision, its tables and sequences."""

    digest: str
    revision: tuple[str, ...]
    tables: tuple[str, ...]
    sequences: tuple[str, ...]


#: The shape of each schema this process migrated, by the schema's OID (which a
#: rename keeps, as it keeps the OIDs of the schema's tables)
_shapes: dict[int, _Shape] = {}
#: The schemas :func:`new_schema` made (the server's superuser owns them) and not released
_made: set[str] = set()
_engines: list[Engine] = []


def new_schema() -> tuple[str, str]:
    """A new, empty schema of the tests' PostgreSQL server: its name, and a URL whose
    sessions work in it (commits do not wait for the server's disk: the test's data
    need not outlive a crash of the server, and is visible to every session at once
    all the same)."""
    schema = f"t_{uuid.uuid4().hex}"
    with _admin() as admin, admin.begin():
        admin.execute(text(f'CREATE SCHEMA "{schema}"'))
    _made.add(schema)
    options = f"-csearch_path={schema} -csynchronous_commit=off"
    url = make_url(POSTGRES_URL).update_query_dict({"options": options})
    return schema, url.render_as_string(hide_password=False)


def schema_of(url: URL) -> str | None:
    """The schema of a URL :func:`new_schema` made, from its ``search_path`` option."""
    for option in str(url.query.get("options", "")).split():
        if option.startswith("-csearch_path="):
            return option.removeprefix("-csearch_path=")
    return None


def release(schema: str) -> None:
    """The test of ``schema`` has ended: keep the schema for the next test when it is
    as :func:`migrated` left it but for its rows, which are deleted; else drop it.

    Creating a migrated schema and dropping it cost the server 0.17 s of CPU per test
    (the catalogs of 22 new tables, 26 indexes and 19 sequences, and a new session to
    read them); checking one that this process's session knows already, deleting its
    rows and handing it on, 10 ms. A kept schema's name is its own: the sessions of
    the test that used it, should one outlive it, no longer find it, and it is given
    to the next test under that test's name."""
    _made.discard(schema)
    with _admin() as admin:
        with admin.begin():
            oid = _oid(admin, schema)
            known = _shapes.pop(oid, None) if oid is not None else None
            same = (
                known is not None
                and _digest(admin, oid) == known.digest
                and _revision(admin, schema) == known.revision
            )
        if known is None or not same:
            with admin.begin():
                _drop(admin, schema)
            return
        kept = f"t_kept_{uuid.uuid4().hex}"
        cleared = [f'"{schema}"."{t}"' for t in known.tables if t != "alembic_version"]
        try:
            with admin.begin():
                # a transaction of a session the test left running ends first (or the
                # schema is dropped): no row of it can land in the kept schema after
                admin.exec_driver_sql("SET LOCAL lock_timeout = '2s'")
                admin.exec_driver_sql(f"LOCK TABLE {', '.join(cleared)} IN ACCESS EXCLUSIVE MODE")
                # the rows go in any order: the foreign keys' triggers are not fired
                admin.exec_driver_sql("SET LOCAL session_replication_role = replica")
                for table in cleared:
                    admin.exec_driver_sql(f"DELETE FROM {table}")
                for sequence in known.sequences:
                    admin.execute(
                        text("SELECT setval(CAST(:name AS regclass), 1, false)"),
                        {"name": f'"{schema}"."{sequence}"'},
                    )
                admin.execute(text(f'ALTER SCHEMA "{schema}" RENAME TO "{kept}"'))
        except DBAPIError:
            with admin.begin():
                _drop(admin, schema)
            return
        _shapes[oid] = known
        _kept.append(kept)


def _oid(admin: Connection, schema: str) -> int | None:
    query = text("SELECT CAST(to_regnamespace(:schema) AS oid)")
    oid = admin.execute(query, {"schema": f'"{schema}"'}).scalar_one()
    return None if oid is None else int(oid)


_RELATIONS = text(
    "SELECT relname FROM pg_class WHERE relnamespace = :oid AND relkind = :kind ORDER BY relname"
)

#: Everything of a schema but its rows and its sequences' values, read from the
#: catalogs as they are (OIDs and all: it is compared with itself only): its tables,
#: indexes, sequences and views with their columns, types, defaults, constraints,
#: triggers, owners and rights
_DIGEST = text(
    """
    SELECT md5(string_agg(line, ',' ORDER BY line)) FROM (
      SELECT concat_ws(' ', c.oid, c.relname, c.relkind, c.relnatts, c.relchecks,
                       c.relhasindex, c.relhastriggers, c.relhasrules, c.relowner, c.relacl)
        FROM pg_class c WHERE c.relnamespace = :oid
      UNION ALL
      SELECT concat_ws(' ', a.attrelid, a.attnum, a.attname, a.atttypid, a.atttypmod,
                       a.attnotnull, a.atthasdef, a.attisdropped)
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
       WHERE c.relnamespace = :oid AND a.attnum > 0
      UNION ALL
      SELECT concat_ws(' ', d.adrelid, d.adnum, d.adbin)
        FROM pg_attrdef d JOIN pg_class c ON c.oid = d.adrelid WHERE c.relnamespace = :oid
      UNION ALL
      SELECT concat_ws(' ', o.oid, o.conname, o.contype, o.conrelid, o.confrelid, o.conkey,
                       o.confkey, o.condeferrable, o.convalidated, o.conbin)
        FROM pg_constraint o WHERE o.connamespace = :oid
      UNION ALL
      SELECT concat_ws(' ', t.oid, t.tgname, t.tgenabled)
        FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = :oid
      UNION ALL
      SELECT concat_ws(' ', n.oid, n.nspowner, n.nspacl) FROM pg_namespace n WHERE n.oid = :oid
    ) AS catalogs(line)
    """
)


def _digest(admin: Connection, oid: int) -> str:
    return str(admin.execute(_DIGEST, {"oid": oid}).scalar_one())


def _revision(admin: Connection, schema: str) -> tuple[str, ...]:
    """The revisions in the schema's ``alembic_version`` (none if it has no such table)."""
    if admin.execute(text("SELECT to_regclass(:t)"), {"t": f'"{schema}".alembic_version'}).scalar():
        rows = admin.execute(text(f'SELECT version_num FROM "{schema}".alembic_version'))
        return tuple(sorted(rows.scalars()))
    return ()


def _drop(admin: Connection, schema: str) -> None:
    """Drop ``schema``, and forget its shape."""
    oid = _oid(admin, schema)
    if oid is not None:
        _shapes.pop(oid, None)
    admin.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))


@contextlib.contextmanager
def _admin() -> Iterator[Connection]:
    """This process's own session with the tests' server, kept open: its catalog caches
    stay warm. Its users begin and end their transactions."""
    if not _engines:
        _engines.append(create_engine(POSTGRES_URL, pool_size=1))
    with _engines[0].connect() as connection:
        yield connection


def drop_kept() -> None:
    """At the end of a run: drop the schemas this process kept (a worker that dies
    leaves them, as it leaves the schema of the test it was running)."""
    if not _engines:
        return
    try:
        with _admin() as admin, admin.begin():
            for kept in _kept:
                _drop(admin, kept)
    except DBAPIError:
        pass  # the server is gone: the schemas with it, or a later run's to clean
    finally:
        _kept.clear()
        _engines[0].dispose()
