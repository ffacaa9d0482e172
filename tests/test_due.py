"""Deadlines as data: each game keeps its next deadline, and the sweep reads only
the games whose deadline has come.

The oracle is the sweep itself without the index: after every daily sweep,
every game is marked due again and swept once more at the same instant. That
second pass must find nothing: had the index let a repeat, a silence, an
overstep, a leave's end, the end of the event or a warning before one slip,
the full pass would send it.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from deskbench import BOT, Bench
from sqlalchemy import event, func, select

from mailbot.desk.sweep import CHUNK, due_games, sweep
from mailbot.store.engine import make_engine
from mailbot.store.models import Game, Notice, Outbox
from mailbot.store.schema import downgrade, upgrade
from mailbot.store.startlist import parse_start_list
from mailbot.store.tournaments import import_start_list

UTC = datetime.UTC
SOFIA = ZoneInfo("Europe/Sofia")
SENDER = f"Federation <{BOT}>"

START_LIST = """
index: DUE-1
name: Deadline cup
profile: bg-email
start: 2026-03-01
end: 2026-06-15
language: en
notation: en
director: {name: Tom Director, email: td@federation.example}
players:
  - {id: white, name: Walter White, email: white@example.org}
  - {id: black, name: Bella Black, email: black@example.org}
  - {id: grey, name: Gary Grey, email: grey@example.org}
  - {id: green, name: Gina Green, email: green@example.org}
games:
  - {white: white, black: black}
  - {white: grey, black: green}
  - {white: black, black: grey}
  - {white: green, black: white}
"""
WHITE, BLACK, GREY, GREEN = (
    "white@example.org",
    "black@example.org",
    "grey@example.org",
    "green@example.org",
)


def day(month: int, d: int, hour: int = 9) -> datetime.datetime:
    return datetime.datetime(2026, month, d, hour, tzinfo=UTC)


@pytest.fixture
def bench(store_url: str) -> Iterator[Bench]:
    b = Bench(store_url, START_LIST)
    yield b
    b.close()


def ledger(b: Bench) -> tuple[int, int]:
    """How many notices the ledger holds and how many mails the outbox."""
    with b.sessions() as session:
        notices = session.scalar(select(func.count()).select_from(Notice)) or 0
        mails = session.scalar(select(func.count()).select_from(Outbox)) or 0
    return notices, mails


def due_count(b: Bench, now: datetime.datetime) -> int:
    with b.sessions() as session:
        return len(session.scalars(due_games(now)).all())


def full_sweep(b: Bench, now: datetime.datetime) -> None:
    """The sweep as if no game had a deadline stored: every unfinished game is read, in
    the sweep's own chunks (:data:`~mailbot.desk.sweep.CHUNK`) whatever the test set for
    the indexed sweep: it is the reference the indexed sweep is held to, and a reference
    of one game to a transaction only made the test slower."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("mailbot.desk.sweep.CHUNK", CHUNK)
        sweep(b.sessions, SENDER, now, every_game=True)


@pytest.mark.parametrize("chunk", [200, 1])
@pytest.mark.slow
def test_the_indexed_sweep_misses_nothing_a_full_sweep_would_send(
    bench: Bench, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # with chunks of one game, every game and every calendar date has a transaction of its own
    monkeypatch.setattr("mailbot.desk.sweep.CHUNK", chunk)
    # game 1 is played, then Bella falls silent (repeat at 14 days, silence at 40)
    bench.send(WHITE, "DUE-1/1 1. e2-e4", day(3, 2), subject="DUE-1/1")
    bench.send(BLACK, "DUE-1/1 1... e7-e5", day(3, 6), subject="DUE-1/1")
    bench.send(WHITE, "DUE-1/1 2. g1-f3", day(3, 9), subject="DUE-1/1")
    # game 3 starts; Gary takes leave in April, which moves his deadlines
    bench.send(BLACK, "DUE-1/3 1. d2-d4", day(3, 3), subject="DUE-1/3")
    bench.send(GREY, "leave 2026-04-01 2026-04-12", day(3, 20))
    moves = {
        day(4, 20): (GREEN, "DUE-1/2 1... c7-c5", "DUE-1/2"),  # out of turn: refused
        day(5, 2): (GREY, "DUE-1/2 1. e2-e4", "DUE-1/2"),
    }
    read: list[int] = []
    now = day(3, 1, 12)
    while now < day(7, 20):
        for when, (who, text, subject) in moves.items():
            if now - datetime.timedelta(days=1) < when <= now:
                bench.send(who, text, when, subject=subject)
        read.append(due_count(bench, now))
        sweep(bench.sessions, SENDER, now)
        after = ledger(bench)
        full_sweep(bench, now)
        assert ledger(bench) == after, f"the indexed sweep missed a deadline on {now:%Y-%m-%d}"
        now += datetime.timedelta(days=1)
    notices, _ = ledger(bench)
    with bench.sessions() as session:
        kinds = set(session.scalars(select(Notice.kind)))
    assert {"repeat", "silence", "leave-end", "adjudication-call", "warning"} <= kinds, kinds
    with bench.sessions() as session:
        keys = set(session.scalars(select(Notice.key).where(Notice.kind == "warning")))
    # warnings before an overstep, a silence notice and the end of the event (docs/contract.md)
    assert {k.split("/")[0] for k in keys} == {"control", "silence", "end"}, keys
    assert notices > 0
    # on most days nothing is due: the indexed sweep reads no game at all
    quiet_days = sum(1 for n in read if n == 0)
    assert quiet_days > len(read) * 0.6, read


def test_a_quiet_sweep_reads_no_game_and_a_move_makes_its_game_due(bench: Bench) -> None:
    sweep(bench.sessions, SENDER, day(3, 2))
    assert due_count(bench, day(3, 2)) == 0  # every game now waits for its own deadline
    assert due_count(bench, day(3, 3)) == 0
    bench.send(WHITE, "DUE-1/1 1. e2-e4", day(3, 3), subject="DUE-1/1")
    assert due_count(bench, day(3, 3, 12)) == 1
    sweep(bench.sessions, SENDER, day(3, 3, 12))
    with bench.sessions() as session:
        g = session.scalars(select(Game).where(Game.number == 1)).one()
        # bg-email: the unanswered move is repeated after 14 days (art. 26)
        assert g.due_at is not None
        assert g.due_at.astimezone(SOFIA).date() == datetime.date(2026, 3, 17)
    assert due_count(bench, day(3, 16)) == 0
    assert due_count(bench, day(3, 18)) == 1


def statements_of_a_sweep(b: Bench, now: datetime.datetime) -> list[str]:
    """The SQL one sweep at ``now`` sends."""
    sent: list[str] = []

    def record(connection: object, cursor: object, statement: str, *rest: object) -> None:
        sent.append(statement)

    event.listen(b.engine, "before_cursor_execute", record)
    try:
        sweep(b.sessions, SENDER, now)
    finally:
        event.remove(b.engine, "before_cursor_execute", record)
    return sent


def test_a_quiet_sweep_costs_as_much_for_twenty_tournaments_as_for_one(bench: Bench) -> None:
    # a federation runs many events at once: on a day when nothing falls due, the
    # sweep's work must not grow with them (a transaction each is a round trip each)
    sweep(bench.sessions, SENDER, day(3, 2))
    one = statements_of_a_sweep(bench, day(3, 3))
    with bench.sessions.begin() as session:
        for n in range(2, 21):
            text = START_LIST.replace("index: DUE-1", f"index: DUE-{n}")
            text = text.replace("example.org", f"club{n}.example.org")
            import_start_list(session, parse_start_list(text), day(3, 1))
    sweep(bench.sessions, SENDER, day(3, 2))  # the new events' first deadlines stored
    twenty = statements_of_a_sweep(bench, day(3, 3))
    assert len(twenty) == len(one), (one, twenty)
    # the day something falls due in one of them, that event's game is swept
    bench.send("white@club7.example.org", "DUE-7/1 1. e2-e4", day(3, 3), subject="DUE-7/1")
    sweep(bench.sessions, SENDER, day(3, 3, 12))
    assert due_count(bench, day(3, 16)) == 0
    assert due_count(bench, day(3, 18)) == 1  # bg-email: repeated after 14 days (art. 26)
    sweep(bench.sessions, SENDER, day(3, 18))
    repeats = [r for r in bench.outbox(event="repeat") if "DUE-7/1" in r.subject]
    # to the player who owes the move, and a copy to the director (art. 26)
    told = sorted(a for r in repeats for a in r.to_addrs)
    assert told == ["black@club7.example.org", "td@federation.example"], told


def test_a_leave_makes_all_the_players_games_due_again(bench: Bench) -> None:
    sweep(bench.sessions, SENDER, day(3, 2))
    assert due_count(bench, day(3, 5)) == 0
    bench.send(WHITE, "leave 2026-04-01 2026-04-05", day(3, 5))
    with bench.sessions() as session:
        due = session.scalars(
            select(Game.number).where(Game.id.in_(due_games(day(3, 5, 12))))
        ).all()
    assert sorted(due) == [1, 4]  # Walter's two games, not the others


@pytest.mark.slow
def test_upgrading_makes_every_unfinished_game_due_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    Bench(url, START_LIST).close()
    downgrade(url, "0005")  # a database of the release before stored deadlines
    upgrade(url)
    engine = make_engine(url)
    with engine.connect() as connection:
        values = [row[0] for row in connection.exec_driver_sql("SELECT due_at FROM games")]
    engine.dispose()
    assert len(values) == 4
    assert all(str(v).startswith("1970-01-01") for v in values), values
