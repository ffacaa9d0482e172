"""One name, one thing: no two modules, no two classes of the package share a name, and
every error the bot raises on purpose is a ``MailbotError`` (docs/architecture.md, section 1).

One exception, where the rule would hide more than it shows: a module of ``commands/``
is named after the command it runs (``commands/outbox.py`` runs ``mailbot outbox``,
``commands/health.py`` runs ``mailbot health``), and may share that name with the
module of another layer that does the work (``store/outbox.py``, ``shell/health.py``).
The command's name is the word the user types, so it is the name a reader looks for;
and a command module is imported by its folder only (``from mailbot.commands import
outbox``, in ``mailbot.cli``: nothing else imports the commands), so a bare
``outbox`` never leaves a reader asking which one it is. Everywhere else a shared
name would, and the rule holds.
"""

from __future__ import annotations

import ast
import collections
import importlib
import inspect
from pathlib import Path

import pytest

import mailbot
from mailbot.rules.errors import MailbotError

PACKAGE = Path(mailbot.__file__).parent


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p.name not in {"__init__.py", "__main__.py"})


def named_for_its_command(path: Path) -> bool:
    """Whether ``path`` is a module of ``commands/`` named after a command it runs."""
    if path.parent != PACKAGE / "commands":
        return False
    module = importlib.import_module(f"mailbot.commands.{path.stem}")
    commands = getattr(module, "COMMANDS", ())
    return any(command.words[0] == path.stem for command in commands)


def test_no_two_modules_share_a_name() -> None:
    seen = collections.defaultdict(list)
    for path in modules():
        if not named_for_its_command(path):
            seen[path.stem].append(str(path.relative_to(PACKAGE)))
    for folder in (p for p in PACKAGE.rglob("*") if (p / "__init__.py").exists()):
        if folder != PACKAGE and folder.name != "templates":
            seen[folder.name].append(str(folder.relative_to(PACKAGE)) + "/")
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


def test_a_command_module_named_after_its_command_is_the_only_exception() -> None:
    named = {p.stem for p in modules() if named_for_its_command(p)}
    assert {"outbox", "quarantine", "health", "oauth", "demo"} <= named
    assert not named_for_its_command(PACKAGE / "commands" / "reports.py")  # runs status, pgn...
    assert not named_for_its_command(PACKAGE / "store" / "outbox.py")


@pytest.mark.slow
def test_no_two_classes_share_a_name() -> None:
    seen = collections.defaultdict(list)
    for path in modules():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                seen[node.name].append(str(path.relative_to(PACKAGE)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


def test_every_error_of_the_bot_is_a_mailbot_error() -> None:
    strays = []
    for path in modules():
        name = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (
                inspect.isclass(value)
                and issubclass(value, Exception)  # a BaseException is a signal, no error
                and value.__module__ == name
                and not issubclass(value, MailbotError)
            ):
                strays.append(f"{name}.{value.__name__}")
    assert strays == []
