"""The tests' PostgreSQL schemas: one kept for the next test holds nothing of the last.

``conftest.postgres_url`` gives each test a new schema and, after it, keeps the
schema (``migrated.release``) when it is as the migrations left it but for its rows.
What a test would notice if the keeping were wrong: rows of another test, counters
that do not start at 1, or a table another test changed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import require_postgres
from deskbench import Bench
from migrated import _admin, _kept, drop_kept, migrated, new_schema, release
from sqlalchemy import create_engine, text


@pytest.fixture
def schemas() -> Iterator[list[str]]:
    """The schemas a test makes, released after it whatever it left them as; the
    schemas this process kept before are dropped first."""
    require_postgres()
    drop_kept()
    made: list[str] = []
    yield made
    for schema in made:
        release(schema)


def _rows(url: str) -> dict[str, int]:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            tables = connection.execute(
                text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
            ).scalars()
            return {
                table: int(connection.execute(text(f'SELECT count(*) FROM "{table}"')).scalar_one())
                for table in tables
            }
    finally:
        engine.dispose()


def test_a_kept_schema_comes_back_empty_with_its_counters_from_one(schemas: list[str]) -> None:
    first, url = new_schema()
    schemas.append(first)
    bench = Bench(url)  # a tournament of two players, two games
    bench.engine.dispose()
    filled = _rows(url)
    assert filled["players"] > 0 and filled["games"] > 0
    release(schemas.pop())
    assert len(_kept) == 1, "a schema as the migrations left it is kept"
    second, again = new_schema()
    schemas.append(second)
    bench = Bench(again)  # the kept schema, under this test's name
    assert not _kept
    try:
        with bench.sessions() as session:
            ids = session.execute(text("SELECT min(id), max(id) FROM players")).one()
    finally:
        bench.engine.dispose()
    assert tuple(ids) == (1, filled["players"])
    assert _rows(again) == filled  # the same rows, not twice as many


def test_a_schema_a_test_changed_is_dropped_not_kept(schemas: list[str]) -> None:
    schema, url = new_schema()
    migrated(url)
    with _admin() as admin, admin.begin():
        admin.execute(text(f'ALTER TABLE "{schema}".players ADD COLUMN nickname text'))
    release(schema)
    assert not _kept
    with _admin() as admin, admin.begin():
        gone = admin.execute(
            text("SELECT count(*) FROM pg_namespace WHERE nspname = :name"), {"name": schema}
        ).scalar_one()
    assert gone == 0
    fresh, again = new_schema()
    schemas.append(fresh)
    migrated(again)
    with _admin() as admin, admin.begin():
        columns = admin.execute(
            text(
                "SELECT count(*) FROM information_schema.columns"
                " WHERE table_schema = :schema AND column_name = 'nickname'"
            ),
            {"schema": fresh},
        ).scalar_one()
    assert columns == 0
