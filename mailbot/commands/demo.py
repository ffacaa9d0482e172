"""The ``demo`` command: a short game through the real pipeline on embedded servers."""

from __future__ import annotations

import argparse
import logging

from mailbot.commands.command import (
    CommandContext,
    Commands,
    described,
)

log = logging.getLogger("mailbot")

COMMANDS = Commands()


@COMMANDS.command(
    "demo",
    help="play a short game through the real pipeline on embedded servers",
    arguments=lambda parser: described(
        parser,
        "Plays a short game between two simulated players (one writing Bulgarian\n"
        "notation, one English) through the real pipeline: an embedded IMAP server and\n"
        "SMTP listener on loopback and an SQLite file in a temporary folder, with an\n"
        "impossible move and its +5 days; prints the conversation and the final PGN.\n"
        "Needs no configuration and no network.\n\n"
        "example:\n  mailbot demo",
    ),
    needs_config=False,
)
def demo(ctx: CommandContext, args: argparse.Namespace) -> int:
    from mailbot.demo import run_demo

    result = run_demo(lambda line: print(line, file=ctx.stdout, flush=True))
    return 0 if result.result else 1
