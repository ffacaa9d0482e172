"""A player's requests to the arbiter: leave, a delay notice, claims.

Each function works in the caller's transaction (a :class:`~mailbot.desk.work.Work`
for a :class:`Request`), records what the request changes, and tells the
events that say so.
"""

from __future__ import annotations

import datetime
import re
from zoneinfo import ZoneInfo

import chess
from sqlalchemy import select

from mailbot.desk.work import Work
from mailbot.rules import due, game, leave, tablebase
from mailbot.rules import events as ev
from mailbot.rules.phrase import Phrase
from mailbot.store import decisions, roster
from mailbot.store.endings import end_game, settle_adjudication_claims, withdrawal_adjudication
from mailbot.store.kinds import ClaimKind, Grantor
from mailbot.store.models import Game, LeaveExtra, Player
from mailbot.store.record import (
    board_of,
    color_name,
    color_of,
    game_state,
    notation_for,
    profile_of,
    write_pair,
)


class Request(Work):
    """A player's request: who asks, when the message came, and the work it is part of."""

    def __init__(self, work: Work, player: Player, received: datetime.datetime) -> None:
        super().__init__(work.session, work.now, work.inbound_id, work.events)
        self.player = player
        self.received = received


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
    taken = [leave.LeavePeriod(lv.start, lv.end) for lv in player.leaves]
    extras: dict[int, int] = {}
    for extra in req.session.scalars(select(LeaveExtra).where(LeaveExtra.player_id == player.id)):
        extras[extra.year] = extras.get(extra.year, 0) + extra.days
    anchor = games[0]
    try:
        requested = leave.LeavePeriod(start, end)
    except leave.InvalidLeaveError:
        reason = Phrase("leave.ends-before-start", {"start": start.isoformat(),
                                                    "end": end.isoformat()})  # fmt: skip
        refuse_leave(req, anchor, start, end, reason)
        return False
    decision = leave.check_request(p, taken, requested, extras, today=today)
    year = start.year
    if not decision.granted:
        reason = _refusal_reason(decision)
        details = _refusal(start, reason, decision.remaining(year))
        req.tell(ev.LeaveAnswered(anchor.id, player.id, "refused", start, end, details))
        return False
    roster.grant_leave(player, start, end, req.now, granted_by=Grantor.PLAYER,
                       inbound_id=req.inbound_id)  # fmt: skip
    granted = {"days": requested.days, "year": year, "remaining": decision.remaining(year)}
    playing = [g for g in games if g.result is None]
    # the confirmation and the director's notice name every game the leave stops (the
    # notifier makes them one message, a part per game); an opponent hears of it once
    for g in playing or [anchor]:
        req.tell(ev.LeaveAnswered(g.id, player.id, "granted", start, end, granted))
    told: set[int] = set()  # the opponents told
    for g in playing:
        opponent = g.black_id if player.id == g.white_id else g.white_id
        audience = ("director",) if opponent in told else ("opponent", "director")
        told.add(opponent)
        req.tell(ev.LeaveTaken(g.id, player.id, start, end, audience))
    return True


def refuse_leave(
    req: Request, g: Game, start: datetime.date, end: datetime.date, reason: Phrase
) -> None:
    """The answer to a leave request that cannot be read or granted."""
    details = _refusal(start, reason, None)
    req.tell(ev.LeaveAnswered(g.id, req.player.id, "refused", start, end, details))


def _refusal(start: datetime.date, reason: Phrase, remaining: int | None) -> dict[str, object]:
    return {"reason": reason, "remaining": remaining, "year": start.year}


def _refusal_reason(decision: leave.LeaveDecision) -> Phrase:
    refusal = decision.refusal
    if refusal is leave.LeaveRefusal.EXCEEDS_ALLOWANCE:
        balances = [
            Phrase("leave.balance", {"requested": b.requested, "year": b.year,
                                     "left": b.left_before, "allowance": b.allowance})
            for b in decision.balances
            if b.short_by > 0
        ]  # fmt: skip
        return Phrase("leave.over-allowance", {"balances": balances})
    if refusal is leave.LeaveRefusal.OVERLAPS:
        c = decision.conflict
        if c is None:
            return Phrase("leave.overlaps-other")
        return Phrase("leave.overlaps", {"start": c.start.isoformat(), "end": c.end.isoformat()})
    if refusal is leave.LeaveRefusal.RETROACTIVE:
        return Phrase("leave.retroactive")
    return Phrase("leave.not-allowed")


def delay_notice(req: Request, g: Game) -> None:
    """Art. 25: the player will answer later than the notice limit.

    The notice covers the move the player is to answer, or on the opponent's move
    their next one. It is kept whenever it comes (the director sees it), and
    spares the player the silence only when it came in time (docs/rules.md 2.4);
    the answer says which.
    """
    color = color_of(g, req.player)
    own = len(g.moves) % 2 == (0 if color else 1)
    in_time = not own or due.notice_covers(game_state(g), req.received)
    ply = len(g.moves) if own else len(g.moves) + 1
    roster.record_delay(g, color_name(color), req.received, req.inbound_id, ply)
    req.tell(ev.DelayNoted(g.id, req.player.id, in_time))


_RESULT = re.compile(r"(1-0|0-1|1/2-1/2|½-½)")


def adjudication_result(req: Request, g: Game, rest: str) -> str | None:
    """The result an adjudication claim asks for, when ``claim`` is one (art. 52):
    after the end of the event, or of a game left by a withdrawal, with a result
    written after the word; else None (a draw claim).
    """
    t = g.tournament
    today = req.received.astimezone(ZoneInfo(t.timezone)).date()
    found = _RESULT.search(rest)
    if found and (today > (t.extended_to or t.end) or withdrawal_adjudication(g) is not None):
        return found.group(1).replace("½-½", "1/2-1/2")
    return None


_WIN = re.compile(r"(?i)(?<!\w)(win|won|печалба|печеля|выигрыш|выигрываю)(?!\w)")


def claim(req: Request, g: Game, rest: str, body: str, tables: str | None = None) -> None:
    """A draw claim (threefold, 50 moves, tablebase), a claim of a win by the tablebases,
    or after the end an adjudication claim."""
    result = adjudication_result(req, g, rest)
    if result is not None:
        adjudication_claim(req, g, result, body)
        return
    color = color_of(g, req.player)
    found = _RESULT.search(rest)
    if _WIN.search(rest) or (found and found.group(1) == ("1-0" if color else "0-1")):
        tablebase_claim(req, g, tables)
        return
    decision = game.claim_draw(
        board_of(g), color, tablebase_rule=profile_of(g.tournament).tablebase_rule
    )
    if decision.status is game.ClaimStatus.GRANTED and decision.end is not None:
        req.tell(end_game(g, decision.end, req.now, answering=req.player))
        return
    answer_claim(req, g, decision)


def tablebase_claim(req: Request, g: Game, tables: str | None) -> None:
    """003 part 1 art. 11b: a win by the tablebases; the director decides, with what the
    installed tables (:mod:`mailbot.rules.tablebase`) say of the position in the packet."""
    color = color_of(g, req.player)
    board = board_of(g)
    p = profile_of(g.tournament)
    decision = game.claim_tablebase_win(board, color, tablebase_rule=p.tablebase_rule)
    if decision.status is not game.ClaimStatus.NEEDS_TD:
        req.tell(ev.ClaimAnswered(g.id, req.player.id, "win-refused", decision.phrase))
        return
    verdict = tablebase.probe(board, tables)
    details = {"fen": board.fen(), "reason": decision.reason,
               "tables": {"installed": verdict.installed, "result": verdict.result(),
                          "cursed": verdict.cursed, "dtz": verdict.dtz}}  # fmt: skip
    opened = decisions.open_claim(req.session, g, ClaimKind.TABLEBASE, req.now, details,
                                  by_color=color_name(color), against=color_name(not color),
                                  inbound_id=req.inbound_id)  # fmt: skip
    req.tell(ev.TablebaseClaimed(g.id, opened.id, req.player.id, verdict))
    req.tell(ev.ClaimAnswered(g.id, req.player.id, decision.status.value, decision.phrase))


def answer_claim(req: Request, g: Game, decision: game.ClaimDecision) -> None:
    """A draw claim the bot does not grant: refused, or sent to the TD with its position."""
    color = color_of(g, req.player)
    if decision.status is game.ClaimStatus.NEEDS_TD:
        opened = decisions.open_claim(
            req.session, g, ClaimKind.DRAW, req.now,
            {"fen": decision.fen, "reason": decision.reason},
            by_color="white" if color else "black", inbound_id=req.inbound_id,
        )  # fmt: skip
        req.tell(
            ev.DrawClaimed(g.id, opened.id, req.player.id, decision.phrase, decision.fen or "")
        )
    req.tell(ev.ClaimAnswered(g.id, req.player.id, decision.status.value, decision.phrase))


_NUMBER = re.compile(r"\b(\d{1,3})\b")


def complaint(req: Request, g: Game, rest: str, body: str) -> None:
    """Art. 20, 22: a complaint that an opponent's move was impossible, incorrect or unclear.

    ``rest`` names the opponent's move by its number (``complaint 33``); without
    a number, the opponent's last move. The complaint goes to the director as a
    claim: upheld, the game goes back to the position before that move (art. 20,
    :func:`mailbot.desk.director.replay_from`); rejected, the complaint was groundless
    and costs the complainer the profile's penalty days (art. 22).
    """
    color = color_of(g, req.player)
    theirs = 0 if color == chess.WHITE else 1  # ply % 2 of the opponent's moves
    moves = [m for m in g.moves if m.ply % 2 == theirs and not m.automatic]
    found = _NUMBER.search(rest)
    if found:
        number = int(found.group(1))
        moves = [m for m in moves if (m.ply + 1) // 2 == number]
    if not moves:
        reason = (
            Phrase("complaint.no-move", {"number": found.group(1)})
            if found
            else Phrase("complaint.nothing")
        )
        req.tell(ev.ClaimAnswered(g.id, req.player.id, "complaint-refused", reason))
        return
    move = moves[-1]
    board = board_of(g, move.ply - 1)
    written = write_pair(board, [chess.Move.from_uci(move.uci)], notation_for(req.player))
    opened = decisions.open_claim(
        req.session, g, ClaimKind.COMPLAINT, req.now,
        {"ply": move.ply, "move": written, "said": body.strip()[:4000]},
        by_color=color_name(color), against=color_name(not color), inbound_id=req.inbound_id,
    )  # fmt: skip
    req.tell(ev.ComplaintMade(g.id, opened.id, req.player.id, move.ply, written))


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
    details = decisions.file_adjudication_claim(req.session, g, color, result, analysis, req.now)
    req.tell(ev.AdjudicationClaimed(g.id, req.player.id, result, claims_due(g)))
    # equal claims stand at once (art. 53 note); different ones go to the arbiter
    # with the packet the sweep sends when the claim period is over
    if details.get("white") and details.get("white") == details.get("black"):
        req.tell(*settle_adjudication_claims(req.session, g, req.now))
