"""``warnings on|off`` and ``pgn on|off``: the warnings before a deadline
(docs/contract.md, "Warnings before deadlines") and the game's PGN with each move
mail ("Players' chess programs").

Each setting is the player's, over every game of every tournament they play
from this address, like ``digest``; the answer says how it stands.
"""

from __future__ import annotations

from collections.abc import Callable

from mailbot.compose.drafts import one_index
from mailbot.desk.handlers.context import Context
from mailbot.rules import events as ev
from mailbot.store.models import Player
from mailbot.store.playing import set_pgn, set_warnings


def warnings_word(ctx: Context) -> None:
    """Set (or, for a bare ``warnings``, tell) whether the sender is warned."""
    _switch(ctx, ctx.words.warnings, lambda p: p.warnings, set_warnings, ev.AnswerKind.WARNINGS)


def pgn_word(ctx: Context) -> None:
    """Set (or, for a bare ``pgn``, tell) whether the sender's move mails carry the PGN."""
    _switch(ctx, ctx.words.pgn, lambda p: p.pgn, set_pgn, ev.AnswerKind.PGN)


def _switch(
    ctx: Context,
    want: bool | None,
    now_on: Callable[[Player], bool],
    turn: Callable[[Player, bool], None],
    kind: ev.AnswerKind,
) -> None:
    """Turn a setting of the sender's on or off (``want``; None only asks), and answer."""
    players = ctx.players
    was = any(now_on(p) for p in players)
    if want is not None:
        for p in players:
            turn(p, want)
    on = want if want is not None else was
    ctx.tell(
        ev.Answer(
            kind,
            player=players[0].id,
            details={"on": on, "changed": want is not None and want != was,
                     "index": one_index([p.tournament for p in players])},
        )
    )  # fmt: skip
