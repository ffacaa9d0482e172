"""A deadline and its warning are one reading (docs/rules.md 2.4): a warning announces
only a notice the sweep itself sends on the announced day.

Generated games in every profile are played on the desk (moves at random intervals,
impossible moves and the director's penalty days, delay notices, leave, an extension
of the event) and swept once a day. Afterwards every warning in the ledger must have
been followed by the notice it announced, dated on the announced day, unless something
the rules count happened in the game between the warning and that day. A White who
never sends the first move in bg-email is warned of no silence loss (art. 31 needs a
repeat). Over generated states, the pure reading sweeps each warning on its day and the
deadline it announces on the announced day.
"""

from __future__ import annotations

import dataclasses
import datetime
import random
from collections.abc import Iterator
from zoneinfo import ZoneInfo

import chess
import pytest
from deskbench import BOT, Bench
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from mailbot.compose.notifier import Notifier
from mailbot.desk import director
from mailbot.desk.sweep import sweep
from mailbot.desk.work import Work
from mailbot.rules import clock, due
from mailbot.rules.leave import LeavePeriod
from mailbot.rules.profile import profile
from mailbot.store.models import Game, Notice, Outbox, Tournament
from mailbot.store.startlist import parse_start_list
from mailbot.store.tournaments import import_start_list

UTC = datetime.UTC
SENDER = f"Federation <{BOT}>"
START = datetime.date(2026, 3, 1)
END = datetime.date(2026, 6, 30)
#: The last day swept: after the end of the event, an extension and the call for claims.
LAST = datetime.date(2026, 7, 31)
#: The notice a warning announces, by the warning's word for its deadline.
ANNOUNCED = {"control": "overstep", "silence": "silence", "end": "adjudication-call"}
INDICES = {"bg-email": "BE-1", "bg-post": "BP-1", "iccf-postal": "IP-1", "iccf-server": "IS-1"}
PIECES = {chess.KNIGHT: "N", chess.BISHOP: "B", chess.ROOK: "R", chess.QUEEN: "Q", chess.KING: "K"}


def start_list(profile: str, index: str, players: int) -> str:
    lines = [
        f"index: {index}",
        f"name: Cup {index}",
        f"profile: {profile}",
        f"start: {START.isoformat()}",
        f"end: {END.isoformat()}",
        "language: en",
        "notation: en",
        "director: {name: Tom Director, email: td@federation.example}",
        "players:",
        *(
            f"  - {{id: p{i}, name: Player {i}, email: {address(index, i)}}}"
            for i in range(players)
        ),
        "games:",
        *(f"  - {{white: p{i}, black: p{i + 1}}}" for i in range(0, players, 2)),
    ]
    return "\n".join(lines) + "\n"


def address(index: str, i: int) -> str:
    return f"p{i}.{index.lower()}@example.org"


@dataclasses.dataclass
class Table:
    """One game as the players see it: who answers when, and what the rules counted."""

    index: str
    number: int
    white: str
    black: str
    #: The day the player to move answers (None: never).
    answer_on: datetime.date | None = None
    plies: int = 0
    #: The days on which something the rules count happened in the game.
    changed: set[datetime.date] = dataclasses.field(default_factory=set)

    @property
    def tag(self) -> str:
        return f"{self.index}/{self.number}"


def at(day: datetime.date, hour: int, minute: int = 0) -> datetime.datetime:
    return datetime.datetime.combine(day, datetime.time(hour, minute), tzinfo=UTC)


def full_move(board: chess.Board, move: chess.Move) -> str:
    """``Ng1-f3``, ``e4:d5``: full notation with English letters (docs/rules.md 3.1)."""
    piece = board.piece_type_at(move.from_square)
    letter = PIECES.get(piece, "") if piece else ""
    sign = ":" if board.is_capture(move) else "-"
    return f"{letter}{chess.square_name(move.from_square)}{sign}{chess.square_name(move.to_square)}"


def numbered(board: chess.Board, text: str) -> str:
    dots = "." if board.turn == chess.WHITE else "..."
    return f"{board.fullmove_number}{dots} {text}"


class Event:
    """The tournaments of one run, played and swept day by day."""

    def __init__(self, bench: Bench, rng: random.Random, games: int) -> None:
        self.bench, self.rng = bench, rng
        self.tables: list[Table] = []
        for rules, index in INDICES.items():
            if index != "BE-1":
                with bench.sessions.begin() as session:
                    listed = parse_start_list(start_list(rules, index, 2 * games))
                    import_start_list(session, listed, at(START, 0))
            for n in range(games):
                table = Table(index, n + 1, address(index, 2 * n), address(index, 2 * n + 1))
                # some Whites never send their first move
                table.answer_on = None if rng.random() < 0.25 else START + self.thinking()
                self.tables.append(table)
        self.extended: dict[str, datetime.date] = {}

    def thinking(self) -> datetime.timedelta:
        """How long a player takes: mostly days, sometimes past the repeat, the silence
        or the control."""
        r = self.rng.random()
        days = self.rng.randint(1, 12) if r < 0.7 else self.rng.randint(12, 70)
        return datetime.timedelta(days=days)

    def boards(self) -> dict[tuple[str, int], tuple[chess.Board, str | None]]:
        """Every game's board and result as stored, by tournament index and number, read
        at once: a table's play that day moves no other table's game."""
        found: dict[tuple[str, int], tuple[chess.Board, str | None]] = {}
        with self.bench.sessions() as session:
            rows = session.execute(
                select(Game, Tournament.index).join(Tournament).options(selectinload(Game.moves))
            )
            for g, index in rows:
                board = chess.Board()
                for m in g.moves:
                    board.push(chess.Move.from_uci(m.uci))
                found[index, g.number] = board, g.result
        return found

    def mover(self, table: Table, board: chess.Board) -> str:
        return table.white if board.turn == chess.WHITE else table.black

    def day(self, today: datetime.date) -> None:
        """What the players and the director do on ``today``, then the day's sweep."""
        boards = self.boards()
        for table in self.tables:
            board, result = boards[table.index, table.number]
            if result is not None:
                continue
            self.play(table, board, today)
        self.extend(today)
        sweep(self.bench.sessions, SENDER, at(today, 20, 30))

    def play(self, table: Table, board: chess.Board, today: datetime.date) -> None:
        rng, mover = self.rng, self.mover(table, board)
        subject = f"[{table.tag}] move"
        hour = rng.randint(6, 18)
        if rng.random() < 0.015:  # an impossible move: +5 days (art. 14, 17)
            self.send(table, mover, numbered(board, "Ka1-a8"), today, hour, subject)
        if rng.random() < 0.01:  # the director's penalty days (art. 56)
            colour = "white" if board.turn == chess.WHITE else "black"
            self.order(f"penalty {table.tag} {colour} 5", today)
            table.changed.add(today)
        if rng.random() < 0.015:  # art. 25: a delay notice
            self.send(table, mover, "delay", today, hour, f"[{table.tag}] delay")
        if rng.random() < 0.008:
            first = today + datetime.timedelta(days=rng.randint(1, 15))
            last = first + datetime.timedelta(days=rng.randint(0, 12))
            player = rng.choice((table.white, table.black))
            self.send(table, player, f"leave {first} {last}", today, hour, "leave")
        if table.answer_on is not None and table.answer_on <= today:
            moves = [m for m in board.legal_moves if not m.promotion and not board.is_castling(m)]
            move = rng.choice(moves or list(board.legal_moves))
            self.send(table, mover, numbered(board, full_move(board, move)), today, hour, subject)
            table.answer_on = today + self.thinking()

    def send(
        self, table: Table, who: str, body: str, today: datetime.date, hour: int, subject: str
    ) -> None:
        self.bench.send(who, body, at(today, hour, self.rng.randint(0, 59)), subject=subject)
        table.changed.add(today)

    def extend(self, today: datetime.date) -> None:
        """Once per event, sometimes, the director extends it by two weeks (art. 50)."""
        for index in INDICES.values():
            if index in self.extended or today < END - datetime.timedelta(days=45):
                continue
            if self.rng.random() < 0.03:
                end = END + datetime.timedelta(days=14)
                self.order(f"extend {index} {end}", today)
                self.extended[index] = today
                for table in self.tables:
                    if table.index == index:
                        table.changed.add(today)

    def order(self, line: str, today: datetime.date) -> None:
        order = director.read_order(line)
        assert order is not None
        now = at(today, 12)
        with self.bench.sessions() as session, session.begin():
            work = Work(session, now)
            tournaments = session.scalars(select(Tournament)).all()
            director.carry_out(work, tournaments, order)
            Notifier(session, SENDER, now).tell(*work.events)


@pytest.fixture
def bench(store_url: str) -> Iterator[Bench]:
    b = Bench(store_url, start_list("bg-email", "BE-1", 6))
    yield b
    b.close()


@dataclasses.dataclass(frozen=True)
class Told:
    """A notice in the ledger: its game, kind, key, the day it fell due and when it went."""

    game: int
    kind: str
    key: str
    due: datetime.date | None
    sent: datetime.date


def ledger(b: Bench) -> list[Told]:
    with b.sessions() as session:
        rows = session.execute(
            select(Notice, Tournament.timezone).join(
                Tournament, Notice.tournament_id == Tournament.id
            )
        ).all()
        out = []
        for notice, timezone in rows:
            tz = ZoneInfo(timezone)
            due = notice.due_at.astimezone(tz).date() if notice.due_at else None
            out.append(
                Told(notice.game_id or 0, notice.kind, notice.key, due,
                     notice.created_at.astimezone(tz).date())
            )  # fmt: skip
    return out


def game_numbers(b: Bench) -> dict[int, tuple[str, int]]:
    with b.sessions() as session:
        rows = session.execute(select(Game.id, Tournament.index, Game.number).join(Tournament))
        return {gid: (index, number) for gid, index, number in rows}


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.slow
def test_every_warning_is_followed_by_its_notice_on_the_announced_day(
    bench: Bench, seed: int
) -> None:
    event = Event(bench, random.Random(seed), games=3)
    today = START
    while today <= LAST:
        event.day(today)
        today += datetime.timedelta(days=1)
    told = ledger(bench)
    tables = {(t.index, t.number): t for t in event.tables}
    games = game_numbers(bench)
    followed: dict[str, int] = {"control": 0, "silence": 0, "end": 0}
    for warning in (n for n in told if n.kind == "warning"):
        about, _, day = warning.key.split("/")
        announced = datetime.date.fromisoformat(day)
        kind = ANNOUNCED[about]
        notices = [
            n
            for n in told
            if n.game == warning.game
            and n.kind == kind
            and (n.due or n.sent) == announced
            and n.sent - announced <= datetime.timedelta(days=1)
        ]
        if notices:
            followed[about] += 1
            continue
        table = tables[games[warning.game]]
        moved = {d for d in table.changed if warning.sent <= d <= announced}
        assert moved, (
            f"{table.tag}: the warning {warning.key} of {warning.sent} announced a {kind} "
            f"that the sweep did not send, and nothing in the game moved it"
        )
    # the run had warnings that came true, of every kind
    assert all(followed.values()), followed
    # and what the rules count happened
    with bench.sessions() as session:
        kinds = set(session.scalars(select(Notice.kind)))
        penalties = sum(len(g.penalties) for g in session.scalars(select(Game)))
        delays = sum(len(g.delays) for g in session.scalars(select(Game)))
    assert {"repeat", "overstep", "silence", "leave-end"} <= kinds, kinds
    assert penalties and delays


def test_a_white_who_never_sends_the_first_move_is_warned_of_no_silence(bench: Bench) -> None:
    # bg-email (art. 31): the silence loss needs a repeat, and a first move that was never
    # sent is never repeated; no warning announces it (on day 36 nor any other)
    today = START
    while today <= datetime.date(2026, 5, 10):
        sweep(bench.sessions, SENDER, at(today, 20, 30))
        today += datetime.timedelta(days=1)
    told = ledger(bench)
    assert [n for n in told if n.kind == "silence" or n.key.startswith("silence")] == []
    # the overstep at 50 days is warned of, 10 and 3 days before, and falls due
    white = [n for n in told if n.game == 1 and n.kind in ("warning", "overstep")]
    assert [(n.kind, n.key, n.sent) for n in white if n.key.startswith("control")] == [
        ("warning", "control/10/2026-04-21", datetime.date(2026, 4, 11)),
        ("warning", "control/3/2026-04-21", datetime.date(2026, 4, 18)),
    ]
    assert [(n.key, n.due) for n in white if n.kind == "overstep"] == [
        ("move-1", datetime.date(2026, 4, 21))
    ]
    with bench.sessions() as session:
        warned = session.scalars(select(Outbox).where(Outbox.event == "warning")).all()
    assert warned and all(row.headers.get("X-Mailbot-Warning") != "silence" for row in warned)


# -- the pure reading, over generated states ------------------------------------------


@st.composite
def states(draw: st.DrawFn) -> due.GameState:
    """A game waiting for a move: any profile, up to 30 moves of up to 12 days each, penalty
    days, a delay notice, leave and an end of the event."""
    p = profile(draw(st.sampled_from(list(INDICES))))
    tz = ZoneInfo(p.timezone)
    ply = draw(st.integers(0, 60))
    moves = tuple(clock.MoveTime(n, draw(st.integers(0, 12))) for n in range(1, ply // 2 + 1))
    number = len(moves) + 1
    penalties = tuple(
        clock.ClockPenalty(5, draw(st.integers(1, number))) for _ in range(draw(st.integers(0, 2)))
    )
    since = datetime.datetime(2026, 3, 1, tzinfo=tz) + datetime.timedelta(
        hours=draw(st.integers(0, 24 * 60))
    )
    first = since.date() + datetime.timedelta(days=draw(st.integers(-5, 40)))
    leaves = tuple(
        LeavePeriod(first, first + datetime.timedelta(days=draw(st.integers(0, 20))))
        for _ in range(draw(st.integers(0, 1)))
    )
    return due.GameState(
        p,
        tz,
        end=since.date() + datetime.timedelta(days=draw(st.integers(1, 200))),
        ply=ply,
        since=since,
        leaves=leaves,
        moves=moves,
        penalties=penalties,
        penalised_at=since if penalties else None,
        noticed=(
            since + datetime.timedelta(hours=draw(st.integers(-72, 24 * 60)))
            if draw(st.booleans())
            else None
        ),
    )


@settings(max_examples=60, deadline=None)
@given(states())
@pytest.mark.slow
def test_each_warning_is_swept_on_its_day_and_its_deadline_on_the_announced_day(
    state: due.GameState,
) -> None:
    planned = due.schedule(state)
    warnings = [d for d in planned if d.kind is due.DueKind.WARNING]
    for warning in warnings:
        assert warning.announces in planned  # announces only what the sweep will send
    swept: dict[tuple[str, str, str], datetime.date] = {}
    day = state.since.date()
    while day <= state.end + datetime.timedelta(days=20):
        now = datetime.datetime.combine(day, datetime.time(23, 59), tzinfo=state.tz)
        for d in due.sweep(state, now):
            swept.setdefault((d.kind, d.key, str(d.whom)), day)
        day += datetime.timedelta(days=1)
    for warning in warnings:
        announced = warning.announces
        assert announced is not None and warning.due is not None
        assert swept.get((warning.kind, warning.key, str(warning.whom))) in (
            None,  # its day came before the game's first day swept
            clock.local_date(warning.at, state.tz),
        )
        assert swept[(announced.kind, announced.key, str(announced.whom))] == warning.due
