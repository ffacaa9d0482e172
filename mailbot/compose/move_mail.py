"""What a move says: the move to the opponent and its acceptance to the mover, a
rejected move, a draw offered or declined, the end of the game, and the director's
notices of a player who keeps writing what cannot be played.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import chess

from mailbot.compose.gamemail import game_summary, orientation, pgn_file
from mailbot.compose.messages import director_notice, game_mail, notice
from mailbot.mail.attachments import Attachment
from mailbot.rules import events as ev
from mailbot.rules import referee
from mailbot.rules.game import GameEnd
from mailbot.rules.notation import Notation, write_line, write_move
from mailbot.store.kinds import MailEvent
from mailbot.store.models import Game, Player
from mailbot.store.record import (
    MoveLine,
    board_of,
    color_name,
    color_of,
    control_of,
    example_for,
    export_pgn,
    language_for,
    move_line,
    notation_for,
    pgn_result,
    totals,
    write_pair_from,
)

if TYPE_CHECKING:
    from mailbot.compose.notifier import Notifier


def move_played(n: Notifier, e: ev.MovePlayed) -> None:
    g = n.game(e.game)
    mover = n.player(e.mover)
    color = color_of(g, mover)
    opponent = g.black if color == chess.WHITE else g.white
    tz = ZoneInfo(g.tournament.timezone)
    board = board_of(g, stack=1)
    last = len(g.moves)
    last_own = max((p for p in range(e.first_ply, last + 1) if p not in e.automatic), default=last)
    written: dict[Notation, tuple[MoveLine, str]] = {}  # both players often share one
    files: dict[str, tuple[Attachment, ...]] = {}  # and often a language: one PGN file
    for recipient, reply in ((opponent, False), (mover, True)):
        if recipient is opponent and opponent.digest:
            continue  # the move goes in the opponent's daily digest
        style = notation_for(recipient)
        if style not in written:
            written[style] = (
                move_line(g, last, style, tz, first_ply=max(1, e.first_ply - 1)),
                # the mover's own moves; what a conditional line answered is told apart
                write_pair_from(g, e.first_ply, style, upto=last_own),
            )
        line, moved = written[style]
        context: dict[str, Any] = {
            "recipient": recipient.name,
            "opponent": (mover if recipient is opponent else opponent).name,
            "opponent_gender": (mover if recipient is opponent else opponent).gender,
            "moved": moved,
            "line": line,
            "draw_offer": e.draw_offered,
            **_to_move(g, board, recipient),
        }
        automatic = ", ".join(write_pair_from(g, ply, style, upto=ply) for ply in e.automatic)
        if recipient is opponent:
            context["said"] = e.said
            context["answered"] = automatic
            template, event = "move", MailEvent.MOVE
        else:
            template, event = "move-accepted", MailEvent.MOVE_ACCEPTED
            context["automatic"] = automatic
            context["conditional"] = _line(board, e.conditional, style)
            context["reminders"] = [
                referee.explain_reminder(r, language_for(mover)) for r in e.reminders
            ]
        game_mail(
            n,
            g,
            template=template,
            language=language_for(recipient),
            context=context,
            to=[recipient.email],
            event=event,
            reply=reply,
            board=board,
            orientation=color_of(g, recipient),
            attachments=pgn_file(g, recipient, n.sender, files),
        )


def _to_move(g: Game, board: chess.Board, reader: Player) -> dict[str, Any]:
    """Whether it is the reader's move (a conditional line may have answered the move:
    then it is the mover's), and if so the reader's clock and an example move."""
    your_move = board.turn == color_of(g, reader)
    control = None
    if your_move:
        state = control_of(g, board.turn)
        control = {
            "used": state.used_days,
            "limit": state.limit_days,
            "control_move": state.next_control_move,
            "left": state.days_left,
        }
    return {
        "control": control,
        "example": example_for(board, reader) if your_move else "",
        "your_move": your_move,
    }


def move_rejected(n: Notifier, e: ev.MoveRejected) -> None:
    g = n.game(e.game)
    mover = n.player(e.mover)
    color = color_of(g, mover)
    tz = ZoneInfo(g.tournament.timezone)
    board = board_of(g, stack=1)
    style = notation_for(mover)
    judgement = e.judgement
    sums = totals(g)
    # art. 19: the legal moves of the piece the player tried to move; an unclear
    # move's reason already names the readings
    legal = (
        [write_move(board, m, style) for m in judgement.legal_alternatives]
        if judgement.verdict is referee.Verdict.IMPOSSIBLE
        else []
    )
    last = len(g.moves)
    game_mail(
        n,
        g,
        template="move-rejected",
        language=language_for(mover),
        context={
            "recipient": mover.name,
            "verdict": judgement.verdict.value,
            "reason": referee.explain(judgement, language_for(mover)),
            "written": judgement.written,
            "legal": legal,
            "penalty": e.penalty,
            "white_total": sums.white,
            "black_total": sums.black,
            "last_line": move_line(g, last, style, tz) if last else None,
        },
        to=[mover.email],
        event=MailEvent.MOVE_REJECTED,
        reply=True,
        board=board,
        orientation=color,
        # the header names days added; a garbled message adds none
        extra={"X-Mailbot-Penalty": f"{color_name(color)}={e.penalty}"} if e.penalty else None,
    )


def incomplete(n: Notifier, e: ev.IncompleteRepeated) -> None:
    g = n.game(e.game)
    player = n.player(e.player)
    details = {"player": player.name, "player_gender": player.gender, "count": e.count}
    director_notice(n, g, "incomplete-reported", details)


def rejections(n: Notifier, e: ev.RejectionsRepeated) -> None:
    g = n.game(e.game)
    player = n.player(e.player)
    details = {
        "player": player.name,
        "player_gender": player.gender,
        "color": color_name(color_of(g, player)),
        "count": e.count,
        "days": e.days,
    }
    director_notice(n, g, "rejections-reported", details)


def draw_offered(n: Notifier, e: ev.DrawOffered) -> None:
    g = n.game(e.game)
    mover = n.player(e.by)
    opponent = g.black if mover.id == g.white_id else g.white
    for recipient, other, reply in ((opponent, mover, False), (mover, opponent, True)):
        game_mail(
            n,
            g,
            template="draw-offer",
            language=language_for(recipient),
            context={
                "recipient": recipient.name,
                "opponent": other.name,
                "opponent_gender": other.gender,
                "yours": recipient.id == mover.id,
                "said": "" if recipient.id == mover.id else e.said,
            },
            to=[recipient.email],
            event=MailEvent.DRAW_OFFER,
            reply=reply,
        )


def draw_declined(n: Notifier, e: ev.DrawDeclined) -> None:
    g = n.game(e.game)
    mover = n.player(e.by)
    opponent = g.black if mover.id == g.white_id else g.white
    told_opponent = {"opponent": mover.name, "opponent_gender": mover.gender, "said": e.said}
    notice(n, g, opponent, "draw-declined", told_opponent, reply=False)
    told = {"opponent": opponent.name, "opponent_gender": opponent.gender}
    notice(n, g, mover, "you-declined", told, reply=True)


def game_ended(n: Notifier, e: ev.GameEnded) -> None:
    """The PGN to both players and the TD (art. 51)."""
    g = n.game(e.game)
    t = g.tournament
    end = e.end
    board = board_of(g, stack=1)
    sums = totals(g)
    recipients: list[tuple[str, str, str, Player | None]] = [
        (g.white.email, g.white.name, language_for(g.white), g.white),
        (g.black.email, g.black.name, language_for(g.black), g.black),
        (t.director_email, t.director_name, t.language, None),
    ]
    tz = ZoneInfo(t.timezone)
    said_to = None if e.answering is None else _opponent_of(g, e.answering)
    for address, name, language, player in recipients:
        answering = e.answering is not None and player is not None and player.id == e.answering
        style = notation_for(player) if player is not None else Notation(t.notation)
        # the move that ended the game is carried like every other (art. 8)
        line = (
            move_line(g, len(g.moves), style, tz, first_ply=max(1, e.first_ply - 1))
            if e.first_ply is not None and g.moves
            else None
        )
        game_mail(
            n,
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
                # the comments in the reader's words; the dates stay in [%ccsnt]
                "pgn": export_pgn(g, end, language),
                "line": line,
                "about_you": player is not None and _about(g, end, player),
                "said": e.said if player is not None and player.id == said_to else "",
                "opponent": _opponent_name(g, player),
            },
            to=[address],
            event=MailEvent.GAME_OVER,
            board=board,
            orientation=orientation(g, player),
            reply=answering,
        )


def _opponent_of(g: Game, player: int) -> int:
    return g.black_id if player == g.white_id else g.white_id


def _opponent_name(g: Game, player: Player | None) -> str:
    if player is None:
        return ""
    return (g.black if player.id == g.white_id else g.white).name


#: The ends an order of the director brings on one player: told to that player as "you".
#: The endings the loser reads of in the second person ("you resigned"), not by colour.
_YOURS = frozenset({"forfeit", "withdrawal", "resignation", "time-forfeit", "silence"})


def _about(g: Game, end: GameEnd, player: Player) -> bool:
    """Whether the game ended because of ``player``: resigned, lost on time or by
    silence, forfeited or withdrawn by the director's order (the game lost or
    annulled); the mail to them says so in the second person."""
    if end.termination.value == "annulled":
        return player.withdrawn_at is not None
    return (
        end.termination.value in _YOURS
        and end.winner is not None
        and color_of(g, player) != end.winner
    )


def _line(board: chess.Board, uci: Sequence[str], style: Notation) -> str:
    """A conditional line, from the position on ``board``, as the reader writes moves."""
    try:
        return write_line(board, [chess.Move.from_uci(u) for u in uci], style)
    except (ValueError, chess.IllegalMoveError):
        return " ".join(uci)
