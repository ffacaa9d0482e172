"""The desk's *trust* stage: which mail is let in to be routed, and which is ignored.

Machine mail is ignored (a delivery report that names a row the bot sent is
acted on first: :func:`delivery_report`); so is a From that names no one, or
someone else too, and, under the policy, mail the receiving server does not
vouch for (DMARC). Ignored mail is answered never.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from mailbot.compose.catalogue import say
from mailbot.desk.handlers.context import Context
from mailbot.desk.notes import short, storable
from mailbot.mail import bounces, trust
from mailbot.mail.letters import AutoKind
from mailbot.rules import events as ev
from mailbot.rules.phrase import Phrase
from mailbot.store.kinds import OutboxStatus
from mailbot.store.models import BOUNCES_MARKED, Outbox, Player
from mailbot.store.outbox import Unproven, bounce_of, count_bounce, mark_bounced, note_delay
from mailbot.store.received import give_reason, ignore, link_game

log = logging.getLogger("mailbot.desk.pipeline")

#: The machine mail that may be a delivery report (never an auto-reply, a list's mail or
#: the bot's own): only these are read for the failures they report.
REPORT_KINDS = frozenset(
    {AutoKind.DELIVERY_REPORT, AutoKind.MAILER_DAEMON, AutoKind.AUTO_SUBMITTED,
     AutoKind.EMPTY_RETURN_PATH}
)  # fmt: skip

#: Why a delivery report changed nothing, as the dispute file and the logs say it.
UNPROVEN = {
    Unproven.NO_FAILURE: "reason.report-no-failure",
    Unproven.NO_TAG: "reason.report-no-tag",
    Unproven.QUOTED: "reason.report-quoted",
    Unproven.NO_ROW: "reason.report-no-row",
    Unproven.WRONG_CHECK: "reason.report-wrong-check",
    Unproven.UNSENT: "reason.report-unsent",
    Unproven.OTHER_RECIPIENT: "reason.report-other-recipient",
}


def trusted(ctx: Context, authserv_id: str | None, require_dmarc: bool) -> bool:
    """Machine mail, a From that names no one (or someone else too), a DMARC failure:
    ignored, and answered never."""
    letter, inbound = ctx.letter, ctx.inbound
    if letter.auto is not None:
        if letter.auto in REPORT_KINDS and delivery_report(ctx):
            return False
        ignore(inbound, Phrase("reason.automatic", {"kind": _kind(letter.auto.value)}))
        return False
    found = trust.sender_problem(letter.senders, letter.from_fields)
    if found is None and not letter.from_addr:
        found = trust.SenderProblem.NO_ADDRESS
    problem = Phrase(f"reason.{found.code}") if found is not None else None
    if problem is None:
        problem = authentication_refusal(ctx, authserv_id, require_dmarc)
    if problem is not None:
        ignore(inbound, problem)
        log.warning(
            "ignored %s from %s: %s",
            short(letter.message_id),
            short(letter.from_addr),
            say("en", problem),
        )
        return False
    return True


def _kind(value: str) -> Phrase:
    """The kind of machine mail (``autoreply``), as each language names it."""
    return Phrase(f"auto-kind.{value}")


def delivery_report(ctx: Context) -> bool:
    """Act on a delivery report that names a row the bot sent; False for machine
    mail that reports no failure (ignored as automatic mail).

    A permanent failure marks the row ``bounced`` and tells who must know
    (:class:`~mailbot.rules.events.Bounced`); a temporary one is noted on the row and
    told to nobody; a report that does not prove which row it is about
    (:func:`~mailbot.store.outbox.bounce_of`), or about a row that bounced already,
    changes nothing: it is kept, with the reason, beside the game of the message
    it claims to be about.
    """
    inbound = ctx.inbound
    report = bounces.read_report(inbound.raw)
    if not report.failures:
        return False
    found = bounce_of(ctx.session, report)
    row = found.row
    kind = _kind(ctx.letter.auto.value if ctx.letter.auto else "report")
    if row is None:
        claimed = found.claimed
        details = {"kind": kind, **({"outbox": claimed.id} if claimed is not None else {})}
        why = Phrase(UNPROVEN[found.unproven or Unproven.NO_TAG], details)
        # kept as evidence beside the message it claims to be about
        link_game(inbound, claimed.game_id if claimed is not None else None)
        ignore(inbound, why)
        log.warning("ignored the delivery report %s: %s", short(inbound.message_id), say("en", why))
        return True
    permanent = [f for f in found.failures if f.permanent]
    said = "; ".join(f"{f.address}: {f.reason or '?'}" for f in permanent or found.failures)
    link_game(inbound, row.game_id)
    if row.status == OutboxStatus.BOUNCED:
        ignore(inbound, Phrase("reason.report-again", {"kind": kind, "outbox": row.id}))
        return True
    if not permanent:
        note_delay(row, storable(f"delayed: {said}"))
        give_reason(inbound, Phrase("reason.report-delayed", {"outbox": row.id, "said": said}))
        return True
    mark_bounced(row, ctx.now, storable(said))
    marked = count_bounces(ctx.session, row, [f.address for f in permanent], ctx.now)
    reasons = dict.fromkeys(f.reason for f in permanent if f.reason)
    ctx.tell(
        ev.Bounced(row.id, ", ".join(f.address for f in permanent), "; ".join(reasons), marked)
    )
    give_reason(inbound, Phrase("reason.report-bounced", {"outbox": row.id, "said": said}))
    log.warning("outbox %s bounced: %s", row.id, short(said, 300))
    return True


def count_bounces(
    session: Session, row: Outbox, addresses: Sequence[str], now: datetime.datetime
) -> tuple[int, ...]:
    """Count a bounce on each player at ``addresses`` (of the row's tournament, if it is
    about a game); the players whose address has now bounced
    :data:`~mailbot.store.models.BOUNCES_MARKED` times or more."""
    query = select(Player).where(Player.email.in_(addresses))
    if row.game is not None:
        query = query.where(Player.tournament_id == row.game.tournament_id)
    marked = []
    for player in session.scalars(query.order_by(Player.id)).all():
        if count_bounce(player, now) >= BOUNCES_MARKED:
            marked.append(player.id)
    return tuple(marked)


def authentication_refusal(
    ctx: Context, authserv_id: str | None, require_dmarc: bool
) -> Phrase | None:
    """Why the sender cannot be trusted under the policy (the receiving server
    ``authserv_id`` and whether a DMARC pass is required), or None.

    Sets ``ctx.authenticated`` when the receiving server vouches for the From.
    """
    if not authserv_id:
        return None
    letter = ctx.letter
    domain = letter.from_addr.rpartition("@")[2]
    verdict = trust.dmarc_verdict(letter.authentication_results, authserv_id, domain)
    ctx.authenticated = verdict is trust.Dmarc.PASS
    if verdict is trust.Dmarc.FAIL:
        return Phrase("reason.dmarc-failed")
    if require_dmarc and verdict is not trust.Dmarc.PASS:
        return Phrase("reason.no-dmarc-pass")
    return None
