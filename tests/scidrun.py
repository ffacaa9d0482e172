"""Scid's own correspondence code run headless for the tests: Scid 4.7.4's
tcl/tools/correspondence.tcl, sourced unmodified into tkscid (Scid's Tcl interpreter)
under a virtual X display by a driver of tests/scid/ (scid.tcl has what Scid's
start-up gives it: its variables, and stand-ins for its windows and dialogs).

Without Debian's ``scid``, ``tdom`` and ``xvfb`` (and ``s-nail`` for the e-mail
mode) a test is skipped on a developer's machine and fails under CI, where
scripts/test installs them.
"""

from __future__ import annotations

import datetime
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

TKSCID = "/usr/games/tkscid"
CORRESPONDENCE = Path("/usr/share/scid/tcl/tools/correspondence.tcl")
DRIVERS = Path(__file__).parent / "scid"


def missing(*programs: str) -> str | None:
    """What of Scid, xvfb-run and ``programs`` this machine lacks, said as its remedy."""
    if not Path(TKSCID).exists() or not CORRESPONDENCE.exists():
        return "Scid is not installed (apt-get install --no-install-recommends scid scid-data)"
    if shutil.which("xvfb-run") is None:
        return "xvfb-run is not installed (apt-get install xvfb xauth)"
    for program in programs:
        if shutil.which(program) is None:
            return f"{program} is not installed (apt-get install --no-install-recommends {program})"
    return None


def require_scid(*programs: str) -> None:
    """Skip without Scid (or ``programs``) on a developer's machine; fail under CI."""
    lack = missing(*programs)
    if lack is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{lack}: CI must install it (scripts/test)")
    pytest.skip(lack)


def run_scid(driver: str, *args: str, env: Mapping[str, str] | None = None) -> str:
    """What tests/scid/``driver`` prints, run in tkscid; it must end well.

    For example, ``run_scid("xfcc.tcl", folder, "retrieve")`` gives Scid's console
    lines, ``info Processing ivanov@example.org@Mailbot...`` among them.
    """
    done = subprocess.run(
        ["xvfb-run", "-a", TKSCID, str(DRIVERS / driver), *args],
        capture_output=True, text=True, timeout=120,
        env=None if env is None else {**os.environ, **env},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def scid_cup(today: datetime.date) -> str:
    """The start list of a tournament of two games between Ivanov and Smith, begun
    three days before ``today``."""
    return f"""\
index: BG-2026-S1
name: Scid cup
profile: bg-email
start: {(today - datetime.timedelta(days=3)).isoformat()}
end: {(today + datetime.timedelta(days=400)).isoformat()}
language: bg
notation: bg-cyrillic
director: {{name: Georgi Georgiev, email: td@federation.example}}
players:
  - {{id: ivanov, name: Ivan Ivanov, email: ivanov@example.org, language: en, notation: en}}
  - {{id: smith, name: John Smith, email: smith@example.org, language: en, notation: en}}
games:
  - {{white: ivanov, black: smith}}
  - {{white: smith, black: ivanov}}
"""
