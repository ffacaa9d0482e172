"""Playing a move, and what conditional lines play after it (003 part 1 art. 6g, art. 32).

Pure: a board and the two players' conditional lines in, the plies played
out. A player's message may carry a move and the line they expect to follow
(``12. Кg1-f3 Кb8-c6 13. d2-d4``); the opponent may have left such a line
before. :func:`walk` plays the new move, then, as long as the opponent's line
answers it, the opponent's reply, and the mover's own next move if the
mover's line foresaw that reply::

    >>> import chess
    >>> board = chess.Board()
    >>> mine = [chess.Move.from_uci(u) for u in ("e2e4", "e7e5", "g1f3")]
    >>> done = walk(board, mine, theirs=["e2e4", "e7e5", "g1f3", "b8c6"])
    >>> [(p.move.uci(), p.automatic) for p in done.plies]
    [('e2e4', False), ('e7e5', True), ('g1f3', False), ('b8c6', True)]
    >>> done.theirs_left, done.mine_left, done.end is None
    ((), (), True)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import chess

from mailbot.rules import game

__all__ = ["Ply", "Walk", "walk"]


@dataclasses.dataclass(frozen=True)
class Ply:
    """One half-move played: by the mover (``automatic`` False) or by the opponent's line."""

    move: chess.Move
    san: str
    automatic: bool


@dataclasses.dataclass(frozen=True)
class Walk:
    """What one message's move played.

    ``theirs_left`` is what remains of the opponent's conditional line (in
    UCI, the mover's expected reply first), ``mine_left`` what remains of the
    mover's own line after the plies played; ``end`` the game's end if a ply
    ended it.
    """

    plies: tuple[Ply, ...]
    end: game.GameEnd | None
    theirs_left: tuple[str, ...]
    mine_left: tuple[chess.Move, ...]

    @property
    def own(self) -> tuple[Ply, ...]:
        """The mover's plies (the last one is charged the days, 003 part 1 art. 6g)."""
        return tuple(p for p in self.plies if not p.automatic)

    @property
    def automatic(self) -> tuple[Ply, ...]:
        return tuple(p for p in self.plies if p.automatic)


def walk(board: chess.Board, mine: Sequence[chess.Move], theirs: Sequence[str]) -> Walk:
    """Play ``mine[0]`` on ``board`` (which it changes), and what the lines play after it.

    ``mine`` is the new move and the mover's conditional line; ``theirs`` the
    opponent's standing line in UCI, which applies only if it starts with the
    new move.
    """
    plies: list[Ply] = []
    rest = list(mine)
    line = list(theirs)
    end: game.GameEnd | None = None

    def push(move: chess.Move, automatic: bool) -> game.GameEnd | None:
        plies.append(Ply(move, board.san(move), automatic))
        board.push(move)
        return game.end_after_move(board)

    move = rest.pop(0)
    while True:
        end = push(move, automatic=False)
        if end is not None:
            return Walk(tuple(plies), end, (), ())
        # the opponent's conditional line answers this move?
        if len(line) < 2 or line[0] != move.uci():
            return Walk(tuple(plies), None, (), tuple(rest))
        answer = chess.Move.from_uci(line[1])
        if answer not in board.legal_moves:
            return Walk(tuple(plies), None, (), tuple(rest))
        end = push(answer, automatic=True)
        line = line[2:]
        if end is not None:
            return Walk(tuple(plies), end, (), ())
        # the mover's own line continues after that reply?
        if len(rest) >= 2 and rest[0] == answer and rest[1] in board.legal_moves:
            move = rest[1]
            rest = rest[2:]
            continue
        return Walk(tuple(plies), None, tuple(line), ())
