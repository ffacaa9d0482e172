"""Phrases in each language: codes with details in, sentences out.

The modules that decide pass a :class:`Phrase` (a code and its details), never
prose; the sentence a reader sees is looked up in the reader's language, in
``templates/<language>/phrases.yaml``. A phrase is a format string whose
``{name}`` takes a detail and whose ``{name|one|few|many}`` takes the word
for that number (Russian has three forms, Bulgarian and English two); ``{name:gent}``
(``datv``, ``ablt``) puts a name in a Russian case::

    >>> say("en", Phrase("order.penalty", {"days": 5, "colour": "white", "game": "X-1/3"}))
    '5 penalty days added to White in X-1/3 (art. 56)'
    >>> say("ru", Phrase("order.penalty", {"days": 5, "colour": "white", "game": "X-1/3"}))
    'белым в партии X-1/3 добавлено 5 штрафных дней (ст. 56)'

Details named ``colour``, ``turn`` or ``*_colour`` are colours (``white``,
``black``), and ``verb`` a director's order (``penalty``): both are written as
the language writes them. Adding a language is one folder of templates with
its ``phrases.yaml`` and one line of :data:`mailbot.rules.languages.LANGUAGES`.

A code under ``referee.`` is a reason of the referee, written from its own table::

    >>> say("bg", Phrase("referee.no-piece", {"square": "e3"}))
    'на e3 няма фигура'
"""

from __future__ import annotations

import functools
import importlib.resources
import re
import string
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from mailbot.compose.grammar import Case, declined
from mailbot.rules.languages import CODES, plural
from mailbot.rules.phrase import Phrase
from mailbot.rules.verdicts import REASONS, render_text

__all__ = ["Phrase", "codes", "has", "say", "say_kept", "template_dir"]


def template_dir() -> Path:
    """The folder of the shipped templates: ``templates/`` beside ``mailbot/`` in a
    checkout, else the installed ``mailbot/templates``.

    >>> (template_dir() / "en" / "phrases.yaml").is_file()
    True
    """
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file() and (checkout / "templates").is_dir():
        return checkout / "templates"
    return Path(str(importlib.resources.files("mailbot.templates")))


@functools.cache
def _table(language: str) -> dict[str, str]:
    path = template_dir() / language / "phrases.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else {}
    flat: dict[str, str] = {}

    def walk(prefix: str, node: Any) -> None:
        if isinstance(node, Mapping):
            for key, value in node.items():
                walk(f"{prefix}.{key}" if prefix else str(key), value)
        else:
            flat[prefix] = str(node)

    walk("", data or {})
    return flat


def codes(language: str) -> set[str]:
    """Every code the catalogue of ``language`` has."""
    return set(_table(language))


def has(language: str, code: str) -> bool:
    return code in _table(language)


#: The prefix of a referee's reason (``referee.no-piece``), written by its own table.
REFEREE = "referee."

_COLOURISH = re.compile(r"(?:^|_)(?:colour|turn)$")
_CASES = frozenset(str(case) for case in Case)


class _Formatter(string.Formatter):
    def __init__(self, language: str) -> None:
        self.language = language

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> tuple[Any, str]:
        name, _, forms = field_name.partition("|")
        value = kwargs.get(name, "")
        if forms:
            words = forms.split("|")
            if len(words) == 2:  # one | many (English, Bulgarian)
                words = [words[0], words[1], words[1]]
            one, few, many = words[:3]
            return plural(int(value), self.language, one, few, many), name
        if _COLOURISH.search(name) and value in ("white", "black"):
            return say(self.language, Phrase(f"colour.{value}")), name
        if name == "verb" and has(self.language, f"verb.{value}"):
            return say(self.language, Phrase(f"verb.{value}")), name
        if isinstance(value, Phrase):
            return say(self.language, value), name
        if isinstance(value, list | tuple) and all(isinstance(v, Phrase) for v in value):
            return "; ".join(say(self.language, v) for v in value), name
        return value, name

    def format_field(self, value: Any, format_spec: str) -> Any:
        """``{player:gent}``: a name in a Russian case (:mod:`mailbot.compose.grammar`)."""
        if format_spec in _CASES and isinstance(value, str):
            return declined(value, Case(format_spec))
        return super().format_field(value, format_spec)


def say(language: str, phrase: Phrase) -> str:
    """``phrase`` in ``language`` (English where the language has no such phrase)."""
    if language not in CODES:
        language = "en"
    if phrase.code.startswith(REFEREE):
        # the referee's reasons are its own table (mailbot.rules.verdicts)
        code = phrase.code.removeprefix(REFEREE)
        text = render_text(REASONS, code, phrase.details, language)
        return text if text is not None else phrase.code
    template = _lookup(language, phrase) or _lookup("en", phrase)
    if template is None:
        return phrase.code
    return _Formatter(language).vformat(template, (), dict(phrase.details))


def say_kept(language: str, data: Mapping[str, Any] | None, text: str | None = None) -> str:
    """A phrase the store kept (:meth:`Phrase.to_data`) in ``language``; without one, the
    ``text`` kept beside it (a row kept before reasons were phrases holds its English).

    >>> say_kept("en", {"code": "reason.echo", "details": {}}, "reason.echo")
    'the same text came three times in a day (a mail loop?)'
    >>> say_kept("en", None, "failed 3 times"), say_kept("en", None)
    ('failed 3 times', '')
    """
    if data:
        return say(language, Phrase.from_data(data))
    return text or ""


def _lookup(language: str, phrase: Phrase) -> str | None:
    """The phrase's template: its code, or (where the language writes each colour in its
    own words, as Russian does) its code for the colour it names."""
    table = _table(language)
    found = table.get(phrase.code)
    if found is None and "colour" in phrase.details:
        found = table.get(f"{phrase.code}.{phrase.details['colour']}")
    return found
