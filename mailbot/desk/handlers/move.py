"""A move: judged by the referee, then played (with the conditional lines) or refused.

The message may hold no move (then ``status`` or ``draw`` may be what it
asks), it may not be the sender's turn, or the move may be impossible,
incorrect or unclear (+5 days, art. 17-19). A legal move is played with
:func:`mailbot.rules.play.walk`, its days charged to the last move the player
actually played (003 part 1 art. 6g), and both players are told.
"""

from __future__ import annotations

import dataclasses
import datetime
import email.policy
import email.utils
from email.parser import BytesHeaderParser
from zoneinfo import ZoneInfo

import chess
from sqlalchemy import select

from mailbot.desk import petitions as requests
from mailbot.desk.handlers import answers, draw
from mailbot.desk.handlers.context import Context
from mailbot.desk.sweep import overstep_on_move
from mailbot.mail.intent import Word, said
from mailbot.mail.letters import Letter
from mailbot.rules import events as ev
from mailbot.rules import game, referee
from mailbot.rules.notation import write_move
from mailbot.rules.play import Ply, walk
from mailbot.store.endings import end_game
from mailbot.store.models import Game, InboundMessage, LeaveCancellation, Move, Penalty, Player
from mailbot.store.record import (
    board_of,
    color_name,
    color_of,
    days_for,
    local_date,
    move_line,
    notation_for,
    profile_of,
)

#: Moves are read from the first this-many characters of a message's new text.
MOVE_TEXT = 20_000


def judge(ctx: Context, g: Game, mover: Player, board: chess.Board) -> referee.Judgement:
    """The referee's verdict on the message's move (the body, else the subject)."""
    allowed = g.tournament.conditional_moves
    numeric = profile_of(g.tournament).numeric_form_decides

    def judged(text: str) -> referee.Judgement:
        return referee.judge(
            text, board, notation_for(mover), conditional_allowed=allowed, numeric_decides=numeric
        )

    judgement = judged(ctx.letter.body[:MOVE_TEXT])
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


def move(ctx: Context) -> None:
    """The message's move, or what the message asks instead of a move."""
    g, mover = ctx.game, ctx.mover
    assert g is not None and mover is not None
    board = board_of(g)
    color = color_of(g, mover)
    judgement = judge(ctx, g, mover, board)
    has_move = judgement.verdict is not referee.Verdict.NO_MOVE
    words = ctx.words
    earlier = repeated(ctx, judgement, board.turn == color) if has_move else None
    if earlier is not None:
        tz = ZoneInfo(g.tournament.timezone)
        answer = ctx.answer(
            ev.AnswerKind.REPEATED_MESSAGE, date=local_date(earlier.internaldate, tz)
        )
        ctx.refuse(f"repeats message {earlier.id}; nothing done", answer)
    elif words.has(Word.STATUS) and not has_move:
        answers.status(ctx)
    elif board.turn != color:
        if words.has(Word.DRAW) and not has_move:
            draw.offer(ctx)
            return
        last = len(g.moves)
        tz = ZoneInfo(g.tournament.timezone)
        line = move_line(g, last, notation_for(mover), tz) if last else None
        opponent = g.black if color == chess.WHITE else g.white
        answer = ctx.answer(ev.AnswerKind.NOT_YOUR_MOVE, line=line, opponent=opponent.name)
        ctx.refuse("not the sender's move", answer)
    elif not has_move:
        if words.has(Word.DRAW):
            draw.offer(ctx)
            return
        example = _example(board, mover)
        ctx.refuse("no move found", ctx.answer(ev.AnswerKind.NO_MOVE, example=example))
    elif judgement.penalised:
        reject(ctx, judgement)
    else:
        play(ctx, judgement)


def _written(row: InboundMessage) -> datetime.datetime | None:
    """The ``Date:`` of a stored message (when its sender wrote it)."""
    if row.raw is None:
        return None
    found = BytesHeaderParser(policy=email.policy.compat32).parsebytes(row.raw).get("Date")
    if not found:
        return None
    try:
        return email.utils.parsedate_to_datetime(str(found))
    except (TypeError, ValueError):
        return None


def repeated(ctx: Context, judgement: referee.Judgement, to_move: bool) -> InboundMessage | None:
    """The earlier message of this sender in this game that the message in hand repeats
    word for word (one that played a move or cost a penalty), once the game has
    moved on, when it is old mail sent again (a
    phone's outbox sending a message anew, weeks later, with a new Message-ID);
    else None.

    The same text alone is not enough: "Kh1" may be written twice in one game.
    It is old mail when its ``Date:`` is the first writing's, or when its
    move, read now, could not be a new one (it is not the sender's move, the
    move is impossible, incorrect or unclear, or its number is not this
    move's). Such a message is answered and changes nothing: no move, no penalty.
    """
    g, letter = ctx.game, ctx.letter
    mark = ctx.inbound.text_sha256
    if g is None or mark is None:
        return None
    # the earlier messages with the same words that did something: played a move or
    # cost a penalty (one refused for coming too early may well be sent again)
    acted = {m.inbound_id for m in g.moves if m.inbound_id is not None} | {
        p.inbound_id for p in g.penalties if p.inbound_id is not None
    }
    if not acted:
        return None
    # the messages that acted in this game are this game's: no flush is needed to ask
    # (a message's text and id are written when it is recorded)
    with ctx.session.no_autoflush:
        earlier = ctx.session.scalars(
            select(InboundMessage)
            .where(
                InboundMessage.text_sha256 == mark,
                InboundMessage.id != ctx.inbound.id,
                InboundMessage.id.in_(sorted(acted)),
            )
            .order_by(InboundMessage.id.desc())
            .limit(1)
        ).first()
    if earlier is None or not any((m.inbound_id or 0) > earlier.id for m in g.moves):
        return None  # the game has not moved on since: the message is judged as ever
    if letter.date_header is not None and letter.date_header == _written(earlier):
        return earlier
    misnumbered = any(r.code == "wrong-move-number" for r in judgement.reminders)
    return earlier if not to_move or judgement.penalised or misnumbered else None


def _example(board: chess.Board, player: Player) -> str:
    moves = sorted(board.legal_moves, key=lambda m: m.uci())
    return write_move(board, moves[0], notation_for(player)) if moves else ""


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
        g.penalties.append(
            Penalty(color=color_name(color), days=penalty, reason=verdict, ply_at=len(g.moves),
                    created_at=ctx.now, inbound_id=ctx.inbound.id, decided_by="referee")
        )  # fmt: skip
    ctx.refuse(
        f"{verdict}: {judgement.reason}", ev.MoveRejected(g.id, mover.id, judgement, penalty)
    )
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
        g.draw_offer_by = g.draw_offer_ply = None
    theirs = (g.pending_conditional or []) if g.pending_conditional_by != color_name(color) else []
    done = walk(board_of(g), [judgement.move, *judgement.conditional], theirs)
    rows = [_row(ctx, g, ply, judgement.written or "", forwarded, counted) for ply in done.plies]
    own = [row for row, ply in zip(rows, done.plies, strict=True) if not ply.automatic]
    # 003 p1 6g: the days go to the last move the player actually played
    own[-1].days = days
    g.last_forwarded_at = forwarded
    _pending(g, color, done.theirs_left, done.mine_left, t.conditional_moves)
    events: list[ev.Event] = []
    if judgement.verdict is referee.Verdict.INCOMPLETE:
        events.extend(_note_incomplete(g, mover, own[0]))
    end = done.end or claimed
    if ctx.words.has(Word.DRAW) and end is None:
        g.draw_offer_by, g.draw_offer_ply = color_name(color), len(g.moves)
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
    row = Move(
        ply=len(g.moves) + 1,
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
    g.moves.append(row)
    return row


def _pending(
    g: Game,
    color: chess.Color,
    theirs: tuple[str, ...],
    mine: tuple[chess.Move, ...],
    allowed: bool,
) -> None:
    """What stays of the two conditional lines after the walk."""
    if theirs:
        g.pending_conditional, g.pending_conditional_by = list(theirs), color_name(not color)
    elif mine and allowed:
        g.pending_conditional = [m.uci() for m in mine]
        g.pending_conditional_by = color_name(color)
    else:
        g.pending_conditional, g.pending_conditional_by = None, None


def _note_incomplete(g: Game, mover: Player, row: Move) -> list[ev.Event]:
    """Art. 7 note 2: incomplete notation is played with a reminder; the second
    time in a game the director hears of it, without stopping play."""
    row.incomplete = True
    count = sum(1 for m in g.moves if m.incomplete and m.ply % 2 == row.ply % 2)
    return [ev.IncompleteRepeated(g.id, mover.id, count)] if count == 2 else []


def _cancel_leave_if_on_leave(g: Game, player: Player, day: datetime.date) -> None:
    """Art. 46: a move sent during leave cancels the leave in that game from that day."""
    for lv in player.leaves:
        if lv.start <= day <= lv.end and not any(c.game_id == g.id for c in lv.cancellations):
            lv.cancellations.append(LeaveCancellation(game_id=g.id, from_date=day))
