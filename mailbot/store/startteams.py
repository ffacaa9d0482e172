"""The teams of a team event's start list, and the boards of a match."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from mailbot.store.startfields import (
    Director,
    StartListError,
    normalise_email,
    read_id,
    read_name,
    read_number,
)
from mailbot.store.startplayers import PlayerEntry


@dataclasses.dataclass(frozen=True)
class TeamEntry:
    """A team: its players in board order, substitutes after the boards."""

    id: str
    name: str
    players: tuple[str, ...]
    captain: Director | None = None


def read_boards(value: Any) -> int:
    """``boards:``, the number of boards of a match (0: not a team event)."""
    if value is None:
        return 0
    number = read_number(value, "boards", 1, 99)
    assert number is not None
    return number


def read_teams(
    data: Any, players: Sequence[PlayerEntry], boards: int, special_use: bool
) -> list[TeamEntry]:
    """The ``teams:`` of a team event; a team's players come from its ``players`` list or,
    when it has none, from the players whose ``team`` column names it, by ``board``."""
    if data is None:
        if boards:
            raise StartListError("boards", "is for team events: add teams:")
        for i, p in enumerate(players):
            if p.team is not None:
                raise StartListError(f"players[{i}].team", "there is no teams: list")
        return []
    if not isinstance(data, list) or len(data) < 2:
        raise StartListError("teams", "must list at least two teams")
    if not boards:
        raise StartListError("boards", "is required for a team event")
    known = {p.id: i for i, p in enumerate(players)}
    taken: dict[str, str] = {}
    teams: list[TeamEntry] = []
    for i, item in enumerate(data):
        teams.append(_team(f"teams[{i}]", item, players, known, teams, taken, boards, special_use))
    for p in players:
        if p.team is not None and p.team not in {t.id for t in teams}:
            raise StartListError(f"players[{known[p.id]}].team", f"there is no team {p.team}")
    return teams


def _team(
    path: str,
    item: Any,
    players: Sequence[PlayerEntry],
    known: Mapping[str, int],
    teams: Sequence[TeamEntry],
    taken: dict[str, str],
    boards: int,
    special_use: bool,
) -> TeamEntry:
    """One team of ``teams:``; ``taken`` is which team each player plays for so far."""
    if not isinstance(item, Mapping):
        raise StartListError(path, "must be {id: ..., name: ..., players: [...]}")
    for key in item:
        if key not in ("id", "name", "captain", "players"):
            raise StartListError(f"{path}.{key}", "unknown key")
    if "id" not in item:
        raise StartListError(f"{path}.id", "is required")
    key = read_id(item["id"], f"{path}.id")
    if any(t.id == key for t in teams):
        raise StartListError(f"{path}.id", f"team {key} is listed twice")
    name = read_name(item, f"{path}.name")
    captain = None
    if item.get("captain") is not None:
        captain = _captain(item["captain"], path, special_use)
    members = item.get("players")
    if members is None:
        ids = _members_by_column(key, players, known)
    elif isinstance(members, list):
        ids = [read_id(m, f"{path}.players[{j}]") for j, m in enumerate(members)]
        for j, member in enumerate(ids):
            if member not in known:
                raise StartListError(f"{path}.players[{j}]", f"{member} is not in players")
    else:
        raise StartListError(f"{path}.players", "must be a list of player ids in board order")
    for j, member in enumerate(ids):
        said = players[known[member]].team
        if said is not None and said != key:
            raise StartListError(
                f"players[{known[member]}].team", f"{member} is listed in team {key}"
            )
        if member in taken:
            raise StartListError(
                f"{path}.players[{j}]", f"{member} already plays for team {taken[member]}"
            )
        taken[member] = key
    if len(ids) < boards:
        raise StartListError(
            f"{path}.players", f"team {key} has {len(ids)} players for {boards} boards"
        )
    return TeamEntry(key, name, tuple(ids), captain)


def _captain(c: Any, path: str, special_use: bool) -> Director:
    """A team's ``captain:``, who is told of the team's matches."""
    if not isinstance(c, Mapping) or set(c) - {"name", "email"}:
        raise StartListError(f"{path}.captain", "must be {name: ..., email: ...}")
    if "email" not in c:
        raise StartListError(f"{path}.captain.email", "is required")
    return Director(
        read_name(c, f"{path}.captain.name"),
        normalise_email(f"{path}.captain.email", c["email"], special_use),
    )


def _members_by_column(
    key: str, players: Sequence[PlayerEntry], known: Mapping[str, int]
) -> list[str]:
    """The players whose ``team`` column names team ``key``, by ``board`` and then as listed."""
    column = sorted(
        (p for p in players if p.team == key), key=lambda p: (p.board or 999, known[p.id])
    )
    boards_seen: dict[int, str] = {}
    for entry in column:
        if entry.board is None:
            continue
        if entry.board in boards_seen:
            raise StartListError(
                f"players[{known[entry.id]}].board",
                f"team {key} has {boards_seen[entry.board]} on board {entry.board}",
            )
        boards_seen[entry.board] = entry.id
    return [p.id for p in column]


def in_teams(players: Sequence[PlayerEntry], teams: Sequence[TeamEntry]) -> list[PlayerEntry]:
    """The players, each with the team it plays for and its board in that team."""
    return [
        dataclasses.replace(p, team=t.id, board=t.players.index(p.id) + 1)
        if (t := next((t for t in teams if p.id in t.players), None))
        else p
        for p in players
    ]
