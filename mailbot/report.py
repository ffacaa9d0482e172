"""What the command line shows: status of games, PGN, standings.

>>> split_tag("BG-2026-E1/7")
('BG-2026-E1', 7)
"""

from __future__ import annotations

import datetime
from zoneinfo import ZoneInfo

import chess
from sqlalchemy import select
from sqlalchemy.orm import Session

from mailbot import clock
from mailbot.diagram import text_diagram
from mailbot.record import (
    board_of,
    control_of,
    export_pgn,
    local_date,
    profile_of,
    tag_of,
    totals,
)
from mailbot.standings import (
    Crosstable,
    Match,
    TeamTable,
    crosstable,
    render_crosstable,
    render_team_table,
    team_table,
)
from mailbot.store import Game, Tournament


class UnknownGameError(LookupError):
    """No game or tournament by that name."""


def split_tag(tag: str) -> tuple[str, int | None]:
    """``INDEX/N`` into its parts; a bare ``INDEX`` gives ``(INDEX, None)``."""
    index, slash, number = tag.strip().strip("[]").rpartition("/")
    if not slash:
        return number, None
    if not number.isdigit():
        raise UnknownGameError(f"{tag}: a game is named INDEX/N, e.g. BG-2026-E1/3")
    return index, int(number)


def find_game(session: Session, tag: str) -> Game:
    index, number = split_tag(tag)
    if number is None:
        raise UnknownGameError(f"{tag}: name one game as INDEX/N")
    g = session.scalars(
        select(Game).join(Tournament).where(Tournament.index == index, Game.number == number)
    ).first()
    if g is None:
        raise UnknownGameError(f"no game {index}/{number}")
    return g


def _running(g: Game, now: datetime.datetime) -> int:
    """Days running on the move being thought about."""
    p = profile_of(g.tournament)
    tz = ZoneInfo(g.tournament.timezone)
    if g.result is not None:
        return 0
    if not g.moves:
        return clock.first_move_days(p, g.tournament.start, max(now, _start(g, tz)), (), tz)
    received = g.moves[-1].forwarded_at or g.moves[-1].sent_at
    return clock.move_days(p, received, max(now, received), (), tz)


def _start(g: Game, tz: ZoneInfo) -> datetime.datetime:
    return datetime.datetime.combine(g.tournament.start, datetime.time(), tz).astimezone(
        datetime.UTC
    )


def overview(session: Session, now: datetime.datetime) -> str:
    """One line per game: whose move, both clocks (days used; running days)."""
    lines: list[str] = []
    for t in session.scalars(select(Tournament).order_by(Tournament.index)).all():
        lines.append(f"{t.index}  {t.name}  ({t.profile}, {t.start} to {t.end})")
        for g in t.games:
            sums = totals(g)
            if g.result:
                state = f"finished {g.result} ({g.termination})"
            else:
                turn = "White" if len(g.moves) % 2 == 0 else "Black"
                state = f"{turn} to move, {_running(g, now)} days running"
            lines.append(
                f"  {tag_of(g):<18} {g.white.name} – {g.black.name}: ply {len(g.moves)}, "
                f"{state}; time White {sums.white}, Black {sums.black}"
            )
    if not lines:
        lines.append("no tournaments (import one with: mailbot tournament import FILE)")
    return "\n".join(lines) + "\n"


def game_status(session: Session, tag: str, now: datetime.datetime) -> str:
    """One game: the position, the clocks, every move with its dates and days."""
    g = find_game(session, tag)
    tz = ZoneInfo(g.tournament.timezone)
    board = board_of(g)
    sums = totals(g)
    out = [f"{tag_of(g)}  {g.white.name} – {g.black.name}  ({g.tournament.profile})"]
    if g.result:
        out.append(f"result {g.result} ({g.termination})")
    else:
        turn = "White" if board.turn == chess.WHITE else "Black"
        running = _running(g, now)
        state = control_of(g, board.turn, running)
        out.append(
            f"{turn} to move, {running} days running; next control move "
            f"{state.next_control_move}: {state.used_days} of {state.limit_days} days used"
        )
    out.append(f"time used: White {sums.white}, Black {sums.black} (penalties included)")
    out.append("")
    out.append(text_diagram(board))
    out.append("")
    out.append(f"{'ply':>4} {'move':<8} {'received':<10} {'sent':<10} days")
    replay = chess.Board()
    for m in g.moves:
        move = chess.Move.from_uci(m.uci)
        san = replay.san(move)
        replay.push(move)
        received = m.received_counted_on.isoformat() if m.received_counted_on else "-"
        flag = " (conditional)" if m.automatic else ""
        out.append(
            f"{m.ply:>4} {san:<8} {received:<10} {local_date(m.sent_at, tz).isoformat():<10} "
            f"{m.days}{flag}"
        )
    for p in g.penalties:
        out.append(f"penalty: {p.color} +{p.days} days ({p.reason}) at ply {p.ply_at}")
    return "\n".join(out) + "\n"


def pgn_of(session: Session, target: str) -> str:
    """PGN of one game (``INDEX/N``) or of every game of a tournament (``INDEX``)."""
    index, number = split_tag(target)
    if number is not None:
        return export_pgn(find_game(session, target)) + "\n"
    t = session.scalars(select(Tournament).where(Tournament.index == index)).first()
    if t is None:
        raise UnknownGameError(f"no tournament {index}")
    return "\n".join(export_pgn(g) + "\n" for g in t.games)


def tournament_of(session: Session, index: str) -> Tournament:
    """The tournament ``index``; :class:`UnknownGameError` if there is none."""
    t = session.scalars(select(Tournament).where(Tournament.index == index)).first()
    if t is None:
        raise UnknownGameError(f"no tournament {index}")
    return t


def crosstable_of(t: Tournament) -> Crosstable:
    """The crosstable of a tournament's players (those replaced are left out)."""
    games = [(g.white.key, g.black.key, g.result) for g in t.games]
    players = [(p.key, p.name) for p in t.players if p.replaced_by_id is None]
    return crosstable(players, games)


def matches_of(t: Tournament) -> list[Match]:
    """The team matches of a team event: the games of one round between two teams.

    The home team is the one with White on board 1 (004 art. 20).
    """
    rounds: dict[tuple[int | None, frozenset[int]], list[Game]] = {}
    for g in t.games:
        if g.white.team_id is None or g.black.team_id is None:
            continue
        rounds.setdefault((g.round, frozenset((g.white.team_id, g.black.team_id))), []).append(g)
    keys = {team.id: team.key for team in t.teams}
    matches: list[Match] = []
    for games in rounds.values():
        games.sort(key=lambda g: g.board or 0)
        home = games[0].white.team_id
        boards = [g.result if g.white.team_id == home else _flipped(g.result) for g in games]
        away = games[0].black.team_id
        assert home is not None and away is not None
        matches.append(Match(keys[home], keys[away], tuple(boards)))
    return matches


def _flipped(result: str | None) -> str | None:
    return {"1-0": "0-1", "0-1": "1-0", "+/-": "-/+", "-/+": "+/-"}.get(result or "", result)


def team_table_of(t: Tournament) -> TeamTable:
    """The team table of a team event."""
    return team_table([(team.key, team.name) for team in t.teams], matches_of(t))


def standings_of(session: Session, index: str) -> str:
    """The crosstable of tournament ``index``, or its team table, in its language."""
    t = tournament_of(session, index)
    finished = sum(1 for g in t.games if g.result)
    head = f"{t.index}  {t.name}: {finished} of {len(t.games)} games finished\n\n"
    if t.teams:
        return head + render_team_table(team_table_of(t), t.language)
    return head + render_crosstable(crosstable_of(t), t.language)
