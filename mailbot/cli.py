"""The ``mailbot`` command line.

Exit status: 0 done; 2 bad usage or bad configuration, with a one-line
message on stderr that says what to fix; 1 anything else, with the error
logged.

The commands live in :mod:`mailbot.commands`, one module for what each
group does (:mod:`mailbot.commands.command` says what a command is); this
module builds the parser from them, in the order ``--help`` lists them, and
runs the one given.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from mailbot import __version__
from mailbot.commands import (
    backups,
    demo,
    health,
    oauth,
    outbox,
    quarantine,
    reports,
    running,
    setup,
)
from mailbot.commands.command import PROGRAM, CommandContext, Subcommand, UsageError
from mailbot.config import Config, ConfigError, load_config
from mailbot.shell.collector import tune_collector
from mailbot.shell.logs import logging_for_command
from mailbot.store.engine import describe_url

log = logging.getLogger("mailbot")

#: Every command, in the order ``--help`` lists them.
COMMANDS: tuple[Subcommand, ...] = (
    *setup.COMMANDS,
    *running.COMMANDS,
    *reports.COMMANDS,
    *outbox.COMMANDS,
    *quarantine.COMMANDS,
    *health.COMMANDS,
    *oauth.COMMANDS,
    *backups.COMMANDS,
    *demo.COMMANDS,
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every registered command."""
    parser = argparse.ArgumentParser(
        prog=PROGRAM, description="Correspondence-chess arbiter that plays by e-mail."
    )
    parser.add_argument(
        "-c",
        "--config",
        type=Path,
        help="configuration file (default: $MAILBOT_CONFIG, then ./config.yaml)",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    groups: dict[tuple[str, ...], argparse._SubParsersAction[argparse.ArgumentParser]] = {}
    groups[()] = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    parents: dict[tuple[str, ...], argparse.ArgumentParser] = {(): parser}
    for cmd in COMMANDS:
        for depth in range(1, len(cmd.words)):
            prefix = cmd.words[:depth]
            if prefix not in parents:
                sub = groups[prefix[:-1]].add_parser(prefix[-1], help=f"{prefix[-1]} commands")
                parents[prefix] = sub
                groups[prefix] = sub.add_subparsers(
                    dest="_".join(prefix), metavar="COMMAND", required=True
                )
        sub = groups[cmd.words[:-1]].add_parser(cmd.words[-1], help=cmd.help)
        sub.set_defaults(_command=cmd)
        if cmd.needs_config:
            # -c may come after the command too (mailbot init -c C)
            sub.add_argument(
                "-c", "--config", type=Path, default=argparse.SUPPRESS, help=argparse.SUPPRESS
            )
        if cmd.arguments is not None:
            cmd.arguments(sub)
    return parser


def config_path(given: Path | None, environ: Mapping[str, str]) -> Path:
    """Where the configuration is: ``-c``, then ``$MAILBOT_CONFIG``, then ``./config.yaml``."""
    if given is not None:
        return given
    if environ.get("MAILBOT_CONFIG"):
        return Path(environ["MAILBOT_CONFIG"])
    return Path("config.yaml")


def program() -> int:
    """The ``mailbot`` program: :func:`main` in a process tuned for it."""
    tune_collector()
    return main()


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None) -> int:
    """Run the command line; return the exit status."""
    out = sys.stdout if stdout is None else stdout
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or bad usage (2)
        code = exc.code if isinstance(exc.code, int) else 2
        given = f" {' '.join(argv if argv is not None else sys.argv[1:])} "
        bad = next((c.bad_usage for c in COMMANDS if f" {' '.join(c.words)} " in given), 2)
        return bad if code == 2 else code
    cmd: Subcommand = args._command
    path = config_path(args.config, os.environ)
    with logging_for_command() as logs:
        try:
            config = None
            if cmd.needs_config:
                try:
                    config = anchored(load_config(path), path)
                    config.needs(*cmd.servers)
                except ConfigError as exc:
                    hint = " (give one with -c or MAILBOT_CONFIG)" if not path.exists() else ""
                    raise UsageError(
                        "\n".join(f"{path}: {m}{hint}" for m in exc.mistakes)
                    ) from None
                try:
                    logs.apply(config.log_level, config.log_file, config.log_format)
                except OSError as exc:
                    raise UsageError(
                        f"{path}: log_file: cannot write {config.log_file} ({exc.strerror})"
                    ) from None
            return cmd.run(CommandContext(path, config, out), args)
        except UsageError as exc:
            for line in str(exc).splitlines():
                print(f"{PROGRAM}: {line}", file=sys.stderr)
            return cmd.bad_usage
        except KeyboardInterrupt:
            print(f"{PROGRAM}: interrupted", file=sys.stderr)
            return 1
        except Exception as exc:
            problem = infrastructure_problem(exc, config, path)
            if problem is None:
                log.exception("%s failed", " ".join(cmd.words))
                return 1
            print(f"{PROGRAM}: {problem}", file=sys.stderr)
            log.debug("the failure in full", exc_info=True)
            return 1


def infrastructure_problem(exc: Exception, config: Config | None, path: Path) -> str | None:
    """One line for a server that cannot be reached: what, where, what to check.

    None when ``exc`` is not about the database or a mail server (a bug: logged in full).
    """
    from sqlalchemy.exc import (
        DisconnectionError,
        InterfaceError,
        OperationalError,
        ProgrammingError,
        TimeoutError,
    )

    from mailbot.mail.inbox import FolderRefused, LoginRefused, MailboxError, OAuthRefused
    from mailbot.store.outage import StoreUnavailable, fault_of

    if isinstance(exc, StoreUnavailable):
        return f"{exc}; {exc.fault.advice(str(path))}"
    if isinstance(exc, OAuthRefused):
        return str(exc)  # it names the account and the fix (a command, or a key to change)
    if isinstance(exc, FolderRefused):
        return f"{path}: {exc}"  # the server runs and took the login: the key is the question
    if isinstance(exc, LoginRefused):
        return f"{exc} in {path}"  # the server runs: the account is the question
    if isinstance(exc, MailboxError):
        return f"{exc}; check that the server runs and `imap` in {path}"
    where = describe_url(config.database) if config is not None else "the database"
    lines = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    reason = lines[0] if lines else type(exc).__name__
    if isinstance(exc, OperationalError | ProgrammingError) and (
        "no such table" in reason or ("relation" in reason and "does not exist" in reason)
    ):
        return f"the database {where} has no tables yet ({reason}); run: mailbot -c {path} init"
    missing = _missing_sqlite_folder(config)
    if missing is not None and isinstance(exc, OperationalError):
        return (
            f"the database {where} cannot be opened: its folder {missing} does not exist; "
            f"create it (and let the bot's user write there), or fix `database` in {path}"
        )
    fault = fault_of(exc, where)
    if fault is not None:
        return f"{fault}; {fault.kind.check.format(config=path)}"
    if isinstance(exc, OperationalError | InterfaceError | DisconnectionError | TimeoutError):
        return (
            f"the database {where} cannot be used ({reason}); "
            f"check that the server runs and `database` in {path}"
        )
    return None


def _missing_sqlite_folder(config: Config | None) -> Path | None:
    """The folder an SQLite database's file should be in, when that folder is missing."""
    from sqlalchemy.engine import make_url

    if config is None:
        return None
    url = make_url(config.database)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    folder = Path(str(url.database)).expanduser().absolute().parent
    return None if folder.is_dir() else folder


def anchored(config: Config, path: str | os.PathLike[str]) -> Config:
    """``config`` with its relative paths taken from the folder of the file at ``path``.

    An SQLite file read so that is new while a file lies at the working folder's
    reading (where an earlier version looked) is a mistake naming both: the bot must
    not start on an empty store beside the one it has.

    >>> config = Config("sqlite:///m.db", "UTC", None, None, log_file="/var/log/m.log")
    >>> made = anchored(config, "/etc/mailbot/config.yaml")
    >>> made.database, made.log_file
    ('sqlite:////etc/mailbot/m.db', '/var/log/m.log')
    """
    from sqlalchemy.engine import make_url

    folder = Path(path).absolute().parent

    def whole(value: str | None) -> str | None:
        return None if value is None else str(folder / Path(value).expanduser())

    changes: dict[str, Any] = {
        "site_folder": whole(config.site_folder),
        "log_file": whole(config.log_file),
        "tablebases": whole(config.tablebases),
    }
    if changes["tablebases"] and not Path(changes["tablebases"]).is_dir():
        raise ConfigError("tablebases", f"{changes['tablebases']} is not a folder")
    url = make_url(config.database)
    relative = url.database if url.get_backend_name() == "sqlite" else None
    if relative and relative != ":memory:" and not Path(relative).expanduser().is_absolute():
        new, old = folder / relative, Path.cwd() / relative
        if not new.exists() and old.is_file() and old.resolve() != new.resolve():
            raise ConfigError(
                "database",
                f"{relative} is read from the configuration's folder, {new}, which does not "
                f"exist, while a database lies at {old} (the working folder): move it there, "
                "or write its whole path",
            )
        changes["database"] = url.set(database=str(new)).render_as_string(hide_password=False)
    for name in ("imap", "smtp"):
        account = getattr(config, name)
        if account is not None and account.oauth2 is not None:
            token = whole(account.oauth2.token_file)
            changes[name] = dataclasses.replace(
                account, oauth2=dataclasses.replace(account.oauth2, token_file=token)
            )
    return dataclasses.replace(config, **changes)
