"""Whole games copied with the new move at the end: how the referee reads them.

Makes seeded random games (``tests/copygames.py``), writes each as a player
copies it, in every notation the bot reads and in every layout, and judges
the copy. Prints one table per kind of copy, a row per notation:

- ``intact``: the copy agrees with the game; right is the new move played;
- ``replaced``: one earlier move is another legal move; right is what
  docs/rules.md 2.4 says (the opponent's last move: incorrect; another move:
  no move, nothing played, no penalty).

Columns: copies tried, read right, a wrong move played, and the verdicts of
the rest::

    python bench/copies.py                    # 3,000 copies per notation and kind
    python bench/copies.py --copies 500 --seed 7
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from copygames import LAYOUTS, NOTATIONS, Copy, make_copy

from mailbot.rules.referee import Judgement, Verdict, judge

COLUMNS = ("tried", "right", "wrong move", "impossible", "incorrect", "unclear", "no move")


def outcome(copy: Copy, judgement: Judgement) -> str:
    """The column a judged copy counts in."""
    last = len(copy.board.move_stack) - 1
    if copy.replaced is None:
        right = judgement.accepted and judgement.move == copy.move
    elif copy.replaced == last:
        right = judgement.verdict is Verdict.INCORRECT
    else:  # no move, and the difference shown
        right = judgement.verdict is Verdict.NO_MOVE and "number" in judgement.details
    if right:
        return "right"
    if judgement.accepted:
        return "wrong move"
    return {
        Verdict.IMPOSSIBLE: "impossible",
        Verdict.INCORRECT: "incorrect",
        Verdict.UNCLEAR: "unclear",
        Verdict.NO_MOVE: "no move",
    }[judgement.verdict]


def table(copies: int, seed: int, replace: bool) -> tuple[list[list[str]], float]:
    rows: list[list[str]] = []
    longest = 0.0
    for name in NOTATIONS:
        rng = random.Random(f"{seed}-{name}-{replace}")
        counts: collections.Counter[str] = collections.Counter()
        for index in range(copies):
            layout = LAYOUTS[index % len(LAYOUTS)]
            copy = make_copy(rng, name, layout, black=bool(index % 2), replace=replace)
            began = time.perf_counter()
            judgement = judge(copy.text, copy.board, copy.notation)
            longest = max(longest, time.perf_counter() - began)
            counts["tried"] += 1
            counts[outcome(copy, judgement)] += 1
        rows.append([name, *(str(counts[c]) for c in COLUMNS)])
    return rows, longest


def show(title: str, rows: list[list[str]]) -> None:
    header = ["notation", *COLUMNS]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    print(title)
    for row in [header, *rows]:
        print("  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True)))
    print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=3000, help="copies per notation and kind")
    parser.add_argument("--seed", type=int, default=30)
    args = parser.parse_args()
    began = time.perf_counter()
    for replace, title in ((False, "intact copies"), (True, "copies with one move replaced")):
        rows, longest = table(args.copies, args.seed, replace)
        show(f"{title} (slowest judgement {longest * 1000:.1f} ms)", rows)
    print(f"{time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
