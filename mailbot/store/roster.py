"""The players in the store: their addresses and names, a replacement, a withdrawal, their
leave and delay notices, the digests they were sent.

The one place these rows of a player change (docs/architecture.md, "One owner for every
write")::

    >>> import datetime
    >>> from mailbot.store.models import Player
    >>> p = Player(key="ivanov", name="Ivan Ivanov", email="ivan@example.org")
    >>> now = datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC)
    >>> rename_player(p, "Ivan Ivanov-Petrov")
    >>> withdraw_player(p, now, valid=True)
    >>> p.name, p.withdrawn_at == now, p.withdrawal_valid
    ('Ivan Ivanov-Petrov', True, True)
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from mailbot.store.endings import clear_offers
from mailbot.store.kinds import Grantor, OutboxStatus
from mailbot.store.models import (
    DelayNotice,
    Game,
    Leave,
    LeaveCancellation,
    LeaveExtra,
    Outbox,
    Player,
    Tournament,
)

__all__ = [
    "change_address",
    "enrol_newcomer",
    "grant_extra_leave",
    "grant_leave",
    "record_delay",
    "rename_player",
    "replace_player",
    "stamp_digests",
    "withdraw_player",
]


def grant_leave(
    player: Player,
    start: datetime.date,
    end: datetime.date,
    now: datetime.datetime,
    *,
    granted_by: Grantor,
    inbound_id: int | None,
) -> Leave:
    """Record ``player``'s leave from ``start`` to ``end`` (art. 42-46)."""
    lv = Leave(start=start, end=end, created_at=now, inbound_id=inbound_id, granted_by=granted_by)
    player.leaves.append(lv)
    return lv


def grant_extra_leave(
    session: Session,
    player: Player,
    year: int,
    days: int,
    now: datetime.datetime,
    inbound_id: int | None,
) -> LeaveExtra:
    """The director gives ``player`` ``days`` more leave in ``year`` (art. 43)."""
    extra = LeaveExtra(
        player_id=player.id, year=year, days=days, created_at=now, inbound_id=inbound_id
    )
    session.add(extra)
    return extra


def record_delay(
    g: Game, colour: str, received: datetime.datetime, inbound_id: int | None, ply: int
) -> DelayNotice:
    """``colour`` will answer in ``g`` later than the notice limit (art. 25): the move
    due after ``ply`` half-moves."""
    notice = DelayNotice(color=colour, ply_at=ply, received_at=received, inbound_id=inbound_id)
    g.delays.append(notice)
    return notice


def change_address(session: Session, player: Player, address: str, now: datetime.datetime) -> str:
    """``player``'s address is ``address`` from now on, and so is that of the mail still
    waiting for the old one (failed mail is tried again at ``now``); returns the old one."""
    before = player.email
    player.email = address
    # the new address may have been one of the player's others: it is the main one now
    player.addresses = [a for a in player.addresses if a.email != player.email]
    waiting = session.scalars(select(Outbox).where(Outbox.status != OutboxStatus.SENT)).all()
    for row in waiting:
        if before in row.to_addrs:
            row.to_addrs = [player.email if a == before else a for a in row.to_addrs]
            if row.status == OutboxStatus.FAILED:
                row.status, row.attempts, row.next_attempt_at = OutboxStatus.PENDING, 0, now
                row.dismissed_at = None
    return before


def rename_player(player: Player, name: str) -> None:
    """``player``'s name as mail and the PGN show it (at most 200 characters)."""
    player.name = name[:200]


def withdraw_player(player: Player, now: datetime.datetime, *, valid: bool) -> None:
    """``player`` withdraws at ``now``, for a ``valid`` reason or not (docs/rules.md 6)."""
    player.withdrawn_at = now
    player.withdrawal_valid = valid


def stamp_digests(players: Iterable[Player], now: datetime.datetime) -> None:
    """``players`` were sent their digest at ``now``."""
    for p in players:
        p.digest_sent_at = now


def enrol_newcomer(
    session: Session, t: Tournament, old: Player, key: str, name: str, email: str
) -> Player:
    """A newcomer joins ``t`` in ``old``'s team and board (flushed: it has its id)."""
    newcomer = Player(key=key, name=name[:200], email=email, team=old.team, board=old.board)
    t.players.append(newcomer)
    session.flush()
    return newcomer


def replace_player(session: Session, old: Player, newcomer: Player, games: Sequence[Game]) -> None:
    """003 part 1 art. 9: ``newcomer`` takes ``old``'s place in ``games`` with the leave
    taken and the extra leave given; ``old`` is replaced by them (flushed)."""
    _hand_over(games, old, newcomer)
    _copy_leave(session, old, newcomer)
    old.replaced_by_id = newcomer.id
    session.flush()


def _hand_over(games: Sequence[Game], old: Player, newcomer: Player) -> None:
    """The newcomer takes ``old``'s place in ``games``."""
    for g in games:
        colour = "white" if g.white_id == old.id else "black"
        if colour == "white":
            g.white = newcomer
        else:
            g.black = newcomer
        # the player's own offer and conditional line were theirs, not the newcomer's;
        # the opponent's offer stands
        clear_offers(g, colour)


def _copy_leave(session: Session, old: Player, newcomer: Player) -> None:
    """The leave already taken is the place's: it paused these games and counts against
    the year's allowance (003 part 1 art. 9 gives the newcomer the clocks); so do the
    extra leave days the director gave."""
    for lv in old.leaves:
        copy = Leave(
            start=lv.start,
            end=lv.end,
            created_at=lv.created_at,
            inbound_id=lv.inbound_id,
            granted_by=lv.granted_by,
        )
        copy.cancellations = [
            LeaveCancellation(game_id=c.game_id, from_date=c.from_date) for c in lv.cancellations
        ]
        newcomer.leaves.append(copy)
    for extra in session.scalars(select(LeaveExtra).where(LeaveExtra.player_id == old.id)):
        session.add(
            LeaveExtra(
                player_id=newcomer.id,
                year=extra.year,
                days=extra.days,
                created_at=extra.created_at,
                inbound_id=extra.inbound_id,
            )
        )
