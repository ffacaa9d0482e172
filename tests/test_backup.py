"""Backup and restore: a tournament moves from SQLite to PostgreSQL and back and goes on.

A game is played through the desk (moves, an impossible move that costs five
days, the answers in the outbox), backed up, restored into an empty database
of the other kind, compared table by table and row by row, and then played
on there: the next move is applied and answered, its row ids follow the
restored ones, the sweep counts the deadlines from the restored dates, and
the evidence files tell the whole game.
"""

from __future__ import annotations

import datetime
import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from deskbench import BLACK, BOT, TD, WHITE, Bench, at
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from mailbot.desk.pipeline import Desk, Outcome, Policy
from mailbot.desk.sweep import sweep
from mailbot.mail.inbox import Fetched
from mailbot.publish.evidence import write_evidence
from mailbot.store.backup import BackupError, backup, encode, restore
from mailbot.store.backup import _tables as tables_of
from mailbot.store.engine import make_engine, session_factory
from mailbot.store.models import Game, Outbox
from mailbot.store.outbox import dismiss
from mailbot.store.schema import downgrade, migrations_head, schema_revision

GAME = "[PX-1/1] move"


def rows_of(url: str) -> dict[str, list[list[Any]]]:
    """Every table's rows, in id order, as the backup encodes them."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return {
                t.name: [
                    [encode(v) for v in row]
                    for row in connection.execute(
                        select(t).order_by(*(t.primary_key.columns or t.columns))
                    )
                ]
                for t in tables_of(connection)
            }
    finally:
        engine.dispose()


class Restored:
    """A desk on a restored database, as a daemon started on it would have."""

    def __init__(self, url: str) -> None:
        self.engine = make_engine(url)
        self.sessions = session_factory(self.engine)
        self.desk = Desk(
            self.sessions,
            Policy(sender=f"Federation CC <{BOT}>", timezone="Europe/Sofia"),
        )
        self.uid = 1000

    def send(self, sender: str, body: str, when: datetime.datetime) -> Outcome:
        self.uid += 1
        raw = (
            f"From: {sender}\r\nTo: {BOT}\r\nSubject: {GAME}\r\n"
            f"Message-ID: <r{self.uid}@players.example>\r\n\r\n{body}\r\n"
        ).encode()
        return self.desk.receive(Fetched("INBOX", 1, self.uid, raw, when), when)

    def moves(self) -> list[str]:
        with self.sessions() as session:
            g = session.scalars(select(Game).where(Game.number == 1)).one()
            return [m.uci for m in g.moves]

    def penalty_days(self) -> int:
        with self.sessions() as session:
            g = session.scalars(select(Game).where(Game.number == 1)).one()
            return sum(p.days for p in g.penalties)

    def outbox(self) -> list[Outbox]:
        with self.sessions() as session:
            return list(session.scalars(select(Outbox).order_by(Outbox.id)))

    def close(self) -> None:
        self.engine.dispose()


@pytest.fixture
def played(sqlite_url: str) -> Iterator[str]:
    """An SQLite store with a game under way: four plies and a five-day penalty."""
    bench = Bench(sqlite_url)
    try:
        assert bench.send(WHITE, "1. e2-e4", at(2, 10), subject=GAME) is Outcome.HANDLED
        assert bench.send(BLACK, "1... e7-e5", at(3, 10), subject=GAME) is Outcome.HANDLED
        assert bench.send(WHITE, "2. Ng1-f3", at(4, 10), subject=GAME) is Outcome.HANDLED
        assert bench.send(BLACK, "2... Ke8-e6", at(5, 10), subject=GAME) is Outcome.HANDLED
        assert bench.send(BLACK, "2... Nb8-c6", at(6, 10), subject=GAME) is Outcome.HANDLED
        assert bench.plies(1) == ["e2e4", "e7e5", "g1f3", "b8c6"]
        assert bench.game(1) == (None, 5)
    finally:
        bench.close()
    yield sqlite_url


def go_on(url: str, tmp_path: Path, day: int, move: str, expected: list[str]) -> None:
    """The restored store takes White's next move, answers it, sweeps and tells the game."""
    bot = Restored(url)
    try:
        before = bot.outbox()
        assert bot.penalty_days() == 5
        assert bot.send(WHITE, move, at(day, 10)) is Outcome.HANDLED
        assert bot.moves() == expected
        new = [r for r in bot.outbox() if r.id not in {b.id for b in before}]
        assert {r.event for r in new} >= {"move"}, [r.event for r in new]
        assert min(r.id for r in new) > max(r.id for r in before)
        forwarded = next(r for r in new if r.event == "move")
        assert forwarded.to_addrs == [BLACK]
        # the sweep reads the restored dates: Black's clock runs from White's move,
        # nothing is due the day after, and a month later the silence goes to the TD
        assert sweep(bot.sessions, f"Federation CC <{BOT}>", at(day + 1, 12)).sent == {}
        later = at(day, 10) + datetime.timedelta(days=41)
        sweep(bot.sessions, f"Federation CC <{BOT}>", later)
        assert any(TD in [*r.to_addrs, *r.cc_addrs] for r in bot.outbox() if r.id > forwarded.id)
        with bot.sessions() as session:
            files = write_evidence(session, "PX-1/1", tmp_path / f"evidence-{day}", sender=BOT)
        table = next(p for p in files if p.name.endswith(".txt") and "moves" in p.name.lower())
        text = table.read_text(encoding="utf-8")
        assert "e7-e5" in text or "e5" in text
    finally:
        bot.close()


@pytest.mark.slow
def test_sqlite_to_postgresql_and_back_with_the_game_going_on(
    played: str, postgres_url: str, tmp_path: Path
) -> None:
    first = tmp_path / "first.mailbot-backup"
    summary = backup(played, first)
    assert summary.revision == migrations_head()
    assert summary.rows > 10
    assert first.stat().st_mode & 0o777 == 0o600

    restored = restore(postgres_url, first)
    assert restored.rows == summary.rows
    assert rows_of(postgres_url) == rows_of(played)
    go_on(postgres_url, tmp_path, 7, "3. Bf1-b5", ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"])

    second = tmp_path / "second.mailbot-backup"
    backup(postgres_url, second)
    back = str(tmp_path / "back.db")
    restore(f"sqlite:///{back}", second)
    assert rows_of(f"sqlite:///{back}") == rows_of(postgres_url)
    # Black answers on the SQLite copy, then White again
    bot = Restored(f"sqlite:///{back}")
    try:
        assert bot.send(BLACK, "3... a7-a6", at(8, 10)) is Outcome.HANDLED
    finally:
        bot.close()
    go_on(
        f"sqlite:///{back}",
        tmp_path,
        9,
        "4. Bb5-a4",
        ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4"],
    )


def test_a_database_with_rows_is_refused_and_left_alone(
    played: str, tmp_path: Path, sqlite_url: str
) -> None:
    path = tmp_path / "b.gz"
    backup(played, path)
    before = rows_of(played)
    with pytest.raises(BackupError, match=r"not empty \(table \w+ has rows\)"):
        restore(played, path)
    assert rows_of(played) == before


def test_a_newer_revision_a_cut_file_and_a_stranger_file_are_refused(
    played: str, tmp_path: Path
) -> None:
    path = tmp_path / "b.gz"
    backup(played, path)
    lines = gzip.decompress(path.read_bytes()).splitlines(keepends=True)
    header = json.loads(lines[0])

    newer = tmp_path / "newer.gz"
    newer.write_bytes(gzip.compress(json.dumps({**header, "revision": "9999"}).encode() + b"\n"))
    target = f"sqlite:///{tmp_path / 'empty.db'}"
    with pytest.raises(BackupError, match="revision 9999, which this installation does not know"):
        restore(target, newer)

    cut = tmp_path / "cut.gz"
    cut.write_bytes(gzip.compress(b"".join(lines[: len(lines) // 2])))
    with pytest.raises(BackupError, match="cut short"):
        restore(target, cut)

    stranger = tmp_path / "notes.txt"
    stranger.write_text("not a backup")
    with pytest.raises(BackupError, match="not a mailbot backup"):
        restore(target, stranger)
    # nothing was written: the target is still without a schema
    assert rows_of(target) == {}


@pytest.mark.slow
def test_the_raw_messages_and_dates_survive_byte_for_byte(
    played: str, postgres_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "b.gz"
    backup(played, path)
    restore(postgres_url, path)
    from mailbot.store.models import InboundMessage

    def messages(url: str) -> list[tuple[bytes, datetime.datetime]]:
        engine = make_engine(url)
        try:
            with Session(engine) as session:
                return [
                    (m.raw, m.internaldate)
                    for m in session.scalars(select(InboundMessage).order_by(InboundMessage.id))
                ]
        finally:
            engine.dispose()

    original = messages(played)
    assert len(original) == 5
    assert messages(postgres_url) == original


@pytest.mark.slow
def test_a_backup_of_revision_0014_restores_with_its_failed_mail_warning(
    db_url: str, tmp_path: Path
) -> None:
    """A backup made before mail could be dismissed (0014) restores into either kind of
    database at the newest revision: its mail given up is dismissed by no one, and can be."""
    source = f"sqlite:///{tmp_path / 'old.db'}"
    bench = Bench(source)
    try:
        bench.send("stranger@example.net", "Cheap watches", at(2), subject="Offer")
        with bench.sessions.begin() as session:
            session.execute(update(Outbox).values(status="failed", last_error="550 no such user"))
    finally:
        bench.close()
    engine = make_engine(source)
    try:
        downgrade(engine, "0014")
    finally:
        engine.dispose()
    path = tmp_path / "old.mailbot-backup"
    assert backup(source, path).revision == "0014"

    assert restore(db_url, path).revision == "0014"
    assert schema_revision(db_url) == migrations_head()
    engine = make_engine(db_url)
    try:
        sessions = session_factory(engine)
        with sessions() as session:
            (row,) = session.scalars(select(Outbox)).all()
            assert (row.status, row.last_error, row.dismissed_at) == (
                "failed",
                "550 no such user",
                None,
            )
        with sessions.begin() as session:
            assert [r.id for r in dismiss(session, row.id, at(3))] == [row.id]
        with sessions() as session:
            assert session.get(Outbox, row.id).dismissed_at == at(3)  # type: ignore[union-attr]
    finally:
        engine.dispose()
