"""``xfcc``: a new Xfcc password, by mail (docs/contract.md, "Players' chess programs").

The password is the sender's address's, over every game they play from it;
the previous one stops working. The store keeps only its hash
(:mod:`mailbot.store.xfccpasswords`); the answer carries it, with the URL
and the user name a chess program asks for. Where the daemon serves no
Xfcc, the answer says so and no password is made.
"""

from __future__ import annotations

from mailbot.compose.drafts import one_index
from mailbot.desk.handlers.context import Context
from mailbot.rules import events as ev
from mailbot.store.xfccpasswords import new_password, set_password


def xfcc_password(ctx: Context) -> None:
    """Make the sender a new Xfcc password and mail it (if Xfcc is served)."""
    players = ctx.players
    details: dict[str, object] = {"url": ctx.xfcc_url or "", "username": ctx.sender,
                                  "index": one_index([p.tournament for p in players])}  # fmt: skip
    if ctx.xfcc_url:
        password = new_password()
        set_password(ctx.session, ctx.sender, password, ctx.now, ctx.inbound_id)
        details["password"] = password
    ctx.tell(ev.Answer(ev.AnswerKind.XFCC, player=players[0].id, details=details))
