"""The ``mailbot`` command line.

Exit status: 0 done; 2 bad usage or bad configuration, with a one-line
message on stderr that says what to fix; 1 anything else, with the error
logged.

A command is one function registered with :func:`command`; it receives the
loaded configuration (unless it says it needs none) and the parsed arguments::

    def _status_arguments(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("game", nargs="?", help="INDEX/N")

    @command("status", help="games, whose move, both clocks", arguments=_status_arguments)
    def status(ctx: Context, args: argparse.Namespace) -> int:
        ...  # ctx.settings, ctx.now(), print(..., file=ctx.stdout)
        return 0

Nested commands name every word: ``@command("tournament", "import", ...)``.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import gc
import logging
import os
import sys
import zoneinfo
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TextIO

from sqlalchemy.orm import Session

from mailbot import __version__
from mailbot.config import Config, ConfigError, load_config
from mailbot.logs import logging_for_command
from mailbot.mail.postman import compose_address
from mailbot.store.engine import describe_url, make_engine, session_factory
from mailbot.store.schema import schema_revision, upgrade
from mailbot.store.startlist import StartListError, load_start_list
from mailbot.store.tournaments import (
    DuplicateTournamentError,
    TournamentStartedError,
    delete_tournament,
    import_start_list,
)

log = logging.getLogger("mailbot")

PROGRAM = "mailbot"


class UsageError(Exception):
    """Bad usage or bad input the user must fix: exit 2 with this one-line message."""


@dataclasses.dataclass
class Context:
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


Runner = Callable[[Context, argparse.Namespace], int]
Arguments = Callable[[argparse.ArgumentParser], None]


@dataclasses.dataclass(frozen=True)
class Command:
    """One (sub)command: ``words`` is the path, like ``("tournament", "import")``."""

    words: tuple[str, ...]
    help: str
    run: Runner
    arguments: Arguments | None = None
    needs_config: bool = True
    #: The exit status of bad usage or a bad configuration (``health``: 3, as
    #: monitoring plugins say "unknown").
    bad_usage: int = 2


COMMANDS: list[Command] = []


def command(
    *words: str,
    help: str,
    arguments: Arguments | None = None,
    needs_config: bool = True,
    bad_usage: int = 2,
) -> Callable[[Runner], Runner]:
    """Register the decorated function as the command ``words``."""

    def register(run: Runner) -> Runner:
        COMMANDS.append(Command(tuple(words), help, run, arguments, needs_config, bad_usage))
        return run

    return register


@command(
    "init",
    help="create or upgrade the database (idempotent)",
    arguments=lambda parser: _described(
        parser,
        "Creates the database's tables, or upgrades them to this version's schema (Alembic\n"
        "migrations); run it after every upgrade of the bot. Running it again changes\n"
        "nothing. SQLite for a club, PostgreSQL for a federation (`database` in the\n"
        "configuration).\n\n"
        "example:\n  mailbot -c /etc/mailbot/config.yaml init",
    ),
)
def init(ctx: Context, args: argparse.Namespace) -> int:
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
    print(f"database {describe_url(database)}: {state}", file=ctx.stdout)
    return 0


def _import_arguments(parser: argparse.ArgumentParser) -> None:
    _described(
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
    _now_arguments(parser)


@command(
    "tournament",
    "import",
    help="create a tournament from a start list and mail every player their games",
    arguments=_import_arguments,
)
def tournament_import(ctx: Context, args: argparse.Namespace) -> int:
    from mailbot.compose.notifier import Notifier
    from mailbot.courier import deliver
    from mailbot.mail.postman import Postman
    from mailbot.rules.events import TournamentStarted

    _fix_now(ctx, args)
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
            tournament = import_start_list(session, start_list, ctx.now())
            players, games = len(tournament.players), len(tournament.games)
            notifier = Notifier(session, config.smtp.sender, ctx.now())
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
    _described(
        parser,
        "Removes a tournament in which no move has been played, and withdraws its start\n"
        "mails not yet sent, so that a corrected start list can be imported again. Once a\n"
        "move is played the tournament stays (a director's orders change it instead).\n"
        "\n"
        "example:\n"
        "  mailbot -c config.yaml tournament delete BG-2026-E1",
    )
    parser.add_argument("index", help="the tournament's index")


@command(
    "tournament",
    "delete",
    help="remove a tournament in which no move has been played",
    arguments=_delete_arguments,
)
def tournament_delete(ctx: Context, args: argparse.Namespace) -> int:
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


def _now_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--now",
        metavar="T",
        help="fix the bot's clock (ISO 8601; without an offset: the configured time zone)",
    )


def _fix_now(ctx: Context, args: argparse.Namespace) -> None:
    if getattr(args, "now", None):
        ctx.fixed_now = parse_now(args.now, ctx.settings.timezone)


def _poll_arguments(parser: argparse.ArgumentParser) -> None:
    _described(
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
    _now_arguments(parser)


@command(
    "poll", help="one pass: fetch and handle new mail, send what is due", arguments=_poll_arguments
)
def poll(ctx: Context, args: argparse.Namespace) -> int:
    from mailbot.daemon import poll_once

    _fix_now(ctx, args)
    engine = make_engine(ctx.settings.database)
    try:
        report = poll_once(ctx.settings, session_factory(engine), ctx.now)
    finally:
        engine.dispose()
    print(report.line(), file=ctx.stdout)
    return 0


def _sweep_arguments(parser: argparse.ArgumentParser) -> None:
    _described(
        parser,
        "The daily deadline pass, as the daemon runs it at sweep.hour: repeats of\n"
        "unanswered moves (with a copy to the director), silence reports, oversteps,\n"
        "the ends of leave and of the tournament; then sends what is due. Each notice\n"
        "goes once, however often the sweep runs.\n\n"
        "examples:\n"
        "  mailbot -c config.yaml sweep\n"
        "  mailbot -c config.yaml sweep --now 2026-04-01T06:00",
    )
    _now_arguments(parser)


@command(
    "sweep",
    help="deadline pass: repeats, silence, oversteps, leave ends; sends what is due",
    arguments=_sweep_arguments,
)
def sweep(ctx: Context, args: argparse.Namespace) -> int:
    from mailbot.courier import deliver
    from mailbot.desk.sweep import sweep as run_sweep
    from mailbot.health import SWEEP, beat
    from mailbot.mail.postman import Postman

    _fix_now(ctx, args)
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
    _described(
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
    _now_arguments(parser)


@command("td", help="carry out a tournament director's order", arguments=_td_arguments)
def td(ctx: Context, args: argparse.Namespace) -> int:
    from sqlalchemy import select

    from mailbot.compose.notifier import Notifier
    from mailbot.courier import deliver
    from mailbot.desk import director
    from mailbot.desk.work import Work
    from mailbot.mail.postman import Postman
    from mailbot.store.models import Tournament

    _fix_now(ctx, args)
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
                done = str(director.carry_out(work, tournaments, order))
            except director.OrderError as exc:
                raise UsageError(str(exc)) from None
            Notifier(session, ctx.settings.smtp.sender, ctx.now()).tell(*work.events)
        deliver(ctx.settings, sessions, Postman(ctx.settings.smtp), ctx.now())
    finally:
        engine.dispose()
    print(done, file=ctx.stdout)
    return 0


@command(
    "run",
    help="the daemon: IMAP IDLE, the daily sweep, outbox retries; stops on SIGTERM",
    arguments=lambda parser: _described(
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
def run(ctx: Context, args: argparse.Namespace) -> int:
    from mailbot.daemon import Daemon
    from mailbot.desk.sweep import sweep as run_sweep

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


def _status_arguments(parser: argparse.ArgumentParser) -> None:
    _described(
        parser,
        "Without an argument, a line per tournament with its counts and the games that\n"
        "need the director; with INDEX every game of that tournament (whose move, days\n"
        "running, days left to the next control, both clocks); with INDEX/N one game in\n"
        "detail (position, moves with their dates and days).\n"
        "\n"
        "examples:\n"
        "  mailbot -c config.yaml status\n"
        "  mailbot -c config.yaml status BG-2026-E1\n"
        "  mailbot -c config.yaml status BG-2026-E1/3",
    )
    parser.add_argument(
        "game",
        nargs="?",
        metavar="GAME|INDEX",
        help="INDEX/N for one game in detail, INDEX for one tournament's games",
    )
    _now_arguments(parser)


@command(
    "status",
    help="games, whose move, both clocks; one tournament (INDEX) or one game (INDEX/N) in detail",
    arguments=_status_arguments,
)
def status(ctx: Context, args: argparse.Namespace) -> int:
    from mailbot.publish import report

    _fix_now(ctx, args)
    if args.game and report.split_tag(args.game)[1] is None:
        index = report.split_tag(args.game)[0]
        return _report(ctx, lambda session: report.tournament_status(session, index, ctx.now()))
    if args.game:
        return _report(ctx, lambda session: report.game_status(session, args.game, ctx.now()))
    return _report(ctx, lambda session: report.overview(session, ctx.now()))


def _report(ctx: Context, make: Callable[[Session], str]) -> int:
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


def _pgn_arguments(parser: argparse.ArgumentParser) -> None:
    _described(
        parser,
        "Writes PGN to stdout for Scid and ChessBase: one game (INDEX/N) or every game of a\n"
        "tournament (INDEX), with the players' names, countries and ratings where the\n"
        "start list gives them.\n"
        "\n"
        "examples:\n"
        "  mailbot -c config.yaml pgn BG-2026-E1 > bg-2026-e1.pgn\n"
        "  mailbot -c config.yaml pgn BG-2026-E1/3",
    )
    parser.add_argument("target", metavar="GAME|INDEX", help="INDEX/N for one game, INDEX for all")


@command("pgn", help="PGN of one game or a whole tournament to stdout", arguments=_pgn_arguments)
def pgn(ctx: Context, args: argparse.Namespace) -> int:
    from mailbot.publish import report

    return _report(ctx, lambda session: report.pgn_of(session, args.target))


def _standings_arguments(parser: argparse.ArgumentParser) -> None:
    _described(
        parser,
        "Prints the crosstable with Sonneborn-Berger (for a team event, the team table\n"
        "with match points and its tie-breaks).\n"
        "\n"
        "example:\n"
        "  mailbot -c config.yaml standings BG-2026-E1",
    )
    parser.add_argument("index", metavar="INDEX", help="the tournament")


@command(
    "standings", help="crosstable or team standings of a tournament", arguments=_standings_arguments
)
def standings(ctx: Context, args: argparse.Namespace) -> int:
    from mailbot.publish import report

    return _report(ctx, lambda session: report.standings_of(session, args.index))


def _site_arguments(parser: argparse.ArgumentParser) -> None:
    _described(
        parser,
        "Writes the tournament's static web pages into DIR: the crosstable, a page per\n"
        "game with its moves and dates, and the PGN. The daemon keeps them up to date\n"
        "itself when site_folder is configured.\n"
        "\n"
        "example:\n"
        "  mailbot -c config.yaml site BG-2026-E1 /var/www/cc/bg-2026-e1",
    )
    parser.add_argument("index", metavar="INDEX", help="the tournament")
    parser.add_argument("folder", metavar="DIR", type=Path, help="where to write the pages")
    _now_arguments(parser)


@command(
    "site",
    help="write the tournament's static web pages (crosstable, a page per game, PGN) into DIR",
    arguments=_site_arguments,
)
def site(ctx: Context, args: argparse.Namespace) -> int:
    from mailbot.publish.site import write_site

    _fix_now(ctx, args)

    def write(session: Session) -> str:
        try:
            written = write_site(session, args.index, args.folder, ctx.now())
        except OSError as exc:
            raise UsageError(f"{args.folder}: cannot write there: {exc.strerror}") from None
        return f"{len(written)} files written to {args.folder}"

    return _report(ctx, write)


def _evidence_arguments(parser: argparse.ArgumentParser) -> None:
    _described(
        parser,
        "Writes the dispute file of one game into DIR: every message received and sent\n"
        "about it (.eml, as the bytes were) with its instant, and the move table with\n"
        "the received and sent dates and the days each move took.\n"
        "\n"
        "example:\n"
        "  mailbot -c config.yaml evidence BG-2026-E1/3 dispute-3/",
    )
    parser.add_argument("game", metavar="GAME", help="INDEX/N of the game")
    parser.add_argument("folder", metavar="DIR", type=Path, help="where to write the file")


@command(
    "evidence",
    help="write a game's dispute file into DIR: every message received and sent (.eml) with "
    "its instant, and the move table",
    arguments=_evidence_arguments,
)
def evidence(ctx: Context, args: argparse.Namespace) -> int:
    from mailbot.publish.evidence import EvidenceFolderError, write_evidence

    def write(session: Session) -> str:
        try:
            written = write_evidence(
                session, args.game, args.folder, sender=ctx.settings.smtp.sender
            )
        except EvidenceFolderError as exc:
            raise UsageError(str(exc)) from None
        except OSError as exc:
            raise UsageError(f"{args.folder}: cannot write there: {exc.strerror}") from None
        messages = sum(1 for path in written if path.suffix == ".eml")
        return f"{messages} messages and the move table written to {args.folder}"

    return _report(ctx, write)


def _outbox_arguments(parser: argparse.ArgumentParser) -> None:
    _described(
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


@command(
    "outbox",
    help="mail waiting to be sent, given up (--failed) or bounced after it was sent "
    "(--bounced): id, recipient, subject, attempts, last error or the bounce's diagnostic",
    arguments=_outbox_arguments,
)
def outbox(ctx: Context, args: argparse.Namespace) -> int:
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

    return _report(ctx, lines)


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


@command(
    "quarantine",
    help="messages set aside after repeated failures: id, sender, subject, when, reason; "
    "release puts them back to be handled at the next pass",
    arguments=_quarantine_arguments,
)
def quarantine(ctx: Context, args: argparse.Namespace) -> int:
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


@command(
    "health",
    help="one line per check (OK, WARNING or CRITICAL): the database, the last poll and "
    "sweep, the outbox, failed and bounced mail, quarantine, OAuth2 tokens; exit 0 OK, "
    "1 warning, 2 critical, 3 bad usage or config",
    arguments=lambda parser: _described(
        parser,
        "Checks that the bot works, for monitoring (Nagios, Icinga, a systemd timer). It reads\n"
        "only the database (and the token files of accounts that log in with OAuth2), so it\n"
        "works while the daemon runs, from any process. The age limits are the keys under\n"
        "`health:` in the configuration.\n\n"
        "example:\n  mailbot -c /etc/mailbot/config.yaml health",
    ),
    bad_usage=3,
)
def health(ctx: Context, args: argparse.Namespace) -> int:
    from mailbot import health as checkup

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


def _oauth_arguments(parser: argparse.ArgumentParser) -> None:
    _described(
        parser,
        "Obtains the first OAuth2 refresh token of the account (imap or smtp) whose\n"
        "`auth` is oauth2, as the provider lets an installed application, and writes the\n"
        "account's oauth2.token_file (mode 0600). The token is never printed or logged.\n\n"
        "  google     authorization code with PKCE: open the printed address in a browser on\n"
        "             this machine; the provider sends the browser back to a listener on\n"
        "             127.0.0.1 (a free port) that this command runs until it is done\n"
        "  microsoft  device code: open the printed address anywhere, enter the code\n"
        "  generic    device code if oauth2.device_url is set, else code with PKCE\n"
        "             (oauth2.authorize_url); --device or --browser chooses\n\n"
        "A daemon that waits for a new token takes it without a restart.\n\n"
        "examples:\n"
        "  mailbot -c /etc/mailbot/config.yaml oauth authorize imap\n"
        "  mailbot -c /etc/mailbot/config.yaml oauth authorize smtp --device",
    )
    parser.add_argument("account", choices=("imap", "smtp"), help="the account to authorize")
    flow = parser.add_mutually_exclusive_group()
    flow.add_argument(
        "--device", dest="device", action="store_const", const=True, help="use the device code"
    )
    flow.add_argument(
        "--browser",
        dest="device",
        action="store_const",
        const=False,
        help="use the authorization code with PKCE and a loopback redirect",
    )
    parser.add_argument(
        "--wait",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="how long to wait for the browser's redirect (default 300)",
    )


@command(
    "oauth",
    "authorize",
    help="obtain the first OAuth2 refresh token of the imap or smtp account and write its "
    "token file",
    arguments=_oauth_arguments,
)
def oauth_authorize(ctx: Context, args: argparse.Namespace) -> int:
    from mailbot.mail import oauth

    account = ctx.settings.imap if args.account == "imap" else ctx.settings.smtp
    settings = account.oauth2
    if settings is None:
        raise UsageError(
            f"{args.account}.auth is not oauth2 in {ctx.config_path}: nothing to authorize"
        )
    try:
        flow = oauth.authorize(
            settings,
            lambda line: print(line, file=ctx.stdout, flush=True),
            device=args.device,
            wait=args.wait,
        )
    except oauth.AuthorizeError as exc:
        raise UsageError(f"oauth authorize {args.account}: {exc}") from None
    print(
        f"{args.account}: token file {settings.token_file} written ({flow.value} flow); "
        f"the bot logs in as {account.username}",
        file=ctx.stdout,
    )
    return 0


def _backup_arguments(parser: argparse.ArgumentParser) -> None:
    _described(
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


@command(
    "backup",
    help="write a consistent snapshot of the whole store into FILE (while the daemon runs)",
    arguments=_backup_arguments,
)
def backup(ctx: Context, args: argparse.Namespace) -> int:
    from mailbot.store import backup as store_backup

    try:
        summary = store_backup.backup(ctx.settings.database, args.file)
    except store_backup.BackupError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"{args.file}: cannot write there ({exc.strerror})") from None
    print(f"backup {args.file} written: {summary.line()}", file=ctx.stdout)
    return 0


def _restore_arguments(parser: argparse.ArgumentParser) -> None:
    _described(
        parser,
        "Loads a backup written by `mailbot backup` into the configured database, which\n"
        "must be empty (new, or just made by `mailbot init`), of either kind: SQLite or\n"
        "PostgreSQL. The schema is taken to the backup's revision, every row is loaded\n"
        "and the schema is then upgraded to this version's. A database with rows in it,\n"
        "a backup of a newer version, or a file cut short is refused with one line and\n"
        "nothing is written.\n\n"
        "example (a club moving to PostgreSQL):\n"
        "  mailbot -c sqlite-config.yaml backup club.gz\n"
        "  mailbot -c postgresql-config.yaml restore club.gz",
    )
    parser.add_argument("file", type=Path, metavar="FILE", help="the backup file to load")


@command(
    "restore",
    help="load a backup into an empty database (SQLite or PostgreSQL)",
    arguments=_restore_arguments,
)
def restore(ctx: Context, args: argparse.Namespace) -> int:
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


def _described(parser: argparse.ArgumentParser, text: str) -> None:
    """Give a command's ``--help`` a description and an example."""
    parser.description = text
    parser.formatter_class = argparse.RawDescriptionHelpFormatter


@command(
    "demo",
    help="play a short game through the real pipeline on embedded servers",
    arguments=lambda parser: _described(
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
def demo(ctx: Context, args: argparse.Namespace) -> int:
    from mailbot.demo import run_demo

    result = run_demo(lambda line: print(line, file=ctx.stdout, flush=True))
    return 0 if result.result else 1


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


def tune_collector() -> None:
    """Set the garbage collector for a process that is the bot (``mailbot ...``).

    Handling a message makes some thousands of objects (the game's rows, its
    board, the mail); at Python's default threshold (700) the cyclic
    collector runs every few messages, and each of its full passes walks
    every object the process holds: a tenth of the time a move costs, and
    more the longer the game. Here it runs after 10,000 new objects (and
    the older generations a tenth as often), and what is loaded at the start
    (modules, the configuration) is set aside for good (:func:`gc.freeze`).
    Only the process's entry point calls this: a program that imports the
    bot keeps its own settings.
    """
    gc.set_threshold(10_000, 10, 10)
    gc.freeze()


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
    cmd: Command = args._command
    path = config_path(args.config, os.environ)
    with logging_for_command() as logs:
        try:
            config = None
            if cmd.needs_config:
                try:
                    config = load_config(path)
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
            return cmd.run(Context(path, config, out), args)
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

    from mailbot.mail.inbox import MailboxError, OAuthRefused
    from mailbot.store.outage import StoreUnavailable, fault_of

    if isinstance(exc, StoreUnavailable):
        return f"{exc}; {exc.fault.advice(str(path))}"
    if isinstance(exc, OAuthRefused):
        return str(exc)  # it names the account and the fix (a command, or a key to change)
    if isinstance(exc, MailboxError) and "refused the login" in str(exc):
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
