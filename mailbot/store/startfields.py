"""The fields of a start list: how each is read, and the mistakes a reading finds.

Every reader validates its field with pydantic and raises :class:`StartListError`
naming the key (``players[2].email``);
:class:`Mistakes` gathers them so that a start list's mistakes are reported at once.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BeforeValidator, Field, Strict, TypeAdapter, ValidationError

from mailbot.mail.addresses import AddressError, check_address
from mailbot.rules.errors import StoreError, one_line
from mailbot.rules.notation import Notation
from mailbot.rules.validation import mistake, mistakes_of

#: The notations the bot writes moves in, by their start-list names (docs/rules.md 3.1).
NOTATIONS = tuple(notation.value for notation in Notation)

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
    """The tournament director, who receives copies and claims (a team's captain
    too, who has no ``gender``)."""

    name: str
    email: str
    #: ``f`` or ``m``, as a player's: how Bulgarian and Russian mail speaks of the
    #: director; None where the start list leaves it to the name.
    gender: str | None = None


def read_flag(data: Mapping[str, Any], key: str, default: bool) -> bool:
    """A key that is true or false (``default`` when left out).

    >>> read_flag({"conditional_moves": "yes"}, "conditional_moves", False)
    Traceback (most recent call last):
    ...
    mailbot.store.startfields.StartListError: conditional_moves: must be true or false
    """
    return _read(_FLAG, data.get(key, default), key, "must be true or false")


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


def _read(shape: TypeAdapter[T], value: Any, path: str, message: str | None = None) -> T:
    """``value`` validated by ``shape``; its first mistake, as ``message`` when given
    (a field wrong in any way is wrong as a whole), raised as :class:`StartListError`."""
    try:
        return shape.validate_python(value)
    except ValidationError as exc:
        found = mistakes_of(exc, {"string_type": "must be text"})
        raise StartListError(path, message or found[0][1]) from None


def _ascii_number(value: Any) -> Any:
    """A number written as text (a CSV cell): ASCII digits only, since ``str.isdigit()``
    takes ``²``, which ``int()`` refuses."""
    if isinstance(value, str) and re.fullmatch(r"[0-9]{1,18}", value.strip()):
        return int(value.strip())
    return value


def _iso_date(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value.strip())
        except ValueError:
            pass
    return value


def _player_id(value: str) -> str:
    if not _PLAYER_ID.match(value):
        raise mistake("not a key")
    return value


def _filled(value: str) -> str:
    if not value:
        raise mistake("must not be empty")
    return value


_FLAG: TypeAdapter[bool] = TypeAdapter(Annotated[bool, Strict()])
_TEXT: TypeAdapter[str] = TypeAdapter(
    Annotated[str, Strict(), AfterValidator(str.strip), AfterValidator(_filled)]
)
#: A date without a time; a datetime is a date too, so it is refused before.
_DATE: TypeAdapter[datetime.date] = TypeAdapter(
    Annotated[datetime.date, BeforeValidator(_iso_date), Strict()]
)
#: A number is taken as written (``id: 7``): start lists often number players.
_ID: TypeAdapter[str] = TypeAdapter(
    Annotated[
        str,
        BeforeValidator(lambda v: str(v) if isinstance(v, int) and not isinstance(v, bool) else v),
        Strict(),
        AfterValidator(str.strip),
        AfterValidator(_player_id),
    ]
)


@functools.cache
def _number(low: int, high: int) -> TypeAdapter[int]:
    """Whole numbers from ``low`` to ``high``, ASCII digits in text too."""
    return TypeAdapter(
        Annotated[int, BeforeValidator(_ascii_number), Strict(), Field(ge=low, le=high)]
    )


def read_text(data: Mapping[str, Any], key: str, path: str, default: Any = _MISSING) -> str:
    """The text at ``key``, without the spaces around it (``default`` when left out).

    >>> read_text({"index": " BG-1 "}, "index", "index"), read_text({}, "x", "x", "en")
    ('BG-1', 'en')
    """
    if key not in data or data[key] is None:
        if default is _MISSING:
            raise StartListError(path, "is required")
        return str(default)
    return _read(_TEXT, data[key], path)


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
    """A date like 2026-03-01, as YAML reads it or as text.

    >>> read_date({"start": "2026-02-30"}, "start")
    Traceback (most recent call last):
    ...
    mailbot.store.startfields.StartListError: start: must be a date like 2026-03-01
    """
    if key not in data or data[key] is None:
        raise StartListError(key, "is required")
    value = data[key]
    if isinstance(value, datetime.datetime):
        raise StartListError(key, "must be a date like 2026-03-01, without a time")
    return _read(_DATE, value, key, "must be a date like 2026-03-01")


def read_director(data: Any, special_use: bool) -> Director:
    """The start list's ``director:``, with a ``gender`` as a player may have.

    >>> read_director({"name": "Kim Lee", "email": "td@federation.example", "gender": "f"},
    ...               False).gender
    'f'
    >>> read_director({"name": "Kim Lee", "email": "td@federation.example", "gender": "x"}, False)
    Traceback (most recent call last):
    ...
    mailbot.store.startfields.StartListError: director.gender: must be one of f, m
    """
    if data is None:
        raise StartListError("director", "is required")
    if not isinstance(data, Mapping):
        raise StartListError("director", "must be {name: ..., email: ...}")
    for key in data:
        if key not in ("name", "email", "gender"):
            raise StartListError(f"director.{key}", "unknown key")
    name = read_name(data, "director.name")
    if "email" not in data:
        raise StartListError("director.email", "is required")
    gender = None
    if data.get("gender") is not None:
        gender = read_choice(data, "gender", "director.gender", ("f", "m"))
    return Director(name, normalise_email("director.email", data["email"], special_use), gender)


def read_id(value: Any, path: str) -> str:
    """A player's or a team's key.

    >>> read_id(7, "players[0].id"), read_id(" ivanov ", "players[1].id")
    ('7', 'ivanov')
    """
    return _read(_ID, value, path, "must be letters, digits, '.', '_' or '-' (at most 64)")


def read_number(value: Any, path: str, low: int, high: int) -> int | None:
    """A whole number from ``low`` to ``high``; None when left empty.

    >>> read_number("12", "rating", 0, 4000), read_number("", "rating", 0, 4000)
    (12, None)
    >>> read_number("²", "board", 1, 99)
    Traceback (most recent call last):
    ...
    mailbot.store.startfields.StartListError: board: must be a whole number from 1 to 99
    """
    if value is None or value == "":
        return None
    return _read(_number(low, high), value, path, f"must be a whole number from {low} to {high}")
