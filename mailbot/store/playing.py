"""The game as it is played: moves, draw offers, conditional lines, a player's digest.

Each operation changes one thing of a game (or a player) the way play does::

    >>> from mailbot.rules.result import Colour
    >>> from mailbot.store.models import Game
    >>> g = Game()
    >>> offer_draw(g, Colour.WHITE, 4); g.draw_offer_by, g.draw_offer_ply
    (<Colour.WHITE: 'white'>, 4)
    >>> clear_draw_offer(g); g.draw_offer_by, g.draw_offer_ply
    (None, None)
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from mailbot.rules.result import Colour
from mailbot.store.models import Game, Leave, LeaveCancellation, Move, Player

__all__ = [
    "charge_days",
    "clear_draw_offer",
    "cut_leave_short",
    "keep_conditionals",
    "mark_incomplete",
    "offer_draw",
    "record_move",
    "set_digest",
    "set_pgn",
    "set_warnings",
    "stamp_forwarded",
]


def offer_draw(g: Game, by: Colour, ply: int) -> None:
    """``by`` offers a draw after ply ``ply``; it stands until the opponent's next move."""
    g.draw_offer_by, g.draw_offer_ply = by, ply


def clear_draw_offer(g: Game) -> None:
    """No draw offer stands any more (declined, or lapsed with a move)."""
    g.draw_offer_by = g.draw_offer_ply = None


def record_move(g: Game, **fields: Any) -> Move:
    """A move played in ``g``, as the next ply."""
    row = Move(ply=len(g.moves) + 1, **fields)
    g.moves.append(row)
    return row


def charge_days(row: Move, days: int) -> None:
    """The days the move took are charged to it (003 part 1 art. 6g)."""
    row.days = days


def mark_incomplete(row: Move) -> None:
    """The move was written in incomplete notation (art. 7 note 2)."""
    row.incomplete = True


def stamp_forwarded(g: Game, at: datetime.datetime) -> None:
    """The game's last move went on to the opponent at ``at``."""
    g.last_forwarded_at = at


def keep_conditionals(g: Game, line: Sequence[str] | None, by: Colour | None) -> None:
    """The conditional line that stays pending in ``g`` (by ``by``), or none.

    >>> g = Game(); keep_conditionals(g, ["e2e4"], Colour.BLACK); g.pending_conditional
    ['e2e4']
    """
    g.pending_conditional = list(line) if line is not None else None
    g.pending_conditional_by = by


def cut_leave_short(leave: Leave, game_id: int, day: datetime.date) -> None:
    """A move sent during ``leave`` ends it in the game ``game_id`` from ``day`` (art. 46)."""
    leave.cancellations.append(LeaveCancellation(game_id=game_id, from_date=day))


def set_digest(player: Player, want: bool, now: datetime.datetime) -> None:
    """``player`` wants the moves in a digest (or not) from ``now`` on."""
    player.digest = want
    player.digest_sent_at = now


def set_warnings(player: Player, want: bool) -> None:
    """``player`` wants the warnings before a deadline (or not) from now on."""
    player.warnings = want


def set_pgn(player: Player, want: bool) -> None:
    """``player`` wants the game's PGN with each move mail (or not) from now on."""
    player.pgn = want
