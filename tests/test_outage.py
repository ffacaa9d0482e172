"""The store's own faults stop the pass, and no message is charged for them.

Each fault is made real: a full filesystem (a small tmpfs under the SQLite
file), a read-only database file (the bot run without root's capabilities, so
that the file's mode binds it as it binds a service user), and a PostgreSQL
role whose transactions the server makes read-only. Each test then clears the
fault and checks that every move is applied exactly once: the game's moves,
the opponent's mail, the folders of the mailbox.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from conftest import POSTGRES_URL, require_postgres
from faults import (  # noqa: F401 (fixtures)
    Daemons,
    daemons,
    event_dates,
    unavailable,
    within,
    write_daemon_config,
)
from harness import Federation
from mailservers import ImapAccount, SmtpSink
from sqlalchemy import create_engine, select, text
from sqlalchemy.engine import make_url

from mailbot.store.models import Game, InboundMessage, Move

SOFIA = ZoneInfo("Europe/Sofia")
GAMES = 12


def start_list(
    index: str, start: datetime.date = datetime.date(2026, 1, 1),
    end: datetime.date = datetime.date(2027, 6, 30),
) -> str:  # fmt: skip
    """The event ``index``: twelve games, from ``start`` to ``end``."""
    players = "\n".join(
        f"  - {{id: p{i:02d}, name: Player {i:02d}, email: p{i:02d}@players.example}}"
        for i in range(1, 2 * GAMES + 1)
    )
    games = "\n".join(
        f"  - {{white: p{2 * g - 1:02d}, black: p{2 * g:02d}}}" for g in range(1, GAMES + 1)
    )
    return f"""\
index: {index}
name: Outage cup
profile: bg-email
start: {start.isoformat()}
end: {end.isoformat()}
language: en
notation: en
director: {{name: Tom Director, email: td@federation.example}}
players:
{players}
games:
{games}
"""


def at(day: int, hour: int = 9) -> datetime.datetime:
    return datetime.datetime(2026, 1, day, hour, tzinfo=SOFIA)


#: A long signature, as some mail clients add: it makes each message's row large.
SIGNATURE = "\n-- \n" + "\n".join(f"Chess club of the town, line {i} " * 4 for i in range(60))


def deliver_first_moves(fed: Federation, when: datetime.datetime | None = None) -> None:
    """White's first move in every game, arriving at ``when`` (by default 2 January 2026)."""
    for g in range(1, GAMES + 1):
        fed.write(f"p{2 * g - 1:02d}@players.example", f"1. e2-e4\n{SIGNATURE}", when or at(2, 9))


def played(fed: Federation) -> dict[int, list[str]]:
    """Each game's moves, by game number."""
    with fed.sessions() as session:
        rows = session.execute(
            select(Game.number, Move.uci).join(Move, isouter=True).order_by(Game.number, Move.ply)
        ).all()
    games: dict[int, list[str]] = {}
    for number, uci in rows:
        games.setdefault(number, [])
        if uci is not None:
            games[number].append(uci)
    return games


def charged(fed: Federation) -> list[tuple[str, int]]:
    """The messages that were counted as failed or quarantined: (status, attempts)."""
    with fed.sessions() as session:
        return [
            (status, attempts)
            for status, attempts in session.execute(
                select(InboundMessage.status, InboundMessage.attempts).where(
                    (InboundMessage.attempts > 0) | (InboundMessage.status == "quarantined")
                )
            ).all()
        ]


def move_mails(fed: Federation) -> dict[str, int]:
    """How many move mails each Black player received."""
    return {
        f"p{2 * g:02d}": sum(
            1
            for r in fed.received(f"p{2 * g:02d}@players.example")
            if r.message["X-Mailbot-Event"] == "move"
        )
        for g in range(1, GAMES + 1)
    }


def poll(fed: Federation, *prefix: str) -> subprocess.CompletedProcess[str]:
    """``mailbot poll --once`` as a process, as an operator or a timer runs it."""
    assert fed.config_path is not None
    return subprocess.run(
        [*prefix, sys.executable, "-m", "mailbot", "-c", str(fed.config_path), "poll", "--once",
         "--now", at(3).isoformat()],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def assert_applied_once(fed: Federation) -> None:
    assert played(fed) == {g: ["e2e4"] for g in range(1, GAMES + 1)}
    assert move_mails(fed) == {f"p{2 * g:02d}": 1 for g in range(1, GAMES + 1)}
    assert fed.pending_in_inbox() == 0
    assert fed.in_folder("Processed") == GAMES
    assert fed.in_folder("Quarantine") == 0
    assert charged(fed) == []


# -- a full disk ---------------------------------------------------------------


@contextlib.contextmanager
def small_disk(where: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``where`` (root may mount one)."""
    where.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        unavailable(f"cannot mount a tmpfs for the full-disk test: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(disk: Path, room: int) -> Path:
    """Fill ``disk`` with a ballast file until only about ``room`` bytes are free."""
    ballast = disk / "ballast"
    free = shutil.disk_usage(disk).free
    with ballast.open("wb") as f:
        f.write(b"\0" * max(0, free - room))
    return ballast


@contextlib.contextmanager
def full_disk(
    tmp_path: Path, imap: ImapAccount, smtp: SmtpSink, start_list: str, moved: datetime.datetime
) -> Iterator[tuple[Federation, Path]]:
    """A federation whose SQLite file lies on a small disk, White's first moves in the
    inbox (arrived at ``moved``), and the ballast that fills the disk."""
    with small_disk(tmp_path / "disk", "3m") as disk:
        url = f"sqlite:///{disk / 'mailbot.db'}"
        fed = Federation(url, imap, smtp, start_list, tmp_path)
        try:
            deliver_first_moves(fed, moved)
            yield fed, fill(disk, 48 * 1024)
        finally:
            fed.close()


@pytest.fixture
def full_disk_federation(
    tmp_path: Path, imap_account: ImapAccount, smtp_sink: SmtpSink
) -> Iterator[tuple[Federation, Path]]:
    """:func:`full_disk` of an event of 2026, polled with ``--now`` on 3 January."""
    with full_disk(tmp_path, imap_account, smtp_sink, start_list("FULL"), at(2, 9)) as made:
        yield made


@pytest.fixture
def full_disk_now(
    tmp_path: Path, imap_account: ImapAccount, smtp_sink: SmtpSink
) -> Iterator[tuple[Federation, Path]]:
    """:func:`full_disk` for the daemon, which runs on the real date: an event that began
    a week ago and runs for a year (:func:`faults.event_dates`), the moves arrived now."""
    start, end = event_dates()
    events = start_list("FULL", start, end)
    moved = datetime.datetime.now(datetime.UTC)
    with full_disk(tmp_path, imap_account, smtp_sink, events, moved) as made:
        yield made


@pytest.mark.slow
def test_a_full_disk_stops_the_poll_and_no_move_is_lost(
    full_disk_federation: tuple[Federation, Path],
) -> None:
    fed, ballast = full_disk_federation
    first = poll(fed)
    assert first.returncode == 1, first.stderr
    (line,) = [x for x in first.stderr.splitlines() if x.startswith("mailbot:")]
    assert "cannot write: the disk or the quota is full" in line
    assert "free space on the disk that holds it" in line
    # nothing was charged to the messages: they all wait in the inbox
    assert fed.pending_in_inbox() == GAMES
    assert fed.in_folder("Quarantine") == 0
    assert charged(fed) == []
    assert sum(move_mails(fed).values()) == 0

    ballast.unlink()  # the operator frees the disk
    second = poll(fed)
    assert second.returncode == 0, second.stderr
    assert f"handled={GAMES}" in second.stdout
    assert_applied_once(fed)
    third = poll(fed)  # and nothing happens twice
    assert third.returncode == 0 and "handled" not in third.stdout
    assert_applied_once(fed)


@pytest.mark.slow
def test_the_daemon_waits_out_a_full_disk_and_resumes_by_itself(
    full_disk_now: tuple[Federation, Path],
    daemons: Daemons,  # noqa: F811
    tmp_path: Path,
) -> None:
    fed, ballast = full_disk_now
    config = write_daemon_config(tmp_path / "daemon.yaml", fed.mapping)
    daemon = daemons.start(config)
    within(daemon, lambda: "cannot write: the disk or the quota is full" in daemon.output(), 60,
           "the full disk reported")  # fmt: skip
    assert daemon.proc.poll() is None  # still running
    assert fed.pending_in_inbox() == GAMES and charged(fed) == []

    ballast.unlink()
    within(daemon, lambda: all(played(fed).values()), 90, "every move played")
    within(daemon, lambda: fed.pending_in_inbox() == 0, 30, "the inbox filed")
    within(daemon, lambda: sum(move_mails(fed).values()) == GAMES, 30, "the moves forwarded")
    assert "working again after: the database" in daemon.output()
    said = [x for x in daemon.output().splitlines() if "the disk or the quota is full" in x]
    assert len(said) == 2, said  # one line when it went, one when it came back
    assert "WARNING" in said[0] and "trying again in" in said[0]
    assert_applied_once(fed)


# -- a read-only database file -----------------------------------------------------

#: Root without its capabilities obeys file modes as an unprivileged service user does.
WITHOUT_ROOTS_POWERS = ("setpriv", "--bounding-set=-all", "--inh-caps=-all")


@pytest.mark.slow
def test_a_read_only_database_file_stops_the_poll_until_its_mode_is_fixed(
    tmp_path: Path, imap_account: ImapAccount, smtp_sink: SmtpSink
) -> None:
    if shutil.which("setpriv") is None:
        unavailable("setpriv (util-linux) is needed to run the bot without root's powers")
    folder = tmp_path / "state"
    folder.mkdir()
    database = folder / "mailbot.db"
    fed = Federation(f"sqlite:///{database}", imap_account, smtp_sink, start_list("RO"), tmp_path)
    try:
        deliver_first_moves(fed)
        fed.engine.dispose()
        database.chmod(0o444)  # as a restore done by root may leave it
        first = poll(fed, *WITHOUT_ROOTS_POWERS)
        assert first.returncode == 1, first.stderr
        (line,) = [x for x in first.stderr.splitlines() if x.startswith("mailbot:")]
        assert "cannot write: it is read-only" in line, line
        assert "may write the database file, its folder and the file's -wal and -shm" in line
        assert fed.pending_in_inbox() == GAMES
        assert fed.in_folder("Quarantine") == 0
        assert charged(fed) == []

        # SQLite made the log and shared-memory files of the write-ahead log as the
        # database's mode was (read-only): they are fixed with it, as the line says
        for name in ("mailbot.db", "mailbot.db-wal", "mailbot.db-shm"):
            if (folder / name).exists():
                (folder / name).chmod(0o644)
        second = poll(fed, *WITHOUT_ROOTS_POWERS)
        assert second.returncode == 0, second.stderr
        assert_applied_once(fed)
    finally:
        fed.close()


# -- a PostgreSQL server that takes no writes ----------------------------------------


@pytest.fixture
def read_only_role() -> Iterator[tuple[str, Callable[[bool], None]]]:
    """A role of its own with a schema it owns; the callable sets whether the server
    makes its transactions read-only (``default_transaction_read_only``)."""
    require_postgres()
    name = f"ro_{uuid.uuid4().hex[:12]}"
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE ROLE "{name}" LOGIN'))
        c.execute(text(f'CREATE SCHEMA "{name}" AUTHORIZATION "{name}"'))

    def read_only(on: bool) -> None:
        with admin.connect() as c:
            if on:
                c.execute(text(f'ALTER ROLE "{name}" SET default_transaction_read_only = on'))
            else:
                c.execute(text(f'ALTER ROLE "{name}" RESET default_transaction_read_only'))

    url = make_url(POSTGRES_URL).set(username=name)
    url = url.update_query_dict({"options": f"-csearch_path={name}"})
    try:
        yield url.render_as_string(hide_password=False), read_only
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP SCHEMA "{name}" CASCADE'))
            c.execute(text(f'DROP OWNED BY "{name}"'))
            c.execute(text(f'DROP ROLE "{name}"'))
        admin.dispose()


@pytest.mark.slow
def test_a_read_only_postgresql_server_stops_the_poll_until_it_takes_writes(
    tmp_path: Path,
    imap_account: ImapAccount,
    smtp_sink: SmtpSink,
    read_only_role: tuple[str, Callable[[bool], None]],
) -> None:
    url, read_only = read_only_role
    fed = Federation(url, imap_account, smtp_sink, start_list("PGRO"), tmp_path)
    try:
        deliver_first_moves(fed)
        read_only(True)
        fed.engine.dispose()
        first = poll(fed)
        assert first.returncode == 1, first.stderr
        (line,) = [x for x in first.stderr.splitlines() if x.startswith("mailbot:")]
        assert "cannot write: it is read-only" in line, line
        assert "read-only transaction" in line
        assert fed.pending_in_inbox() == GAMES
        assert charged(fed) == []

        read_only(False)
        fed.engine.dispose()
        second = poll(fed)
        assert second.returncode == 0, second.stderr
        assert_applied_once(fed)
    finally:
        fed.close()


def test_the_store_probe_tells_a_write_refused_from_a_store_that_writes(
    tmp_path: Path,
) -> None:
    """The check that comes before any unrecorded quarantine: a real read-only file."""
    from mailbot.store.engine import make_engine, session_factory
    from mailbot.store.outage import Fault, probe

    database = tmp_path / "probe.db"
    engine = make_engine(f"sqlite:///{database}")
    sessions = session_factory(engine)
    assert probe(sessions) is None
    engine.dispose()
    code = (
        "import sys; from mailbot.store.outage import probe; "
        "from mailbot.store.engine import make_engine, session_factory; "
        f"f = probe(session_factory(make_engine('sqlite:///{database}'))); "
        "print(f.kind.value if f else 'none')"
    )
    database.chmod(0o444)
    done = subprocess.run(
        [*WITHOUT_ROOTS_POWERS, sys.executable, "-c", code],
        capture_output=True, text=True, check=False, env={**os.environ},
    )  # fmt: skip
    assert done.stdout.strip() == Fault.READ_ONLY.value, done.stderr
