"""The ``backup`` and ``restore`` commands: the whole store into a file and back."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from mailbot.commands.command import (
    CommandContext,
    Commands,
    UsageError,
    described,
)
from mailbot.store.engine import describe_url

log = logging.getLogger("mailbot")

COMMANDS = Commands()


def _backup_arguments(parser: argparse.ArgumentParser) -> None:
    described(
        parser,
        "Writes a consistent snapshot of the whole store into FILE while the daemon runs:\n"
        "every table with every row, the raw messages as they arrived, and the schema\n"
        "revision (gzip-compressed JSON lines, mode 0600; the format is described in\n"
        "docs/architecture.md). `mailbot restore` loads it into an empty database of\n"
        "either kind: this is also how a club moves from SQLite to PostgreSQL.\n\n"
        "example:\n"
        "  mailbot -c /etc/mailbot/config.yaml backup /var/backups/mailbot-$(date +%F).gz",
    )
    parser.add_argument("file", type=Path, metavar="FILE", help="the backup file to write")


@COMMANDS.command(
    "backup",
    servers=(),
    help="write a consistent snapshot of the whole store into FILE (while the daemon runs)",
    arguments=_backup_arguments,
)
def backup(ctx: CommandContext, args: argparse.Namespace) -> int:
    from mailbot.store import backup as store_backup

    try:
        summary = store_backup.backup(ctx.settings.database, args.file)
    except store_backup.BackupError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(
            f"{exc.filename or args.file}: cannot write there ({exc.strerror})"
        ) from None
    print(f"backup {args.file} written: {summary.line()}", file=ctx.stdout)
    return 0


def _restore_arguments(parser: argparse.ArgumentParser) -> None:
    described(
        parser,
        "Loads a backup written by `mailbot backup` into the configured database, which\n"
        "must be empty (new, or just made by `mailbot init`), of either kind: SQLite or\n"
        "PostgreSQL. The schema is taken to the backup's revision, every row is loaded\n"
        "and the schema is then upgraded to this version's. A database with rows in it,\n"
        "a backup of a newer version, or a file cut short is refused with one line and\n"
        "nothing is written; every line of the file is checked first, and each mistake\n"
        "in it (a value that does not fit its column, a row named that the backup does\n"
        "not hold) is told on a line of its own.\n\n"
        "example (a club moving to PostgreSQL):\n"
        "  mailbot -c sqlite-config.yaml backup club.gz\n"
        "  mailbot -c postgresql-config.yaml restore club.gz",
    )
    parser.add_argument("file", type=Path, metavar="FILE", help="the backup file to load")


@COMMANDS.command(
    "restore",
    servers=(),
    help="load a backup into an empty database (SQLite or PostgreSQL)",
    arguments=_restore_arguments,
)
def restore(ctx: CommandContext, args: argparse.Namespace) -> int:
    from mailbot.store import backup as store_backup

    try:
        summary = store_backup.restore(ctx.settings.database, args.file)
    except store_backup.BackupError as exc:
        raise UsageError(str(exc)) from None
    print(
        f"restored {args.file} into {describe_url(ctx.settings.database)}: {summary.line()}",
        file=ctx.stdout,
    )
    return 0
