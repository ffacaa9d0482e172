"""What a player's or director's message asks, one small module per word.

The desk routes a message to the game it is about and hands it to
:func:`in_game`, which looks the message's first command word up in
:data:`GAME_WORDS` (like aiosmtpd's ``smtp_VERB`` methods): ``help``,
``resign``, ``accept`` and ``decline``, ``delay``, ``complaint``, ``claim``. A message with
none of these is about a move (:func:`mailbot.desk.handlers.move.move`), which
also handles ``status``, ``draw`` and a message without a move.

======================  ===========================================
module                  handles
======================  ===========================================
``answers``             help, status, strangers, unknown games, secrets, unreadable mail
``move``                a move: judged, played (with conditional lines) or refused
``draw``                draw offers: ``draw``, ``accept``, ``decline``
``resign``              ``resign``
``requests``            ``delay``, ``claim``, ``complaint``, ``leave``
``digest``              ``digest on|off``: one daily mail instead of a mail per move
``orders``              the director's orders, held orders, others' orders
======================  ===========================================
"""

from __future__ import annotations

from collections.abc import Callable

from mailbot.desk.handlers import answers, draw, move, requests, resign
from mailbot.desk.handlers.context import Context
from mailbot.desk.sweep import play_stops_at
from mailbot.mail.intent import Word
from mailbot.rules import events as ev

Handler = Callable[[Context], None]

#: The words that, in a message about a game, decide what it asks (in this order).
GAME_WORDS: tuple[tuple[Word, Handler], ...] = (
    (Word.RESIGN, resign.resign),
    (Word.ACCEPT, draw.answer),
    (Word.DECLINE, draw.answer),
    (Word.DELAY, requests.delay),
    (Word.COMPLAINT, requests.complaint),
    (Word.CLAIM, requests.claim),
)


def in_game(ctx: Context) -> None:
    """A player's message about their game (``ctx.game``, ``ctx.mover``)."""
    g, mover = ctx.game, ctx.mover
    assert g is not None and mover is not None
    if ctx.words.has(Word.HELP):
        answers.help_(ctx)
        return
    if g.result is not None:
        ctx.refuse("game already finished", ctx.answer(ev.AnswerKind.GAME_FINISHED))
        return
    handler = next((h for word, h in GAME_WORDS if ctx.words.has(word)), None)
    if handler is not None:
        handler(ctx)
        return
    if ctx.inbound.internaldate >= play_stops_at(g) or mover.withdrawn_at is not None:
        # the game waits for the arbiter (art. 52-53, a withdrawal): no more moves
        answer = ctx.answer(ev.AnswerKind.ADJUDICATION_PENDING)
        ctx.refuse("the game waits for adjudication", answer)
        return
    move.move(ctx)
