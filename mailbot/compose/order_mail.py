"""What the director's orders say back: the orders carried out, and the orders held
for the director to confirm (or cancelled).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from mailbot.compose.drafts import one_index
from mailbot.compose.gamemail import director_reading
from mailbot.compose.messages import mail
from mailbot.rules import events as ev
from mailbot.store.kinds import MailEvent
from mailbot.store.models import HeldOrder, Outbox
from mailbot.store.orderbook import tie_challenge

if TYPE_CHECKING:
    from mailbot.compose.notifier import Notifier


def orders_done(n: Notifier, e: ev.OrdersDone) -> None:
    directed = n.tournaments(e.tournaments)
    t = directed[0]
    assert n.origin is not None
    mail(
        n,
        template="notice",
        language=t.language,
        context={"kind": "orders", **director_reading(t), "lines": list(e.lines)},
        to=[n.origin.address],
        event=MailEvent.NOTICE,
        reply=True,
        index=one_index(directed),
    )


def _hold_notice(
    n: Notifier,
    e: ev.OrdersHeld | ev.OrdersCancelled,
    kind: str,
    lapses: datetime.datetime | None,
    extra: dict[str, str] | None,
    queued: Callable[[Outbox], None] | None = None,
    answered: Outbox | None = None,
) -> None:
    directed = n.tournaments(e.tournaments)
    t = directed[0]
    tz = ZoneInfo(t.timezone)
    done = e.carried_out if isinstance(e, ev.OrdersHeld) else None
    mail(
        n,
        template="notice",
        language=t.language,
        context={
            "kind": kind,
            **director_reading(t),
            "sender": e.sender,
            "received": f"{e.received.astimezone(tz):%d.%m.%Y %H:%M}",
            "orders": list(e.orders),
            "lapses": f"{lapses.astimezone(tz):%d.%m.%Y}" if lapses else "",
            # the orders may be a copy of some carried out before
            "done": f"{done.astimezone(tz):%d.%m.%Y}" if done else "",
            "same_text": isinstance(e, ev.OrdersHeld) and e.same_text,
            # the bot's message the orders answer, whose claim or game they act on
            "answered": answered.subject if answered is not None else "",
        },
        to=[t.director_email],
        event=MailEvent.NOTICE,
        index=one_index(directed),
        extra=extra,
        queued=queued,
    )


def orders_held(n: Notifier, e: ev.OrdersHeld) -> None:
    held = n.session.get(HeldOrder, e.held)

    def challenged(row: Outbox) -> None:
        # the director's reply to this challenge confirms or rejects the orders
        if held is not None:
            tie_challenge(n.session, held, row)

    extra = {"X-Mailbot-Held": str(e.held)}
    answered = held.answered if held is not None else None
    _hold_notice(n, e, "order-held", e.lapses, extra, challenged, answered)


def orders_cancelled(n: Notifier, e: ev.OrdersCancelled) -> None:
    _hold_notice(n, e, "order-cancelled", None, None)
