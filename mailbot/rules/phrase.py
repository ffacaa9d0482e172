"""A sentence to be written in the reader's language: a code and its details.

Pure data: the modules that decide pass phrases instead of prose, and
:mod:`mailbot.compose.catalogue` writes them in each reader's language::

    >>> Phrase("order.penalty", {"days": 5, "colour": "white", "game": "X-1/3"}).code
    'order.penalty'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["Phrase"]


@dataclasses.dataclass(frozen=True)
class Phrase:
    """A code of the catalogue (``order.penalty``) and the details it names."""

    code: str
    details: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def __str__(self) -> str:
        """The phrase in English, for logs and the command line.

        The catalogue writes it (:func:`mailbot.compose.catalogue.say`, installed
        into :data:`ENGLISH` when the catalogue is imported), so the rules read no
        file; without it a phrase shows its code and details.
        """
        if ENGLISH:
            return ENGLISH[0](self)
        details = " ".join(f"{k}={v}" for k, v in self.details.items())
        return f"{self.code} {details}".strip()


#: Who writes a phrase in English: filled once by :mod:`mailbot.compose.catalogue`.
ENGLISH: list[Callable[[Phrase], str]] = []
