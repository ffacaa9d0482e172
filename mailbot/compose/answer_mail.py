"""The answer to a message: help, status, or why nothing was done; and the copy
to the director of what a stranger wrote.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import chess

from mailbot.compose.bounce_mail import bounced_in
from mailbot.compose.gamemail import director_of, game_summary, orientation
from mailbot.compose.messages import director_notice, game_mail, mail
from mailbot.mail.intent import help_words
from mailbot.rules import events as ev
from mailbot.store.kinds import MailEvent
from mailbot.store.models import Game, Player
from mailbot.store.outbox import bounced_moves
from mailbot.store.record import board_of, language_for

if TYPE_CHECKING:
    from mailbot.compose.notifier import Notifier


def answer(n: Notifier, e: ev.Answer) -> None:
    """An answer to the origin's sender: help, status, or why nothing was done."""
    origin = n.origin
    assert origin is not None, "an answer needs the message it answers"
    g = n.game(e.game) if e.game is not None else None
    player = n.player(e.player) if e.player is not None else None
    details = dict(e.details)
    language = str(
        details.pop("language", None)
        or (language_for(player) if player else (g.tournament.language if g else "en"))
    )
    index = details.pop("index", None)
    board: chess.Board | None = None
    if e.kind is ev.AnswerKind.HELP:
        template, event = "help", MailEvent.NOTICE
        context: dict[str, Any] = {"words": help_words(language), "game": None}
    elif e.kind is ev.AnswerKind.STATUS:
        template, event = "status", MailEvent.STATUS
        context = _status(n, details, player)
        if g is not None:
            board = board_of(g, stack=1)
    else:
        template, event = "notice", MailEvent.NOTICE
        context = _notice(n, e.kind, details, g, player)
    context.update(details)
    if g is not None and index is None:
        game_mail(
            n,
            g,
            template=template,
            language=language,
            context=context,
            to=[origin.address],
            event=event,
            reply=True,
            board=board,
            orientation=orientation(g, player),
        )
        return
    mail(
        n,
        template=template,
        language=language,
        context=context,
        to=[origin.address],
        event=event,
        index=index,
        reply=True,
        past_the_cap=e.kind is ev.AnswerKind.ANSWERS_PAUSED,
    )


def _games(n: Notifier, details: dict[str, Any]) -> list[tuple[Game, Player | None]]:
    """The games an answer lists (``details["games"]``, taken out), each with its reader."""
    return [(n.game(i), n.player(p) if p is not None else None) for i, p in details.pop("games")]


def _status(n: Notifier, details: dict[str, Any], player: Player | None) -> dict[str, Any]:
    """What the ``status`` mail shows: the reader's games, each with its moves that bounced."""
    games = _games(n, details)
    bounced = bounced_moves(n.session, [x.id for x, _ in games])
    return {
        "recipient": details.pop("recipient", player.name if player else ""),
        # the reader may write from another address than the one the games know; the
        # director's gender is the game mail's to give (the director asks of any game)
        **({"gender": player.gender} if player else {}),
        "games": [
            {**game_summary(x, p), "bounced": bounced_in(x, p, bounced.get(x.id, {}))}
            for x, p in games
        ],
    }


def _notice(
    n: Notifier,
    kind: ev.AnswerKind,
    details: dict[str, Any],
    g: Game | None,
    player: Player | None,
) -> dict[str, Any]:
    """What a ``notice`` answer says: why nothing was done, about the game or games."""
    context: dict[str, Any] = {"kind": kind.value}
    if player is not None:
        context["recipient"] = player.name
        context["gender"] = player.gender
    if g is not None:
        context["game"] = game_summary(g, player)
        context.update(director_of(g.tournament))
    if "games" in details:
        summaries = [game_summary(x, p) for x, p in _games(n, details)]
        context["games"] = [s for s in summaries if s["result"] is None] or summaries
    return context


def stranger_wrote(n: Notifier, e: ev.StrangerWrote) -> None:
    g = n.game(e.game)
    director_notice(n, g, "stranger-copy", {"sender": e.sender, "body": e.body})
