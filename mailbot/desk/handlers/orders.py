"""The director's orders by mail, and orders from anyone else.

Orders are carried out at once when the director is known to have written
them: the receiving server vouched for the From (DMARC), or the message came
through a live order key, the single-use reply address of a message the bot
sent to the director alone (:mod:`mailbot.mail.orderkeys`), which it spends. A
Message-ID proves nothing: every copy and forward of the message carries it.
Anything else is held, with the bot's message it answers, and the director
confirms it (``confirm``) or cancels it (``reject``) by answering the question
the bot sends to the registered address, through that question's own key;
confirmed, it acts on the claim or game of the message it answered. Orders through a spent key (the
same message sent again, or a forgery that copied the address from a Cc),
and with DMARC the text of orders carried out before, are held too, and the
question says when they were carried out. Anyone else's orders are refused.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import re
from collections.abc import Sequence

from sqlalchemy import func, or_, select

from mailbot.compose.catalogue import say
from mailbot.desk import director
from mailbot.desk.handlers.context import Context
from mailbot.mail.addresses import without_tag
from mailbot.mail.orderkeys import key_in, own_address
from mailbot.rules import events as ev
from mailbot.rules.notation import read_moves
from mailbot.rules.phrase import Phrase
from mailbot.store.kinds import HeldStatus, InboundStatus
from mailbot.store.models import Claim, HeldOrder, InboundMessage, OrderKey, Outbox
from mailbot.store.orderbook import decide_held, hold_order, lapse_order_key, spend_order_key
from mailbot.store.received import give_reason

log = logging.getLogger("mailbot.desk.pipeline")

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
    key = _presented_key(ctx)
    if key is not None and _live(ctx, key):
        held = _held_by(ctx, key)
        if held and not _decides(lines):
            _answer_hold(ctx, held, lines)  # says neither: nothing changes, the key stays
            _keep_secret(ctx, key)
            return True
        if (held or lines) and _spend(ctx, key):
            if held:
                _answer_hold(ctx, held, lines)
            else:
                carry_out(ctx, (lines, _answered(ctx, key)))
            return True
    if not lines:
        if key is not None:
            _keep_secret(ctx, key)
        return False
    answered = _answered(ctx, key)
    if ctx.authenticated:
        before = _carried_out_before(ctx, lines)
        if before is None:
            carry_out(ctx, (lines, answered))
        else:
            hold(ctx, lines, answered, carried_out=before, same_text=True)
        return True
    if key is not None and key.spent_at is not None:
        spent = key.spent_at
        hold(ctx, lines, answered, carried_out=spent, same_text=_same_text(ctx, key))
    else:
        hold(ctx, lines, answered)
    return True


def _decides(lines: Sequence[str]) -> bool:
    """Whether an answer to the confirmation request confirms or rejects."""
    return any(director.order_verb(line) in _ANSWERS for line in lines)


def _answer_hold(ctx: Context, held: Sequence[HeldOrder], lines: Sequence[str]) -> None:
    """The director's answer to the confirmation request: ``confirm`` carries the held
    orders out (with any others in the answer), ``reject`` cancels them; an answer
    with neither (an out-of-office reply) changes nothing. Held orders are carried out
    as if they had come through the key of the message they answered: they take their
    claim or game from it."""
    verdicts = [director.order_verb(line) for line in lines]
    rest = [line for line, verb in zip(lines, verdicts, strict=True) if verb not in _ANSWERS]
    tournaments = tuple(t.id for t in ctx.directed)
    if "reject" in verdicts:
        for order in held:
            decide_held(order, HeldStatus.CANCELLED, ctx.now)
        orders = tuple(o for h in held for o in h.orders)
        give_reason(ctx.inbound, Phrase("reason.orders-cancelled"))
        received = ctx.inbound.internaldate
        ctx.tell(ev.OrdersCancelled(tournaments, orders, ctx.sender, received))
        return
    if "confirm" not in verdicts:
        give_reason(ctx.inbound, Phrase("reason.orders-unanswered"))
        return
    groups: list[Orders] = []
    for order in held:
        live = order.lapses_at >= ctx.now
        decide_held(order, HeldStatus.CONFIRMED if live else HeldStatus.LAPSED, ctx.now)
        if live:
            groups.append((order.orders, order.answered))
        else:  # confirmed too late: asked again
            hold(ctx, order.orders, order.answered)
    if rest:
        groups.append((rest, _answered(ctx, None)))
    if groups:
        carry_out(ctx, *groups)


#: Order lines, and the bot's message they answer (:func:`_answered`), if any.
Orders = tuple[Sequence[str], Outbox | None]


def carry_out(ctx: Context, *groups: Orders) -> None:
    """Carry out the orders; the director gets what became of each, in one answer. An
    order that names no claim or game takes its own from the message it answers."""
    done = [line for lines, answered in groups for line in _done(ctx, lines, answered)]
    log.info("director %s: %s", ctx.sender, "; ".join(say("en", line) for line in done))
    ctx.tell(ev.OrdersDone(tuple(t.id for t in ctx.directed), tuple(done)))


def _done(ctx: Context, order_lines: Sequence[str], answered: Outbox | None) -> list[Phrase]:
    """Carry out the orders that answer ``answered``; what became of each."""
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
    claim = _claim_of(ctx, answered)
    game = answered.headers.get("X-Mailbot-Game") if answered is not None else None
    for order in orders:
        if order.game is None and order.verb in director.GAME_FROM_THREAD and game:
            order = dataclasses.replace(order, game=game)
        try:
            lines.append(director.carry_out(ctx, ctx.directed, order, claim))
        except director.OrderError as exc:
            lines.append(Phrase("order.not-done", {"verb": order.verb, "error": exc.phrase}))
    return lines


def hold(
    ctx: Context,
    lines: Sequence[str],
    answered: Outbox | None = None,
    *,
    carried_out: datetime.datetime | None = None,
    same_text: bool = False,
) -> None:
    """Hold orders the bot cannot tell the director wrote; ask the director to confirm.

    ``answered``: the bot's message they answer, kept with them (:func:`_answered`).
    ``carried_out``: when the same orders (``same_text``), or orders through the
    same key, were carried out before; the question says so.
    """
    held = hold_order(
        ctx.session,
        ctx.sender,
        [_RE_UNSTORABLE.sub("", line)[:500] for line in lines[:50]],
        ctx.inbound.id,
        ctx.now,
        ctx.now + datetime.timedelta(days=HOLD_DAYS),
        answered,
    )
    give_reason(ctx.inbound, Phrase("reason.orders-held"))
    log.warning(
        "orders in the name of %s held for confirmation%s: %s",
        ctx.sender,
        f" (carried out before, on {carried_out:%Y-%m-%d})" if carried_out else "",
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
            carried_out,
            same_text,
        )
    )


# -- order keys ------------------------------------------------------------------


def _presented_key(ctx: Context) -> OrderKey | None:
    """The order key of the sender's that the message is addressed to (To or Cc), if any."""
    letter = ctx.letter
    key = key_in((*letter.to_addrs, *letter.cc_addrs), own_address(ctx.notifier.sender))
    if key is None:
        return None
    return ctx.session.scalars(
        select(OrderKey).where(OrderKey.key == key, OrderKey.director_email == ctx.sender)
    ).first()


def _live(ctx: Context, key: OrderKey) -> bool:
    """Whether ``key`` may still carry orders out: not spent, not lapsed."""
    return key.spent_at is None and ctx.now < key.lapses_at


def _spend(ctx: Context, key: OrderKey) -> bool:
    """Spend ``key`` for this message; False when another message spent it first."""
    return spend_order_key(ctx.session, key, ctx.inbound.id, ctx.now)


def _keep_secret(ctx: Context, key: OrderKey) -> None:
    """A live key the message also showed to others (a Cc, another To; the director's
    own address aside) lapses: it is no longer the director's secret."""
    if not _live(ctx, key):
        return
    own = {without_tag(a) for a in (own_address(ctx.notifier.sender), ctx.sender)}
    letter = ctx.letter
    if any(without_tag(a) not in own for a in (*letter.to_addrs, *letter.cc_addrs)):
        lapse_order_key(key, ctx.now)
        log.info("an order key of %s was shown to others: it lapses unspent", ctx.sender)


def _held_by(ctx: Context, key: OrderKey) -> list[HeldOrder]:
    """The held orders whose confirmation request carried ``key``."""
    if key.outbox_id is None:
        return []
    return list(
        ctx.session.scalars(
            select(HeldOrder).where(
                HeldOrder.outbox_id == key.outbox_id,
                HeldOrder.status == HeldStatus.HELD,
                HeldOrder.director_email == ctx.sender,
            )
        ).all()
    )


def _same_text(ctx: Context, key: OrderKey) -> bool:
    """Whether the message that spent ``key`` had this message's text."""
    if key.spent_by is None or ctx.inbound.text_sha256 is None:
        return False
    spender = select(InboundMessage.text_sha256).where(InboundMessage.id == key.spent_by)
    return ctx.session.scalar(spender) == ctx.inbound.text_sha256


def _carried_out_before(ctx: Context, lines: Sequence[str]) -> datetime.datetime | None:
    """When orders with this message's text, from its sender, were carried out, if ever.

    An answer alone (``confirm``, ``reject``) is not looked for: a claim is
    decided once, so the same answer again changes nothing anyway.
    """
    digest = ctx.inbound.text_sha256
    if digest is None or not any(director.order_verb(line) not in _ANSWERS for line in lines):
        return None
    done = func.coalesce(HeldOrder.decided_at, InboundMessage.handled_at, InboundMessage.created_at)
    earlier = (
        select(done)
        .select_from(InboundMessage)
        .outerjoin(HeldOrder, HeldOrder.inbound_id == InboundMessage.id)
        .where(
            InboundMessage.text_sha256 == digest,
            InboundMessage.from_addr == ctx.sender,
            InboundMessage.id != ctx.inbound.id,
            InboundMessage.status == InboundStatus.PROCESSED,
            # held and never confirmed: not carried out
            or_(HeldOrder.id.is_(None), HeldOrder.status == HeldStatus.CONFIRMED),
        )
        .order_by(InboundMessage.id.desc())
        .limit(1)
    )
    return ctx.session.scalars(earlier).first()


# -- the message answered ----------------------------------------------------------


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


def _answered(ctx: Context, key: OrderKey | None) -> Outbox | None:
    """The bot's message the director's message answers, which its orders take their
    claim or game from: of the message that carried the order key and those of the
    thread, newest first, the first about a claim (its packet), else the first about
    one game. This only says which; what authorises the orders is the key or DMARC
    (or the director's confirmation, when they were held)."""
    keyed = [key.outbox] if key is not None and key.outbox is not None else []
    rows = (*keyed, *_thread(ctx))
    claimed = (row for row in rows if row.headers.get("X-Mailbot-Claim"))
    about_game = (row for row in rows if row.headers.get("X-Mailbot-Game"))
    return next(claimed, None) or next(about_game, None)


def _claim_of(ctx: Context, answered: Outbox | None) -> Claim | None:
    """The claim whose packet ``answered`` is, if it is one."""
    claim_id = answered.headers.get("X-Mailbot-Claim") if answered is not None else None
    return ctx.session.get(Claim, int(claim_id)) if claim_id else None


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
    ctx.refuse(Phrase("reason.not-director"), answer)
    return True
