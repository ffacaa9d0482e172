"""The director's order keys and the orders held for the director's confirmation.

An order key is the single-use reply address of a message the bot sent to a
director alone (:func:`issue_order_key`); a reply through it carries orders out once
(:func:`spend_order_key`). Orders the bot cannot tell the director wrote are held
(:func:`hold_order`) until the director confirms or cancels them (:func:`decide_held`)::

    >>> import datetime
    >>> from mailbot.store.engine import make_engine, session_factory
    >>> from mailbot.store.models import Base
    >>> engine = make_engine("sqlite://")
    >>> Base.metadata.create_all(engine)
    >>> now = datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC)
    >>> with session_factory(engine).begin() as session:
    ...     held = hold_order(session, "td@example.org", ["pause 3"], None, now, now)
    ...     decide_held(held, HeldStatus.CANCELLED, now)
    ...     held.id, held.status
    (1, <HeldStatus.CANCELLED: 'cancelled'>)
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from sqlalchemy import update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from mailbot.store.kinds import HeldStatus
from mailbot.store.models import HeldOrder, OrderKey, Outbox

__all__ = [
    "decide_held",
    "hold_order",
    "issue_order_key",
    "lapse_order_key",
    "spend_order_key",
    "tie_challenge",
]


def issue_order_key(
    session: Session,
    row: Outbox,
    key: str,
    reply_to: str,
    now: datetime.datetime,
    lapses_at: datetime.datetime,
) -> None:
    """Give the mail ``row`` (to a director alone) the order key ``key``, replies going
    to ``reply_to``; the key lapses at ``lapses_at``."""
    row.headers = {**row.headers, "Reply-To": reply_to}
    session.add(
        OrderKey(
            key=key,
            director_email=row.to_addrs[0],
            outbox=row,
            created_at=now,
            lapses_at=lapses_at,
        )
    )


def spend_order_key(
    session: Session, key: OrderKey, inbound_id: int, now: datetime.datetime
) -> bool:
    """Spend ``key`` for the message ``inbound_id``; False when another message spent
    it first (the key is then read again)."""
    spent = session.connection().execute(
        update(OrderKey)
        .where(OrderKey.id == key.id, OrderKey.spent_at.is_(None))
        .values(spent_at=now, spent_by=inbound_id)
    )
    if spent.rowcount != 1:
        session.refresh(key)
        return False
    set_committed_value(key, "spent_at", now)
    set_committed_value(key, "spent_by", inbound_id)
    return True


def lapse_order_key(key: OrderKey, now: datetime.datetime) -> None:
    """The key lapses unspent at ``now`` (it is no longer the director's secret)."""
    key.lapses_at = now


def hold_order(
    session: Session,
    director_email: str,
    orders: Sequence[str],
    inbound_id: int | None,
    now: datetime.datetime,
    lapses_at: datetime.datetime,
    answered: Outbox | None = None,
) -> HeldOrder:
    """Hold ``orders`` in the name of ``director_email`` until ``lapses_at``; written at
    once (for its id). ``answered`` is the bot's message they answer (a claim's packet,
    a notice about a game), which they take their claim or game from when confirmed."""
    held = HeldOrder(
        director_email=director_email,
        orders=list(orders),
        inbound_id=inbound_id,
        answered=answered,
        status=HeldStatus.HELD,
        created_at=now,
        lapses_at=lapses_at,
    )
    session.add(held)
    session.flush()
    return held


def decide_held(held: HeldOrder, status: HeldStatus, now: datetime.datetime) -> None:
    """The held orders are confirmed, cancelled or lapsed (``status``) at ``now``."""
    held.status, held.decided_at = status, now


def tie_challenge(session: Session, held: HeldOrder, row: Outbox) -> None:
    """The mail ``row`` asks the director to confirm ``held``: the answer to it decides."""
    session.flush()
    held.outbox_id = row.id
