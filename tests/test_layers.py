"""The folders by layer, read from the imports: imports run one way.

``rules`` ← ``mail`` ← ``store`` ← ``compose`` ← ``desk`` ← ``publish`` ← ``xfcc``
← ``config`` ← ``shell`` ← the entry points (the command line, ``cli`` with ``commands/``, and the
other modules at the top of the package: ``demo``, ``preflight``). A module imports
its own folder and the layers to its left, never one to its right
(docs/architecture.md, section 1). ``config`` is the one module at the top that is
a layer: the configuration the running process (``shell/``) is started with, which
reads only ``rules``, ``mail`` and ``store``. ``tests/test_purity.py`` checks that
``rules`` imports nothing of the bot outside itself and does no I/O.

The store keeps rows and reaches no server: no module of ``store/`` imports a
transport (:data:`TRANSPORTS`), so the outbox's delivery loop lives in the shell
(``shell/delivery``) and the wire form of a mail in ``mail/wire``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import mailbot

PACKAGE = Path(mailbot.__file__).parent
#: The layers, lowest first: folders, and the configuration module.
LAYERS = ("rules", "mail", "store", "compose", "desk", "publish", "xfcc", "config", "shell")
#: The layers that are folders.
FOLDERS = tuple(layer for layer in LAYERS if layer != "config")
ENTRY = len(LAYERS)
#: What talks to a mail server: none of it is imported by the store.
TRANSPORTS = ("mailbot.mail.postman", "smtplib", "imaplib", "imapclient")


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
    """The layer of a module (``mailbot.store.models`` → 2, ``mailbot.cli`` → the entry
    points'); None for ``mailbot`` itself."""
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


@pytest.mark.slow
def test_imports_run_one_way() -> None:
    problems = [p for path in sorted(PACKAGE.rglob("*.py")) for p in wrong_way(path)]
    assert problems == []


def transports_of(path: Path) -> list[str]:
    """The transports (:data:`TRANSPORTS`) ``path`` imports, at its top or in a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found.update(t for t in TRANSPORTS for n in names if n == t or n.startswith(t + "."))
    return sorted(found)


def test_the_store_imports_no_transport() -> None:
    found = {
        module_name(path): transports_of(path)
        for path in sorted((PACKAGE / "store").rglob("*.py"))
        if transports_of(path)
    }
    assert found == {}


def test_the_transport_check_sees_each_kind_of_import(tmp_path: Path) -> None:
    source = tmp_path / "x.py"
    source.write_text(
        "import smtplib\nfrom imapclient import IMAPClient\nfrom mailbot.mail import wire\n"
    )
    assert transports_of(source) == ["imapclient", "smtplib"]
    source.write_text("def f():\n    from mailbot.mail import postman\n    import imaplib\n")
    assert transports_of(source) == ["imaplib", "mailbot.mail.postman"]


@pytest.mark.parametrize("folder", FOLDERS)
def test_each_layer_is_a_folder_that_says_what_it_may_import(folder: str) -> None:
    init = PACKAGE / folder / "__init__.py"
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
    assert doc and "import" in doc
    assert len(list((PACKAGE / folder).glob("*.py"))) > 1


def test_the_entry_points_are_the_only_modules_left_at_the_top() -> None:
    top = {p.stem for p in PACKAGE.glob("*.py")}
    assert top == {"__init__", "__main__", "cli", "config", "demo", "preflight"}


def test_the_check_sees_an_import_the_wrong_way_inside_a_function(tmp_path: Path) -> None:
    (tmp_path / "mailbot" / "store").mkdir(parents=True)
    source = tmp_path / "mailbot" / "store" / "x.py"
    source.write_text("def f():\n    from mailbot.desk import sweep\n")
    assert "mailbot.desk.sweep" in imports_of(source)
    assert layer_of("mailbot.desk.sweep") == 4 > layer_of("mailbot.store.x") == 2  # type: ignore[operator]


def test_the_shell_sits_above_every_folder_and_below_the_command_line() -> None:
    shell = layer_of("mailbot.shell.daemon")
    assert shell is not None
    assert layer_of("mailbot.publish.site") < layer_of("mailbot.config") < shell  # type: ignore[operator]
    assert shell < layer_of("mailbot.cli") == layer_of("mailbot.commands.running") == ENTRY
