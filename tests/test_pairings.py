from __future__ import annotations

import collections
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mailbot.rules.pairings import PairingError, berger_table, round_robin

# FIDE Handbook C.05, Annex 1 (Berger tables), (white, black) by board.
FIDE_4 = [
    [(1, 4), (2, 3)],
    [(4, 3), (1, 2)],
    [(2, 4), (3, 1)],
]
FIDE_6 = [
    [(1, 6), (2, 5), (3, 4)],
    [(6, 4), (5, 3), (1, 2)],
    [(2, 6), (3, 1), (4, 5)],
    [(6, 5), (1, 4), (2, 3)],
    [(3, 6), (4, 2), (5, 1)],
]
FIDE_8 = [
    [(1, 8), (2, 7), (3, 6), (4, 5)],
    [(8, 5), (6, 4), (7, 3), (1, 2)],
    [(2, 8), (3, 1), (4, 7), (5, 6)],
    [(8, 6), (7, 5), (1, 4), (2, 3)],
    [(3, 8), (4, 2), (5, 1), (6, 7)],
    [(8, 7), (1, 6), (2, 5), (3, 4)],
    [(4, 8), (5, 3), (6, 2), (7, 1)],
]


@pytest.mark.parametrize(("n", "table"), [(4, FIDE_4), (6, FIDE_6), (8, FIDE_8)])
def test_berger_table_is_fide(n: int, table: list[list[tuple[int, int]]]) -> None:
    assert berger_table(n) == table


def test_odd_number_uses_the_next_table_with_a_bye() -> None:
    assert berger_table(5) == FIDE_6
    rounds = round_robin(["a", "b", "c", "d", "e"])
    # Round 1 of the 6-table: 1-6 is the bye, so board 1 is missing.
    assert [(b.number, b.white, b.black) for b in rounds[0].boards] == [
        (2, "b", "e"),
        (3, "c", "d"),
    ]
    byes = collections.Counter(
        p for r in rounds for p in "abcde" if all(p not in (b.white, b.black) for b in r.boards)
    )
    assert byes == {p: 1 for p in "abcde"}


def test_players_take_berger_numbers_in_order() -> None:
    rounds = round_robin(["ann", "bob", "cid", "dan"])
    assert [[(b.white, b.black) for b in r.boards] for r in rounds] == [
        [("ann", "dan"), ("bob", "cid")],
        [("dan", "cid"), ("ann", "bob")],
        [("bob", "dan"), ("cid", "ann")],
    ]
    assert [r.number for r in rounds] == [1, 2, 3]


def test_double_round_robin_repeats_with_colours_swapped() -> None:
    rounds = round_robin([1, 2, 3, 4], double=True)
    assert len(rounds) == 6
    assert [r.number for r in rounds] == [1, 2, 3, 4, 5, 6]
    first, second = rounds[:3], rounds[3:]
    for a, b in zip(first, second, strict=True):
        assert [(x.black, x.white) for x in a.boards] == [(y.white, y.black) for y in b.boards]


@pytest.mark.parametrize("players", [[], ["solo"]])
def test_too_few_players(players: list[str]) -> None:
    with pytest.raises(PairingError):
        round_robin(players)


def test_same_player_twice() -> None:
    with pytest.raises(PairingError, match="twice"):
        round_robin(["a", "b", "a"])


@settings(max_examples=30, deadline=None)
@given(n=st.integers(min_value=2, max_value=24), double=st.booleans())
def test_every_pair_meets_once_per_cycle(n: int, double: bool) -> None:
    rounds = round_robin(list(range(n)), double=double)
    cycles = 2 if double else 1
    assert len(rounds) == cycles * (n - 1 + n % 2)
    games = [(b.white, b.black) for r in rounds for b in r.boards]
    assert len(games) == cycles * n * (n - 1) // 2
    meetings = collections.Counter(frozenset(g) for g in games)
    assert set(meetings) == {frozenset(p) for p in itertools.combinations(range(n), 2)}
    assert set(meetings.values()) == {cycles}
    if double:
        assert collections.Counter(games) == collections.Counter((b, w) for w, b in games)
    for r in rounds:
        seated = [p for b in r.boards for p in (b.white, b.black)]
        assert len(seated) == len(set(seated)), "nobody plays twice in a round"


@settings(max_examples=20, deadline=None)
@given(n=st.integers(min_value=2, max_value=24))
def test_colours_are_balanced(n: int) -> None:
    whites = collections.Counter(b.white for r in round_robin(range(n)) for b in r.boards)
    blacks = collections.Counter(b.black for r in round_robin(range(n)) for b in r.boards)
    for p in range(n):
        assert whites[p] + blacks[p] == n - 1
        # Even: n - 1 games, one colour once more; odd: the bye keeps them equal.
        assert abs(whites[p] - blacks[p]) == (0 if n % 2 else 1)
