"""What mail that came back says: to the mover, the director and the opponent's
other addresses when a move line bounced; to the director of any other message.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from mailbot.compose.gamemail import captains_of, director_reading, game_summary, orientation
from mailbot.compose.messages import game_mail, mail
from mailbot.rules import events as ev
from mailbot.rules.notation import Notation
from mailbot.store.kinds import MailEvent
from mailbot.store.models import Game, Outbox, Player, Tournament
from mailbot.store.outbox import recipients_tournaments
from mailbot.store.record import (
    color_name,
    color_of,
    language_for,
    local_date,
    notation_for,
    tag_of,
    write_pair_from,
)

if TYPE_CHECKING:
    from mailbot.compose.notifier import Notifier


def bounced(n: Notifier, e: ev.Bounced) -> None:
    """A message never arrived: the mover of a move line, the TD, and the
    opponent at any other address hear of it; of any other message, the TD.
    Nobody is told at an address that failed, and the clocks are the TD's to
    decide (art. 56)."""
    row = n.session.get(Outbox, e.outbox)
    assert row is not None
    # a copy that did arrive (the TD's of a repeat) does not keep its reader untold
    failed = {a for a in e.address.split(", ") if a}
    sent = row.sent_at or row.created_at
    marked = [n.player(p) for p in e.marked]
    context: dict[str, Any] = {
        "kind": "bounce-director",
        "address": e.address,
        "reason": e.reason,
        "subject": row.subject,
        "uci": str(row.headers.get("X-Mailbot-Move", "")),
        "marked": [{"name": p.name, "key": p.key, "address": p.email,
                    "bounces": p.bounces} for p in marked],
    }  # fmt: skip
    g = row.game
    ply = _ply_of(row)
    if g is not None and row.event in _MOVE_LINES and ply is not None:
        _move_bounced(n, g, ply, sent, failed, context)
        return
    if g is not None:
        tournaments = [g.tournament]
    else:
        tournaments = n.tournaments(recipients_tournaments(n.session, row))
    for t in tournaments:
        if t.director_email in failed:
            continue
        tz = ZoneInfo(t.timezone)
        details = {**context, "what": "other", "sent": local_date(sent, tz)}
        if row.event is MailEvent.START:
            details.update(what="start", start=t.start, games=_games_at(t, failed))
        if g is not None:
            details["game"] = game_summary(g)
            _bounce_to_director(n, g, details, failed)
            continue
        mail(
            n,
            template="notice",
            language=t.language,
            context={**director_reading(t), **details},
            to=[t.director_email],
            event=MailEvent.BOUNCE,
            index=t.index,
        )


def _move_bounced(
    n: Notifier,
    g: Game,
    ply: int,
    sent: datetime.datetime,
    failed: set[str],
    context: dict[str, Any],
) -> None:
    """A move line that did not reach the opponent, told to the mover, the TD and the
    opponent's other addresses, each with the move in their notation."""
    t = g.tournament
    tz = ZoneInfo(t.timezone)
    mover = g.white if ply % 2 else g.black
    opponent = g.black if mover is g.white else g.white
    common = {
        **context,
        "what": "move",
        "sent": local_date(sent, tz),
        "mover": mover.name,
        "mover_gender": mover.gender,
        "opponent": opponent.name,
        "colour": color_name(color_of(g, opponent)),
        "game": game_summary(g),
        "opponent_told": [a.email for a in opponent.addresses if a.email not in failed],
    }
    uci = str(context.get("uci", ""))
    _bounce_to_director(
        n, g, {**common, "move": _move_of(g, ply, Notation(t.notation), uci)}, failed
    )
    for reader, kind, to in (
        (mover, "bounce-player", [mover.email]),
        (opponent, "bounce-opponent", [a.email for a in opponent.addresses]),
    ):
        to = [a for a in to if a not in failed]
        if not to:
            continue
        game_mail(n,
            g,
            template="notice",
            language=language_for(reader),
            context={**common, "kind": kind, "recipient": reader.name,
                     "gender": reader.gender, "game": game_summary(g, reader),
                     "move": _move_of(g, ply, notation_for(reader), uci)},
            to=to,
            event=MailEvent.BOUNCE,
            orientation=orientation(g, reader),
        )  # fmt: skip


def _bounce_to_director(n: Notifier, g: Game, context: dict[str, Any], failed: set[str]) -> None:
    t = g.tournament
    if t.director_email in failed:
        return
    game_mail(
        n,
        g,
        template="notice",
        language=t.language,
        context={**context, **director_reading(t)},
        to=[t.director_email],
        cc=captains_of(g),
        event=MailEvent.BOUNCE,
    )


def _games_at(t: Tournament, addresses: set[str]) -> list[dict[str, Any]]:
    """The games of ``t``'s players at ``addresses``, for a start mail that bounced."""
    games = []
    for g in t.games:
        for p in (g.white, g.black):
            if p.email in addresses:
                colour = color_name(color_of(g, p))
                games.append({"tag": tag_of(g), "player": p.name, "key": p.key,
                              "colour": colour, "first": colour == "white"})  # fmt: skip
    return games


#: The events of mail that carries a move to the player who must answer it.
_MOVE_LINES = frozenset({MailEvent.MOVE, MailEvent.REPEAT})


def bounced_in(
    g: Game, reader: Player | None, bounced: dict[tuple[int, str], datetime.datetime]
) -> list[dict[str, Any]]:
    """The moves of ``g`` whose mail bounced, as the ``status`` mail shows them."""
    style = notation_for(reader) if reader is not None else Notation(g.tournament.notation)
    tz = ZoneInfo(g.tournament.timezone)
    return [
        {"move": _move_of(g, ply, style, uci), "date": local_date(when, tz),
         "to": (g.black if ply % 2 else g.white).name}
        for (ply, uci), when in sorted(bounced.items())
        if ply <= len(g.moves) and g.moves[ply - 1].uci == uci
    ]  # fmt: skip


def _ply_of(row: Outbox) -> int | None:
    """The ply a move line carried (its ``X-Mailbot-Ply``)."""
    try:
        ply = int(str(row.headers.get("X-Mailbot-Ply", "")))
    except ValueError:
        return None
    return ply if ply > 0 else None


def _move_of(g: Game, ply: int, style: Notation, uci: str) -> str:
    """Ply ``ply`` of ``g`` with its number, in ``style``; in UCI (``uci``, the move the
    mail carried) when the game no longer has that move (voided since).

    The move is the one the mail carried only while the game still has it."""
    if ply <= len(g.moves) and (not uci or g.moves[ply - 1].uci == uci):
        return write_pair_from(g, ply, style, upto=ply)
    return f"{(ply + 1) // 2}{'.' if ply % 2 else '...'} {uci}"
