"""What a clock's deadline says: the last move repeated to a silent player (art. 26),
a warning before a deadline, and a delay a player notes.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from mailbot.compose.gamemail import captains_of, director_reading, game_summary
from mailbot.compose.messages import game_mail
from mailbot.rules import clock
from mailbot.rules import events as ev
from mailbot.rules.due import notice_spares_repeat
from mailbot.rules.notation import Notation
from mailbot.rules.profile import Profile
from mailbot.store.kinds import MailEvent
from mailbot.store.models import Game, Player
from mailbot.store.record import (
    board_of,
    color_of,
    language_for,
    local_date,
    move_line,
    notation_for,
    notice_covered,
    profile_of,
    waiting,
)

if TYPE_CHECKING:
    from mailbot.compose.notifier import Notifier


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
    w = waiting(g)
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
            # a notice may still come in time (art. 25), and none has come
            "notice_open": not notice_covered(g)
            and e.due < clock.notice_limit(p, w.since, w.leaves, tz),
        },
        to=[silent.email],
        event=MailEvent.REPEAT,
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
            **director_reading(t),
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
        event=MailEvent.REPEAT,
        board=board,
        extra=extra,
    )


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
        event=MailEvent.WARNING,
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
        "notice_by": _notice_by(g, deadline, days, due),
    }


def _notice_by(g: Game, deadline: str, days: int, due: datetime.date) -> datetime.date | str | None:
    """For a silence warning, when a delay notice must come to spare the silence
    (docs/rules.md 2.4): None while it spares it as long as a move would (the notice
    limit is the silence's own day, as the profiles have it), else the day before
    which it must come, or "" when that day came before the warning's."""
    if deadline != "silence":
        return None
    w = waiting(g)
    by = local_date(clock.notice_limit(w.profile, w.since, w.leaves, w.tz), w.tz)
    if by >= due:
        return None
    return by if by > due - datetime.timedelta(days=days) else ""


def digest_sent_today(player: Player, now: datetime.datetime) -> bool:
    """Whether ``player``'s digest of the (local) day ``now`` went already."""
    sent = player.digest_sent_at
    tz = ZoneInfo(player.tournament.timezone)
    return sent is not None and local_date(sent, tz) >= local_date(now, tz)


def delay_noted(n: Notifier, e: ev.DelayNoted) -> None:
    """Both players are told of the notice; the player also of what it spares them on
    the move it covers, or that it came too late to spare anything (docs/rules.md 2.4)."""
    g = n.game(e.game)
    player = n.player(e.player)
    opponent = g.black if player.id == g.white_id else g.white
    p = profile_of(g.tournament)
    for recipient in (player, opponent):
        game_mail(n,
            g,
            template="notice",
            language=language_for(recipient),
            context={"kind": "delay", "recipient": recipient.name, "player": player.name,
                     "yours": recipient is player, "game": game_summary(g, recipient),
                     "in_time": e.in_time, "limit": p.notice_after_days,
                     "next": waiting(g).player.id != player.id,
                     "spared": notice_spares(p)},
            to=[recipient.email],
            event=MailEvent.NOTICE,
            reply=recipient is player,
        )  # fmt: skip


def notice_spares(p: Profile) -> list[dict[str, object]]:
    """What a delay notice in time spares the player in profile ``p``, for the mail:
    the silence loss, the silence report, the repeat (docs/rules.md 2.4)."""
    spared: list[dict[str, object]] = []
    if p.silence_days is not None:
        spared.append({"what": "silence", "days": p.silence_days})
    if p.silence_report_days is not None:
        spared.append({"what": "report", "days": p.silence_report_days})
    if notice_spares_repeat(p):
        spared.append({"what": "repeat", "days": 0})
    return spared
