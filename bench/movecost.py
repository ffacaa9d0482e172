"""Move cost at ply 200 against ply 2: one move e-mail in a long game and in a young one.

No mail server: like ``tests/deskbench.py``, messages go straight to
:meth:`mailbot.desk.pipeline.Desk.receive` (as the inbox hands them over), on an
SQLite file or, with ``--database``, a fresh schema of a PostgreSQL
database. The script imports one tournament of ``--long-games`` long games
and ``--moves`` young games, each between two players of its own, and plays
them through the desk (not timed): every long game to ``--plies`` plies
(200), every young game to ``--young`` plies (2), with random legal moves
from a fixed seed that end nothing and repeat nothing. Then it times the
desk on ``--moves`` more moves in the long games (``--moves / --long-games``
consecutive plies in each: 201, 202, ...) and one more move in each young
game (ply 3), a long game's and a young game's in turn, and prints the
milliseconds per move at each and their ratio::

    python bench/movecost.py                   # 50 moves at ply 200 and at ply 2, SQLite
    python bench/movecost.py --moves 10 --long-games 5 --plies 40
    python bench/movecost.py --long-games 50   # one timed move per long game (5x the setup)
    python bench/movecost.py --database postgresql+psycopg://postgres@127.0.0.1:5432/test

The clock is kept clean: a game moves one ply an hour, ten a day (five per
player, well under the daily reply cap of 20), each answer on the day its
writer received the opponent's move or the day after, so that no day counts
and nobody oversteps (``bg-email``: receipt day not counted, 50 days per 10
moves).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from zoneinfo import ZoneInfo

import chess

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from backlog import database, random_line, tournament, written
from deskbench import Bench
from sqlalchemy import event, func, select
from sqlalchemy.engine import make_url

from mailbot.desk.pipeline import Outcome
from mailbot.shell.collector import tune_collector
from mailbot.store.models import Game, Move

UTC = datetime.UTC
SOFIA = ZoneInfo("Europe/Sofia")
INDEX = "COST-1"
START = datetime.date(2026, 3, 1)
#: Hours of play a day (one ply an hour, from 08:00 local time): five plies per player.
PER_DAY = 10
#: The seconds at the start of each hour over which that hour's messages are spread.
SPREAD_SECONDS = 50 * 60


@dataclasses.dataclass(frozen=True)
class Table:
    """One game of the benchmark: its number, its players' addresses and its moves."""

    number: int
    white: str
    black: str
    line: list[chess.Move]
    #: A long game (else a young one).
    long: bool
    #: Each ply's message text, as its player writes it (``bodies[0]`` is ply 1).
    bodies: list[str] = dataclasses.field(init=False, repr=False)

    def __post_init__(self) -> None:
        board = chess.Board()
        bodies = []
        for ply, move in enumerate(self.line, 1):
            who = self.sender(ply).split("@")[0]
            bodies.append(f"{written(board, move)}\n\n-- \n{who}\n")
            board.push(move)
        object.__setattr__(self, "bodies", bodies)

    def sender(self, ply: int) -> str:
        """Who writes ply ``ply`` (1-based)."""
        return self.white if ply % 2 == 1 else self.black

    def message(self, bench: Bench, ply: int) -> bytes:
        """Ply ``ply`` (1-based) as its player mails it, the game's tag in the subject."""
        return bench.message(
            self.sender(ply), self.bodies[ply - 1], subject=f"[{INDEX}/{self.number}] move"
        )


#: One hour of play: the messages (game, ply) that arrive in it, in their order.
Hour = list[tuple[Table, int]]


def start_list(tables: list[Table]) -> str:
    """The tournament: the games of ``tables`` in their numbers' order."""
    pairs = [
        (t.white.split("@")[0], t.black.split("@")[0])
        for t in sorted(tables, key=lambda t: t.number)
    ]
    players = [(p, f"Player {p}") for pair in pairs for p in pair]
    return tournament(INDEX, "Move cost benchmark", START, players, pairs)


def arrival(step: int, place: int, count: int) -> datetime.datetime:
    """When the message in ``place`` (of ``count``) of hour ``step`` (1-based) arrives.

    Ten hours of play a day from the day after the start, from 08:00 local
    time; an hour's messages spread over its first fifty minutes.
    """
    day, hour = divmod(step - 1, PER_DAY)
    local = datetime.datetime.combine(
        START + datetime.timedelta(days=1 + day), datetime.time(8 + hour), tzinfo=SOFIA
    )
    offset = datetime.timedelta(seconds=place * SPREAD_SECONDS / max(count, 1))
    return (local + offset).astimezone(UTC)


def schedule(
    longs: list[Table], youngs: list[Table], plies: int, young: int, per_game: int
) -> tuple[list[Hour], list[Hour]]:
    """The hours of the setup and the hours of the timed moves.

    Setup: hour ``p`` brings ply ``p`` of every long game; the young games
    play their ``young`` plies in the last hours. Then hour ``plies + k``
    brings ply ``plies + k`` of every long game, and the next
    ``len(longs)`` young games' move ``young + 1``, a long game's and a young
    game's in turn.
    """
    setup: list[Hour] = []
    for p in range(1, plies + 1):
        hour: Hour = [(t, p) for t in longs]
        if p > plies - young:
            hour += [(t, p - (plies - young)) for t in youngs]
        setup.append(hour)
    timed: list[Hour] = []
    for k in range(per_game):
        batch = youngs[k * len(longs) : (k + 1) * len(longs)]
        hour = []
        for j, t in enumerate(longs):
            hour.append((t, plies + k + 1))
            if j < len(batch):
                hour.append((batch[j], young + 1))
        timed.append(hour)
    return setup, timed


@dataclasses.dataclass
class Run:
    """What the desk took: setup seconds, per setup ply and per timed move; what went wrong."""

    setup: float = 0.0
    by_ply: dict[int, list[float]] = dataclasses.field(default_factory=dict)
    timed: dict[bool, list[float]] = dataclasses.field(
        default_factory=lambda: {True: [], False: []}
    )
    #: the statements each timed move sent to the database, long games' and young ones'
    statements: dict[bool, list[int]] = dataclasses.field(
        default_factory=lambda: {True: [], False: []}
    )
    stored: dict[int, int] = dataclasses.field(default_factory=dict)
    failures: list[str] = dataclasses.field(default_factory=list)


def play(bench: Bench, tables: list[Table], setup: list[Hour], timed: list[Hour]) -> Run:
    """Play the setup hours through the desk, check every game's plies, then time the rest."""
    run = Run()

    def receive(t: Table, ply: int, step: int, place: int, count: int) -> float:
        raw = t.message(bench, ply)
        began = time.perf_counter()
        outcome = bench.receive(raw, arrival(step, place, count))
        seconds = time.perf_counter() - began
        if outcome is not Outcome.HANDLED:
            run.failures.append(f"game {t.number} ply {ply}: {outcome.value}")
        return seconds

    began = time.perf_counter()
    for step, hour in enumerate(setup, 1):
        for place, (t, ply) in enumerate(hour):
            run.by_ply.setdefault(ply, []).append(receive(t, ply, step, place, len(hour)))
    run.setup = time.perf_counter() - began
    played = {t.number: 0 for t in tables}
    for hour in setup:
        for t, ply in hour:
            played[t.number] = max(played[t.number], ply)
    run.stored = moves_by_game(bench)
    run.failures += mismatches(run.stored, played)
    if run.failures:
        return run
    sent: list[str] = []

    def count(*args: object) -> None:
        sent.append("")

    event.listen(bench.engine, "before_cursor_execute", count)
    for step, hour in enumerate(timed, len(setup) + 1):
        for place, (t, ply) in enumerate(hour):
            before = len(sent)
            run.timed[t.long].append(receive(t, ply, step, place, len(hour)))
            run.statements[t.long].append(len(sent) - before)
            played[t.number] = ply
    event.remove(bench.engine, "before_cursor_execute", count)
    run.stored = moves_by_game(bench)
    run.failures += mismatches(run.stored, played)
    return run


def moves_by_game(bench: Bench) -> dict[int, int]:
    """Plies stored per game number."""
    with bench.sessions() as session:
        rows = session.execute(
            select(Game.number, func.count(Move.id))
            .outerjoin(Move, Move.game_id == Game.id)
            .group_by(Game.number)
        ).all()
    return {int(number): int(count) for number, count in rows}


def mismatches(stored: dict[int, int], played: dict[int, int]) -> list[str]:
    """The games whose stored plies are not the plies played."""
    return [
        f"game {number}: {stored.get(number, 0)} plies stored, {plies} played"
        for number, plies in sorted(played.items())
        if stored.get(number, 0) != plies
    ]


def summary(values: list[float]) -> str:
    """Mean and median milliseconds of ``values`` (seconds), and how many."""
    if not values:
        return "no moves"
    return (
        f"mean {statistics.fmean(values) * 1000:.2f} ms, "
        f"median {statistics.median(values) * 1000:.2f} ms ({len(values)} moves)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=50, help="moves timed at each ply")
    parser.add_argument(
        "--long-games",
        type=int,
        default=10,
        metavar="N",
        help="long games the timed long moves are spread over (divides --moves; default 10)",
    )
    parser.add_argument("--plies", type=int, default=200, help="plies stored in the long games")
    parser.add_argument("--young", type=int, default=2, help="plies stored in the young games")
    parser.add_argument("--database", metavar="URL", help="SQLAlchemy URL (default: SQLite)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the games' moves")
    args = parser.parse_args(argv)
    n, k, plies, young = args.moves, args.long_games, args.plies, args.young
    if n < 1 or k < 1 or n % k:
        parser.error("need --moves >= 1 and --long-games >= 1 dividing it")
    if not 0 <= young < plies:
        parser.error("need 0 <= --young < --plies")
    per_game = n // k

    rng = random.Random(args.seed)
    longs = [
        Table(g, f"l{g:03d}w@players.example", f"l{g:03d}b@players.example", line, True)
        for g in range(1, k + 1)
        for line in [random_line(rng, plies + per_game)]
    ]
    youngs = [
        Table(g, f"y{g:03d}w@players.example", f"y{g:03d}b@players.example", line, False)
        for g in range(k + 1, k + n + 1)
        for line in [random_line(rng, young + 1)]
    ]
    tables = longs + youngs
    setup, timed = schedule(longs, youngs, plies, young, per_game)

    with (
        tempfile.TemporaryDirectory(prefix="mailbot-movecost-") as folder,
        database(args.database, Path(folder)) as url,
    ):
        bench = Bench(url, start_list(tables))
        try:
            run = play(bench, tables, setup, timed)
        finally:
            bench.close()
        backend = make_url(url).get_backend_name()

    at_long, at_young = run.timed[True], run.timed[False]
    print(f"database:         {backend}")
    last = f"-{plies + per_game}" if per_game > 1 else ""
    print(
        f"games:            {k} at ply {plies} (plies {plies + 1}{last} timed in each), "
        f"{n} at ply {young} (ply {young + 1} timed in each)"
    )
    total = sum(len(v) for v in run.by_ply.values())
    print(f"setup:            {run.setup:.1f} s ({total} moves through the desk, not timed)")
    bands = []
    for low in range(1, plies + 1, 50):
        high = min(low + 49, plies)
        band = [s for p in range(low, high + 1) for s in run.by_ply.get(p, [])]
        if band:
            bands.append(f"{low}-{high}: {statistics.fmean(band) * 1000:.1f}")
    print(f"setup by ply:     {', '.join(bands)} ms per move (mean)")
    print(f"at ply {plies}:".ljust(18) + summary(at_long))
    print(f"at ply {young}:".ljust(18) + summary(at_young))
    if at_long and at_young:
        mean_ratio = statistics.fmean(at_long) / statistics.fmean(at_young)
        median_ratio = statistics.median(at_long) / statistics.median(at_young)
        print(f"ratio:            {mean_ratio:.2f} (means), {median_ratio:.2f} (medians)")
    expected = k * (plies + per_game) + n * (young + 1)
    if at_long and at_young:
        print(
            f"statements:       {statistics.fmean(run.statements[True]):.1f} per move at ply "
            f"{plies}, {statistics.fmean(run.statements[False]):.1f} at ply {young} (mean)"
        )
    print(f"moves applied:    {sum(run.stored.values())} (expected {expected})")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS:         {peak:.0f} MiB (this process)")
    if run.failures:
        print("failed:\n  " + "\n  ".join(run.failures[:20]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    tune_collector()  # the desk runs in this process: set it up as `mailbot` is
    raise SystemExit(main())
