"""When each game is next due, as the sweep stores it (docs/architecture.md, "One owner for
every write"), and when a new game is first due, as the import stores it."""

from __future__ import annotations

import datetime

from sqlalchemy import update
from sqlalchemy.orm import Session

from mailbot.rules import clock, due
from mailbot.rules.profile import Profile
from mailbot.store.models import Game

__all__ = ["opening_due", "opening_state", "store_due"]


def store_due(session: Session, game_id: int, due_at: datetime.datetime | None) -> None:
    """Game ``game_id`` is next due at ``due_at`` (a statement: the loaded row is left as is)."""
    session.execute(
        update(Game)
        .where(Game.id == game_id)
        .values(due_at=due_at)
        .execution_options(synchronize_session=False)
    )


def opening_state(
    p: Profile, tz: datetime.tzinfo, start: datetime.date, end: datetime.date
) -> due.GameState:
    """A game of a new event as the deadlines see it: no move, no leave, no claim; White
    to move since the start (art. 24). The same for every game of the event, so the import
    reads it once (:func:`mailbot.store.record.game_state` reads it from a stored game)."""
    return due.GameState(p, tz, end, 0, clock.first_move_receipt(p, start, tz))


def opening_due(
    p: Profile, tz: datetime.tzinfo, start: datetime.date, end: datetime.date
) -> datetime.datetime | None:
    """When the sweep must first look at a new game of an event of profile ``p`` from
    ``start`` to ``end``: its earliest deadline (:func:`mailbot.rules.due.schedule`),
    nothing having been sent yet; what a sweep before it would store.

    >>> from zoneinfo import ZoneInfo
    >>> from mailbot.rules.profile import profile
    >>> at = opening_due(profile("bg-email"), ZoneInfo("Europe/Sofia"),
    ...                  datetime.date(2026, 3, 1), datetime.date(2026, 12, 31))
    >>> at.isoformat()  # the first warning of White's overstep at 50 days
    '2026-04-11T00:00:00+03:00'
    """
    return min((d.at for d in due.schedule(opening_state(p, tz, start, end))), default=None)
