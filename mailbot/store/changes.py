"""Which games the sweep must look at again: every flush marks the games it may move."""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy import (
    inspect,
    or_,
    update,
)
from sqlalchemy.orm import (
    Mapper,
    Session,
)
from sqlalchemy.orm.attributes import get_history
from sqlalchemy.orm.base import PassiveFlag

from mailbot.store.models import (
    RECHECK,
    Game,
    InboundMessage,
    Leave,
    LeaveExtra,
    Outbox,
    Player,
    Tournament,
)

#: Columns whose changes move no deadline: the digests' bookkeeping, the mark itself.
_QUIET = {"digest_sent_at", "digest", "warnings", "pgn", "due_at", "bounces", "bounced_at"}


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
    computes its next deadline afresh (:func:`mailbot.desk.deadlines.next_due`). The
    mail ledgers (inbound messages, the outbox) move no deadline.

    >>> import datetime
    >>> from mailbot.store.engine import make_engine
    >>> from mailbot.store.models import Base
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
    new, deleted = session.new, session.deleted  # each a fresh set: read once
    games, players, tournaments = _touched(session, new, deleted)
    for g in games:
        if g not in deleted and g.result is None:
            g.due_at = RECHECK
    if players or tournaments:
        _recheck_games_of(session, players, tournaments)


def _touched(session: Session, new: Any, deleted: Any) -> tuple[list[Game], set[int], set[int]]:
    """What the flush changes that may move a deadline: the games, and the ids of the
    players and the tournaments whose unfinished games are all due again."""
    games: list[Game] = []
    players: set[int] = set()
    tournaments: set[int] = set()
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
    return games, players, tournaments


def _recheck_games_of(session: Session, players: set[int], tournaments: set[int]) -> None:
    """Every unfinished game of these players and tournaments is due again."""
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
