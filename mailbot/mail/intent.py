"""What a message asks for, besides a move: the words of docs/contract.md.

A line that starts with one of the words (any case, English, Bulgarian or
Russian) is a command; a word may also follow a move on its line
(``23. Дd1-d4 draw``). The move itself is read by :mod:`mailbot.rules.referee`.

>>> words = read_words("23. Дd1-d4 реми")
>>> [w.word for w in words.commands]
[<Word.DRAW: 'draw'>]
>>> read_words("leave 1.6.2026 30.6.2026").leave
(datetime.date(2026, 6, 1), datetime.date(2026, 6, 30))
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import functools
import re

from mailbot.mail.storable import MAX_READ
from mailbot.rules.leave import parse_date
from mailbot.rules.notation import KEPT_TEXT, read_moves
from mailbot.rules.phrase import Phrase


class Word(enum.Enum):
    """A command word of docs/contract.md ("Words in mail")."""

    DRAW = "draw"
    ACCEPT = "accept"
    DECLINE = "decline"
    RESIGN = "resign"
    CLAIM = "claim"
    COMPLAINT = "complaint"
    LEAVE = "leave"
    DELAY = "delay"
    STATUS = "status"
    HELP = "help"
    CONFIRM = "confirm"
    REJECT = "reject"
    DIGEST = "digest"
    WARNINGS = "warnings"
    XFCC = "xfcc"
    PGN = "pgn"


#: The words in each language, as the ``help`` answer lists them. The first
#: spelling of each language is the one shown; the others are accepted too.
VOCABULARY: dict[Word, dict[str, tuple[str, ...]]] = {
    Word.DRAW: {
        "en": ("draw", "offer draw", "draw offer", "i offer a draw"),
        "bg": ("реми", "предлагам реми"),
        "ru": ("ничья", "ничью", "предлагаю ничью"),
    },
    Word.ACCEPT: {
        "en": ("accept", "draw accepted", "i accept"),
        "bg": ("приемам", "приемам реми"),
        "ru": ("принимаю", "принимаю ничью", "согласен на ничью"),
    },
    Word.DECLINE: {
        "en": ("decline",),
        "bg": ("отказвам",),
        "ru": ("отклоняю",),
    },
    Word.RESIGN: {
        "en": ("resign", "i resign", "resigns"),
        "bg": ("предавам", "предавам се"),
        "ru": ("сдаюсь", "сдаю партию"),
    },
    Word.CLAIM: {
        "en": ("claim",),
        "bg": ("претендирам",),
        "ru": ("требую",),
    },
    Word.COMPLAINT: {
        "en": ("complaint", "i complain"),
        "bg": ("рекламация", "жалба"),
        "ru": ("рекламация", "жалоба"),
    },
    Word.LEAVE: {
        "en": ("leave",),
        "bg": ("отпуск",),
        "ru": ("отпуск",),
    },
    Word.DIGEST: {
        "en": ("digest",),
        "bg": ("обобщение",),
        "ru": ("сводка",),
    },
    Word.WARNINGS: {
        "en": ("warnings",),
        "bg": ("предупреждения",),
        "ru": ("предупреждения",),
    },
    Word.XFCC: {
        "en": ("xfcc",),
        "bg": ("xfcc",),
        "ru": ("xfcc",),
    },
    Word.PGN: {
        "en": ("pgn",),
        "bg": ("pgn",),
        "ru": ("pgn",),
    },
    Word.DELAY: {
        "en": ("delay",),
        "bg": ("забавяне",),
        "ru": ("задержка",),
    },
    Word.STATUS: {
        "en": ("status",),
        "bg": ("статус", "състояние"),
        "ru": ("статус", "состояние"),
    },
    Word.HELP: {
        "en": ("help",),
        "bg": ("помощ",),
        "ru": ("помощь",),
    },
    Word.CONFIRM: {
        "en": ("confirm", "confirmed"),
        "bg": ("потвърждавам",),
        "ru": ("подтверждаю",),
    },
    Word.REJECT: {
        "en": ("reject", "rejected"),
        "bg": ("отхвърлям",),
        "ru": ("отвергаю",),
    },
}

_SPELLINGS: list[tuple[str, Word]] = sorted(
    ((s, w) for w, langs in VOCABULARY.items() for ss in langs.values() for s in ss),
    key=lambda item: -len(item[0]),
)

_DATE = r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}\.\d{1,2}\.\d{4}"
_LEAVE_DATES = re.compile(rf"({_DATE})\s*(?:-|–|—|to|до|по)?\s*({_DATE})", re.IGNORECASE)


_OFFER = re.compile(
    r"\b(?:i offer(?: you)? a draw|offers? (?:you )?a draw|draw offer"
    r"|предлагам(?: ви)? реми|предлагаю(?: вам)? ничью)\b",
    re.IGNORECASE,
)


@dataclasses.dataclass(frozen=True)
class Command:
    """One command word found in a message, with the rest of its line."""

    word: Word
    line: str
    rest: str


@dataclasses.dataclass(frozen=True)
class Words:
    """The commands of one message.

    ``leave`` holds the dates of a ``leave`` command, ``leave_error`` why they
    could not be read; ``digest`` is True for ``digest on``, False for
    ``digest off`` and None for a bare ``digest`` (which asks how it stands);
    ``warnings`` and ``pgn`` likewise for ``warnings on|off`` and ``pgn on|off``.
    """

    commands: tuple[Command, ...]
    leave: tuple[datetime.date, datetime.date] | None = None
    leave_error: Phrase | None = None
    digest: bool | None = None
    warnings: bool | None = None
    pgn: bool | None = None

    def has(self, word: Word) -> bool:
        """Whether the message carries ``word``.

        >>> read_words("resign").has(Word.RESIGN)
        True
        """
        return any(c.word is word for c in self.commands)

    def get(self, word: Word) -> Command | None:
        """The first command ``word`` of the message, if any."""
        return next((c for c in self.commands if c.word is word), None)


#: What follows ``digest`` to turn it on or off, in each language.
_DIGEST_SWITCH = {
    **dict.fromkeys(("on", "вкл", "включи", "включено", "включить", "да", "yes"), True),
    **dict.fromkeys(("off", "изкл", "изключи", "изключено", "выкл", "выключить",
                     "отключить", "не", "нет", "no"), False),
}  # fmt: skip


def _match_word(text: str) -> tuple[Word, str] | None:
    low = text.casefold()
    for spelling, word in _SPELLINGS:
        if low.startswith(spelling):
            after = low[len(spelling) : len(spelling) + 1]
            if after == "" or not (after.isalnum() or after == "_"):
                return word, text[len(spelling) :].strip(" \t.,;:!?-–—")
    return None


def read_words(body: str) -> Words:
    """Find the command words in ``body`` (the new text of a message).

    >>> read_words("Good morning!\\n12. e2-e4 draw\\nRegards").commands[0].word
    <Word.DRAW: 'draw'>
    >>> read_words("I will take my leave soon").commands
    ()
    >>> read_words("19. Qd1-h5, and I offer you a draw; think it over").has(Word.DRAW)
    True
    >>> read_words("14. Кf3-d4 реми?").has(Word.DRAW)
    True

    The words of the last texts of a usual length are kept, as their moves are
    (:func:`mailbot.rules.notation.read_moves`).
    """
    if len(body) <= KEPT_TEXT:
        return _kept_words(body)
    return _read_words(body)


@functools.lru_cache(maxsize=64)
def _kept_words(body: str) -> Words:
    return _read_words(body)


def _read_words(body: str) -> Words:
    found: list[Command] = []
    for raw_line in body[:MAX_READ].splitlines():
        line = raw_line.strip()
        if not line:
            continue
        hit = _match_word(line)
        if hit is None and _OFFER.search(line):
            # a draw offer inside a sentence: "... and I offer you a draw"
            hit = (Word.DRAW, "")
        if hit is None:
            # a word after a move on the same line: "23. Дd1-d4 draw"
            last = re.split(r"[\s;,]+", line.rstrip(" .!?;,"))
            if len(last) >= 2:
                hit = _match_word(last[-1])
                if hit is not None and hit[1]:
                    hit = None
        if hit is not None:
            word, rest = hit
            if word is Word.LEAVE and not _LEAVE_DATES.search(rest) and rest:
                # "leave" as an ordinary English word, not a leave request
                continue
            if word in _SWITCHED and rest and _switch(rest) is None:
                continue  # "digest" as an ordinary word ("I need to digest this")
            found.append(Command(word, line, rest))
    leave: tuple[datetime.date, datetime.date] | None = None
    error: Phrase | None = None
    command = next((c for c in found if c.word is Word.LEAVE), None)
    if command is not None:
        match = _LEAVE_DATES.search(command.rest)
        if match is None:
            error = Phrase("leave.no-dates")
        else:
            for text in match.groups():
                try:
                    parse_date(text)
                except ValueError:
                    error = error or Phrase("leave.bad-date", {"value": text})
            if error is None:
                leave = (parse_date(match.group(1)), parse_date(match.group(2)))
    digest = next((_switch(c.rest) for c in found if c.word is Word.DIGEST), None)
    warnings = next((_switch(c.rest) for c in found if c.word is Word.WARNINGS), None)
    pgn = next((_switch(c.rest) for c in found if c.word is Word.PGN), None)
    return Words(tuple(found), leave, error, digest, warnings, pgn)


#: The words turned on or off by what follows them (:func:`_switch`).
_SWITCHED = (Word.DIGEST, Word.WARNINGS, Word.PGN)


def _switch(rest: str) -> bool | None:
    """``on`` or ``off`` after ``digest``, ``warnings`` or ``pgn``, in any of the three
    languages.

    >>> _switch("on"), _switch("ИЗКЛ."), _switch("this later"), read_words("pgn выкл").pgn
    (True, False, None, False)
    """
    first = rest.casefold().split()
    return _DIGEST_SWITCH.get(first[0].strip(".,;:!?")) if first else None


def help_words(language: str) -> list[tuple[Word, tuple[str, ...]]]:
    """The words and their spellings in ``language``, for the ``help`` answer.

    >>> help_words("bg")[0]
    (<Word.DRAW: 'draw'>, ('реми', 'предлагам реми'))
    """
    return [(w, langs.get(language, langs["en"])) for w, langs in VOCABULARY.items()]


_RE_NUMBER = re.compile(r"(?:^|\s)\d{1,3}\s*(?:\.{1,3}|…)\s*(?=$|\s)")
#: The longest text forwarded with a move.
SAID = 2000


def said(body: str) -> str:
    """What a player wrote beside the move and the words: the text for the opponent.

    The moves (with their numbers) and lines of command words are left out; quotes
    and signatures are gone already (they are not in a letter's body).

    >>> said("Здравейте,\\n\\n12. Оf1-c4 Кg8-f6\\n\\nПоздрави,\\nИван")
    'Здравейте,\\n\\nПоздрави,\\nИван'
    >>> said("23. Дd1-d4 draw")
    ''
    """
    kept: list[str] = []
    for whole in body[:MAX_READ].splitlines():
        if read_words(whole).commands:
            continue
        pieces: list[str] = []
        done = 0
        for reading in sorted(read_moves(whole), key=lambda r: r.span[0]):
            start, end = reading.span
            pieces.append(whole[done:start])
            done = max(done, end)
        pieces.append(whole[done:])
        line = _RE_NUMBER.sub(" ", " ".join(pieces)).strip()
        if line or (kept and kept[-1]):
            kept.append(line if sum(c.isalpha() for c in line) >= 2 else "")
    text = "\n".join(kept).strip()
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text[:SAID]
