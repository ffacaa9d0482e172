"""Sizes a reader can hold in mind: no module over 800 lines, no class over 400, no
function over 60 in ``mailbot/`` (measured on the syntax tree, docstrings included;
docs/architecture.md, section 1).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import mailbot

PACKAGE = Path(mailbot.__file__).parent
LIMITS = {"module": 800, "class": 400, "function": 60}


def oversized(path: Path) -> list[str]:
    """What in ``path`` is longer than its limit, as ``kind name lines``."""
    source = path.read_text(encoding="utf-8")
    found = []
    if len(source.splitlines()) > LIMITS["module"]:
        found.append(f"module {path.name} {len(source.splitlines())}")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            kind = "class"
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            kind = "function"
        else:
            continue
        assert node.end_lineno is not None
        lines = node.end_lineno - node.lineno + 1
        if lines > LIMITS[kind]:
            found.append(f"{kind} {path.name}:{node.name} {lines}")
    return found


@pytest.mark.slow
def test_nothing_in_the_package_is_over_its_size() -> None:
    found = [f"{path.relative_to(PACKAGE)}: {o}" for path in sorted(PACKAGE.rglob("*.py"))
             for o in oversized(path)]  # fmt: skip
    assert found == []


def test_the_check_counts_a_long_function(tmp_path: Path) -> None:
    source = tmp_path / "long.py"
    source.write_text("def f():\n" + "    x = 1\n" * 60 + "\n\ndef g():\n    pass\n")
    assert oversized(source) == ["function long.py:f 61"]
