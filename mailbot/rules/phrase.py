"""A sentence to be written in the reader's language: a code and its details.

Pure data: the modules that decide pass phrases instead of prose, and
:mod:`mailbot.catalogue` writes them in each reader's language::

    >>> Phrase("order.penalty", {"days": 5, "colour": "white", "game": "X-1/3"}).code
    'order.penalty'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

__all__ = ["Phrase"]


@dataclasses.dataclass(frozen=True)
class Phrase:
    """A code of the catalogue (``order.penalty``) and the details it names."""

    code: str
    details: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def __str__(self) -> str:
        """The phrase in English (for logs and the command line)."""
        from mailbot.catalogue import say  # the catalogue reads files: not the core's business

        return say("en", self)
