"""A player's requests to the arbiter: leave, a delay notice, claims.

Each function works in the caller's transaction and queues its answers with
a :class:`~mailbot.gamemail.Mailer`.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from zoneinfo import ZoneInfo

import chess
from sqlalchemy import select
from sqlalchemy.orm import Session

from mailbot import game, leave
from mailbot.gamemail import (
    Mailer,
    finish_game,
    game_summary,
    settle_adjudication_claims,
    withdrawal_adjudication,
)
from mailbot.record import board_of, color_of, language_for, profile_of
from mailbot.store import Claim, DelayNotice, Game, Leave, LeaveExtra, Player


@dataclasses.dataclass
class Request:
    """Who asks, when, and how to answer."""

    session: Session
    mailer: Mailer
    player: Player
    now: datetime.datetime
    received: datetime.datetime
    message_id: str | None
    references: tuple[str, ...] = ()
    inbound_id: int | None = None


def _reply(req: Request, g: Game, template: str, context: dict[str, object], event: str) -> None:
    req.mailer.game_mail(
        g,
        template=template,
        language=language_for(req.player),
        context={"recipient": req.player.name, **context},
        to=[req.player.email],
        event=event,
        now=req.now,
        orientation=color_of(g, req.player),
        reply_to=req.message_id,
        references=req.references,
        inbound_id=req.inbound_id,
    )


def request_leave(
    req: Request, start: datetime.date, end: datetime.date, games: list[Game]
) -> bool:
    """Art. 42-46: record leave within the yearly allowance and tell everyone concerned.

    ``games`` are the player's games (the answer is threaded in the first).
    Returns whether the leave was granted.
    """
    player = req.player
    t = player.tournament
    p = profile_of(t)
    tz = ZoneInfo(t.timezone)
    today = req.received.astimezone(tz).date()
    taken = [leave.Leave(lv.start, lv.end) for lv in player.leaves]
    extras: dict[int, int] = {}
    for extra in req.session.scalars(select(LeaveExtra).where(LeaveExtra.player_id == player.id)):
        extras[extra.year] = extras.get(extra.year, 0) + extra.days
    anchor = games[0]
    try:
        requested = leave.Leave(start, end)
    except leave.InvalidLeaveError as exc:
        _reply(req, anchor, "leave", _refusal(start, end, str(exc), None), "leave")
        return False
    decision = leave.check_request(p, taken, requested, extras, today=today)
    year = start.year
    if not decision.granted:
        reason = _refusal_reason(decision)
        context = _refusal(start, end, reason, decision.remaining(year))
        _reply(req, anchor, "leave", context, "leave")
        return False
    player.leaves.append(
        Leave(start=start, end=end, created_at=req.now, inbound_id=req.inbound_id,
              granted_by="player")
    )  # fmt: skip
    _reply(
        req,
        anchor,
        "leave",
        {"kind": "granted", "start": start, "end": end, "days": requested.days,
         "year": year, "remaining": decision.remaining(year)},
        "leave",
    )  # fmt: skip
    told: set[str] = set()
    for g in games:
        if g.result is not None:
            continue
        opponent = g.black if player.id == g.white_id else g.white
        for address, name, language in (
            (opponent.email, opponent.name, language_for(opponent)),
            (t.director_email, t.director_name, t.language),
        ):
            if address in told:
                continue
            told.add(address)
            req.mailer.game_mail(
                g,
                template="leave",
                language=language,
                context={"kind": "opponent", "recipient": name, "player": player.name,
                         "start": start, "end": end},
                to=[address],
                event="leave",
                now=req.now,
                inbound_id=req.inbound_id,
            )  # fmt: skip
    return True


def refuse_leave(
    req: Request, g: Game, start: datetime.date, end: datetime.date, reason: str
) -> None:
    """Answer a leave request that cannot be read or granted."""
    _reply(req, g, "leave", _refusal(start, end, reason, None), "leave")


def _refusal(
    start: datetime.date, end: datetime.date, reason: str, remaining: int | None
) -> dict[str, object]:
    return {"kind": "refused", "start": start, "end": end, "reason": reason,
            "remaining": remaining, "year": start.year}  # fmt: skip


def _refusal_reason(decision: leave.LeaveDecision) -> str:
    refusal = decision.refusal
    if refusal is leave.LeaveRefusal.EXCEEDS_ALLOWANCE:
        short = [b for b in decision.balances if b.short_by > 0]
        parts = [
            f"{b.requested} days asked for {b.year}, {b.left_before} left of {b.allowance}"
            for b in short
        ]
        return "over the yearly allowance (" + "; ".join(parts) + ")"
    if refusal is leave.LeaveRefusal.OVERLAPS:
        c = decision.conflict
        return f"it overlaps your leave {c.start} – {c.end}" if c else "it overlaps another leave"
    if refusal is leave.LeaveRefusal.RETROACTIVE:
        return "leave must be announced before it starts (art. 44); the director may grant it"
    return "not allowed"


def delay_notice(req: Request, g: Game) -> None:
    """Art. 25: the player will answer later than the notice limit; protects from art. 31."""
    color = color_of(g, req.player)
    ply = len(g.moves)
    g.delays.append(
        DelayNotice(color="white" if color else "black", ply_at=ply, received_at=req.received,
                    inbound_id=req.inbound_id)
    )  # fmt: skip
    opponent = g.black if color == chess.WHITE else g.white
    text = f"{req.player.name} will answer later than the notice limit (art. 25)"
    for recipient in (req.player, opponent):
        req.mailer.game_mail(
            g,
            template="notice",
            language=language_for(recipient),
            context={"kind": "delay", "recipient": recipient.name, "player": req.player.name,
                     "yours": recipient is req.player, "text": text,
                     "game": game_summary(g, recipient)},
            to=[recipient.email],
            event="notice",
            now=req.now,
            reply_to=req.message_id if recipient is req.player else None,
            references=req.references,
            inbound_id=req.inbound_id,
        )  # fmt: skip


_RESULT = re.compile(r"(1-0|0-1|1/2-1/2|½-½)")


def claim(req: Request, g: Game, rest: str, body: str) -> None:
    """A draw claim (threefold, 50 moves, tablebase), or after the end an adjudication claim."""
    t = g.tournament
    tz = ZoneInfo(t.timezone)
    today = req.received.astimezone(tz).date()
    color = color_of(g, req.player)
    found = _RESULT.search(rest)
    if found and (today > (t.extended_to or t.end) or withdrawal_adjudication(g) is not None):
        result = found.group(1).replace("½-½", "1/2-1/2")
        adjudication_claim(req, g, result, body)
        return
    board = board_of(g)
    p = profile_of(t)
    decision = game.claim_draw(board, color, tablebase_rule=p.tablebase_rule)
    if decision.status is game.ClaimStatus.GRANTED and decision.end is not None:
        finish_game(req.mailer, g, decision.end, req.now, reply_to=req.player,
                    reply_id=req.message_id, inbound_id=req.inbound_id)  # fmt: skip
        return
    if decision.status is game.ClaimStatus.NEEDS_TD:
        g.claims.append(
            Claim(kind="draw", by_color="white" if color else "black", against=None,
                  opened_at=req.now, status="open",
                  details={"fen": decision.fen, "reason": decision.reason},
                  inbound_id=req.inbound_id)
        )  # fmt: skip
        req.session.flush()
        req.mailer.game_mail(
            g,
            template="notice",
            language=t.language,
            context={"kind": "draw-claim", "recipient": t.director_name,
                     "player": req.player.name, "text": decision.reason,
                     "fen": decision.fen, "game": game_summary(g)},
            to=[t.director_email],
            event="notice",
            now=req.now,
            board=board,
            extra={"X-Mailbot-Claim": str(g.claims[-1].id)},
            inbound_id=req.inbound_id,
        )  # fmt: skip
    _reply(
        req,
        g,
        "notice",
        {"kind": "claim-answer", "status": decision.status.value, "text": decision.reason,
         "game": game_summary(g, req.player)},
        "notice",
    )  # fmt: skip


def claims_due(g: Game) -> datetime.date:
    """The last day for the adjudication claims of ``g`` (art. 52; note 1 for withdrawals)."""
    t = g.tournament
    p = profile_of(t)
    withdrawal = withdrawal_adjudication(g)
    if withdrawal is not None:
        opened = withdrawal.opened_at.astimezone(ZoneInfo(t.timezone)).date()
        return game.adjudication_claims_due(opened, p)
    return game.adjudication_claims_due(t.extended_to or t.end, p)


def adjudication_claim(req: Request, g: Game, result: str, analysis: str) -> None:
    """Art. 52: a player's claim with analysis; equal claims settle the game at once."""
    color = "white" if color_of(g, req.player) == chess.WHITE else "black"
    record = next((c for c in g.claims if c.kind == "adjudication" and c.status == "open"), None)
    if record is None:
        record = Claim(kind="adjudication", by_color=None, against=None, opened_at=req.now,
                       status="open", details={})  # fmt: skip
        g.claims.append(record)
    details = dict(record.details)
    details[color] = result
    details[f"{color}_analysis"] = analysis.strip()[:8000]
    record.details = details
    req.session.flush()
    due = claims_due(g)
    _reply(req, g, "adjudication", {"kind": "received", "result": result, "due": due}, "notice")
    # equal claims stand at once (art. 53 note); different ones go to the arbiter
    # with the packet the sweep sends when the claim period is over
    if details.get("white") and details.get("white") == details.get("black"):
        settle_adjudication_claims(req.mailer, g, req.now)
