"""The desk's *route* stage: which handler a message goes to.

Unreadable mail is answered as such, a director's orders go to
:mod:`~mailbot.desk.handlers.orders`, and a message someone else's orders
would be is refused. Then the message's command words decide, by the one
table :data:`ROUTES` (like Mailman 3's pipelines, a tuple in the order its
rows decide), each row a word, the stage at which it decides and its
handler. A player's word about all their games (``leave``, ``digest``)
decides before the game is sought; the others once the message is placed in
a game (:func:`which_game`) and the sender shown to play in it. A message
none of the words decides is about a move (:func:`mailbot.desk.handlers.move.move`).

Adding a command word takes a :class:`~mailbot.mail.intent.Word` (with its
spellings), a handler module, its templates and one row here.
"""

from __future__ import annotations

import enum
from collections.abc import Callable

from sqlalchemy import select
from sqlalchemy.orm import contains_eager, joinedload

from mailbot.desk.deadlines import play_stops_at
from mailbot.desk.handlers import answers, draw, move, orders, preferences, requests, resign, steps
from mailbot.desk.handlers.context import Context
from mailbot.desk.handlers.warnings import pgn_word, warnings_word
from mailbot.desk.handlers.xfccword import xfcc_password
from mailbot.mail.intent import Word, read_words
from mailbot.rules import events as ev
from mailbot.rules import referee
from mailbot.rules.phrase import Phrase
from mailbot.store.engine import recent
from mailbot.store.models import Game, Outbox, Tournament
from mailbot.store.received import link_game

Handler = Callable[[Context], None]


class Stage(enum.Enum):
    """Where in a message's way a word decides what it asks."""

    #: A player's word over all their games, before the game is sought.
    SENDER = "sender"
    #: In the message's game, even a finished one.
    GAME = "game"
    #: In a game still going.
    PLAYING = "playing"
    #: In a game still going, from a message that holds no move.
    NO_MOVE = "no move"


#: The command words in the order they decide what a message asks: the first
#: the message carries, of those of the stage it has reached, takes it.
ROUTES: tuple[tuple[Word, Stage, Handler], ...] = (
    (Word.LEAVE, Stage.SENDER, requests.leave),
    (Word.DIGEST, Stage.SENDER, preferences.digest),
    (Word.WARNINGS, Stage.SENDER, warnings_word),
    (Word.XFCC, Stage.SENDER, xfcc_password),
    (Word.PGN, Stage.SENDER, pgn_word),
    (Word.HELP, Stage.GAME, answers.help_),
    (Word.RESIGN, Stage.PLAYING, resign.resign),
    (Word.ACCEPT, Stage.PLAYING, draw.answer),
    (Word.DECLINE, Stage.PLAYING, draw.answer),
    (Word.DELAY, Stage.PLAYING, requests.delay),
    (Word.COMPLAINT, Stage.PLAYING, requests.complaint),
    (Word.CLAIM, Stage.PLAYING, requests.claim),
    (Word.STATUS, Stage.NO_MOVE, answers.status),
    (Word.DRAW, Stage.NO_MOVE, draw.offer),
)


def handler_for(ctx: Context, stage: Stage) -> Handler | None:
    """The handler of the first word of ``stage`` the message carries, if any.

    >>> from mailbot.mail.intent import read_words
    >>> ctx = Context.__new__(Context)
    >>> ctx.words = read_words("accept\\nresign")
    >>> handler_for(ctx, Stage.PLAYING) is resign.resign, handler_for(ctx, Stage.SENDER)
    (True, None)
    """
    return next((h for word, at, h in ROUTES if at is stage and ctx.words.has(word)), None)


def route(ctx: Context) -> None:
    """To the handler the message is for: orders, a player's word, a game, or an answer."""
    letter = ctx.letter
    if ctx.known and (not letter.readable or (letter.garbled and not letter.body.strip())):
        answers.unreadable(ctx)
        return
    if ctx.directed and orders.orders(ctx):
        return
    ctx.words = read_words(letter.body)
    if not ctx.directed and orders.refuse_others(ctx):
        return
    handler = handler_for(ctx, Stage.SENDER) if ctx.players else None
    if handler is not None:
        if not answers.secret_missing(ctx, ctx.players[0]):
            handler(ctx)
        return
    g, tag_problem = which_game(ctx)
    if g is None:
        answers.without_game(ctx, tag_problem)
        return
    link_game(ctx.inbound, g.id)
    ctx.game = g
    ctx.mover = next((p for p in (g.white, g.black) if p.writes_from(ctx.sender)), None)
    if ctx.mover is None:
        answers.stranger(ctx, g)
    elif not answers.secret_missing(ctx, ctx.mover):
        in_game(ctx)


def in_game(ctx: Context) -> None:
    """A player's message about their game (``ctx.game``, ``ctx.mover``)."""
    g, mover = ctx.game, ctx.mover
    assert g is not None and mover is not None
    handler = handler_for(ctx, Stage.GAME)
    if handler is None and g.result is not None:
        ctx.refuse(Phrase("reason.finished"), ctx.answer(ev.AnswerKind.GAME_FINISHED))
        return
    handler = handler or handler_for(ctx, Stage.PLAYING)
    if handler is None and (
        ctx.inbound.internaldate >= play_stops_at(g) or mover.withdrawn_at is not None
    ):
        # the game waits for the arbiter (art. 52-53, a withdrawal): no more moves
        answer = ctx.answer(ev.AnswerKind.ADJUDICATION_PENDING)
        ctx.refuse(Phrase("reason.adjudication"), answer)
        return
    judgement = steps.judged(ctx) if handler is None else None
    # a copy of the game that differs is answered as such, whatever words it carries
    if judgement is not None and judgement.verdict is referee.Verdict.NO_MOVE:
        handler = (
            None if judgement.reason_code == "copy-differs" else handler_for(ctx, Stage.NO_MOVE)
        )
    (handler or move.move)(ctx)


def which_game(ctx: Context) -> tuple[Game | None, str | None]:
    """The game a message is about: subject tag, else thread, else the only one to move."""
    session, letter = ctx.session, ctx.letter
    if letter.game_tag:
        index, _, number = letter.game_tag.rpartition("/")
        g = (
            recent(session).games.get((index, int(number)))
            or session.scalars(
                select(Game)
                .join(Game.tournament)
                .where(Tournament.index == index, Game.number == int(number))
                # the tournament and both players in the same query: every move reads them
                .options(
                    contains_eager(Game.tournament),
                    joinedload(Game.white),
                    joinedload(Game.black),
                )
            ).first()
        )
        return (g, None) if g is not None else (None, letter.game_tag)
    thread = [*letter.in_reply_to, *letter.references]
    if thread:
        row = session.scalars(
            select(Outbox)
            .where(Outbox.message_id.in_(thread), Outbox.game_id.is_not(None))
            .order_by(Outbox.id.desc())
        ).first()
        if row is not None and row.game is not None:
            return row.game, None
    to_move = [
        g
        for p in ctx.players
        for g in ctx.games_of(p)
        if g.result is None and (g.white if len(g.moves) % 2 == 0 else g.black).id == p.id
    ]
    return (to_move[0], None) if len(to_move) == 1 else (None, None)
