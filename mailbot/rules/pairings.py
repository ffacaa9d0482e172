"""Round robins by the FIDE Berger tables.

Players are numbered in the order given (the first is Berger number 1). With
an odd number of players a dummy with the highest number is added; whoever
meets the dummy has a bye in that round, which produces no game::

    >>> for r in round_robin(["ann", "bob", "cid", "dan"]):
    ...     print(r.number, [(b.white, b.black) for b in r.boards])
    1 [('ann', 'dan'), ('bob', 'cid')]
    2 [('dan', 'cid'), ('ann', 'bob')]
    3 [('bob', 'dan'), ('cid', 'ann')]

A double round robin plays the table twice, the second cycle with the colours
swapped::

    >>> rounds = round_robin(["ann", "bob", "cid"], double=True)
    >>> [(b.white, b.black) for b in rounds[0].boards + rounds[3].boards]
    [('bob', 'cid'), ('cid', 'bob')]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Generic, TypeVar

from mailbot.rules.errors import RulesError

PlayerT = TypeVar("PlayerT")


class PairingError(RulesError, ValueError):
    """The players cannot be paired (too few, or the same player twice)."""


@dataclasses.dataclass(frozen=True)
class Board(Generic[PlayerT]):
    """One game of a round: ``number`` is the board in the Berger table."""

    number: int
    white: PlayerT
    black: PlayerT


@dataclasses.dataclass(frozen=True)
class Round(Generic[PlayerT]):
    """The games of one round, by board. Boards with the bye are left out."""

    number: int
    boards: tuple[Board[PlayerT], ...]


def berger_table(n: int) -> list[list[tuple[int, int]]]:
    """The FIDE Berger table for ``n`` players: per round, (white, black) numbers by board.

    For an odd ``n`` the table of ``n + 1`` is returned; number ``n + 1``
    stands for the bye.

    >>> berger_table(4)
    [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]
    >>> berger_table(6)[1]
    [(6, 4), (5, 3), (1, 2)]
    """
    if n < 2:
        raise PairingError("a round robin needs at least two players")
    size = n + n % 2
    last = size - 1  # the numbers that rotate: 1 .. size - 1
    half = size // 2
    table: list[list[tuple[int, int]]] = []
    for r in range(size - 1):
        # Each round adds size/2 to every number but the last, modulo size - 1.
        def at(start: int, r: int = r) -> int:
            return (start - 1 + r * half) % last + 1

        boards: list[tuple[int, int]] = []
        opponent = at(1)
        # The last number alternates: Black in odd rounds, White in even ones.
        boards.append((opponent, size) if r % 2 == 0 else (size, opponent))
        for b in range(2, half + 1):
            boards.append((at(b), at(size + 1 - b)))
        table.append(boards)
    return table


def round_robin(players: Sequence[PlayerT], double: bool = False) -> list[Round[PlayerT]]:
    """The rounds of a (double) round robin of ``players``, by the Berger table.

    Every pair meets once (twice in a double round robin, with the colours
    swapped in the second cycle).

    >>> [len(r.boards) for r in round_robin(range(5))]
    [2, 2, 2, 2, 2]
    >>> len(round_robin(range(4), double=True))
    6
    """
    players = list(players)
    if len(set(players)) != len(players):
        raise PairingError("the same player is listed twice")
    n = len(players)
    table = berger_table(n)
    cycle: list[list[tuple[int, int]]] = table + [[(b, w) for w, b in r] for r in table]
    rounds: list[Round[PlayerT]] = []
    for number, pairs in enumerate(cycle if double else table, start=1):
        boards = tuple(
            Board(board, players[w - 1], players[b - 1])
            for board, (w, b) in enumerate(pairs, start=1)
            if w <= n and b <= n
        )
        rounds.append(Round(number, boards))
    return rounds


@dataclasses.dataclass(frozen=True)
class TeamGame(Generic[PlayerT]):
    """One board of a team match: ``board`` is the team board (1 = first board)."""

    round: int
    match: int
    board: int
    white: PlayerT
    black: PlayerT


def team_round_robin(
    teams: Mapping[str, Sequence[PlayerT]], boards: int
) -> list[TeamGame[PlayerT]]:
    """Every team meets every other once, by the Berger table of the teams.

    The team the Berger table gives White in a match plays White on the odd
    boards and Black on the even ones (004 art. 20). ``teams`` maps a team to
    its players in board order; the first ``boards`` play.

    >>> games = team_round_robin({"sof": ["s1", "s2"], "var": ["v1", "v2"]}, 2)
    >>> [(g.round, g.board, g.white, g.black) for g in games]
    [(1, 1, 's1', 'v1'), (1, 2, 'v2', 's2')]
    """
    games: list[TeamGame[PlayerT]] = []
    for r in round_robin(list(teams)):
        for match in r.boards:
            home, away = teams[match.white], teams[match.black]
            for k in range(1, boards + 1):
                pair = (home[k - 1], away[k - 1])
                white, black = pair if k % 2 == 1 else pair[::-1]
                games.append(TeamGame(r.number, match.number, k, white, black))
    return games
