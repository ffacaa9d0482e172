"""The languages the bot writes in: one registry that the templates, the catalogue of
phrases and the start list all read.

A language is its code (the folder ``templates/<code>/`` holds its mail templates and
its ``phrases.yaml``), its name in its own words, and how its nouns follow a number.
Adding a language is that folder and one line of :data:`LANGUAGES`::

    >>> CODES
    ('en', 'bg', 'ru')
    >>> plural(21, "ru", "день", "дня", "дней"), plural(3, "ru", "день", "дня", "дней")
    ('день', 'дня')
    >>> plural(1, "bg", "ден", "дни", "дни"), plural(11, "en", "day", "days", "days")
    ('ден', 'days')
"""

from __future__ import annotations

import dataclasses
import enum

__all__ = ["CODES", "LANGUAGES", "Language", "Plurals", "language", "plural"]


class Plurals(enum.Enum):
    """How a language's nouns follow a number."""

    #: One form for 1, another for every other number (English, Bulgarian).
    ONE_OTHER = "one-other"
    #: 1, 21, 31...; 2-4, 22-24...; the rest (Russian, Ukrainian).
    EAST_SLAVIC = "east-slavic"


@dataclasses.dataclass(frozen=True)
class Language:
    """A language the bot writes in."""

    code: str
    #: The language's name in its own words.
    name: str
    plurals: Plurals


#: Every language the bot writes in; the first is the fallback.
LANGUAGES: tuple[Language, ...] = (
    Language("en", "English", Plurals.ONE_OTHER),
    Language("bg", "български", Plurals.ONE_OTHER),
    Language("ru", "русский", Plurals.EAST_SLAVIC),
)
CODES: tuple[str, ...] = tuple(lang.code for lang in LANGUAGES)


def language(code: str) -> Language:
    """The language of ``code``; the fallback (English) for a code the bot does not know."""
    return next((lang for lang in LANGUAGES if lang.code == code), LANGUAGES[0])


def plural(n: int, code: str, one: str, few: str, many: str) -> str:
    """The noun form for ``n`` in the language of ``code`` (``few`` only where the
    language has such a form)."""
    if language(code).plurals is Plurals.EAST_SLAVIC:
        if n % 10 == 1 and n % 100 != 11:
            return one
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return few
        return many
    return one if abs(n) == 1 else many
