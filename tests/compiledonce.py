"""The bot and the tests compiled once, before pytest-xdist starts its workers.

On a fresh clone nothing is compiled yet, and every worker, all starting at once,
compiled the bot's modules and rewrote the asserts of every test module for itself:
four times the same work on two cores before the first test ran. The controller now
does it first (``conftest.pytest_xdist_setupnodes``), and the workers find it done in
``__pycache__``: the bot's modules and the tests' helpers compiled by
:mod:`compileall` in a process of their own (the test modules left out: pytest
reads its own files for them), while the controller rewrites the test modules as
pytest's own import hook does and writes them where that hook reads them.

The rewriting uses pytest's assertion module (:mod:`_pytest.assertion.rewrite`),
which pytest does not publish as an interface. Anything it does not find, or any
error, only means the workers compile as before.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path

import pytest


def compile_once(config: pytest.Config) -> None:
    """Compile the bot and the tests' helpers, and rewrite the test modules, unless
    done already (a second run finds every file current and writes nothing)."""
    root = Path(config.rootpath)
    folders = [str(root / name) for name in ("mailbot", "tests") if (root / name).is_dir()]
    compiling = subprocess.Popen(
        # one process beside this one: two cores, each busy with half the work
        [sys.executable, "-m", "compileall", "-q", "-q", "-x", r"/test_[^/]*\.py$", *folders],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with contextlib.suppress(Exception):  # the workers rewrite what is left
            _rewrite_test_modules(config, root / "tests")
    finally:
        compiling.wait()


def _rewrite_test_modules(config: pytest.Config, folder: Path) -> None:
    from _pytest.assertion import rewrite

    state = config.stash[rewrite.assertstate_key]
    for source in sorted(folder.glob("test_*.py")):
        cache = rewrite.get_cache_dir(source)
        pyc = cache / (source.stem + rewrite.PYC_TAIL)
        if rewrite._read_pyc(source, pyc) is not None:
            continue
        if not rewrite.try_makedirs(cache):
            return
        source_stat, code = rewrite._rewrite_test(source, config)
        rewrite._write_pyc(state, code, source_stat, pyc)
