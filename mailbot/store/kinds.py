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
    "MailEvent",
    "NoticeKind",
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


class MailEvent(enum.StrEnum):
    """What a message the bot sends is about: its ``X-Mailbot-Event`` header
    (docs/contract.md, "Headers"), kept in the outbox row."""

    START = "start"
    #: A move handed over to the opponent.
    MOVE = "move"
    #: A move confirmed to its sender.
    MOVE_ACCEPTED = "move-accepted"
    MOVE_REJECTED = "move-rejected"
    REPEAT = "repeat"
    SILENCE = "silence"
    OVERSTEP = "overstep"
    DRAW_OFFER = "draw-offer"
    GAME_OVER = "game-over"
    LEAVE = "leave"
    STATUS = "status"
    DIGEST = "digest"
    NOTICE = "notice"
    ERROR = "error"
    #: A deadline is near.
    WARNING = "warning"
    #: A message the bot sent did not arrive.
    BOUNCE = "bounce"


class NoticeKind(enum.StrEnum):
    """What a notice in the ledger is (:mod:`mailbot.store.ledger`): with its key, what
    makes it go out once.

    The deadlines of a game are the kinds of :class:`mailbot.rules.due.DueKind`, by the
    same values (``NoticeKind(due_kind)``); the others are about an event::

        >>> NoticeKind("silence-report") is NoticeKind.SILENCE_REPORT
        True
    """

    REPEAT = "repeat"
    OVERSTEP = "overstep"
    SILENCE = "silence"
    SILENCE_REPORT = "silence-report"
    LEAVE_END = "leave-end"
    ADJUDICATION_CALL = "adjudication-call"
    ADJUDICATION_PACKET = "adjudication-packet"
    WARNING = "warning"
    #: The director told of the day's quarantined messages, once a day and event.
    QUARANTINE = "quarantine"
    #: The director's weekly digest, once an ISO week.
    DIRECTOR_DIGEST = "director-digest"
    #: The director told that the mail provider refused the bot's OAuth token.
    OAUTH_REFUSED = "oauth-refused"


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


class PenaltyReason(enum.StrEnum):
    """Why days were added to a clock, as a penalty's row keeps it: the referee's
    verdict on a move (art. 17-19), or a director's decision."""

    IMPOSSIBLE = "impossible"
    INCORRECT = "incorrect"
    UNCLEAR = "unclear"
    #: A penalty the director gave (``penalty`` order).
    TD = "td"
    #: A complaint the director rejected (art. 22).
    GROUNDLESS_COMPLAINT = "groundless complaint"
    #: A complaint upheld: both players' days for the replay (art. 20).
    ART_20 = "art. 20"

    @property
    def code(self) -> str:
        """The reason as a phrase's code names it: ``penalty-reason.groundless-complaint``.

        >>> PenaltyReason.GROUNDLESS_COMPLAINT.code, PenaltyReason.ART_20.code
        ('groundless-complaint', 'art-20')
        """
        return self.name.lower().replace("_", "-")


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

    def __init__(self, enum_type: type[E], length: int, *, strict: bool = False) -> None:
        super().__init__(length)
        self.enum_type = enum_type
        #: Whether a value that is no member is refused here, at the flush: for a column
        #: that has no constraint of its own in the table.
        self.strict = strict

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        """The value to store; one that is no member goes as it is, for the table's
        constraint to refuse as it always has, or is refused here if ``strict``.

        >>> EnumText(NoticeKind, 32, strict=True).process_bind_param("repaet", None)
        Traceback (most recent call last):
        ...
        ValueError: 'repaet' is not a valid NoticeKind
        """
        if value is None:
            return None
        if self.strict:
            return self.enum_type(value).value
        return value.value if isinstance(value, self.enum_type) else str(value)

    def process_result_value(self, value: Any, dialect: Dialect | None) -> E | None:
        return None if value is None else self.enum_type(value)
