"""The commands of the desk at work: ``poll`` (one pass over the mail), ``sweep``
(the deadline pass), ``td`` (a director's order) and ``run`` (the daemon)."""

from __future__ import annotations

import argparse
import logging

from mailbot.commands.command import (
    CommandContext,
    Commands,
    UsageError,
    described,
    fix_now,
    now_arguments,
)
from mailbot.store.engine import make_engine, session_factory

log = logging.getLogger("mailbot")

COMMANDS = Commands()


def _poll_arguments(parser: argparse.ArgumentParser) -> None:
    described(
        parser,
        "One pass: fetch every new message of the inbox folder, handle each (its answers\n"
        "are queued in the same transaction), file it into the done folder, then send\n"
        "what the outbox has due, and exit. For a cron job or a systemd timer instead of\n"
        "the daemon; prints one line of counts.\n\n"
        "examples:\n"
        "  mailbot -c /etc/mailbot/config.yaml poll\n"
        "  mailbot -c config.yaml poll --now 2026-03-05T10:00   # the bot's clock fixed",
    )
    parser.add_argument(
        "--once", action="store_true", help="one pass, then exit (what poll always does)"
    )
    now_arguments(parser)


@COMMANDS.command(
    "poll", help="one pass: fetch and handle new mail, send what is due", arguments=_poll_arguments
)
def poll(ctx: CommandContext, args: argparse.Namespace) -> int:
    from mailbot.shell.passes import poll_once

    fix_now(ctx, args)
    engine = make_engine(ctx.settings.database)
    try:
        report = poll_once(ctx.settings, session_factory(engine), ctx.now)
    finally:
        engine.dispose()
    print(report.line(), file=ctx.stdout)
    return 0


def _sweep_arguments(parser: argparse.ArgumentParser) -> None:
    described(
        parser,
        "The daily deadline pass, as the daemon runs it at sweep.hour: repeats of\n"
        "unanswered moves (with a copy to the director), silence reports, oversteps,\n"
        "the ends of leave and of the tournament; then sends what is due. Each notice\n"
        "goes once, however often the sweep runs.\n\n"
        "examples:\n"
        "  mailbot -c config.yaml sweep\n"
        "  mailbot -c config.yaml sweep --now 2026-04-01T06:00",
    )
    now_arguments(parser)


@COMMANDS.command(
    "sweep",
    servers=("smtp",),
    help="deadline pass: repeats, silence, oversteps, leave ends; sends what is due",
    arguments=_sweep_arguments,
)
def sweep(ctx: CommandContext, args: argparse.Namespace) -> int:
    from mailbot.desk.sweep import sweep as run_sweep
    from mailbot.mail.postman import Postman
    from mailbot.shell.courier import deliver
    from mailbot.shell.health import SWEEP, beat

    fix_now(ctx, args)
    engine = make_engine(ctx.settings.database)
    try:
        sessions = session_factory(engine)
        report = run_sweep(sessions, ctx.settings.smtp.sender, ctx.now())
        beat(sessions, SWEEP, report.line())
        delivery = deliver(ctx.settings, sessions, Postman(ctx.settings.smtp), ctx.now())
    finally:
        engine.dispose()
    print(f"{report.line()}; {delivery.line()}", file=ctx.stdout)
    return 0


def _td_arguments(parser: argparse.ArgumentParser) -> None:
    described(
        parser,
        "Carries out a tournament director's order, exactly as the director would write\n"
        "it by mail, and sends the mail it causes (the players concerned are told).\n"
        "\n"
        "examples:\n"
        "  mailbot -c config.yaml td penalty BG-2026-E1/3 black 5\n"
        "  mailbot -c config.yaml td leave ivanov 10\n"
        "  mailbot -c config.yaml td address petrov petrov@new.example",
    )
    parser.add_argument(
        "order",
        nargs="+",
        help="the director's order, as in mail: confirm GAME | reject GAME | "
        "penalty GAME COLOUR 5|10 | overstep GAME COLOUR | forfeit GAME COLOUR | "
        "leave PLAYER DAYS [YEAR] | extend INDEX DATE | result GAME RESULT | "
        "withdraw PLAYER [valid] | address PLAYER EMAIL | rename PLAYER NAME | "
        'replace PLAYER NEW-ID "NAME" EMAIL',
    )
    now_arguments(parser)


@COMMANDS.command(
    "td", servers=("smtp",), help="carry out a tournament director's order", arguments=_td_arguments
)
def td(ctx: CommandContext, args: argparse.Namespace) -> int:
    from sqlalchemy import select

    from mailbot.compose.catalogue import say
    from mailbot.compose.notifier import Notifier
    from mailbot.desk import director
    from mailbot.desk.work import Work
    from mailbot.mail.postman import Postman
    from mailbot.shell.courier import deliver
    from mailbot.store.models import Tournament

    fix_now(ctx, args)
    line = " ".join(args.order)
    try:
        order = director.read_order(line)
    except director.OrderError as exc:
        raise UsageError(str(exc)) from None
    if order is None:
        raise UsageError(f"{line!r}: not an order (see mailbot td --help)")
    engine = make_engine(ctx.settings.database)
    try:
        sessions = session_factory(engine)
        with sessions() as session, session.begin():
            tournaments = session.scalars(select(Tournament)).all()
            work = Work(session, ctx.now())
            try:
                done = say("en", director.carry_out(work, tournaments, order))
            except director.OrderError as exc:
                raise UsageError(str(exc)) from None
            Notifier(session, ctx.settings.smtp.sender, ctx.now()).tell(*work.events)
        deliver(ctx.settings, sessions, Postman(ctx.settings.smtp), ctx.now())
    finally:
        engine.dispose()
    print(done, file=ctx.stdout)
    return 0


@COMMANDS.command(
    "run",
    help="the daemon: IMAP IDLE, the daily sweep, outbox retries; stops on SIGTERM",
    arguments=lambda parser: described(
        parser,
        "The daemon: waits for mail with IMAP IDLE (polling where the server has none),\n"
        "handles each message, retries the outbox with back-off, runs the deadline sweep\n"
        "every day at sweep.hour and keeps the published pages. It never exits on its\n"
        "own: a server that goes away is one log line and a retry with back-off. SIGTERM\n"
        "stops it within seconds. Under systemd (Type=notify) it reports READY, STATUS\n"
        "and WATCHDOG; with metrics.listen it serves Prometheus metrics at /metrics.\n\n"
        "examples:\n"
        "  mailbot -c /etc/mailbot/config.yaml run\n"
        "  systemctl start mailbot       # the unit in systemd/mailbot.service",
    ),
)
def run(ctx: CommandContext, args: argparse.Namespace) -> int:
    from mailbot.desk.sweep import sweep as run_sweep
    from mailbot.shell.daemon import Daemon

    engine = make_engine(ctx.settings.database)
    try:
        sessions = session_factory(engine)
        sender = ctx.settings.smtp.sender
        return Daemon(
            ctx.settings,
            sessions,
            sweep=lambda now: log.info("%s", run_sweep(sessions, sender, now).line()),
        ).run()
    finally:
        engine.dispose()
