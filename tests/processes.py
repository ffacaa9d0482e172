"""``python -m mailbot ...`` as a real process, without its half second of imports.

The tests that kill, signal or restart the bot need it in a process of its own, and
start it dozens of times: crash tests, faults, stops. Each ``python -m mailbot`` spent
half a second of CPU importing the bot before doing anything. Here the processes are
forked from a server process (multiprocessing's forkserver, one per test worker) that
imported the bot once and has no threads, no connections and no files of a test: the
child runs :func:`mailbot.cli.program`, as ``python -m mailbot`` does, with its own
pid, arguments, environment, working folder and output files, and dies of a signal or
exits with a status as that process would. What it cannot tell apart: the interpreter's
start-up, which ``tests/test_cli.py`` and the daemon tests that read a pipe still run
through ``python -m mailbot``.

:class:`BotProcess` answers as much of :class:`subprocess.Popen` as the tests use.
"""

from __future__ import annotations

import atexit
import faulthandler
import multiprocessing
import os
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from multiprocessing.context import ForkServerContext
from multiprocessing.process import BaseProcess
from pathlib import Path

#: What ``python -m mailbot`` runs (mailbot/__main__.py).
PROGRAM = "import sys\nfrom mailbot.__main__ import run\nsys.exit(run())\n"

_context: list[ForkServerContext] = []

#: The signal that makes a process of :func:`start` write its threads' stacks.
STACKS = signal.SIGUSR2


def _forkserver() -> ForkServerContext:
    """The forkserver context, its server started (on first use) with the bot imported,
    and stopped and waited for when this process exits: the CPU time of the processes
    it forked is then counted as this process's children's, as a subprocess's is."""
    if not _context:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([*preloaded(), "processes"])
        _context.append(context)
        atexit.register(_stop_forkserver)
    return _context[0]


#: What the bot imports only where a command needs it (inside its functions), on
#: top of its own modules: the migrations' machinery, the database drivers and their
#: dialects, the bounce detectors, the address checker.
LAZY_IMPORTS = (
    "alembic.command",
    "alembic.config",
    "alembic.migration",
    "alembic.script",
    "email_validator",
    "flufl.bounce",
    "psycopg",
    "sqlalchemy.dialects.postgresql.psycopg",
    "sqlalchemy.dialects.sqlite.pysqlite",
)


def preloaded() -> list[str]:
    """Every module of the bot (but ``__main__``) and :data:`LAZY_IMPORTS`: what the
    server imports once, so that no forked command imports anything of its own. A
    command imports its modules when it runs (a start stays light), and in a forked
    process that import was half of its CPU: the twenty kills of a daemon imported
    the bot twenty times over."""
    import pkgutil

    import mailbot

    modules = [
        info.name
        for info in pkgutil.walk_packages(mailbot.__path__, "mailbot.")
        if info.name != "mailbot.__main__"
    ]
    return [*modules, *LAZY_IMPORTS]


def _stop_forkserver() -> None:
    from multiprocessing import forkserver

    forkserver._forkserver._stop()  # type: ignore[attr-defined]  # CPython's own, since 3.8


def _child(
    code: str, argv: list[str], output: str, error: str | None, cwd: str, env: dict[str, str]
) -> None:
    """In the forked process: the output files on descriptors 1 and 2 (nothing on 0),
    the folder, the environment and ``sys.argv`` of the command, then ``code``.

    SIGUSR2 writes where each of its threads stands to descriptor 2 (:mod:`faulthandler`),
    for a test that finds the process still running when it should have finished
    (:data:`STACKS`); the bot itself uses no such signal."""
    for fd, path, flags in (
        (0, os.devnull, os.O_RDONLY),
        (1, output, os.O_WRONLY | os.O_APPEND | os.O_CREAT),
        (2, error or output, os.O_WRONLY | os.O_APPEND | os.O_CREAT),
    ):
        opened = os.open(path, flags, 0o644)
        os.dup2(opened, fd)
        os.close(opened)
    faulthandler.register(STACKS, file=sys.stderr, all_threads=True)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    sys.argv = argv
    exec(compile(code, argv[0], "exec"), {"__name__": "__main__"})


class BotProcess:
    """A started process, as :class:`subprocess.Popen` would answer for it."""

    def __init__(self, process: BaseProcess, args: list[str]) -> None:
        self._process = process
        self.args = args
        assert process.pid is not None
        self.pid: int = process.pid

    @property
    def returncode(self) -> int | None:
        """The exit status, ``-N`` for a death by signal ``N``; None while it runs."""
        return self._process.exitcode

    def poll(self) -> int | None:
        return self._process.exitcode

    def wait(self, timeout: float | None = None) -> int:
        self._process.join(timeout)
        code = self._process.exitcode
        if code is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        return code

    def send_signal(self, sig: int) -> None:
        if self._process.exitcode is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def start(
    args: Sequence[str],
    *,
    output: Path,
    error: Path | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    code: str = PROGRAM,
) -> BotProcess:
    """``python -m mailbot ARGS`` (or ``python -c CODE ARGS``) in a new process: its
    output appended to ``output`` (and its errors to ``error``, or there too), in
    ``cwd`` (default this process's), with ``env`` added to this process's environment
    as it is now."""
    argv = ["mailbot" if code == PROGRAM else "-c", *args]
    environment = {**os.environ, **(env or {})}
    process = _forkserver().Process(
        target=_child,
        args=(code, argv, str(output), str(error) if error else None,
              str(cwd or Path.cwd()), environment),
        name=f"mailbot {' '.join(args)}",
    )  # fmt: skip
    process.start()
    return BotProcess(process, ["python", "-m", "mailbot", *args])
