"""The folders by layer, read from the imports: imports run one way.

``rules`` ← ``mail`` ← ``store`` ← ``compose`` ← ``desk`` ← ``publish`` ← the entry
points (the modules at the top of the package: the command line, the daemon, the
configuration, ...). A module imports its own folder and the folders to its left,
never one to its right (docs/architecture.md, "The layers"). ``tests/test_purity.py``
checks that ``rules`` imports nothing of the bot outside itself and does no I/O.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import mailbot

PACKAGE = Path(mailbot.__file__).parent
#: The layers, lowest first.
LAYERS = ("rules", "mail", "store", "compose", "desk", "publish")
ENTRY = len(LAYERS)


def imports_of(path: Path) -> set[str]:
    """Every ``mailbot.…`` module ``path`` imports (at its top or inside a function)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mailbot"):
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("mailbot"))
    return found


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


def layer_of(module: str) -> int | None:
    """The layer of a module (``mailbot.store.models`` → 2); None for ``mailbot`` itself."""
    parts = module.split(".")
    if len(parts) < 2:
        return None
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else ENTRY


def wrong_way(path: Path) -> list[str]:
    """The imports of ``path`` that go to a layer right of its own."""
    own = layer_of(module_name(path))
    assert own is not None
    found = []
    for imported in sorted(imports_of(path)):
        other = layer_of(imported)
        if other is not None and other > own:
            found.append(f"{module_name(path)} imports {imported}")
    return found


def test_imports_run_one_way() -> None:
    problems = [p for path in sorted(PACKAGE.rglob("*.py")) for p in wrong_way(path)]
    assert problems == []


@pytest.mark.parametrize("folder", LAYERS)
def test_each_layer_is_a_folder_that_says_what_it_may_import(folder: str) -> None:
    init = PACKAGE / folder / "__init__.py"
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
    assert doc and "import" in doc
    assert len(list((PACKAGE / folder).glob("*.py"))) > 1


def test_the_entry_points_are_the_only_modules_left_at_the_top() -> None:
    top = {p.stem for p in PACKAGE.glob("*.py")}
    assert top == {
        "__init__", "__main__", "cli", "config", "courier", "daemon", "demo", "health", "preflight",
        "logs", "metrics", "service",
    }  # fmt: skip


def test_the_check_sees_an_import_the_wrong_way_inside_a_function(tmp_path: Path) -> None:
    (tmp_path / "mailbot" / "store").mkdir(parents=True)
    source = tmp_path / "mailbot" / "store" / "x.py"
    source.write_text("def f():\n    from mailbot.desk import sweep\n")
    assert "mailbot.desk.sweep" in imports_of(source)
    assert layer_of("mailbot.desk.sweep") == 4 > layer_of("mailbot.store.x") == 2  # type: ignore[operator]
