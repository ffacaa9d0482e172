"""Shared fixtures: a fresh, empty database per test, on SQLite and on PostgreSQL.

PostgreSQL is reached at ``MAILBOT_TEST_POSTGRES`` (default
``postgresql+psycopg://postgres@127.0.0.1:5432/test``); every test gets its own
schema there (through ``search_path``), dropped afterwards. Without a server
the PostgreSQL variants fail when ``CI`` is set and are skipped otherwise.

The store tests (``db_url``) run on both databases in every run. The
behaviour tests take ``store_url``: an SQLite file, or a PostgreSQL schema
when ``MAILBOT_TEST_STORE=postgresql``; such a run selects only the tests
that take ``store_url`` (the others do not depend on the database, or ran
on PostgreSQL already). CI runs the suite, then that selection again.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import subprocess
import sys
import tarfile
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from mailservers import dovecot_server, imap_account, smtp_sink  # noqa: F401 (fixtures)
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

# every test fails that wrote a row outside mailbot/store/ (docs/architecture.md 1.1)
from watchwrites import _only_the_store_writes  # noqa: F401 (an autouse fixture)

POSTGRES_URL = os.environ.get(
    "MAILBOT_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)

_postgres_problem: list[str] = []


def _postgres_unavailable() -> str | None:
    """Why PostgreSQL cannot be used (checked once per session), or None."""
    if not _postgres_problem:
        engine = create_engine(POSTGRES_URL, connect_args={"connect_timeout": 5})
        try:
            with engine.connect() as connection:
                connection.execute(text("select 1"))
            _postgres_problem.append("")
        except OperationalError as exc:
            _postgres_problem.append(str(exc.orig).strip().splitlines()[0])
        finally:
            engine.dispose()
    return _postgres_problem[0] or None


def require_postgres() -> None:
    """Fail (under CI) or skip (elsewhere) when PostgreSQL is unreachable."""
    problem = _postgres_unavailable()
    if problem is None:
        return
    message = f"PostgreSQL at {make_url(POSTGRES_URL).render_as_string()} unreachable: {problem}"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """The URL of a fresh, empty PostgreSQL schema, dropped after the test."""
    require_postgres()
    schema = f"t_{uuid.uuid4().hex}"
    admin = create_engine(POSTGRES_URL)
    try:
        with admin.begin() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        url = make_url(POSTGRES_URL).update_query_dict({"options": f"-csearch_path={schema}"})
        yield url.render_as_string(hide_password=False)
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    finally:
        admin.dispose()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """The URL of a new SQLite file."""
    return f"sqlite:///{tmp_path / 'mailbot.db'}"


#: The database of the behaviour tests: ``sqlite`` (default) or ``postgresql``.
STORE = os.environ.get("MAILBOT_TEST_STORE", "sqlite")
if STORE not in ("sqlite", "postgresql"):
    raise pytest.UsageError(f"MAILBOT_TEST_STORE={STORE!r}: want sqlite or postgresql")


@pytest.fixture
def store_url(request: pytest.FixtureRequest) -> str:
    """The database of a behaviour test: SQLite, or PostgreSQL (``MAILBOT_TEST_STORE``)."""
    url: str = request.getfixturevalue("postgres_url" if STORE == "postgresql" else "sqlite_url")
    return url


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With ``MAILBOT_TEST_STORE=postgresql``, only the tests that take ``store_url``."""
    if STORE != "postgresql":
        return
    keep = [i for i in items if "store_url" in getattr(i, "fixturenames", ())]
    config.hook.pytest_deselected(items=[i for i in items if i not in keep])
    items[:] = keep


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest) -> str:
    """An empty database: SQLite, then PostgreSQL."""
    name = "sqlite_url" if request.param == "sqlite" else "postgres_url"
    url: str = request.getfixturevalue(name)
    return url


@pytest.fixture(scope="session")
def syzygy_folder() -> str:
    """A folder of Syzygy endgame tables of up to five pieces.

    ``MAILBOT_TEST_SYZYGY`` names one; otherwise the tables python-chess ships in
    its source package (the same version as installed) are fetched once from
    the package registry into the user's cache. Without them the test fails
    under CI and is skipped elsewhere.
    """
    named = os.environ.get("MAILBOT_TEST_SYZYGY")
    if named:
        return named
    version = importlib.metadata.version("chess")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = cache / "mailbot-tests" / f"syzygy-{version}"
    if (folder / "KQvK.rtbw").exists():
        return str(folder)
    try:
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache) as scratch:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary",
                 ":all:", "-d", scratch, f"chess=={version}"],
                check=True, capture_output=True, timeout=300,
            )  # fmt: skip
            (sdist,) = Path(scratch).glob("chess-*.tar.gz")
            tables = Path(scratch) / "tables"
            tables.mkdir()
            with tarfile.open(sdist) as archive:
                for member in archive.getmembers():
                    if "/data/syzygy/regular/" in member.name and member.isfile():
                        source = archive.extractfile(member)
                        assert source is not None
                        (tables / Path(member.name).name).write_bytes(source.read())
            folder.parent.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(OSError):  # another worker got there first
                tables.rename(folder)
    except (OSError, subprocess.SubprocessError, ValueError, tarfile.TarError) as exc:
        message = f"no Syzygy tables for the tests (set MAILBOT_TEST_SYZYGY): {exc}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return str(folder)
