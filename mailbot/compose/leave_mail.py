"""What a player's leave says: the answer to the request, and the notices to the
opponent and the director of leave taken, ended or granted besides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mailbot.compose.gamemail import director_of
from mailbot.compose.messages import game_mail, mail, reply_in_game, to_players
from mailbot.rules import events as ev
from mailbot.store.kinds import MailEvent
from mailbot.store.record import language_for, profile_of

if TYPE_CHECKING:
    from mailbot.compose.notifier import Notifier


def leave_answered(n: Notifier, e: ev.LeaveAnswered) -> None:
    g = n.game(e.game)
    context = {"kind": e.kind, "start": e.start, "end": e.end, **e.details}
    reply_in_game(n, g, n.player(e.player), "leave", context, MailEvent.LEAVE)


def leave_taken(n: Notifier, e: ev.LeaveTaken) -> None:
    g = n.game(e.game)
    t = g.tournament
    player = n.player(e.player)
    opponent = g.black if player.id == g.white_id else g.white
    audience = {
        "opponent": (opponent.email, opponent.name, language_for(opponent)),
        "director": (t.director_email, t.director_name, t.language),
    }
    for who in e.audience:
        address, name, language = audience[who]
        game_mail(n,
            g,
            template="leave",
            language=language,
            context={"kind": who, "recipient": name, "player": player.name,
                     "player_gender": player.gender, "start": e.start, "end": e.end,
                     "stops_all": profile_of(t).leave_stops_opponent},
            to=[address],
            event=MailEvent.LEAVE,
        )  # fmt: skip


def leave_ended(n: Notifier, e: ev.LeaveEnded) -> None:
    g = n.game(e.game)
    player = n.player(e.player)
    opponent = g.black if player.id == g.white_id else g.white
    to_players(n,
        g, "leave", MailEvent.LEAVE,
        lambda p: {"kind": "ended", "player": player.name, "start": e.start,
                   "end": e.end, "yours": p.id == player.id},
        [player, opponent],
    )  # fmt: skip


def extra_leave(n: Notifier, e: ev.ExtraLeave) -> None:
    """Extra leave is the player's, not one game's: the mail carries the event's tag."""
    player = n.player(e.player)
    context = {
        "kind": "extra",
        "recipient": player.name,
        "gender": player.gender,
        "player": player.name,
        "days": e.days,
        "year": e.year,
        "yours": True,
        **director_of(player.tournament),
    }
    mail(n, template="leave", language=language_for(player), context=context,
         to=[player.email], event=MailEvent.LEAVE, index=player.tournament.index)  # fmt: skip
