"""What a command of the ``mailbot`` command line is and works with.

A command is one function registered with a module's :class:`Commands`; it
receives the loaded configuration (unless it says it needs none) and the
parsed arguments::

    COMMANDS = Commands()

    def _status_arguments(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("game", nargs="?", help="INDEX/N")

    @COMMANDS.command("status", help="games, whose move, both clocks", arguments=_status_arguments)
    def status(ctx: Context, args: argparse.Namespace) -> int:
        ...  # ctx.settings, ctx.now(), print(..., file=ctx.stdout)
        return 0

Nested commands name every word: ``@COMMANDS.command("tournament", "import", ...)``.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import zoneinfo
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from sqlalchemy.orm import Session

from mailbot.config import Config
from mailbot.rules.errors import SetupError
from mailbot.store.engine import make_engine, session_factory

PROGRAM = "mailbot"


def cannot_write(exc: OSError, where: Path) -> UsageError:
    """One line for a file or folder a command cannot write: the file the system
    named (a symbolic link planted there, a full disk), else ``where``."""
    return UsageError(f"{exc.filename or where}: cannot write there: {exc.strerror}")


class UsageError(SetupError):
    """Bad usage or bad input the user must fix: exit 2 with this one-line message."""


@dataclasses.dataclass
class CommandContext:
    """What a command works with."""

    #: The configuration file's path as the user gave it (for messages).
    config_path: Path
    #: None for commands registered with ``needs_config=False``.
    config: Config | None
    stdout: TextIO
    #: A fixed instant for the whole command (``--now``); None: the wall clock.
    fixed_now: datetime.datetime | None = None

    @property
    def settings(self) -> Config:
        """The configuration (only for commands that need one)."""
        if self.config is None:
            raise RuntimeError("this command was registered with needs_config=False")
        return self.config

    def now(self) -> datetime.datetime:
        """The bot's clock: ``fixed_now``, else the wall clock (read nowhere below this)."""
        if self.fixed_now is not None:
            return self.fixed_now
        return datetime.datetime.now(datetime.UTC)


Runner = Callable[[CommandContext, argparse.Namespace], int]
Arguments = Callable[[argparse.ArgumentParser], None]


@dataclasses.dataclass(frozen=True)
class Subcommand:
    """One (sub)command: ``words`` is the path, like ``("tournament", "import")``."""

    words: tuple[str, ...]
    help: str
    run: Runner
    arguments: Arguments | None = None
    needs_config: bool = True
    #: The exit status of bad usage or a bad configuration (``health``: 3, as
    #: monitoring plugins say "unknown").
    bad_usage: int = 2
    #: The mail servers it talks to (``imap``, ``smtp``): only their ``${VAR}`` must be set.
    servers: tuple[str, ...] = ("imap", "smtp")


class Commands(list[Subcommand]):
    """The commands of one module, in the order ``--help`` lists them."""

    def command(
        self,
        *words: str,
        help: str,
        arguments: Arguments | None = None,
        needs_config: bool = True,
        bad_usage: int = 2,
        servers: tuple[str, ...] = ("imap", "smtp"),
    ) -> Callable[[Runner], Runner]:
        """Register the decorated function as the command ``words``."""

        def register(run: Runner) -> Runner:
            self.append(
                Subcommand(tuple(words), help, run, arguments, needs_config, bad_usage, servers)
            )
            return run

        return register


def described(parser: argparse.ArgumentParser, text: str) -> None:
    """Give a command's ``--help`` a description and an example."""
    parser.description = text
    parser.formatter_class = argparse.RawDescriptionHelpFormatter


def parse_now(text: str, timezone: str) -> datetime.datetime:
    """``--now``: ISO 8601 with or without an offset (without: ``timezone``).

    >>> parse_now("2026-03-05T10:00", "Europe/Sofia").isoformat()
    '2026-03-05T08:00:00+00:00'
    >>> parse_now("2026-03-05", "UTC").isoformat()
    '2026-03-05T00:00:00+00:00'
    """
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(f"--now {text!r}: not an ISO 8601 time (2026-03-05T10:00)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zoneinfo.ZoneInfo(timezone))
    return moment.astimezone(datetime.UTC)


def now_arguments(parser: argparse.ArgumentParser) -> None:
    """``--now``: the bot's clock fixed for the whole command."""
    parser.add_argument(
        "--now",
        metavar="T",
        help="fix the bot's clock (ISO 8601; without an offset: the configured time zone)",
    )


def fix_now(ctx: CommandContext, args: argparse.Namespace) -> None:
    """Fix ``ctx``'s clock at the ``--now`` the command was given, if any."""
    if getattr(args, "now", None):
        ctx.fixed_now = parse_now(args.now, ctx.settings.timezone)


def show(ctx: CommandContext, make: Callable[[Session], str]) -> int:
    """Print what ``make`` reads from the database; an unknown game is bad usage."""
    from mailbot.publish import report

    engine = make_engine(ctx.settings.database)
    try:
        with session_factory(engine)() as session:
            try:
                text = make(session)
            except report.UnknownGameError as exc:
                raise UsageError(str(exc)) from None
    finally:
        engine.dispose()
    print(text, file=ctx.stdout, end="" if text.endswith("\n") else "\n")
    return 0
