"""The ``outbox`` command: the mail waiting, given up or bounced."""

from __future__ import annotations

import argparse
import logging

from sqlalchemy.orm import Session

from mailbot.commands.command import (
    CommandContext,
    Commands,
    described,
    show,
)

log = logging.getLogger("mailbot")

COMMANDS = Commands()


def _outbox_arguments(parser: argparse.ArgumentParser) -> None:
    described(
        parser,
        "Lists the mail waiting to be sent, the mail given up (--failed), or the mail a\n"
        "server accepted and a delivery report later said did not arrive (--bounced),\n"
        "one line each: id, recipients, subject, attempts, the last error or the\n"
        "bounce's diagnostic.\n"
        "\n"
        "examples:\n"
        "  mailbot -c config.yaml outbox\n"
        "  mailbot -c config.yaml outbox --bounced",
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--failed", action="store_true", help="the mail given up instead of the mail waiting"
    )
    which.add_argument(
        "--bounced",
        action="store_true",
        help="the mail a server accepted and a delivery report later said did not arrive",
    )


@COMMANDS.command(
    "outbox",
    help="mail waiting to be sent, given up (--failed) or bounced after it was sent "
    "(--bounced): id, recipient, subject, attempts, last error or the bounce's diagnostic",
    arguments=_outbox_arguments,
)
def outbox(ctx: CommandContext, args: argparse.Namespace) -> int:
    from mailbot.store.outbox import listing

    def lines(session: Session) -> str:
        status = "failed" if args.failed else "bounced" if args.bounced else "pending"
        rows = listing(session, status=status)
        if not rows:
            return {"failed": "no mail given up", "bounced": "no mail bounced"}.get(
                status, "no mail waiting"
            )
        out = []
        for row in rows:
            to = ", ".join([*row.to_addrs, *row.cc_addrs])
            error = (row.last_error or "-").replace("\n", " ")
            out.append(f"{row.id}\t{to}\t{row.subject}\t{row.attempts}\t{error}")
        return "\n".join(out)

    return show(ctx, lines)
