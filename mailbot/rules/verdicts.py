"""Verdicts: what the referee says of a message, and its reasons in each language.

A :class:`Judgement` carries a :class:`Verdict` (docs/rules.md 3.2), the
move, a stable reason code with the values that fill its text, and the
reminders (:class:`Reminder`) that do not stop the move. The texts are kept here in
English, Bulgarian and Russian.

    >>> judgement_of(Verdict.NO_MOVE, "no-move", {}).reason_code
    'no-move'
"""

from __future__ import annotations

import dataclasses
import enum
import types
from collections.abc import Mapping, Sequence

import chess

from mailbot.rules.notation import (
    Notation,
)

__all__ = [
    "REASONS",
    "REMINDERS",
    "Judgement",
    "Reminder",
    "Verdict",
    "judgement_of",
    "reminder_of",
    "render_text",
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

        >>> judgement_of(Verdict.IMPOSSIBLE, "no-piece", {"square": "e1"}).penalised
        True
        """
        return self.verdict in (Verdict.IMPOSSIBLE, Verdict.INCORRECT, Verdict.UNCLEAR)


# --- Texts ----------------------------------------------------------------------------------

REASONS: dict[str, dict[str, str]] = {
    "en": {
        "legal": "legal move",
        "incomplete-notation": "{move} is incomplete notation; {played} was played",
        "missing-piece-letter": "{move} lacks the piece letter; {played} was played",
        "no-move": "the message holds no move",
        "only-repetition": "{move} repeats the opponent's last move; the message holds no new move",
        "copy-differs": "the copy of the game differs from the record at move {number}: "
        "the game has {expected}, the copy has {written}",
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
        "copy-differs": "преписът на партията се различава от записа при ход {number}: "
        "в партията е {expected}, в преписа – {written}",
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
        "copy-differs": "копия партии расходится с записью на {number}-м ходу: "
        "в партии {expected}, в копии {written}",
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

REMINDERS: dict[str, dict[str, str]] = {
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


def render_text(
    table: Mapping[str, Mapping[str, str]], code: str, details: Mapping[str, str], language: str
) -> str | None:
    """The text of ``code`` in ``table`` for ``language`` (else English), its values filled in;
    None when the table has no such text or the values do not fit."""
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


def judgement_of(
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
    """The judgement with the English reason of ``code``, its values in ``details``."""
    reason = render_text(REASONS, code, details, "en")
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


def reminder_of(code: str, details: Mapping[str, str]) -> Reminder:
    """The reminder with the English text of ``code``, its values in ``details``."""
    text = render_text(REMINDERS, code, details, "en")
    assert text is not None, (code, details)
    return Reminder(code, text, _frozen(details))
