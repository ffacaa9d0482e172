"""The ``health`` and ``check`` commands: one line per check, for monitoring and before a start."""

from __future__ import annotations

import argparse
import logging

from mailbot.commands.command import (
    CommandContext,
    Commands,
    described,
)
from mailbot.store.engine import make_engine, session_factory

log = logging.getLogger("mailbot")

COMMANDS = Commands()


@COMMANDS.command(
    "health",
    servers=(),
    help="one line per check (OK, WARNING or CRITICAL): the database, the last poll and "
    "sweep, the outbox, failed and bounced mail, quarantine, OAuth2 tokens; exit 0 OK, "
    "1 warning, 2 critical, 3 bad usage or config",
    arguments=lambda parser: described(
        parser,
        "Checks that the bot works, for monitoring (Nagios, Icinga, a systemd timer). It reads\n"
        "only the database (and the token files of accounts that log in with OAuth2), so it\n"
        "works while the daemon runs, from any process. The age limits are the keys under\n"
        "`health:` in the configuration.\n\n"
        "example:\n  mailbot -c /etc/mailbot/config.yaml health",
    ),
    bad_usage=3,
)
def health(ctx: CommandContext, args: argparse.Namespace) -> int:
    from mailbot.shell import health as checkup

    engine = make_engine(ctx.settings.database)
    try:
        found = checkup.checks(
            session_factory(engine),
            ctx.settings.health,
            ctx.now(),
            tokens=checkup.oauth_accounts(ctx.settings),
        )
    finally:
        engine.dispose()
    for check in found:
        print(check.line(), file=ctx.stdout)
    return int(checkup.worst(found))


@COMMANDS.command(
    "check",
    help="tries the configuration against the real servers and changes nothing: the "
    "database, the IMAP login, the folders, IDLE, the SMTP login, OAuth2 tokens; one line "
    "per check; exit 0 OK, 1 warning, 2 critical or bad config",
    arguments=lambda parser: described(
        parser,
        "Before the daemon runs: logs in to the IMAP and SMTP servers as the bot would (no\n"
        "mail is sent, no folder made), names the folders the bot will use as the server\n"
        "names them, and reads the database without writing to it. Each line says OK,\n"
        "WARNING or CRITICAL, what was tried, and the key to fix.\n\n"
        "example:\n  mailbot -c /etc/mailbot/config.yaml check",
    ),
)
def check(ctx: CommandContext, args: argparse.Namespace) -> int:
    from mailbot import preflight
    from mailbot.shell import health as checkup

    found = preflight.checks(ctx.settings)
    for finding in found:
        print(finding.line(), file=ctx.stdout)
    return int(checkup.worst(found))
