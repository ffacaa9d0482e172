"""Who writes the store's rows, watched while the tests run.

Every mapped attribute of every model reports each write (a value set, a row
added to or removed from a relationship, a row constructed); the innermost frame
of the bot that made it must lie in ``mailbot/store/`` (docs/architecture.md, "One
owner for every write"). Tests themselves may write rows (to set a scene).
``conftest.py`` installs the watch for the whole run and fails a test whose code
path wrote a row from anywhere else in the bot.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from sqlalchemy import event, inspect

import mailbot
from mailbot.store import models

PACKAGE = str(Path(mailbot.__file__).parent) + "/"
STORE = PACKAGE + "store/"
#: Where each write came from that should not have: ``module:line what``.
FOUND: list[str] = []
_installed: list[bool] = []
#: SQLAlchemy's own writes while it flushes (foreign keys, new ids) are no one's.
_UNIT_OF_WORK = {"_flush", "flush", "_autoflush"}


def _writer() -> str | None:
    """The innermost frame of the bot (not of SQLAlchemy) on the stack, if outside the store."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if "/sqlalchemy/orm/" in name and frame.f_code.co_name in _UNIT_OF_WORK:
            return None  # keys and defaults filled in by the flush itself
        if name.startswith(PACKAGE):
            return None if name.startswith(STORE) else f"{name[len(PACKAGE) :]}:{frame.f_lineno}"
        if "/sqlalchemy/" not in name and name != __file__ and not name.startswith("<"):
            return None  # a test (or a library) wrote it
        frame = frame.f_back  # type: ignore[assignment]
    return None


def _watch(what: str) -> Any:
    def listener(*args: Any, **kwargs: Any) -> None:
        where = _writer()
        if where is not None:
            FOUND.append(f"{where} {what}")

    return listener


def models_of_the_store() -> list[type[models.Base]]:
    return [m.class_ for m in models.Base.registry.mappers]


def install() -> None:
    """Listen to every write of every model (once per process)."""
    if _installed:
        return
    _installed.append(True)
    for model in models_of_the_store():
        event.listen(model, "init", _watch(f"new {model.__name__}"))
        for attr in inspect(model).attrs:
            target = getattr(model, attr.key)
            event.listen(target, "set", _watch(f"{model.__name__}.{attr.key} ="))
            if hasattr(attr, "direction"):
                event.listen(target, "append", _watch(f"{model.__name__}.{attr.key}.append"))
                event.listen(target, "remove", _watch(f"{model.__name__}.{attr.key}.remove"))
