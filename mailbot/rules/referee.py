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
   that runs up to the opponent's last move. A repetition in another notation or
   in incomplete notation is fine when it names the same move. A first reading
   that names another move of the opponent's side (a piece of the opponent's on
   its from-square before the last move, or an incomplete move only the
   opponent could have played), followed by further readings, is
   **incorrect** (art. 15: ``1.c2-c4 Кg8-f6`` after ``1.e2-e4``). A message
   whose only move is the opponent's last move holds **no move**, unless that
   text is also a legal move of the player (``0-0`` after the opponent castled,
   ``Nxf3``): then it is the player's move.
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
- no move: ``no-move``, ``only-repetition``.

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
import enum
import itertools
import re
import types
from collections.abc import Iterator, Mapping, Sequence

import chess

from mailbot.rules.notation import (
    Castling,
    Notation,
    Reading,
    letter_for,
    letter_meanings,
    promotion_meanings,
    read_moves,
    reading_notation,
    write_move,
)

__all__ = [
    "Judgement",
    "Reminder",
    "Verdict",
    "explain",
    "explain_reminder",
    "judge",
    "legal_moves_of_piece",
]


class Verdict(enum.Enum):
    """What a message amounts to (docs/rules.md 3.2)."""

    #: Playable; played (art. 11).
    LEGAL = "legal"
    #: Against the rules or the position (art. 14); penalised.
    IMPOSSIBLE = "impossible"
    #: The opponent's last move repeated wrongly (art. 15); penalised.
    INCORRECT = "incorrect"
    #: Cannot be read with certainty (art. 16); penalised unless the mail is at fault.
    UNCLEAR = "unclear"
    #: Legal and played, but written incompletely (art. 7 note 2, art. 9).
    INCOMPLETE = "incomplete"
    #: The text holds no move of the player.
    NO_MOVE = "no-move"


def _frozen(mapping: Mapping[str, str] | None = None) -> Mapping[str, str]:
    return types.MappingProxyType(dict(mapping or {}))


@dataclasses.dataclass(frozen=True)
class Reminder:
    """Something to tell the player that does not stop the move."""

    #: ``incomplete-notation``, ``missing-piece-letter``, ``letter-from-other-notation``,
    #: ``wrong-move-number``, ``conditional-not-allowed``, ``conditional-lapsed``.
    code: str
    #: The reminder in English.
    text: str
    details: Mapping[str, str] = dataclasses.field(default_factory=_frozen, hash=False)


@dataclasses.dataclass(frozen=True)
class Judgement:
    """The referee's answer to one message."""

    verdict: Verdict
    #: The move to play (for ``LEGAL`` and ``INCOMPLETE``), else None.
    move: chess.Move | None
    #: Why, in English.
    reason: str
    #: A stable code for ``reason``: ``legal``, ``incomplete-notation``, ``no-piece``, ...
    reason_code: str
    #: Values for a translated ``reason`` (``move``: as written; ``square``, ``piece``, ...).
    details: Mapping[str, str] = dataclasses.field(default_factory=_frozen, hash=False)
    #: For ``IMPOSSIBLE``: the legal moves of the piece the player tried to move;
    #: for ``UNCLEAR``: the moves the text could mean.
    legal_alternatives: tuple[chess.Move, ...] = ()
    reminders: tuple[Reminder, ...] = ()
    #: The rest of a conditional line after ``move`` (alternately the opponent's and the
    #: player's moves), already checked for legality.
    conditional: tuple[chess.Move, ...] = ()
    #: The judged move as the player wrote it, if the verdict concerns one.
    written: str | None = None

    @property
    def accepted(self) -> bool:
        """The message holds a move that is played."""
        return self.verdict in (Verdict.LEGAL, Verdict.INCOMPLETE)

    @property
    def penalised(self) -> bool:
        """The verdict costs the sender penalty days (art. 17).

        >>> judge("1.e1-e4", chess.Board(), Notation.EN).penalised
        True
        """
        return self.verdict in (Verdict.IMPOSSIBLE, Verdict.INCORRECT, Verdict.UNCLEAR)


def legal_moves_of_piece(board: chess.Board, square: chess.Square) -> tuple[chess.Move, ...]:
    """The legal moves of the piece on ``square`` (none for an empty square or the wrong side).

    >>> [m.uci() for m in legal_moves_of_piece(chess.Board(), chess.G1)]
    ['g1h3', 'g1f3']
    """
    return tuple(move for move in board.legal_moves if move.from_square == square)


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
        return _judgement(Verdict.NO_MOVE, "no-move", {})
    referee = _Referee(board, notation, conditional_allowed)
    results = [referee.judge(sequence) for sequence in _segmentations(readings)]
    chosen = _choose(results, readings, board, notation)
    if numeric_decides or chosen.verdict is Verdict.LEGAL:
        return chosen
    bracketed = _bracketed_numeric(text, readings)
    if not bracketed:
        return chosen
    letters = [r for r in readings if r not in bracketed]
    results = [referee.judge(sequence) for sequence in _segmentations(letters)]
    again = _choose(results, letters, board, notation)
    ignored = [
        _reminder("numeric-ignored", {"numeric": r.move_text, "move": before.move_text})
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


# --- Texts ----------------------------------------------------------------------------------

_REASONS: dict[str, dict[str, str]] = {
    "en": {
        "legal": "legal move",
        "incomplete-notation": "{move} is incomplete notation; {played} was played",
        "missing-piece-letter": "{move} lacks the piece letter; {played} was played",
        "no-move": "the message holds no move",
        "only-repetition": "{move} repeats the opponent's last move; the message holds no new move",
        "wrong-repetition": "the opponent's last move was {expected}, not {written}",
        "no-piece": "there is no piece on {square}",
        "wrong-colour": "{piece_subject} on {square} is {colour}, and it is {turn} move",
        "letter-mismatch": "{letter} does not name the {piece} on {square} in any notation",
        "castling-not-allowed": "{side} ({move}) is not possible in this position",
        "king-in-check": "{move} would leave the king in check",
        "illegal-for-piece": "{piece_subject} on {square} cannot move to {to}",
        "not-a-promotion": "{move} is not a promotion",
        "bad-promotion-piece": "{move}: a pawn cannot become {letter}",
        "no-promotion-piece": "{move} does not say which piece the pawn becomes",
        "no-such-move": "{piece_none} can move to {to}",
        "two-readings": "{move} can be read as more than one move: {moves}",
        "spaced-squares": "{move} is not a playable move, and read as two moves "
        "({moves} and another) it is not clear either",
        "two-moves": "the message gives two different moves: {first} and {second}",
    },
    "bg": {
        "legal": "ходът е редовен",
        "incomplete-notation": "{move} е непълна нотация; изигран е ходът {played}",
        "missing-piece-letter": "в {move} липсва буквата на фигурата; изигран е ходът {played}",
        "no-move": "в писмото няма ход",
        "only-repetition": "{move} повтаря последния ход на противника; в писмото няма нов ход",
        "wrong-repetition": "последният ход на противника е {expected}, а не {written}",
        "no-piece": "на {square} няма фигура",
        "wrong-colour": "{piece_subject} на {square} е на {colour}, а на ход са {turn}",
        "letter-mismatch": "{letter} не означава фигурата на {square} ({piece}) в никоя нотация",
        "castling-not-allowed": "{side} ({move}) не е възможна в тази позиция",
        "king-in-check": "след {move} царят остава под шах",
        "illegal-for-piece": "{piece_subject} на {square} не може да отиде на {to}",
        "not-a-promotion": "{move} не е превръщане на пешка",
        "bad-promotion-piece": "{move}: пешката не може да стане {letter}",
        "no-promotion-piece": "в {move} не е казано в каква фигура се превръща пешката",
        "no-such-move": "{piece_none} не може да отиде на {to}",
        "two-readings": "{move} може да се прочете като различни ходове: {moves}",
        "spaced-squares": "{move} не е възможен ход, а прочетено като два хода "
        "({moves} и още един) също не е ясно",
        "two-moves": "в писмото има два различни хода: {first} и {second}",
    },
    "ru": {
        "legal": "ход правильный",
        "incomplete-notation": "{move} — неполная запись; сделан ход {played}",
        "missing-piece-letter": "в записи {move} нет буквы фигуры; сделан ход {played}",
        "no-move": "в письме нет хода",
        "only-repetition": "{move} повторяет последний ход противника; нового хода в письме нет",
        "wrong-repetition": "последний ход противника — {expected}, а не {written}",
        "no-piece": "на поле {square} нет фигуры",
        "wrong-colour": "{piece_subject} на {square} принадлежит {colour}, а ход {turn}",
        "letter-mismatch": "{letter} не обозначает фигуру на {square} ({piece}) ни в одной нотации",
        "castling-not-allowed": "{side} ({move}) в этой позиции невозможна",
        "king-in-check": "после {move} король остаётся под шахом",
        "illegal-for-piece": "{piece_subject} на {square} не может пойти на {to}",
        "not-a-promotion": "{move} — не превращение пешки",
        "bad-promotion-piece": "{move}: пешка не может превратиться в {letter}",
        "no-promotion-piece": "в записи {move} не указано, в какую фигуру превращается пешка",
        "no-such-move": "{piece_none} не может пойти на {to}",
        "two-readings": "{move} можно прочитать как разные ходы: {moves}",
        "spaced-squares": "{move} — невозможный ход, а как два хода ({moves} и ещё один) "
        "запись тоже неясна",
        "two-moves": "в письме два разных хода: {first} и {second}",
    },
}

_REMINDERS: dict[str, dict[str, str]] = {
    "en": {
        "incomplete-notation": "{move} is incomplete notation; please write the full move, "
        "as {full}",
        "missing-piece-letter": "{move} lacks the letter of the {piece}; please write the full "
        "move, as {full}",
        "letter-from-other-notation": "{letter} is the {piece} in {notation} notation; "
        "this game writes the {piece} as {expected}",
        "wrong-move-number": "{move} was numbered {written}; it is move {expected}",
        "conditional-not-allowed": "conditional moves are not allowed in this tournament; "
        "only {move} was played",
        "conditional-lapsed": "the conditional line ends before {move}, "
        "which is not a legal move there",
        "numeric-ignored": "the numeric form {numeric} decides nothing (art. 7 note 3): "
        "the move was judged as written in letters, {move}",
    },
    "bg": {
        "incomplete-notation": "{move} е непълна нотация; моля, пишете пълния ход: {full}",
        "missing-piece-letter": "в {move} липсва буквата на фигурата ({piece}); "
        "моля, пишете пълния ход: {full}",
        "letter-from-other-notation": "{letter} означава „{piece}“ в нотацията „{notation}“; "
        "в тази партия се пише {expected}",
        "wrong-move-number": "{move} е с номер {written}, а номерът на хода е {expected}",
        "conditional-not-allowed": "в този турнир условни ходове не се допускат; "
        "изигран е само {move}",
        "conditional-lapsed": "условният вариант спира преди {move}, който там не е възможен ход",
        "numeric-ignored": "цифровият запис {numeric} не решава нищо (чл. 7, забележка 3): "
        "ходът е преценен така, както е написан с букви – {move}",
    },
    "ru": {
        "incomplete-notation": "{move} — неполная запись; пожалуйста, пишите ход полностью: {full}",
        "missing-piece-letter": "в записи {move} нет буквы фигуры ({piece}); "
        "пожалуйста, пишите ход полностью: {full}",
        "letter-from-other-notation": "{letter} означает «{piece}» в нотации «{notation}»; "
        "в этой партии пишется {expected}",
        "wrong-move-number": "у хода {move} указан номер {written}, а номер хода — {expected}",
        "conditional-not-allowed": "условные ходы в этом турнире не допускаются; "
        "сделан только ход {move}",
        "conditional-lapsed": "условный вариант обрывается перед ходом {move}: там он невозможен",
        "numeric-ignored": "цифровая запись {numeric} ничего не решает (ст. 7, примечание 3): "
        "ход оценён так, как он записан буквами, — {move}",
    },
}

#: Piece names: the plain noun, the noun as a subject, and "no such piece".
_PIECES: dict[str, dict[str, tuple[str, str, str]]] = {
    "en": {
        name: (name, f"the {name}", f"no {name}")
        for name in ("king", "queen", "rook", "bishop", "knight", "pawn", "piece")
    },
    "bg": {
        "king": ("цар", "царят", "никой цар"),
        "queen": ("дама", "дамата", "никоя дама"),
        "rook": ("топ", "топът", "никой топ"),
        "bishop": ("офицер", "офицерът", "никой офицер"),
        "knight": ("кон", "конят", "никой кон"),
        "pawn": ("пешка", "пешката", "никоя пешка"),
        "piece": ("фигура", "фигурата", "никоя фигура"),
    },
    "ru": {
        "king": ("король", "король", "ни один король"),
        "queen": ("ферзь", "ферзь", "ни один ферзь"),
        "rook": ("ладья", "ладья", "ни одна ладья"),
        "bishop": ("слон", "слон", "ни один слон"),
        "knight": ("конь", "конь", "ни один конь"),
        "pawn": ("пешка", "пешка", "ни одна пешка"),
        "piece": ("фигура", "фигура", "ни одна фигура"),
    },
}

#: Other translated values, by language, detail key and value.
_VALUES: dict[str, dict[str, dict[str, str]]] = {
    "en": {
        "colour": {"white": "White's", "black": "Black's"},
        "turn": {"white": "White's", "black": "Black's"},
        "side": {"short": "short castling", "long": "long castling"},
        "notation": {n.value: n.label for n in Notation},
    },
    "bg": {
        "colour": {"white": "белите", "black": "черните"},
        "turn": {"white": "белите", "black": "черните"},
        "side": {"short": "малката рокада", "long": "голямата рокада"},
        "notation": {
            "en": "английска",
            "bg-cyrillic": "българска, на кирилица",
            "bg-latin": "българска, на латиница",
            "ru": "руска",
            "de": "немска",
            "iccf-numeric": "цифрова на ICCF",
            "figurine": "с фигурки",
        },
    },
    "ru": {
        "colour": {"white": "белым", "black": "чёрным"},
        "turn": {"white": "белых", "black": "чёрных"},
        "side": {"short": "короткая рокировка", "long": "длинная рокировка"},
        "notation": {
            "en": "английская",
            "bg-cyrillic": "болгарская, кириллицей",
            "bg-latin": "болгарская, латиницей",
            "ru": "русская",
            "de": "немецкая",
            "iccf-numeric": "цифровая ИКЧФ",
            "figurine": "фигурки",
        },
    },
}


def _render(
    table: Mapping[str, Mapping[str, str]], code: str, details: Mapping[str, str], language: str
) -> str | None:
    language = language if language in table else "en"
    template = table[language].get(code)
    if template is None:
        return None
    values = dict(details)
    for key, value in details.items():
        translated = _VALUES[language].get(key, {}).get(value)
        if translated is not None:
            values[key] = translated
    if "piece" in details:
        plain, subject, none = _PIECES[language].get(details["piece"], (details["piece"],) * 3)
        values.update(piece=plain, piece_subject=subject, piece_none=none)
    try:
        return template.format_map(values)
    except KeyError:
        return None


def explain(judgement: Judgement, language: str = "en") -> str:
    """The reason for ``judgement`` in ``language`` (``en``, ``bg`` or ``ru``; else English).

    >>> explain(judge("1.e3-e4", chess.Board(), Notation.RU), "ru")
    'на поле e3 нет фигуры'
    """
    text = _render(_REASONS, judgement.reason_code, judgement.details, language)
    return judgement.reason if text is None else text


def explain_reminder(reminder: Reminder, language: str = "en") -> str:
    """A reminder's text in ``language`` (``en``, ``bg`` or ``ru``; else English).

    >>> (reminder,) = judge("5. Кg1-f3", chess.Board(), Notation.BG_CYRILLIC).reminders
    >>> explain_reminder(reminder, "bg")
    'Кg1-f3 е с номер 5, а номерът на хода е 1'
    """
    text = _render(_REMINDERS, reminder.code, reminder.details, language)
    return reminder.text if text is None else text


def _judgement(
    verdict: Verdict,
    code: str,
    details: Mapping[str, str],
    *,
    move: chess.Move | None = None,
    alternatives: Sequence[chess.Move] = (),
    reminders: Sequence[Reminder] = (),
    conditional: Sequence[chess.Move] = (),
    written: str | None = None,
) -> Judgement:
    reason = _render(_REASONS, code, details, "en")
    assert reason is not None, (code, details)
    return Judgement(
        verdict,
        move,
        reason,
        code,
        _frozen(details),
        tuple(alternatives),
        tuple(reminders),
        tuple(conditional),
        written,
    )


def _reminder(code: str, details: Mapping[str, str]) -> Reminder:
    text = _render(_REMINDERS, code, details, "en")
    assert text is not None, (code, details)
    return Reminder(code, text, _frozen(details))


# --- Reading against a position -------------------------------------------------------------


class _Position:
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

    def after(self, move: chess.Move) -> _Position:
        board = self.board.copy(stack=False)
        board.push(move)
        return _Position(board)


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


def _written(position: _Position, moves: Sequence[chess.Move], notation: Notation) -> str:
    return ", ".join(write_move(position.board, move, notation) for move in moves)


class _Interpreter:
    """Reads :class:`Reading` values in positions of one game."""

    def __init__(self, notation: Notation) -> None:
        self.notation = notation
        self.own = reading_notation(notation)
        self._cache: dict[tuple[Reading, _Position], _Meaning] = {}

    def meaning(self, reading: Reading, position: _Position) -> _Meaning:
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

    def denotes(self, reading: Reading, position: _Position, move: chess.Move) -> bool:
        return move in self.meaning(reading, position).candidates

    def playable(self, reading: Reading, position: _Position) -> bool:
        return bool(self.meaning(reading, position).candidates)

    # Results -------------------------------------------------------------------------------

    def _impossible(
        self,
        code: str,
        reading: Reading,
        details: Mapping[str, str],
        position: _Position,
        alternatives: Sequence[chess.Move] = (),
        candidates: frozenset[chess.Move] = frozenset(),
    ) -> _Meaning:
        all_details = {**details, "legal": _written(position, alternatives, self.notation)}
        judgement = _judgement(
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
        position: _Position,
        details: Mapping[str, str],
        candidates: frozenset[chess.Move],
    ) -> _Meaning:
        all_details = {**details, "moves": _written(position, moves, self.notation)}
        judgement = _judgement(
            Verdict.UNCLEAR, code, all_details, alternatives=moves, written=reading.move_text
        )
        return _Meaning(judgement, candidates)

    def _played(
        self,
        move: chess.Move,
        reading: Reading,
        position: _Position,
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
        judgement = _judgement(
            verdict, code, details, move=move, reminders=reminders, written=reading.move_text
        )
        return _Meaning(judgement, candidates)

    # Reminders -----------------------------------------------------------------------------

    def _other_letter(self, letter: str, piece_type: chess.PieceType) -> Reminder:
        meanings = letter_meanings(letter) or promotion_meanings(letter)
        where = next(n for n, t in meanings.items() if t == piece_type)
        return _reminder(
            "letter-from-other-notation",
            {
                "letter": letter,
                "piece": _name(piece_type),
                "notation": where.value,
                "expected": letter_for(piece_type, self.notation),
            },
        )

    def _full_form(
        self, code: str, reading: Reading, position: _Position, move: chess.Move
    ) -> Reminder:
        piece_type = position.board.piece_type_at(move.from_square)
        assert piece_type is not None
        return _reminder(
            code,
            {
                "move": reading.move_text,
                "piece": _name(piece_type),
                "full": write_move(position.board, move, self.notation),
            },
        )

    # Castling ------------------------------------------------------------------------------

    def _castling(self, reading: Reading, position: _Position) -> _Meaning:
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

    def _full(self, reading: Reading, position: _Position) -> _Meaning:
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
        candidates = frozenset(move for move in matching if _promotion_fits(reading, move))
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
        position: _Position,
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
        position: _Position,
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

    def _incomplete(self, reading: Reading, position: _Position) -> _Meaning:
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
            move for move in (*first, *other_moves) if _promotion_fits(reading, move)
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
        self, reading: Reading, position: _Position, piece_type: chess.PieceType
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


def _promotion_fits(reading: Reading, move: chess.Move) -> bool:
    """Whether ``move``'s promotion agrees with the reading's promotion letter, if any."""
    if reading.promotion_letter is None or move.promotion is None:
        return True
    meanings = promotion_meanings(reading.promotion_letter, numeric=reading.numeric)
    return move.promotion in meanings.values()


# --- A whole message --------------------------------------------------------------------------


class _Referee:
    """Judges sequences of readings for one position."""

    def __init__(self, board: chess.Board, notation: Notation, conditional_allowed: bool) -> None:
        self.board = board
        self.notation = notation
        self.conditional_allowed = conditional_allowed
        self.reader = _Interpreter(notation)
        self.now = _Position(board.copy(stack=False))
        self.moves = list(board.move_stack)
        self._positions: dict[int, _Position] = {}
        self.before: _Position | None = None
        if self.moves:
            before = board.copy(stack=1)
            before.pop()
            self.before = _Position(before.copy(stack=False))

    def position(self, ply: int) -> _Position:
        """The position before the game's move number ``ply`` (0-based), or the current one."""
        if ply == len(self.moves):
            return self.now
        if ply == len(self.moves) - 1 and self.before is not None:
            return self.before
        if ply not in self._positions:
            board = self.board.copy(stack=len(self.moves) - ply)
            for _ in range(len(self.moves) - ply):
                board.pop()
            self._positions[ply] = _Position(board)
        return self._positions[ply]

    def _history(self, readings: Sequence[Reading]) -> tuple[int, list[Reminder]]:
        """How many readings at the start copy the game before the opponent's last move.

        The art. 8 line repeats the player's own previous move; a player may also
        copy more of the game. The longest copy that runs up to the opponent's
        last move counts; a first reading that is a legal move now is never a copy.
        """
        if len(readings) < 2 or len(self.moves) < 2 or self.reader.playable(readings[0], self.now):
            return 0, []
        last = len(self.moves) - 1
        for start in range(max(0, last - len(readings) + 1), last):
            found = self._copied(readings, start, last)
            if found is not None:
                return found
        return 0, []

    def _copied(
        self, readings: Sequence[Reading], start: int, end: int
    ) -> tuple[int, list[Reminder]] | None:
        """Whether the readings name the game's moves ``start`` to ``end`` (excluded)."""
        index, reminders = 0, []
        for ply in range(start, end):
            position = self.position(ply)
            if index >= len(readings):
                return None
            if not self.reader.denotes(readings[index], position, self.moves[ply]):
                return None
            reminders.extend(self._number(readings[index], position))
            index = self._skip_same(
                readings, index + 1, position, self.moves[ply], self.position(ply + 1)
            )
        return index, reminders

    def judge(self, readings: Sequence[Reading]) -> Judgement:
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
                details = {
                    "written": first.move_text,
                    "expected": write_move(before.board, last, self.notation),
                    "number": str(before.board.fullmove_number),
                }
                return _judgement(
                    Verdict.INCORRECT,
                    "wrong-repetition",
                    details,
                    reminders=reminders,
                    written=first.move_text,
                )
        reading = readings[index]
        reminders.extend(self._number(reading, now))
        result = reader.meaning(reading, now).judgement
        if not result.accepted:
            return dataclasses.replace(result, reminders=(*result.reminders, *reminders))
        assert result.move is not None
        move = result.move
        reminders[:0] = result.reminders
        conditional: list[chess.Move] = []
        position, after, previous_move, previous_reading = now, now.after(move), move, reading
        for following_reading in readings[index + 1 :]:
            if self._again(following_reading, previous_reading, position, previous_move, after):
                continue
            if not conditional and self._players(following_reading, position, after):
                return self._two_moves(reading, following_reading, move, reminders)
            if not self.conditional_allowed:
                reminders.append(
                    _reminder(
                        "conditional-not-allowed",
                        {"move": reading.move_text, "ignored": following_reading.move_text},
                    )
                )
                break
            proposed = reader.meaning(following_reading, after).judgement
            if not proposed.accepted or proposed.move is None:
                reminders.append(
                    _reminder(
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
        return dataclasses.replace(
            result, reminders=tuple(reminders), conditional=tuple(conditional)
        )

    def _again(
        self,
        reading: Reading,
        named_by: Reading,
        position: _Position,
        move: chess.Move,
        after: _Position,
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
        position: _Position,
        move: chess.Move,
        after: _Position,
    ) -> int:
        """Skip the readings from ``index`` on that repeat ``move``, named just before."""
        named_by = readings[index - 1]
        while index < len(readings) and self._again(
            readings[index], named_by, position, move, after
        ):
            index += 1
        return index

    def _opponents(self, reading: Reading, before: _Position, now: _Position) -> bool:
        """Whether ``reading`` looks like a move of the side that moved from ``before``."""
        if reading.from_square is not None and reading.castling is None:
            piece = before.board.piece_at(reading.from_square)
            return piece is not None and piece.color == before.board.turn
        return self.reader.playable(reading, before) and not self.reader.playable(reading, now)

    def _players(self, reading: Reading, position: _Position, after: _Position) -> bool:
        """Whether ``reading``, after the player's move, looks like another move of the player."""
        if reading.from_square is not None and reading.castling is None:
            piece = after.board.piece_at(reading.from_square) or position.board.piece_at(
                reading.from_square
            )
            return piece is not None and piece.color == position.board.turn
        return self.reader.playable(reading, position) and not self.reader.playable(reading, after)

    def _number(self, reading: Reading, position: _Position) -> list[Reminder]:
        expected = position.board.fullmove_number
        if reading.number is None or reading.number == expected:
            return []
        details = {
            "move": reading.move_text,
            "written": str(reading.number),
            "expected": str(expected),
        }
        return [_reminder("wrong-move-number", details)]

    def _only_repetition(self, reading: Reading) -> Judgement:
        return _judgement(
            Verdict.NO_MOVE,
            "only-repetition",
            {"move": reading.move_text},
            written=reading.move_text,
        )

    def _two_moves(
        self, first: Reading, second: Reading, move: chess.Move, reminders: Sequence[Reminder]
    ) -> Judgement:
        return _judgement(
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
    return _judgement(Verdict.UNCLEAR, code, details, alternatives=moves, written=spaced)
