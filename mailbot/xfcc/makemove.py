"""``MakeAMove``: a message received at the request's time, through the desk.

What the request asks is checked first against the game as it stands: the
game (``InvalidGameID``, ``NotYourGame``), its end (``LostOnTime``), the
player's leave, the turn and the move number, the draw offer to accept, and
the move itself: one the board refuses is ``InvalidMove`` and nothing is
recorded (rules.md 2.4: a move refused at the arbiter's board was never
sent). What passes becomes a message, as a mail with that move and those
words would be (``N. move`` in the player's notation, ``draw``, ``claim``,
``resign`` or ``accept``, and ``myMessage`` beside it), handed to
:meth:`~mailbot.desk.pipeline.Desk.receive` with the request's time as its
arrival: the same judgment, dates, clock, notices and evidence as a mail.

Its bytes are made from the player, the game, the game's length when the
request came and what it asks, and nothing else: the same request sent
twice at once (a client that retries after a timeout, two workers on one
PostgreSQL) is one message to the desk, which plays it once; a request sent
again after it was played finds the game moved on (``NotYourTurn`` or
``InvalidMoveNumber``).
"""

from __future__ import annotations

import datetime
import hashlib
import logging
from email.message import EmailMessage
from zoneinfo import ZoneInfo

import chess
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from mailbot.desk.pipeline import Desk, Outcome
from mailbot.mail.inbox import Fetched
from mailbot.rules.game import Termination
from mailbot.rules.notation import write_move
from mailbot.store.kinds import InboundStatus
from mailbot.store.models import Game, InboundMessage, Move, Player
from mailbot.store.queries import players_writing_from
from mailbot.store.record import (
    board_of,
    color_name,
    color_of,
    local_date,
    notation_for,
    player_leaves,
    tag_of,
)
from mailbot.xfcc.soap import MakeAMove, MoveResult

log = logging.getLogger(__name__)

#: The folder the store notes for a message that came by Xfcc.
FOLDER = "Xfcc"
#: Why the desk refused a message, as Xfcc says it.
_REFUSALS = {
    "reason.not-your-move": MoveResult.NOT_YOUR_TURN,
    "reason.repeats": MoveResult.NOT_YOUR_TURN,
    "reason.no-move": MoveResult.INVALID_MOVE,
}


def _parse(board: chess.Board, text: str) -> chess.Move | None:
    """The move ``text`` (SAN, or UCI as some programs send it) in ``board``, if legal."""
    for read in (board.parse_san, board.parse_uci):
        try:
            return read(text.strip())
        except ValueError:
            continue
    return None


def words_of(g: Game, me: Player, request: MakeAMove) -> MoveResult | str:
    """What the request says, as a player's mail would say it; or why it is refused
    before any message is made."""
    mine = color_of(g, me)
    board = board_of(g)
    number = len(g.moves) // 2 + 1
    offer = g.draw_offer_by == color_name(not mine)
    if request.resign:
        return "resign"
    if request.accept_draw:
        return "accept" if offer else MoveResult.NO_DRAW_WAS_OFFERED
    if request.claim_draw and (board.turn != mine or not request.move.strip()):
        return "claim"
    if board.turn != mine:
        return MoveResult.NOT_YOUR_TURN
    if request.movecount != number:
        return MoveResult.INVALID_MOVE_NUMBER
    move = _parse(board, request.move)
    if move is None:
        return MoveResult.INVALID_MOVE
    written = write_move(board, move, notation_for(me))
    said = f"{number}. {written}" if mine == chess.WHITE else f"{number}... {written}"
    flags = (" draw" if request.offer_draw else "") + (" claim" if request.claim_draw else "")
    return said + flags


def message(address: str, g: Game, request: MakeAMove, said: str, authserv_id: str | None) -> bytes:
    """The message the desk receives for ``request`` (see the module on its bytes)."""
    msg = EmailMessage()
    msg["From"] = address
    msg["To"] = "xfcc"
    msg["Subject"] = f"[{tag_of(g)}] Xfcc"
    fields = f"{address}|{g.id}|{len(g.moves)}|{said}|{request.message}"
    key = hashlib.sha256(fields.encode("utf-8")).hexdigest()[:32]
    msg["Message-ID"] = f"<xfcc-{key}@xfcc.invalid>"
    if authserv_id:
        # the password vouched for the sender, as DMARC does for a mail
        domain = address.rpartition("@")[2]
        msg["Authentication-Results"] = f"{authserv_id}; dmarc=pass header.from={domain}"
    msg["X-Xfcc-Request"] = (
        f"MakeAMove gameId={request.game_id} movecount={request.movecount}"
        f" myMove={request.move[:20]!r} resign={request.resign} acceptDraw={request.accept_draw}"
        f" offerDraw={request.offer_draw} claimDraw={request.claim_draw} ply={len(g.moves)}"
    )
    msg.set_content(f"{said}\n\n{request.message}".rstrip() + "\n")
    return msg.as_bytes()


def _checked(session: Session, address: str, request: MakeAMove, now: datetime.datetime,
             authserv_id: str | None) -> MoveResult | bytes:  # fmt: skip
    """The refusal of ``request``, or the message to hand to the desk."""
    g = session.get(Game, request.game_id)
    if g is None:
        return MoveResult.INVALID_GAME_ID
    mine = [p for p in players_writing_from(session, address) if p.id in (g.white_id, g.black_id)]
    if not mine:
        return MoveResult.NOT_YOUR_GAME
    me = mine[0]
    if g.result is not None:
        lost = g.termination == Termination.TIME_FORFEIT.value and g.result.winner != color_of(
            g, me
        )
        return MoveResult.LOST_ON_TIME if lost else MoveResult.NOT_YOUR_TURN
    today = local_date(now, ZoneInfo(g.tournament.timezone))
    if any(lv.start <= today <= lv.end for lv in player_leaves(me, g)):
        return MoveResult.YOU_ARE_ON_LEAVE
    said = words_of(g, me, request)
    if isinstance(said, MoveResult):
        return said
    return message(address, g, request, said, authserv_id)


def _result(session: Session, raw: bytes) -> MoveResult:
    """What the desk made of the message ``raw``."""
    row = session.scalars(
        select(InboundMessage).where(InboundMessage.raw_sha256 == hashlib.sha256(raw).hexdigest())
    ).first()
    if row is None or row.status in (InboundStatus.NEW, InboundStatus.QUARANTINED):
        return MoveResult.SERVER_ERROR
    if row.status == InboundStatus.PROCESSED:
        return MoveResult.SUCCESS
    code = (row.reason_phrase or {}).get("code", "")
    return _REFUSALS.get(code, MoveResult.SERVER_ERROR)


def make_a_move(
    sessions: sessionmaker[Session],
    desk: Desk,
    address: str,
    request: MakeAMove,
    now: datetime.datetime,
) -> MoveResult:
    """Play ``request`` of the authenticated ``address`` at ``now``."""
    with sessions() as session:
        checked = _checked(session, address, request, now, desk.policy.authserv_id)
    if isinstance(checked, MoveResult):
        return checked
    fetched = Fetched(FOLDER, 0, 0, checked, now)
    outcome = desk.receive(fetched, now)
    if outcome is Outcome.FAILED:
        # another worker played this game's ply first: the game has moved on
        outcome = desk.receive(fetched, now)
    with sessions() as session:
        if outcome is Outcome.DUPLICATE:
            played = session.scalars(
                select(Move.id)
                .join(InboundMessage, Move.inbound_id == InboundMessage.id)
                .where(InboundMessage.raw_sha256 == hashlib.sha256(checked).hexdigest())
            ).first()
            if played is not None:
                return MoveResult.NOT_YOUR_TURN
        return _result(session, checked)
