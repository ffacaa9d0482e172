"""Who is told when a message that keeps failing goes to quarantine.

The directors of the sender's tournaments are told of each; of a stranger's
mail, which names no tournament, every director is told once a day at most
(a notice keyed by the tournament and the day), enough to go and look.
"""

from __future__ import annotations

import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from mailbot.compose.notices import Renderer
from mailbot.compose.notifier import Notifier
from mailbot.rules import events as ev
from mailbot.store.kinds import NoticeKind
from mailbot.store.ledger import note_once
from mailbot.store.models import InboundMessage, Tournament
from mailbot.store.queries import players_writing_from


def tell_directors_of_quarantine(
    session: Session, row: InboundMessage, now: datetime.datetime, day: str,
    sender: str, renderer: Renderer,
) -> None:  # fmt: skip
    """Tell the directors who must know that ``row`` went to quarantine on ``day``
    (an ISO date), in mail from ``sender``."""
    players = players_writing_from(session, row.from_addr or "")
    tournaments = [p.tournament for p in players] or list(session.scalars(select(Tournament)).all())
    told = [
        t.id
        for t in tournaments
        # strangers' poison: one notice a day is enough to go and look
        if players or first_today(session, t, day, now)
    ]
    notifier = Notifier(session, sender, now, renderer=renderer)
    notifier.tell(ev.Quarantined(row.id, tuple(told)))


def first_today(session: Session, t: Tournament, day: str, now: datetime.datetime) -> bool:
    """Whether this is the day's first quarantine of a stranger's mail for ``t``."""
    return note_once(session, t.id, NoticeKind.QUARANTINE, f"{t.id}:{day}", now)
