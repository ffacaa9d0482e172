"""``resign``: the game is lost for the sender."""

from __future__ import annotations

from mailbot.desk.handlers.context import Context
from mailbot.desk.handlers.draw import with_words
from mailbot.rules import game
from mailbot.store.endings import end_game
from mailbot.store.record import color_of


def resign(ctx: Context) -> None:
    g, mover = ctx.game, ctx.mover
    assert g is not None and mover is not None
    ended = end_game(g, game.resign(color_of(g, mover)), ctx.now, answering=mover)
    ctx.tell(with_words(ctx, ended))
