"""Reads the message path makes often: who writes from an address, the games of a batch."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Iterable, Sequence

from sqlalchemy import (
    distinct,
    func,
    or_,
    select,
    tuple_,
)
from sqlalchemy.orm import (
    Session,
    joinedload,
    selectinload,
)

from mailbot.store.engine import Recent, held_back, pending, recent
from mailbot.store.models import (
    _WRITING_FROM,
    LATEST_MAIL,
    Game,
    InboundMessage,
    Leave,
    Move,
    Outbox,
    Player,
    PlayerAddress,
    ReplyCount,
    Tournament,
)

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


def is_director(session: Session, address: str) -> bool:
    """Whether ``address`` (in normal form) directs a tournament.

    The directors' addresses are read once a transaction (:class:`Recent`), and
    again after a flush that writes a tournament.

    >>> from mailbot.store.engine import make_engine, session_factory
    >>> from mailbot.store.models import RECHECK, Base
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


def prefetch_games(session: Session, tags: Iterable[str]) -> list[Game]:
    """Load the games of ``tags`` (``INDEX/NUMBER``) into ``session`` with everything a move
    reads: moves, penalties, claims, both players with their other addresses and leave.

    A batch of messages then reads its games with a few queries in all, where each
    message would load each collection with a query of its own. What the batch
    changes later goes through these same collections, so nothing read is stale.

    >>> from mailbot.store.engine import make_engine, session_factory
    >>> from mailbot.store.models import Base
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
    memo = recent(session)
    _prefetch_players(session, games, memo)
    memo.games.update(((g.tournament.index, g.number), g) for g in games)
    if games:
        memo.threads.update(_latest_mail(session, games))
    return games


def prefetch_texts(session: Session, marks: Iterable[str]) -> None:
    """Read at once the ids of the stored messages with each of the texts ``marks``
    (the ``text_sha256`` of a batch's messages, stored before it is handled), which
    each message of the batch would otherwise ask for itself: is it an earlier one
    sent again? (:attr:`Recent.texts`)

    >>> from mailbot.store.engine import make_engine, session_factory
    >>> from mailbot.store.models import Base
    >>> engine = make_engine("sqlite://")
    >>> Base.metadata.create_all(engine)
    >>> with session_factory(engine)() as session:
    ...     prefetch_texts(session, ["ab12"])
    ...     recent(session).texts
    {'ab12': []}
    """
    wanted = sorted(set(marks))
    if not wanted:
        return
    texts = recent(session).texts
    for mark in wanted:
        texts[mark] = []
    with session.no_autoflush:  # the stored rows: nothing the session holds changes them
        rows = session.execute(
            select(InboundMessage.text_sha256, InboundMessage.id)
            .where(InboundMessage.text_sha256.in_(wanted))
            .order_by(InboundMessage.id)
        )
        for text, found in rows:
            if text is not None:  # as asked for: every row found has a text
                texts[text].append(found)


def _prefetch_players(session: Session, games: Sequence[Game], memo: Recent) -> None:
    """Both players of every game in one query (``white`` and ``black`` then come from
    the session, without a query), with their other addresses and leave."""
    players = {g.white_id for g in games} | {g.black_id for g in games}
    if not players:
        return
    player_options = (
        selectinload(Player.addresses),
        selectinload(Player.leaves).selectinload(Leave.cancellations),
    )
    # held with the batch: the session keeps only weak references
    memo.held.extend(
        session.scalars(
            select(Player).where(Player.id.in_(sorted(players))).options(*player_options)
        ).all()
    )


def _latest_mail(session: Session, games: Sequence[Game]) -> dict[int, list[tuple[str, list[str]]]]:
    """For each game, the Message-ID and recipients of its latest mails, newest first."""
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
    return threads


def prefetch_senders(session: Session, addresses: Iterable[str], day: datetime.date) -> None:
    """Load, for each of ``addresses``, the players who write from it, the tournaments
    it directs and its reply count of ``day``, into :func:`recent`: a batch of
    messages then asks the database once for all its senders.

    >>> from mailbot.store.engine import make_engine, session_factory
    >>> from mailbot.store.models import Base
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
    # each player and tournament read once, by its addresses (not once an address)
    writers: dict[str, list[Player]] = {}
    for p in players:
        for address in dict.fromkeys([p.email, *(a.email for a in p.addresses)]):
            writers.setdefault(address, []).append(p)
    directs: dict[str, list[Tournament]] = {}
    for t in directed:
        directs.setdefault(t.director_email, []).append(t)
    for address in wanted:
        memo.writers[address] = writers.get(address, [])
        memo.directed[address] = directs.get(address, [])
        memo.counted.add((address, day))
    for count in counts:
        memo.counts.setdefault((count.sender, count.day), count)


@dataclasses.dataclass(frozen=True)
class ListedGame:
    """A game as a player's start mail lists it, read as plain values (no game loaded)."""

    number: int
    white_id: int
    black_id: int
    round: int | None
    #: Half-moves played.
    plies: int


def games_listed(session: Session, player_id: int) -> list[ListedGame]:
    """The games of player ``player_id``, by number, as plain values: a start mail of a
    round robin of 100,000 games reads its player's games, never the event's.

    >>> from mailbot.store.engine import make_engine, session_factory
    >>> from mailbot.store.models import Base
    >>> engine = make_engine("sqlite://")
    >>> Base.metadata.create_all(engine)
    >>> with session_factory(engine)() as session:
    ...     games_listed(session, 1)
    []
    """
    plies = select(func.count(Move.id)).where(Move.game_id == Game.id).scalar_subquery()
    rows = session.execute(
        select(Game.number, Game.white_id, Game.black_id, Game.round, plies)
        .where(or_(Game.white_id == player_id, Game.black_id == player_id))
        .order_by(Game.number)
    )
    return [ListedGame(*row) for row in rows]


def games_and_rounds(session: Session, tournament_id: int) -> tuple[int, int]:
    """How many games tournament ``tournament_id`` has, and in how many rounds (none
    outside a round robin), counted by the database."""
    games, rounds = session.execute(
        select(func.count(Game.id), func.count(distinct(Game.round))).where(
            Game.tournament_id == tournament_id
        )
    ).one()
    return int(games), int(rounds)
