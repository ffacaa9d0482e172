"""The daily deadline sweep over a big event: quiet, and with some games due.

Creates a database (an SQLite file by default, or a fresh schema in the
PostgreSQL database given with ``--database``), imports one round robin of
about ``--games`` games (142 players make 10,011 games, 448 make 100,128),
and times

- the first sweep after the import (each game was written with its first
  deadline, so none is due yet);
- a quiet sweep the next day, when nothing is due;
- a quiet sweep nine days later, after ``--due`` per cent of the games had
  a first move on the first day (their deadlines are stored, not yet due);
- a sweep fifteen days after the start, when those games' first move has
  waited fourteen days for its answer (a repeat is due in each);
- the same sweep once more at the same instant (nothing is sent twice), and
  the next day's (quiet again: the repeated games' next deadlines are stored).

The mail the sweep queues stays in the outbox (nothing is sent)::

    python bench/sweep.py                      # 10,011 games, SQLite
    python bench/sweep.py --games 100000 --due 1
    python bench/sweep.py --database postgresql+psycopg://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import datetime
import math
import multiprocessing
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from backlog import database
from sqlalchemy import func, select
from sqlalchemy.engine import make_url

from mailbot.desk.sweep import sweep
from mailbot.shell.collector import tune_collector
from mailbot.store.engine import make_engine, session_factory
from mailbot.store.models import Game, Move, Outbox
from mailbot.store.schema import upgrade
from mailbot.store.startlist import StartList, start_list_from_mapping
from mailbot.store.tournaments import import_start_list

UTC = datetime.UTC
SENDER = "Federation CC <bot@federation.example>"
START = datetime.date(2026, 3, 1)


def round_robin(index: str, name: str, players: int) -> StartList:
    """A bg-email round robin of ``players`` players p1... from START (a benchmark's event)."""
    return start_list_from_mapping(
        {
            "index": index,
            "name": name,
            "profile": "bg-email",
            "start": START,
            "end": START + datetime.timedelta(days=700),
            "director": {"name": "Tom Director", "email": "td@federation.example"},
            "players": [
                {"id": f"p{i}", "name": f"Player {i}", "email": f"p{i}@example.org"}
                for i in range(1, players + 1)
            ],
            "games": "round-robin",
        }
    )


def timed(what: str, run: object) -> float:
    began = time.perf_counter()
    result = run()  # type: ignore[operator]
    seconds = time.perf_counter() - began
    print(f"{what:<18}{seconds:.3f} s" + (f"  ({result})" if result is not None else ""))
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="games (about)")
    parser.add_argument("--due", type=float, default=1.0, help="per cent of games due")
    parser.add_argument("--database", help="a PostgreSQL URL (default: an SQLite file)")
    args = parser.parse_args()
    players = max(2, math.ceil((1 + math.sqrt(1 + 8 * args.games)) / 2))

    with (
        tempfile.TemporaryDirectory(prefix="mailbot-sweep-") as folder,
        database(args.database, Path(folder)) as url,
    ):
        upgrade(url)
        engine = make_engine(url)
        sessions = session_factory(engine)
        start_list = round_robin("SWEEP-1", "Sweep benchmark", players)
        created = datetime.datetime(2026, 2, 20, tzinfo=UTC)

        def load() -> None:
            with sessions.begin() as session:
                import_start_list(session, start_list, created)

        def load_apart() -> str:
            # the import holds every new row in memory: it runs in a child process,
            # so that the peak RSS printed at the end is the sweeps'
            child = multiprocessing.get_context("fork").Process(target=load)
            child.start()
            child.join()
            if child.exitcode != 0:
                raise SystemExit(f"the import failed (exit status {child.exitcode})")
            return "in a child process"

        print(f"database:         {make_url(url).get_backend_name()}")
        engine.dispose()  # no connection crosses the fork
        timed("import", load_apart)
        with sessions() as session:
            games = session.scalar(select(func.count(Game.id))) or 0
        print(f"games:            {games}")
        first_at = datetime.datetime(2026, 3, 1, 12, tzinfo=UTC)
        first = timed("first sweep", lambda: sweep(sessions, SENDER, first_at).line())
        print(f"per game:         {first / max(games, 1) * 1e6:.1f} us")
        quiet_at = datetime.datetime(2026, 3, 2, 12, tzinfo=UTC)
        timed("quiet sweep", lambda: sweep(sessions, SENDER, quiet_at).line())

        moved = datetime.datetime(2026, 3, 1, 9, tzinfo=UTC)
        due = max(1, round(games * args.due / 100))
        with sessions.begin() as session:
            for g in session.scalars(select(Game).order_by(Game.id).limit(due)):
                session.add(
                    Move(game=g, ply=1, uci="e2e4", san="e4", text="1. e2-e4", sent_at=moved)
                )
        # the day's sweep reads the games that changed and stores their new deadlines
        changed_at = datetime.datetime(2026, 3, 2, 13, tzinfo=UTC)
        timed(f"{due} moved", lambda: sweep(sessions, SENDER, changed_at).line())
        later = datetime.datetime(2026, 3, 11, 12, tzinfo=UTC)
        timed("quiet sweep", lambda: sweep(sessions, SENDER, later).line())
        due_at = datetime.datetime(2026, 3, 16, 12, tzinfo=UTC)
        timed(f"sweep, {due} due", lambda: sweep(sessions, SENDER, due_at).line())
        timed("quiet again", lambda: sweep(sessions, SENDER, due_at).line())
        next_day = due_at + datetime.timedelta(days=1)
        timed("next day", lambda: sweep(sessions, SENDER, next_day).line())
        with sessions() as session:
            queued = session.scalar(select(func.count(Outbox.id))) or 0
        print(f"mail queued:      {queued}")
        engine.dispose()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
    print(f"peak RSS:         {peak} MiB (this process: the sweeps); the import: {child} MiB")
    return 0


if __name__ == "__main__":
    tune_collector()  # the desk runs in this process: set it up as `mailbot` is
    raise SystemExit(main())
