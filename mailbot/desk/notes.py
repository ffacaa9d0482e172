"""What the desk writes of a message: its log lines and the reasons it stores."""

from __future__ import annotations

import re


def short(value: str | None, size: int = 80) -> str:
    """``value`` for a log line: ``-`` for none, cut to ``size`` characters.

    >>> short(None), short("abcdef", 4)
    ('-', 'abc…')
    """
    if not value:
        return "-"
    return value if len(value) <= size else value[: size - 1] + "…"


def storable(value: str, size: int = 2000) -> str:
    """Text the database takes whatever the mail put in it (reasons, errors).

    >>> storable("a\\x00b")
    'ab'
    """
    return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]", "", value)[:size]
