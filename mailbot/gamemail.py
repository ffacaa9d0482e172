"""A game's mail and its ending: the contract's subject and headers, game over, claims.

The subject and headers are what the notifier puts on every message about a
game (``[INDEX/N] White – Black: ...`` and ``X-Mailbot-*``); the end of a game
and the settling of adjudication claims are shared by the desk, the sweep and
the director's orders, and return the events the notifier tells.
"""

from __future__ import annotations

import datetime
from typing import Any
from zoneinfo import ZoneInfo

import chess
from sqlalchemy.orm import Session

from mailbot.record import (
    board_of,
    control_of,
    notation_for,
    pgn_result,
    tag_of,
    totals,
)
from mailbot.rules import events as ev
from mailbot.rules import game
from mailbot.rules.notation import Notation, write_move
from mailbot.store import Claim, Game, Player


def game_headers(g: Game, event: str, *, reply: bool = False) -> dict[str, str]:
    """``Auto-Submitted`` and the ``X-Mailbot-*`` headers of docs/contract.md for game ``g``."""
    sums = totals(g)
    headers = {
        "Auto-Submitted": "auto-replied" if reply else "auto-generated",
        "X-Mailbot-Event": event,
        "X-Mailbot-Game": tag_of(g),
        "X-Mailbot-Ply": str(len(g.moves)),
        "X-Mailbot-Time": f"white={sums.white}; black={sums.black}",
    }
    if g.moves:
        headers["X-Mailbot-Move"] = g.moves[-1].uci
    if g.result:
        headers["X-Mailbot-Result"] = pgn_result(g.result)
    return headers


def game_subject(g: Game, what: str) -> str:
    """``[INDEX/N] White – Black: <what happened>``."""
    return f"[{tag_of(g)}] {g.white.name} – {g.black.name}: {what}"


def game_summary(g: Game, me: Player | None = None) -> dict[str, Any]:
    """A game as the templates show it, ``last`` in the reader's notation."""
    sums = totals(g)
    to_move = g.white if len(g.moves) % 2 == 0 else g.black
    last: str | None = None
    if g.moves:
        board = board_of(g, stack=1)
        move = board.pop()
        style = notation_for(me) if me is not None else Notation(g.tournament.notation)
        last = write_move(board, move, style)
    mine = me is not None and me.id in (g.white_id, g.black_id)
    control = None
    if mine and g.result is None and me is not None:
        state = control_of(g, chess.WHITE if me.id == g.white_id else chess.BLACK)
        control = {"used": state.used_days, "limit": state.limit_days,
                   "control_move": state.next_control_move, "left": state.days_left}  # fmt: skip
    return {
        "tag": tag_of(g),
        "white": g.white.name,
        "black": g.black.name,
        "result": pgn_result(g.result) if g.result else None,
        "ply": len(g.moves),
        "move_number": len(g.moves) // 2 + 1,
        "turn": "white" if len(g.moves) % 2 == 0 else "black",
        "to_move": to_move.name,
        "white_total": sums.white,
        "black_total": sums.black,
        "last": last,
        "your_move": me is not None and g.result is None and to_move.id == me.id,
        #: The reader's own clock: days used and left to the next control.
        "control": control,
    }


def end_game(
    g: Game,
    end: game.GameEnd,
    now: datetime.datetime,
    *,
    answering: Player | None = None,
    first_ply: int | None = None,
) -> ev.GameEnded:
    """Record the end of ``g`` (the PGN goes to both players and the TD, art. 51).

    ``answering`` is the player whose message ended the game, if one did;
    ``first_ply`` the first ply of the move that ended it, if a move did.
    """
    g.result = end.result.value
    g.termination = end.termination.value
    g.ended_at = now
    g.draw_offer_by = None
    g.draw_offer_ply = None
    g.pending_conditional, g.pending_conditional_by = None, None
    for claim in g.claims:
        if claim.status == "open":
            claim.status = "rejected" if claim.kind != "adjudication" else "confirmed"
            claim.decided_at = now
            claim.decided_by = "game-over"
    return ev.GameEnded(g.id, end, answering.id if answering is not None else None, first_ply)


def claim_end(g: Game, claim: Claim) -> game.GameEnd:
    """The loss a confirmed silence or overstep claim means."""
    loser = chess.WHITE if claim.against == "white" else chess.BLACK
    name = g.white.name if loser == chess.WHITE else g.black.name
    if claim.kind == "silence":
        days = claim.details.get("days", "?")
        return game.forfeit(
            loser, game.Termination.SILENCE, f"{name} did not answer for {days} days"
        )
    return game.forfeit(loser, game.Termination.TIME_FORFEIT, f"{name} overstepped the time limit")


def withdrawal_adjudication(g: Game) -> Claim | None:
    """The open adjudication of a withdrawn player's game (art. 48; 003 part 1 art. 9).

    Such a game goes to the arbiter at once, before the end of the event;
    the claim's details name the player (``withdrawal``).
    """
    return next(
        (
            c
            for c in g.claims
            if c.kind == "adjudication" and c.status == "open" and c.details.get("withdrawal")
        ),
        None,
    )


def settle_adjudication_claims(session: Session, g: Game, now: datetime.datetime) -> list[ev.Event]:
    """After the claim period (art. 52-53): equal claims stand, else the arbiter's packet.

    The players' claims are kept in an ``adjudication`` claim's details as
    ``white``/``black`` results with their analysis.
    """
    claim = next((c for c in g.claims if c.kind == "adjudication"), None)
    if claim is None:
        claim = Claim(
            kind="adjudication",
            by_color=None,
            against=None,
            opened_at=now,
            status="open",
            details={},
        )
        g.claims.append(claim)
        session.flush()
    agreed = game.settle_adjudication(claim.details.get("white"), claim.details.get("black"))
    if agreed is not None:
        claim.status = "confirmed"
        claim.decided_at = now
        claim.decided_by = "agreement"
        end = game.adjudicate(agreed, reason=f"both players claimed {agreed} (art. 53 note)")
        return [end_game(g, end, now)]
    due = now.astimezone(ZoneInfo(g.tournament.timezone)).date()
    return [ev.AdjudicationPacket(g.id, claim.id, due)]
