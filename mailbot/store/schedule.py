"""When each game is next due, as the sweep stores it (docs/architecture.md, "One owner for
every write")."""

from __future__ import annotations

import datetime

from sqlalchemy import update
from sqlalchemy.orm import Session

from mailbot.store.models import Game

__all__ = ["store_due"]


def store_due(session: Session, game_id: int, due_at: datetime.datetime | None) -> None:
    """Game ``game_id`` is next due at ``due_at`` (a statement: the loaded row is left as is)."""
    session.execute(
        update(Game)
        .where(Game.id == game_id)
        .values(due_at=due_at)
        .execution_options(synchronize_session=False)
    )
