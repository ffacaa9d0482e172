"""A player's requests: ``delay``, ``claim``, ``complaint``, and ``leave`` (over all
their games)."""

from __future__ import annotations

from mailbot.desk import petitions as requests
from mailbot.desk.deadlines import play_stops_at
from mailbot.desk.handlers import steps
from mailbot.desk.handlers.context import Context
from mailbot.desk.handlers.draw import with_words
from mailbot.mail.intent import Word
from mailbot.rules import events as ev
from mailbot.rules.phrase import Phrase
from mailbot.store.models import Player
from mailbot.store.record import board_of, color_of


def _request(ctx: Context, player: Player) -> requests.Request:
    return requests.Request(ctx, player, ctx.inbound.internaldate)


def delay(ctx: Context) -> None:
    """Art. 25: the next answer will be late."""
    assert ctx.game is not None and ctx.mover is not None
    requests.delay_notice(_request(ctx, ctx.mover), ctx.game)


def claim(ctx: Context) -> None:
    """A draw claim, with or without the move that makes it, or after the end of
    the event an adjudication claim."""
    g, mover = ctx.game, ctx.mover
    assert g is not None and mover is not None
    word = ctx.words.get(Word.CLAIM)
    rest = word.rest if word is not None else ""
    req = _request(ctx, mover)
    board = board_of(g)
    with_move = (
        requests.adjudication_result(req, g, rest) is None
        and board.turn == color_of(g, mover)
        and ctx.inbound.internaldate < play_stops_at(g)
    )
    told = len(ctx.events)
    if not (with_move and steps.claim_with_move(ctx, steps.judge(ctx, g, mover, board))):
        requests.claim(req, g, rest, ctx.letter.body, ctx.tablebases)
    _words_to_the_end(ctx, told)


def _words_to_the_end(ctx: Context, told: int) -> None:
    """The words beside a claim reach the opponent in the mail of the game's end, when
    the claim ends the game: no other mail of a claim goes to the opponent (the
    director decides the others). A move played with the claim carries them already."""
    new = ctx.events[told:]
    if any(isinstance(e, ev.MovePlayed) and e.said for e in new):
        return
    assert ctx.mover is not None
    ctx.events[told:] = [
        with_words(ctx, e) if isinstance(e, ev.GameEnded) and e.answering == ctx.mover.id else e
        for e in new
    ]


def complaint(ctx: Context) -> None:
    """Art. 20, 22: the player holds that an opponent's move was impossible, incorrect
    or unclear; the director decides."""
    assert ctx.game is not None and ctx.mover is not None
    word = ctx.words.get(Word.COMPLAINT)
    rest = word.rest if word is not None else ""
    requests.complaint(_request(ctx, ctx.mover), ctx.game, rest, ctx.letter.body)


def leave(ctx: Context) -> None:
    """Art. 42-46: a leave request covers all the player's games of the tournament."""
    player = ctx.players[0]
    games = ctx.games_of(player)
    if not games:
        return
    req = _request(ctx, player)
    words = ctx.words
    if words.leave is None:
        today = ctx.inbound.internaldate.date()
        problem = words.leave_error or Phrase("leave.no-dates")
        requests.refuse_leave(req, games[0], today, today, problem)
        ctx.refuse(Phrase("reason.leave", {"problem": problem}))
        return
    start, end = words.leave
    if not requests.request_leave(req, start, end, games):
        ctx.refuse(Phrase("reason.leave-refused"))
