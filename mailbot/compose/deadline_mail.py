"""What a clock's deadline says: the last move repeated to a silent player (art. 26),
a warning before a deadline, and a delay a player notes.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from mailbot.compose.gamemail import captains_of, game_summary
from mailbot.compose.messages import game_mail
from mailbot.compose.registry import tells
from mailbot.rules import events as ev
from mailbot.rules.notation import Notation
from mailbot.store.models import Game, Player
from mailbot.store.record import (
    board_of,
    color_of,
    language_for,
    local_date,
    move_line,
    notation_for,
    profile_of,
)

if TYPE_CHECKING:
    from mailbot.compose.notifier import Notifier


@tells(ev.Repeated)
def repeated(n: Notifier, e: ev.Repeated) -> None:
    """Repeat the last move to the silent player; the TD gets a copy (art. 26 B) in the
    TD's own language and words."""
    g = n.game(e.game)
    silent = n.player(e.player)
    t = g.tournament
    tz = ZoneInfo(t.timezone)
    p = profile_of(t)
    opponent = g.black if silent.id == g.white_id else g.white
    due = e.due.astimezone(tz).date()
    days = (p.repeat_after_days or 0) + p.repeat_transit_days
    board = board_of(g, stack=1)
    extra = {"X-Mailbot-Due": due.isoformat()}
    game_mail(
        n,
        g,
        template="repeat",
        language=language_for(silent),
        context={
            "recipient": silent.name,
            "opponent": opponent.name,
            "opponent_gender": opponent.gender,
            "line": move_line(g, len(g.moves), notation_for(silent), tz),
            "due": due,
            "days": days,
        },
        to=[silent.email],
        event="repeat",
        board=board,
        orientation=color_of(g, silent),
        extra=extra,
    )
    if not p.repeat_copies_director:
        return
    game_mail(
        n,
        g,
        template="repeat-copy",
        language=t.language,
        context={
            "recipient": t.director_name,
            "silent": silent.name,
            "silent_gender": silent.gender,
            "opponent": opponent.name,
            "game": game_summary(g),
            "line": move_line(g, len(g.moves), Notation(t.notation), tz),
            "due": due,
            "days": days,
        },
        to=[t.director_email],
        cc=captains_of(g),
        event="repeat",
        board=board,
        extra=extra,
    )


@tells(ev.WarningDue)
def warning_due(n: Notifier, e: ev.WarningDue) -> None:
    """A deadline that would cost the player is near (docs/contract.md, "Warnings before
    deadlines"); a digest reader finds it in the day's digest, unless that went already."""
    g = n.game(e.game)
    player = n.player(e.player)
    if player.digest and not digest_sent_today(player, n.now):
        return
    game_mail(
        n,
        g,
        template="warning",
        language=language_for(player),
        context=warning_context(g, player, e.deadline, e.days, e.due),
        to=[player.email],
        event="warning",
        extra={"X-Mailbot-Warning": e.deadline, "X-Mailbot-Due": e.due.isoformat()},
    )


def warning_context(
    g: Game, player: Player, deadline: str, days: int, due: datetime.date
) -> dict[str, Any]:
    """What ``warning.txt`` says to ``player`` about ``g``'s ``deadline``."""
    opponent = g.black if player.id == g.white_id else g.white
    summary = game_summary(g, player)
    return {
        "recipient": player.name,
        "gender": player.gender,
        "opponent": opponent.name,
        "opponent_gender": opponent.gender,
        "deadline": deadline,
        "days": days,
        "due": due,
        "game": summary,
        "control": summary["control"],
    }


def digest_sent_today(player: Player, now: datetime.datetime) -> bool:
    """Whether ``player``'s digest of the (local) day ``now`` went already."""
    sent = player.digest_sent_at
    tz = ZoneInfo(player.tournament.timezone)
    return sent is not None and local_date(sent, tz) >= local_date(now, tz)


@tells(ev.DelayNoted)
def delay_noted(n: Notifier, e: ev.DelayNoted) -> None:
    g = n.game(e.game)
    player = n.player(e.player)
    opponent = g.black if player.id == g.white_id else g.white
    for recipient in (player, opponent):
        game_mail(n,
            g,
            template="notice",
            language=language_for(recipient),
            context={"kind": "delay", "recipient": recipient.name, "player": player.name,
                     "yours": recipient is player, "game": game_summary(g, recipient)},
            to=[recipient.email],
            event="notice",
            reply=recipient is player,
        )  # fmt: skip
