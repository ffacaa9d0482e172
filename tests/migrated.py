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
written, a PostgreSQL schema with no tables yet) and runs the real upgrade on any
other: a test that migrates on purpose (from an older revision, twice, down and up)
keeps doing so with ``mailbot.store.schema.upgrade``.

>>> len(schema_key())
16
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.metadata
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import NullPool

from mailbot.store.engine import make_engine
from mailbot.store.schema import migrations_directory, upgrade

#: The PostgreSQL server of the tests (``conftest.postgres_url`` makes a schema per test)
POSTGRES_URL = os.environ.get(
    "MAILBOT_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


def schema_key() -> str:
    """A digest of what the migrated schema depends on: the migration scripts and the
    versions of Alembic and SQLAlchemy that run them."""
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
    """Run the recorded migrations in the schema of ``url`` when it has no tables yet;
    False when it has some."""
    with autocommit(url) as connection:
        tables = connection.execute(
            text("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()")
        ).scalar_one()
        if tables:
            return False
        script = postgres_script(connection)
        # one query of many statements: one round trip, one implicit transaction
        connection.exec_driver_sql(script)
    return True
