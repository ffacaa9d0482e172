"""Interpretation: one reading of a move held against a position.

A :class:`~mailbot.rules.notation.Reading` says what the text could mean in
each notation family (letters of either language, ICCF numeric, castling);
the :class:`Interpreter` finds the legal moves it fits in the position, and
what the written piece, squares and move number say against them.

    >>> [m.uci() for m in legal_moves_of_piece(chess.Board(), chess.B1)]
    ['b1c3', 'b1a3']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import chess

from mailbot.rules.notation import (
    Castling,
    Notation,
    Reading,
    letter_for,
    letter_meanings,
    promotion_meanings,
    reading_notation,
    write_move,
)
from mailbot.rules.verdicts import Judgement, Reminder, Verdict, judgement_of, reminder_of

__all__ = ["Interpreter", "Position", "legal_moves_of_piece", "promotion_fits"]


def legal_moves_of_piece(board: chess.Board, square: chess.Square) -> tuple[chess.Move, ...]:
    """The legal moves of the piece on ``square`` (none for an empty square or the wrong side).

    >>> [m.uci() for m in legal_moves_of_piece(chess.Board(), chess.G1)]
    ['g1h3', 'g1f3']
    """
    return tuple(move for move in board.legal_moves if move.from_square == square)


class Position:
    """A board and, computed once, its legal moves."""

    __slots__ = ("_legal", "board")

    def __init__(self, board: chess.Board) -> None:
        self.board = board
        self._legal: tuple[chess.Move, ...] | None = None

    @property
    def legal(self) -> tuple[chess.Move, ...]:
        if self._legal is None:
            self._legal = tuple(self.board.legal_moves)
        return self._legal

    def after(self, move: chess.Move) -> Position:
        board = self.board.copy(stack=False)
        board.push(move)
        return Position(board)


@dataclasses.dataclass(frozen=True)
class _Meaning:
    """What one reading means in one position."""

    #: The verdict on the reading as the player's move: LEGAL or INCOMPLETE with the
    #: move, IMPOSSIBLE or UNCLEAR.
    judgement: Judgement
    #: Every legal move the reading could name in any notation (for repetitions and duplicates).
    candidates: frozenset[chess.Move]


def _colour(color: chess.Color) -> str:
    return "white" if color == chess.WHITE else "black"


def _name(piece_type: chess.PieceType) -> str:
    return chess.piece_name(piece_type)


def _written(position: Position, moves: Sequence[chess.Move], notation: Notation) -> str:
    return ", ".join(write_move(position.board, move, notation) for move in moves)


class Interpreter:
    """Reads :class:`Reading` values in positions of one game."""

    def __init__(self, notation: Notation) -> None:
        self.notation = notation
        self.own = reading_notation(notation)
        self._cache: dict[tuple[Reading, Position], _Meaning] = {}

    def meaning(self, reading: Reading, position: Position) -> _Meaning:
        key = (reading, position)
        found = self._cache.get(key)
        if found is None:
            if reading.castling is not None:
                found = self._castling(reading, position)
            elif reading.from_square is not None:
                found = self._full(reading, position)
            else:
                found = self._incomplete(reading, position)
            self._cache[key] = found
        return found

    def denotes(self, reading: Reading, position: Position, move: chess.Move) -> bool:
        return move in self.meaning(reading, position).candidates

    def playable(self, reading: Reading, position: Position) -> bool:
        return bool(self.meaning(reading, position).candidates)

    # Results -------------------------------------------------------------------------------

    def _impossible(
        self,
        code: str,
        reading: Reading,
        details: Mapping[str, str],
        position: Position,
        alternatives: Sequence[chess.Move] = (),
        candidates: frozenset[chess.Move] = frozenset(),
    ) -> _Meaning:
        all_details = {**details, "legal": _written(position, alternatives, self.notation)}
        judgement = judgement_of(
            Verdict.IMPOSSIBLE,
            code,
            all_details,
            alternatives=alternatives,
            written=reading.move_text,
        )
        return _Meaning(judgement, candidates)

    def _unclear(
        self,
        code: str,
        reading: Reading,
        moves: Sequence[chess.Move],
        position: Position,
        details: Mapping[str, str],
        candidates: frozenset[chess.Move],
    ) -> _Meaning:
        all_details = {**details, "moves": _written(position, moves, self.notation)}
        judgement = judgement_of(
            Verdict.UNCLEAR, code, all_details, alternatives=moves, written=reading.move_text
        )
        return _Meaning(judgement, candidates)

    def _played(
        self,
        move: chess.Move,
        reading: Reading,
        position: Position,
        reminders: Sequence[Reminder],
        candidates: frozenset[chess.Move],
    ) -> _Meaning:
        incomplete = [
            r for r in reminders if r.code in ("incomplete-notation", "missing-piece-letter")
        ]
        details = {
            "move": reading.move_text,
            "played": write_move(position.board, move, self.notation),
        }
        verdict, code = (
            (Verdict.INCOMPLETE, incomplete[0].code) if incomplete else (Verdict.LEGAL, "legal")
        )
        judgement = judgement_of(
            verdict, code, details, move=move, reminders=reminders, written=reading.move_text
        )
        return _Meaning(judgement, candidates)

    # Reminders -----------------------------------------------------------------------------

    def _other_letter(self, letter: str, piece_type: chess.PieceType) -> Reminder:
        meanings = letter_meanings(letter) or promotion_meanings(letter)
        where = next(n for n, t in meanings.items() if t == piece_type)
        return reminder_of(
            "letter-from-other-notation",
            {
                "letter": letter,
                "piece": _name(piece_type),
                "notation": where.value,
                "expected": letter_for(piece_type, self.notation),
            },
        )

    def _full_form(
        self, code: str, reading: Reading, position: Position, move: chess.Move
    ) -> Reminder:
        piece_type = position.board.piece_type_at(move.from_square)
        assert piece_type is not None
        return reminder_of(
            code,
            {
                "move": reading.move_text,
                "piece": _name(piece_type),
                "full": write_move(position.board, move, self.notation),
            },
        )

    # Castling ------------------------------------------------------------------------------

    def _castling(self, reading: Reading, position: Position) -> _Meaning:
        board = position.board
        kingside = reading.castling is Castling.KINGSIDE
        moves = [
            move
            for move in position.legal
            if (board.is_kingside_castling(move) if kingside else board.is_queenside_castling(move))
        ]
        if moves:
            return self._played(moves[0], reading, position, (), frozenset(moves))
        king = board.king(board.turn)
        alternatives = legal_moves_of_piece(board, king) if king is not None else ()
        details = {"move": reading.move_text, "side": "short" if kingside else "long"}
        return self._impossible("castling-not-allowed", reading, details, position, alternatives)

    # Full notation -------------------------------------------------------------------------

    def _full(self, reading: Reading, position: Position) -> _Meaning:
        board = position.board
        assert reading.from_square is not None and reading.to_square is not None
        origin, target = reading.from_square, reading.to_square
        details = {
            "move": reading.move_text,
            "square": chess.square_name(origin),
            "to": chess.square_name(target),
        }
        piece = board.piece_at(origin)
        if piece is None:
            return self._impossible("no-piece", reading, details, position)
        details["piece"] = _name(piece.piece_type)
        if piece.color != board.turn:
            details.update(colour=_colour(piece.color), turn=_colour(board.turn))
            return self._impossible("wrong-colour", reading, details, position)
        from_here = [move for move in position.legal if move.from_square == origin]
        matching = [move for move in from_here if move.to_square == target]
        reminders: list[Reminder] = []
        letter = reading.piece_letter
        if letter is not None:
            meanings = letter_meanings(letter)
            if piece.piece_type not in meanings.values():
                details["letter"] = letter
                return self._impossible("letter-mismatch", reading, details, position, from_here)
            if meanings.get(self.own) != piece.piece_type:
                reminders.append(self._other_letter(letter, piece.piece_type))
        if not matching:
            return self._illegal(reading, position, piece, details, from_here)
        if letter is None and piece.piece_type != chess.PAWN and not reading.numeric:
            reminders.insert(
                0, self._full_form("missing-piece-letter", reading, position, matching[0])
            )
        candidates = frozenset(move for move in matching if promotion_fits(reading, move))
        if matching[0].promotion is None:
            if reading.promotion_letter is not None:
                return self._impossible("not-a-promotion", reading, details, position, from_here)
            return self._played(matching[0], reading, position, reminders, candidates)
        chosen = self._promotion(reading, position, matching, details, candidates)
        if isinstance(chosen, _Meaning):
            return chosen
        move, reminder = chosen
        if reminder is not None:
            reminders.append(reminder)
        return self._played(move, reading, position, reminders, candidates)

    def _illegal(
        self,
        reading: Reading,
        position: Position,
        piece: chess.Piece,
        details: dict[str, str],
        from_here: Sequence[chess.Move],
    ) -> _Meaning:
        assert reading.from_square is not None and reading.to_square is not None
        origin, target = reading.from_square, reading.to_square
        if (
            piece.piece_type == chess.KING
            and origin in (chess.E1, chess.E8)
            and chess.square_rank(origin) == chess.square_rank(target)
            and abs(chess.square_file(origin) - chess.square_file(target)) == 2
        ):
            details["side"] = "short" if target > origin else "long"
            return self._impossible("castling-not-allowed", reading, details, position, from_here)
        probe = chess.Move(origin, target)
        if piece.piece_type == chess.PAWN and chess.square_rank(target) in (0, 7):
            probe = chess.Move(origin, target, chess.QUEEN)
        code = "king-in-check" if position.board.is_pseudo_legal(probe) else "illegal-for-piece"
        return self._impossible(code, reading, details, position, from_here)

    def _promotion(
        self,
        reading: Reading,
        position: Position,
        moves: Sequence[chess.Move],
        details: Mapping[str, str],
        candidates: frozenset[chess.Move],
    ) -> tuple[chess.Move, Reminder | None] | _Meaning:
        """Choose among promotion ``moves`` (same squares) by the promotion letter."""
        letter = reading.promotion_letter
        if letter is None:
            return self._unclear(
                "no-promotion-piece", reading, moves, position, details, candidates
            )
        meanings = promotion_meanings(letter, numeric=reading.numeric)
        own = meanings.get(self.own) if not reading.numeric else next(iter(meanings.values()), None)
        reminder = None
        if own is None:
            others = sorted(set(meanings.values()))
            if not others:
                return self._impossible(
                    "bad-promotion-piece", reading, {**details, "letter": letter}, position, moves
                )
            if len(others) > 1:
                chosen = [move for move in moves if move.promotion in others]
                return self._unclear("two-readings", reading, chosen, position, details, candidates)
            own = others[0]
            reminder = self._other_letter(letter, own)
        move = next(move for move in moves if move.promotion == own)
        return move, reminder

    # Incomplete notation -------------------------------------------------------------------

    def _incomplete(self, reading: Reading, position: Position) -> _Meaning:
        assert reading.to_square is not None
        details = {"move": reading.move_text, "to": chess.square_name(reading.to_square)}
        letter = reading.piece_letter
        if letter is None:
            own: chess.PieceType | None = chess.PAWN
            others: list[chess.PieceType] = []
        else:
            meanings = letter_meanings(letter)
            own = meanings.get(self.own)
            others = sorted({t for t in meanings.values() if t != own})
        first = self._moves_of_type(reading, position, own) if own is not None else []
        other_moves: list[chess.Move] = []
        for piece_type in others:
            other_moves.extend(self._moves_of_type(reading, position, piece_type))
        candidates = frozenset(
            move for move in (*first, *other_moves) if promotion_fits(reading, move)
        )
        reminders: list[Reminder] = []
        if first:
            moves = first
        else:
            moves = list(dict.fromkeys(other_moves))
            moved = {position.board.piece_type_at(move.from_square) for move in moves}
            if len(moved) == 1 and letter is not None:
                (moved_type,) = moved
                assert moved_type is not None
                reminders.append(self._other_letter(letter, moved_type))
        if not moves:
            named = own if own is not None else (others[0] if len(others) == 1 else None)
            alternatives: tuple[chess.Move, ...] = ()
            if named is not None:
                alternatives = tuple(
                    move
                    for move in position.legal
                    if position.board.piece_type_at(move.from_square) == named
                )
            details["piece"] = _name(named) if named is not None else "piece"
            return self._impossible("no-such-move", reading, details, position, alternatives)
        promotions = [move for move in moves if move.promotion is not None]
        if reading.promotion_letter is not None and not promotions:
            return self._impossible("not-a-promotion", reading, details, position, moves)
        if len({(move.from_square, move.to_square) for move in moves}) > 1:
            return self._unclear("two-readings", reading, moves, position, details, candidates)
        if promotions:
            chosen = self._promotion(reading, position, promotions, details, candidates)
            if isinstance(chosen, _Meaning):
                return chosen
            move, reminder = chosen
            if reminder is not None:
                reminders.append(reminder)
        else:
            move = moves[0]
        reminders.insert(0, self._full_form("incomplete-notation", reading, position, move))
        return self._played(move, reading, position, reminders, candidates)

    def _moves_of_type(
        self, reading: Reading, position: Position, piece_type: chess.PieceType
    ) -> list[chess.Move]:
        board = position.board
        found = []
        for move in position.legal:
            if move.to_square != reading.to_square:
                continue
            if board.piece_type_at(move.from_square) != piece_type:
                continue
            file = chess.square_file(move.from_square)
            if reading.from_file is not None and file != reading.from_file:
                continue
            if (
                piece_type == chess.PAWN
                and reading.from_file is None
                and file != chess.square_file(move.to_square)
            ):
                continue
            rank = chess.square_rank(move.from_square)
            if reading.from_rank is not None and rank != reading.from_rank:
                continue
            found.append(move)
        return found


def promotion_fits(reading: Reading, move: chess.Move) -> bool:
    """Whether ``move``'s promotion agrees with the reading's promotion letter, if any."""
    if reading.promotion_letter is None or move.promotion is None:
        return True
    meanings = promotion_meanings(reading.promotion_letter, numeric=reading.numeric)
    return move.promotion in meanings.values()
