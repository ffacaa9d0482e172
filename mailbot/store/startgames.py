"""The games of a start list: a round robin of the players or teams, or a list of them."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from mailbot.rules.pairings import round_robin, team_round_robin
from mailbot.store.startfields import (
    StartListError,
    read_id,
)
from mailbot.store.startteams import TeamEntry


@dataclasses.dataclass(frozen=True)
class Pairing:
    """One game of the start list: ``round`` and ``board`` are set for round robins."""

    number: int
    white: str
    black: str
    round: int | None = None
    board: int | None = None


def read_games(
    data: Any, ids: list[str], teams: Sequence[TeamEntry] = (), boards: int = 0
) -> list[Pairing]:
    if data is None:
        raise StartListError("games", "is required")
    if data == "team-round-robin":
        if not teams:
            raise StartListError("games", "team-round-robin needs teams:")
        return [
            Pairing(i + 1, g.white, g.black, g.round, g.board)
            for i, g in enumerate(
                team_round_robin({t.id: t.players[:boards] for t in teams}, boards)
            )
        ]
    if teams:
        raise StartListError("games", "a team event plays team-round-robin")
    if data in ("round-robin", "double-round-robin"):
        games: list[Pairing] = []
        for r in round_robin(ids, double=data == "double-round-robin"):
            for board in r.boards:
                games.append(
                    Pairing(len(games) + 1, board.white, board.black, r.number, board.number)
                )
        return games
    if not isinstance(data, list):
        raise StartListError(
            "games",
            "must be round-robin, double-round-robin, team-round-robin "
            "or a list of {white: ID, black: ID}",
        )
    if not data:
        raise StartListError("games", "must list at least one game")
    known = set(ids)
    games = []
    for i, item in enumerate(data):
        path = f"games[{i}]"
        if not isinstance(item, Mapping):
            raise StartListError(path, "must be {white: ID, black: ID}")
        for key in item:
            if key not in ("white", "black"):
                raise StartListError(f"{path}.{key}", "unknown key")
        colours = []
        for colour in ("white", "black"):
            if colour not in item:
                raise StartListError(f"{path}.{colour}", "is required")
            key = read_id(item[colour], f"{path}.{colour}")
            if key not in known:
                raise StartListError(f"{path}.{colour}", f"{key} is not in players")
            colours.append(key)
        white, black = colours
        if white == black:
            raise StartListError(path, f"{white} cannot play against themselves")
        games.append(Pairing(i + 1, white, black))
    return games
