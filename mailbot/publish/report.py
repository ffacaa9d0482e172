"""What the command line shows: status of games, PGN, standings.

Each table is wholly in one language: the tournament's, or the one the
operator names (``--language``); the status lines are the catalogue's
``status.*`` phrases (:mod:`mailbot.compose.catalogue`), dates ISO as in the
standings and the PGN export.

>>> split_tag("BG-2026-E1/7")
('BG-2026-E1', 7)
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Sequence
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from mailbot.compose.catalogue import Phrase, has, say
from mailbot.compose.diagram import text_diagram
from mailbot.compose.digests import NEAR
from mailbot.rules import clock, due
from mailbot.rules.errors import PublishError
from mailbot.rules.game import Termination
from mailbot.rules.pgn import WORDS as PGN_WORDS
from mailbot.rules.result import Result
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
from mailbot.rules.tabletext import CROSSTABLE_WORDS
from mailbot.store.kinds import PenaltyReason
from mailbot.store.models import Claim, Game, Leave, Player, Tournament
from mailbot.store.outbox import bounced_moves
from mailbot.store.record import (
    Waiting,
    board_of,
    color_name,
    control_of,
    export_pgn,
    game_state,
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


def overview(session: Session, now: datetime.datetime, language: str | None = None) -> str:
    """Every tournament: its games, whose move, both clocks.

    Each tournament has a line of counts (games, finished, in play, whose
    move, needing the director). A tournament of at most
    :data:`OVERVIEW_GAMES` games then lists every game, one line each as
    :func:`tournament_status` writes it; a bigger one lists only the games
    that need the director (:func:`attention`), the most urgent first and at
    most :data:`OVERVIEW_ATTENTION`, and says how to see them all; one whose
    games are all finished is its two lines. A federation's five thousand
    games are so a page, and a club's ten games are all there.

    Each tournament's lines are in its own language, or all in ``language``
    when it is given (the line saying there is no tournament too; else English).
    """
    lines: list[str] = []
    for t in _tournaments(session):
        said = language or t.language
        views = [_view(g, now, said) for g in t.games]
        lines.append(
            _say(said, "overview", index=t.index, name=t.name, start=t.start, end=_end(t, said),
                 **_profile(t))
        )  # fmt: skip
        lines.append(f"  {_counts(views, said)}")
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
        lines.append(f"  {_say(said, 'more', rest=rest, command=f'mailbot status {t.index}')}")
    if not lines:
        command = "mailbot tournament import FILE"
        lines.append(_say(language or "en", "none", command=command))
    return "\n".join(lines) + "\n"


def game_status(
    session: Session, tag: str, now: datetime.datetime, language: str | None = None
) -> str:
    """One game: the position, the clocks, every move with its dates and days; a move
    whose mail came back undelivered says so, with the day it came back. In
    ``language``, else the tournament's."""
    g = find_game(session, tag)
    said = language or g.tournament.language
    tz = ZoneInfo(g.tournament.timezone)
    board = board_of(g)
    sums = totals(g)
    out = [
        _say(said, "game", tag=tag_of(g), white_player=g.white.name, black_player=g.black.name,
             **_profile(g.tournament))
    ]  # fmt: skip
    if g.result:
        out.append(_ended(g, said, "result"))
    else:
        running = _running_days(g, now)
        state = control_of(g, board.turn, running)
        out.append(
            _say(said, "clock", colour=color_name(board.turn), running=running,
                 move=state.next_control_move, used=state.used_days, limit=state.limit_days)
        )  # fmt: skip
    out.append(_say(said, "used", white_days=sums.white, black_days=sums.black))
    out.append("")
    out.append(text_diagram(board))
    out.append("")
    heads = {k: _say(said, f"column.{k}") for k in ("ply", "move", "received", "sent", "days")}
    ply_w, move_w = max(4, len(heads["ply"])), max(8, len(heads["move"]))
    date_w = max(10, len(heads["received"]), len(heads["sent"]))
    out.append(
        f"{heads['ply']:>{ply_w}} {heads['move']:<{move_w}} {heads['received']:<{date_w}} "
        f"{heads['sent']:<{date_w}} {heads['days']}"
    )
    bounced = bounced_moves(session, [g.id]).get(g.id, {})
    for m in g.moves:
        san = m.san  # as it was played
        received = m.received_counted_on.isoformat() if m.received_counted_on else "-"
        flag = _say(said, "conditional") if m.automatic else ""
        if (came_back := bounced.get((m.ply, m.uci))) is not None:
            flag += _say(said, "bounced", day=local_date(came_back, tz).isoformat())
        sent = local_date(m.sent_at, tz).isoformat()
        out.append(
            f"{m.ply:>{ply_w}} {san:<{move_w}} {received:<{date_w}} {sent:<{date_w}} {m.days}{flag}"
        )
    for p in g.penalties:
        out.append(
            _say(said, "penalty", colour=p.color, side=p.color, days=p.days, ply=p.ply_at,
                 reason=_penalty_reason(p.reason))
        )  # fmt: skip
    return "\n".join(out) + "\n"


def _penalty_reason(reason: str) -> Phrase | str:
    """A penalty's stored reason as its phrase; one no longer given, as it is kept."""
    try:
        return Phrase(f"penalty-reason.{PenaltyReason(reason).code}")
    except ValueError:
        return reason


def tournament_status(
    session: Session, index: str, now: datetime.datetime, language: str | None = None
) -> str:
    """Every game of tournament ``index``, one line each, then the counts.

    A line gives the game's tag and players, then whose move it is, the days
    running on that move (leave days not counted) and the days left to the
    next time control (the days used on the moves before included), both
    players' time, and what needs the director (:func:`attention`); or the
    result of a finished game. In ``language``, else the tournament's.
    Raises :class:`UnknownGameError` for an unknown index.
    """
    found = _tournaments(session, index)
    if not found:
        raise UnknownGameError(f"no tournament {index}")
    t = found[0]
    said = language or t.language
    p = profile_of(t)
    views = [_view(g, now, said) for g in t.games]
    width = max((len(tag_of(g)) for g in t.games), default=0)
    out = [
        _say(said, "head", index=t.index, name=t.name, days=p.days_per_control,
             moves=p.moves_per_control, start=t.start, end=_end(t, said), **_profile(t))
    ]  # fmt: skip
    out.extend(f"  {v.line(width)}" for v in views)
    out.append(_counts(views, said))
    return "\n".join(out) + "\n"


@dataclasses.dataclass(frozen=True)
class Attention:
    """Something in a game the director should see: a claim waiting for a decision,
    or a deadline (overstep, silence) that fell due or falls due within :data:`NEAR`."""

    #: When it fell or falls due (for a claim: when it was opened).
    due: datetime.datetime
    what: str


def attention(g: Game, now: datetime.datetime, language: str = "en") -> list[Attention]:
    """What in ``g`` needs the director at ``now``, the earliest first, in ``language``.

    An open claim is listed alone: the game waits for its decision. Otherwise
    the player to move's overstep and silence deadlines count (as the sweep
    and the director's digest compute them, a delay notice protecting from
    silence) when they are past or at most :data:`NEAR` ahead.
    """
    return _attention(g, now, None if g.result else waiting(g), language)


#: The deadlines of the player to move that the director should see, and their phrases.
_ATTENDED = {
    due.DueKind.OVERSTEP: "overstep",
    due.DueKind.SILENCE: "silence",
    due.DueKind.SILENCE_REPORT: "silence-report",
}


def _attention(
    g: Game, now: datetime.datetime, w: Waiting | None, language: str
) -> list[Attention]:
    tz = ZoneInfo(g.tournament.timezone)
    claims = [
        Attention(c.opened_at, _claim_words(c, tz, language))
        for c in g.claims
        if c.status == "open"
    ]
    if claims or w is None:
        return sorted(claims, key=lambda a: a.due)
    if w.since > now:
        return []
    colour = color_name(w.color)
    found: list[Attention] = []
    seen: set[due.DueKind] = set()
    # the sweep's own reading (rules.due.schedule): a delay notice protecting from
    # silence (art. 25), no silence before the first move where it follows a repeat
    # (art. 31), nothing after play stops; the first overstep of the move alone
    for d in due.schedule(game_state(g)):
        kind = _ATTENDED.get(d.kind)
        if kind is None or d.kind in seen or d.at > now + NEAR:
            continue
        seen.add(d.kind)
        when = "past" if d.at <= now else "ahead"
        day = local_date(d.at, tz).isoformat()
        words = _say(language, f"due.{kind}.{when}", colour=colour, side=colour, day=day)
        found.append(Attention(d.at, words))
    return found


def _claim_words(c: Claim, tz: ZoneInfo, language: str) -> str:
    what = Phrase(f"status.claim-kind.{c.kind}")
    day = local_date(c.opened_at, tz).isoformat()
    if c.against:
        return _say(language, "claim-against", what=what, colour=c.against, side=c.against, day=day)
    return _say(language, "claim", what=what, day=day)


@dataclasses.dataclass(frozen=True)
class _View:
    """One game as the status lines show it, in ``language``."""

    game: Game
    state: str
    attention: Sequence[Attention]
    language: str = "en"

    def line(self, width: int) -> str:
        g = self.game
        sums = totals(g)
        text = _say(
            self.language, "line", tag=f"{tag_of(g):<{width}}", white_player=g.white.name,
            black_player=g.black.name, ply=len(g.moves), state=self.state,
            white_days=sums.white, black_days=sums.black,
        )  # fmt: skip
        if self.attention:
            text += " — " + "; ".join(a.what for a in self.attention)
        return text


def _view(g: Game, now: datetime.datetime, language: str = "en") -> _View:
    if g.result:
        return _View(g, _ended(g, language, "finished"), (), language)
    w = waiting(g)
    running = _running_days(g, now, w)
    control = control_of(g, w.color, running)
    if control.lost:
        left = _say(language, "overstepped", used=control.used_days, limit=control.limit_days,
                    move=control.next_control_move)  # fmt: skip
    else:
        left = _say(language, "left", left=control.days_left, limit=control.limit_days,
                    move=control.next_control_move)  # fmt: skip
    today = local_date(now, w.tz)
    away = [lv.end for lv in w.leaves if lv.start <= today <= lv.end]
    leave = _say(language, "on-leave", day=max(away).isoformat()) if away else ""
    state = _say(language, "to-move", colour=color_name(w.color), leave=leave, running=running,
                 left=left)  # fmt: skip
    return _View(g, state, _attention(g, now, w, language), language)


def _counts(views: Sequence[_View], language: str) -> str:
    finished = sum(1 for v in views if v.game.result)
    playing = [v for v in views if not v.game.result]
    if not playing:
        return _say(language, "count.all-finished" if views else "count.none", games=len(views))
    white = sum(1 for v in playing if len(v.game.moves) % 2 == 0)
    needing = sum(1 for v in views if v.attention)
    return _say(language, "count.games", games=len(views), finished=finished,
                playing=len(playing), white=white, black=len(playing) - white,
                needing=needing)  # fmt: skip


def _say(language: str, code: str, **details: object) -> str:
    """The status phrase ``status.CODE`` in ``language``.

    >>> _say("ru", "left", left=46, limit=50, move=10)
    'осталось 46 из 50 дней до хода 10'
    """
    return say(language, Phrase(f"status.{code}", details))


def _profile(t: Tournament) -> dict[str, object]:
    """The tournament's rules: its profile's name (``bg-email``), and the words for it."""
    rules = Phrase(f"profile.{t.profile}") if has("en", f"profile.{t.profile}") else t.profile
    return {"profile": t.profile, "rules": rules}


def _ended(g: Game, language: str, code: str) -> str:
    """A finished game's result and how it ended (the PGN's words for it)."""
    if g.result == Result.ANNULLED:
        return _say(language, "annulled")
    try:
        ending = PGN_WORDS.get(language, PGN_WORDS["en"]).endings[Termination(g.termination)]
    except ValueError:
        ending = g.termination or ""
    if not ending:
        return _say(language, f"{code}-bare", result=g.result)
    return _say(language, code, result=g.result, ending=ending)


def _end(t: Tournament, language: str) -> str:
    if t.extended_to:
        return _say(language, "extended", day=t.extended_to.isoformat())
    return str(t.end)


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


def standings_of(session: Session, index: str, language: str | None = None) -> str:
    """The crosstable of tournament ``index``, or its team table, wholly in one
    language: ``language``, else the tournament's."""
    t = tournament_of(session, index)
    language = language or t.language
    finished = sum(1 for g in t.games if g.result)
    said = CROSSTABLE_WORDS.get(language, CROSSTABLE_WORDS["en"])["finished"]
    head = f"{t.index}  {t.name}: {said.format(finished=finished, games=len(t.games))}\n\n"
    if t.teams:
        return head + render_team_table(team_table_of(t), language)
    return head + render_crosstable(crosstable_of(t), language)
