"""The bot's errors: one base class, a family per layer, the precise errors under them.

Every error the bot raises on purpose is a :class:`MailbotError`; each also keeps the
built-in class it has always been (``ValueError``, ``LookupError``, ``RuntimeError``), so
a caller may catch the precise error, its family, or the built-in one::

    >>> from mailbot.rules.leave import InvalidDateError
    >>> issubclass(InvalidDateError, RulesError), issubclass(InvalidDateError, ValueError)
    (True, True)
"""

from __future__ import annotations

import re

__all__ = [
    "ComposeError",
    "DeskError",
    "MailError",
    "MailbotError",
    "PublishError",
    "RulesError",
    "SetupError",
    "StoreError",
    "one_line",
]

#: Characters that end a line for a terminal or for ``str.splitlines``, and the other
#: control characters.
_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    r"""``text`` with every control character written as its escape, so that a value
    quoted in a message (a key, a path) cannot split it into lines.

    >>> print(one_line("tablebases: 0\r\n is not a folder"))
    tablebases: 0\r\n is not a folder
    """
    return _BREAKS.sub(lambda m: repr(m.group())[1:-1], text)


class MailbotError(Exception):
    """An error of the bot, as opposed to a bug or a library's own failure."""


class RulesError(MailbotError):
    """The rules refuse a value: a move history, a date, a result, a pairing."""


class MailError(MailbotError):
    """A message or a mail server: an address, a mailbox, a login, a send."""


class StoreError(MailbotError):
    """The store: its schema, a start list to load into it, a backup, the database."""


class ComposeError(MailbotError):
    """Writing mail: a template that is not there."""


class DeskError(MailbotError):
    """The desk cannot take an order, a batch or a message."""


class PublishError(MailbotError):
    """What is published: an unknown game, a folder that cannot be written."""


class SetupError(MailbotError):
    """The configuration or the command line."""
