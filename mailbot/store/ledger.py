"""The ledgers of what the bot did: notices entered so that each goes out once.

A notice row is keyed by its game (or its event), its player, its kind and a key;
entering it twice is refused, so a deadline's mail goes out once however often the
sweep runs (docs/architecture.md, invariant 6)::

    >>> import datetime
    >>> from mailbot.store.engine import make_engine, session_factory
    >>> from mailbot.store.models import Base
    >>> from mailbot.store.startlist import parse_start_list
    >>> from mailbot.store.tournaments import import_start_list
    >>> start_list = parse_start_list(
    ...     "{index: X-1, name: Cup, profile: bg-email, start: 2026-03-01, end: 2026-12-31,"
    ...     " director: {name: Tom, email: td@example.org},"
    ...     " players: [{id: a, name: Ann, email: a@example.org},"
    ...     " {id: b, name: Bob, email: b@example.org}], games: round-robin}"
    ... )
    >>> engine = make_engine("sqlite://")
    >>> Base.metadata.create_all(engine)
    >>> now = datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC)
    >>> with session_factory(engine).begin() as session:
    ...     t = import_start_list(session, start_list, now)
    ...     [note_once(session, t.id, NoticeKind.QUARANTINE, "1:2026-03-01", now) for _ in "ab"]
    [True, False]
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.orm import Session

from mailbot.store.kinds import NoticeKind
from mailbot.store.models import Game, Heartbeat, Notice, Player, ReplyCount

if TYPE_CHECKING:
    from sqlalchemy.dialects import postgresql, sqlite

__all__ = ["beat", "count_reply", "note", "note_once", "open_reply_count", "record_notice"]


def record_notice(
    session: Session,
    g: Game,
    player: Player | None,
    kind: NoticeKind,
    key: str,
    due: datetime.datetime | None,
    now: datetime.datetime,
) -> Notice | None:
    """Enter a notice in the ledger; None if it was entered before."""
    found = session.scalars(
        select(Notice).where(
            Notice.game_id == g.id,
            Notice.player_id == player.id if player else Notice.player_id.is_(None),
            Notice.kind == kind,
            Notice.key == key,
        )
    ).first()
    if found is not None:
        return None
    notice = Notice(
        tournament_id=g.tournament_id,
        game_id=g.id,
        player_id=player.id if player else None,
        kind=kind,
        key=key,
        due_at=due,
        created_at=now,
    )
    session.add(notice)
    session.flush()
    return notice


def note(
    session: Session, tournament_id: int, kind: NoticeKind, key: str, now: datetime.datetime
) -> Notice:
    """Enter a notice about an event (no game), such as the director's weekly digest."""
    notice = Notice(tournament_id=tournament_id, kind=kind, key=key, created_at=now)
    session.add(notice)
    return notice


def note_once(
    session: Session, tournament_id: int, kind: NoticeKind, key: str, now: datetime.datetime
) -> bool:
    """Enter a notice about an event unless one of its kind and key was entered before;
    whether it is new."""
    found = session.scalars(
        select(Notice.id).where(Notice.game_id.is_(None), Notice.kind == kind, Notice.key == key)
    ).first()
    if found is not None:
        return False
    note(session, tournament_id, kind, key, now)
    session.flush()
    return True


def open_reply_count(
    session: Session, sender: str, day: datetime.date, now: datetime.datetime
) -> ReplyCount:
    """A new count of the answers to ``sender`` on ``day``, at nought."""
    row = ReplyCount(sender=sender, day=day, count=0, updated_at=now)
    session.add(row)
    return row


def count_reply(row: ReplyCount, now: datetime.datetime) -> None:
    """Count one more answer to the sender that day.

    >>> row = ReplyCount(count=1)
    >>> count_reply(row, datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC)); row.count
    2
    """
    row.count += 1
    row.updated_at = now


def beat(session: Session, name: str, detail: str | None, now: datetime.datetime) -> None:
    """Record that the work ``name`` succeeded at ``now`` (its heartbeat), with ``detail``.

    One statement makes the row or updates it (an upsert on SQLite and PostgreSQL
    alike), so two threads or workers beating one name at once both succeed.
    """
    # each dialect's module is loaded when used: PostgreSQL's would cost every start on
    # SQLite a fiftieth of a second
    statement: postgresql.Insert | sqlite.Insert
    if session.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        statement = postgresql_insert(Heartbeat)
    else:
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        statement = sqlite_insert(Heartbeat)
    statement = statement.values(name=name, at=now, detail=detail)
    session.execute(
        statement.on_conflict_do_update(
            index_elements=[Heartbeat.name], set_={"at": now, "detail": detail}
        )
    )
