"""``GetMyGames``: a player's games as Xfcc lists them.

The player's unfinished games and those finished in the last
:data:`FINISHED_DAYS` days, across every tournament they play from that
address. ``id`` is the game's row number in the store (a backup keeps it);
the tags are those of ``mailbot pgn``; the clocks are the time left to the
next control (to the minute for the player to move, whole days for the other,
whose clock stands); ``message`` is what the opponent wrote beside their last move.
"""

from __future__ import annotations

import datetime

import chess
from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from mailbot.compose.digests import words_of
from mailbot.publish.site import game_page
from mailbot.rules import clock, due
from mailbot.rules.result import Result
from mailbot.store.models import Game, Player
from mailbot.store.queries import players_writing_from
from mailbot.store.record import (
    color_name,
    color_of,
    control_of,
    game_state,
    pgn_record,
    profile_of,
    waiting,
)
from mailbot.xfcc.soap import Clock, GameResult, XfccGame

#: Finished games stay listed this long.
FINISHED_DAYS = 30

_RESULTS = {
    Result.WHITE_WINS: GameResult.WHITE_WINS,
    Result.BLACK_WINS: GameResult.BLACK_WINS,
    Result.DRAW: GameResult.DRAW,
    Result.WHITE_WINS_BY_FORFEIT: GameResult.BLACK_DEFAULTED,
    Result.BLACK_WINS_BY_FORFEIT: GameResult.WHITE_DEFAULTED,
    Result.ANNULLED: GameResult.CANCELLED,
}


def games_of(
    session: Session, address: str, now: datetime.datetime, site_url: str | None = None
) -> list[XfccGame]:
    """``address``'s games for ``GetMyGames`` at ``now``; ``site_url``, where the
    tournaments' pages are published (``URL/INDEX/game-N.html``), if anywhere."""
    players = {p.id: p for p in players_writing_from(session, address)}
    if not players:
        return []
    since = now - datetime.timedelta(days=FINISHED_DAYS)
    rows = session.scalars(
        select(Game)
        .where(or_(Game.white_id.in_(players), Game.black_id.in_(players)))
        .where(or_(Game.result.is_(None), Game.ended_at >= since))
        .order_by(Game.id)
    )
    return [listed(g, players.get(g.white_id) or players[g.black_id], now, site_url) for g in rows]


def _clock(g: Game, color: chess.Color, now: datetime.datetime) -> Clock:
    """Time left to ``color``'s next control: for the player to move, to the instant
    their clock would overstep it (:func:`mailbot.rules.due.schedule`); for the other,
    whose clock stands, the whole days left."""
    if g.result is None and len(g.moves) % 2 == (0 if color == chess.WHITE else 1):
        ahead = [d.at for d in due.schedule(game_state(g))
                 if d.kind is due.DueKind.OVERSTEP and d.at > now]  # fmt: skip
        if ahead:
            return Clock.of(min(ahead) - now)
        w = waiting(g)
        running = clock.move_days(w.profile, w.since, max(now, w.since), w.leaves, w.tz)
        return Clock.of(datetime.timedelta(days=max(0, control_of(g, color, running).days_left)))
    return Clock.of(datetime.timedelta(days=max(0, control_of(g, color).days_left)))


def movetext(g: Game) -> str:
    """The game's moves in SAN, numbered (``1. e4 e5 2. Nf3``)."""
    board = chess.Board()
    return board.variation_san([chess.Move.from_uci(m.uci) for m in g.moves])


def listed(g: Game, me: Player, now: datetime.datetime, site_url: str | None) -> XfccGame:
    """``g`` as ``me`` sees it in ``GetMyGames``."""
    record = pgn_record(g)
    mine = color_of(g, me)
    profile = profile_of(g.tournament)
    theirs = [m for m in g.moves if (m.ply % 2 == 0) == (mine == chess.WHITE)]
    offered = g.draw_offer_by == color_name(not mine)
    link = ""
    if site_url:
        link = f"{site_url.rstrip('/')}/{g.tournament.index}/{game_page(g.number)}"
    return XfccGame(
        id=g.id,
        event=record.event,
        site=record.site,
        event_date=record.start,
        round=record.round,
        white=record.white,
        black=record.black,
        white_elo=g.white.rating,
        black_elo=g.black.rating,
        time_control=f"{profile.moves_per_control}/{profile.days_per_control * 86400}",
        moves=movetext(g),
        my_turn=g.result is None and len(g.moves) % 2 == (0 if mine == chess.WHITE else 1),
        has_white=mine == chess.WHITE,
        draw_offered=g.result is None and offered,
        player=_clock(g, mine, now),
        opponent=_clock(g, not mine, now),
        result=GameResult.ONGOING if g.result is None else _RESULTS[Result(g.result)],
        message=words_of(theirs[-1]) if theirs else "",
        game_link=link,
    )
