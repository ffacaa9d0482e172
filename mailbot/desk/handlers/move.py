"""A move: judged by the referee, then played (with the conditional lines) or refused.

The words a message without a move may carry instead (``status``, ``draw``)
are routed before it comes here (:data:`mailbot.desk.routes.ROUTES`). It may
not be the sender's turn, the move may be impossible, incorrect or unclear
(+5 days, art. 17-19), or the message may be old mail sent again; else the
move is played (:func:`mailbot.desk.handlers.steps.play`).
"""

from __future__ import annotations

import datetime
import email.policy
import email.utils
import functools
from email.parser import BytesHeaderParser
from zoneinfo import ZoneInfo

import chess
from sqlalchemy import Select, bindparam, select

from mailbot.desk.handlers import steps
from mailbot.desk.handlers.context import Context
from mailbot.rules import events as ev
from mailbot.rules import referee
from mailbot.rules.phrase import Phrase
from mailbot.store.engine import recent
from mailbot.store.models import InboundMessage
from mailbot.store.record import (
    board_of,
    color_of,
    example_for,
    local_date,
    move_line,
    notation_for,
)


def move(ctx: Context) -> None:
    """The message's move (one without a move is told how to write one)."""
    g, mover = ctx.game, ctx.mover
    assert g is not None and mover is not None
    board = board_of(g)
    color = color_of(g, mover)
    judgement = steps.judged(ctx)
    has_move = judgement.verdict is not referee.Verdict.NO_MOVE
    earlier = repeated(ctx, judgement, board.turn == color) if has_move else None
    if earlier is not None:
        tz = ZoneInfo(g.tournament.timezone)
        answer = ctx.answer(
            ev.AnswerKind.REPEATED_MESSAGE, date=local_date(earlier.internaldate, tz)
        )
        ctx.refuse(Phrase("reason.repeats", {"message": earlier.id}), answer)
    elif board.turn != color:
        last = len(g.moves)
        tz = ZoneInfo(g.tournament.timezone)
        line = move_line(g, last, notation_for(mover), tz) if last else None
        opponent = g.black if color == chess.WHITE else g.white
        answer = ctx.answer(ev.AnswerKind.NOT_YOUR_MOVE, line=line, opponent=opponent.name)
        ctx.refuse(Phrase("reason.not-your-move"), answer)
    elif judgement.reason_code == "copy-differs":
        # docs/rules.md 2.4: nothing is played and nothing charged; the player sees where
        answer = ctx.answer(ev.AnswerKind.COPY_DIFFERS, **judgement.details)
        ctx.refuse(steps.reason_of(judgement), answer)
    elif not has_move:
        example = example_for(board, mover)
        ctx.refuse(Phrase("reason.no-move"), ctx.answer(ev.AnswerKind.NO_MOVE, example=example))
    elif judgement.penalised:
        steps.reject(ctx, judgement)
    else:
        steps.play(ctx, judgement)


@functools.cache
def _earlier() -> Select[int]:
    """The newest of the messages ``acted`` with the text ``mark``, other than ``me``."""
    return (
        select(InboundMessage.id)
        .where(
            InboundMessage.text_sha256 == bindparam("mark"),
            InboundMessage.id != bindparam("me"),
            InboundMessage.id.in_(bindparam("acted", expanding=True)),
        )
        .order_by(InboundMessage.id.desc())
        .limit(1)
    )


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
    # (a message's text and id are written when it is recorded); what a batch read of
    # its texts answers, else the text's index, and the row is loaded only when the
    # game has moved on since
    same = recent(ctx.session).texts.get(mark)
    if same is not None:
        found = max((i for i in same if i in acted and i != ctx.inbound.id), default=None)
    else:
        with ctx.session.no_autoflush:
            found = ctx.session.scalar(
                _earlier(), {"mark": mark, "me": ctx.inbound.id, "acted": sorted(acted)}
            )
    if found is None or not any((m.inbound_id or 0) > found for m in g.moves):
        return None  # the game has not moved on since: the message is judged as ever
    with ctx.session.no_autoflush:
        earlier = ctx.session.get(InboundMessage, found)
    assert earlier is not None  # read in this transaction
    if letter.date_header is not None and letter.date_header == _written(earlier):
        return earlier
    misnumbered = any(r.code == "wrong-move-number" for r in judgement.reminders)
    return earlier if not to_move or judgement.penalised or misnumbered else None
