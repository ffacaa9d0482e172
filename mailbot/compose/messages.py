"""One message each, drafted for the notifier to queue: about a game (its subject,
headers and thread), or about no single game (``[INDEX] what``); and the forms the
families share: a notice to a game's director, the same message to both players,
a notice to one player, a reply in the game's thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import chess

from mailbot.compose.drafts import Draft, last_mail_to
from mailbot.compose.gamemail import (
    captains_of,
    director_of,
    director_reading,
    game_headers,
    game_subject,
    game_summary,
    orientation,
)
from mailbot.mail.attachments import Attachment
from mailbot.store.kinds import MailEvent
from mailbot.store.models import Game, Outbox, Player
from mailbot.store.record import color_of, language_for

if TYPE_CHECKING:
    from mailbot.compose.notifier import Notifier

__all__ = [
    "director_notice",
    "game_mail",
    "mail",
    "notice",
    "reply_in_game",
    "template_of",
    "to_players",
]

#: The messages with one template per kind.
_BY_KIND = frozenset({"notice", "leave", "adjudication"})


def template_of(name: str, context: dict[str, Any]) -> str:
    """The template of a message: ``notice``, ``leave`` and ``adjudication`` have one
    per kind, ``templates/<language>/notice/<kind>.txt``."""
    if name in _BY_KIND:
        return f"{name}/{context['kind']}"
    return name


def _with_genders(g: Game, reader: str, context: dict[str, Any]) -> dict[str, Any]:
    """``context`` with the gender of its reader (at the address ``reader``) and of
    the director: Bulgarian and Russian address a woman and a man, and speak of the
    director, in different words."""
    t = g.tournament
    if "gender" not in context:
        player = next((p for p in (g.white, g.black) if p.email == reader), None)
        gender = player.gender if player is not None else None
        context = {**context, "gender": t.director_gender if reader == t.director_email else gender}
    return {**director_of(t), **context}


def game_mail(
    n: Notifier,
    g: Game,
    *,
    template: str,
    language: str,
    context: dict[str, Any],
    to: Sequence[str],
    event: MailEvent,
    cc: Sequence[str] = (),
    board: chess.Board | None = None,
    orientation: chess.Color = chess.WHITE,
    extra: dict[str, str] | None = None,
    reply: bool = False,
    attachments: tuple[Attachment, ...] = (),
) -> None:
    """Render one message about ``g``, queued when the notifier's ``tell`` ends.

    A ``reply`` answers the origin message (its thread), any other message continues
    the recipient's thread of the game; ``attachments`` go after the text."""
    to = n.answerable(to)
    if not to:
        return
    context = _with_genders(g, to[0], context)
    rendered = n.renderer.render(
        template_of(template, context),
        language,
        context,
        board=board,
        orientation=orientation,
    )
    origin = n.origin
    replying = reply and origin is not None and origin.message_id is not None
    headers = game_headers(g, event, reply=replying)
    headers.update(extra or {})
    if replying and origin is not None and origin.message_id is not None:
        refs = [f"<{r}>" for r in origin.references if r != origin.message_id][-10:]
        headers["In-Reply-To"] = f"<{origin.message_id}>"
        headers["References"] = " ".join([*refs, f"<{origin.message_id}>"])
    else:
        thread = last_mail_to(n.session, g, to[0])
        if thread is not None:
            headers["In-Reply-To"] = f"<{thread}>"
            headers["References"] = f"<{thread}>"
    n.draft(
        Draft(
            to=list(to),
            cc=cc,
            subject=game_subject(g, rendered.what),
            rendered=rendered,
            language=language,
            event=event,
            headers=headers,
            game=g,
            attachments=attachments,
        )
    )


def mail(
    n: Notifier,
    *,
    template: str,
    language: str,
    context: dict[str, Any],
    to: Sequence[str],
    event: MailEvent,
    index: str | None = None,
    reply: bool = False,
    extra: dict[str, str] | None = None,
    queued: Callable[[Outbox], None] | None = None,
    attachments: tuple[Attachment, ...] = (),
    past_the_cap: bool = False,
) -> None:
    """Render one message about no single game (``[INDEX] what``); ``queued`` is
    called with its row once it is queued; ``attachments`` go after the text.
    ``past_the_cap``: the one message that goes to a sender past the day's reply cap,
    the notice that says so (:meth:`Notifier.answerable` keeps the others from them)."""
    to = list(to) if past_the_cap else n.answerable(to)
    if not to:
        return
    rendered = n.renderer.render(template_of(template, context), language, context)
    origin = n.origin
    replying = reply and origin is not None
    headers: dict[str, str] = {
        "Auto-Submitted": "auto-replied" if replying else "auto-generated",
        "X-Mailbot-Event": event,
    }
    headers.update(extra or {})
    if replying and origin is not None and origin.message_id:
        refs = [f"<{r}>" for r in origin.references if r != origin.message_id]
        headers["In-Reply-To"] = f"<{origin.message_id}>"
        headers["References"] = " ".join([*refs[-10:], f"<{origin.message_id}>"])
    draft = Draft(
        to=list(to),
        subject=f"[{index}] {rendered.what}" if index else rendered.what,
        rendered=rendered,
        language=language,
        event=event,
        headers=headers,
        queued=queued,
        attachments=attachments,
    )
    n.draft(draft)


def director_notice(
    n: Notifier,
    g: Game,
    kind: str,
    context: dict[str, Any],
    *,
    board: chess.Board | None = None,
    extra: dict[str, str] | None = None,
) -> None:
    """A ``notice`` about ``g`` to its director, in the tournament's language; the
    captains of the players' teams have a copy (art. 26)."""
    t = g.tournament
    game_mail(n,
        g,
        template="notice",
        language=t.language,
        context={"kind": kind, **director_reading(t), "game": game_summary(g),
                 **context},
        to=[t.director_email],
        cc=captains_of(g),
        event=MailEvent.NOTICE,
        board=board,
        extra=extra,
    )  # fmt: skip


def to_players(
    n: Notifier,
    g: Game,
    template: str,
    event: MailEvent,
    context: Callable[[Player], dict[str, Any]],
    players: Sequence[Player] | None = None,
) -> None:
    """The same message to each player (both, by default), in each one's language."""
    for player in players if players is not None else (g.white, g.black):
        game_mail(
            n,
            g,
            template=template,
            language=language_for(player),
            context={"recipient": player.name, **context(player)},
            to=[player.email],
            event=event,
            orientation=orientation(g, player),
        )


def notice(
    n: Notifier, g: Game, player: Player, kind: str, extra: dict[str, Any], *, reply: bool
) -> None:
    context: dict[str, Any] = {
        "kind": kind,
        "recipient": player.name,
        "game": game_summary(g, player),
    }
    context.update(extra)
    game_mail(
        n,
        g,
        template="notice",
        language=language_for(player),
        context=context,
        to=[player.email],
        event=MailEvent.NOTICE,
        reply=reply,
    )


def reply_in_game(
    n: Notifier, g: Game, player: Player, template: str, context: dict[str, Any], event: MailEvent
) -> None:
    game_mail(
        n,
        g,
        template=template,
        language=language_for(player),
        context={"recipient": player.name, **context},
        to=[player.email],
        event=event,
        orientation=color_of(g, player),
        reply=True,
    )
