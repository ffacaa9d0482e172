"""Backup and restore of a national event: size and time, SQLite to PostgreSQL and back.

Imports a round robin of ``--players`` players (100 make 4,950 games) into an
SQLite file, has the desk handle ``--moves`` first moves as mail (each
leaves its raw message, its move and two answers in the outbox), then times

- ``backup`` of the SQLite file, and the file's size;
- ``restore`` of that file into a fresh PostgreSQL schema (``--database``);
- ``backup`` of the PostgreSQL schema, and ``restore`` into a new SQLite file;

and checks that the last database holds as many rows as the first::

    python bench/backup.py
    python bench/backup.py --players 30 --moves 50
    python bench/backup.py --database postgresql+psycopg://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import datetime
import resource
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from backlog import database
from sqlalchemy import func, select
from sweep import round_robin

from mailbot.desk.pipeline import Desk, Outcome, Policy
from mailbot.mail.inbox import Fetched
from mailbot.store.backup import _tables, backup, restore
from mailbot.store.engine import make_engine, session_factory
from mailbot.store.models import Game
from mailbot.store.schema import upgrade
from mailbot.store.tournaments import import_start_list

UTC = datetime.UTC
SENDER = "Federation CC <bot@federation.example>"


def rows(url: str) -> int:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return sum(
                connection.execute(select(func.count()).select_from(t)).scalar_one()
                for t in _tables(connection)
            )
    finally:
        engine.dispose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--moves", type=int, default=300, help="first moves played by mail")
    parser.add_argument(
        "--database",
        default="postgresql+psycopg://postgres@127.0.0.1:5432/test",
        help="the PostgreSQL database to restore into (a new schema in it)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mailbot-backup-") as folder_name:
        folder = Path(folder_name)
        source = f"sqlite:///{folder / 'club.db'}"
        upgrade(source)
        engine = make_engine(source)
        sessions = session_factory(engine)
        start_list = round_robin("BAK-1", "Backup benchmark", args.players)
        with sessions.begin() as session:
            import_start_list(session, start_list, datetime.datetime(2026, 2, 20, tzinfo=UTC))
        desk = Desk(sessions, Policy(sender=SENDER, timezone="Europe/Sofia"))
        with sessions() as session:
            games = session.execute(
                select(Game.number, Game.white_id).order_by(Game.number).limit(args.moves)
            ).all()
            emails = {g.number: g.white.email for g in session.scalars(select(Game))}
        handled = 0
        for uid, (number, _) in enumerate(games, start=1):
            when = datetime.datetime(2026, 3, 2, 9, tzinfo=UTC) + datetime.timedelta(minutes=uid)
            raw = (
                f"From: {emails[number]}\r\nTo: bot@federation.example\r\n"
                f"Subject: [BAK-1/{number}] move\r\nMessage-ID: <m{uid}@players.example>\r\n"
                f"\r\n1. e2-e4\r\n\r\n-- \r\nA player's signature, as mail has one\r\n"
            ).encode()
            handled += desk.receive(Fetched("INBOX", 1, uid, raw, when), when) is Outcome.HANDLED
        engine.dispose()
        total = rows(source)
        print(f"players: {args.players}, games: {len(emails)}, moves by mail: {handled}")
        print(f"rows in the store: {total}")

        first = folder / "club.mailbot-backup"
        summary = backup(source, first)
        print(f"backup  (SQLite):     {summary.seconds:6.2f} s, {summary.size / 1024:8.0f} KiB")
        with database(args.database, folder) as federation:
            loaded = restore(federation, first)
            print(f"restore (PostgreSQL): {loaded.seconds:6.2f} s, {loaded.rows} rows")
            second = folder / "federation.mailbot-backup"
            again = backup(federation, second)
            print(f"backup  (PostgreSQL): {again.seconds:6.2f} s, {again.size / 1024:8.0f} KiB")
        back = f"sqlite:///{folder / 'back.db'}"
        home = restore(back, second)
        print(f"restore (SQLite):     {home.seconds:6.2f} s, {home.rows} rows")
        same = rows(back) == total
        print(f"rows after the round trip: {rows(back)} ({'the same' if same else 'DIFFERENT'})")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"peak RSS: {peak} MiB")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
