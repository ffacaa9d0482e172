"""Where the pieces stand, as a key: a position's diagrams and its moves' texts depend
on nothing else of the board (and on whose move it is, for a move), so each is drawn
or written once for the position and kept.

A placement is the board's masks of pawns, knights, bishops, rooks, queens and kings,
and of White's pieces: made far faster than a FEN, and told apart as surely::

    >>> import chess
    >>> board = chess.Board()
    >>> for san in ("Nf3", "Nf6", "Ng1", "Ng8"):
    ...     _ = board.push_san(san)
    >>> placement(board) == placement(chess.Board())
    True
    >>> _ = board.push_san("e4")
    >>> placement(board) == placement(chess.Board())
    False
"""

from __future__ import annotations

import chess

__all__ = ["Placement", "placement"]

#: Where the pieces stand: the board's masks of pawns, knights, bishops, rooks, queens,
#: kings, and of White's pieces.
Placement = tuple[int, int, int, int, int, int, int]


def placement(board: chess.BaseBoard) -> Placement:
    """The placement of ``board``'s pieces."""
    return (
        board.pawns,
        board.knights,
        board.bishops,
        board.rooks,
        board.queens,
        board.kings,
        board.occupied_co[chess.WHITE],
    )
