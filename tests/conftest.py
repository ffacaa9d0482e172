"""Shared fixtures: a fresh, empty database per test, on SQLite and on PostgreSQL.

PostgreSQL is reached at ``MAILBOT_TEST_POSTGRES`` (default
``postgresql+psycopg://postgres@127.0.0.1:5432/test``); every test gets its own
schema there (through ``search_path``), dropped afterwards. Without a server
the PostgreSQL variants fail when ``CI`` is set and are skipped otherwise.
The databases are empty: ``deskbench.Bench`` and ``harness.Federation`` put the
schema in through ``migrated.migrated``, a copy of a template migrated once.

The store tests (``db_url``) run on both databases in every run. The
behaviour tests take ``store_url``: an SQLite file, or a PostgreSQL schema
when ``MAILBOT_TEST_STORE=postgresql``; such a run selects only the tests
that take ``store_url`` (the others do not depend on the database, or ran
on PostgreSQL already). CI runs the suite, then that selection again.
"""

# ruff: noqa: E402 (bytecode is allowed before the first import below)
from __future__ import annotations

import sys

# Compiled modules are kept (in __pycache__, which git ignores) even where
# PYTHONDONTWRITEBYTECODE is set, as in many container images: without them every
# worker rewrote the asserts of every test module and compiled the bot anew (5 s of
# CPU per process at collection), and every ``python -m mailbot`` a test starts
# compiled it again. Set before anything else is imported, so that the modules
# this file imports are kept too.
sys.dont_write_bytecode = False

import contextlib
import gc
import importlib.metadata
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from compiledonce import compile_once

# the SQLite engines of a test process compile each statement once, as the bot's one does
from compiledsql import _one_sqlite_dialect  # noqa: F401 (an autouse fixture)

# the fuzz suite's figures: inputs tried and the slowest, in the terminal summary
from fuzzing import (  # noqa: F401 (hooks)
    pytest_runtest_call,
    pytest_terminal_summary,
)
from fuzzing import pytest_runtest_logreport as fuzz_logreport
from mailservers import dovecot_server, imap_account, postfix_relay, smtp_sink  # noqa: F401 (fixtures)
from migrated import POSTGRES_URL, drop_kept, new_schema, release
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

# every test fails that wrote a row outside mailbot/store/ (docs/architecture.md 1.1)
from watchwrites import _only_the_store_writes  # noqa: F401 (an autouse fixture)

from mailbot.shell.collector import tune_collector

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


#: The free room a RAM disk needs for the tests' temporary files (a run of the suite
#: writes a few hundred megabytes at most: the install guide's virtual environment,
#: the workers' databases and mail).
RAM_DISK_ROOM = 2 << 30


def pytest_configure(config: pytest.Config) -> None:
    """Temporary files (each test's SQLite file and folder, the servers' mail, Dovecot's
    and Cyrus's folders) go to a RAM disk when the machine has one with room (a
    container's is often 64 MB) and ``TMPDIR`` names no other place: SQLite and Dovecot
    wait for the disk at every commit and every message saved, and on a busy disk that
    was most of a mail-path test's time."""
    ram = Path("/dev/shm")
    if (
        "TMPDIR" not in os.environ
        and ram.is_dir()
        and os.access(ram, os.W_OK | os.X_OK)
        and shutil.disk_usage(ram).free >= RAM_DISK_ROOM
    ):
        os.environ["TMPDIR"] = str(ram)  # for the servers and the bot's processes too
        tempfile.tempdir = None  # gettempdir() looks again


def pytest_xdist_setupnodes(config: pytest.Config) -> None:
    """Before pytest-xdist starts its workers: the bot and the tests compiled once,
    not by every worker at the same time (:mod:`compiledonce`)."""
    compile_once(config)


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """The URL of a fresh, empty PostgreSQL schema, dropped after the test, or kept for
    the next one once its rows are deleted (``migrated.release``)."""
    require_postgres()
    schema, url = new_schema()
    try:
        yield url
    finally:
        release(schema)


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


@pytest.fixture(scope="session")
def session_store_urls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], str]]:
    """URLs of new databases of the kind :func:`store_url` gives, kept to the end of the
    test process: a state that takes many messages is played into one once and copied
    to each test that starts from it (``deskbench.Bench.copy``)."""
    schemas: list[str] = []

    def new_url() -> str:
        if STORE == "postgresql":
            require_postgres()
            schema, url = new_schema()
            schemas.append(schema)
            return url
        return f"sqlite:///{tmp_path_factory.mktemp('played') / 'mailbot.db'}"

    yield new_url
    for schema in schemas:
        release(schema)


#: Fixtures that start a mail server, PostgreSQL or Chromium (or ask for one of them by
#: name at run time): a test that takes one is marked ``servers``.
SERVER_FIXTURES = frozenset(
    {
        "dovecot_server", "imap_account", "cyrus_server", "private_cyrus", "smtp_sink",
        "token_provider", "oauth_dovecot", "oauth_smtp", "private_postgres",
        "private_dovecot", "hung_smtp", "postgres_url", "restartable", "prefixed",
        "smtp_port", "browser", "chrome", "browser_cup", "postfix_relay",
    }
)  # fmt: skip
#: Modules whose tests start servers themselves (in their bodies or fixtures of theirs).
SERVER_MODULES = frozenset(
    {
        "test_outbox",
        "test_stop",
        "test_install_guide",
        "test_faults",
        "test_outage",
        "test_migrated",
    }
)


def _needs_servers(item: pytest.Item) -> bool:
    names = set(getattr(item, "fixturenames", ()))
    callspec = getattr(item, "callspec", None)
    return bool(
        names & SERVER_FIXTURES
        or (callspec is not None and callspec.params.get("db_url") == "postgresql")
        or (STORE == "postgresql" and "store_url" in names)
        or (item.module is not None and item.module.__name__ in SERVER_MODULES)
    )


#: Where pytest's cache keeps each test's seconds in the last run that ran it, per store.
DURATIONS = f"mailbot/durations-{STORE}"
#: The seconds a ``slow`` test is taken to last before a run has timed it.
SLOW_GUESS = 5.0


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks ``servers`` (pyproject's markers) and puts the longest tests first; with
    ``MAILBOT_TEST_STORE=postgresql``, only the tests that take ``store_url``.

    pytest-xdist hands the tests out in this order, one at a time to the worker that
    is free: a test of a minute begun last kept one worker busy for a minute after the
    others had finished. Longest is the time of the last run that ran the test (pytest's
    cache, :func:`pytest_sessionfinish`), or before one did, ``slow`` before the rest."""
    for item in items:
        if isinstance(item, pytest.Function) and _needs_servers(item):
            item.add_marker(pytest.mark.servers)
    cache = getattr(config, "cache", None)  # None under -p no:cacheprovider
    took: dict[str, float] = cache.get(DURATIONS, {}) if cache is not None else {}

    def seconds(item: pytest.Item) -> float:
        guess = SLOW_GUESS if item.get_closest_marker("slow") else 0.0
        return took.get(item.nodeid, guess)

    items.sort(key=seconds, reverse=True)
    if STORE != "postgresql":
        return
    keep = [i for i in items if "store_url" in getattr(i, "fixturenames", ())]
    config.hook.pytest_deselected(items=[i for i in items if i not in keep])
    items[:] = keep


def pytest_collection_finish(session: pytest.Session) -> None:
    """The cyclic collector set as the bot's entry point sets it
    (:func:`mailbot.shell.collector.tune_collector`, a module that imports nothing of
    the bot, so a test file run alone still loads no command): the tests run the bot in
    this process, and at Python's default threshold each full pass walked every
    module, test and fixture the process holds, a twentieth of a worker's time. What
    collection loaded is set aside for good, as the bot's modules are."""
    tune_collector()


_durations: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """A test's seconds, setup to teardown (under pytest-xdist, in the controller)."""
    fuzz_logreport(report)
    _durations[report.nodeid] = _durations.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The seconds of the tests this run ran, kept for the next run's order (in the
    controller, or the only process; the others' are kept as they were); in every
    process, the PostgreSQL schemas it kept for a next test are dropped."""
    drop_kept()
    _collect_once_for_all()
    config = session.config
    cache = getattr(config, "cache", None)
    if hasattr(config, "workerinput") or cache is None or not _durations:
        return
    kept: dict[str, float] = cache.get(DURATIONS, {})
    kept.update({nodeid: round(seconds, 2) for nodeid, seconds in _durations.items()})
    cache.set(DURATIONS, kept)


def _collect_once_for_all() -> None:
    """What the tests left unreachable collected now, until a pass finds nothing, and
    what is left set aside: pytest's own check at the end (its unraisable-exception
    plugin) then runs five full passes, each of which walked every object the tests
    left alive, about half a second a pass in a worker that ran a few hundred tests. A
    finalizer's error met here is reported by that check as before."""
    for _ in range(5):
        if not gc.collect():
            break
    gc.freeze()


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
