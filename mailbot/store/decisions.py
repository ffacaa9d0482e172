"""Claims and the director's decisions in the store: a claim opened, decided, a move taken
back, the tournament extended.

The one place a :class:`~mailbot.store.models.Claim` row is made and decided
(docs/architecture.md, "One owner for every write")::

    >>> import datetime
    >>> from mailbot.store.models import Game
    >>> g = Game(id=1, board=3, white_id=1, black_id=2)
    >>> now = datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC)
    >>> claim = refer_withdrawal(g, "ivanov", now)
    >>> decide_claim(claim, ClaimState.CONFIRMED, now, ClaimDecider.TD)
    >>> f"{claim.kind} {claim.status} by {claim.decided_by}", claim.details
    ('adjudication confirmed by td', {'withdrawal': 'ivanov'})
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from mailbot.store.endings import clear_offers
from mailbot.store.kinds import ClaimDecider, ClaimKind, ClaimState, NoticeKind
from mailbot.store.models import Claim, Game, Notice, Tournament

__all__ = [
    "award_overstep",
    "decide_claim",
    "extend_tournament",
    "file_adjudication_claim",
    "note_on_claim",
    "open_claim",
    "refer_withdrawal",
    "take_back_moves",
    "void_notices",
]


def open_claim(
    session: Session,
    g: Game,
    kind: ClaimKind,
    now: datetime.datetime,
    details: dict[str, Any],
    *,
    by_color: str | None = None,
    against: str | None = None,
    inbound_id: int | None = None,
) -> Claim:
    """Open a claim of ``kind`` in ``g`` (flushed: it has its id)."""
    claim = Claim(
        kind=kind,
        by_color=by_color,
        against=against,
        opened_at=now,
        status=ClaimState.OPEN,
        details=details,
        inbound_id=inbound_id,
    )
    g.claims.append(claim)
    session.flush()
    return claim


def decide_claim(
    claim: Claim, state: ClaimState, now: datetime.datetime, decided_by: ClaimDecider
) -> None:
    """Decide ``claim``: ``state`` (confirmed or rejected), by ``decided_by``, at ``now``."""
    claim.status = state
    claim.decided_at = now
    claim.decided_by = decided_by


def note_on_claim(claim: Claim, details: dict[str, Any]) -> None:
    """Add ``details`` to the record of ``claim`` (a new dict: the column sees the change)."""
    claim.details = {**claim.details, **details}


def award_overstep(
    session: Session,
    g: Game,
    against: str,
    move_number: int,
    now: datetime.datetime,
    inbound_id: int | None,
) -> Claim:
    """The director awards ``against`` an overstep at ``move_number`` (art. 30), decided
    as it is made (flushed)."""
    claim = Claim(kind=ClaimKind.OVERSTEP, by_color=None, against=against, opened_at=now,
                  status=ClaimState.CONFIRMED, decided_at=now, decided_by=ClaimDecider.TD,
                  details={"awarded_move": move_number}, inbound_id=inbound_id)  # fmt: skip
    g.claims.append(claim)
    session.flush()
    return claim


def refer_withdrawal(g: Game, player_key: str, now: datetime.datetime) -> Claim:
    """A withdrawn player's game goes to the arbiter (art. 48): an open adjudication claim
    whose details name the player."""
    claim = Claim(kind=ClaimKind.ADJUDICATION, by_color=None, against=None, opened_at=now,
                  status=ClaimState.OPEN, details={"withdrawal": player_key})  # fmt: skip
    g.claims.append(claim)
    return claim


def file_adjudication_claim(
    session: Session, g: Game, colour: str, result: str, analysis: str, now: datetime.datetime
) -> dict[str, Any]:
    """A player's adjudication claim (art. 52), kept in the game's open adjudication claim
    (opened if none is); returns the claim's details (flushed)."""
    adjudication, open_ = ClaimKind.ADJUDICATION, ClaimState.OPEN
    record = next((c for c in g.claims if c.kind == adjudication and c.status == open_), None)
    if record is None:
        record = Claim(kind=ClaimKind.ADJUDICATION, by_color=None, against=None, opened_at=now,
                       status=ClaimState.OPEN, details={})  # fmt: skip
        g.claims.append(record)
    details = dict(record.details)
    details[colour] = result
    details[f"{colour}_analysis"] = analysis.strip()[:8000]
    record.details = details
    session.flush()
    return details


def take_back_moves(g: Game, ply: int, now: datetime.datetime) -> dict[str, Any]:
    """Void the moves of ``g`` from ``ply`` on and the penalties imposed after it (art. 20);
    the last move left is handed over again at ``now``, the offers and the conditional line
    go. Returns when that move had been forwarded before (``forwarded_before``), if any."""
    record: dict[str, Any] = {}
    for m in [m for m in g.moves if m.ply >= ply]:
        g.moves.remove(m)
    for p in [p for p in g.penalties if p.ply_at >= ply]:
        g.penalties.remove(p)
    if g.moves:
        last = g.moves[-1]
        record["forwarded_before"] = (last.forwarded_at or last.sent_at).isoformat()
        last.forwarded_at = now
    clear_offers(g)
    g.last_forwarded_at = now
    return record


def void_notices(
    session: Session, g: Game, kinds: Iterable[NoticeKind], ply: int, why: str
) -> list[list[str]]:
    """Mark void (``void by`` ``why``) the notices of ``kinds`` in ``g`` keyed by a ply count
    of ``ply`` or more; returns the kinds and keys they had."""
    voided: list[list[str]] = []
    ledger = select(Notice).where(Notice.game_id == g.id, Notice.kind.in_(tuple(kinds)))
    for notice in session.scalars(ledger.order_by(Notice.id)):
        if notice.key.isdigit() and int(notice.key) >= ply:
            voided.append([notice.kind, notice.key])
            notice.key = f"{notice.key} void by {why}"
    return voided


def extend_tournament(t: Tournament, day: datetime.date) -> None:
    """The director extends ``t`` to ``day`` (art. 50)."""
    t.extended_to = day
