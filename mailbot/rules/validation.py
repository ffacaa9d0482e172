"""Validation's mistakes in the bot's words: pydantic's error list as one line a mistake.

The configuration, the start lists and the rule overrides are checked by pydantic;
each of its errors becomes ``(path, message)``, the path dotted (``imap.port``,
``players[2].email``) and the message one of the bot's phrases::

    >>> import pydantic
    >>> from typing import Annotated
    >>> port = Annotated[int, pydantic.Strict(), pydantic.Field(ge=1, le=65535)]
    >>> shape = pydantic.TypeAdapter(dict[str, port])
    >>> try:
    ...     shape.validate_python({"imap": "993", "smtp": 0, "pop": None})
    ... except pydantic.ValidationError as exc:
    ...     for path, message in mistakes_of(exc):
    ...         print(f"{path}: {message}")
    imap: must be a whole number
    smtp: must be at least 1
    pop: must not be empty
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import ValidationError
from pydantic_core import ErrorDetails, PydanticCustomError

#: The type of the errors whose message is the bot's own phrase (:func:`mistake`).
OWN = "mailbot"

#: pydantic's error types, in the bot's words; ``{ge}``, ``{le}`` and ``{expected}``
#: come from the error's context.
PHRASES: Mapping[str, str] = {
    "missing": "is required",
    "extra_forbidden": "unknown key",
    "unexpected_keyword_argument": "unknown key",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "string_type": "must be text",
    "greater_than_equal": "must be at least {ge}",
    "less_than_equal": "must be at most {le}",
    "enum": "must be one of {expected}",
    "literal_error": "must be one of {expected}",
    "dataclass_type": "must be a mapping of keys to values",
    "dict_type": "must be a mapping of keys to values",
    "model_type": "must be a mapping of keys to values",
}

#: The error types that ask for a mapping: an empty value is not a mapping either.
_MAPPINGS = ("dataclass_type", "dict_type", "model_type")


def mistake(message: str) -> PydanticCustomError:
    """The error a validator raises to say ``message`` as it is.

    >>> str(mistake("must be an https:// URL {x}"))
    'must be an https:// URL {x}'
    """
    return PydanticCustomError(OWN, "{text}", {"text": message})


def dotted(loc: Sequence[int | str]) -> str:
    """A location as a path: keys joined by dots, positions in brackets.

    >>> dotted(("players", 2, "email")), dotted(())
    ('players[2].email', '')
    """
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else str(part)
    return path


def phrase(error: ErrorDetails, phrases: Mapping[str, str] | None = None) -> str:
    """One error's message in the bot's words (``phrases`` before :data:`PHRASES`).

    >>> phrase({"type": "enum", "loc": ("a",), "msg": "", "input": "tls",
    ...         "ctx": {"expected": "'ssl', 'starttls' or 'none'"}})
    'must be one of ssl, starttls, none'
    """
    kind, ctx = error["type"], dict(error.get("ctx") or {})
    if kind == OWN:
        return str(ctx["text"])
    table = {**PHRASES, **(phrases or {})}
    if error.get("input", ...) is None and kind not in _MAPPINGS and kind != "missing":
        return table.get("empty", "must not be empty")
    if "expected" in ctx:
        ctx["expected"] = ", ".join(
            word.strip().strip("'")
            for word in str(ctx["expected"]).replace(" or ", ", ").split(",")
        )
    template = table.get(kind)
    if template is None:
        return str(error["msg"])
    return template.format(**ctx)


def mistakes_of(
    error: ValidationError,
    phrases: Mapping[str, str] | None = None,
    *,
    whole: Mapping[str, str] | None = None,
    prefix: Sequence[int | str] = (),
) -> list[tuple[str, str]]:
    """Every error of ``error`` as ``(path, message)``, each path once, in pydantic's order.

    ``whole`` names the keys whose every mistake, within them too, is one phrase
    (a list of days is wrong as a whole: ``rules.warn_end_days``); ``prefix`` goes
    before every location.
    """
    found: dict[str, str] = {}
    for details in error.errors(include_url=False):
        loc: tuple[int | str, ...] = (*prefix, *details["loc"])
        message = None
        for at, key in enumerate(loc):
            if isinstance(key, str) and whole and key in whole:
                loc, message = loc[: at + 1], whole[key]
                break
        path = dotted(loc)
        found.setdefault(path, message or phrase(details, phrases))
    return list(found.items())
