"""The domain core does no I/O and never reads the wall clock (``now`` is a parameter).

The check reads the modules' syntax trees: a call of ``datetime.now``,
``date.today``, ``time.time`` and friends, ``open``, or an import of a
database, mail, network or subprocess module fails it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import mailbot

#: The folder of the pure rules: every module in it is checked.
RULES = Path(mailbot.__file__).parent / "rules"
#: Pure modules outside it (where the layers put them: intent and letters with mail,
#: diagram with composing).
CORE = (
    *(f"rules/{path.stem}" for path in sorted(RULES.glob("*.py"))),
    "mail/intent",
    "mail/letters",
    "mail/automail",
    "mail/charsets",
    "mail/headers",
    "mail/htmltext",
    "mail/mime",
    "mail/quoting",
    "mail/storable",
    "mail/wire",
    "compose/diagram",
    "xfcc/soap",
    "xfcc/wsdl",
)
FORBIDDEN_CALLS = {
    ("datetime", "now"),
    ("datetime", "utcnow"),
    ("datetime", "today"),
    ("date", "today"),
    ("time", "time"),
    ("time", "monotonic"),
    ("time", "sleep"),
    ("os", "system"),
}
FORBIDDEN_NAMES = {"open", "input", "print"}
FORBIDDEN_IMPORTS = {
    "sqlalchemy",
    "smtplib",
    "imaplib",
    "imapclient",
    "socket",
    "subprocess",
    "requests",
    "urllib",
    "http",
    "mailbot.store",
    "mailbot.shell",
    "mailbot.mail.inbox",
    "mailbot.store.outbox",
    "mailbot.mail.postman",
    "mailbot.desk.pipeline",
}


def _problems(source: str) -> list[str]:
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name | ast.Attribute):
                owner = func.value.id if isinstance(func.value, ast.Name) else func.value.attr
                if (owner, func.attr) in FORBIDDEN_CALLS:
                    found.append(f"line {node.lineno}: {owner}.{func.attr}()")
            if isinstance(func, ast.Name) and func.id in FORBIDDEN_NAMES:
                found.append(f"line {node.lineno}: {func.id}()")
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names.append(node.module)
            for name in names:
                if any(name == f or name.startswith(f + ".") for f in FORBIDDEN_IMPORTS):
                    found.append(f"line {node.lineno}: import {name}")
    return found


@pytest.mark.parametrize("module", CORE)
def test_core_module_is_pure(module: str) -> None:
    path = Path(mailbot.__file__).parent / f"{module}.py"
    assert _problems(path.read_text(encoding="utf-8")) == []


def test_the_rules_folder_holds_the_modules_it_held_when_it_was_made() -> None:
    """Every module checked before the rules became a folder is still checked there."""
    for name in ("notation", "referee", "clock", "leave", "game", "pairings", "standings",
                 "profile", "pgn"):  # fmt: skip
        assert f"rules/{name}" in CORE


def test_the_rules_import_nothing_of_the_bot_outside_their_folder() -> None:
    found = set()
    for path in sorted(RULES.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
                name = node.module if node.module != "mailbot" else names[1]
            elif isinstance(node, ast.Import):
                name = node.names[0].name
            else:
                continue
            if name.startswith("mailbot") and not name.startswith("mailbot.rules"):
                found.add((path.stem, name))
    assert found == set()


def test_the_check_finds_what_it_looks_for() -> None:
    impure = (
        "import datetime, smtplib\n"
        "from sqlalchemy import select\n"
        "x = datetime.datetime.now()\n"
        "y = open('f')\n"
    )
    assert len(_problems(impure)) == 4
