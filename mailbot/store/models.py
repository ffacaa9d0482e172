"""The tables: SQLAlchemy 2.0 models, every instant in UTC, read back timezone-aware.

Dates (receipt days, leave) are calendar dates in the tournament's time zone::

    >>> import datetime
    >>> from sqlalchemy import select
    >>> from mailbot.store.engine import make_engine, session_factory
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

import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    Date,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    bindparam,
    event,
    func,
    or_,
    select,
    true,
)
from sqlalchemy.orm import (
    DeclarativeBase,
    Mapped,
    mapped_column,
    relationship,
)
from sqlalchemy.types import TypeDecorator

from mailbot.rules.clock import NaiveDatetimeError
from mailbot.rules.result import Colour, Result
from mailbot.store.kinds import (
    ClaimDecider,
    ClaimKind,
    ClaimState,
    EnumText,
    Gender,
    Grantor,
    HeldStatus,
    InboundStatus,
    MailEvent,
    NoticeKind,
    OutboxStatus,
    PenaltyDecider,
)

#: Game results as stored; ``+/-`` and ``-/+`` are forfeits.
RESULTS = tuple(r.value for r in Result)
COLORS = tuple(c.value for c in Colour)
GENDERS = tuple(Gender)
INBOUND_STATUSES = tuple(InboundStatus)
OUTBOX_STATUSES = tuple(OutboxStatus)
CLAIM_KINDS = tuple(ClaimKind)
CLAIM_STATUSES = tuple(ClaimState)
PENALTY_DECIDERS = tuple(PenaltyDecider)
HELD_STATUSES = tuple(HeldStatus)
LEAVE_GRANTORS = tuple(Grantor)

#: ``Game.due_at`` of a game the sweep must look at again: something about it changed.
RECHECK = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


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
    __table_args__ = (CheckConstraint(_one_of("director_gender", GENDERS), name="director_gender"),)

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
    #: ``f`` or ``m``: how Bulgarian and Russian mail speaks of the director (None:
    #: as the name tells).
    director_gender: Mapped[Gender | None] = mapped_column(EnumText(Gender, 1))
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
    gender: Mapped[Gender | None] = mapped_column(EnumText(Gender, 1))
    #: One daily mail with all the player's games instead of a mail per move.
    digest: Mapped[bool] = mapped_column(default=False)
    #: When the last digest went out.
    digest_sent_at: Mapped[datetime.datetime | None]
    #: Warnings before a deadline (``warnings off`` stops them).
    warnings: Mapped[bool] = mapped_column(default=True, server_default=true())
    #: The game's PGN attached to each move mail (``pgn off`` stops it).
    pgn: Mapped[bool] = mapped_column(default=True, server_default=true())
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
    result: Mapped[Result | None] = mapped_column(EnumText(Result, 8))
    #: How the game ended, in words (``resignation``, ``overstep``...).
    termination: Mapped[str | None] = mapped_column(Text)
    ended_at: Mapped[datetime.datetime | None]
    #: A standing draw offer (valid until the opponent's next move).
    draw_offer_by: Mapped[Colour | None] = mapped_column(EnumText(Colour, 5))
    draw_offer_ply: Mapped[int | None]
    #: A conditional line still waiting, in UCI: the opponent's expected reply first.
    pending_conditional: Mapped[list[str] | None]
    pending_conditional_by: Mapped[Colour | None] = mapped_column(EnumText(Colour, 5))
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
    status: Mapped[InboundStatus] = mapped_column(
        EnumText(InboundStatus, 12), default=InboundStatus.NEW, index=True
    )
    attempts: Mapped[int] = mapped_column(default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    game_id: Mapped[int | None] = mapped_column(
        ForeignKey("games.id", ondelete="SET NULL"), index=True
    )
    handled_at: Mapped[datetime.datetime | None]
    #: Why the message was ignored, rejected or quarantined: the phrase's code and
    #: details as text (``reason.echo``); a row kept before reasons were phrases holds
    #: the reason in English here, and no ``reason_phrase``.
    reason: Mapped[str | None] = mapped_column(Text)
    #: The same reason as a phrase (:meth:`mailbot.rules.phrase.Phrase.to_data`), which
    #: its reader writes in a language (:func:`mailbot.compose.catalogue.say_kept`).
    reason_phrase: Mapped[dict[str, Any] | None]
    created_at: Mapped[datetime.datetime]

    #: Read only, as the links below marked so: the bot sets a row's ids, never these
    #: links, and what they name (a game, made by a start list's import; a message,
    #: recorded first) is written before the row, so a flush neither weighs them nor
    #: orders its writes by them (six such links for each move of a backlog).
    game: Mapped[Game | None] = relationship(viewonly=True)

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
    inbound: Mapped[InboundMessage | None] = relationship(viewonly=True)


class Penalty(Base):
    """Days added to a player's time (art. 17, TD decisions)."""

    __tablename__ = "penalties"
    __table_args__ = (
        CheckConstraint(_one_of("color", COLORS), name="color"),
        CheckConstraint(_one_of("decided_by", PENALTY_DECIDERS), name="decided_by"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    color: Mapped[Colour] = mapped_column(EnumText(Colour, 5))
    days: Mapped[int]
    #: ``impossible``, ``incorrect``, ``unclear``, ``td``...
    reason: Mapped[str] = mapped_column(String(32))
    #: Half-moves played when it was imposed.
    ply_at: Mapped[int]
    created_at: Mapped[datetime.datetime]
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"))
    decided_by: Mapped[PenaltyDecider] = mapped_column(
        EnumText(PenaltyDecider, 8), default=PenaltyDecider.REFEREE
    )

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
    granted_by: Mapped[Grantor] = mapped_column(EnumText(Grantor, 8), default=Grantor.PLAYER)

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
    color: Mapped[Colour] = mapped_column(EnumText(Colour, 5))
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
    #: The files sent after the text (:meth:`mailbot.mail.attachments.Attachment.stored`);
    #: None or empty for a message of text alone.
    attachments: Mapped[list[Any] | None] = mapped_column(JSON)
    #: The ``X-Mailbot-Event`` value.
    event: Mapped[MailEvent] = mapped_column(EnumText(MailEvent, 32, strict=True))
    game_id: Mapped[int | None] = mapped_column(
        ForeignKey("games.id", ondelete="SET NULL"), index=True
    )
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"))
    status: Mapped[OutboxStatus] = mapped_column(
        EnumText(OutboxStatus, 8), default=OutboxStatus.PENDING
    )
    attempts: Mapped[int] = mapped_column(default=0)
    next_attempt_at: Mapped[datetime.datetime]
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime.datetime]
    sent_at: Mapped[datetime.datetime | None]
    #: The check value of the row's return path (VERP, :mod:`mailbot.mail.bounces`), set when
    #: the row is first sent: a delivery report naming the row must show it.
    verp_check: Mapped[str | None] = mapped_column(String(32))
    #: When a delivery report said the message never arrived (status ``bounced``).
    bounced_at: Mapped[datetime.datetime | None]
    #: When the operator dismissed the row given up or bounced (``mailbot outbox dismiss``):
    #: it stays listed and no longer counts in ``mailbot health``; a new failure clears it.
    dismissed_at: Mapped[datetime.datetime | None]

    game: Mapped[Game | None] = relationship(viewonly=True)
    inbound: Mapped[InboundMessage | None] = relationship(viewonly=True)


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
    kind: Mapped[NoticeKind] = mapped_column(EnumText(NoticeKind, 32, strict=True))
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
    kind: Mapped[ClaimKind] = mapped_column(EnumText(ClaimKind, 16))
    #: The claimant's colour; None when the bot opened the claim itself.
    by_color: Mapped[Colour | None] = mapped_column(EnumText(Colour, 5))
    #: The colour that would lose (silence, overstep), if any.
    against: Mapped[Colour | None] = mapped_column(EnumText(Colour, 5))
    opened_at: Mapped[datetime.datetime]
    status: Mapped[ClaimState] = mapped_column(
        EnumText(ClaimState, 10), default=ClaimState.OPEN, index=True
    )
    decided_at: Mapped[datetime.datetime | None]
    #: ``td``, ``auto`` (auto_forfeit), ``agreement`` (both claimed the same result)...
    decided_by: Mapped[ClaimDecider | None] = mapped_column(EnumText(ClaimDecider, 16))
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
    #: The bot's message the orders answered (a claim's packet, a notice about a game):
    #: confirmed, they take their claim or game from it, as through its order key.
    answered_id: Mapped[int | None] = mapped_column(ForeignKey("outbox.id", ondelete="SET NULL"))
    status: Mapped[HeldStatus] = mapped_column(EnumText(HeldStatus, 10), default=HeldStatus.HELD)
    created_at: Mapped[datetime.datetime]
    lapses_at: Mapped[datetime.datetime]
    decided_at: Mapped[datetime.datetime | None]

    answered: Mapped[Outbox | None] = relationship(foreign_keys=[answered_id])


class OrderKey(Base):
    """A single-use key in the ``Reply-To`` of a message the bot sent to a tournament
    director alone (``bot+o-KEY@``): a reply through it proves the director wrote it,
    for the orders of one message, until it lapses (:mod:`mailbot.mail.orderkeys`)."""

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


class XfccPassword(Base):
    """A player's Xfcc password as a slow hash (``scrypt$N$r$p$salt$hash``), one per
    address: a new one replaces the old."""

    __tablename__ = "xfcc_passwords"

    address: Mapped[str] = mapped_column(String(320), primary_key=True)
    hashed: Mapped[str] = mapped_column(String(256))
    created_at: Mapped[datetime.datetime]
    #: The ``xfcc`` message whose answer carries the password, until the password is
    #: hidden in that answer's copy in the outbox (once the answer has gone).
    mailed_for: Mapped[int | None]


class XfccRefusal(Base):
    """One refused Xfcc login of an address (the lockout counts them)."""

    __tablename__ = "xfcc_refusals"

    id: Mapped[int] = mapped_column(primary_key=True)
    address: Mapped[str] = mapped_column(String(320), index=True)
    at: Mapped[datetime.datetime]


_RECENT = "mailbot.recent"


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


#: How many of a game's latest mails are searched for the thread to keep.
LATEST_MAIL = 30
