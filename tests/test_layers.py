"""The folders by layer, read from the imports: a folder's modules are imported only
from where its place allows.

``mailbot/rules/`` is checked by ``tests/test_purity.py`` (it imports nothing of the
bot outside itself). ``mailbot/publish/`` is the last layer before the entry points:
nothing of the message path (the desk, the notifier, the store, the mail) may import
it, so what is published can change without touching how a move is handled.
"""

from __future__ import annotations

import ast
from pathlib import Path

import mailbot

PACKAGE = Path(mailbot.__file__).parent
#: The entry points: the command line, the daemon, the demonstration.
ENTRY_POINTS = {"cli", "daemon", "demo", "__main__"}


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


def test_only_the_entry_points_and_publish_itself_import_publish() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        if name.startswith("mailbot.publish") or name.rpartition(".")[2] in ENTRY_POINTS:
            continue
        if any(i.startswith("mailbot.publish") for i in imports_of(path)):
            offenders.append(name)
    assert offenders == []


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    source = tmp_path / "x.py"
    source.write_text("def f():\n    from mailbot.publish import site\n")
    assert "mailbot.publish.site" in imports_of(source)
