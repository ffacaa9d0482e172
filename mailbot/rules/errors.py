"""The bot's errors: one base class, a family per layer, the precise errors under them.

Every error the bot raises on purpose is a :class:`MailbotError`; each also keeps the
built-in class it has always been (``ValueError``, ``LookupError``, ``RuntimeError``), so
a caller may catch the precise error, its family, or the built-in one::

    >>> from mailbot.rules.leave import InvalidDateError
    >>> issubclass(InvalidDateError, RulesError), issubclass(InvalidDateError, ValueError)
    (True, True)
"""

from __future__ import annotations

__all__ = [
    "ComposeError",
    "DeskError",
    "MailError",
    "MailbotError",
    "PublishError",
    "RulesError",
    "SetupError",
    "StoreError",
]


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
