"""What the command line shows: status of games, PGN, standings.

>>> split_tag("BG-2026-E1/7")
('BG-2026-E1', 7)
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Sequence
from zoneinfo import ZoneInfo

import chess
from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from mailbot.compose.diagram import text_diagram
from mailbot.compose.digests import NEAR
from mailbot.rules import clock
from mailbot.rules.errors import PublishError
from mailbot.rules.standings import (
    Crosstable,
    Match,
    TeamTable,
    crosstable,
    other_side,
    render_crosstable,
    render_team_table,
    team_table,
)
from mailbot.store.models import Claim, Game, Leave, Player, Tournament
from mailbot.store.outbox import bounced_moves
from mailbot.store.record import (
    Waiting,
    awarded_oversteps,
    board_of,
    color_name,
    control_of,
    export_pgn,
    history,
    local_date,
    profile_of,
    tag_of,
    totals,
    waiting,
)
from mailbot.store.startfields import INDEX_RULE, is_index


class UnknownGameError(PublishError, LookupError):
    """No game or tournament by that name."""


def split_tag(tag: str) -> tuple[str, int | None]:
    """``INDEX/N`` into its parts; a bare ``INDEX`` gives ``(INDEX, None)``."""
    index, slash, number = tag.strip().strip("[]").rpartition("/")
    if not slash:
        index, number = number, ""
    if not is_index(index):
        raise UnknownGameError(f"{tag}: a tournament index is {INDEX_RULE}")
    if not slash:
        return index, None
    if not (number.isascii() and number.isdigit()) or len(number) > 9:
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


#: ``mailbot status`` lists every game of a tournament of at most this many games; of a
#: bigger one, only the games that need the director (``mailbot status INDEX``: all).
OVERVIEW_GAMES = 100
#: At most this many games needing the director are listed per tournament by ``status``.
OVERVIEW_ATTENTION = 50


def overview(session: Session, now: datetime.datetime) -> str:
    """Every tournament: its games, whose move, both clocks.

    Each tournament has a line of counts (games, finished, in play, whose
    move, needing the director). A tournament of at most
    :data:`OVERVIEW_GAMES` games then lists every game, one line each as
    :func:`tournament_status` writes it; a bigger one lists only the games
    that need the director (:func:`attention`), the most urgent first and at
    most :data:`OVERVIEW_ATTENTION`, and says how to see them all; one whose
    games are all finished is its two lines. A federation's five thousand
    games are so a page, and a club's ten games are all there.
    """
    lines: list[str] = []
    for t in _tournaments(session):
        views = [_view(g, now) for g in t.games]
        lines.append(f"{t.index}  {t.name}  ({t.profile}, {t.start} to {_end(t)})")
        lines.append(f"  {_counts(views)}")
        playing = [v for v in views if v.game.result is None]
        if not playing:
            continue
        width = max(len(tag_of(g)) for g in t.games)
        if len(views) <= OVERVIEW_GAMES:
            lines.extend(f"  {v.line(width)}" for v in views)
            continue
        urgent = sorted((v for v in views if v.attention), key=lambda v: v.attention[0].due)
        shown = urgent[:OVERVIEW_ATTENTION]
        lines.extend(f"  {v.line(width)}" for v in shown)
        rest = len(playing) - sum(1 for v in shown if v.game.result is None)
        other = "other game" if rest == 1 else "other games"
        lines.append(f"  ({rest} {other} in play; every game: mailbot status {t.index})")
    if not lines:
        lines.append("no tournaments (import one with: mailbot tournament import FILE)")
    return "\n".join(lines) + "\n"


def game_status(session: Session, tag: str, now: datetime.datetime) -> str:
    """One game: the position, the clocks, every move with its dates and days; a move
    whose mail came back undelivered says so, with the day it came back."""
    g = find_game(session, tag)
    tz = ZoneInfo(g.tournament.timezone)
    board = board_of(g)
    sums = totals(g)
    out = [f"{tag_of(g)}  {g.white.name} – {g.black.name}  ({g.tournament.profile})"]
    if g.result:
        out.append(f"result {g.result} ({g.termination})")
    else:
        turn = "White" if board.turn == chess.WHITE else "Black"
        running = _running_days(g, now)
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
    bounced = bounced_moves(session, [g.id]).get(g.id, {})
    for m in g.moves:
        san = m.san  # as it was played
        received = m.received_counted_on.isoformat() if m.received_counted_on else "-"
        flag = " (conditional)" if m.automatic else ""
        if (came_back := bounced.get((m.ply, m.uci))) is not None:
            flag += f" (its mail came back undelivered on {local_date(came_back, tz).isoformat()})"
        out.append(
            f"{m.ply:>4} {san:<8} {received:<10} {local_date(m.sent_at, tz).isoformat():<10} "
            f"{m.days}{flag}"
        )
    for p in g.penalties:
        out.append(f"penalty: {p.color} +{p.days} days ({p.reason}) at ply {p.ply_at}")
    return "\n".join(out) + "\n"


def tournament_status(session: Session, index: str, now: datetime.datetime) -> str:
    """Every game of tournament ``index``, one line each, then the counts.

    A line gives the game's tag and players, then whose move it is, the days
    running on that move (leave days not counted) and the days left to the
    next time control (the days used on the moves before included), both
    players' time, and what needs the director (:func:`attention`); or the
    result of a finished game. Raises :class:`UnknownGameError` for an
    unknown index.
    """
    found = _tournaments(session, index)
    if not found:
        raise UnknownGameError(f"no tournament {index}")
    t = found[0]
    p = profile_of(t)
    views = [_view(g, now) for g in t.games]
    width = max((len(tag_of(g)) for g in t.games), default=0)
    out = [
        f"{t.index}  {t.name}  ({t.profile}: {p.days_per_control} days per "
        f"{p.moves_per_control} moves; {t.start} to {_end(t)})"
    ]
    out.extend(f"  {v.line(width)}" for v in views)
    out.append(_counts(views))
    return "\n".join(out) + "\n"


@dataclasses.dataclass(frozen=True)
class Attention:
    """Something in a game the director should see: a claim waiting for a decision,
    or a deadline (overstep, silence) that fell due or falls due within :data:`NEAR`."""

    #: When it fell or falls due (for a claim: when it was opened).
    due: datetime.datetime
    what: str


def attention(g: Game, now: datetime.datetime) -> list[Attention]:
    """What in ``g`` needs the director at ``now``, the earliest first.

    An open claim is listed alone: the game waits for its decision. Otherwise
    the player to move's overstep and silence deadlines count (as the sweep
    and the director's digest compute them, a delay notice protecting from
    silence) when they are past or at most :data:`NEAR` ahead.
    """
    return _attention(g, now, None if g.result else waiting(g))


def _attention(g: Game, now: datetime.datetime, w: Waiting | None) -> list[Attention]:
    tz = ZoneInfo(g.tournament.timezone)
    claims = [Attention(c.opened_at, _claim_words(c, tz)) for c in g.claims if c.status == "open"]
    if claims or w is None:
        return sorted(claims, key=lambda a: a.due)
    if w.since > now:
        return []
    moves, penalties = history(g, w.color)
    colour = color_name(w.color)
    found: list[Attention] = []
    overstep = clock.overstep_at(
        w.profile, moves, w.since, penalties, w.leaves, w.tz, awarded_oversteps(g, w.color)
    )
    if overstep is not None and overstep <= now + NEAR:
        found.append(Attention(overstep, _due_words(f"{colour}'s overstep", overstep, now, tz)))
    ply = len(g.moves)
    # a delay notice protects from silence (art. 25); where the silence loses only
    # after the repeat (art. 31), an unplayed first move is never repeated
    protected = any(d.color == colour and d.ply_at == ply for d in g.delays) or (
        ply == 0 and w.profile.silence_requires_repeat
    )
    silences = (
        (f"{colour}'s silence limit", clock.silence_due(w.profile, w.since, w.leaves, w.tz)),
        (
            f"{colour}'s silence, for the director to decide",
            clock.silence_report_due(w.profile, w.since, w.leaves, w.tz),
        ),
    )
    for what, due in silences:
        if due is not None and due <= now + NEAR and not protected:
            found.append(Attention(due, _due_words(what, due, now, tz)))
    return sorted(found, key=lambda a: a.due)


def _claim_words(c: Claim, tz: ZoneInfo) -> str:
    against = f" against {c.against}" if c.against else ""
    return f"{c.kind} claim{against} waiting since {local_date(c.opened_at, tz)}"


def _due_words(what: str, due: datetime.datetime, now: datetime.datetime, tz: ZoneInfo) -> str:
    when = "fell due" if due <= now else "due"
    return f"{what}: {when} {local_date(due, tz)}"


@dataclasses.dataclass(frozen=True)
class _View:
    """One game as the status lines show it."""

    game: Game
    state: str
    attention: Sequence[Attention]

    def line(self, width: int) -> str:
        g = self.game
        sums = totals(g)
        text = (
            f"{tag_of(g):<{width}}  {g.white.name} – {g.black.name}: ply {len(g.moves)}, "
            f"{self.state}; time White {sums.white}, Black {sums.black}"
        )
        if self.attention:
            text += " — " + "; ".join(a.what for a in self.attention)
        return text


def _view(g: Game, now: datetime.datetime) -> _View:
    if g.result:
        return _View(g, f"finished {g.result} ({g.termination})", ())
    w = waiting(g)
    running = _running_days(g, now, w)
    control = control_of(g, w.color, running)
    turn = "White" if w.color == chess.WHITE else "Black"
    if control.lost:
        left = (
            f"overstepped: {control.used_days} of {control.limit_days} days used "
            f"by move {control.next_control_move}"
        )
    else:
        left = (
            f"{control.days_left} of {control.limit_days} days left "
            f"to move {control.next_control_move}"
        )
    today = local_date(now, w.tz)
    away = [lv.end for lv in w.leaves if lv.start <= today <= lv.end]
    leave = f" (on leave until {max(away)})" if away else ""
    state = f"{turn} to move{leave}, {_days(running)} running, {left}"
    return _View(g, state, _attention(g, now, w))


def _counts(views: Sequence[_View]) -> str:
    finished = sum(1 for v in views if v.game.result)
    playing = [v for v in views if not v.game.result]
    if not playing:
        return f"all {len(views)} games finished" if views else "no games"
    white = sum(1 for v in playing if len(v.game.moves) % 2 == 0)
    needing = sum(1 for v in views if v.attention)
    return (
        f"{len(views)} games: {finished} finished, {len(playing)} in play "
        f"({white} White to move, {len(playing) - white} Black to move); "
        f"{needing} {'needs' if needing == 1 else 'need'} the director"
    )


def _days(n: int) -> str:
    return f"{n} day" if n == 1 else f"{n} days"


def _end(t: Tournament) -> str:
    return f"{t.extended_to} (extended)" if t.extended_to else str(t.end)


def _running_days(g: Game, now: datetime.datetime, w: Waiting | None = None) -> int:
    """Days running on the move being thought about, the player's leave not counted."""
    if g.result is not None:
        return 0
    w = w or waiting(g)
    if not g.moves:
        return clock.first_move_days(
            w.profile, g.tournament.start, max(now, w.since), w.leaves, w.tz
        )
    return clock.move_days(w.profile, w.since, max(now, w.since), w.leaves, w.tz)


def _tournaments(session: Session, index: str | None = None) -> list[Tournament]:
    """The tournaments (or the one ``index``) with everything the status lines read,
    loaded in a few queries rather than a few per game."""
    leaves = selectinload(Player.leaves).selectinload(Leave.cancellations)
    query = (
        select(Tournament)
        .order_by(Tournament.index)
        .options(
            selectinload(Tournament.games).options(
                selectinload(Game.moves),
                selectinload(Game.penalties),
                selectinload(Game.claims),
                selectinload(Game.delays),
                selectinload(Game.white).options(leaves),
                selectinload(Game.black).options(leaves),
            )
        )
    )
    if index is not None:
        query = query.where(Tournament.index == index)
    return list(session.scalars(query).all())


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
    """The tournament ``index``; :class:`UnknownGameError` if there is none, or if
    ``index`` could name a path outside its own folder (``..``, ``/``: a restored
    backup's index is checked here as the start list's is at import)."""
    if not is_index(index):
        raise UnknownGameError(f"{index}: a tournament index is {INDEX_RULE}")
    t = session.scalars(select(Tournament).where(Tournament.index == index)).first()
    if t is None:
        raise UnknownGameError(f"no tournament {index}")
    return t


def seats(t: Tournament) -> dict[int, str]:
    """Each player's line in the table, by player id: their own key, or for a player
    replaced under 003 part 1 art. 9 the key of the newcomer who took the place."""
    by_id = {p.id: p for p in t.players}
    out: dict[int, str] = {}
    for start in t.players:
        p, seen = start, {start.id}
        while p.replaced_by_id is not None and p.replaced_by_id not in seen:
            seen.add(p.replaced_by_id)
            p = by_id[p.replaced_by_id]
        out[start.id] = p.key
    return out


def crosstable_of(t: Tournament) -> Crosstable:
    """The crosstable of a tournament's players.

    A player replaced under 003 part 1 art. 9 has no line of their own: their
    finished games count for the line of the newcomer who took their place.
    """
    seat = seats(t)
    out = excluded(t)
    games = [
        (seat[g.white_id], seat[g.black_id], g.result)
        for g in t.games
        if not {g.white_id, g.black_id} & out
    ]
    players = [(p.key, p.name) for p in t.players if p.replaced_by_id is None and p.id not in out]
    return crosstable(players, games)


def excluded(t: Tournament) -> set[int]:
    """The players removed from the tournament: withdrawn without having sent a move
    (art. 47 A; their games are annulled, 003 part 1 art. 9)."""
    moved: set[int] = set()
    for g in t.games:
        for m in g.moves:
            if not m.automatic:
                moved.add(g.white_id if m.ply % 2 == 1 else g.black_id)
    return {p.id for p in t.players if p.withdrawn_at is not None and p.id not in moved}


@dataclasses.dataclass(frozen=True)
class MatchGames:
    """One team match and its games, board by board."""

    match: Match
    round: int | None
    games: tuple[Game, ...]


def match_games(t: Tournament) -> list[MatchGames]:
    """The team matches of a team event: the games of one round between two teams.

    The home team is the one with White on board 1 (004 art. 20); each board's
    result is written from its side.
    """
    rounds: dict[tuple[int | None, frozenset[int]], list[Game]] = {}
    for g in t.games:
        if g.white.team_id is None or g.black.team_id is None:
            continue
        rounds.setdefault((g.round, frozenset((g.white.team_id, g.black.team_id))), []).append(g)
    keys = {team.id: team.key for team in t.teams}
    out: list[MatchGames] = []
    for (round_, _), games in rounds.items():
        games.sort(key=lambda g: g.board or 0)
        home, away = games[0].white.team_id, games[0].black.team_id
        assert home is not None and away is not None
        boards = [g.result if g.white.team_id == home else other_side(g.result) for g in games]
        out.append(MatchGames(Match(keys[home], keys[away], tuple(boards)), round_, tuple(games)))
    return out


def matches_of(t: Tournament) -> list[Match]:
    """The team matches of a team event (see :func:`match_games`)."""
    return [m.match for m in match_games(t)]


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
