"""Schema upgrades: the Alembic revisions in ``migrations/``, run from the bot.

>>> migrations_directory().name
'migrations'
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Engine,
)
from sqlalchemy.engine import URL

from mailbot.rules.errors import StoreError
from mailbot.store.engine import make_engine


def migrations_directory() -> Path:
    """The Alembic scripts: ``mailbot/migrations`` when installed, ``migrations/`` in a checkout."""
    here = Path(__file__).resolve().parent
    # installed: mailbot/migrations; a checkout: migrations/ beside mailbot/
    candidates = [here / "migrations", here.parent / "migrations", here.parents[1] / "migrations"]
    spec = importlib.util.find_spec("mailbot.migrations")
    if spec is not None and spec.submodule_search_locations:
        candidates.extend(Path(p) for p in spec.submodule_search_locations)
    for candidate in candidates:
        if (candidate / "env.py").is_file() and (candidate / "versions").is_dir():
            return candidate
    raise FileNotFoundError("the migrations folder is missing from this installation")


def alembic_config(connection: Any = None) -> Any:
    """An Alembic ``Config`` for the shipped migrations, needing no ``alembic.ini``."""
    from alembic.config import Config as AlembicConfig

    config = AlembicConfig()
    config.set_main_option("script_location", str(migrations_directory()))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def upgrade(url: str | URL | Engine, revision: str = "head") -> None:
    """Create or upgrade the schema to ``revision`` (Alembic); idempotent."""
    from alembic import command

    _migrate(url, lambda config: command.upgrade(config, revision))


def downgrade(url: str | URL | Engine, revision: str) -> None:
    """Take the schema back to ``revision`` (Alembic), keeping what the columns left hold."""
    from alembic import command

    _migrate(url, lambda config: command.downgrade(config, revision))


class MigrationError(StoreError, RuntimeError):
    """A migration would leave rows pointing at rows that do not exist."""


def _migrate(url: str | URL | Engine, step: Callable[[Any], None]) -> None:
    """Run one Alembic step in one transaction.

    SQLite changes a table by copying it to a new one (Alembic's batch mode):
    with foreign keys enforced, dropping the old table would fail, or delete
    the rows that point at it. So they are off while the step runs (SQLite
    ignores the pragma inside a transaction), checked before the commit, and
    on again afterwards.
    """
    engine = url if isinstance(url, Engine) else make_engine(url)
    try:
        with engine.connect() as connection:
            sqlite = connection.dialect.name == "sqlite"
            if sqlite:
                connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
                connection.commit()
            try:
                with connection.begin():
                    step(alembic_config(connection))
                    if sqlite and connection.exec_driver_sql("PRAGMA foreign_key_check").first():
                        raise MigrationError("the migration left rows without their parents")
            finally:
                if sqlite:
                    connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                    connection.commit()
    finally:
        if engine is not url:
            engine.dispose()


def migrations_head() -> str:
    """The revision the code's migrations end at (what ``mailbot init`` upgrades to)."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None, "the migrations have a head"
    return str(head)


def schema_revision(url: str | URL | Engine) -> str | None:
    """The Alembic revision the database is at; None before ``upgrade``."""
    from alembic.migration import MigrationContext

    engine = url if isinstance(url, Engine) else make_engine(url)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        if engine is not url:
            engine.dispose()
