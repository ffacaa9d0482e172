"""The fields of a start list: how each is read, and the mistakes a reading finds.

Every reader raises :class:`StartListError` naming the key (``players[2].email``);
:class:`Mistakes` gathers them so that a start list's mistakes are reported at once.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from mailbot.mail.addresses import AddressError, check_address
from mailbot.rules.errors import StoreError, one_line

#: The languages the bot writes in.
#: The notations the bot writes moves in (docs/rules.md 3.1).
NOTATIONS = ("en", "bg-cyrillic", "bg-latin", "ru", "de", "iccf-numeric", "figurine")

T = TypeVar("T")

_PLAYER_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
_INDEX = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}\Z")
#: What a tournament index may be, said to whoever gave another.
INDEX_RULE = "letters, digits, '.', '_' or '-' (at most 40), e.g. BG-2026-E1"


def is_index(text: str) -> bool:
    """Whether ``text`` may be a tournament index: plain ASCII letters, digits, ``.``,
    ``_`` and ``-``, a letter or digit first, at most 40. Such an index names no other
    path than its own folder of the site (no ``..``, ``/``, NUL or leading dot).

    >>> is_index("BG-2026-E1"), is_index(".."), is_index("a/b"), is_index("Х-1")
    (True, False, False, False)
    """
    return _INDEX.match(text) is not None


class StartListError(StoreError, ValueError):
    """The start list is not valid; ``path`` names the key (``players[2].email``).

    ``where`` names the file, line and column when they are known.
    """

    def __init__(self, path: str, message: str, where: str = "") -> None:
        path, message, where = one_line(path), one_line(message), one_line(where)
        text = f"{path}: {message}" if path else message
        super().__init__(f"{where}: {text}" if where else text)
        self.path = path
        self.message = message
        self.where = where

    def at(self, where: str) -> StartListError:
        """The same mistake, placed at ``where`` (``start.yaml, line 7, column 12``)."""
        return StartListError(self.path, self.message, where)

    @property
    def mistakes(self) -> tuple[StartListError, ...]:
        """Every mistake found, in the order of the file (this one alone, here)."""
        return (self,)


class StartListErrors(StartListError):
    """Several mistakes in one start list, all found in one reading; its text is one
    line a mistake, and its ``path``, ``message`` and ``where`` are the first one's.

    >>> errors = StartListErrors([StartListError("index", "is required"),
    ...                           StartListError("end", "must be after start")])
    >>> print(errors)
    index: is required
    end: must be after start
    """

    def __init__(self, mistakes: Sequence[StartListError]) -> None:
        found = tuple(m for mistake in mistakes for m in mistake.mistakes)
        first = found[0]
        super().__init__(first.path, first.message, first.where)
        self.args = ("\n".join(str(m) for m in found),)
        self._mistakes = found

    def __str__(self) -> str:
        return str(self.args[0])

    @property
    def mistakes(self) -> tuple[StartListError, ...]:
        return self._mistakes


class Mistakes:
    """Mistakes gathered while the checks go on, raised together at the end."""

    def __init__(self) -> None:
        self.found: list[StartListError] = []

    def check(self, check: Callable[[], T], fallback: T) -> T:
        """What ``check()`` gives, or ``fallback`` after noting its mistake."""
        try:
            return check()
        except StartListError as mistake:
            self.found.append(mistake)
            return fallback

    def raise_any(self) -> None:
        if len(self.found) == 1:
            raise self.found[0]
        if self.found:
            raise StartListErrors(self.found)


@dataclasses.dataclass(frozen=True)
class Director:
    """The tournament director, who receives copies and claims."""

    name: str
    email: str


def read_flag(data: Mapping[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise StartListError(key, "must be true or false")
    return value


def normalise_email(path: str, address: Any, special_use: bool = False) -> str:
    """The address in the form the bot compares: validated, in its normal form.

    >>> normalise_email("email", "Ivan.Ivanov@Example.ORG")
    'ivan.ivanov@example.org'
    >>> normalise_email("email", "ivan@xn--e1afmkfd.xn--90ae")
    'ivan@пример.бг'
    """
    if not isinstance(address, str) or not address.strip():
        raise StartListError(path, "must be an e-mail address")
    try:
        return check_address(address, special_use=special_use)
    except AddressError as exc:
        raise StartListError(path, str(exc)) from None


_MISSING: Any = object()


def read_text(data: Mapping[str, Any], key: str, path: str, default: Any = _MISSING) -> str:
    if key not in data or data[key] is None:
        if default is _MISSING:
            raise StartListError(path, "is required")
        return str(default)
    value = data[key]
    if not isinstance(value, str):
        raise StartListError(path, "must be text")
    value = value.strip()
    if not value:
        raise StartListError(path, "must not be empty")
    return value


def read_name(data: Mapping[str, Any], path: str) -> str:
    """A name (of the tournament, a team, a player, the director or a captain) as
    one line: a line break inside it, and any run of white space, is one space;
    names go into subjects, headers and table cells.

    >>> read_name({"name": "National\\n  e-mail\\r\\nchampionship "}, "name")
    'National e-mail championship'
    """
    return " ".join(read_text(data, "name", path).split())


def read_choice(
    data: Mapping[str, Any], key: str, path: str, choices: tuple[str, ...], default: Any = _MISSING
) -> str:
    value = read_text(data, key, path, default)
    if value not in choices:
        raise StartListError(path, f"must be one of {', '.join(choices)}")
    return value


def read_date(data: Mapping[str, Any], key: str) -> datetime.date:
    if key not in data or data[key] is None:
        raise StartListError(key, "is required")
    value = data[key]
    if isinstance(value, datetime.datetime):
        raise StartListError(key, "must be a date like 2026-03-01, without a time")
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise StartListError(key, "must be a date like 2026-03-01")


def read_director(data: Any, special_use: bool) -> Director:
    if data is None:
        raise StartListError("director", "is required")
    if not isinstance(data, Mapping):
        raise StartListError("director", "must be {name: ..., email: ...}")
    for key in data:
        if key not in ("name", "email"):
            raise StartListError(f"director.{key}", "unknown key")
    name = read_name(data, "director.name")
    if "email" not in data:
        raise StartListError("director.email", "is required")
    return Director(name, normalise_email("director.email", data["email"], special_use))


def read_id(value: Any, path: str) -> str:
    # A number is taken as written (``id: 7``): start lists often number players.
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not _PLAYER_ID.match(value.strip()):
        raise StartListError(path, "must be letters, digits, '.', '_' or '-' (at most 64)")
    return value.strip()


def read_number(value: Any, path: str, low: int, high: int) -> int | None:
    if value is None or value == "":
        return None
    # ASCII digits only: str.isdigit() takes '²', which int() refuses.
    if isinstance(value, str) and re.fullmatch(r"[0-9]{1,18}", value.strip()):
        value = int(value.strip())
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise StartListError(path, f"must be a whole number from {low} to {high}")
    return value
