"""What happened: the events the bot records and tells people about.

The desk, the sweep and the director's orders decide; what they decided is a
list of these small, frozen values. The store keeps what they change, and the
:mod:`~mailbot.compose.notifier` (the only composer of mail) turns each into the
messages its audience reads, in each reader's language. A new rule is a new
event and a template, not another send call::

    >>> played = MovePlayed(game=3, mover=7, first_ply=15)
    >>> played.game, played.first_ply, played.automatic
    (3, 15, ())

Games and players are named by their ids in the store; dates, days and
positions are read from the store when the mail is written, right after the
event was recorded, so that they are the ones the event left behind.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
from collections.abc import Mapping
from typing import Any

from mailbot.rules import tablebase, verdicts
from mailbot.rules.game import GameEnd
from mailbot.rules.phrase import Phrase

__all__ = [
    "AdjudicationCalled",
    "AdjudicationClaimed",
    "AdjudicationPacket",
    "Answer",
    "AnswerKind",
    "Bounced",
    "ClaimAnswered",
    "ClaimOpened",
    "ComplaintMade",
    "DelayNoted",
    "DigestDue",
    "DirectorDecided",
    "DirectorDigest",
    "DrawClaimed",
    "DrawDeclined",
    "DrawOffered",
    "Event",
    "ExtraLeave",
    "GameEnded",
    "IncompleteRepeated",
    "LeaveAnswered",
    "LeaveEnded",
    "LeaveTaken",
    "MovePlayed",
    "MoveRejected",
    "OrdersCancelled",
    "OrdersDone",
    "OrdersHeld",
    "PlayerChanged",
    "PlayerReplaced",
    "Quarantined",
    "RejectionsRepeated",
    "Repeated",
    "StrangerWrote",
    "TablebaseClaimed",
    "TournamentStarted",
    "Undeliverable",
    "WarningDue",
    "WithdrawalCalled",
]


@dataclasses.dataclass(frozen=True)
class Event:
    """Something that happened that somebody must hear of."""


# ---------------------------------------------------------------------------
# Play


@dataclasses.dataclass(frozen=True)
class MovePlayed(Event):
    """``mover`` played from ``first_ply`` on; ``automatic`` plies came from a conditional line."""

    game: int
    mover: int
    first_ply: int
    automatic: tuple[int, ...] = ()
    draw_offered: bool = False
    reminders: tuple[verdicts.Reminder, ...] = ()
    #: The mover's own conditional line still standing, in UCI.
    conditional: tuple[str, ...] = ()
    #: What the mover wrote beside the move (a greeting, a comment), for the opponent.
    said: str = ""


@dataclasses.dataclass(frozen=True)
class MoveRejected(Event):
    """A move judged impossible, incorrect or unclear (art. 17-19), with its penalty."""

    game: int
    mover: int
    judgement: verdicts.Judgement
    penalty: int


@dataclasses.dataclass(frozen=True)
class IncompleteRepeated(Event):
    """Art. 7 note 2: a player wrote incomplete notation ``count`` times; the TD hears of it."""

    game: int
    player: int
    count: int


@dataclasses.dataclass(frozen=True)
class RejectionsRepeated(Event):
    """Art. 17: a player's ``count``-th impossible, incorrect or unclear move in one game
    (``days`` penalty days in all); the TD hears of it, as a systematic violation may
    lose the game."""

    game: int
    player: int
    count: int
    days: int


@dataclasses.dataclass(frozen=True)
class DrawOffered(Event):
    game: int
    by: int
    #: What the player wrote beside the word, for the opponent (``forward_messages``).
    said: str = ""


@dataclasses.dataclass(frozen=True)
class DrawDeclined(Event):
    game: int
    by: int
    #: What the player wrote beside the word, for the opponent (``forward_messages``).
    said: str = ""


@dataclasses.dataclass(frozen=True)
class GameEnded(Event):
    """The game is over; ``answering`` is the player whose message ended it, if one did,
    and ``first_ply`` the first ply that message played, if a move ended the game."""

    game: int
    end: GameEnd
    answering: int | None = None
    first_ply: int | None = None
    #: What the answering player wrote beside the word, for the opponent.
    said: str = ""


# ---------------------------------------------------------------------------
# Deadlines, claims, the director


@dataclasses.dataclass(frozen=True)
class Repeated(Event):
    """Art. 26: the unanswered move is repeated to ``player`` (a copy to the TD)."""

    game: int
    player: int
    due: datetime.datetime


@dataclasses.dataclass(frozen=True)
class WarningDue(Event):
    """A deadline that would cost ``player`` is ``days`` days away: ``deadline`` is
    ``control``, ``silence`` or ``end``, falling due on ``due`` (docs/contract.md,
    "Warnings before deadlines")."""

    game: int
    player: int
    deadline: str
    days: int
    due: datetime.date


@dataclasses.dataclass(frozen=True)
class ClaimOpened(Event):
    """A silence or overstep claim: the packet to the TD, a notice to both players."""

    game: int
    claim: int
    against: int
    due: datetime.datetime
    details: Mapping[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class ComplaintMade(Event):
    """Art. 20, 22: a player complains that the opponent's move at ``ply`` was impossible,
    incorrect or unclear; the director decides (``claim``)."""

    game: int
    claim: int
    player: int
    ply: int
    move: str


@dataclasses.dataclass(frozen=True)
class TablebaseClaimed(Event):
    """003 part 1 art. 11b: a player claims a win by the tablebases; the TD decides, with
    the tables' ``verdict`` on the position."""

    game: int
    claim: int
    player: int
    verdict: tablebase.TablebaseVerdict


@dataclasses.dataclass(frozen=True)
class DrawClaimed(Event):
    """A draw claim the TD must decide."""

    game: int
    claim: int
    player: int
    reason: Phrase
    fen: str


@dataclasses.dataclass(frozen=True)
class DirectorDecided(Event):
    """The TD decided in a game; both players are told what."""

    game: int
    decision: Phrase


@dataclasses.dataclass(frozen=True)
class AdjudicationCalled(Event):
    """After the end of the event, the players are asked for their claims (art. 52)."""

    game: int
    end: datetime.date
    due: datetime.date


@dataclasses.dataclass(frozen=True)
class WithdrawalCalled(Event):
    """A withdrawn player's game goes to the arbiter; both players send claims (art. 48)."""

    game: int
    withdrawn: int
    due: datetime.date


@dataclasses.dataclass(frozen=True)
class AdjudicationPacket(Event):
    """The players' claims differ (or are missing): the TD gets the packet."""

    game: int
    claim: int
    due: datetime.date


# ---------------------------------------------------------------------------
# A player's requests


@dataclasses.dataclass(frozen=True)
class LeaveAnswered(Event):
    """The answer to a leave request: ``granted`` or ``refused`` (with a reason)."""

    game: int
    player: int
    kind: str
    start: datetime.date
    end: datetime.date
    details: Mapping[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class LeaveTaken(Event):
    """``player`` takes leave: the opponent in ``game`` and the TD are told."""

    game: int
    player: int
    start: datetime.date
    end: datetime.date
    #: Who is told: ``opponent``, ``director`` or both.
    audience: tuple[str, ...] = ("opponent", "director")


@dataclasses.dataclass(frozen=True)
class LeaveEnded(Event):
    game: int
    player: int
    start: datetime.date
    end: datetime.date


@dataclasses.dataclass(frozen=True)
class ExtraLeave(Event):
    """The TD granted extra leave days for a year (art. 43)."""

    game: int
    player: int
    days: int
    year: int


@dataclasses.dataclass(frozen=True)
class DigestDue(Event):
    """A player's daily digest (``digest on``): all the games of ``players`` (the rows
    of one address), and the opponents' moves that arrived after ``since``."""

    players: tuple[int, ...]
    since: datetime.datetime | None


@dataclasses.dataclass(frozen=True)
class DirectorDigest(Event):
    """The director's weekly digest of ``tournament`` (``director_digest: true``)."""

    tournament: int
    since: datetime.datetime


@dataclasses.dataclass(frozen=True)
class DelayNoted(Event):
    """Art. 25: the player will answer later; both players are told, the player whether
    the notice came in time to spare them the silence (docs/rules.md 2.4)."""

    game: int
    player: int
    in_time: bool = True


@dataclasses.dataclass(frozen=True)
class ClaimAnswered(Event):
    """A draw claim was refused, or went to the TD, and why."""

    game: int
    player: int
    status: str
    reason: Phrase


@dataclasses.dataclass(frozen=True)
class AdjudicationClaimed(Event):
    """A player's adjudication claim is recorded."""

    game: int
    player: int
    result: str
    due: datetime.date


# ---------------------------------------------------------------------------
# Answers that change nothing


class AnswerKind(enum.Enum):
    """The answers to a message the bot cannot act on (or that only asks)."""

    HELP = "help"
    STATUS = "status"
    UNKNOWN_SENDER = "unknown-sender"
    UNKNOWN_GAME = "unknown-game"
    WHICH_GAME = "which-game"
    UNREADABLE = "unreadable"
    NOT_A_PLAYER = "not-a-player"
    NOT_DIRECTOR = "not-director"
    SECRET_MISSING = "secret-missing"
    GAME_FINISHED = "game-finished"
    NOT_YOUR_MOVE = "not-your-move"
    NO_MOVE = "no-move"
    #: A copy of the game that differs from the record before the opponent's last move:
    #: nothing is played, no penalty (docs/rules.md 2.4); the first difference is shown.
    COPY_DIFFERS = "copy-differs"
    NO_DRAW_OFFER = "no-draw-offer"
    ADJUDICATION_PENDING = "adjudication-pending"
    #: Old mail sent again: the message repeats one handled before, and nothing is done.
    REPEATED_MESSAGE = "repeated-message"
    #: ``digest on|off`` done, or (a bare ``digest``) how it stands.
    DIGEST = "digest"
    #: ``warnings on|off`` done, or (a bare ``warnings``) how they stand.
    WARNINGS = "warnings"
    #: ``xfcc``: a new Xfcc password (or that the federation offers no Xfcc).
    XFCC = "xfcc"
    #: ``pgn on|off`` done, or (a bare ``pgn``) how it stands.
    PGN = "pgn"
    #: The sender's first message past the day's reply cap: no more answers until the
    #: next day (the one message that goes past the cap, once a day).
    ANSWERS_PAUSED = "answers-paused"


@dataclasses.dataclass(frozen=True)
class Answer(Event):
    """An answer to the sender of the message in hand.

    ``game`` is the game it is about, if any; ``player`` the sender's player
    row, if the sender plays; ``details`` what the answer names.
    """

    kind: AnswerKind
    game: int | None = None
    player: int | None = None
    details: Mapping[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class StrangerWrote(Event):
    """Someone who does not play in ``game`` wrote about it: the TD gets a copy."""

    game: int
    sender: str
    body: str


@dataclasses.dataclass(frozen=True)
class TournamentStarted(Event):
    """A start list was imported: every player gets the ``start`` mail, the TD a summary."""

    tournament: int


@dataclasses.dataclass(frozen=True)
class PlayerChanged(Event):
    """The TD changed a player's ``address`` or ``name``; ``before`` is the old one."""

    player: int
    change: str
    before: str


@dataclasses.dataclass(frozen=True)
class PlayerReplaced(Event):
    """``newcomer`` took over ``games`` from ``player`` (003 part 1 art. 9); ``plain``
    when the player had made no move yet."""

    player: int
    newcomer: int
    games: tuple[int, ...]
    plain: bool


# ---------------------------------------------------------------------------
# The director's desk and the bot's own trouble


@dataclasses.dataclass(frozen=True)
class OrdersDone(Event):
    """What became of each of the director's orders, a line each."""

    tournaments: tuple[int, ...]
    lines: tuple[Phrase, ...]


@dataclasses.dataclass(frozen=True)
class OrdersHeld(Event):
    """Orders in the director's name, received from ``sender``, wait for the
    director's confirmation until ``lapses``.

    ``carried_out`` is when the same orders (``same_text``), or orders that
    answered the same message of the bot's, were carried out before: the
    message may be a copy sent again.
    """

    tournaments: tuple[int, ...]
    held: int
    orders: tuple[str, ...]
    sender: str
    received: datetime.datetime
    lapses: datetime.datetime
    carried_out: datetime.datetime | None = None
    same_text: bool = False


@dataclasses.dataclass(frozen=True)
class OrdersCancelled(Event):
    """The director cancelled orders held in their name."""

    tournaments: tuple[int, ...]
    orders: tuple[str, ...]
    sender: str
    received: datetime.datetime


@dataclasses.dataclass(frozen=True)
class Quarantined(Event):
    """A message failed too often and went to quarantine; these tournaments' TDs are told."""

    inbound: int
    tournaments: tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class Undeliverable(Event):
    """The outbox gave a message up; the TD of its game (or its players') is told."""

    outbox: int
    tournaments: tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class Bounced(Event):
    """A delivery report says a message the bot sent never arrived (a permanent failure).

    ``address`` failed (several are joined by ``", "``), with the server's
    ``reason``; ``marked``, the players whose address has now bounced
    :data:`mailbot.store.models.BOUNCES_MARKED` times (the TD is asked to correct it).
    Who hears of it depends on what the message was: the move line's mover, the
    TD and the opponent's other addresses; the TD alone for a start mail or any
    other message.
    """

    outbox: int
    address: str
    reason: str
    marked: tuple[int, ...] = ()
