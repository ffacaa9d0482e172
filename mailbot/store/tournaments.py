"""Tournaments in and out of the store: a start list imported, a tournament deleted."""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Mapping
from zoneinfo import ZoneInfo

from sqlalchemy import (
    Table,
    func,
    insert,
    or_,
    select,
)
from sqlalchemy.orm import (
    Session,
)

from mailbot.rules.errors import StoreError
from mailbot.store.kinds import HeldStatus
from mailbot.store.models import (
    Game,
    HeldOrder,
    Move,
    Outbox,
    Player,
    PlayerAddress,
    Team,
    Tournament,
)
from mailbot.store.schedule import opening_due
from mailbot.store.startlist import StartList


class DuplicateTournamentError(StoreError, ValueError):
    """A tournament with this index already exists."""

    def __init__(self, index: str) -> None:
        super().__init__(f"tournament {index} already exists; give the new one another index")
        self.index = index


class TournamentStartedError(StoreError, ValueError):
    """A tournament in which a move has been played cannot be deleted."""


#: Games written to the database in one statement (an ``executemany``) during an import.
GAMES_CHUNK = 5_000

#: The games' table, written by plain statements (no object per game).
_GAMES: Table = Game.metadata.tables[Game.__tablename__]

#: What an import reports as it goes: games written so far, and the games in all.
Progress = Callable[[int, int], None]


def import_start_list(
    session: Session,
    start_list: StartList,
    now: datetime.datetime,
    progress: Progress | None = None,
) -> Tournament:
    """Create the tournament, its players and its games; flushes, does not commit.

    The games are written :data:`GAMES_CHUNK` to a statement, without an object
    of each held in the session, so a round robin of 100,000 games takes no
    more memory than one of 1,000; ``progress`` hears after each statement how
    many are written. Each game is written with its first deadline (``due_at``,
    :func:`mailbot.store.schedule.opening_due`), so the first sweep after the
    import reads no game before something falls due in it.

    Raises :class:`DuplicateTournamentError` when the index exists already.
    """
    existing = session.scalar(select(Tournament.id).where(Tournament.index == start_list.index))
    if existing is not None:
        raise DuplicateTournamentError(start_list.index)
    tournament = Tournament(
        index=start_list.index,
        name=start_list.name,
        profile=start_list.profile.name,
        rules=dict(start_list.rules),
        timezone=start_list.timezone,
        start=start_list.start,
        end=start_list.end,
        extended_to=None,
        language=start_list.language,
        notation=start_list.notation,
        conditional_moves=start_list.conditional_moves,
        forward_messages=start_list.forward_messages,
        director_digest=start_list.director_digest,
        director_name=start_list.director.name,
        director_email=start_list.director.email,
        director_gender=start_list.director.gender,
        created_at=now,
    )
    teams = _add_teams(tournament, start_list)
    players = _add_players(tournament, start_list, teams)
    session.add(tournament)
    session.flush()
    _add_games(session, tournament.id, start_list, {k: p.id for k, p in players.items()}, now,
               progress)  # fmt: skip
    session.expire(tournament, ["games"])
    return tournament


def _add_games(
    session: Session,
    tournament_id: int,
    start_list: StartList,
    players: Mapping[str, int],
    now: datetime.datetime,
    progress: Progress | None,
) -> None:
    """The start list's games, :data:`GAMES_CHUNK` rows to a statement, each with its
    first deadline: a new game's is the same in every game of the event."""
    due_at = opening_due(start_list.profile, ZoneInfo(start_list.timezone), start_list.start,
                         start_list.end)  # fmt: skip
    games = start_list.games
    for first in range(0, len(games), GAMES_CHUNK):
        rows = [
            {
                "tournament_id": tournament_id,
                "number": pairing.number,
                "white_id": players[pairing.white],
                "black_id": players[pairing.black],
                "round": pairing.round,
                "board": pairing.board,
                "due_at": due_at,
                "created_at": now,
            }
            for pairing in games[first : first + GAMES_CHUNK]
        ]
        session.connection().execute(insert(_GAMES), rows)
        if progress is not None:
            progress(first + len(rows), len(games))


def _add_teams(tournament: Tournament, start_list: StartList) -> dict[str, Team]:
    """The start list's teams, added to ``tournament``, by their ids."""
    teams: dict[str, Team] = {}
    for team_entry in start_list.teams:
        team = Team(
            key=team_entry.id,
            name=team_entry.name,
            captain_name=team_entry.captain.name if team_entry.captain else None,
            captain_email=team_entry.captain.email if team_entry.captain else None,
        )
        teams[team_entry.id] = team
        tournament.teams.append(team)
    return teams


def _add_players(
    tournament: Tournament, start_list: StartList, teams: Mapping[str, Team]
) -> dict[str, Player]:
    """The start list's players, added to ``tournament``, by their start-list keys."""
    players: dict[str, Player] = {}
    for entry in start_list.players:
        player = Player(
            key=entry.id,
            name=entry.name,
            email=entry.email,
            language=entry.language,
            notation=entry.notation,
            secret=entry.secret,
            gender=entry.gender,
            country=entry.country,
            rating=entry.rating,
            team=teams.get(entry.team or ""),
            board=entry.board,
            addresses=[PlayerAddress(email=a) for a in entry.addresses],
        )
        players[entry.id] = player
        tournament.players.append(player)
    return players


def delete_tournament(session: Session, index: str) -> int:
    """Remove tournament ``index`` before its first move; returns the messages withdrawn.

    Its start messages and any other mail about it not yet sent are withdrawn;
    mail already sent and received stays in the store, no longer tied to a game.
    Raises :class:`LookupError` when there is no such tournament and
    :class:`TournamentStartedError` once a move has been played in it.
    """
    t = session.scalars(select(Tournament).where(Tournament.index == index)).first()
    if t is None:
        raise LookupError(f"no tournament {index}")
    games = [g.id for g in t.games]
    played = session.scalar(select(func.count(Move.id)).where(Move.game_id.in_(games)))
    if played:
        raise TournamentStartedError(
            f"tournament {index} has {played} moves played: it can no longer be deleted "
            "(withdraw players or record results instead)"
        )
    # orders held for the director's confirmation that name the event, or answer mail
    # about its games, would otherwise apply to a new event imported under the same index
    about = set(session.scalars(select(Outbox.id).where(Outbox.game_id.in_(games))).all())
    named = re.compile(rf"(?<![\w.-]){re.escape(index)}(?![\w.-]|/\D)")
    for held in session.scalars(select(HeldOrder).where(HeldOrder.status == "held")).all():
        if held.director_email == t.director_email and (
            held.answered_id in about or any(named.search(o) for o in held.orders)
        ):
            held.status = HeldStatus.CANCELLED
    pending = session.scalars(
        select(Outbox).where(
            Outbox.status != "sent",
            or_(
                Outbox.game_id.in_(games),
                Outbox.subject.startswith(f"[{index}]", autoescape=True),
                Outbox.subject.startswith(f"[{index}/", autoescape=True),
            ),
        )
    ).all()
    for row in pending:
        session.delete(row)
    session.delete(t)
    session.flush()
    return len(pending)
