"""What the endgame tablebases say of a position (003 part 1 art. 1a, 11b).

A federation that decides claims by the tables installs Syzygy files (the
3-5 piece set is about 1 GB, the 6 piece set 150 GB, the 7 piece set 17 TB)
and names their folder in the configuration (``tablebases``). The bot reads
the tables with python-chess (:mod:`chess.syzygy`) and puts their verdict in
the claim packet; the director decides. Without tables the packet says so.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from pathlib import Path

import chess
import chess.syzygy


class TablebaseOutcome(enum.Enum):
    """The tables' verdict on a position, from White's side."""

    WHITE_WINS = "white-wins"
    DRAW = "draw"
    BLACK_WINS = "black-wins"


@dataclasses.dataclass(frozen=True)
class TablebaseVerdict:
    """What the tables say of one position, or why they say nothing.

    ``outcome`` is None when no tables are installed (``installed`` false) or
    when the installed ones lack this position's table.
    """

    installed: bool
    pieces: int
    outcome: TablebaseOutcome | None = None
    #: A win that the fifty-move rule would turn into a draw under FIDE rules
    #: (Syzygy's cursed win or blessed loss); a win under the ICCF rule.
    cursed: bool = False
    #: Distance to zeroing the fifty-move counter (Syzygy DTZ), when read.
    dtz: int | None = None

    def result(self) -> str | None:
        """The result the tables give, as a PGN result, or None."""
        return {
            TablebaseOutcome.WHITE_WINS: "1-0",
            TablebaseOutcome.DRAW: "1/2-1/2",
            TablebaseOutcome.BLACK_WINS: "0-1",
            None: None,
        }[self.outcome]


def probe(board: chess.Board, folder: str | None) -> TablebaseVerdict:
    """The tables' verdict on ``board`` from the Syzygy files in ``folder``.

    >>> probe(chess.Board("8/8/4k3/8/8/3QK3/8/8 w - - 0 70"), None)
    TablebaseVerdict(installed=False, pieces=3, outcome=None, cursed=False, dtz=None)
    """
    pieces = chess.popcount(board.occupied)
    if not folder:
        return TablebaseVerdict(False, pieces)
    tables = _open(folder)
    try:
        wdl = tables.probe_wdl(board)
    except (chess.syzygy.MissingTableError, KeyError):
        return TablebaseVerdict(True, pieces)
    try:
        dtz: int | None = tables.probe_dtz(board)
    except (chess.syzygy.MissingTableError, KeyError):
        dtz = None
    # wdl is from the side to move: 2 win, 1 cursed win, 0 draw, -1 blessed loss, -2 loss
    if wdl == 0:
        outcome = TablebaseOutcome.DRAW
    else:
        mover_wins = wdl > 0
        white_wins = mover_wins == (board.turn == chess.WHITE)
        outcome = TablebaseOutcome.WHITE_WINS if white_wins else TablebaseOutcome.BLACK_WINS
    return TablebaseVerdict(True, pieces, outcome, cursed=abs(wdl) == 1, dtz=dtz)


@functools.lru_cache(maxsize=4)
def _open(folder: str) -> chess.syzygy.Tablebase:
    """The tables of ``folder``, opened once per process (the files are memory-mapped)."""
    tables = chess.syzygy.Tablebase()
    if Path(folder).is_dir():
        tables.add_directory(folder)
    return tables
