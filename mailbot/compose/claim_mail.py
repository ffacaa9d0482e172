"""What a claim says: the packet to the director (art. 36), the notices to both
players, the director's decision, and the adjudication of a game left unfinished.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import chess

from mailbot.compose.gamemail import captains_of, director_reading, game_summary, orientation
from mailbot.compose.messages import director_notice, game_mail, reply_in_game, to_players
from mailbot.rules import events as ev
from mailbot.rules.notation import Notation, write_move
from mailbot.rules.phrase import Phrase
from mailbot.store.kinds import MailEvent
from mailbot.store.models import Claim, Game, Player
from mailbot.store.record import (
    board_of,
    color_name,
    color_of,
    export_pgn,
    language_for,
    local_date,
    profile_of,
    totals,
)

if TYPE_CHECKING:
    from mailbot.compose.notifier import Notifier


def claim_opened(n: Notifier, e: ev.ClaimOpened) -> None:
    """The packet to the TD and a notice to both players."""
    g = n.game(e.game)
    claim = n.session.get(Claim, e.claim)
    assert claim is not None
    against = n.player(e.against)
    t = g.tournament
    tz = ZoneInfo(t.timezone)
    board = board_of(g, stack=1)
    kind = claim.kind
    event = MailEvent(kind)  # a silence or overstep claim: its event has the claim's name
    due = e.due.astimezone(tz).date()
    base = {
        "kind": kind,
        "against": against.name,
        "against_gender": against.gender,
        "against_color": "white" if against.id == g.white_id else "black",
        "due": due,
        "game": game_summary(g),
        "claim": claim.id,
        "auto": claim.status != "open",
        "details": dict(e.details),
    }
    game_mail(
        n,
        g,
        template="claim",
        language=t.language,
        context={
            **base,
            **director_reading(t),
            "audience": "director",
            **packet_context(g),
            "pgn": export_pgn(g),
        },
        to=[t.director_email],
        cc=captains_of(g),
        event=event,
        board=board,
        extra={"X-Mailbot-Claim": str(claim.id), "X-Mailbot-Due": due.isoformat()},
    )
    for player in (g.white, g.black):
        audience = "you" if player.id == against.id else "opponent"
        game_mail(
            n,
            g,
            template="claim",
            language=language_for(player),
            context={**base, "recipient": player.name, "audience": audience},
            to=[player.email],
            event=event,
            board=board,
            orientation=orientation(g, player),
            extra={"X-Mailbot-Due": due.isoformat()},
        )


def draw_claimed(n: Notifier, e: ev.DrawClaimed) -> None:
    g = n.game(e.game)
    details = {"player": n.player(e.player).name, "reason": e.reason, "fen": e.fen}
    director_notice(
        n,
        g,
        "draw-claim",
        details,
        board=board_of(g, stack=1),
        extra={"X-Mailbot-Claim": str(e.claim)},
    )


def tablebase_claimed(n: Notifier, e: ev.TablebaseClaimed) -> None:
    """003 part 1 art. 11b: the claim, with the tables' verdict, to the director."""
    g = n.game(e.game)
    player = n.player(e.player)
    board = board_of(g, stack=1)
    v = e.verdict
    details = {
        "player": player.name,
        "colour": color_name(color_of(g, player)),
        "fen": board.fen(),
        "installed": v.installed,
        "pieces": v.pieces,
        "outcome": v.outcome.value if v.outcome is not None else None,
        "cursed": v.cursed,
        "dtz": v.dtz,
    }
    director_notice(
        n,
        g,
        "tablebase-claim",
        details,
        board=board,
        extra={"X-Mailbot-Claim": str(e.claim)},
    )


def complaint_made(n: Notifier, e: ev.ComplaintMade) -> None:
    """Art. 20, 22: the complaint goes to the director; both players hear of it."""
    g = n.game(e.game)
    player = n.player(e.player)
    claim = n.session.get(Claim, e.claim)
    assert claim is not None
    days = profile_of(g.tournament).penalty_days
    said = str(claim.details.get("said", ""))
    details = {"player": player.name, "move": e.move, "days": days, "said": said}
    director_notice(
        n,
        g,
        "complaint",
        details,
        board=board_of(g, e.ply - 1, stack=False),
        extra={"X-Mailbot-Claim": str(e.claim)},
    )
    to_players(n,
        g, "notice", MailEvent.NOTICE,
        lambda p: {"kind": "complaint-sent", "player": player.name, "move": e.move,
                   "days": days, "yours": p.id == player.id,
                   "game": game_summary(g, p)},
    )  # fmt: skip


def claim_answered(n: Notifier, e: ev.ClaimAnswered) -> None:
    g = n.game(e.game)
    player = n.player(e.player)
    context = {"kind": "claim-answer", "status": e.status, "reason": e.reason,
               "game": game_summary(g, player)}  # fmt: skip
    reply_in_game(n, g, player, "notice", context, MailEvent.NOTICE)


def director_decided(n: Notifier, e: ev.DirectorDecided) -> None:
    """Both players hear what the director decided."""
    g = n.game(e.game)
    to_players(n,
        g, "notice", MailEvent.NOTICE,
        lambda p: {"kind": "director", "decision": _to_you(e.decision, g, p),
                   "game": game_summary(g, p)},
    )  # fmt: skip


def adjudication_called(n: Notifier, e: ev.AdjudicationCalled) -> None:
    g = n.game(e.game)
    context = {"kind": "call", "end": e.end, "due": e.due}
    to_players(n, g, "adjudication", MailEvent.NOTICE, lambda p: context)


def withdrawal_called(n: Notifier, e: ev.WithdrawalCalled) -> None:
    """Art. 48, 52 note 1: the game goes to the arbiter; both players send a claim."""
    g = n.game(e.game)
    withdrawn = n.player(e.withdrawn)
    context = {"kind": "withdrawal", "player": withdrawn.name,
               "player_gender": withdrawn.gender, "due": e.due}  # fmt: skip
    # the withdrawn player reads of the withdrawal in the second person
    to_players(n, g, "adjudication", MailEvent.NOTICE,
               lambda p: {**context, "about_you": p.id == withdrawn.id})  # fmt: skip


def adjudication_packet(n: Notifier, e: ev.AdjudicationPacket) -> None:
    g = n.game(e.game)
    claim = n.session.get(Claim, e.claim)
    assert claim is not None
    t = g.tournament
    game_mail(
        n,
        g,
        template="adjudication",
        language=t.language,
        context={
            "kind": "packet",
            **director_reading(t),
            "white_claim": claim.details.get("white"),
            "black_claim": claim.details.get("black"),
            "white_analysis": claim.details.get("white_analysis", ""),
            "black_analysis": claim.details.get("black_analysis", ""),
            "pgn": export_pgn(g),
            "claim": claim.id,
            "end": (t.extended_to or t.end),
            "due": e.due,
        },
        to=[t.director_email],
        event=MailEvent.NOTICE,
        board=board_of(g, stack=1),
        extra={"X-Mailbot-Claim": str(claim.id)},
    )


def adjudication_claimed(n: Notifier, e: ev.AdjudicationClaimed) -> None:
    g = n.game(e.game)
    context = {"kind": "received", "result": e.result, "due": e.due}
    reply_in_game(n, g, n.player(e.player), "adjudication", context, MailEvent.NOTICE)


def _to_you(decision: Phrase, g: Game, player: Player) -> Phrase:
    """A decision about one colour, told to that colour's player in the second person."""
    colour = decision.details.get("colour")
    if colour is not None and colour == color_name(color_of(g, player)):
        return Phrase(f"{decision.code}-you", decision.details)
    return decision


def packet_context(g: Game) -> dict[str, Any]:
    """The claim packet of art. 36: every move (in the game's notation, in full) with its
    dates and days, the penalties, both totals."""
    tz = ZoneInfo(g.tournament.timezone)
    style = Notation(g.tournament.notation)
    replay = chess.Board()
    rows = []
    for m in g.moves:
        move = chess.Move.from_uci(m.uci)
        rows.append(
            {
                "ply": m.ply,
                "number": (m.ply + 1) // 2,
                "color": "white" if m.ply % 2 else "black",
                "move": write_move(replay, move, style),
                "received": m.received_counted_on,
                "sent": local_date(m.sent_at, tz),
                "days": m.days,
                "automatic": m.automatic,
            }
        )
        replay.push(move)
    sums = totals(g)
    penalties = [
        Phrase("packet.penalty", {"colour": p.color, "days": p.days, "ply": p.ply_at,
                                  "reason": Phrase(f"penalty-reason.{p.reason}")})
        for p in g.penalties
    ]  # fmt: skip
    return {
        "rows": rows,
        "white_total": sums.white,
        "black_total": sums.black,
        "penalties": penalties,
    }
