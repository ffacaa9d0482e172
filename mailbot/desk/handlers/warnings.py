"""``warnings on|off``: the warnings before a deadline (docs/contract.md, "Warnings
before deadlines").

The setting is the player's, over every game of every tournament they play
from this address, like ``digest``; the answer says how it stands.
"""

from __future__ import annotations

from mailbot.compose.notifier import one_index
from mailbot.desk.handlers.context import Context
from mailbot.rules import events as ev
from mailbot.store.playing import set_warnings


def warnings_word(ctx: Context) -> None:
    """Set (or, for a bare ``warnings``, tell) whether the sender is warned."""
    players = ctx.players
    want = ctx.words.warnings
    was = any(p.warnings for p in players)
    if want is not None:
        for p in players:
            set_warnings(p, want)
    on = want if want is not None else was
    ctx.tell(
        ev.Answer(
            ev.AnswerKind.WARNINGS,
            player=players[0].id,
            details={"on": on, "changed": want is not None and want != was,
                     "index": one_index([p.tournament for p in players])},
        )
    )  # fmt: skip
