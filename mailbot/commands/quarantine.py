"""The ``quarantine`` command: the messages set aside, and their release."""

from __future__ import annotations

import argparse
import logging
import sys

from mailbot.commands.command import (
    PROGRAM,
    CommandContext,
    Commands,
    UsageError,
)
from mailbot.store.engine import make_engine, session_factory

log = logging.getLogger("mailbot")

COMMANDS = Commands()


def _quarantine_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = (
        "Messages set aside after repeated failures (the director was told of each),\n"
        "one line each: id, sender, subject, when, reason. A message of the quarantine\n"
        "folder that the database does not record is listed as imap:UID. `release`\n"
        "puts messages back into the inbox folder, with their arrival time, to be\n"
        "handled at the next pass."
    )
    parser.epilog = (
        "examples:\n"
        "  mailbot -c config.yaml quarantine              # list them\n"
        "  mailbot -c config.yaml quarantine release 12   # put message 12 back\n"
        "  mailbot -c config.yaml quarantine release imap:7\n"
        "  mailbot -c config.yaml quarantine release --all"
    )
    parser.add_argument(
        "action", nargs="?", choices=("list", "release"), default="list", help="default: list"
    )
    parser.add_argument("id", nargs="?", metavar="ID", help="release: a listed id (12, imap:7)")
    parser.add_argument("--all", action="store_true", help="release: every message in quarantine")


@COMMANDS.command(
    "quarantine",
    help="messages set aside after repeated failures: id, sender, subject, when, reason; "
    "release puts them back to be handled at the next pass",
    arguments=_quarantine_arguments,
)
def quarantine(ctx: CommandContext, args: argparse.Namespace) -> int:
    from mailbot.desk import quarantine as aside

    config = ctx.settings
    if args.action == "list" and (args.id or args.all):
        raise UsageError("quarantine list takes no ID and no --all")
    if args.action == "release" and bool(args.id) == bool(args.all):
        raise UsageError("quarantine release takes an ID (as the list shows) or --all")
    engine = make_engine(config.database)
    try:
        sessions = session_factory(engine)
        if args.action == "release":
            try:
                target = None if args.all else args.id
                released = aside.release(sessions, config.imap, target, config.timezone)
            except aside.UnknownMessage as exc:
                raise UsageError(str(exc.args[0])) from None
            print("\n".join(released or ["no message in quarantine"]), file=ctx.stdout)
            return 0
        found = aside.listing(sessions, config.imap)
    finally:
        engine.dispose()
    lines = [aside.line(entry, config.timezone) for entry in found.entries]
    if found.problem is None:
        print("\n".join(lines or ["no message in quarantine"]), file=ctx.stdout)
        return 0
    if lines:
        print("\n".join(lines), file=ctx.stdout)
    print(
        f"{PROGRAM}: the folder {config.imap.quarantine_folder} could not be read, so only the "
        f"database's messages are listed: {found.problem}; check that the server runs and "
        f"`imap` in {ctx.config_path}",
        file=sys.stderr,
    )
    return 1
