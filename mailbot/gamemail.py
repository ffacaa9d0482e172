"""Mail about one game: the contract's subject and headers, game over, claims.

Shared by the desk (answers to players' and the TD's messages) and the sweep
(deadline notices), so that every message about a game carries the same
``[INDEX/N] White – Black: ...`` subject and ``X-Mailbot-*`` headers.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from typing import Any
from zoneinfo import ZoneInfo

import chess
from sqlalchemy import select
from sqlalchemy.orm import Session

from mailbot import game
from mailbot.notation import Notation, write_move
from mailbot.notices import Renderer
from mailbot.outbox import UNDELIVERABLE, queue, recipients_tournaments
from mailbot.record import (
    board_of,
    color_name,
    export_pgn,
    language_for,
    notation_for,
    pgn_result,
    stored_result,
    tag_of,
    totals,
)
from mailbot.store import Claim, Game, Outbox, Player, Tournament


def game_headers(g: Game, event: str, *, reply: bool = False) -> dict[str, str]:
    """``Auto-Submitted`` and the ``X-Mailbot-*`` headers of CONTRACT.md for game ``g``."""
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
        board = board_of(g)
        move = board.pop()
        style = notation_for(me) if me is not None else Notation(g.tournament.notation)
        last = write_move(board, move, style)
    return {
        "tag": tag_of(g),
        "white": g.white.name,
        "black": g.black.name,
        "result": pgn_result(g.result) if g.result else None,
        "ply": len(g.moves),
        "turn": "white" if len(g.moves) % 2 == 0 else "black",
        "white_total": sums.white,
        "black_total": sums.black,
        "last": last,
        "your_move": me is not None and g.result is None and to_move.id == me.id,
    }


class Mailer:
    """Queues game mail (rendered, with the contract's headers) in one session."""

    def __init__(self, session: Session, sender: str, renderer: Renderer) -> None:
        self.session = session
        self.sender = sender
        self.renderer = renderer

    def game_mail(
        self,
        g: Game,
        *,
        template: str,
        language: str,
        context: dict[str, Any],
        to: Sequence[str],
        event: str,
        now: datetime.datetime,
        cc: Sequence[str] = (),
        board: chess.Board | None = None,
        orientation: chess.Color = chess.WHITE,
        extra: dict[str, str] | None = None,
        reply_to: str | None = None,
        references: Sequence[str] = (),
        inbound_id: int | None = None,
    ) -> Outbox:
        """Render and queue one message about ``g``.

        ``reply_to`` is the Message-ID (without brackets) of the message this
        answers; without it the message continues the recipient's thread of
        the game.
        """
        rendered = self.renderer.render(
            template, language, context, board=board, orientation=orientation
        )
        headers = game_headers(g, event, reply=reply_to is not None)
        headers.update(extra or {})
        if reply_to is not None:
            refs = [f"<{r}>" for r in references if r != reply_to][-10:]
            headers["In-Reply-To"] = f"<{reply_to}>"
            headers["References"] = " ".join([*refs, f"<{reply_to}>"])
        elif to:
            thread = last_mail_to(self.session, g, to[0])
            if thread is not None:
                headers["In-Reply-To"] = f"<{thread.message_id}>"
                headers["References"] = f"<{thread.message_id}>"
        return queue(
            self.session,
            sender=self.sender,
            to=to,
            cc=cc,
            subject=game_subject(g, rendered.what),
            text=rendered.text,
            html=rendered.html,
            event=event,
            now=now,
            headers=headers,
            game_id=g.id,
            inbound_id=inbound_id,
        )


def last_mail_to(session: Session, g: Game, address: str) -> Outbox | None:
    """The bot's latest message about ``g`` to ``address`` (to keep the thread)."""
    rows = session.scalars(
        select(Outbox).where(Outbox.game_id == g.id).order_by(Outbox.id.desc()).limit(30)
    ).all()
    return next((o for o in rows if address in o.to_addrs), None)


def finish_game(
    mailer: Mailer,
    g: Game,
    end: game.GameEnd,
    now: datetime.datetime,
    *,
    reply_to: Player | None = None,
    reply_id: str | None = None,
    references: Sequence[str] = (),
    inbound_id: int | None = None,
) -> None:
    """Record the end of ``g`` and send the PGN to both players and the TD (art. 51)."""
    t = g.tournament
    g.result = stored_result(end.result)
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
    board = board_of(g)
    text = export_pgn(g, end)
    sums = totals(g)
    recipients: list[tuple[str, str, str, Player | None]] = [
        (g.white.email, g.white.name, language_for(g.white), g.white),
        (g.black.email, g.black.name, language_for(g.black), g.black),
        (t.director_email, t.director_name, t.language, None),
    ]
    for address, name, language, player in recipients:
        is_reply = reply_to is not None and player is reply_to and reply_id is not None
        mailer.game_mail(
            g,
            template="game-over",
            language=language,
            context={
                "recipient": name,
                "game": game_summary(g),
                "result": pgn_result(g.result),
                "termination": end.reason,
                "ending": {
                    "code": end.termination.value,
                    "winner": None if end.winner is None else color_name(end.winner),
                },
                "white_total": sums.white,
                "black_total": sums.black,
                "pgn": text,
            },
            to=[address],
            event="game-over",
            now=now,
            board=board,
            orientation=chess.BLACK if player is g.black else chess.WHITE,
            reply_to=reply_id if is_reply else None,
            references=references,
            inbound_id=inbound_id,
        )


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


def settle_adjudication_claims(mailer: Mailer, g: Game, now: datetime.datetime) -> Claim:
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
        mailer.session.flush()
    white = claim.details.get("white")
    black = claim.details.get("black")
    agreed = game.settle_adjudication(white, black)
    t = g.tournament
    tz = ZoneInfo(t.timezone)
    if agreed is not None:
        claim.status = "confirmed"
        claim.decided_at = now
        claim.decided_by = "agreement"
        finish_game(
            mailer,
            g,
            game.adjudicate(agreed, reason=f"both players claimed {agreed} (art. 53 note)"),
            now,
        )
        return claim
    mailer.game_mail(
        g,
        template="adjudication",
        language=t.language,
        context={
            "kind": "packet",
            "recipient": t.director_name,
            "white_claim": white,
            "black_claim": black,
            "white_analysis": claim.details.get("white_analysis", ""),
            "black_analysis": claim.details.get("black_analysis", ""),
            "pgn": export_pgn(g),
            "claim": claim.id,
            "end": (t.extended_to or t.end),
            "due": now.astimezone(tz).date(),
        },
        to=[t.director_email],
        event="notice",
        now=now,
        board=board_of(g),
        extra={"X-Mailbot-Claim": str(claim.id)},
    )
    return claim


def director_error_notice(
    session: Session,
    sender: str,
    renderer: Renderer,
    t: Tournament,
    context: dict[str, Any],
    now: datetime.datetime,
    *,
    headers: dict[str, str] | None = None,
    game_id: int | None = None,
    inbound_id: int | None = None,
) -> Outbox:
    """Queue a ``notice`` about the bot's own trouble (event ``error``) to ``t``'s director."""
    rendered = renderer.render("notice", t.language, context)
    return queue(
        session,
        sender=sender,
        to=[t.director_email],
        subject=f"[{t.index}] {rendered.what}",
        text=rendered.text,
        html=rendered.html,
        event="error",
        now=now,
        headers={"Auto-Submitted": "auto-generated", "X-Mailbot-Event": "error", **(headers or {})},
        game_id=game_id,
        inbound_id=inbound_id,
    )


def tell_director_undeliverable(
    sender: str, renderer: Renderer | None = None
) -> Callable[[Session, Outbox, datetime.datetime], None]:
    """What the outbox does when it gives a message up: the director hears of it once.

    The director of the message's game, or of the tournaments whose players it
    was for; never about mail that was for the director itself.
    """
    render = renderer or Renderer()

    def tell(session: Session, row: Outbox, now: datetime.datetime) -> None:
        tournaments: list[Tournament] = []
        if row.game is not None:
            tournaments = [row.game.tournament]
        else:
            ids = recipients_tournaments(session, row)
            tournaments = [t for t in (session.get(Tournament, i) for i in ids) if t is not None]
        told: set[str] = set()
        for t in tournaments:
            address = t.director_email
            if address in told or address in row.to_addrs or address in row.cc_addrs:
                continue
            told.add(address)
            context = {
                "kind": "undeliverable",
                "subject": row.subject,
                "recipients": ", ".join([*row.to_addrs, *row.cc_addrs]),
                "attempts": row.attempts,
                "error": row.last_error or "",
            }
            director_error_notice(
                session,
                sender,
                render,
                t,
                context,
                now,
                headers={UNDELIVERABLE: str(row.id)},
                game_id=row.game_id,
            )

    return tell
