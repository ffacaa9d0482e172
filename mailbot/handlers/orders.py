"""The director's orders by mail, and orders from anyone else.

Orders are carried out when the director is known to have written them: the
receiving server vouched for the From (DMARC), or the message answers mail
the bot sent to the director alone (its Message-IDs are unguessable).
Otherwise they are held, and the director confirms them (``confirm``) or
cancels them (``reject``) by answering the question the bot sends to the
registered address. Anyone else's orders are refused.
"""

from __future__ import annotations

import datetime
import logging
import re
from collections.abc import Sequence

from sqlalchemy import select

from mailbot import director
from mailbot import events as ev
from mailbot.handlers.context import Context
from mailbot.notation import read_moves
from mailbot.phrase import Phrase
from mailbot.store import Claim, HeldOrder, Outbox

log = logging.getLogger("mailbot.desk")

#: How long orders held for the director's confirmation stay open.
HOLD_DAYS = 7
#: The words that answer the director's confirmation request.
_ANSWERS = frozenset({"confirm", "reject"})
_RE_UNSTORABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


def orders(ctx: Context) -> bool:
    """Carry out (or hold) the orders in a director's message; False if it holds none."""
    lines = [
        line.strip()
        for line in ctx.letter.body.splitlines()
        if director.order_verb(line.strip()) is not None
    ]
    held = _held_in_thread(ctx)
    if held:
        _answer_hold(ctx, held, lines)
        return True
    if not lines:
        return False
    if not (ctx.authenticated or _answers_own_mail(ctx)):
        hold(ctx, lines)
        return True
    carry_out(ctx, lines)
    return True


def _answer_hold(ctx: Context, held: Sequence[HeldOrder], lines: Sequence[str]) -> None:
    """The director's answer to the confirmation request: ``confirm`` carries the held
    orders out (with any others in the answer), ``reject`` cancels them; an answer
    with neither (an out-of-office reply) changes nothing."""
    verdicts = [director.order_verb(line) for line in lines]
    rest = [line for line, verb in zip(lines, verdicts, strict=True) if verb not in _ANSWERS]
    tournaments = tuple(t.id for t in ctx.directed)
    if "reject" in verdicts:
        for order in held:
            order.status, order.decided_at = "cancelled", ctx.now
        orders = tuple(o for h in held for o in h.orders)
        ctx.inbound.reason = "held orders cancelled by the director"
        received = ctx.inbound.internaldate
        ctx.tell(ev.OrdersCancelled(tournaments, orders, ctx.sender, received))
        return
    if "confirm" not in verdicts:
        ctx.inbound.reason = "an answer to the confirmation request with neither confirm nor reject"
        return
    confirmed: list[str] = []
    lapsed: list[str] = []
    for order in held:
        live = order.lapses_at >= ctx.now
        order.status, order.decided_at = ("confirmed" if live else "lapsed"), ctx.now
        (confirmed if live else lapsed).extend(order.orders)
    if lapsed:  # confirmed too late: asked again
        hold(ctx, lapsed)
    if confirmed or rest:
        carry_out(ctx, [*confirmed, *rest])


def carry_out(ctx: Context, order_lines: Sequence[str]) -> None:
    """Carry out the orders; the director gets what became of each."""
    lines: list[Phrase] = []
    orders: list[director.Order] = []
    for line in order_lines:
        try:
            order = director.read_order(line)
        except director.OrderError as exc:
            lines.append(Phrase("order.unreadable", {"line": line, "error": exc.phrase}))
            continue
        if order is not None:
            orders.append(order)
    claim = _claim_in_thread(ctx)
    for order in orders:
        try:
            lines.append(director.carry_out(ctx, ctx.directed, order, claim))
        except director.OrderError as exc:
            lines.append(Phrase("order.not-done", {"verb": order.verb, "error": exc.phrase}))
    log.info("director %s: %s", ctx.sender, "; ".join(str(line) for line in lines))
    ctx.tell(ev.OrdersDone(tuple(t.id for t in ctx.directed), tuple(lines)))


def hold(ctx: Context, lines: Sequence[str]) -> None:
    """Hold orders the bot cannot tell the director wrote; ask the director to confirm."""
    held = HeldOrder(
        director_email=ctx.sender,
        orders=[_RE_UNSTORABLE.sub("", line)[:500] for line in lines[:50]],
        inbound_id=ctx.inbound.id,
        status="held",
        created_at=ctx.now,
        lapses_at=ctx.now + datetime.timedelta(days=HOLD_DAYS),
    )
    ctx.session.add(held)
    ctx.session.flush()
    ctx.inbound.reason = "orders held until the director confirms them"
    log.warning(
        "orders in the name of %s held for confirmation: %s",
        ctx.sender,
        "; ".join(line[:60] for line in lines),
    )
    ctx.tell(
        ev.OrdersHeld(
            tuple(t.id for t in ctx.directed),
            held.id,
            tuple(held.orders),
            ctx.sender,
            ctx.inbound.internaldate,
            held.lapses_at,
        )
    )


def _thread(ctx: Context) -> list[Outbox]:
    """The bot's own messages this one answers (by In-Reply-To and References)."""
    thread = [*ctx.letter.in_reply_to, *ctx.letter.references]
    if not thread:
        return []
    return list(
        ctx.session.scalars(
            select(Outbox).where(Outbox.message_id.in_(thread)).order_by(Outbox.id.desc())
        ).all()
    )


def _to_sender_alone(ctx: Context) -> list[Outbox]:
    return [row for row in _thread(ctx) if row.to_addrs == [ctx.sender] and not row.cc_addrs]


def _answers_own_mail(ctx: Context) -> bool:
    """Whether the message answers mail the bot sent to the sender and nobody else."""
    return bool(_to_sender_alone(ctx))


def _held_in_thread(ctx: Context) -> list[HeldOrder]:
    """The held orders whose challenge this message answers (only the director has it)."""
    ids = [row.id for row in _to_sender_alone(ctx)]
    if not ids:
        return []
    return list(
        ctx.session.scalars(
            select(HeldOrder).where(
                HeldOrder.outbox_id.in_(ids),
                HeldOrder.status == "held",
                HeldOrder.director_email == ctx.sender,
            )
        ).all()
    )


def _claim_in_thread(ctx: Context) -> Claim | None:
    """The claim whose packet the director's message answers."""
    for row in _thread(ctx):
        claim_id = row.headers.get("X-Mailbot-Claim")
        if claim_id:
            return ctx.session.get(Claim, int(claim_id))
    return None


def refuse_others(ctx: Context) -> bool:
    """An order only the director may give, from someone else: refused and logged.

    True when the message holds nothing else to act on.
    """
    body = ctx.letter.body.splitlines()
    verbs = [
        v
        for line in body
        if (v := director.order_verb(line)) is not None and v in director.DIRECTOR_ONLY
    ]
    if not verbs:
        return False
    log.warning(
        "refused %s from %s: only the tournament director may give it", ", ".join(verbs), ctx.sender
    )
    others = "\n".join(line for line in body if director.order_verb(line) is None)
    if ctx.players and read_moves(others):
        return False  # the message carries a move too: that is handled as usual
    me = ctx.players[0] if ctx.players else None
    answer = ev.Answer(
        ev.AnswerKind.NOT_DIRECTOR,
        player=me.id if me is not None else None,
        details={"verbs": verbs, "recipient": me.name if me is not None else ctx.sender},
    )
    ctx.refuse("an order only the director may give", answer)
    return True
