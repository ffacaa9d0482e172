"""The whole game copied: a copy of the game's moves matched against its record
(docs/rules.md 2.4, "The whole game copied"; art. 7-8, 15, 21).

Players copy the game from their notebook, their chess program or the bot's
own mail and add their move at the end. :class:`Record` finds where such a
copy starts and matches it against the record move by move: numbers, marks and
notation do not matter (art. 21), only the moves. The match is one pass over
the text from each of a few starting plies (the one its first move number
gives, the ones its first two moves name), so it is linear in the copy's
length.

>>> import chess
>>> from mailbot.rules.notation import Notation, read_moves
>>> board = chess.Board()
>>> for uci in ("e2e4", "e7e5", "d2d4", "d7d5"):
...     board.push_uci(uci)
Move.from_uci('e2e4')
Move.from_uci('e7e5')
Move.from_uci('d2d4')
Move.from_uci('d7d5')
>>> copy = Record(board, Notation.EN).copy(read_moves("1. e4 e5 2. d4 d5 3. c4"))
>>> copy.start, [r.move_text for r in copy.rest], copy.difference
(0, ['c4'], None)
>>> Record(board, Notation.EN).copy(read_moves("1. e4 e5 2. d3 d5 3. c4")).difference.ply
2
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import chess

from mailbot.rules.interpretation import Interpreter, Position, promotion_fits
from mailbot.rules.notation import Castling, Notation, Reading, letter_meanings, reading_notation

__all__ = ["Copy", "Difference", "Record"]


@dataclasses.dataclass(frozen=True)
class Difference:
    """The first move where a copy and the record disagree."""

    #: The game's ply (0-based) where they differ.
    ply: int
    #: The copy's move there.
    written: Reading


@dataclasses.dataclass(frozen=True)
class Copy:
    """A copy of the game's moves from ``start`` up to the opponent's last move."""

    #: The first ply copied (0-based).
    start: int
    #: How many plies of the copy name the game's move.
    agreed: int
    #: How many do not.
    differed: int
    #: The copy's reading of the opponent's last move.
    last: Reading
    #: The readings after the copy: the player's move and what follows it.
    rest: tuple[Reading, ...]
    #: The first move that differs from the record, if any.
    difference: Difference | None


class Record:
    """The game's moves and the positions before them, for one message.

    ``board`` holds the game with its move stack; positions are made as the
    match needs them, from the current position backwards.
    """

    def __init__(
        self, board: chess.Board, notation: Notation, reader: Interpreter | None = None
    ) -> None:
        self.moves = list(board.move_stack)
        self.own = reading_notation(notation)
        self.reader = reader or Interpreter(notation)
        root = board.root()
        self._first_ply = 0 if root.turn == chess.WHITE else 1
        self._first_number = root.fullmove_number
        self._work = board.copy()
        self._positions: dict[int, Position] = {len(self.moves): Position(board.copy(stack=False))}

    def position(self, ply: int) -> Position:
        """The position before the game's ply ``ply`` (0-based); the current one at the end."""
        while ply not in self._positions:
            self._work.pop()
            self._positions[len(self._work.move_stack)] = Position(self._work.copy(stack=False))
        return self._positions[ply]

    def ply_of(self, number: int, black: bool) -> int:
        """The ply of move ``number`` of White or Black (0-based; may be out of the game)."""
        return 2 * (number - self._first_number) + int(black) - self._first_ply

    # Naming a move ---------------------------------------------------------------------------

    def names(self, reading: Reading, ply: int) -> bool:
        """Whether ``reading`` names the game's move at ``ply`` in the position before it.

        A letter is read in the game's notation first; in another notation only
        when it names no legal move in the game's own (as the referee reads a move).
        """
        move = self.moves[ply]
        board = self.position(ply).board
        if reading.castling is not None:
            if reading.castling is Castling.KINGSIDE:
                return board.is_kingside_castling(move)
            return board.is_queenside_castling(move)
        if reading.to_square != move.to_square or not promotion_fits(reading, move):
            return False
        piece = board.piece_type_at(move.from_square)
        letter = reading.piece_letter
        meanings = letter_meanings(letter) if letter is not None else {}
        if reading.from_square is not None:
            return reading.from_square == move.from_square and (
                letter is None or piece in meanings.values()
            )
        if not _fits_square(reading, move, piece):
            return False
        if letter is None:
            return piece == chess.PAWN
        own = meanings.get(self.own)
        if own == piece:
            return True
        if piece not in meanings.values():
            return False
        return own is None or not any(
            board.piece_type_at(m.from_square) == own and _fits_square(reading, m, own)
            for m in self.position(ply).legal
            if m.to_square == reading.to_square
        )

    # Matching a copy -------------------------------------------------------------------------

    def copy(self, readings: Sequence[Reading]) -> Copy | None:
        """The copy of the game that ``readings`` begin with, running up to the opponent's
        last move and starting at least one ply before it; None if they begin with none.

        A copy may differ from the record in one move for every four that agree; a
        copy whose first number gives its start, in one move however short it is; a
        copy without numbers needs two moves that agree.
        """
        end = len(self.moves)
        if end < 2 or len(readings) < 2:
            return None
        for start, numbered in self._starts(readings):
            found = self._match(readings, start)
            if found is None:
                continue
            needed = 1 if numbered else 2
            allowed = max(int(numbered), found.agreed // 4)
            if found.agreed >= needed and found.differed <= allowed:
                return found
        return None

    def _starts(self, readings: Sequence[Reading]) -> list[tuple[int, bool]]:
        """Where a copy may start: the ply its first number names, then the plies its
        first two moves name (at most as far back as the text is long)."""
        end = len(self.moves)
        starts: list[tuple[int, bool]] = []
        first = readings[0]
        if first.number is not None:
            blacks = (True,) if first.black_marker else (False, True)
            starts += [(self.ply_of(first.number, black), True) for black in blacks]
        earliest = max(0, end - 2 * len(readings))
        for offset, reading in enumerate(readings[:2]):
            units = reading.alternative[:1] if reading.alternative else ()
            for ply in range(max(earliest, offset), end - 1):
                if any(self.names(unit, ply) for unit in (reading, *units)):
                    starts.append((ply - offset, False))
        chosen: dict[int, bool] = {}
        for start, numbered in starts:
            if 0 <= start <= end - 2:
                chosen.setdefault(start, numbered)
        return list(chosen.items())

    def _match(self, readings: Sequence[Reading], start: int) -> Copy | None:
        """The copy of plies ``start`` to the opponent's last move, read from ``readings``,
        with its first difference; None when the text ends first or differs too often."""
        end = len(self.moves)
        index, pending = 0, None
        agreed, differences = 0, 0
        first: Difference | None = None
        unit: Reading | None = None
        for ply in range(start, end):
            if pending is not None:
                unit, pending = pending, None
            elif index < len(readings):
                unit, pending = self._unit(readings[index], ply)
                index += 1
            else:
                return None
            if self.names(unit, ply):
                agreed += 1
                if pending is None:
                    index = self._skip_same(readings, index, unit, ply)
            else:
                differences += 1
                if differences > 1 + agreed // 4:
                    return None
                first = first or Difference(ply, unit)
        assert unit is not None
        rest = ((pending,) if pending is not None else ()) + tuple(readings[index:])
        return Copy(start, agreed, differences, unit, rest, first)

    def _unit(self, reading: Reading, ply: int) -> tuple[Reading, Reading | None]:
        """The move a reading gives at ``ply``, and the next one when two squares separated
        by a space are two moves (``e4 e5``) rather than one (``e2 e4``)."""
        if reading.alternative is None or self.names(reading, ply):
            return reading, None
        first, second = reading.alternative
        if self.names(first, ply) or not self.reader.playable(reading, self.position(ply)):
            return first, second
        return reading, None

    def _skip_same(self, readings: Sequence[Reading], index: int, unit: Reading, ply: int) -> int:
        """Skip the readings from ``index`` on that write the move at ``ply`` again in
        another form (``e2-e4 (5254)``); castling after castling is a new move."""
        after = self.position(ply + 1)
        while index < len(readings):
            again = readings[index]
            if again.castling is not None and unit.castling is not None:
                break
            if not self.names(again, ply) or self.reader.playable(again, after):
                break
            index += 1
        return index


def _fits_square(reading: Reading, move: chess.Move, piece: chess.PieceType | None) -> bool:
    """Whether ``move`` fits what incomplete notation says of its from-square
    (``Nbd2``, ``R1e2``, ``exd5``; a pawn without a file moves straight)."""
    file, rank = chess.square_file(move.from_square), chess.square_rank(move.from_square)
    if reading.from_file is not None and file != reading.from_file:
        return False
    if reading.from_rank is not None and rank != reading.from_rank:
        return False
    return not (
        piece == chess.PAWN
        and reading.from_file is None
        and file != chess.square_file(move.to_square)
    )
