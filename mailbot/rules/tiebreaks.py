"""Tie-breaks: entrants level on points split by criteria in turn, and their places.

A criterion gives each entrant still level a sort key (points, then
Sonneborn-Berger, the games among the level ones, ...); the groups left
level at the end share a place.

    >>> points = {"a": 2.0, "b": 1.0, "c": 2.0}
    >>> groups = rank_groups(["a", "b", "c"], [lambda ids: {i: (points[i],) for i in ids}], 1)
    >>> groups, places(groups)
    ([['a', 'c'], ['b']], [('a', '1-2'), ('c', '1-2'), ('b', '3')])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

__all__ = ["Criterion", "places", "rank_groups"]

#: Given the ids still level, the sort key of each (higher is better), or
#: ``None`` when the criterion does not apply to a group of that size.
Criterion = Callable[[Sequence[str]], Mapping[str, tuple[float, ...]] | None]


def rank_groups(
    group: list[str], criteria: Sequence[Criterion], mutual: int, start: int = 0
) -> list[list[str]]:
    """Split ``group`` (in start-list order) by each criterion in turn, best first.

    Each criterion sees only the ids still level after the ones before it.
    When a criterion separates some of them, the criteria from index
    ``mutual`` on (those that look at the games among the ids still level)
    are applied afresh to each smaller group. A group of several ids left at
    the end shares a place and keeps start-list order.
    """
    if len(group) < 2 or start >= len(criteria):
        return [group]
    keys = criteria[start](group)
    if keys is None:
        return rank_groups(group, criteria, mutual, start + 1)
    levels = sorted(set(keys.values()), reverse=True)
    following = start + 1 if len(levels) == 1 else min(start + 1, mutual)
    out: list[list[str]] = []
    for key in levels:
        out.extend(rank_groups([i for i in group if keys[i] == key], criteria, mutual, following))
    return out


def places(groups: list[list[str]]) -> list[tuple[str, str]]:
    """(id, place) in table order; a shared place reads ``'3-4'``."""
    out: list[tuple[str, str]] = []
    first = 1
    for group in groups:
        last = first + len(group) - 1
        place = str(first) if last == first else f"{first}-{last}"
        out.extend((key, place) for key in group)
        first = last + 1
    return out
