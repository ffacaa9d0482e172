"""How a game ends in the store: the result written, the claims about it settled."""

from __future__ import annotations

import datetime
from zoneinfo import ZoneInfo

import chess
from sqlalchemy.orm import Session

from mailbot.rules import events as ev
from mailbot.rules import game
from mailbot.store.kinds import ClaimDecider, ClaimKind, ClaimState
from mailbot.store.models import Claim, Game, Player


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
    g.result = end.result
    g.termination = end.termination.value
    g.ended_at = now
    clear_offers(g)
    for claim in g.claims:
        if claim.status == ClaimState.OPEN:
            adjudicated = claim.kind == ClaimKind.ADJUDICATION
            claim.status = ClaimState.CONFIRMED if adjudicated else ClaimState.REJECTED
            claim.decided_at = now
            claim.decided_by = ClaimDecider.GAME_OVER
    return ev.GameEnded(g.id, end, answering.id if answering is not None else None, first_ply)


def clear_offers(g: Game, colour: str | None = None) -> None:
    """The draw offer and the conditional line of ``g`` go (only ``colour``'s, if given):
    an ending, a move taken back and a player replaced clear them here alone.

    >>> g = Game(draw_offer_by="white", draw_offer_ply=3, pending_conditional=["e2e4"],
    ...          pending_conditional_by="black")
    >>> clear_offers(g, "white")
    >>> g.draw_offer_by, g.pending_conditional_by
    (None, 'black')
    """
    if colour is None or g.draw_offer_by == colour:
        g.draw_offer_by, g.draw_offer_ply = None, None
    if colour is None or g.pending_conditional_by == colour:
        g.pending_conditional, g.pending_conditional_by = None, None


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
    claim = next((c for c in g.claims if c.kind == ClaimKind.ADJUDICATION), None)
    if claim is None:
        claim = Claim(
            kind=ClaimKind.ADJUDICATION,
            by_color=None,
            against=None,
            opened_at=now,
            status=ClaimState.OPEN,
            details={},
        )
        g.claims.append(claim)
        session.flush()
    agreed = game.settle_adjudication(claim.details.get("white"), claim.details.get("black"))
    if agreed is not None:
        claim.status = ClaimState.CONFIRMED
        claim.decided_at = now
        claim.decided_by = ClaimDecider.AGREEMENT
        end = game.adjudicate(agreed, reason=f"both players claimed {agreed} (art. 53 note)")
        return [end_game(g, end, now)]
    due = now.astimezone(ZoneInfo(g.tournament.timezone)).date()
    return [ev.AdjudicationPacket(g.id, claim.id, due)]
