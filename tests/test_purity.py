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

CORE = (
    "notation",
    "referee",
    "clock",
    "leave",
    "game",
    "pgn",
    "pairings",
    "standings",
    "profile",
    "intent",
    "letters",
    "diagram",
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
    "mailbot.inbox",
    "mailbot.outbox",
    "mailbot.postman",
    "mailbot.desk",
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


def test_the_check_finds_what_it_looks_for() -> None:
    impure = (
        "import datetime, smtplib\n"
        "from sqlalchemy import select\n"
        "x = datetime.datetime.now()\n"
        "y = open('f')\n"
    )
    assert len(_problems(impure)) == 4
