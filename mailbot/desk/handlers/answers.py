"""Answers that change nothing: help, status, and why a message was not acted on.

The sender is a stranger, writes about a game they do not play or one that
cannot be found, forgot their secret, or wrote what nobody can read.
"""

from __future__ import annotations

import logging
import re
from zoneinfo import ZoneInfo

from mailbot.compose.drafts import one_index
from mailbot.desk.handlers.context import Context
from mailbot.mail.intent import Word
from mailbot.rules import events as ev
from mailbot.rules.phrase import Phrase
from mailbot.store.models import Game, Player
from mailbot.store.received import reject
from mailbot.store.record import language_for

log = logging.getLogger("mailbot.desk.pipeline")


def help_(ctx: Context) -> None:
    """``help``: the words, in the sender's language."""
    me = ctx.mover or (ctx.players[0] if ctx.players else None)
    language = language_for(me) if me is not None else _director_language(ctx)
    index = (
        ctx.game.tournament.index
        if ctx.game is not None
        else one_index([p.tournament for p in ctx.players] or list(ctx.directed))
    )
    ctx.tell(ev.Answer(ev.AnswerKind.HELP, details={"language": language, "index": index}))


def _director_language(ctx: Context) -> str:
    return ctx.directed[0].language if ctx.directed else "en"


def status(ctx: Context) -> None:
    """``status``: the sender's games (the game in hand first, with its board), whose move,
    the days used and left, both clocks."""
    if ctx.game is not None and ctx.mover is not None:
        others = [(g.id, p.id) for p in ctx.players for g in ctx.games_of(p) if g.id != ctx.game.id]
        ctx.tell(ctx.answer(ev.AnswerKind.STATUS, games=[(ctx.game.id, ctx.mover.id), *others]))
        return
    me = ctx.players[0]
    games = [(g.id, p.id) for p in ctx.players for g in ctx.games_of(p)]
    index = one_index([p.tournament for p in ctx.players])
    ctx.tell(
        ev.Answer(
            ev.AnswerKind.STATUS,
            player=me.id,
            details={"games": games, "index": index, "recipient": me.name},
        )
    )


def _id(player: Player | None) -> int | None:
    return player.id if player is not None else None


def unreadable(ctx: Context) -> None:
    """A player's or director's message whose text could not be read: they are told."""
    me = ctx.players[0] if ctx.players else None
    t = me.tournament if me is not None else ctx.directed[0]
    received = ctx.inbound.internaldate.astimezone(ZoneInfo(t.timezone))
    subject = ctx.letter.subject
    details = {
        "language": language_for(me) if me is not None else t.language,
        "recipient": me.name if me is not None else t.director_name,
        "received": f"{received:%d.%m.%Y %H:%M}",
        "subject": (subject if len(subject) <= 200 else subject[:199] + "…") or "–",
        "index": one_index([p.tournament for p in ctx.players] or list(ctx.directed)),
    }
    answer = ev.Answer(ev.AnswerKind.UNREADABLE, player=_id(me), details=details)
    ctx.refuse(Phrase("reason.unreadable"), *_if_answering(ctx, answer))


def _if_answering(ctx: Context, *answers: ev.Event) -> tuple[ev.Event, ...]:
    return answers if ctx.may_answer() else ()


def without_game(ctx: Context, tag: str | None) -> None:
    """A message the bot cannot place in a game: help, status, or which game?"""
    words = ctx.words
    if not ctx.players:
        if words.has(Word.HELP) or ctx.directed:
            if ctx.may_answer():
                help_(ctx)
            return
        unknown = ev.Answer(
            ev.AnswerKind.UNKNOWN_SENDER, details={"sender": ctx.sender, "language": "en"}
        )
        ctx.refuse(Phrase("reason.unknown-sender"), *_if_answering(ctx, unknown))
        return
    if not ctx.may_answer():
        return
    if words.has(Word.HELP):
        help_(ctx)
        return
    if words.has(Word.STATUS):
        status(ctx)
        return
    me = ctx.players[0]
    games = [(g.id, p.id) for p in ctx.players for g in ctx.games_of(p)]
    answer = ev.Answer(
        ev.AnswerKind.UNKNOWN_GAME if tag else ev.AnswerKind.WHICH_GAME,
        player=me.id,
        details={
            "tag": tag,
            "games": games,
            "index": one_index([p.tournament for p in ctx.players]),
        },
    )
    ctx.refuse(Phrase("reason.unknown-game" if tag else "reason.no-game"), answer)


def stranger(ctx: Context, g: Game) -> None:
    """A message about a game from someone who does not play in it."""
    t = g.tournament
    if ctx.sender == t.director_email:
        # the director may ask for the status of any game
        if ctx.may_answer():
            ctx.tell(ev.Answer(ev.AnswerKind.STATUS, game=g.id,
                               details={"games": [(g.id, None)], "recipient": t.director_name,
                                        "language": t.language}))  # fmt: skip
        else:
            ctx.refuse(Phrase("reason.not-a-player"))
        return
    reject(ctx.inbound, Phrase("reason.not-a-player"))
    if not ctx.may_answer():
        return  # a sender over the cap floods neither itself nor the director
    me = ctx.players[0] if ctx.players else None
    kind = ev.AnswerKind.NOT_A_PLAYER if me is not None else ev.AnswerKind.UNKNOWN_SENDER
    ctx.tell(
        ev.Answer(
            kind,
            game=g.id,
            player=_id(me),
            details={
                "sender": ctx.sender,
                "recipient": me.name if me is not None else ctx.sender,
                "language": language_for(me) if me is not None else t.language,
                "index": t.index,
            },
        ),
        ev.StrangerWrote(g.id, ctx.sender, ctx.letter.body.strip()[:4000]),
    )


def secret_missing(ctx: Context, player: Player) -> bool:
    """A player with a secret must show it (body or ``bot+SECRET@``); else refused."""
    secret = player.secret
    if not secret:
        return False
    # addresses are compared without case, as mail systems do
    tags = {a.partition("@")[0].partition("+")[2].casefold() for a in ctx.letter.to_addrs}
    if secret.casefold() in tags or re.search(
        rf"(?<![\w-]){re.escape(secret)}(?![\w-])", ctx.letter.body
    ):
        return False
    log.warning("refused a message from %s: the player's secret is missing", player.email)
    answer = ev.Answer(ev.AnswerKind.SECRET_MISSING, player=player.id)
    ctx.refuse(Phrase("reason.secret-missing"), answer)
    return True
