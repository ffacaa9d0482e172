"""The database: SQLAlchemy 2.0 models, engines, schema upgrades, start-list import.

Works on SQLite and PostgreSQL (``postgresql+psycopg://...``). Every instant
is stored in UTC and read back timezone-aware; dates (receipt days, leave) are
calendar dates in the tournament's time zone::

    >>> import datetime
    >>> engine = make_engine("sqlite://")
    >>> Base.metadata.create_all(engine)
    >>> Session = session_factory(engine)
    >>> sofia = datetime.timezone(datetime.timedelta(hours=2))
    >>> nine_in_sofia = datetime.datetime(2026, 3, 1, 9, tzinfo=sofia)
    >>> with Session.begin() as session:
    ...     session.add(ReplyCount(sender="a@example.org", day=nine_in_sofia.date(),
    ...                            count=1, updated_at=nine_in_sofia))
    >>> with Session() as session:
    ...     session.scalars(select(ReplyCount.updated_at)).one()
    datetime.datetime(2026, 3, 1, 7, 0, tzinfo=datetime.timezone.utc)
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import functools
import importlib.util
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    Date,
    DateTime,
    Dialect,
    Engine,
    ForeignKey,
    Index,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    bindparam,
    create_engine,
    event,
    func,
    inspect,
    or_,
    select,
    tuple_,
    update,
)
from sqlalchemy.engine import URL, make_url
from sqlalchemy.orm import (
    DeclarativeBase,
    Mapped,
    Mapper,
    Session,
    joinedload,
    mapped_column,
    relationship,
    selectinload,
    sessionmaker,
)
from sqlalchemy.orm.attributes import get_history
from sqlalchemy.orm.base import PassiveFlag
from sqlalchemy.types import TypeDecorator

from mailbot.rules.result import Colour, Result
from mailbot.startlist import StartList

__all__ = [
    "BOUNCES_MARKED",
    "GAME_STATE",
    "RECHECK",
    "Base",
    "Claim",
    "DelayNotice",
    "DuplicateTournamentError",
    "Game",
    "Heartbeat",
    "HeldOrder",
    "InboundMessage",
    "Leave",
    "LeaveCancellation",
    "LeaveExtra",
    "Move",
    "NaiveDatetimeError",
    "Notice",
    "OrderKey",
    "Outbox",
    "Penalty",
    "Player",
    "PlayerAddress",
    "Recent",
    "ReplyCount",
    "Team",
    "Tournament",
    "TournamentStartedError",
    "UTCDateTime",
    "alembic_config",
    "delete_tournament",
    "describe_url",
    "held_back",
    "import_start_list",
    "is_director",
    "make_engine",
    "mark_changed_games",
    "migrations_directory",
    "migrations_head",
    "pending",
    "players_writing_from",
    "prefetch_games",
    "prefetch_senders",
    "recent",
    "schema_revision",
    "session_factory",
    "upgrade",
]

#: Game results as stored; ``+/-`` and ``-/+`` are forfeits.
RESULTS = tuple(r.value for r in Result)
COLORS = tuple(c.value for c in Colour)
GENDERS = ("f", "m")
INBOUND_STATUSES = ("new", "processed", "ignored", "rejected", "quarantined")
OUTBOX_STATUSES = ("pending", "sent", "failed", "bounced")
CLAIM_KINDS = ("silence", "overstep", "draw", "adjudication", "complaint", "tablebase")
CLAIM_STATUSES = ("open", "confirmed", "rejected")
PENALTY_DECIDERS = ("referee", "td")
HELD_STATUSES = ("held", "confirmed", "cancelled", "lapsed")
LEAVE_GRANTORS = ("player", "td")

#: ``Game.due_at`` of a game the sweep must look at again: something about it changed.
RECHECK = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class DuplicateTournamentError(ValueError):
    """A tournament with this index already exists."""

    def __init__(self, index: str) -> None:
        super().__init__(f"tournament {index} already exists; give the new one another index")
        self.index = index


class TournamentStartedError(ValueError):
    """A tournament in which a move has been played cannot be deleted."""


class NaiveDatetimeError(ValueError):
    """A datetime without a time zone was about to be stored."""


class UTCDateTime(TypeDecorator[datetime.datetime]):
    """A timezone-aware instant, stored in UTC, read back with ``tzinfo=UTC``.

    Naive datetimes are refused: an instant without a zone is ambiguous.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(
        self, value: datetime.datetime | None, dialect: Dialect
    ) -> datetime.datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise NaiveDatetimeError(f"refusing to store the naive datetime {value.isoformat()}")
        value = value.astimezone(datetime.UTC)
        if dialect.name == "sqlite":
            return value.replace(tzinfo=None)
        return value

    def process_result_value(
        self, value: datetime.datetime | None, dialect: Dialect
    ) -> datetime.datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=datetime.UTC)
        return value.astimezone(datetime.UTC)


class Base(DeclarativeBase):
    """The declarative base of every table."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {  # noqa: RUF012 (SQLAlchemy reads this class attribute)
        datetime.datetime: UTCDateTime(),
        datetime.date: Date(),
        dict[str, Any]: JSON(),
        list[str]: JSON(),
    }


def _one_of(column: str, values: tuple[str, ...]) -> str:
    quoted = ", ".join(f"'{v}'" for v in values)
    return f"{column} IN ({quoted})"


class Tournament(Base):
    """One event of the start list."""

    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(primary_key=True)
    #: Appears in every subject; games are ``INDEX/N``.
    index: Mapped[str] = mapped_column(String(40), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    #: Profile preset name (``bg-email``...).
    profile: Mapped[str] = mapped_column(String(32))
    #: The start list's ``rules:`` overrides.
    rules: Mapped[dict[str, Any]]
    timezone: Mapped[str] = mapped_column(String(64))
    start: Mapped[datetime.date]
    end: Mapped[datetime.date]
    #: Set when the TD extends the tournament (art. 50).
    extended_to: Mapped[datetime.date | None]
    language: Mapped[str] = mapped_column(String(8))
    notation: Mapped[str] = mapped_column(String(16))
    conditional_moves: Mapped[bool]
    #: Words a player writes beside a move reach the opponent.
    forward_messages: Mapped[bool] = mapped_column(default=True)
    #: The TD gets a weekly digest of the event.
    director_digest: Mapped[bool] = mapped_column(default=False)
    director_name: Mapped[str] = mapped_column(String(200))
    director_email: Mapped[str] = mapped_column(String(320))
    created_at: Mapped[datetime.datetime]

    players: Mapped[list[Player]] = relationship(
        back_populates="tournament", order_by="Player.id", cascade="all, delete-orphan"
    )
    games: Mapped[list[Game]] = relationship(
        back_populates="tournament", order_by="Game.number", cascade="all, delete-orphan"
    )
    teams: Mapped[list[Team]] = relationship(
        back_populates="tournament", order_by="Team.id", cascade="all, delete-orphan"
    )

    def __repr__(self) -> str:
        return f"<Tournament {self.index}>"


class Team(Base):
    """A team of a team event (004 art. 19-23); its players carry the board order."""

    __tablename__ = "teams"
    __table_args__ = (UniqueConstraint("tournament_id", "key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200))
    captain_name: Mapped[str | None] = mapped_column(String(200))
    #: The captain is copied on the TD's notices about the team's games (art. 26).
    captain_email: Mapped[str | None] = mapped_column(String(320))

    tournament: Mapped[Tournament] = relationship(back_populates="teams")
    players: Mapped[list[Player]] = relationship(
        back_populates="team", order_by="Player.board", foreign_keys="Player.team_id"
    )

    def __repr__(self) -> str:
        return f"<Team {self.key}>"


class Player(Base):
    """A player of one tournament; ``key`` is the start list's id."""

    __tablename__ = "players"
    __table_args__ = (
        UniqueConstraint("tournament_id", "key"),
        UniqueConstraint("tournament_id", "email"),
        CheckConstraint(_one_of("gender", GENDERS), name="gender"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200))
    #: Normalised (lower case); the address the player writes from.
    email: Mapped[str] = mapped_column(String(320), index=True)
    #: Overrides the tournament's language / notation.
    language: Mapped[str | None] = mapped_column(String(8))
    notation: Mapped[str | None] = mapped_column(String(16))
    #: Per-player token for federations whose mail has no DMARC.
    secret: Mapped[str | None] = mapped_column(String(64))
    #: ``f`` or ``m``: how Bulgarian and Russian mail addresses the player.
    gender: Mapped[str | None] = mapped_column(String(1))
    #: One daily mail with all the player's games instead of a mail per move.
    digest: Mapped[bool] = mapped_column(default=False)
    #: When the last digest went out.
    digest_sent_at: Mapped[datetime.datetime | None]
    withdrawn_at: Mapped[datetime.datetime | None]
    withdrawal_reason: Mapped[str | None] = mapped_column(Text)
    #: Whether the TD accepted the reason as valid (ICCF withdrawal rules).
    withdrawal_valid: Mapped[bool | None]
    #: ISO 3166 alpha-3, shown on the site and in the PGN.
    country: Mapped[str | None] = mapped_column(String(3))
    rating: Mapped[int | None]
    team_id: Mapped[int | None] = mapped_column(
        ForeignKey("teams.id", ondelete="SET NULL"), index=True
    )
    #: Place in the team's board order (1 = first board); substitutes come after the boards.
    board: Mapped[int | None]
    #: Who took over this player's games (003 part 1 art. 9).
    replaced_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("players.id", ondelete="SET NULL")
    )
    #: Mail to ``email`` that came back undelivered (permanent failures), and when it
    #: last did; a new address starts again from none (:func:`_new_address`).
    bounces: Mapped[int] = mapped_column(default=0, server_default="0")
    bounced_at: Mapped[datetime.datetime | None]

    tournament: Mapped[Tournament] = relationship(back_populates="players")
    team: Mapped[Team | None] = relationship(back_populates="players", foreign_keys=[team_id])
    addresses: Mapped[list[PlayerAddress]] = relationship(
        back_populates="player", order_by="PlayerAddress.id", cascade="all, delete-orphan"
    )
    leaves: Mapped[list[Leave]] = relationship(
        back_populates="player", order_by="Leave.start", cascade="all, delete-orphan"
    )

    def __repr__(self) -> str:
        return f"<Player {self.key} <{self.email}>>"

    def writes_from(self, address: str) -> bool:
        """Whether mail from ``address`` (normalised) is this player's.

        >>> p = Player(email="ivan@example.org", addresses=[PlayerAddress(email="i@home.example")])
        >>> p.writes_from("i@home.example"), p.writes_from("x@example.org")
        (True, False)
        """
        return address == self.email or any(a.email == address for a in self.addresses)


#: A player's address that bounced this many times is marked: the TD is asked to correct it.
BOUNCES_MARKED = 3


@event.listens_for(Player.email, "set")
def _new_address(player: Player, value: str, old: object, initiator: Any) -> None:
    """A player's new address has bounced never (the count was the old one's)."""
    if isinstance(old, str) and old != value:
        player.bounces = 0
        player.bounced_at = None


class PlayerAddress(Base):
    """Another address a player may write from; mail still goes to ``Player.email``."""

    __tablename__ = "player_addresses"
    __table_args__ = (UniqueConstraint("player_id", "email"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    email: Mapped[str] = mapped_column(String(320), index=True)

    player: Mapped[Player] = relationship(back_populates="addresses")


class Game(Base):
    """One game; its state beyond the moves (result, draw offer, counts)."""

    __tablename__ = "games"
    __table_args__ = (
        UniqueConstraint("tournament_id", "number"),
        CheckConstraint(_one_of("result", RESULTS), name="result"),
        CheckConstraint(_one_of("draw_offer_by", COLORS), name="draw_offer_by"),
        CheckConstraint(_one_of("pending_conditional_by", COLORS), name="pending_conditional_by"),
        CheckConstraint("white_id <> black_id", name="two_players"),
        Index("ix_games_due", "result", "due_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    #: ``N`` of ``INDEX/N``, from 1.
    number: Mapped[int]
    white_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    black_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    #: Round and board of the Berger table (round robins only).
    round: Mapped[int | None]
    board: Mapped[int | None]
    result: Mapped[str | None] = mapped_column(String(8))
    #: How the game ended, in words (``resignation``, ``overstep``...).
    termination: Mapped[str | None] = mapped_column(Text)
    ended_at: Mapped[datetime.datetime | None]
    #: A standing draw offer (valid until the opponent's next move).
    draw_offer_by: Mapped[str | None] = mapped_column(String(5))
    draw_offer_ply: Mapped[int | None]
    #: A conditional line still waiting, in UCI: the opponent's expected reply first.
    pending_conditional: Mapped[list[str] | None]
    pending_conditional_by: Mapped[str | None] = mapped_column(String(5))
    #: When the last move was sent to the player to move; in a game whose every
    #: move was voided (art. 20), when the director handed it back to White.
    last_forwarded_at: Mapped[datetime.datetime | None]
    #: The earliest instant the deadline sweep must look at the game again: the
    #: next repeat, silence, overstep, leave end or end of the event; ``RECHECK``
    #: after any change to the game, its players or its tournament; None when
    #: nothing can fall due until something changes (see :func:`mark_changed_games`).
    due_at: Mapped[datetime.datetime | None] = mapped_column(default=RECHECK)
    created_at: Mapped[datetime.datetime]

    tournament: Mapped[Tournament] = relationship(back_populates="games")
    white: Mapped[Player] = relationship(foreign_keys=[white_id])
    black: Mapped[Player] = relationship(foreign_keys=[black_id])
    moves: Mapped[list[Move]] = relationship(
        back_populates="game", order_by="Move.ply", cascade="all, delete-orphan"
    )
    penalties: Mapped[list[Penalty]] = relationship(
        back_populates="game", order_by="Penalty.id", cascade="all, delete-orphan"
    )
    claims: Mapped[list[Claim]] = relationship(
        back_populates="game", order_by="Claim.id", cascade="all, delete-orphan"
    )
    delays: Mapped[list[DelayNotice]] = relationship(
        back_populates="game", order_by="DelayNotice.id", cascade="all, delete-orphan"
    )

    def __repr__(self) -> str:
        return f"<Game {self.number} of tournament {self.tournament_id}>"


class InboundMessage(Base):
    """Every message received, with its raw bytes, kept as evidence."""

    __tablename__ = "inbound_messages"
    __table_args__ = (CheckConstraint(_one_of("status", INBOUND_STATUSES), name="status"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    #: The ``Message-ID`` header, if the message has one (not unique: anyone may reuse one).
    message_id: Mapped[str | None] = mapped_column(String(998))
    raw_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    #: The hash of the Message-ID, the sender and the text: the same message, delivered
    #: twice with other bytes (another ``Received:`` line), has the same fingerprint.
    fingerprint: Mapped[str | None] = mapped_column(String(64), unique=True)
    #: The hash of the sender and the new text: the same text again and again is a loop.
    text_sha256: Mapped[str | None] = mapped_column(String(64), index=True)
    folder: Mapped[str | None] = mapped_column(String(200))
    uidvalidity: Mapped[int | None] = mapped_column(BigInteger)
    uid: Mapped[int | None] = mapped_column(BigInteger)
    #: When the message arrived in the mailbox (IMAP INTERNALDATE).
    internaldate: Mapped[datetime.datetime]
    from_addr: Mapped[str | None] = mapped_column(String(320), index=True)
    subject: Mapped[str | None] = mapped_column(Text)
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    status: Mapped[str] = mapped_column(String(12), default="new", index=True)
    attempts: Mapped[int] = mapped_column(default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    game_id: Mapped[int | None] = mapped_column(
        ForeignKey("games.id", ondelete="SET NULL"), index=True
    )
    handled_at: Mapped[datetime.datetime | None]
    #: Why the message was ignored, rejected or quarantined.
    reason: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime.datetime]

    game: Mapped[Game | None] = relationship()

    def __repr__(self) -> str:
        return f"<InboundMessage {self.id} {self.message_id} {self.status}>"


class Move(Base):
    """One half-move, with the dates the clock is computed from."""

    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("game_id", "ply"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    #: 1 for White's first move.
    ply: Mapped[int]
    uci: Mapped[str] = mapped_column(String(5))
    san: Mapped[str] = mapped_column(String(16))
    #: The move as the player wrote it.
    text: Mapped[str] = mapped_column(Text)
    #: When the player's message arrived (IMAP INTERNALDATE).
    sent_at: Mapped[datetime.datetime]
    #: When the bot sent the move to the opponent.
    forwarded_at: Mapped[datetime.datetime | None]
    #: The receipt date as counted for this move's days.
    received_counted_on: Mapped[datetime.date | None]
    #: Thinking days charged to this move (penalties are separate).
    days: Mapped[int] = mapped_column(default=0)
    #: Played from a conditional line.
    automatic: Mapped[bool] = mapped_column(default=False)
    #: Written in incomplete notation (reminded; repeated cases go to the TD).
    incomplete: Mapped[bool] = mapped_column(default=False)
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"))

    game: Mapped[Game] = relationship(back_populates="moves")
    inbound: Mapped[InboundMessage | None] = relationship()


class Penalty(Base):
    """Days added to a player's time (art. 17, TD decisions)."""

    __tablename__ = "penalties"
    __table_args__ = (
        CheckConstraint(_one_of("color", COLORS), name="color"),
        CheckConstraint(_one_of("decided_by", PENALTY_DECIDERS), name="decided_by"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    color: Mapped[str] = mapped_column(String(5))
    days: Mapped[int]
    #: ``impossible``, ``incorrect``, ``unclear``, ``td``...
    reason: Mapped[str] = mapped_column(String(32))
    #: Half-moves played when it was imposed.
    ply_at: Mapped[int]
    created_at: Mapped[datetime.datetime]
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"))
    decided_by: Mapped[str] = mapped_column(String(8), default="referee")

    game: Mapped[Game] = relationship(back_populates="penalties")


class Leave(Base):
    """A player's leave (art. 42-46): all their games pause."""

    __tablename__ = "leaves"
    __table_args__ = (
        CheckConstraint('"end" >= start', name="order"),
        CheckConstraint(_one_of("granted_by", LEAVE_GRANTORS), name="granted_by"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    start: Mapped[datetime.date]
    end: Mapped[datetime.date]
    created_at: Mapped[datetime.datetime]
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"))
    granted_by: Mapped[str] = mapped_column(String(8), default="player")

    player: Mapped[Player] = relationship(back_populates="leaves")
    cancellations: Mapped[list[LeaveCancellation]] = relationship(
        back_populates="leave", cascade="all, delete-orphan"
    )


class LeaveCancellation(Base):
    """A move sent during leave cancels it in that game from that day (art. 46)."""

    __tablename__ = "leave_cancellations"
    __table_args__ = (UniqueConstraint("leave_id", "game_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    leave_id: Mapped[int] = mapped_column(ForeignKey("leaves.id", ondelete="CASCADE"))
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    from_date: Mapped[datetime.date]

    leave: Mapped[Leave] = relationship(back_populates="cancellations")


class LeaveExtra(Base):
    """Extra leave days the TD granted for a calendar year (art. 43, 56)."""

    __tablename__ = "leave_extras"

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    year: Mapped[int]
    days: Mapped[int]
    created_at: Mapped[datetime.datetime]
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"))


class DelayNotice(Base):
    """A player's notice that the next answer will be late (art. 25)."""

    __tablename__ = "delay_notices"
    __table_args__ = (CheckConstraint(_one_of("color", COLORS), name="color"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    color: Mapped[str] = mapped_column(String(5))
    #: Half-moves played when the notice came: it covers the move then due.
    ply_at: Mapped[int]
    received_at: Mapped[datetime.datetime]
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"))

    game: Mapped[Game] = relationship(back_populates="delays")


class Outbox(Base):
    """A message to send; sent and retried until the server accepts it."""

    __tablename__ = "outbox"
    __table_args__ = (
        CheckConstraint(_one_of("status", OUTBOX_STATUSES), name="status"),
        Index(None, "status", "next_attempt_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    #: Stable, so that a resend is recognisable.
    message_id: Mapped[str] = mapped_column(String(998), unique=True)
    to_addrs: Mapped[list[str]]
    cc_addrs: Mapped[list[str]] = mapped_column(default=list)
    subject: Mapped[str] = mapped_column(Text)
    #: Extra headers (``X-Mailbot-*``, ``In-Reply-To``, ``Auto-Submitted``...).
    headers: Mapped[dict[str, Any]] = mapped_column(default=dict)
    text_body: Mapped[str] = mapped_column(Text)
    html_body: Mapped[str | None] = mapped_column(Text)
    #: The ``X-Mailbot-Event`` value.
    event: Mapped[str] = mapped_column(String(32))
    game_id: Mapped[int | None] = mapped_column(
        ForeignKey("games.id", ondelete="SET NULL"), index=True
    )
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"))
    status: Mapped[str] = mapped_column(String(8), default="pending")
    attempts: Mapped[int] = mapped_column(default=0)
    next_attempt_at: Mapped[datetime.datetime]
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime.datetime]
    sent_at: Mapped[datetime.datetime | None]
    #: The check value of the row's return path (VERP, :mod:`mailbot.bounces`), set when
    #: the row is first sent: a delivery report naming the row must show it.
    verp_check: Mapped[str | None] = mapped_column(String(32))
    #: When a delivery report said the message never arrived (status ``bounced``).
    bounced_at: Mapped[datetime.datetime | None]

    game: Mapped[Game | None] = relationship()
    inbound: Mapped[InboundMessage | None] = relationship()


class Notice(Base):
    """The ledger of deadline notices sent: the sweep sends each one once.

    ``key`` is what makes a notice unique within its game/player and kind
    (the ply of the repeated move, the due date...). Rows without a game or a
    player are unique too: the unique index treats a missing one as 0.
    """

    __tablename__ = "notices"

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), index=True
    )
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    #: ``repeat``, ``silence``, ``overstep``, ``leave-end``, ``adjudication-call``...
    kind: Mapped[str] = mapped_column(String(32))
    key: Mapped[str] = mapped_column(String(200))
    due_at: Mapped[datetime.datetime | None]
    created_at: Mapped[datetime.datetime]
    outbox_id: Mapped[int | None] = mapped_column(ForeignKey("outbox.id", ondelete="SET NULL"))


Index(
    "uq_notices_scope",
    func.coalesce(Notice.game_id, 0),
    func.coalesce(Notice.player_id, 0),
    Notice.kind,
    Notice.key,
    unique=True,
)


class Claim(Base):
    """A claim waiting for, or decided by, the TD (art. 35-37, 52-55)."""

    __tablename__ = "claims"
    __table_args__ = (
        CheckConstraint(_one_of("kind", CLAIM_KINDS), name="kind"),
        CheckConstraint(_one_of("status", CLAIM_STATUSES), name="status"),
        CheckConstraint(_one_of("by_color", COLORS), name="by_color"),
        CheckConstraint(_one_of("against", COLORS), name="against"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    #: The claimant's colour; None when the bot opened the claim itself.
    by_color: Mapped[str | None] = mapped_column(String(5))
    #: The colour that would lose (silence, overstep), if any.
    against: Mapped[str | None] = mapped_column(String(5))
    opened_at: Mapped[datetime.datetime]
    status: Mapped[str] = mapped_column(String(10), default="open", index=True)
    decided_at: Mapped[datetime.datetime | None]
    #: ``td``, ``auto`` (auto_forfeit), ``agreement`` (both claimed the same result)...
    decided_by: Mapped[str | None] = mapped_column(String(16))
    #: Claimed result, analysis, the packet sent to the TD...
    details: Mapped[dict[str, Any]] = mapped_column(default=dict)
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"))

    game: Mapped[Game] = relationship(back_populates="claims")


class HeldOrder(Base):
    """Orders in the director's name that the bot could not authenticate (no DMARC pass,
    no live order key), or that repeat orders carried out before: held until the
    director confirms them by replying to the challenge mail, or until they lapse."""

    __tablename__ = "held_orders"
    __table_args__ = (CheckConstraint(_one_of("status", HELD_STATUSES), name="status"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    #: The director's registered address the orders claim to come from.
    director_email: Mapped[str] = mapped_column(String(320), index=True)
    #: The order lines as written.
    orders: Mapped[list[str]]
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"))
    #: The challenge mail sent to the director.
    outbox_id: Mapped[int | None] = mapped_column(
        ForeignKey("outbox.id", ondelete="SET NULL"), index=True
    )
    status: Mapped[str] = mapped_column(String(10), default="held")
    created_at: Mapped[datetime.datetime]
    lapses_at: Mapped[datetime.datetime]
    decided_at: Mapped[datetime.datetime | None]


class OrderKey(Base):
    """A single-use key in the ``Reply-To`` of a message the bot sent to a tournament
    director alone (``bot+o-KEY@``): a reply through it proves the director wrote it,
    for the orders of one message, until it lapses (:mod:`mailbot.orderkeys`)."""

    __tablename__ = "order_keys"

    id: Mapped[int] = mapped_column(primary_key=True)
    #: 26 lower-case base32 characters (130 bits).
    key: Mapped[str] = mapped_column(String(32), unique=True, index=True)
    #: The director the message went to: only their orders may come through the key.
    director_email: Mapped[str] = mapped_column(String(320))
    #: The message that carried the key.
    outbox_id: Mapped[int | None] = mapped_column(
        ForeignKey("outbox.id", ondelete="SET NULL"), index=True
    )
    created_at: Mapped[datetime.datetime]
    lapses_at: Mapped[datetime.datetime]
    #: When orders came through the key, and the message that brought them.
    spent_at: Mapped[datetime.datetime | None]
    spent_by: Mapped[int | None] = mapped_column(
        ForeignKey("inbound_messages.id", ondelete="SET NULL")
    )

    outbox: Mapped[Outbox | None] = relationship()


class ReplyCount(Base):
    """Answers sent to one address on one day (the reply cap against mail loops)."""

    __tablename__ = "reply_counts"
    __table_args__ = (UniqueConstraint("sender", "day"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    sender: Mapped[str] = mapped_column(String(320))
    day: Mapped[datetime.date]
    count: Mapped[int] = mapped_column(default=0)
    updated_at: Mapped[datetime.datetime]


class Heartbeat(Base):
    """When a kind of work last succeeded (``poll``, ``sweep``), for ``mailbot health``
    in any process: one row a kind, written at the end of each success."""

    __tablename__ = "heartbeats"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    at: Mapped[datetime.datetime]
    #: What the work did, in the words of its log line.
    detail: Mapped[str | None] = mapped_column(Text)


#: What deciding about a game reads of it: loaded with the game in a few queries
#: (``select(Game).options(*GAME_STATE)``) instead of one lazy load per relation.
GAME_STATE = (
    joinedload(Game.tournament),
    selectinload(Game.moves),
    selectinload(Game.claims),
    selectinload(Game.delays),
    selectinload(Game.penalties),
    selectinload(Game.white).selectinload(Player.leaves).selectinload(Leave.cancellations),
    selectinload(Game.black).selectinload(Player.leaves).selectinload(Leave.cancellations),
)


#: Columns whose changes move no deadline: the digests' bookkeeping, the mark itself.
_QUIET = {"digest_sent_at", "digest", "due_at", "bounces", "bounced_at"}


@functools.cache
def _deadline_columns(mapper: Mapper[Any]) -> frozenset[str]:
    """The column attributes of ``mapper`` whose changes can move a deadline."""
    return frozenset(mapper.column_attrs.keys()) - _QUIET


def _changed(obj: object) -> bool:
    """Whether a row changed in a column that can move a deadline.

    Only the attributes touched since the row was loaded are looked at (an
    object's other attributes have no history), so the cost is that of the
    change, not of the table's width.
    """
    state = inspect(obj)
    return any(
        get_history(obj, key, passive=PassiveFlag.PASSIVE_NO_INITIALIZE).has_changes()
        for key in _deadline_columns(state.mapper) - state.unmodified
    )


def mark_changed_games(session: Session, flush_context: Any, instances: Any) -> None:
    """Before each flush: every game whose deadlines the flush may move is due again.

    A game is due again (``due_at = RECHECK``) when it changes, when a row
    about it (a move, a claim, a penalty, a delay notice, a leave cut short,
    a notice) is written, and when one of its players (a leave, a withdrawal,
    a replacement) or its tournament (an extension) changes. The sweep then
    computes its next deadline afresh (:func:`mailbot.sweep.next_due`). The
    mail ledgers (inbound messages, the outbox) move no deadline.

    >>> engine = make_engine("sqlite://")
    >>> Base.metadata.create_all(engine)
    >>> with Session(engine) as s:
    ...     t = Tournament(index="T", name="T", profile="bg-email", rules={}, timezone="UTC",
    ...                    start=datetime.date(2026, 3, 1), end=datetime.date(2027, 3, 1),
    ...                    language="en", notation="en", conditional_moves=False,
    ...                    director_name="D", director_email="d@x.example", created_at=RECHECK)
    ...     a = Player(key="a", name="A", email="a@x.example", language="en", notation="en")
    ...     b = Player(key="b", name="B", email="b@x.example", language="en", notation="en")
    ...     t.players += [a, b]
    ...     g = Game(number=1, white=a, black=b, created_at=RECHECK)
    ...     t.games.append(g)
    ...     s.add(t)
    ...     s.flush()
    ...     g.due_at = datetime.datetime(2026, 4, 1, tzinfo=datetime.UTC)
    ...     s.flush()
    ...     g.draw_offer_by = "white"
    ...     s.flush()
    ...     g.due_at == RECHECK
    True
    """
    games: list[Game] = []
    players: set[int] = set()
    tournaments: set[int] = set()
    new, deleted = session.new, session.deleted  # each a fresh set: read once
    for obj in (*new, *session.dirty, *deleted):
        if isinstance(obj, (InboundMessage, Outbox)):
            continue
        if isinstance(obj, Game):
            if obj not in new and _changed(obj):
                games.append(obj)
        elif isinstance(obj, Tournament):
            if obj not in new and obj not in deleted and _changed(obj):
                tournaments.add(obj.id)
        elif isinstance(obj, Player):
            if obj not in new and obj not in deleted and _changed(obj):
                players.add(obj.id)
        elif isinstance(obj, (Leave, LeaveExtra)):
            owner = getattr(obj, "player", None)
            player_id = obj.player_id if obj.player_id is not None else getattr(owner, "id", None)
            if player_id is not None:
                players.add(player_id)
        elif hasattr(obj, "game_id"):
            game = getattr(obj, "game", None)
            if game is None and obj.game_id is not None:
                game = session.get(Game, obj.game_id)
            if game is not None:
                games.append(game)
    for g in games:
        if g not in deleted and g.result is None:
            g.due_at = RECHECK
    if players or tournaments:
        session.execute(
            update(Game)
            .where(
                Game.result.is_(None),
                or_(
                    Game.white_id.in_(players),
                    Game.black_id.in_(players),
                    Game.tournament_id.in_(tournaments),
                ),
            )
            .values(due_at=RECHECK)
            .execution_options(synchronize_session=False)
        )


event.listen(Session, "before_flush", mark_changed_games)


def make_engine(url: str | URL, **kwargs: Any) -> Engine:
    """An engine for ``url``; plain ``postgresql://`` uses psycopg 3.

    On SQLite, foreign keys are enforced and writers wait for each other.

    >>> make_engine("postgresql://bot@db/cc").url.drivername
    'postgresql+psycopg'
    """
    parsed = make_url(url)
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() == "sqlite":
        kwargs.setdefault("connect_args", {}).setdefault("timeout", 30)
    else:
        # a server restarted under the bot leaves dead connections in the pool: test each
        # before use; and do not wait long for a server that does not answer
        kwargs.setdefault("pool_pre_ping", True)
        kwargs.setdefault("connect_args", {}).setdefault("connect_timeout", 10)
    engine = create_engine(parsed, **kwargs)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(dbapi_connection: Any, connection_record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


@contextlib.contextmanager
def held_back(session: Session, *kinds: type[Base]) -> Iterator[None]:
    """Query without flushing first, unless the session holds new, changed or deleted
    rows of ``kinds``.

    For a query that only rows of ``kinds`` could answer differently once
    flushed: what the session holds back then goes to the database later,
    with more, in one flush instead of two (each flush costs the unit of work
    a pass over the session).

    >>> engine = make_engine("sqlite://")
    >>> Base.metadata.create_all(engine)
    >>> now = datetime.datetime(2026, 3, 2, 9, 0, tzinfo=datetime.UTC)
    >>> with session_factory(engine)() as session:
    ...     session.add(ReplyCount(sender="a@example.org", day=now.date(), count=1, updated_at=now))
    ...     counted = select(func.count()).select_from(ReplyCount)
    ...     with held_back(session, Outbox):
    ...         session.scalar(counted)
    ...     with held_back(session, ReplyCount):
    ...         session.scalar(counted)
    0
    1
    """
    if pending(session, *kinds):
        yield
        return
    with session.no_autoflush:
        yield


def pending(session: Session, *kinds: type[Base]) -> bool:
    """Whether ``session`` holds new, changed or deleted rows of ``kinds`` not yet written."""
    return any(isinstance(row, kinds) for row in (*session.new, *session.dirty, *session.deleted))


@dataclasses.dataclass
class Recent:
    """What a session loaded or wrote that its later reads would otherwise ask the
    database for, and flush first to ask: a batch of messages then writes once.

    - ``games``: the games :func:`prefetch_games` loaded, by tournament index and
      number (games are made by a start list's import, never by mail);
    - ``threads``: for those games, the Message-IDs and recipients of their
      latest mail in the database when they were loaded, newest first;
    - ``mail``: the outbox rows queued in the session, by game;
    - ``counts``: the reply counts read or made in the session, by sender and
      day, and ``counted``, the senders and days whose count was read (found
      or not);
    - ``writers`` and ``directed``: for the senders :func:`prefetch_senders`
      loaded, the players who write from each address and the tournaments it
      directs, until a player, an address or a tournament is written;
    - ``directors``: the addresses of every tournament's director, once
      :func:`is_director` read them, until a tournament is written;
    - ``held``: other rows loaded for the batch, kept here because the session
      itself keeps only weak references.

    It lasts one transaction: a commit or a rollback forgets it.

    >>> engine = make_engine("sqlite://")
    >>> Base.metadata.create_all(engine)
    >>> with session_factory(engine)() as session:
    ...     with session.begin():
    ...         recent(session).mail[1] = []
    ...         1 in recent(session).mail
    ...     1 in recent(session).mail
    True
    False
    """

    games: dict[tuple[str, int], Game] = dataclasses.field(default_factory=dict)
    threads: dict[int, list[tuple[str, list[str]]]] = dataclasses.field(default_factory=dict)
    mail: dict[int, list[Outbox]] = dataclasses.field(default_factory=dict)
    counts: dict[tuple[str, datetime.date], ReplyCount] = dataclasses.field(default_factory=dict)
    counted: set[tuple[str, datetime.date]] = dataclasses.field(default_factory=set)
    writers: dict[str, list[Player]] = dataclasses.field(default_factory=dict)
    directed: dict[str, list[Tournament]] = dataclasses.field(default_factory=dict)
    directors: frozenset[str] | None = None
    held: list[Base] = dataclasses.field(default_factory=list)


def recent(session: Session) -> Recent:
    """The session's :class:`Recent`."""
    found = session.info.get(_RECENT)
    if found is None:
        found = session.info[_RECENT] = Recent()
    return found


_RECENT = "mailbot.recent"


def _forget_recent(session: Session, *args: Any) -> None:
    session.info.pop(_RECENT, None)


event.listen(Session, "after_commit", _forget_recent)
event.listen(Session, "after_soft_rollback", _forget_recent)


def _forget_changed_people(session: Session, *args: Any) -> None:
    """Before a flush that writes a player, an address or a tournament: who writes
    from an address, and what it directs, are read from the database again."""
    memo = session.info.get(_RECENT)
    if memo is None or not (memo.writers or memo.directed or memo.directors is not None):
        return
    for row in (*session.new, *session.dirty, *session.deleted):
        if isinstance(row, (Player, PlayerAddress)):
            memo.writers.clear()
        elif isinstance(row, Tournament):
            memo.directed.clear()
            memo.directors = None


event.listen(Session, "before_flush", _forget_changed_people)


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions on ``engine``; objects stay readable after commit."""
    return sessionmaker(engine, expire_on_commit=False)


def describe_url(url: str | URL) -> str:
    """The URL with its password hidden, for messages and logs.

    >>> describe_url("postgresql+psycopg://bot:s3cret@db/cc")
    'postgresql+psycopg://bot:***@db/cc'
    """
    return make_url(url).render_as_string(hide_password=True)


def migrations_directory() -> Path:
    """The Alembic scripts: ``mailbot/migrations`` when installed, ``migrations/`` in a checkout."""
    here = Path(__file__).resolve().parent
    candidates = [here / "migrations", here.parent / "migrations"]
    spec = importlib.util.find_spec("mailbot.migrations")
    if spec is not None and spec.submodule_search_locations:
        candidates.extend(Path(p) for p in spec.submodule_search_locations)
    for candidate in candidates:
        if (candidate / "env.py").is_file() and (candidate / "versions").is_dir():
            return candidate
    raise FileNotFoundError("the migrations folder is missing from this installation")


def alembic_config(connection: Any = None) -> Any:
    """An Alembic ``Config`` for the shipped migrations, needing no ``alembic.ini``."""
    from alembic.config import Config as AlembicConfig

    config = AlembicConfig()
    config.set_main_option("script_location", str(migrations_directory()))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def upgrade(url: str | URL | Engine, revision: str = "head") -> None:
    """Create or upgrade the schema to ``revision`` (Alembic); idempotent."""
    from alembic import command

    _migrate(url, lambda config: command.upgrade(config, revision))


def downgrade(url: str | URL | Engine, revision: str) -> None:
    """Take the schema back to ``revision`` (Alembic), keeping what the columns left hold."""
    from alembic import command

    _migrate(url, lambda config: command.downgrade(config, revision))


class MigrationError(RuntimeError):
    """A migration would leave rows pointing at rows that do not exist."""


def _migrate(url: str | URL | Engine, step: Callable[[Any], None]) -> None:
    """Run one Alembic step in one transaction.

    SQLite changes a table by copying it to a new one (Alembic's batch mode):
    with foreign keys enforced, dropping the old table would fail, or delete
    the rows that point at it. So they are off while the step runs (SQLite
    ignores the pragma inside a transaction), checked before the commit, and
    on again afterwards.
    """
    engine = url if isinstance(url, Engine) else make_engine(url)
    try:
        with engine.connect() as connection:
            sqlite = connection.dialect.name == "sqlite"
            if sqlite:
                connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
                connection.commit()
            try:
                with connection.begin():
                    step(alembic_config(connection))
                    if sqlite and connection.exec_driver_sql("PRAGMA foreign_key_check").first():
                        raise MigrationError("the migration left rows without their parents")
            finally:
                if sqlite:
                    connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                    connection.commit()
    finally:
        if engine is not url:
            engine.dispose()


def migrations_head() -> str:
    """The revision the code's migrations end at (what ``mailbot init`` upgrades to)."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None, "the migrations have a head"
    return str(head)


def schema_revision(url: str | URL | Engine) -> str | None:
    """The Alembic revision the database is at; None before ``upgrade``."""
    from alembic.migration import MigrationContext

    engine = url if isinstance(url, Engine) else make_engine(url)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        if engine is not url:
            engine.dispose()


def import_start_list(
    session: Session, start_list: StartList, now: datetime.datetime
) -> Tournament:
    """Create the tournament, its players and its games; flushes, does not commit.

    Raises :class:`DuplicateTournamentError` when the index exists already.
    """
    existing = session.scalar(select(Tournament.id).where(Tournament.index == start_list.index))
    if existing is not None:
        raise DuplicateTournamentError(start_list.index)
    tournament = Tournament(
        index=start_list.index,
        name=start_list.name,
        profile=start_list.profile.name,
        rules=dict(start_list.rules),
        timezone=start_list.timezone,
        start=start_list.start,
        end=start_list.end,
        extended_to=None,
        language=start_list.language,
        notation=start_list.notation,
        conditional_moves=start_list.conditional_moves,
        forward_messages=start_list.forward_messages,
        director_digest=start_list.director_digest,
        director_name=start_list.director.name,
        director_email=start_list.director.email,
        created_at=now,
    )
    teams: dict[str, Team] = {}
    for team_entry in start_list.teams:
        team = Team(
            key=team_entry.id,
            name=team_entry.name,
            captain_name=team_entry.captain.name if team_entry.captain else None,
            captain_email=team_entry.captain.email if team_entry.captain else None,
        )
        teams[team_entry.id] = team
        tournament.teams.append(team)
    players: dict[str, Player] = {}
    for entry in start_list.players:
        player = Player(
            key=entry.id,
            name=entry.name,
            email=entry.email,
            language=entry.language,
            notation=entry.notation,
            secret=entry.secret,
            gender=entry.gender,
            country=entry.country,
            rating=entry.rating,
            team=teams.get(entry.team or ""),
            board=entry.board,
            addresses=[PlayerAddress(email=a) for a in entry.addresses],
        )
        players[entry.id] = player
        tournament.players.append(player)
    for pairing in start_list.games:
        tournament.games.append(
            Game(
                number=pairing.number,
                white=players[pairing.white],
                black=players[pairing.black],
                round=pairing.round,
                board=pairing.board,
                created_at=now,
            )
        )
    session.add(tournament)
    session.flush()
    return tournament


def is_director(session: Session, address: str) -> bool:
    """Whether ``address`` (in normal form) directs a tournament.

    The directors' addresses are read once a transaction (:class:`Recent`), and
    again after a flush that writes a tournament.

    >>> engine = make_engine("sqlite://")
    >>> Base.metadata.create_all(engine)
    >>> with session_factory(engine)() as session:
    ...     session.add(Tournament(index="T", name="T", profile="bg-email", rules={},
    ...                            timezone="UTC", start=datetime.date(2026, 3, 1),
    ...                            end=datetime.date(2027, 3, 1), language="en", notation="en",
    ...                            conditional_moves=False, director_name="D",
    ...                            director_email="d@x.example", created_at=RECHECK))
    ...     session.flush()
    ...     is_director(session, "d@x.example"), is_director(session, "a@x.example")
    (True, False)
    """
    memo = recent(session)
    if memo.directors is None:
        with held_back(session, Tournament):
            memo.directors = frozenset(session.scalars(select(Tournament.director_email)))
    return address in memo.directors


def players_writing_from(session: Session, address: str) -> list[Player]:
    """The players (of every tournament) who write from ``address``: their main
    address or one of their others."""
    if not pending(session, Player, PlayerAddress):
        known = recent(session).writers.get(address)
        if known is not None:
            return list(known)
    with held_back(session, Player, PlayerAddress):
        return list(session.scalars(_WRITING_FROM, {"address": address}).all())


_WRITING_FROM = (
    select(Player)
    .where(
        or_(
            Player.email == bindparam("address"),
            Player.id.in_(
                select(PlayerAddress.player_id).where(PlayerAddress.email == bindparam("address"))
            ),
        )
    )
    .order_by(Player.id)
)


def prefetch_games(session: Session, tags: Iterable[str]) -> list[Game]:
    """Load the games of ``tags`` (``INDEX/NUMBER``) into ``session`` with everything a move
    reads: moves, penalties, claims, both players with their other addresses and leave.

    A batch of messages then reads its games with a few queries in all, where each
    message would load each collection with a query of its own. What the batch
    changes later goes through these same collections, so nothing read is stale.

    >>> engine = make_engine("sqlite://")
    >>> Base.metadata.create_all(engine)
    >>> with session_factory(engine)() as session:
    ...     prefetch_games(session, ["NONE-1/1", "not a tag"])
    []
    """
    wanted: set[tuple[str, int]] = set()
    for tag in tags:
        index, _, number = tag.rpartition("/")
        if index and number.isdigit() and len(number) < 10:
            wanted.add((index, int(number)))
    if not wanted:
        return []
    player_options = (
        selectinload(Player.addresses),
        selectinload(Player.leaves).selectinload(Leave.cancellations),
    )
    found = session.scalars(
        select(Game)
        .join(Tournament)
        .where(tuple_(Tournament.index, Game.number).in_(sorted(wanted)))
        .options(
            selectinload(Game.moves),
            selectinload(Game.penalties),
            selectinload(Game.claims),
        )
    )
    games = list(found.all())
    # both players of every game in one query (``white`` and ``black`` then come
    # from the session, without a query)
    players = {g.white_id for g in games} | {g.black_id for g in games}
    memo = recent(session)
    if players:
        # held with the batch: the session keeps only weak references
        memo.held.extend(
            session.scalars(
                select(Player).where(Player.id.in_(sorted(players))).options(*player_options)
            ).all()
        )
    memo.games.update(((g.tournament.index, g.number), g) for g in games)
    if games:
        latest = (
            select(
                Outbox.game_id,
                Outbox.message_id,
                Outbox.to_addrs,
                func.row_number()
                .over(partition_by=Outbox.game_id, order_by=Outbox.id.desc())
                .label("age"),
            )
            .where(Outbox.game_id.in_([g.id for g in games]))
            .subquery()
        )
        threads: dict[int, list[tuple[str, list[str]]]] = {g.id: [] for g in games}
        rows = session.execute(
            select(latest.c.game_id, latest.c.message_id, latest.c.to_addrs)
            .where(latest.c.age <= LATEST_MAIL)
            .order_by(latest.c.game_id, latest.c.age)
        )
        for game_id, message_id, to in rows:
            threads[game_id].append((message_id, to))
        memo.threads.update(threads)
    return games


#: How many of a game's latest mails are searched for the thread to keep.
LATEST_MAIL = 30


def prefetch_senders(session: Session, addresses: Iterable[str], day: datetime.date) -> None:
    """Load, for each of ``addresses``, the players who write from it, the tournaments
    it directs and its reply count of ``day``, into :func:`recent`: a batch of
    messages then asks the database once for all its senders.

    >>> engine = make_engine("sqlite://")
    >>> Base.metadata.create_all(engine)
    >>> with session_factory(engine)() as session, session.begin():
    ...     prefetch_senders(session, ["a@x.example"], datetime.date(2026, 3, 2))
    ...     players_writing_from(session, "a@x.example"), recent(session).counted
    ([], {('a@x.example', datetime.date(2026, 3, 2))})
    """
    wanted = sorted(set(addresses))
    if not wanted:
        return
    memo = recent(session)
    with session.no_autoflush:
        players = session.scalars(
            select(Player)
            .where(
                or_(
                    Player.email.in_(wanted),
                    Player.id.in_(
                        select(PlayerAddress.player_id).where(PlayerAddress.email.in_(wanted))
                    ),
                )
            )
            .order_by(Player.id)
            .options(selectinload(Player.addresses))
        ).all()
        directed = session.scalars(
            select(Tournament).where(Tournament.director_email.in_(wanted)).order_by(Tournament.id)
        ).all()
        counts = session.scalars(
            select(ReplyCount).where(ReplyCount.sender.in_(wanted), ReplyCount.day == day)
        ).all()
    for address in wanted:
        memo.writers[address] = [
            p for p in players if p.email == address or any(a.email == address for a in p.addresses)
        ]
        memo.directed[address] = [t for t in directed if t.director_email == address]
        memo.counted.add((address, day))
    for count in counts:
        memo.counts.setdefault((count.sender, count.day), count)


def delete_tournament(session: Session, index: str) -> int:
    """Remove tournament ``index`` before its first move; returns the messages withdrawn.

    Its start messages and any other mail about it not yet sent are withdrawn;
    mail already sent and received stays in the store, no longer tied to a game.
    Raises :class:`LookupError` when there is no such tournament and
    :class:`TournamentStartedError` once a move has been played in it.
    """
    t = session.scalars(select(Tournament).where(Tournament.index == index)).first()
    if t is None:
        raise LookupError(f"no tournament {index}")
    games = [g.id for g in t.games]
    played = session.scalar(select(func.count(Move.id)).where(Move.game_id.in_(games)))
    if played:
        raise TournamentStartedError(
            f"tournament {index} has {played} moves played: it can no longer be deleted "
            "(withdraw players or record results instead)"
        )
    pending = session.scalars(
        select(Outbox).where(
            Outbox.status != "sent",
            or_(
                Outbox.game_id.in_(games),
                Outbox.subject.startswith(f"[{index}]", autoescape=True),
                Outbox.subject.startswith(f"[{index}/", autoescape=True),
            ),
        )
    ).all()
    for row in pending:
        session.delete(row)
    # orders held for the director's confirmation that name the event would otherwise
    # apply to a new event imported under the same index
    named = re.compile(rf"(?<![\w.-]){re.escape(index)}(?![\w.-]|/\D)")
    for held in session.scalars(select(HeldOrder).where(HeldOrder.status == "held")).all():
        if held.director_email == t.director_email and any(named.search(o) for o in held.orders):
            held.status = "cancelled"
    session.delete(t)
    session.flush()
    return len(pending)
