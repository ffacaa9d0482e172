"""The ``outbox`` command: the mail waiting, given up or bounced; ``outbox dismiss``."""

from __future__ import annotations

import argparse
import logging

from sqlalchemy.orm import Session

from mailbot.commands.command import (
    CommandContext,
    Commands,
    UsageError,
    described,
    show,
)
from mailbot.store.engine import make_engine, session_factory

log = logging.getLogger("mailbot")

COMMANDS = Commands()


def _outbox_arguments(parser: argparse.ArgumentParser) -> None:
    described(
        parser,
        "Lists the mail waiting to be sent, the mail given up (--failed), or the mail a\n"
        "server accepted and a delivery report later said did not arrive (--bounced),\n"
        "one line each: id, recipients, subject, attempts, the last error or the\n"
        "bounce's diagnostic; a row dismissed ends with `dismissed`.\n"
        "\n"
        "`dismiss` acknowledges mail given up or bounced: `mailbot health` and the\n"
        "metrics no longer warn about it; it stays listed, and a new failure warns again.\n"
        "\n"
        "examples:\n"
        "  mailbot -c config.yaml outbox\n"
        "  mailbot -c config.yaml outbox --bounced\n"
        "  mailbot -c config.yaml outbox dismiss 42\n"
        "  mailbot -c config.yaml outbox dismiss --all",
    )
    parser.add_argument("action", nargs="?", choices=("dismiss",), help="dismiss: see above")
    parser.add_argument("id", nargs="?", metavar="ID", help="dismiss: a listed id")
    parser.add_argument("--all", action="store_true", help="dismiss: every row given up or bounced")
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
    servers=(),
    help="mail waiting to be sent, given up (--failed) or bounced after it was sent "
    "(--bounced): id, recipient, subject, attempts, last error or the bounce's diagnostic; "
    "dismiss ID|--all stops health warning about mail given up or bounced",
    arguments=_outbox_arguments,
)
def outbox(ctx: CommandContext, args: argparse.Namespace) -> int:
    from mailbot.store.outbox import listing

    if args.action == "dismiss":
        return _dismiss(ctx, args)
    if args.id or args.all:
        raise UsageError("an ID and --all go with outbox dismiss")

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
            mark = "\tdismissed" if row.dismissed_at is not None else ""
            out.append(f"{row.id}\t{to}\t{row.subject}\t{row.attempts}\t{error}{mark}")
        return "\n".join(out)

    return show(ctx, lines)


def _dismiss(ctx: CommandContext, args: argparse.Namespace) -> int:
    """``outbox dismiss ID|--all``: one line per row dismissed."""
    from mailbot.store.outbox import NotDismissible, dismiss

    if args.failed or args.bounced or bool(args.id) == bool(args.all):
        raise UsageError(
            "outbox dismiss takes an ID (as outbox --failed or --bounced lists) or --all"
        )
    row_id = None
    if args.id:
        if not args.id.isdigit():
            raise UsageError(
                f"outbox dismiss {args.id}: not an id (a number outbox --failed lists)"
            )
        row_id = int(args.id)
    engine = make_engine(ctx.settings.database)
    try:
        with session_factory(engine).begin() as session:
            try:
                rows = dismiss(session, row_id, ctx.now())
            except NotDismissible as exc:
                raise UsageError(str(exc.args[0])) from None
            said = [f"dismissed {row.id}\t{', '.join([*row.to_addrs, *row.cc_addrs])}\t"
                    f"{row.subject}" for row in rows]  # fmt: skip
    finally:
        engine.dispose()
    print("\n".join(said or ["no mail given up or bounced to dismiss"]), file=ctx.stdout)
    return 0
