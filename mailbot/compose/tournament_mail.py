"""What a tournament's roster says: the ``start`` mail to each player and to the
director, a player's new address or name, a newcomer who takes over the games.
"""

from __future__ import annotations

import email.utils
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import chess

from mailbot.compose.gamemail import director_of, director_reading
from mailbot.compose.messages import mail, notice
from mailbot.mail.intent import help_words
from mailbot.rules import events as ev
from mailbot.rules.notation import write_move
from mailbot.rules.phrase import Phrase
from mailbot.rules.result import Colour
from mailbot.store.kinds import MailEvent
from mailbot.store.models import Game, Player, Tournament
from mailbot.store.queries import games_and_rounds, games_listed
from mailbot.store.record import (
    color_name,
    color_of,
    language_for,
    notation_for,
    profile_of,
    tag_of,
)

if TYPE_CHECKING:
    from mailbot.compose.notifier import Notifier


def tournament_started(n: Notifier, e: ev.TournamentStarted) -> None:
    """The ``start`` mail: to each player their games, the rules in force and how to
    write a move; to the TD what was created. Each player's games are read as plain
    values (:func:`mailbot.store.queries.games_listed`), never the event's games."""
    t = n.tournaments([e.tournament])[0]
    players = [p for p in t.players if p.replaced_by_id is None]
    names = {p.id: p.name for p in t.players}
    counted: dict[int, int] = {}
    for player in players:
        games = games_listed(n.session, player.id)
        counted[player.id] = len(games)
        listed = [
            {
                "tag": f"{t.index}/{g.number}",
                "colour": Colour.WHITE if g.white_id == player.id else Colour.BLACK,
                "opponent": names[g.black_id if g.white_id == player.id else g.white_id],
                "round": g.round,
                "plies": g.plies,
                "your_move": (g.plies % 2 == 0) == (g.white_id == player.id),
            }
            for g in games
        ]
        _start_mail(n, player, listed)
        if n.progress is not None:
            n.progress(len(counted), len(players))
    count, rounds = games_and_rounds(n.session, t.id)
    mail(n,
        template="start-director",
        language=t.language,
        context={**director_reading(t), "name": t.name, "rules": rules_in_force(t),
                 "players": [{"key": p.key, "name": p.name, "email": p.email,
                              "games": counted[p.id]}
                             for p in players],
                 "games": count, "rounds": rounds,
                 "teams": [{"name": x.name, "captain": x.captain_name,
                            "players": [p.name for p in x.players]} for x in t.teams]},
        to=[t.director_email],
        event=MailEvent.START,
        index=t.index,
    )  # fmt: skip


def _listed(player: Player, games: Sequence[Game]) -> list[dict[str, Any]]:
    """``player``'s ``games`` as a start mail lists them (games taken over as they stand)."""
    return [
        {
            "tag": tag_of(g),
            "colour": color_name(color_of(g, player)),
            "opponent": (g.black if g.white_id == player.id else g.white).name,
            "round": g.round,
            "plies": len(g.moves),
            "your_move": (len(g.moves) % 2 == 0) == (g.white_id == player.id),
        }
        for g in games
    ]


def _start_mail(
    n: Notifier, player: Player, listed: Sequence[dict[str, Any]], replaces: Player | None = None
) -> None:
    """A player's ``start`` mail: their games (as :func:`_listed` gives them), the rules,
    how to write a move; for a newcomer, the games taken over as they stand."""
    t = player.tournament
    language = language_for(player)
    example = write_move(chess.Board(), chess.Move.from_uci("g1f3"), notation_for(player))
    mail(n,
        template="start",
        language=language,
        context={"recipient": player.name, "gender": player.gender, "name": t.name,
                 "address": email.utils.parseaddr(n.sender)[1], "games": list(listed),
                 "rules": rules_in_force(t), "example": example,
                 "team": player.team.name if player.team else None,
                 "replaces": replaces.name if replaces else None,
                 "words": help_words(language)},
        to=[player.email],
        event=MailEvent.START,
        index=t.index,
    )  # fmt: skip


def player_changed(n: Notifier, e: ev.PlayerChanged) -> None:
    """The player hears of the new address or name; the opponents of a new name."""
    player = n.player(e.player)
    t = player.tournament
    mail(n,
        template="notice",
        language=language_for(player),
        context={"kind": "roster-you", "change": e.change, "recipient": player.name,
                 "gender": player.gender, "name": t.name, "address": player.email,
                 "before": e.before, **director_of(t)},
        to=[player.email],
        event=MailEvent.NOTICE,
        index=t.index,
    )  # fmt: skip
    if e.change != "name":
        return
    for g in t.games:
        if g.result is None and player in (g.white, g.black):
            opponent = g.black if g.white_id == player.id else g.white
            extra = {"before": e.before, "opponent": player.name,
                     "opponent_gender": player.gender}  # fmt: skip
            notice(n, g, opponent, "opponent-renamed", extra, reply=False)


def player_replaced(n: Notifier, e: ev.PlayerReplaced) -> None:
    """003 part 1 art. 9: the newcomer gets the games as they stand, the opponents and
    the player replaced are told."""
    old, newcomer = n.player(e.player), n.player(e.newcomer)
    games = [n.game(i) for i in e.games]
    _start_mail(n, newcomer, _listed(newcomer, games), replaces=old)
    for g in games:
        opponent = g.black if g.white_id == newcomer.id else g.white
        extra = {"before": old.name, "opponent": newcomer.name,
                 "opponent_gender": newcomer.gender, "plain": e.plain}  # fmt: skip
        notice(n, g, opponent, "opponent-replaced", extra, reply=False)
    t = old.tournament
    mail(n,
        template="notice",
        language=language_for(old),
        context={"kind": "replaced", "recipient": old.name, "gender": old.gender,
                 "name": t.name, "newcomer": newcomer.name, "games": len(games)},
        to=[old.email],
        event=MailEvent.NOTICE,
        index=t.index,
    )  # fmt: skip


def rules_in_force(t: Tournament) -> dict[str, Any]:
    """What the ``start`` mail says of the rules: profile, time control, leave, dates."""
    p = profile_of(t)
    return {
        "profile": Phrase(f"profile.{t.profile}"),
        "days": p.days_per_control,
        "moves": p.moves_per_control,
        "leave": p.leave_days_per_year,
        "start": t.start,
        "end": t.end,
        "conditional": t.conditional_moves,
        "notation": t.notation,
    }
