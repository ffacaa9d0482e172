"""The ids of new rows, given by the bot under SQLite's write lock.

On SQLite, which has one writer at a time, the bot numbers the rows a flush is
about to insert itself, in the order they were added, after the highest id of
their table: the database then takes each table's rows in one statement instead
of one statement a row (for which SQLite would return each id)::

    >>> import datetime
    >>> from mailbot.store.engine import make_engine, session_factory
    >>> from mailbot.store.models import Base, ReplyCount
    >>> engine = make_engine("sqlite://")
    >>> Base.metadata.create_all(engine)
    >>> now = datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC)
    >>> with session_factory(engine).begin() as session:
    ...     rows = [ReplyCount(sender=s, day=now.date(), updated_at=now) for s in "ab"]
    ...     session.add_all(rows)
    ...     number_new_rows(session)
    ...     [row.id for row in rows]
    [1, 2]
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, inspect, select
from sqlalchemy.orm import Session

__all__ = ["number_new_rows"]


def number_new_rows(session: Session) -> None:
    """Give the new rows their ids, in the order they were added, after the highest
    of their table.

    Only under SQLite's write lock, which no other writer can then insert past.
    """
    new: dict[Any, list[Any]] = {}
    for obj in session.new:
        state = inspect(obj)
        (column,) = state.mapper.primary_key
        key = state.mapper.get_property_by_column(column).key
        if getattr(obj, key) is None:
            new.setdefault(column, []).append((state.insert_order, key, obj))
    connection = session.connection()
    for column, rows in new.items():
        top = connection.execute(select(func.max(column))).scalar() or 0
        for number, (_order, key, obj) in enumerate(sorted(rows, key=lambda r: r[0]), top + 1):
            setattr(obj, key, number)
