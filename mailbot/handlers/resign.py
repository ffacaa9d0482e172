"""``resign``: the game is lost for the sender."""

from __future__ import annotations

from mailbot.gamemail import end_game
from mailbot.handlers.context import Context
from mailbot.record import color_of
from mailbot.rules import game


def resign(ctx: Context) -> None:
    g, mover = ctx.game, ctx.mover
    assert g is not None and mover is not None
    ctx.tell(end_game(g, game.resign(color_of(g, mover)), ctx.now, answering=mover))
