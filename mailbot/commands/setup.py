"""The commands of the store: ``init`` (create or upgrade the database) and
``tournament import`` / ``tournament delete`` (a start list in, a tournament out)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from mailbot.commands.command import (
    CommandContext,
    Commands,
    UsageError,
    described,
    fix_now,
    now_arguments,
)
from mailbot.commands.progress import Bar
from mailbot.mail.postman import compose_address
from mailbot.store.engine import describe_place, make_engine, session_factory
from mailbot.store.schema import schema_revision, upgrade

log = logging.getLogger("mailbot")

COMMANDS = Commands()


@COMMANDS.command(
    "init",
    servers=(),
    help="create or upgrade the database (idempotent)",
    arguments=lambda parser: described(
        parser,
        "Creates the database's tables, or upgrades them to this version's schema (Alembic\n"
        "migrations); run it after every upgrade of the bot. Running it again changes\n"
        "nothing. SQLite for a club, PostgreSQL for a federation (`database` in the\n"
        "configuration).\n\n"
        "example:\n  mailbot -c /etc/mailbot/config.yaml init",
    ),
)
def init(ctx: CommandContext, args: argparse.Namespace) -> int:
    database = ctx.settings.database
    engine = make_engine(database)
    try:
        before = schema_revision(engine)
        upgrade(engine)
        after = schema_revision(engine)
    finally:
        engine.dispose()
    if before == after:
        state = f"up to date at revision {after}"
    elif before is None:
        state = f"created at revision {after}"
    else:
        state = f"upgraded from revision {before} to {after}"
    print(f"database {describe_place(database)}: {state}", file=ctx.stdout)
    return 0


def _import_arguments(parser: argparse.ArgumentParser) -> None:
    described(
        parser,
        "Creates a tournament from a start list (YAML; its players: may name a CSV file)\n"
        "and mails every player one start message with their games, colours, opponents,\n"
        "the rules and how to write a move; the director gets a summary. A start list\n"
        "with mistakes creates nothing: every mistake is named with its file, line and\n"
        "column, one line each (exit 2). An index that exists already is refused.\n"
        "\n"
        "examples:\n"
        "  mailbot -c config.yaml tournament import start-list.yaml\n"
        "  mailbot -c config.yaml tournament import bg-2026-e1.yaml --now 2026-03-01T08:00",
    )
    parser.add_argument("file", type=Path, help="the start list (YAML; players may be a CSV)")
    now_arguments(parser)


@COMMANDS.command(
    "tournament",
    "import",
    servers=("smtp",),
    help="create a tournament from a start list and mail every player their games",
    arguments=_import_arguments,
)
def tournament_import(ctx: CommandContext, args: argparse.Namespace) -> int:
    # what reads and imports a start list is loaded by the commands that do so: every
    # other command (a poll above all) starts without it
    from mailbot.compose.notifier import Notifier
    from mailbot.mail.postman import Postman
    from mailbot.rules.events import TournamentStarted
    from mailbot.shell.courier import deliver
    from mailbot.store.startfields import StartListError
    from mailbot.store.startlist import load_start_list
    from mailbot.store.tournaments import DuplicateTournamentError, import_start_list

    fix_now(ctx, args)
    path: Path = args.file
    config = ctx.settings
    bot = [compose_address(config.smtp.sender), config.imap.username]
    try:
        start_list = load_start_list(
            path, special_use=config.policy.special_use_domains, bot_addresses=bot
        )
    except StartListError as exc:
        raise UsageError(
            "\n".join(str(m) if m.where else f"{path}: {m}" for m in exc.mistakes)
        ) from None
    engine = make_engine(ctx.settings.database)
    try:
        sessions = session_factory(engine)
        with sessions.begin() as session:
            progress = Bar("games", sys.stderr)
            tournament = import_start_list(session, start_list, ctx.now(), progress)
            players, games = len(start_list.players), len(start_list.games)
            notifier = Notifier(session, config.smtp.sender, ctx.now())
            notifier.progress = Bar("start mails", sys.stderr)
            notifier.tell(TournamentStarted(tournament.id))
            queued = len(notifier.queued)
        delivery = deliver(config, sessions, Postman(config.smtp), ctx.now())
    except DuplicateTournamentError as exc:
        raise UsageError(str(exc)) from None
    finally:
        engine.dispose()
    print(
        f"tournament {start_list.index}: {start_list.name}; "
        f"{players} players, {games} games; profile {start_list.profile.name}, "
        f"{start_list.start.isoformat()} to {start_list.end.isoformat()}; "
        f"{queued} start messages queued; {delivery.line()}",
        file=ctx.stdout,
    )
    return 0


def _delete_arguments(parser: argparse.ArgumentParser) -> None:
    described(
        parser,
        "Removes a tournament in which no move has been played, and withdraws its start\n"
        "mails not yet sent, so that a corrected start list can be imported again. Once a\n"
        "move is played the tournament stays (a director's orders change it instead).\n"
        "\n"
        "example:\n"
        "  mailbot -c config.yaml tournament delete BG-2026-E1",
    )
    parser.add_argument("index", help="the tournament's index")


@COMMANDS.command(
    "tournament",
    "delete",
    help="remove a tournament in which no move has been played",
    arguments=_delete_arguments,
)
def tournament_delete(ctx: CommandContext, args: argparse.Namespace) -> int:
    from mailbot.store.tournaments import TournamentStartedError, delete_tournament

    engine = make_engine(ctx.settings.database)
    try:
        with session_factory(engine).begin() as session:
            try:
                withdrawn = delete_tournament(session, args.index)
            except (LookupError, TournamentStartedError) as exc:
                raise UsageError(str(exc.args[0])) from None
    finally:
        engine.dispose()
    print(
        f"tournament {args.index} deleted; {withdrawn} messages not yet sent were withdrawn",
        file=ctx.stdout,
    )
    return 0
