"""One name, one thing: no two modules, no two classes of the package share a name, and
every error the bot raises on purpose is a ``MailbotError`` (docs/architecture.md, "The
layers").
"""

from __future__ import annotations

import ast
import collections
import importlib
import inspect
from pathlib import Path

import mailbot
from mailbot.rules.errors import MailbotError

PACKAGE = Path(mailbot.__file__).parent


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p.name not in {"__init__.py", "__main__.py"})


def test_no_two_modules_share_a_name() -> None:
    seen = collections.defaultdict(list)
    for path in modules():
        seen[path.stem].append(str(path.relative_to(PACKAGE)))
    for folder in (p for p in PACKAGE.rglob("*") if (p / "__init__.py").exists()):
        if folder != PACKAGE and folder.name != "templates":
            seen[folder.name].append(str(folder.relative_to(PACKAGE)) + "/")
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


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
