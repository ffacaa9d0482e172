"""An import writes each new game with its first deadline, in bounded memory, and shows
how far it has come on a terminal only.

The first deadline the import stores is the one a sweep would store (one reading of
the deadlines, :mod:`mailbot.rules.due`): the first sweep after an import reads no
game and sends nothing, and on the day the first deadline comes every game is due.
The games are written without an object of each held in the session, and the start
mails list each player's games without loading the event's.
"""

from __future__ import annotations

import datetime
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from harness import mailbot
from mailservers import SmtpSink
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from mailbot.compose.notifier import Notifier
from mailbot.desk import deadlines
from mailbot.desk.sweep import due_games, sweep
from mailbot.rules.events import TournamentStarted
from mailbot.store.engine import make_engine, session_factory
from mailbot.store.models import RECHECK, Base, Game, Outbox
from mailbot.store.startlist import StartList, start_list_from_mapping
from mailbot.store.tournaments import import_start_list

UTC = datetime.UTC
SENDER = "Federation CC <bot@federation.example>"
START = datetime.date(2026, 3, 1)
IMPORTED = datetime.datetime(2026, 2, 20, 12, tzinfo=UTC)
ROOT = Path(__file__).resolve().parent.parent


def round_robin(index: str, profile: str, players: int, **more: object) -> StartList:
    return start_list_from_mapping(
        {
            "index": index,
            "name": f"Cup {index}",
            "profile": profile,
            "start": START,
            "end": datetime.date(2026, 12, 31),
            "director": {"name": "Tom Director", "email": "td@federation.example"},
            "players": [
                {"id": f"p{i}", "name": f"Player {i}", "email": f"p{i}.{index.lower()}@example.org"}
                for i in range(1, players + 1)
            ],
            "games": "round-robin",
            **more,
        }
    )


def stored_due(session: Session) -> dict[int, datetime.datetime | None]:
    return {game: at for game, at in session.execute(select(Game.id, Game.due_at))}


@pytest.mark.parametrize(
    ("profile", "more"),
    [
        ("bg-email", {}),
        ("bg-post", {}),
        ("iccf-postal", {"timezone": "America/New_York"}),
        ("iccf-server", {"rules": {"days_per_control": 40}}),
    ],
)
def test_each_new_game_is_first_due_when_a_sweep_would_store_it(
    db_url: str, profile: str, more: dict[str, object]
) -> None:
    engine = make_engine(db_url)
    Base.metadata.create_all(engine)
    sessions = session_factory(engine)
    try:
        with sessions.begin() as session:
            import_start_list(session, round_robin("R-1", profile, 6, **more), IMPORTED)
        with sessions() as session:
            imported = stored_due(session)
        assert len(imported) == 15
        assert RECHECK not in imported.values() and None not in imported.values()
        # what a sweep stores for the same games when it has to read each
        with sessions.begin() as session:
            session.execute(update(Game).values(due_at=RECHECK))
        assert sweep(sessions, SENDER, IMPORTED).line() == "sweep: nothing due"
        with sessions() as session:
            assert stored_due(session) == imported
            g = session.scalars(select(Game).limit(1)).one()
            assert deadlines.next_due(g, IMPORTED) == imported[g.id]
    finally:
        engine.dispose()


def test_the_first_sweep_after_an_import_reads_no_game_and_sends_nothing(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(db_url)
    Base.metadata.create_all(engine)
    sessions = session_factory(engine)
    read: list[int] = []
    plan = deadlines.plan
    monkeypatch.setattr(deadlines, "plan", lambda g: read.append(g.id) or plan(g))
    try:
        with sessions.begin() as session:
            import_start_list(session, round_robin("Q-1", "bg-email", 20), IMPORTED)
        with sessions() as session:
            imported = stored_due(session)
        first = datetime.datetime(2026, 3, 1, 12, tzinfo=UTC)

        assert sweep(sessions, SENDER, first).line() == "sweep: nothing due"

        assert read == []
        with sessions() as session:
            assert stored_due(session) == imported
            assert session.scalar(select(func.count(Outbox.id))) == 0
            # the stored deadline is not late: the instant it comes, every game is due
            (at,) = set(imported.values())
            assert at is not None
            assert session.scalars(due_games(at - datetime.timedelta(seconds=1))).all() == []
            assert len(session.scalars(due_games(at)).all()) == 190
    finally:
        engine.dispose()


def test_an_import_holds_no_game_object_in_its_session(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    Base.metadata.create_all(engine)
    try:
        with session_factory(engine).begin() as session:
            start_list = round_robin("M-1", "bg-email", 40)
            t = import_start_list(session, start_list, IMPORTED)
            notifier = Notifier(session, SENDER, IMPORTED)
            notifier.tell(TournamentStarted(t.id))
            held = [o for o in session.identity_map.values() if isinstance(o, Game)]
            assert held == []
            assert len(notifier.queued) == 41
            # each start mail still lists the player's 39 games, and the director's the event
            mail = next(r for r in notifier.queued if r.to_addrs == ["p7.m-1@example.org"])
            assert "Your games (39):" in mail.text_body
            listed = [x.strip() for x in mail.text_body.splitlines() if x.strip().startswith("[")]
            mine = [g for g in start_list.games if "p7" in (g.white, g.black)]
            assert len(listed) == len(mine) == 39
            for line, g in zip(listed, mine, strict=True):
                opponent = (g.black if g.white == "p7" else g.white).removeprefix("p")
                colour = "White" if g.white == "p7" else "Black"
                assert (
                    line == f"[M-1/{g.number}] {colour} against Player {opponent} (round {g.round})"
                )
            director = next(r for r in notifier.queued if r.to_addrs == ["td@federation.example"])
            assert "40 players, 780 games in 39 rounds" in director.text_body
        with session_factory(engine)() as session:
            assert session.scalar(select(func.count(Game.id))) == 780
    finally:
        engine.dispose()


def start_files(tmp_path: Path, db_url: str, smtp: SmtpSink, players: int) -> list[str]:
    """The command line of ``tournament import`` of a round robin of ``players``."""
    lines = [
        "index: BAR-1",
        "name: Cup",
        "profile: bg-email",
        "start: 2026-03-01",
        "end: 2026-12-31",
        "director: {name: Tom Director, email: td@federation.example}",
        "players:",
        *(f"  - {{id: p{i}, name: Player {i}, email: p{i}@example.org}}" for i in range(players)),
        "games: round-robin",
    ]
    (tmp_path / "start.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "config.yaml").write_text(
        f"database: {db_url}\ntimezone: Europe/Sofia\n"
        "imap: {host: 127.0.0.1, port: 1, security: none, username: bot, password: x,"
        " folder: INBOX, done_folder: Processed}\n"
        f"smtp: {{host: 127.0.0.1, port: {smtp.port}, security: none, username: '',"
        " password: '', sender: 'Federation CC <bot@federation.example>'}\n",
        encoding="utf-8",
    )
    made = mailbot("-c", str(tmp_path / "config.yaml"), "init")  # the terminal is the import's
    assert made.returncode == 0, made.stderr
    return [sys.executable, "-m", "mailbot", "-c", str(tmp_path / "config.yaml"),
            "tournament", "import", str(tmp_path / "start.yaml"),
            "--now", "2026-02-20T12:00"]  # fmt: skip


def test_a_terminal_sees_the_games_written_and_a_pipe_sees_nothing(
    tmp_path: Path, smtp_sink: SmtpSink
) -> None:
    # 46 players: 1,035 games, enough for the thousands' separator
    command = start_files(tmp_path, f"sqlite:///{tmp_path / 'bar.db'}", smtp_sink, 46)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    master, terminal = pty.openpty()
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=terminal, env=env)
        os.close(terminal)
        drawn = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal's other end is closed: all is read
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(master)
    assert done.returncode == 0, drawn
    assert "1,035 games" in done.stdout.decode() or "1035 games" in done.stdout.decode()
    shown = drawn.decode()
    assert re.search(r"\rgames ━{40} 1,035/1,035 \d:\d\d:\d\d\r?\n", shown), shown
    assert re.search(r"\rstart mails ━{40} 46/46 \d:\d\d:\d\d\r?\n", shown), shown

    piped = start_files(tmp_path, f"sqlite:///{tmp_path / 'piped.db'}", smtp_sink, 46)
    quiet = subprocess.run(piped, capture_output=True, env=env)
    assert quiet.returncode == 0, quiet.stderr
    assert "━" not in quiet.stderr.decode() and b"\r" not in quiet.stderr  # the log alone
