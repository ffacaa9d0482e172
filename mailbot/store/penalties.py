"""Penalties in the store: days added to a player's clock, by the referee or the TD.

The one place a :class:`~mailbot.store.models.Penalty` row is made (docs/architecture.md,
"One owner for every write")::

    >>> import datetime
    >>> from mailbot.store.models import Game
    >>> g = Game(id=1, board=3, white_id=1, black_id=2)
    >>> now = datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC)
    >>> reason = PenaltyReason.IMPOSSIBLE
    >>> impose_penalty(g, "black", 5, reason, now, decided_by=PenaltyDecider.REFEREE).days
    5
    >>> [(p.color, p.days, p.ply_at) for p in g.penalties]
    [(<Colour.BLACK: 'black'>, 5, 0)]
"""

from __future__ import annotations

import datetime

from mailbot.rules.result import Colour
from mailbot.store.kinds import PenaltyDecider, PenaltyReason
from mailbot.store.models import Game, Penalty

__all__ = ["impose_penalty"]


def impose_penalty(
    g: Game,
    color: str,
    days: int,
    reason: PenaltyReason,
    now: datetime.datetime,
    *,
    decided_by: PenaltyDecider,
    inbound_id: int | None = None,
    ply_at: int | None = None,
) -> Penalty:
    """Add ``days`` to ``color``'s clock in ``g`` from ply ``ply_at`` (the game's length
    by default), for ``reason``."""
    penalty = Penalty(
        color=Colour(color),
        days=days,
        reason=reason.value,
        ply_at=len(g.moves) if ply_at is None else ply_at,
        created_at=now,
        inbound_id=inbound_id,
        decided_by=decided_by,
    )
    g.penalties.append(penalty)
    return penalty
