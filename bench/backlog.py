"""Backlog throughput: N players' messages wait in the inbox, one poll pass handles them.

Starts a Dovecot IMAP server and an aiosmtpd listener on loopback, creates a
database (an SQLite file by default, or a fresh schema in the PostgreSQL
database given with ``--database``), imports a tournament whose games take
ten moves each, delivers ``--messages`` moves into the bot's inbox and runs
one ``poll_once`` pass in this process. Prints the figures::

    python bench/backlog.py --messages 200
    python bench/backlog.py --database postgresql+psycopg://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import random
import resource
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from harness import Federation
from mailservers import Dovecot, SmtpSink
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.engine import make_url

from mailbot.store import InboundMessage, Move, Outbox

UTC = datetime.UTC
INDEX = "BENCH-1"
#: Plies per game; every game stops short of any end of the game.
PLIES = 10


@dataclasses.dataclass(frozen=True)
class Planned:
    """One player's message: a move in a game, as the player writes it."""

    sender: str
    subject: str
    body: str
    game: int
    ply: int
    uci: str


@dataclasses.dataclass(frozen=True)
class Scenario:
    """A start list and the players' messages in the order they arrive."""

    start_list: str
    letters: list[Planned]
    lines: dict[int, list[str]]

    @property
    def games(self) -> int:
        return len(self.lines)


def random_line(rng: random.Random, plies: int) -> list[chess.Move]:
    """``plies`` legal moves from the initial position that end nothing and repeat nothing."""
    while True:
        board = chess.Board()
        seen = {board.epd()}
        line: list[chess.Move] = []
        for _ in range(plies):
            choices = []
            for move in sorted(board.legal_moves, key=lambda m: m.uci()):
                board.push(move)
                ends = board.outcome() is not None or board.epd() in seen
                board.pop()
                if not ends and move.promotion is None:
                    choices.append(move)
            if not choices:
                break
            move = rng.choice(choices)
            line.append(move)
            board.push(move)
            seen.add(board.epd())
        if len(line) == plies:
            return line


def written(board: chess.Board, move: chess.Move) -> str:
    """The move as a player writes it: number and full notation (``3... Ng8-f6``)."""
    number = board.fullmove_number
    dots = "." if board.turn == chess.WHITE else "..."
    return f"{number}{dots} {board.lan(move)}"


def scenario(messages: int, seed: int = 1, start: str = "2026-03-01") -> Scenario:
    """Games of ten moves enough for ``messages`` messages, with at least five players.

    Each player plays at most four games, two with each colour, so that no
    one writes more than 20 messages (the default daily reply cap).
    """
    rng = random.Random(seed)
    games = max(1, -(-messages // PLIES))
    count = max(5, -(-games // 2))
    players = [f"p{i:03d}" for i in range(count)]
    pairs: list[tuple[str, str]] = []
    for k in range(games):
        rnd, i = divmod(k, count)
        a, b = players[i], players[(i + rnd + 1) % count]
        pairs.append((a, b) if rnd % 2 == 0 else (b, a))
    lines = {n: random_line(rng, PLIES) for n in range(1, games + 1)}
    start_list = "\n".join(
        [
            f"index: {INDEX}",
            "name: Backlog benchmark",
            "profile: bg-email",
            f"start: {start}",
            "end: 2099-12-31",
            "language: en",
            "notation: en",
            "conditional_moves: false",
            "director: {name: Tom Director, email: td@federation.example}",
            "players:",
            *(
                f"  - {{id: {p}, name: Player {p[1:]}, email: {p}@players.example}}"
                for p in players
            ),
            "games:",
            *(f"  - {{white: {w}, black: {b}}}" for w, b in pairs),
            "",
        ]
    )
    letters: list[Planned] = []
    boards = {n: chess.Board() for n in lines}
    for ply in range(PLIES):
        for n, line in lines.items():
            if len(letters) == messages:
                break
            white, black = pairs[n - 1]
            sender = white if ply % 2 == 0 else black
            move = line[ply]
            body = f"{written(boards[n], move)}\n\n-- \nPlayer {sender[1:]}\n"
            boards[n].push(move)
            letters.append(
                Planned(
                    f"{sender}@players.example",
                    f"[{INDEX}/{n}] move",
                    body,
                    n,
                    ply + 1,
                    move.uci(),
                )
            )
    return Scenario(start_list, letters, {n: [m.uci() for m in line] for n, line in lines.items()})


class TimedSink(SmtpSink):
    """The SMTP listener, noting when each message arrived (``time.perf_counter``)."""

    def __init__(self) -> None:
        super().__init__()
        self.arrivals: list[float] = []

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        arrived = time.perf_counter()
        answer = await super().handle_DATA(server, session, envelope)
        with self._arrived:
            if answer.startswith("250"):
                self.arrivals.append(arrived)
                self._arrived.notify_all()
        return answer

    def wait_arrivals(self, count: int, seconds: float) -> list[float]:
        """Block until ``count`` messages arrived in all; their arrival times."""
        with self._arrived:
            self._arrived.wait_for(lambda: len(self.arrivals) >= count, seconds)
            return list(self.arrivals)


@contextlib.contextmanager
def database(url: str | None, folder: Path) -> Iterator[str]:
    """An empty database: an SQLite file in ``folder``, or a new PostgreSQL schema."""
    if url is None:
        yield f"sqlite:///{folder / 'mailbot.db'}"
        return
    if not url.startswith("postgresql"):
        yield url
        return
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(make_url(url).set(drivername="postgresql+psycopg"))
    try:
        with admin.begin() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        scoped = make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
        yield scoped.render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


@contextlib.contextmanager
def mail_servers() -> Iterator[tuple[Dovecot, TimedSink, Path]]:
    """Dovecot and an SMTP listener on loopback, and a scratch folder; stopped afterwards."""
    root = Path(tempfile.mkdtemp(prefix="mailbot-bench-"))
    root.chmod(0o755)
    dovecot = Dovecot(root / "dovecot")
    (root / "dovecot").mkdir()
    (root / "dovecot").chmod(0o755)
    dovecot.start()
    sink = TimedSink()
    sink.controller.start()
    try:
        yield dovecot, sink, root
    finally:
        sink.controller.stop()
        dovecot.stop()
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200, help="messages in the backlog")
    parser.add_argument("--database", metavar="URL", help="SQLAlchemy URL (default: SQLite)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the games' moves")
    args = parser.parse_args(argv)

    plan = scenario(args.messages, args.seed)
    with mail_servers() as (dovecot, sink, root), database(args.database, root) as url:
        fed = Federation(url, dovecot.account(), sink, plan.start_list)
        try:
            first = datetime.datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
            t0 = time.perf_counter()
            for i, letter in enumerate(plan.letters):
                at = first + datetime.timedelta(minutes=i)
                fed.write(letter.sender, letter.body, at, subject=letter.subject)
            delivered = time.perf_counter() - t0
            now = first + datetime.timedelta(minutes=len(plan.letters) + 1)
            t0 = time.perf_counter()
            report = fed.poll(now)
            seconds = time.perf_counter() - t0
            arrivals = sink.wait_arrivals(report.delivery.sent, 5.0)
            replies = len(arrivals)
            handling = (arrivals[0] - t0) if arrivals else seconds
            with fed.sessions() as session:
                moves = session.scalar(select(func.count()).select_from(Move)) or 0
                pending = (
                    session.scalar(
                        select(func.count()).select_from(Outbox).where(Outbox.status == "pending")
                    )
                    or 0
                )
                handled = (
                    session.scalar(
                        select(func.count())
                        .select_from(InboundMessage)
                        .where(InboundMessage.status != "new")
                    )
                    or 0
                )
            left = fed.pending_in_inbox()
        finally:
            fed.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    backend = make_url(url).get_backend_name()
    print(f"database:         {backend}")
    print(f"messages:         {len(plan.letters)} ({plan.games} games)")
    print(f"delivered in:     {delivered:.2f} s (IMAP APPEND)")
    print(f"poll pass:        {seconds:.2f} s")
    print(f"messages/second:  {len(plan.letters) / seconds:.1f}")
    sending = max(seconds - handling, 1e-9)
    print(
        f"of which:         {handling:.2f} s reading and handling "
        f"({len(plan.letters) / handling:.1f} messages/s), "
        f"{sending:.2f} s sending ({replies / sending:.1f} replies/s)"
    )
    print(f"handled:          {handled} ({report.line()})")
    print(f"moves applied:    {moves}")
    print(f"replies sent:     {report.delivery.sent} (SMTP listener received {replies})")
    print(f"replies pending:  {pending} (left in the outbox after the pass)")
    print(f"left in inbox:    {left}")
    print(f"peak RSS:         {peak:.0f} MiB")
    ok = moves == len(plan.letters) and left == 0 and pending == 0
    ok = ok and replies == 2 * len(plan.letters)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
