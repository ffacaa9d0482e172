"""The steps that more than one handler takes: judge a move, play it, refuse it.

A handler module imports no other handler module; what two of them share is
here (the move handler and a draw claim written with its move both judge and
play the move). A legal move is played with :func:`mailbot.rules.play.walk`,
its days charged to the last move the player actually played (003 part 1
art. 6g), and both players are told; an impossible, incorrect or unclear move
costs 5 days (art. 17-19).
"""

from __future__ import annotations

import dataclasses
import datetime
from zoneinfo import ZoneInfo

import chess

from mailbot.desk import petitions as requests
from mailbot.desk.deadlines import overstep_on_move
from mailbot.desk.handlers.context import Context
from mailbot.mail.intent import Word, said
from mailbot.mail.letters import Letter
from mailbot.mail.storable import MAX_READ
from mailbot.rules import events as ev
from mailbot.rules import game, referee
from mailbot.rules.phrase import Phrase
from mailbot.rules.play import Ply, walk
from mailbot.store.endings import end_game
from mailbot.store.kinds import PenaltyDecider, PenaltyReason
from mailbot.store.models import Game, Move, Player
from mailbot.store.penalties import impose_penalty
from mailbot.store.playing import (
    charge_days,
    clear_draw_offer,
    cut_leave_short,
    keep_conditionals,
    mark_incomplete,
    offer_draw,
    record_move,
    stamp_forwarded,
)
from mailbot.store.record import (
    board_of,
    color_name,
    color_of,
    days_for,
    local_date,
    notation_for,
    profile_of,
)


def judge(ctx: Context, g: Game, mover: Player, board: chess.Board) -> referee.Judgement:
    """The referee's verdict on the message's move (the body, else the subject)."""
    allowed = g.tournament.conditional_moves
    numeric = profile_of(g.tournament).numeric_form_decides

    def judged(text: str) -> referee.Judgement:
        return referee.judge(
            text, board, notation_for(mover), conditional_allowed=allowed, numeric_decides=numeric
        )

    judgement = judged(ctx.letter.body[:MAX_READ])
    written = subject_move(ctx.letter, g)
    if judgement.verdict is referee.Verdict.NO_MOVE and written:
        # a move written only in the subject ("Re: [X/3] 12. Кg1-f3"), the body empty
        judgement = judged(written)
    return judgement


def subject_move(letter: Letter, g: Game) -> str:
    """The text after the game tag of a subject, when a move may be written there.

    Only for a message whose body is empty, and never the bot's own subject
    (``[X/3] White – Black: ...``, which a reply keeps and which may name the
    opponent's move).
    """
    if letter.body.strip() or not letter.game_tag:
        return ""
    _, bracket, after = letter.subject_core.partition("]")
    ours = f"{g.white.name} – {g.black.name}" in after or (" – " in after and ": " in after)
    if not bracket or ours:
        return ""
    return after.strip()


def judged(ctx: Context) -> referee.Judgement:
    """The referee's verdict on the move of the message in hand (``ctx.game``,
    ``ctx.mover``), asked once and kept on the context."""
    g, mover = ctx.game, ctx.mover
    assert g is not None and mover is not None
    if ctx.judgement is None:
        ctx.judgement = judge(ctx, g, mover, board_of(g))
    return ctx.judgement


def reason_of(judgement: referee.Judgement) -> Phrase:
    """Why a move is refused, as the dispute file writes it in each language.

    >>> import chess
    >>> from mailbot.compose.catalogue import say
    >>> from mailbot.rules.notation import Notation
    >>> say("en", reason_of(referee.judge("1.e3-e4", chess.Board(), Notation.EN)))
    'impossible: there is no piece on e3'
    """
    return Phrase(
        "reason.verdict",
        {
            "verdict": Phrase(f"verdict-word.{judgement.verdict.value}"),
            "why": Phrase(f"referee.{judgement.reason_code}", dict(judgement.details)),
        },
    )


def reject(ctx: Context, judgement: referee.Judgement) -> None:
    """Art. 17-19: an impossible, incorrect or unclear move costs 5 days."""
    g, mover = ctx.game, ctx.mover
    assert g is not None and mover is not None
    color = color_of(g, mover)
    verdict = judgement.verdict.value
    p = profile_of(g.tournament)
    # art. 17 note: no penalty when the mail, not the player, garbled the move
    penalty = 0 if (ctx.letter.garbled and verdict == "unclear") else p.penalty_days
    if penalty:
        impose_penalty(g, color_name(color), penalty, PenaltyReason(verdict), ctx.now,
                       decided_by=PenaltyDecider.REFEREE, inbound_id=ctx.inbound.id)  # fmt: skip
    ctx.refuse(reason_of(judgement), ev.MoveRejected(g.id, mover.id, judgement, penalty))
    # art. 17: a systematic violation may lose the game; the director hears of it
    rejected = [
        x for x in g.penalties if x.color == color_name(color) and x.decided_by == "referee"
    ]
    if penalty and 0 < p.rejections_to_director <= len(rejected):
        days = sum(x.days for x in rejected)
        ctx.tell(ev.RejectionsRepeated(g.id, mover.id, len(rejected), days))


def play(ctx: Context, judgement: referee.Judgement, claimed: game.GameEnd | None = None) -> None:
    """Apply a legal move, and what the conditional lines play after it.

    ``claimed`` is the end of the game a draw claim written with the move was
    granted (FIDE 9.2): the game ends with it after the move, unless the move
    itself ends it.
    """
    g, mover = ctx.game, ctx.mover
    assert g is not None and mover is not None and judgement.move is not None
    t = g.tournament
    tz = ZoneInfo(t.timezone)
    color = color_of(g, mover)
    sent = ctx.inbound.internaldate
    forwarded = max(ctx.now, sent)
    days, counted = days_for(g, profile_of(t), tz, mover, sent)
    _cancel_leave_if_on_leave(g, mover, local_date(sent, tz))
    first_ply = len(g.moves) + 1
    # the opponent's standing offer lapses with this move (a move declines it)
    if g.draw_offer_by == color_name(not color):
        clear_draw_offer(g)
    theirs = (g.pending_conditional or []) if g.pending_conditional_by != color_name(color) else []
    done = walk(board_of(g), [judgement.move, *judgement.conditional], theirs)
    rows = [_row(ctx, g, ply, judgement.written or "", forwarded, counted) for ply in done.plies]
    own = [row for row, ply in zip(rows, done.plies, strict=True) if not ply.automatic]
    # 003 p1 6g: the days go to the last move the player actually played
    charge_days(own[-1], days)
    stamp_forwarded(g, forwarded)
    _pending(g, color, done.theirs_left, done.mine_left, t.conditional_moves)
    events: list[ev.Event] = []
    if judgement.verdict is referee.Verdict.INCOMPLETE:
        events.extend(_note_incomplete(g, mover, own[0]))
    end = done.end or claimed
    if ctx.words.has(Word.DRAW) and end is None:
        offer_draw(g, color_name(color), len(g.moves))
    if end is not None:
        ctx.tell(*events, end_game(g, end, ctx.now, answering=mover, first_ply=first_ply))
        return
    events.extend(overstep_on_move(ctx.session, g, mover, sent, ctx.now))
    if g.result is None:  # unless auto_forfeit decided it
        events.append(_played(g, mover, first_ply, judgement, ctx.letter.body))
    ctx.tell(*events)


def claim_with_move(ctx: Context, judgement: referee.Judgement) -> bool:
    """A draw claim written with the move that makes it (FIDE 9.2 through art. 2;
    003 part 1 art. 2f): ``4... Nf6-g8 claim``.

    The claim is judged on the position after the move, and the move is played
    whatever the verdict (FIDE 9.5.2: an intended move must be made): a granted
    claim ends the game after it; one refused, or sent to the director, leaves
    the game going with the move played. An impossible, incorrect or unclear
    move is refused as any other (art. 17-19), and the claim with it. Returns
    False when the message holds no move (the claim stands alone).
    """
    g, mover = ctx.game, ctx.mover
    assert g is not None and mover is not None
    if judgement.verdict is referee.Verdict.NO_MOVE:
        return False
    if judgement.penalised:
        reject(ctx, judgement)
        return True
    assert judgement.move is not None
    decision = game.claim_draw(
        board_of(g),
        color_of(g, mover),
        intended_move=judgement.move,
        tablebase_rule=profile_of(g.tournament).tablebase_rule,
    )
    if decision.status is game.ClaimStatus.GRANTED and decision.move is None:
        # the position had occurred three times already: the claim needs no move
        assert decision.end is not None
        ctx.tell(end_game(g, decision.end, ctx.now, answering=mover))
        return True
    alone = dataclasses.replace(judgement, conditional=())  # nothing is played after a claim
    if decision.status is game.ClaimStatus.GRANTED:
        play(ctx, alone, claimed=decision.end)
        return True
    play(ctx, alone)
    if g.result is None and decision.phrase.code != "claim.mate-ends":
        requests.answer_claim(requests.Request(ctx, mover, ctx.inbound.internaldate), g, decision)
    return True


def _played(
    g: Game, mover: Player, first_ply: int, j: referee.Judgement, body: str
) -> ev.MovePlayed:
    color = color_name(color_of(g, mover))
    mine = tuple(g.pending_conditional or []) if g.pending_conditional_by == color else ()
    return ev.MovePlayed(
        g.id,
        mover.id,
        first_ply,
        automatic=tuple(m.ply for m in g.moves[first_ply - 1 :] if m.automatic),
        draw_offered=g.draw_offer_by == color,
        reminders=j.reminders,
        conditional=mine,
        said=said(body) if g.tournament.forward_messages else "",
    )


def _row(
    ctx: Context,
    g: Game,
    ply: Ply,
    written: str,
    forwarded: datetime.datetime,
    counted: datetime.date,
) -> Move:
    return record_move(
        g,
        uci=ply.move.uci(),
        san=ply.san,
        text="" if ply.automatic else written[:500],
        sent_at=ctx.inbound.internaldate,
        forwarded_at=forwarded,
        received_counted_on=counted,
        days=0,
        automatic=ply.automatic,
        incomplete=False,
        inbound_id=ctx.inbound.id,
    )


def _pending(
    g: Game,
    color: chess.Color,
    theirs: tuple[str, ...],
    mine: tuple[chess.Move, ...],
    allowed: bool,
) -> None:
    """What stays of the two conditional lines after the walk."""
    if theirs:
        keep_conditionals(g, theirs, color_name(not color))
    elif mine and allowed:
        keep_conditionals(g, [m.uci() for m in mine], color_name(color))
    else:
        keep_conditionals(g, None, None)


def _note_incomplete(g: Game, mover: Player, row: Move) -> list[ev.Event]:
    """Art. 7 note 2: incomplete notation is played with a reminder; the second
    time in a game the director hears of it, without stopping play."""
    mark_incomplete(row)
    count = sum(1 for m in g.moves if m.incomplete and m.ply % 2 == row.ply % 2)
    return [ev.IncompleteRepeated(g.id, mover.id, count)] if count == 2 else []


def _cancel_leave_if_on_leave(g: Game, player: Player, day: datetime.date) -> None:
    """Art. 46: a move sent during leave cancels the leave in that game from that day."""
    for lv in player.leaves:
        if lv.start <= day <= lv.end and not any(c.game_id == g.id for c in lv.cancellations):
            cut_leave_short(lv, g.id, day)
