"""A big round robin imported as the operator imports it, then the first sweeps after it.

Creates a database (an SQLite file by default, or a fresh schema in the
PostgreSQL database given with ``--database``), writes the start list of a
round robin of ``--players`` players (448 make 100,128 games) and runs
``python -m mailbot -c CONFIG tournament import FILE`` as a separate process
against an SMTP listener on loopback that takes the start mails and parses
nothing. The import is timed from the process's start to its exit, and its
peak RSS is the child's ``ru_maxrss`` from ``os.wait4``. Then, in this
process, it times

- the first sweep after the import (the day the event starts);
- a quiet sweep the next day;

and says how many games each found due before it ran::

    python bench/imports.py                       # 448 players, 100,128 games, SQLite
    python bench/imports.py --players 142         # 10,011 games
    python bench/imports.py --database postgresql+psycopg://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from backlog import TimedSink, database
from sqlalchemy import func, select
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from mailbot.desk.sweep import due_games, sweep
from mailbot.shell.collector import tune_collector
from mailbot.store.engine import make_engine, session_factory
from mailbot.store.models import Game, Outbox
from mailbot.store.schema import upgrade

UTC = datetime.UTC
SENDER = "Federation CC <bot@federation.example>"
START = datetime.date(2026, 3, 1)
#: When the import runs: a week before the start.
IMPORTED = datetime.datetime(2026, 2, 20, 12, tzinfo=UTC)
ROOT = Path(__file__).resolve().parent.parent


def start_list(players: int) -> dict[str, object]:
    """A bg-email round robin of ``players`` players p1... from :data:`START`."""
    return {
        "index": "IMPORT-1",
        "name": "Import benchmark",
        "profile": "bg-email",
        "start": START.isoformat(),
        "end": (START + datetime.timedelta(days=700)).isoformat(),
        "language": "en",
        "notation": "en",
        "director": {"name": "Tom Director", "email": "td@federation.example"},
        "players": [
            {"id": f"p{i}", "name": f"Player {i}", "email": f"p{i}@players.example"}
            for i in range(1, players + 1)
        ],
        "games": "round-robin",
    }


def config(url: str, smtp_port: int) -> dict[str, object]:
    """The bot's configuration: the database and the listener (no IMAP server is used)."""
    return {
        "database": url,
        "timezone": "Europe/Sofia",
        "imap": {"host": "127.0.0.1", "port": 1, "security": "none", "username": "bot",
                 "password": "unused", "folder": "INBOX", "done_folder": "Processed"},
        "smtp": {"host": "127.0.0.1", "port": smtp_port, "security": "none", "username": "",
                 "password": "", "sender": SENDER},
    }  # fmt: skip


def run_import(folder: Path, url: str, players: int, sink: TimedSink) -> tuple[float, int, str]:
    """The import as a process of its own: seconds, peak RSS in MiB, and its report line."""
    listing = folder / "start-list.yaml"
    listing.write_text(yaml.safe_dump(start_list(players), sort_keys=False), encoding="utf-8")
    settings = folder / "config.yaml"
    settings.write_text(yaml.safe_dump(config(url, sink.port)), encoding="utf-8")
    command = [sys.executable, "-m", "mailbot", "-c", str(settings), "tournament", "import",
               str(listing), "--now", IMPORTED.isoformat()]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out, err = folder / "import.out", folder / "import.err"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        began = time.perf_counter()
        child = subprocess.Popen(command, stdout=stdout, stderr=stderr, env=env, cwd=ROOT)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - began
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.stderr.write(err.read_text(encoding="utf-8", errors="replace"))
        raise SystemExit(f"the import failed (exit status {child.returncode})")
    return seconds, usage.ru_maxrss // 1024, out.read_text(encoding="utf-8").strip()


def timed_sweep(
    what: str, sessions: sessionmaker[Session], now: datetime.datetime
) -> tuple[float, int]:
    """One sweep at ``now``: prints its seconds, the games due before it and its report."""
    with sessions() as session:
        due = session.scalar(select(func.count()).select_from(due_games(now).subquery())) or 0
    began = time.perf_counter()
    line = sweep(sessions, SENDER, now).line()
    seconds = time.perf_counter() - began
    print(f"{what:<18}{seconds:.3f} s  ({due} games due; {line})")
    return seconds, due


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--players", type=int, default=448, help="players of the round robin")
    parser.add_argument("--database", help="a PostgreSQL URL (default: an SQLite file)")
    args = parser.parse_args()
    if args.players < 2:
        parser.error("--players: at least 2")
    sink = TimedSink()
    sink.controller.start()
    try:
        with (
            tempfile.TemporaryDirectory(prefix="mailbot-imports-") as scratch,
            database(args.database, Path(scratch)) as url,
        ):
            upgrade(url)
            print(f"database:         {make_url(url).get_backend_name()}")
            seconds, rss, line = run_import(Path(scratch), url, args.players, sink)
            engine = make_engine(url)
            sessions = session_factory(engine)
            with sessions() as session:
                games = session.scalar(select(func.count(Game.id))) or 0
                queued = session.scalar(select(func.count(Outbox.id))) or 0
            print(f"games:            {games} ({args.players} players)")
            print(f"import            {seconds:.3f} s  (the whole process)")
            print(f"peak RSS:         {rss} MiB (the import process)")
            print(f"start mails:      {queued} queued, {len(sink.arrivals)} reached the listener")
            print(f"import report:    {line}")
            first_at = datetime.datetime(2026, 3, 1, 12, tzinfo=UTC)
            first, _ = timed_sweep("first sweep", sessions, first_at)
            print(f"per game:         {first / max(games, 1) * 1e6:.1f} us (first sweep)")
            quiet_at = datetime.datetime(2026, 3, 2, 12, tzinfo=UTC)
            timed_sweep("quiet sweep", sessions, quiet_at)
            engine.dispose()
    finally:
        sink.controller.stop()
    return 0


if __name__ == "__main__":
    tune_collector()  # the sweeps run in this process: set it up as `mailbot` is
    raise SystemExit(main())
