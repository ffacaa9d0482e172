"""``digest on|off``: one daily mail with all the player's games instead of a mail per move.

The setting is the player's, over every game of every tournament they play
from this address; the answer says how it stands. Turning it off sends what
the next digest would have said, so no move waits for a digest that no longer
comes.
"""

from __future__ import annotations

from mailbot.compose.drafts import one_index
from mailbot.desk.handlers.context import Context
from mailbot.rules import events as ev
from mailbot.store.playing import set_digest


def digest(ctx: Context) -> None:
    """Set (or, for a bare ``digest``, tell) the sender's digest."""
    players = ctx.players
    want = ctx.words.digest
    was = any(p.digest for p in players)
    if want is not None and want != was:
        if not want:
            # the moves since the last digest have not been mailed yet
            since = min((p.digest_sent_at for p in players if p.digest_sent_at), default=None)
            ctx.tell(ev.DigestDue(tuple(p.id for p in players), since))
        for p in players:
            set_digest(p, want, ctx.now)
    on = want if want is not None else was
    me = players[0]
    ctx.tell(
        ev.Answer(
            ev.AnswerKind.DIGEST,
            player=me.id,
            details={"on": on, "changed": want is not None and want != was,
                     "index": one_index([p.tournament for p in players])},
        )
    )  # fmt: skip
