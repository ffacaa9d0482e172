"""What a name tells: the person's gender, and the name in the case a Russian
sentence needs.

Most start lists give no gender, yet Bulgarian and Russian write a man and a woman
in different words. The name mostly tells: a first name the Russian dictionary
(pymorphy3) or the list of :mod:`mailbot.compose.firstnames` knows, a patronymic
(``-вич``, ``-вна``), a surname ending (``-ов``, ``-ова``, ``-ский``, ``-ская``;
``-ov``, ``-ova`` in Latin script). A patronymic decides first, then a first name,
then a surname; a name that tells nothing (``Kim Lee``) gives None, and the mail
then speaks of that person in words without a gendered form::

    >>> [str(gender_of(n)) for n in ("Мария Петрова", "Тодор Тодоров", "Ann Able")]
    ['f', 'm', 'f']
    >>> gender_of("Kim Lee") is None
    True

Russian declines names: «против Ивана Сидорова», «игроку Марии Петровой». A name in
Latin script, and a word the dictionary and the endings do not know, stays as
written::

    >>> declined("Иван Сидоров", Case.GENITIVE), declined("Мария Петрова", Case.DATIVE)
    ('Ивана Сидорова', 'Марии Петровой')
    >>> declined("John Smith", Case.GENITIVE), declined("Анна Шевченко", Case.GENITIVE)
    ('John Smith', 'Анны Шевченко')

The dictionary is read at the first question, not at import (about 0.15 s and
30 MB), and kept for the life of the process.
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Iterable, Mapping
from typing import Any

from mailbot.compose.firstnames import FEMALE, MALE
from mailbot.store.kinds import Gender

__all__ = ["Case", "declined", "gender_of", "with_genders"]


class Case(enum.StrEnum):
    """A Russian case a template puts a name in (pymorphy3's names for them)."""

    GENITIVE = "gent"
    DATIVE = "datv"
    INSTRUMENTAL = "ablt"


class _Role(enum.Enum):
    FIRST = "first"
    PATRONYMIC = "patronymic"
    SURNAME = "surname"
    UNKNOWN = "unknown"


#: Patronymic endings (Cyrillic and Latin script) and the gender each tells.
_PATRONYMIC = (("вич", Gender.MALE), ("ьич", Gender.MALE), ("ич", Gender.MALE),
               ("вна", Gender.FEMALE), ("чна", Gender.FEMALE),
               ("vich", Gender.MALE), ("vna", Gender.FEMALE))  # fmt: skip
#: Surname endings and the gender each tells, the longest first.
_SURNAME = (("ская", Gender.FEMALE), ("цкая", Gender.FEMALE), ("ова", Gender.FEMALE),
            ("ева", Gender.FEMALE), ("ёва", Gender.FEMALE), ("ина", Gender.FEMALE),
            ("ына", Gender.FEMALE), ("ая", Gender.FEMALE), ("ска", Gender.FEMALE),
            ("цка", Gender.FEMALE),
            ("ский", Gender.MALE), ("цкий", Gender.MALE), ("ской", Gender.MALE),
            ("ски", Gender.MALE), ("цки", Gender.MALE), ("ов", Gender.MALE),
            ("ев", Gender.MALE), ("ёв", Gender.MALE), ("ин", Gender.MALE), ("ын", Gender.MALE),
            ("ый", Gender.MALE), ("ой", Gender.MALE), ("ий", Gender.MALE),
            ("skaya", Gender.FEMALE), ("skaja", Gender.FEMALE), ("ova", Gender.FEMALE),
            ("eva", Gender.FEMALE), ("ska", Gender.FEMALE),
            ("sky", Gender.MALE), ("ski", Gender.MALE), ("ov", Gender.MALE),
            ("ev", Gender.MALE), ("off", Gender.MALE))  # fmt: skip

#: Names whose gender is kept once told (:func:`gender_of`): the players of a
#: backlog's batch or two.
NAMES_KEPT = 1024

_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_LATIN = re.compile(r"[a-z]", re.IGNORECASE)
_VOWELS = "аеёиоуыэюя"


@functools.cache
def _analyser() -> Any:
    """pymorphy3's analyser, loaded at the first question (not at import)."""
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang="ru")


def _first_name_parse(word: str, gender: str | None = None) -> Any:
    """The dictionary's reading of ``word`` as a first name in the nominative
    singular (of ``gender`` where given), or None."""
    found, surname = [], 0.0
    for p in _analyser().parse(word):
        tag = p.tag
        if "Surn" in tag and tag.case == "nomn":
            surname = max(surname, p.score)
        if "Name" not in tag or tag.number != "sing" or tag.case != "nomn":
            continue
        if gender is not None and tag.gender not in ({"m": "masc", "f": "femn"}[gender], "ms-f"):
            continue
        found.append(p)
    best = max(found, key=lambda p: p.score) if found else None
    return best if best is not None and best.score >= surname and len(word) > 2 else None


def _surname_parse(word: str, gender: str) -> Any:
    """The dictionary's reading of ``word`` as a declinable surname of ``gender``."""
    want = {"m": "masc", "f": "femn"}[gender]
    for p in _analyser().parse(word):
        tag = p.tag
        if "Surn" in tag and "Fixd" not in tag and tag.case == "nomn" and tag.gender == want:
            return p
    return None


def _ending(word: str, table: Iterable[tuple[str, Gender]], shortest: int) -> Gender | None:
    for end, gender in table:
        if word.endswith(end) and len(word) >= max(shortest, len(end) + 2):
            return gender
    return None


@functools.lru_cache(maxsize=4096)
def _reading(word: str) -> tuple[_Role, Gender | None]:
    """What one word of a name is (a first name, a patronymic, a surname) and the
    gender it tells."""
    low = word.lower()
    found = _ending(low, _PATRONYMIC, 5) if len(low) > 4 else None
    latin_patronymic = low.endswith(("ovich", "evich", "ovna", "evna"))
    if found is not None and (not _LATIN.search(low) or latin_patronymic):
        return _Role.PATRONYMIC, found
    if low in MALE:
        return _Role.FIRST, Gender.MALE
    if low in FEMALE:
        return _Role.FIRST, Gender.FEMALE
    if _CYRILLIC.search(low) and not _LATIN.search(low):
        parse = _first_name_parse(low)
        if parse is not None:
            return _Role.FIRST, {"masc": Gender.MALE, "femn": Gender.FEMALE}.get(
                str(parse.tag.gender)
            )
    found = _ending(low, _SURNAME, 4)
    if found is not None:
        return _Role.SURNAME, found
    return _Role.UNKNOWN, None


def gender_of(name: str, given: str | None = None) -> Gender | None:
    """The gender the start list gives (``given``), else the one ``name`` tells.

    >>> [str(gender_of(n)) for n in ("Сидоров Иван Петрович", "Саша Иванова", "Ivan Petrov")]
    ['m', 'f', 'm']
    >>> str(gender_of("Dan Dale", "f"))
    'f'
    >>> gender_of("Саша Ли") is None, str(gender_of("Ольга Абрамович"))
    (True, 'f')
    """
    if given in ("f", "m"):
        return Gender(given)
    return _told(name)


@functools.lru_cache(maxsize=NAMES_KEPT)
def _told(name: str) -> Gender | None:
    """The gender ``name`` tells (:func:`gender_of`), kept for the next mail to the same
    player: a move's two mails and a batch's ask it of the same names again."""
    words = [w for w in re.split(r"\s+", name.strip()) if w]
    readings = [_reading(w) for word in words for w in word.split("-") if w]
    if len(words) < 3:
        # «Ольга Абрамович»: without a first name and a surname beside it, -вич is a surname
        readings = [(_Role.SURNAME, None) if r is _Role.PATRONYMIC and g is Gender.MALE
                    else (r, g) for r, g in readings]  # fmt: skip
    for role in (_Role.PATRONYMIC, _Role.FIRST, _Role.SURNAME):
        genders = {g for r, g in readings if r is role and g is not None}
        if len(genders) == 1:
            return genders.pop()
    return None


def _capitalised(like: str, word: str) -> str:
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def _by_ending(word: str, case: Case, gender: Gender | None, role: _Role) -> str:
    """``word`` in ``case`` by the endings of Russian names, or as it is."""
    low = word.lower()
    # the ending for the genitive, the dative and the instrumental
    pick = {Case.GENITIVE: 0, Case.DATIVE: 1, Case.INSTRUMENTAL: 2}[case]
    if low.endswith(("ска", "цка", "ски", "цки")):
        return word  # Bulgarian surnames: a Russian reader meets them as written
    if role is _Role.SURNAME and low.endswith(("ова", "ева", "ёва", "ина", "ына")):
        return word[:-1] + "ой"
    if role is _Role.SURNAME and low.endswith("ая"):
        return word[:-2] + "ой"
    if role is _Role.PATRONYMIC and gender is Gender.FEMALE and low.endswith("на"):
        return word[:-1] + ("ы", "е", "ой")[pick]
    if low.endswith("ия"):
        return word[:-1] + ("и", "и", "ей")[pick]
    if low.endswith("а") and len(low) > 2:
        soft = low[-2] in "гкхжшчщ"
        hush = low[-2] in "жшчщц"
        return word[:-1] + ("и" if soft else "ы", "е", "ей" if hush else "ой")[pick]
    if low.endswith("я") and len(low) > 2:
        return word[:-1] + ("и", "е", "ей")[pick]
    if gender is not Gender.MALE:
        return word  # a woman's name ending in a consonant does not decline
    if role is _Role.SURNAME and low.endswith(("ый", "ой", "ий")):
        hard = low.endswith(("ый", "ой")) or low[-3] in "гкх"
        vowel = "о" if hard else "е"
        return word[:-2] + (vowel + "го", vowel + "му", "ым" if low[-2] != "и" else "им")[pick]
    if role is _Role.SURNAME and low.endswith(("ов", "ев", "ёв", "ин", "ын")):
        return word + ("а", "у", "ым")[pick]
    if low.endswith(("й", "ь")):
        return word[:-1] + ("я", "ю", "ем")[pick]
    if low[-1] not in _VOWELS and low[-1] not in "ъ":
        return word + ("а", "у", "ем" if low[-1] in "жшчщц" else "ом")[pick]
    return word


def _declined_word(word: str, case: Case, gender: Gender | None) -> str:
    if not word or _LATIN.search(word) or not _CYRILLIC.search(word):
        return word
    role, _ = _reading(word)
    if role is _Role.UNKNOWN:
        parse = _surname_parse(word.lower(), gender) if gender is not None else None
        if parse is None:
            return word  # a word neither the dictionary nor the endings know
        inflected = parse.inflect({str(case)})
        return _capitalised(word, inflected.word) if inflected is not None else word
    if role is _Role.FIRST:
        parse = _first_name_parse(word.lower(), gender) if gender is not None else None
        if parse is not None:
            inflected = parse.inflect({str(case)})
            if inflected is not None:
                return _capitalised(word, inflected.word)
    return _by_ending(word, case, gender, role)


@functools.lru_cache(maxsize=4096)
def declined(name: str, case: Case, gender: str | None = None) -> str:
    """``name`` in the Russian ``case``, for a person of ``gender`` (where None, the
    one the name tells; a name that tells none declines only where both genders
    decline alike, as ``Саша`` does).

    >>> declined("Сидоров Иван Петрович", Case.DATIVE)
    'Сидорову Ивану Петровичу'
    >>> declined("Анна Андреевна Ахматова", Case.GENITIVE)
    'Анны Андреевны Ахматовой'
    >>> declined("Лев Толстой", Case.GENITIVE), declined("Римский-Корсаков", Case.DATIVE, "m")
    ('Льва Толстого', 'Римскому-Корсакову')
    >>> declined("Иван Петрович Сидоров", Case.INSTRUMENTAL)
    'Иваном Петровичем Сидоровым'
    >>> declined("Саша Ли", Case.INSTRUMENTAL), declined("Kim Lee", Case.DATIVE)
    ('Сашей Ли', 'Kim Lee')
    >>> declined("ИВАН ПЕТРОВ", Case.GENITIVE), declined("Ольга Абрамович", Case.DATIVE)
    ('ИВАНА ПЕТРОВА', 'Ольге Абрамович')
    """
    who = gender_of(name, gender)
    parts = re.split(r"(\s+|-)", name)
    return "".join(p if p.isspace() or p == "-" else _as_written(p, case, who) for p in parts)


def _as_written(word: str, case: Case, gender: Gender | None) -> str:
    """The word declined, in capitals where it was written in capitals (``ПЕТРОВ``)."""
    out = _declined_word(word, case, gender)
    return out.upper() if len(word) > 1 and word.isupper() else out


def with_genders(context: Mapping[str, Any]) -> dict[str, Any]:
    """``context`` with each gender the start list left out (``gender``: the reader's,
    ``opponent_gender``: the ``opponent``'s, ...) told by the name, in nested
    mappings too.

    >>> told = with_genders({"recipient": "Мария Петрова", "gender": None, "opponent": "Kim Lee",
    ...                      "opponent_gender": None, "player": "Иван", "player_gender": "f"})
    >>> told["gender"], told["opponent_gender"], told["player_gender"]
    ('f', None, 'f')
    """
    out: dict[str, Any] = {}
    for key, value in context.items():
        if isinstance(value, Mapping):
            value = with_genders(value)
        elif isinstance(value, list) and any(isinstance(v, Mapping) for v in value):
            value = [with_genders(v) if isinstance(v, Mapping) else v for v in value]
        out[key] = value
    if "recipient" in context and "gender" not in context:
        out["gender"] = None
    for key in list(out):
        if (key != "gender" and not key.endswith("_gender")) or out[key] in ("f", "m"):
            continue
        name = out.get("recipient" if key == "gender" else key.removesuffix("_gender"))
        found = gender_of(name) if isinstance(name, str) else None
        out[key] = str(found) if found is not None else None
    return out
