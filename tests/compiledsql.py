"""One dialect, and so one cache of compiled SQL, for the SQLite engines of a test process.

The bot makes one engine per process and keeps it: each statement is compiled at its
first use and read from the engine's cache ever after (a game of sixty moves through
one engine compiled nothing after its first ten messages). A test process makes an engine
for each test's database, hundreds of them, and each compiled the same statements
again: about a twentieth of a worker's CPU. SQLAlchemy keys compiled statements by
the dialect object, so the engines :func:`mailbot.store.engine.make_engine` makes
for SQLite here share one pysqlite dialect, set up once on a database in memory, and
one cache. What a statement compiles to depends on neither the file nor the engine
(every test database is SQLite of the same library); each engine keeps its own
pool, so its own connections, pragmas and connect arguments.

PostgreSQL engines keep their own dialect: it learns the server's default schema at
its first connection, each test has a schema of its own, and reflection reads it.

>>> from sqlalchemy import select, literal
>>> from mailbot.store.engine import make_engine
>>> with shared_sqlite_dialect():
...     one = make_engine("sqlite://")
...     two = make_engine("sqlite://")
>>> one.dialect is two.dialect, one._compiled_cache is two._compiled_cache
(True, True)
>>> with two.connect() as connection:
...     connection.scalar(select(literal(1)))
1
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy
from sqlalchemy import Engine
from sqlalchemy.engine import Dialect
from sqlalchemy.util import LRUCache

from mailbot.store import engine as engines

#: Room for every statement of the bot and the tests (the bot has a few hundred).
CACHE_SIZE = 4000


@contextlib.contextmanager
def shared_sqlite_dialect() -> Iterator[None]:
    """While it lasts, every SQLite engine ``make_engine`` makes shares one dialect and
    one cache of compiled statements."""
    probe = sqlalchemy.create_engine("sqlite://")
    with probe.connect():  # the dialect reads the library's version at a first connection
        pass
    probe.dispose()
    dialect: Dialect = probe.dialect
    cache: LRUCache[Any, Any] = LRUCache(CACHE_SIZE)

    def create_engine(url: Any, **kwargs: Any) -> Engine:
        engine = sqlalchemy.create_engine(url, **kwargs)
        if engine.dialect.name == "sqlite" and type(engine.dialect) is type(dialect):
            engine.dialect = dialect
            engine._compiled_cache = cache
        return engine

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engines, "create_engine", create_engine)
        yield


@pytest.fixture(scope="session", autouse=True)
def _one_sqlite_dialect() -> Iterator[None]:
    """:func:`shared_sqlite_dialect` for the whole test run."""
    with shared_sqlite_dialect():
        yield
