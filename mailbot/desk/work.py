"""A unit of work: one transaction's session, its moment, and the events it produced.

Everything that changes the store on behalf of a message, a deadline or a
director's order gets one :class:`Work`: it records rows in ``session``,
stamps them with ``now`` (and with the message that caused them), and tells
what happened with :meth:`Work.tell`; the caller hands the events to the
notifier when the work is done::

    >>> from mailbot.rules import events as ev
    >>> work = Work(session=None, now=None)  # type: ignore[arg-type]
    >>> work.tell(ev.DelayNoted(game=1, player=2))
    >>> work.events
    [DelayNoted(game=1, player=2, in_time=True)]
"""

from __future__ import annotations

import dataclasses
import datetime

from sqlalchemy.orm import Session

from mailbot.rules import events as ev


@dataclasses.dataclass
class Work:
    """See the module."""

    session: Session
    now: datetime.datetime
    #: The inbound message the work is done for, if one is.
    inbound_id: int | None = None
    events: list[ev.Event] = dataclasses.field(default_factory=list)

    def tell(self, *events: ev.Event) -> None:
        """Note what happened; the notifier tells it when the work is done."""
        self.events.extend(events)
