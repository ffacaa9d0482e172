"""The commands that read and publish: ``status``, ``pgn``, ``standings``, ``site``
and ``evidence``."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from sqlalchemy.orm import Session

from mailbot.commands.command import (
    CommandContext,
    Commands,
    UsageError,
    described,
    fix_now,
    now_arguments,
    show,
)
from mailbot.rules.languages import CODES

log = logging.getLogger("mailbot")

COMMANDS = Commands()


def _status_arguments(parser: argparse.ArgumentParser) -> None:
    described(
        parser,
        "Without an argument, a line per tournament with its counts and the games that\n"
        "need the director; with INDEX every game of that tournament (whose move, days\n"
        "running, days left to the next control, both clocks); with INDEX/N one game in\n"
        "detail (position, moves with their dates and days). Each tournament's lines are\n"
        "in its language, or all in the one --language names.\n"
        "\n"
        "examples:\n"
        "  mailbot -c config.yaml status\n"
        "  mailbot -c config.yaml status BG-2026-E1\n"
        "  mailbot -c config.yaml status BG-2026-E1/3\n"
        "  mailbot -c config.yaml status BG-2026-E1 --language en",
    )
    parser.add_argument(
        "game",
        nargs="?",
        metavar="GAME|INDEX",
        help="INDEX/N for one game in detail, INDEX for one tournament's games",
    )
    parser.add_argument(
        "--language",
        choices=CODES,
        help="the language of every line (default: each tournament's)",
    )
    now_arguments(parser)


@COMMANDS.command(
    "status",
    servers=(),
    help="games, whose move, both clocks; one tournament (INDEX) or one game (INDEX/N) in detail",
    arguments=_status_arguments,
)
def status(ctx: CommandContext, args: argparse.Namespace) -> int:
    from mailbot.publish import report

    fix_now(ctx, args)
    try:
        index, number = report.split_tag(args.game) if args.game else ("", None)
    except report.UnknownGameError as exc:
        raise UsageError(str(exc)) from None
    language = args.language
    if args.game and number is None:
        return show(
            ctx, lambda session: report.tournament_status(session, index, ctx.now(), language)
        )
    if args.game:
        return show(
            ctx, lambda session: report.game_status(session, args.game, ctx.now(), language)
        )
    return show(ctx, lambda session: report.overview(session, ctx.now(), language))


def _pgn_arguments(parser: argparse.ArgumentParser) -> None:
    described(
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


@COMMANDS.command(
    "pgn",
    servers=(),
    help="PGN of one game or a whole tournament to stdout",
    arguments=_pgn_arguments,
)
def pgn(ctx: CommandContext, args: argparse.Namespace) -> int:
    from mailbot.publish import report

    return show(ctx, lambda session: report.pgn_of(session, args.target))


def _standings_arguments(parser: argparse.ArgumentParser) -> None:
    described(
        parser,
        "Prints the crosstable with Sonneborn-Berger (for a team event, the team table\n"
        "with match points and its tie-breaks).\n"
        "\n"
        "examples:\n"
        "  mailbot -c config.yaml standings BG-2026-E1\n"
        "  mailbot -c config.yaml standings BG-2026-E1 --language en",
    )
    parser.add_argument("index", metavar="INDEX", help="the tournament")
    parser.add_argument(
        "--language",
        choices=CODES,
        help="the language of the whole table (default: the tournament's)",
    )


@COMMANDS.command(
    "standings",
    servers=(),
    help="crosstable or team standings of a tournament",
    arguments=_standings_arguments,
)
def standings(ctx: CommandContext, args: argparse.Namespace) -> int:
    from mailbot.publish import report

    return show(ctx, lambda session: report.standings_of(session, args.index, args.language))


def _site_arguments(parser: argparse.ArgumentParser) -> None:
    described(
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
    now_arguments(parser)


@COMMANDS.command(
    "site",
    servers=(),
    help="write the tournament's static web pages (crosstable, a page per game, PGN) into DIR",
    arguments=_site_arguments,
)
def site(ctx: CommandContext, args: argparse.Namespace) -> int:
    from mailbot.publish.site import write_site

    fix_now(ctx, args)

    def write(session: Session) -> str:
        try:
            written = write_site(session, args.index, args.folder, ctx.now())
        except OSError as exc:
            raise UsageError(
                f"{exc.filename or args.folder}: cannot write there: {exc.strerror}"
            ) from None
        return f"{len(written)} files written to {args.folder}"

    return show(ctx, write)


def _evidence_arguments(parser: argparse.ArgumentParser) -> None:
    described(
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


@COMMANDS.command(
    "evidence",
    servers=(),
    help="write a game's dispute file into DIR: every message received and sent (.eml) with "
    "its instant, and the move table",
    arguments=_evidence_arguments,
)
def evidence(ctx: CommandContext, args: argparse.Namespace) -> int:
    from mailbot.publish.evidence import EvidenceFolderError, write_evidence

    def write(session: Session) -> str:
        try:
            written = write_evidence(
                session, args.game, args.folder, sender=ctx.settings.smtp.sender
            )
        except EvidenceFolderError as exc:
            raise UsageError(str(exc)) from None
        except OSError as exc:
            raise UsageError(
                f"{exc.filename or args.folder}: cannot write there: {exc.strerror}"
            ) from None
        messages = sum(1 for path in written if path.suffix == ".eml")
        return f"{messages} messages and the move table written to {args.folder}"

    return show(ctx, write)
