"""The kinds and statuses the store keeps, as string enums stored with their values.

A column typed with one of these (:class:`EnumText`) reads back as a member and
takes a member or its value; the value is what lies in the table, so the enums
change no data::

    >>> OutboxStatus("sent") is OutboxStatus.SENT, OutboxStatus.SENT == "sent"
    (True, True)
    >>> EnumText(OutboxStatus, 8).process_result_value("bounced", None)
    <OutboxStatus.BOUNCED: 'bounced'>
"""

from __future__ import annotations

import enum
from typing import Any, Generic, TypeVar

from sqlalchemy import String
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

__all__ = [
    "GONE_WRONG",
    "ClaimDecider",
    "ClaimKind",
    "ClaimState",
    "EnumText",
    "Gender",
    "Grantor",
    "HeldStatus",
    "InboundStatus",
    "OutboxStatus",
    "PenaltyDecider",
]

E = TypeVar("E", bound=enum.StrEnum)


class InboundStatus(enum.StrEnum):
    """What became of a received message."""

    NEW = "new"
    PROCESSED = "processed"
    IGNORED = "ignored"
    REJECTED = "rejected"
    QUARANTINED = "quarantined"


class OutboxStatus(enum.StrEnum):
    """Where a message to send stands."""

    PENDING = "pending"
    SENT = "sent"
    FAILED = "failed"
    BOUNCED = "bounced"


#: The statuses of mail that went wrong for good: ``mailbot health`` warns about such
#: rows until they are dismissed (``mailbot outbox dismiss``).
GONE_WRONG = (OutboxStatus.FAILED, OutboxStatus.BOUNCED)


class ClaimKind(enum.StrEnum):
    """What a claim is about (docs/rules.md, claims)."""

    SILENCE = "silence"
    OVERSTEP = "overstep"
    DRAW = "draw"
    ADJUDICATION = "adjudication"
    COMPLAINT = "complaint"
    TABLEBASE = "tablebase"


class ClaimState(enum.StrEnum):
    """Whether the TD has decided a claim."""

    OPEN = "open"
    CONFIRMED = "confirmed"
    REJECTED = "rejected"


class ClaimDecider(enum.StrEnum):
    """Who or what decided a claim."""

    TD = "td"
    #: The bot, where the profile forfeits on its own (auto_forfeit).
    AUTO = "auto"
    #: The game ended otherwise while the claim waited.
    GAME_OVER = "game-over"
    #: Both players claimed the same result.
    AGREEMENT = "agreement"


class PenaltyDecider(enum.StrEnum):
    """Who imposed a penalty: the referee (an impossible move) or the TD."""

    REFEREE = "referee"
    TD = "td"


class HeldStatus(enum.StrEnum):
    """Where an order held for the director's confirmation stands."""

    HELD = "held"
    CONFIRMED = "confirmed"
    CANCELLED = "cancelled"
    LAPSED = "lapsed"


class Grantor(enum.StrEnum):
    """Who granted a leave: the player by mail, or the TD."""

    PLAYER = "player"
    TD = "td"


class Gender(enum.StrEnum):
    """A player's gender as the start list gives it, for the grammar of the mail."""

    FEMALE = "f"
    MALE = "m"


class EnumText(TypeDecorator[E], Generic[E]):
    """A string column that reads back as a member of ``enum_type``."""

    impl = String
    cache_ok = True

    def __init__(self, enum_type: type[E], length: int) -> None:
        super().__init__(length)
        self.enum_type = enum_type

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        """The value to store; one that is no member goes as it is, for the table's
        constraint to refuse as it always has."""
        if value is None:
            return None
        return value.value if isinstance(value, self.enum_type) else str(value)

    def process_result_value(self, value: Any, dialect: Dialect | None) -> E | None:
        return None if value is None else self.enum_type(value)
