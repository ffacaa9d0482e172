"""The verdict on a move sent by mail (docs/rules.md 3.2; art. 9, 11-22; ICCF 003 part 1 art. 4).

:func:`judge` reads one message body (quotes already removed) against the
game's position and says whether it holds a move to play:

>>> import chess
>>> board = chess.Board()
>>> judge("1. Кg1-f3", board, Notation.BG_CYRILLIC).verdict
<Verdict.LEGAL: 'legal'>
>>> judge("1.Кg1-e3", board, Notation.BG_CYRILLIC).reason
'the knight on g1 cannot move to e3'
>>> judge("Nf3", board, Notation.EN).verdict
<Verdict.INCOMPLETE: 'incomplete'>
>>> board.push_uci("e2e4")
Move.from_uci('e2e4')
>>> judge("1.c2-c4 Кg8-f6", board, Notation.BG_CYRILLIC).reason_code
'wrong-repetition'

The rules, in the order they are applied:

1. **Repetition.** The text may begin with the opponent's last move, or with
   the player's own previous move and then the opponent's last move, as the
   art. 8 line does (``15. Те1-e2 Кg8-f6``), or with a longer copy of the game
   that runs up to the opponent's last move (docs/rules.md 2.4): the copy is
   matched against the record move by move (:mod:`mailbot.rules.copies`),
   whatever its notation, numbers and marks. A copy that differs from the
   record before the opponent's last move holds **no move** (the first
   difference is given; no penalty). A repetition in another notation or in
   incomplete notation is fine when it names the same move. A first reading
   that names another move of the opponent's side (a piece of the opponent's on
   its from-square before the last move, or an incomplete move only the
   opponent could have played), followed by further readings, is
   **incorrect** (art. 15: ``1.c2-c4 Кg8-f6`` after ``1.e2-e4``). A message
   whose only move is the opponent's last move holds **no move**, unless that
   text is also a legal move of the player (``0-0`` after the opponent castled,
   ``Nxf3``): then it is the player's move. A copy that also reads as a legal
   move with a conditional line after it, giving another move, is **unclear**.
2. **The player's move**, in full notation: an empty from-square, a piece of
   the wrong colour, a letter that names the piece on the from-square in no
   notation, or a destination the piece cannot reach (including leaving the
   king in check and castling that is not allowed) make it **impossible**
   (art. 14); the legal moves of the piece on the from-square are given. A
   letter that names the piece only in another notation is accepted with a
   reminder. A piece move without a letter (``g1-f3``, ``g1f3``) is
   **incomplete** but played; ICCF numeric needs no letters. A pawn reaching the
   last rank without a promotion piece is **unclear**.
3. **Incomplete notation** (``Nf3``, ``e4``; art. 7 note 2, art. 9): the letter
   is read in the game's notation first; if that gives exactly one legal move,
   it is played; two or more are **unclear**. If it gives none, the other
   notations are tried: exactly one distinct legal move is played with a
   reminder, two or more are **unclear**, none is **impossible**. A move played
   from incomplete notation has the verdict **incomplete** and a reminder.
4. **After the move**: the same move written again in another form
   (``e2-e4 (5254)``) is fine. A second, different move for the same side
   (``e2-e4 5244``, ``Nf3 Nc3``) makes the message **unclear** (003 part 1
   art. 4a). Otherwise what follows is a conditional line (docs/rules.md 2.3): where
   the tournament allows them, the moves are checked in turn on a copy of the
   board, and at the first one that is not a legal move the rest lapses with a
   reminder; where it does not, the rest is ignored with a reminder.
5. **Never a reason to reject**: capture and check signs, right or wrong
   (art. 21, 003 part 1 art. 4e), and a wrong move number, which is reported
   back as a reminder (art. 9 B).
6. **Two readings of the text.** Two squares separated by spaces only
   (``e4 e5``) are read both as one move in full notation and as two moves in
   incomplete notation. The full-notation reading stands unless the other one
   explains the whole text: Black's ``1. e4 e5`` repeats White's move and
   answers it. Two readings that give different moves, or a full-notation
   reading that fails where the other gives a move but leaves part of the
   text unused (``e4 e5`` from White where conditional moves are not allowed),
   make the message **unclear**. A wrong repetition found by the other reading
   is preferred to an impossible move.

Reason codes, by verdict:

- legal: ``legal``;
- incomplete: ``incomplete-notation``, ``missing-piece-letter``;
- impossible: ``no-piece``, ``wrong-colour``, ``letter-mismatch``,
  ``illegal-for-piece``, ``king-in-check``, ``castling-not-allowed``,
  ``no-such-move``, ``not-a-promotion``, ``bad-promotion-piece``;
- incorrect: ``wrong-repetition``;
- unclear: ``two-readings``, ``two-moves``, ``no-promotion-piece``,
  ``spaced-squares``;
- no move: ``no-move``, ``only-repetition``, ``copy-differs``.

Reminder codes: ``incomplete-notation``, ``missing-piece-letter``,
``letter-from-other-notation``, ``wrong-move-number``,
``conditional-not-allowed``, ``conditional-lapsed``.

``reason`` and the reminders' ``text`` are English. Every reason and reminder
has a stable code and ``details``; :func:`explain` and :func:`explain_reminder`
give the text in English, Bulgarian or Russian:

>>> explain(judge("1.Кg1-e3", chess.Board(), Notation.BG_CYRILLIC), "bg")
'конят на g1 не може да отиде на e3'
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Iterator, Sequence

import chess

from mailbot.rules.copies import Copy, Record
from mailbot.rules.interpretation import Interpreter, Position
from mailbot.rules.notation import (
    Notation,
    Reading,
    read_moves,
    write_line,
    write_move,
)
from mailbot.rules.verdicts import (
    REASONS,
    REMINDERS,
    Judgement,
    Reminder,
    Verdict,
    judgement_of,
    reminder_of,
    render_text,
)

__all__ = [
    "Judgement",
    "Reminder",
    "Verdict",
    "explain",
    "explain_reminder",
    "judge",
]


def judge(
    text: str,
    board: chess.Board,
    notation: Notation,
    *,
    conditional_allowed: bool = False,
    numeric_decides: bool = True,
) -> Judgement:
    """Judge the move in ``text`` for the side to move in ``board``.

    ``board`` is the game's current position with its move stack: the last move
    on the stack is the opponent's last move, which the text may repeat.
    ``notation`` is the game's agreed notation. ``board`` is not changed.
    Without ``numeric_decides`` (art. 7 note 3), a numeric form in brackets
    after a move written in letters decides nothing: when the two disagree,
    the move is judged as written in letters, with a reminder.

    >>> board = chess.Board()
    >>> result = judge("10. d2-d4 d7-d5 11. c2-c4", board, Notation.EN, conditional_allowed=True)
    >>> result.move.uci(), [m.uci() for m in result.conditional]
    ('d2d4', ['d7d5', 'c2c4'])
    """
    readings = read_moves(text)
    if not readings:
        return judgement_of(Verdict.NO_MOVE, "no-move", {})
    referee = _Referee(board, notation, conditional_allowed)
    chosen = referee.read(readings)
    if numeric_decides or chosen.verdict is Verdict.LEGAL:
        return chosen
    bracketed = _bracketed_numeric(text, readings)
    if not bracketed:
        return chosen
    letters = [r for r in readings if r not in bracketed]
    again = referee.read(letters)
    ignored = [
        reminder_of("numeric-ignored", {"numeric": r.move_text, "move": before.move_text})
        for before, r in itertools.pairwise(readings)
        if r in bracketed
    ]
    return dataclasses.replace(again, reminders=(*again.reminders, *ignored))


_BRACKET_BEFORE = re.compile(r"\(\s*(?:\d+\s*\.+\s*)?$")


def _bracketed_numeric(text: str, readings: Sequence[Reading]) -> list[Reading]:
    """The numeric readings written in brackets right after a move in letters
    (``1. e2-e4 (1. 5254)``).

    >>> text = "1. e2-e4 (1. 5244)"
    >>> [r.move_text for r in _bracketed_numeric(text, read_moves(text))]
    ['5244']
    """
    return [
        r
        for before, r in itertools.pairwise(readings)
        if r.numeric and not before.numeric and _BRACKET_BEFORE.search(text[: r.span[0]])
    ]


def explain(judgement: Judgement, language: str = "en") -> str:
    """The reason for ``judgement`` in ``language`` (``en``, ``bg`` or ``ru``; else English).

    >>> explain(judge("1.e3-e4", chess.Board(), Notation.RU), "ru")
    'на поле e3 нет фигуры'
    """
    text = render_text(REASONS, judgement.reason_code, judgement.details, language)
    return judgement.reason if text is None else text


def explain_reminder(reminder: Reminder, language: str = "en") -> str:
    """A reminder's text in ``language`` (``en``, ``bg`` or ``ru``; else English).

    >>> (reminder,) = judge("5. Кg1-f3", chess.Board(), Notation.BG_CYRILLIC).reminders
    >>> explain_reminder(reminder, "bg")
    'Кg1-f3 е с номер 5, а номерът на хода е 1'
    """
    text = render_text(REMINDERS, reminder.code, reminder.details, language)
    return reminder.text if text is None else text


# --- A whole message --------------------------------------------------------------------------


class _Referee:
    """Judges sequences of readings for one position."""

    def __init__(self, board: chess.Board, notation: Notation, conditional_allowed: bool) -> None:
        self.board = board
        self.notation = notation
        self.conditional_allowed = conditional_allowed
        self.reader = Interpreter(notation)
        self.record = Record(board, notation, self.reader)
        self.moves = self.record.moves
        self.now = self.record.position(len(self.moves))
        self.before = self.record.position(len(self.moves) - 1) if self.moves else None

    def read(self, readings: Sequence[Reading]) -> Judgement:
        """The verdict on a whole message: a copy of the game with the move after it
        (docs/rules.md 2.4), or the move, with the opponent's last move before it or not."""
        copy = self.record.copy(readings)
        if copy is None:
            return self._choose(readings, copied=False)
        after = self._after_copy(copy)
        if isinstance(after, Judgement):
            return after
        chosen = self._choose(after, copied=True)
        if not (chosen.accepted and copy.difference is None and self.conditional_allowed):
            return chosen
        # a copy that is also a move with a conditional line after it can be read two ways
        plain = self._choose(readings, copied=False)
        clean = plain.accepted and not any(
            r.code in (*_UNUSED_READINGS, "wrong-move-number") for r in plain.reminders
        )
        if not clean or plain.move == chosen.move:
            return chosen
        moves = [m for m in (chosen.move, plain.move) if m is not None]
        details = {
            "move": f"{readings[0].move_text} … {readings[-1].move_text}",
            "moves": ", ".join(write_move(self.board, m, self.notation) for m in moves),
        }
        return judgement_of(
            Verdict.UNCLEAR, "two-readings", details, alternatives=moves, written=details["move"]
        )

    def _choose(self, readings: Sequence[Reading], *, copied: bool) -> Judgement:
        results = [self.judge(sequence, copied) for sequence in _segmentations(readings)]
        return _choose(results, readings, self.board, self.notation)

    def _after_copy(self, copy: Copy) -> tuple[Reading, ...] | Judgement:
        """What follows a copy of the game: the readings of the player's move, or the
        verdict on the copy (docs/rules.md 2.4).

        A difference before the opponent's last move is no move at all, and the
        player is shown the first one; the opponent's last move written wrongly
        (another move of the opponent's, with a move after it) is incorrect (art. 15).
        """
        difference = copy.difference
        last = len(self.moves) - 1
        if difference is not None and difference.ply < last:
            position = self.record.position(difference.ply)
            expected = write_line(position.board, [self.moves[difference.ply]], self.notation)
            number = expected.split(" ", 1)[0]
            details = {
                "number": str(position.board.fullmove_number),
                "expected": expected,
                "written": f"{number} {difference.written.move_text}",
            }
            return judgement_of(
                Verdict.NO_MOVE, "copy-differs", details, written=difference.written.move_text
            )
        assert self.before is not None
        if difference is not None:
            if copy.rest and self.reader.playable(copy.last, self.before):
                return self._wrong_repetition(copy.last, [])
            return (copy.last, *copy.rest)
        if not copy.rest:
            if self.reader.playable(copy.last, self.now):
                return (copy.last,)
            return self._only_repetition(copy.last)
        return copy.rest

    def _history(self, readings: Sequence[Reading]) -> tuple[int, list[Reminder]]:
        """How many readings at the start repeat the player's own previous move, in a text
        that is no copy of the game (:meth:`read`): ``Nd3 e5`` is "I played Nd3, now e5".

        A first reading that is a legal move now is the player's move.
        """
        if len(readings) < 2 or len(self.moves) < 2 or self.reader.playable(readings[0], self.now):
            return 0, []
        ply = len(self.moves) - 2
        position = self.record.position(ply)
        if not self.reader.denotes(readings[0], position, self.moves[ply]):
            return 0, []
        after = self.record.position(ply + 1)
        index = self._skip_same(readings, 1, position, self.moves[ply], after)
        return index, self._number(readings[0], position)

    def judge(self, readings: Sequence[Reading], copied: bool = False) -> Judgement:
        """The verdict on ``readings``: the player's move, perhaps after the opponent's
        last move (unless ``copied``: the copy of the game ran up to it already)."""
        opening = (0, []) if copied else self._after_repetition(readings)
        if isinstance(opening, Judgement):
            return opening
        index, reminders = opening
        reading = readings[index]
        reminders.extend(self._number(reading, self.now))
        result = self.reader.meaning(reading, self.now).judgement
        if not result.accepted:
            return dataclasses.replace(result, reminders=(*result.reminders, *reminders))
        assert result.move is not None
        reminders[:0] = result.reminders
        conditional = self._conditional(readings, index, result.move, reminders)
        if isinstance(conditional, Judgement):
            return conditional
        return dataclasses.replace(
            result, reminders=tuple(reminders), conditional=tuple(conditional)
        )

    def _after_repetition(
        self, readings: Sequence[Reading]
    ) -> tuple[int, list[Reminder]] | Judgement:
        """Where the player's own move starts, past the game's moves the text repeats.

        Returns the index of the reading to judge and the reminders so far, or
        the judgement when the text holds no more than a repetition, or repeats
        the opponent's last move wrongly.
        """
        reader = self.reader
        now = self.now
        reminders: list[Reminder] = []
        index = 0
        if self.before is not None:
            before, last = self.before, self.moves[-1]
            index, reminders = self._history(readings)
            if index >= len(readings):
                return self._only_repetition(readings[0])
            first = readings[index]
            if reader.denotes(first, before, last):
                following = self._skip_same(readings, index + 1, before, last, now)
                if following < len(readings):
                    reminders.extend(self._number(first, before))
                    index = following
                elif not reader.playable(first, now):
                    return self._only_repetition(first)
            elif index + 1 < len(readings) and self._opponents(first, before, now):
                return self._wrong_repetition(first, reminders)
        return index, reminders

    def _wrong_repetition(self, written: Reading, reminders: Sequence[Reminder]) -> Judgement:
        """Art. 15: the opponent's last move repeated wrongly."""
        assert self.before is not None
        details = {
            "written": written.move_text,
            "expected": write_move(self.before.board, self.moves[-1], self.notation),
            "number": str(self.before.board.fullmove_number),
        }
        return judgement_of(
            Verdict.INCORRECT,
            "wrong-repetition",
            details,
            reminders=reminders,
            written=written.move_text,
        )

    def _conditional(
        self, readings: Sequence[Reading], index: int, move: chess.Move, reminders: list[Reminder]
    ) -> list[chess.Move] | Judgement:
        """The conditional line after ``move`` (read from ``readings[index]``).

        Adds to ``reminders`` why the line stops early; returns the judgement
        instead when the text holds two moves of the player.
        """
        reading = readings[index]
        conditional: list[chess.Move] = []
        position, after, previous_move, previous_reading = (
            self.now,
            self.now.after(move),
            move,
            reading,
        )
        for following_reading in readings[index + 1 :]:
            if self._again(following_reading, previous_reading, position, previous_move, after):
                continue
            if not conditional and self._players(following_reading, position, after):
                return self._two_moves(reading, following_reading, move, reminders)
            if not self.conditional_allowed:
                reminders.append(
                    reminder_of(
                        "conditional-not-allowed",
                        {"move": reading.move_text, "ignored": following_reading.move_text},
                    )
                )
                break
            proposed = self.reader.meaning(following_reading, after).judgement
            if not proposed.accepted or proposed.move is None:
                reminders.append(
                    reminder_of(
                        "conditional-lapsed",
                        {
                            "move": following_reading.move_text,
                            "code": proposed.reason_code,
                            "reason": proposed.reason,
                        },
                    )
                )
                break
            conditional.append(proposed.move)
            position, previous_move, previous_reading = after, proposed.move, following_reading
            after = after.after(previous_move)
        return conditional

    def _again(
        self,
        reading: Reading,
        named_by: Reading,
        position: Position,
        move: chess.Move,
        after: Position,
    ) -> bool:
        """Whether ``reading`` names ``move`` (played in ``position``, read from ``named_by``)
        once more in another form (``e2-e4 (5254)``) rather than a move in ``after``.

        Castling after castling is always a new move: ``0-0 0-0`` is both sides castling.
        """
        if reading.castling is not None and named_by.castling is not None:
            return False
        return not self.reader.playable(reading, after) and self.reader.denotes(
            reading, position, move
        )

    def _skip_same(
        self,
        readings: Sequence[Reading],
        index: int,
        position: Position,
        move: chess.Move,
        after: Position,
    ) -> int:
        """Skip the readings from ``index`` on that repeat ``move``, named just before."""
        named_by = readings[index - 1]
        while index < len(readings) and self._again(
            readings[index], named_by, position, move, after
        ):
            index += 1
        return index

    def _opponents(self, reading: Reading, before: Position, now: Position) -> bool:
        """Whether ``reading`` looks like a move of the side that moved from ``before``."""
        if reading.from_square is not None and reading.castling is None:
            piece = before.board.piece_at(reading.from_square)
            return piece is not None and piece.color == before.board.turn
        return self.reader.playable(reading, before) and not self.reader.playable(reading, now)

    def _players(self, reading: Reading, position: Position, after: Position) -> bool:
        """Whether ``reading``, after the player's move, looks like another move of the player."""
        if reading.from_square is not None and reading.castling is None:
            piece = after.board.piece_at(reading.from_square) or position.board.piece_at(
                reading.from_square
            )
            return piece is not None and piece.color == position.board.turn
        return self.reader.playable(reading, position) and not self.reader.playable(reading, after)

    def _number(self, reading: Reading, position: Position) -> list[Reminder]:
        expected = position.board.fullmove_number
        if reading.number is None or reading.number == expected:
            return []
        details = {
            "move": reading.move_text,
            "written": str(reading.number),
            "expected": str(expected),
        }
        return [reminder_of("wrong-move-number", details)]

    def _only_repetition(self, reading: Reading) -> Judgement:
        return judgement_of(
            Verdict.NO_MOVE,
            "only-repetition",
            {"move": reading.move_text},
            written=reading.move_text,
        )

    def _two_moves(
        self, first: Reading, second: Reading, move: chess.Move, reminders: Sequence[Reminder]
    ) -> Judgement:
        return judgement_of(
            Verdict.UNCLEAR,
            "two-moves",
            {"first": first.move_text, "second": second.move_text},
            alternatives=(move,),
            reminders=[r for r in reminders if r.code == "wrong-move-number"],
            written=first.move_text,
        )


def _segmentations(readings: Sequence[Reading], limit: int = 4) -> Iterator[tuple[Reading, ...]]:
    """The text read with each spaced square pair joined (first) or split in two."""
    spaced = [i for i, reading in enumerate(readings) if reading.alternative is not None][:limit]
    for mask in range(2 ** len(spaced)):
        sequence: list[Reading] = []
        for i, reading in enumerate(readings):
            if i in spaced and mask & (1 << spaced.index(i)):
                assert reading.alternative is not None
                sequence.extend(reading.alternative)
            else:
                sequence.append(reading)
        yield tuple(sequence)


_UNUSED_READINGS = ("conditional-not-allowed", "conditional-lapsed")


def _choose(
    results: Sequence[Judgement],
    readings: Sequence[Reading],
    board: chess.Board,
    notation: Notation,
) -> Judgement:
    """Pick the verdict among the readings of the text (rule 6 of the module documentation).

    ``results[0]`` reads every spaced square pair as one move; the others split
    some pairs into two moves. A split reading counts only if it uses every move
    in the text (no conditional moves ignored or lapsed).
    """

    def clean(result: Judgement) -> bool:
        return result.accepted and not any(r.code in _UNUSED_READINGS for r in result.reminders)

    eligible = [results[0]] if results[0].accepted else []
    eligible += [result for result in results[1:] if clean(result)]
    doubtful = [result for result in results[1:] if result.accepted and not clean(result)]
    if not eligible:
        incorrect = [result for result in results[1:] if result.verdict is Verdict.INCORRECT]
        if incorrect:
            return incorrect[0]
        if not doubtful:
            return results[0]
    moves = list(dict.fromkeys(r.move for r in (*eligible, *doubtful) if r.move is not None))
    if len(moves) == 1 and eligible:
        return eligible[0]
    spaced = ", ".join(reading.move_text for reading in readings if reading.alternative)
    details = {"move": spaced, "moves": ", ".join(write_move(board, m, notation) for m in moves)}
    code = "two-readings" if eligible else "spaced-squares"
    return judgement_of(Verdict.UNCLEAR, code, details, alternatives=moves, written=spaced)
