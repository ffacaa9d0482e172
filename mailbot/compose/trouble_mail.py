"""What the bot says of its own trouble (event ``error``): a message quarantined,
a message given up, each told to the directors once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mailbot.compose.drafts import Draft
from mailbot.compose.gamemail import director_reading
from mailbot.compose.messages import template_of
from mailbot.rules import events as ev
from mailbot.store.kinds import MailEvent
from mailbot.store.models import Game, InboundMessage, Outbox, Tournament
from mailbot.store.outbox import UNDELIVERABLE

if TYPE_CHECKING:
    from mailbot.compose.notifier import Notifier


def _error_notice(
    n: Notifier,
    t: Tournament,
    context: dict[str, Any],
    *,
    extra: dict[str, str] | None = None,
    game_id: int | None = None,
) -> None:
    """A ``notice`` about the bot's own trouble (event ``error``) to ``t``'s director,
    who is greeted by name."""
    context = {**director_reading(t), **context}
    rendered = n.renderer.render(template_of("notice", context), t.language, context)
    n.draft(
        Draft(
            to=[t.director_email],
            subject=f"[{t.index}] {rendered.what}",
            rendered=rendered,
            language=t.language,
            event=MailEvent.ERROR,
            headers={
                "Auto-Submitted": "auto-generated",
                "X-Mailbot-Event": "error",
                **(extra or {}),
            },
            game=n.session.get(Game, game_id) if game_id is not None else None,
        )
    )


def quarantined(n: Notifier, e: ev.Quarantined) -> None:
    row = n.session.get(InboundMessage, e.inbound)
    assert row is not None
    told: set[str] = set()
    for t in n.tournaments(e.tournaments):
        if t.director_email in told:
            continue
        told.add(t.director_email)
        context = {
            "kind": "quarantine",
            "sender": row.from_addr or "?",
            "subject": row.subject or "",
            "received": row.internaldate.isoformat(timespec="minutes"),
            "attempts": row.attempts,
            "folder": "Quarantine",
            "error": row.last_error or "",
        }
        _error_notice(n, t, context)


def undeliverable(n: Notifier, e: ev.Undeliverable) -> None:
    row = n.session.get(Outbox, e.outbox)
    assert row is not None
    told: set[str] = set()
    for t in n.tournaments(e.tournaments):
        address = t.director_email
        if address in told or address in row.to_addrs or address in row.cc_addrs:
            continue
        told.add(address)
        context = {
            "kind": "undeliverable",
            "subject": row.subject,
            "recipients": ", ".join([*row.to_addrs, *row.cc_addrs]),
            "attempts": row.attempts,
            "error": row.last_error or "",
        }
        _error_notice(n, t, context, extra={UNDELIVERABLE: str(row.id)}, game_id=row.game_id)
