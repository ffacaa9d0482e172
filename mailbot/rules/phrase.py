"""A sentence to be written in the reader's language: a code and its details.

Pure data: the modules that decide pass phrases instead of prose, and
:mod:`mailbot.compose.catalogue` writes them in each reader's language::

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
        """The phrase's code and details, the same wherever it is written: the words
        a reader sees are the catalogue's (:func:`mailbot.compose.catalogue.say`).

        >>> str(Phrase("order.penalty", {"days": 5, "game": "X-1/3"}))
        'order.penalty days=5 game=X-1/3'
        """
        details = " ".join(f"{k}={v}" for k, v in self.details.items())
        return f"{self.code} {details}".strip()

    def to_data(self) -> dict[str, Any]:
        """The phrase as JSON can keep it (a phrase among its details too).

        >>> Phrase("leave", {"why": Phrase("leave.no-dates"), "days": 3}).to_data()
        {'code': 'leave', 'details': {'why': {'code': 'leave.no-dates', 'details': {}}, 'days': 3}}
        """
        return {"code": self.code, "details": {k: _data(v) for k, v in self.details.items()}}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Phrase:
        """The phrase :meth:`to_data` kept.

        >>> p = Phrase("leave", {"why": Phrase("leave.no-dates"), "days": 3})
        >>> Phrase.from_data(p.to_data()) == p
        True
        """
        details = data.get("details") or {}
        return cls(str(data["code"]), {k: _revived(v) for k, v in details.items()})


def _data(value: Any) -> Any:
    if isinstance(value, Phrase):
        return value.to_data()
    if isinstance(value, list | tuple):
        return [_data(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _data(v) for k, v in value.items()}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def _revived(value: Any) -> Any:
    if isinstance(value, Mapping) and set(value) == {"code", "details"}:
        return Phrase.from_data(value)
    if isinstance(value, list):
        return [_revived(v) for v in value]
    return value
