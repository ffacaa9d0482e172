"""One owner for every write: only ``mailbot/store/`` writes rows.

Two checks (docs/architecture.md, "One owner for every write"): the syntax of every
module outside the store holds no model constructor, no ``session.add``/``delete``
/``merge`` and no ``insert``/``update``/``delete`` statement of a model; and while the
whole suite runs, every attribute a module outside the store sets on a row is caught
(``tests/writeowner.py``, installed by ``conftest.py``).
"""

from __future__ import annotations

import ast
import datetime
from pathlib import Path

import pytest
import writeowner

import mailbot
from mailbot.store.engine import make_engine, session_factory
from mailbot.store.models import Base, Heartbeat

PACKAGE = Path(mailbot.__file__).parent
MODELS = {m.__name__ for m in writeowner.models_of_the_store()}
SESSION_WRITES = {"add", "add_all", "delete", "merge"}


def writes_in(source: str) -> list[str]:
    """The writes of rows that the syntax of ``source`` shows, as ``line what``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in MODELS:
            found.append(f"{node.lineno} new {func.id}")
        elif isinstance(func, ast.Name) and func.id in {"insert", "update", "delete"}:
            if node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in MODELS:
                found.append(f"{node.lineno} {func.id}({node.args[0].id})")
        elif isinstance(func, ast.Attribute) and func.attr in SESSION_WRITES:
            owner = func.value
            name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", "")
            if "session" in name:
                found.append(f"{node.lineno} {name}.{func.attr}")
    return found


@pytest.mark.slow
def test_no_module_outside_the_store_writes_a_row() -> None:
    found = [
        f"{path.relative_to(PACKAGE)}:{w}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.parent.name != "store"
        for w in writes_in(path.read_text(encoding="utf-8"))
    ]
    assert found == []


@pytest.mark.slow
def test_the_syntax_check_sees_each_kind_of_write() -> None:
    source = (
        "session.add(Game(id=1))\n"
        "work.session.delete(g)\n"
        "session.execute(update(Outbox).values(status='sent'))\n"
    )
    assert sorted(writes_in(source)) == ["1 new Game", "1 session.add", "2 session.delete",
                                         "3 update(Outbox)"]  # fmt: skip


def test_the_watch_catches_a_write_from_outside_the_store() -> None:
    """Code compiled as if it were a module of the desk sets a column: it is caught."""
    writeowner.install()
    engine = make_engine("sqlite://")
    Base.metadata.create_all(engine)
    now = datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC)
    source = "row = Heartbeat(name='sweep', at=now)\nrow.detail = 'x'\n"
    code = compile(source, str(PACKAGE / "desk" / "example.py"), "exec")
    before = len(writeowner.FOUND)
    with session_factory(engine)() as session:
        exec(code, {"Heartbeat": Heartbeat, "now": now, "session": session})
    caught = writeowner.FOUND[before:]
    del writeowner.FOUND[before:]
    assert caught[0].startswith("desk/example.py:1 new Heartbeat")
    assert "desk/example.py:2 Heartbeat.detail =" in caught
