"""Draw offers: ``draw`` (alone or with a move), ``accept``, ``decline``; and the words
a player writes beside a word, which reach the opponent as those beside a move do."""

from __future__ import annotations

import dataclasses

import chess

from mailbot.desk.handlers.context import Context
from mailbot.mail.intent import Word, said
from mailbot.rules import events as ev
from mailbot.rules import game
from mailbot.rules.phrase import Phrase
from mailbot.store.endings import end_game
from mailbot.store.playing import clear_draw_offer, offer_draw
from mailbot.store.record import color_name, color_of


def words_beside(ctx: Context) -> str:
    """What the sender wrote beside the word (a greeting, thanks for the game), for the
    opponent, unless the tournament keeps it home (``forward_messages: false``;
    docs/contract.md, "Words beside the move")."""
    g = ctx.game
    if g is None or not g.tournament.forward_messages:
        return ""
    return said(ctx.letter.body)


def with_words(ctx: Context, ended: ev.GameEnded) -> ev.GameEnded:
    """The end of the game ``ctx``'s message caused, with the words written beside it."""
    return dataclasses.replace(ended, said=words_beside(ctx))


def offer(ctx: Context) -> None:
    """The sender offers a draw; the offer stands until the opponent's next move."""
    g, mover = ctx.game, ctx.mover
    assert g is not None and mover is not None
    offer_draw(g, color_name(color_of(g, mover)), len(g.moves))
    ctx.tell(ev.DrawOffered(g.id, mover.id, said=words_beside(ctx)))


def answer(ctx: Context) -> None:
    """``accept`` or ``decline`` the opponent's standing offer."""
    g, mover = ctx.game, ctx.mover
    assert g is not None and mover is not None
    color = color_of(g, mover)
    standing = (
        game.DrawOffer(
            chess.WHITE if g.draw_offer_by == "white" else chess.BLACK, g.draw_offer_ply or 0
        )
        if g.draw_offer_by
        else None
    )
    if standing is None or standing.by == color or not game.offer_stands(standing, len(g.moves)):
        ctx.refuse(Phrase("reason.no-draw-offer"), ctx.answer(ev.AnswerKind.NO_DRAW_OFFER))
        return
    if ctx.words.has(Word.ACCEPT):
        end = game.accept_draw(standing, color, len(g.moves))
        ctx.tell(with_words(ctx, end_game(g, end, ctx.now, answering=mover)))
        return
    clear_draw_offer(g)
    ctx.tell(ev.DrawDeclined(g.id, mover.id, said=words_beside(ctx)))
