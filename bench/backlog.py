"""Backlog throughput: a full inbox, one ``mailbot poll --once`` process, against the floor.

Starts a Dovecot IMAP server and an aiosmtpd listener on loopback, creates a
database (an SQLite file by default, or a fresh schema in the PostgreSQL
database given with ``--database``), imports a tournament of ``--games``
games and delivers ``--messages`` moves into the bot's inbox (IMAP APPEND,
one connection; not timed). Then, on the same servers and in the same run:

- the floor: a bare imapclient session that reads the same messages as the
  bot does (``BODY.PEEK[]`` and ``INTERNALDATE``, in batches of
  :data:`mailbot.mail.inbox.BATCH`), plus a bare smtplib session that sends the
  same number of replies as the bot will (two per move, about 1.5 KB each)
  over one connection to the same listener;
- the bot: ``python -m mailbot -c CONFIG poll --once --now T`` as a separate
  process, timed from its start to its exit, with its peak RSS from
  ``os.wait4``.

Prints both times, messages per second and the ratio of the bot's time to
the floor's::

    python bench/backlog.py                          # 2,000 messages, 500 games, SQLite
    python bench/backlog.py --messages 40 --games 10
    python bench/backlog.py --database postgresql+psycopg://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import dataclasses
import datetime
import email.policy
import email.utils
import os
import random
import re
import resource
import shutil
import smtplib
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from harness import BOT, Federation, login
from imapclient import IMAPClient
from mailservers import Dovecot, ImapAccount, SmtpSink
from sqlalchemy import Select, create_engine, func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

import mailbot
from mailbot.mail.inbox import BATCH
from mailbot.store.models import InboundMessage, Move, Outbox

UTC = datetime.UTC
INDEX = "BENCH-1"
#: Plies per game when ``scenario`` is not given the number of games.
PLIES = 10
#: The bot's default daily reply cap per sender (``policy.replies_per_sender_per_day``).
REPLY_CAP = 20
#: Games each player plays at most (two with each colour).
GAMES_PER_PLAYER = 4
#: Size of the floor's reply body, in bytes (about a move mail's text).
REPLY_BODY = 1500


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
    players: int
    plies: int

    @property
    def games(self) -> int:
        return len(self.lines)


def random_line(rng: random.Random, plies: int) -> list[chess.Move]:
    """``plies`` legal moves from the initial position that end nothing and repeat nothing.

    At each ply the legal moves are tried in a random order and the first one
    is taken that neither ends the game (mate, stalemate, dead position, the
    75-move rule) nor repeats a position, nor promotes; a line that runs into
    a dead end is thrown away and a new one begun.
    """
    while True:
        board = chess.Board()
        seen = {board.epd()}
        line: list[chess.Move] = []
        while len(line) < plies:
            moves = sorted(board.legal_moves, key=lambda m: m.uci())
            rng.shuffle(moves)
            for move in moves:
                if move.promotion is not None:
                    continue
                board.push(move)
                epd = board.epd()
                if board.outcome() is None and epd not in seen:
                    seen.add(epd)
                    line.append(move)
                    break
                board.pop()
            else:
                break
        if len(line) == plies:
            return line


def written(board: chess.Board, move: chess.Move) -> str:
    """The move as a player writes it: number and full notation (``3... Ng8-f6``)."""
    number = board.fullmove_number
    dots = "." if board.turn == chess.WHITE else "..."
    return f"{number}{dots} {board.lan(move)}"


def tournament(
    index: str,
    name: str,
    start: datetime.date,
    players: Sequence[tuple[str, str]],
    pairs: Sequence[tuple[str, str]],
) -> str:
    """A start list: ``players`` (key and name, the address ``KEY@players.example``)
    playing ``pairs`` (white's key, black's key) under bg-email, in English."""
    return "\n".join(
        [
            f"index: {index}",
            f"name: {name}",
            "profile: bg-email",
            f"start: {start.isoformat()}",
            "end: 2099-12-31",
            "language: en",
            "notation: en",
            "conditional_moves: false",
            "director: {name: Tom Director, email: td@federation.example}",
            "players:",
            *(f"  - {{id: {p}, name: {n}, email: {p}@players.example}}" for p, n in players),
            "games:",
            *(f"  - {{white: {w}, black: {b}}}" for w, b in pairs),
            "",
        ]
    )


def scenario(
    messages: int, seed: int = 1, start: str = "2026-03-01", games: int | None = None
) -> Scenario:
    """Games enough for ``messages`` messages, with at least five players.

    Without ``games``, games of ten moves; with it, ``messages`` spread over
    that many games (``ceil(messages / games)`` plies each). Each player plays
    at most four games, two with each colour, so that no one writes more than
    20 messages (the default daily reply cap); more plies per game than that
    allows is refused with :class:`ValueError`. The messages arrive ply by ply:
    every game's first move, then every game's second, and so on.
    """
    if games is None:
        plies = PLIES
        games = max(1, -(-messages // PLIES))
    else:
        if not 1 <= games <= messages:
            raise ValueError(f"--games {games}: need 1 to {messages} (one message at least each)")
        plies = -(-messages // games)
    if GAMES_PER_PLAYER * -(-plies // 2) > REPLY_CAP:
        raise ValueError(
            f"{plies} plies per game: a player of {GAMES_PER_PLAYER} games would write more "
            f"than {REPLY_CAP} messages (the daily reply cap); give more games"
        )
    rng = random.Random(seed)
    count = max(5, -(-games // 2))
    players = [f"p{i:03d}" for i in range(count)]
    pairs: list[tuple[str, str]] = []
    for k in range(games):
        rnd, i = divmod(k, count)
        a, b = players[i], players[(i + rnd + 1) % count]
        pairs.append((a, b) if rnd % 2 == 0 else (b, a))
    lines = {n: random_line(rng, plies) for n in range(1, games + 1)}
    start_list = tournament(
        INDEX,
        "Backlog benchmark",
        datetime.date.fromisoformat(start),
        [(p, f"Player {p[1:]}") for p in players],
        pairs,
    )
    letters: list[Planned] = []
    boards = {n: chess.Board() for n in lines}
    for ply in range(plies):
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
    return Scenario(
        start_list,
        letters,
        {n: [m.uci() for m in line] for n, line in lines.items()},
        count,
        plies,
    )


class TimedSink(SmtpSink):
    """The SMTP listener, noting when each message arrived (``time.perf_counter``) and its
    bytes."""

    def __init__(self) -> None:
        super().__init__()
        self.arrivals: list[float] = []
        #: The bytes of each message, unparsed (:meth:`event` reads one's header).
        self.raws: list[bytes] = []

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        # The bytes and the arrival time are all the figures need: no MIME parse here, which
        # would charge the listener's own parsing (a multipart reply costs it twice a plain
        # one) to whoever sends.
        arrived = time.perf_counter()
        raw = envelope.original_content or envelope.content  # type: ignore[attr-defined]
        with self._arrived:
            self.arrivals.append(arrived)
            self.raws.append(raw)
            self._arrived.notify_all()
        return "250 OK"

    def event(self, i: int) -> str:
        """The ``X-Mailbot-Event`` of the ``i``-th message (its header only is parsed)."""
        head = BytesParser(policy=email.policy.default).parsebytes(self.raws[i], headersonly=True)
        return str(head["X-Mailbot-Event"] or "")

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


# --- the floor -------------------------------------------------------------------------------


def bare_fetch(account: ImapAccount, folder: str = "INBOX") -> tuple[float, int, int]:
    """Read every message of ``folder`` as the bot does, with nothing else.

    Connect, log in, select, search, then ``BODY.PEEK[]`` and ``INTERNALDATE``
    in batches of :data:`mailbot.mail.inbox.BATCH` (nothing changes state), log
    out. Returns the seconds, the messages and their bytes.
    """
    began = time.perf_counter()
    client = IMAPClient(account.host, port=account.port, ssl=False, timeout=15.0)
    client.normalise_times = False
    client.login(account.username, account.password)
    client.select_folder(folder)
    uids = sorted(int(u) for u in client.search(["UNDELETED"]))
    count = size = 0
    for start in range(0, len(uids), BATCH):
        data = client.fetch(uids[start : start + BATCH], ["BODY.PEEK[]", "INTERNALDATE"])
        for item in data.values():
            size += len(item[b"BODY[]"])
            count += 1
    client.logout()
    return time.perf_counter() - began, count, size


def floor_replies(
    letters: Sequence[Planned], body_bytes: int = REPLY_BODY, sender: str = BOT
) -> list[tuple[str, bytes]]:
    """Two replies per message (to the opponent and to the sender).

    Shaped like the bot's: its headers (thread, ``Auto-Submitted``,
    ``X-Mailbot-*``) and a plain-text body of ``body_bytes`` bytes
    (quoted-printable, as the bot's text part).
    """
    filler = (
        "Your opponent's move is above. Please answer within the time the rules "
        "allow; the days are counted from the day after you received this mail.\n"
    )
    replies: list[tuple[str, bytes]] = []
    for i, letter in enumerate(letters):
        for kind in ("move", "move-accepted"):
            msg = EmailMessage()
            msg["From"] = f"Federation CC <{sender}>"
            msg["To"] = letter.sender
            msg["Subject"] = f"[{INDEX}/{letter.game}] Player – Player: {letter.body.split()[1]}"
            msg["Date"] = email.utils.format_datetime(datetime.datetime(2026, 3, 3, tzinfo=UTC))
            msg["Message-ID"] = f"<floor.{i}.{kind}@federation.example>"
            msg["In-Reply-To"] = f"<m{i}@players.example>"
            msg["References"] = f"<m{i}@players.example>"
            msg["Auto-Submitted"] = "auto-replied"
            msg["X-Mailbot-Event"] = kind
            msg["X-Mailbot-Game"] = f"{INDEX}/{letter.game}"
            msg["X-Mailbot-Ply"] = str(letter.ply)
            msg["X-Mailbot-Move"] = letter.uci
            msg["X-Mailbot-Time"] = "white=0; black=0"
            head = f"{letter.body.splitlines()[0]}\n\n"
            body = head + filler * (1 + max(body_bytes - len(head), 0) // len(filler))
            msg.set_content(body[: max(body_bytes, len(head))])
            replies.append((letter.sender, msg.as_bytes(policy=email.policy.SMTP)))
    return replies


def bare_send(port: int, replies: Sequence[tuple[str, bytes]], sender: str = BOT) -> float:
    """Send ``replies`` over one smtplib connection to the listener; the seconds it took."""
    began = time.perf_counter()
    server = smtplib.SMTP("127.0.0.1", port, timeout=15.0)
    server.ehlo()
    for to, raw in replies:
        server.sendmail(sender, [to], raw)
    server.quit()
    return time.perf_counter() - began


# --- the bot ---------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Child:
    """A finished process: exit status, wall-clock seconds, peak RSS in KiB, its output,
    and its CPU seconds (with the children it waited for, such as a courier)."""

    status: int
    seconds: float
    peak_kib: int
    stdout: str
    stderr: str
    began: float
    cpu: float


#: Runs the command of its arguments and writes, to the file its first names, the
#: command's start and end (``time.perf_counter``, one clock for every process here)
#: and its ``wait4`` figures. A command started straight from this script would carry
#: this script's peak RSS as its own: ``ru_maxrss`` is kept across ``exec``, and this
#: script grows with each round's replies; this launcher stays at a few MiB.
_LAUNCHER = """
import os, subprocess, sys, time
figures, command = sys.argv[1], sys.argv[2:]
began = time.perf_counter()
proc = subprocess.Popen(command)
_pid, status, usage = os.wait4(proc.pid, 0)
ended = time.perf_counter()
with open(figures, "w") as out:
    out.write(f"{began} {ended} {os.waitstatus_to_exitcode(status)} {usage.ru_maxrss} "
              f"{usage.ru_utime + usage.ru_stime}")
"""


def run_child(command: Sequence[str], folder: Path, name: str) -> Child:
    """Run ``command`` to its end; its time from start to exit and its peak RSS (``wait4``),
    through :data:`_LAUNCHER`."""
    out_path, err_path = folder / f"{name}.out", folder / f"{name}.err"
    figures = folder / f"{name}.figures"
    launcher = [sys.executable, "-I", "-S", "-c", _LAUNCHER, str(figures), *command]
    with out_path.open("wb") as out, err_path.open("wb") as err:
        subprocess.run(launcher, stdout=out, stderr=err, check=True)
    began, ended, status, peak, cpu = figures.read_text().split()
    return Child(
        int(status),
        float(ended) - float(began),
        int(peak),
        out_path.read_text(errors="replace"),
        err_path.read_text(errors="replace"),
        float(began),
        float(cpu),
    )


def compile_bot() -> None:
    """Compile the bot's modules to bytecode (untimed), as ``pip install`` does when it
    installs them: in a checkout run where ``PYTHONDONTWRITEBYTECODE`` is set (many
    container images set it), the bot would otherwise compile every module of its own
    again at each start, a tenth of a second that no installed bot spends."""
    compileall.compile_dir(Path(mailbot.__file__).parent, quiet=1)


def tally(session: Session, query: Select[int]) -> int:
    """``SELECT count(*)`` of ``query`` (0 for none)."""
    return int(session.scalar(query) or 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=2000, help="messages in the backlog")
    parser.add_argument("--games", type=int, default=500, help="games they are moves of")
    parser.add_argument("--database", metavar="URL", help="SQLAlchemy URL (default: SQLite)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the games' moves")
    parser.add_argument(
        "--reply-bytes",
        type=int,
        default=REPLY_BODY,
        metavar="N",
        help=f"body size of each floor reply (default {REPLY_BODY})",
    )
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="run the poll under cProfile and write its statistics to FILE (slows it down)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        metavar="N",
        help="measure N times, each on new servers and a new database, and print the "
        "median ratio beside each round's (the machine's speed drifts within minutes)",
    )
    args = parser.parse_args(argv)
    try:
        plan = scenario(args.messages, args.seed, games=args.games)
    except ValueError as exc:
        parser.error(str(exc))
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    results = [measure(args, plan) for _round in range(args.rounds)]
    for number, result in enumerate(results, 1):
        if args.rounds > 1:
            print(f"== round {number} of {args.rounds}")
        print("\n".join(result.lines))
    if args.rounds > 1:
        ratios = [result.ratio for result in results]
        print(
            f"rounds:           ratios {', '.join(f'{r:.2f}' for r in ratios)}; "
            f"median {statistics.median(ratios):.2f} x the floor"
        )
    return 0 if all(result.ok for result in results) else 1


@dataclasses.dataclass(frozen=True)
class Round:
    """One measurement: the lines of its report, the bot's time over the floor's, and
    whether the bot did all it should (every move applied, every reply sent once)."""

    lines: list[str]
    ratio: float
    ok: bool


def measure(args: argparse.Namespace, plan: Scenario) -> Round:
    """The floor and the bot once, on new servers and a new database."""
    lines: list[str] = []
    n = len(plan.letters)

    with mail_servers() as (dovecot, sink, root), database(args.database, root) as url:
        began = time.perf_counter()
        fed = Federation(url, dovecot.account(), sink, plan.start_list, root)
        assert fed.config_path is not None
        imported = time.perf_counter() - began
        try:
            first = datetime.datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
            began = time.perf_counter()
            for i, letter in enumerate(plan.letters):
                at = first + datetime.timedelta(minutes=i)
                fed.write(letter.sender, letter.body, at, subject=letter.subject)
            appended = time.perf_counter() - began
            now = first + datetime.timedelta(minutes=n + 1)

            # The floor, on the same servers: the inbox is read once untimed first,
            # so that the floor and the bot both read from a warm server.
            login(fed.imap).logout()
            bare_fetch(fed.imap)
            fetch_s, fetched, fetched_bytes = bare_fetch(fed.imap)
            replies = floor_replies(plan.letters, args.reply_bytes)
            before = len(sink.arrivals)
            send_s = bare_send(sink.port, replies)
            floor_received = len(sink.wait_arrivals(before + len(replies), 10.0)) - before
            floor_s = fetch_s + send_s
            floor_size = sum(len(raw) for _to, raw in replies) / max(len(replies), 1)

            python = [sys.executable, "-m", "mailbot"]
            compile_bot()
            start = run_child([*python, "--version"], root, "version")
            if args.profile:
                profile = str(Path(args.profile).resolve())
                python = [sys.executable, "-m", "cProfile", "-o", profile, "-m", "mailbot"]
            offset = len(sink.arrivals)
            mine = resource.getrusage(resource.RUSAGE_SELF)
            bot = run_child(
                [*python, "-c", str(fed.config_path), "poll", "--once", "--now", now.isoformat()],
                root,
                "poll",
            )
            arrivals = sink.wait_arrivals(offset + 2 * n, 10.0)[offset:]
            after = resource.getrusage(resource.RUSAGE_SELF)
            # this process only waited meanwhile: its CPU is the listener's
            listener_cpu = after.ru_utime + after.ru_stime - mine.ru_utime - mine.ru_stime
            bot_sizes = [len(raw) for raw in sink.raws[offset:]]
            # the send floor again, with replies as large as the bot's (text and HTML)
            mean = sum(bot_sizes) / len(bot_sizes) if bot_sizes else 0
            overhead = floor_size - args.reply_bytes
            alike = floor_replies(plan.letters, max(1, round(mean - overhead)))
            before = len(sink.arrivals)
            alike_send_s = bare_send(sink.port, alike)
            sink.wait_arrivals(before + len(alike), 10.0)
            alike_s = fetch_s + alike_send_s
            with fed.sessions() as session:
                moves = tally(session, select(func.count()).select_from(Move))
                sent = tally(
                    session,
                    select(func.count()).select_from(Outbox).where(Outbox.status == "sent"),
                )
                pending = tally(
                    session,
                    select(func.count()).select_from(Outbox).where(Outbox.status == "pending"),
                )
                handled = tally(
                    session,
                    select(func.count())
                    .select_from(InboundMessage)
                    .where(InboundMessage.status != "new"),
                )
            left = fed.pending_in_inbox()
        finally:
            fed.close()
        backend = make_url(url).get_backend_name()

    report = bot.stdout.strip().splitlines()[-1] if bot.stdout.strip() else "(no report line)"
    first_reply = (arrivals[0] - bot.began) if arrivals else bot.seconds
    lines.append(f"database:         {backend}")
    lines.append(
        f"messages:         {n} ({plan.games} games of up to {plan.plies} plies, "
        f"{plan.players} players)"
    )
    lines.append(
        f"setup:            {imported:.2f} s import, {appended:.2f} s IMAP APPEND (not measured)"
    )
    lines.append(
        f"floor:            {floor_s:.2f} s = {fetch_s:.2f} s IMAP fetch ({fetched} messages, "
        f"{fetched_bytes / 1024:.0f} KiB, batches of {BATCH}) + {send_s:.2f} s SMTP send "
        f"({len(replies)} replies of {floor_size:.0f} bytes, one connection; "
        f"listener received {floor_received})"
    )
    lines.append(f"poll --once:      {bot.seconds:.2f} s (whole process, exit status {bot.status})")
    lines.append(f"messages/second:  {n / bot.seconds:.1f} (floor: {n / floor_s:.1f})")
    lines.append(f"ratio:            {bot.seconds / floor_s:.1f} x the floor")
    lines.append(
        f"same-size floor:  {alike_s:.2f} s = {fetch_s:.2f} s fetch + {alike_send_s:.2f} s "
        f"sending {len(alike)} replies of the bot's mean size; ratio "
        f"{bot.seconds / alike_s:.1f} x"
    )
    last_reply = (arrivals[-1] - bot.began) if arrivals else bot.seconds
    lines.append(
        f"replies out:      the first {first_reply:.2f} s after the start, the last "
        f"{last_reply:.2f} s after it"
    )
    lines.append(
        f"cpu:              {bot.cpu:.2f} s the poll process (with its courier), "
        f"{listener_cpu:.2f} s the SMTP listener, on {os.cpu_count()} cores"
    )
    lines.append(
        f"process start:    {start.seconds:.2f} s "
        f"(python -m mailbot --version, exit status {start.status})"
    )
    lines.append(f"poll report:      {report}")
    lines.append(f"handled:          {handled} (inbound messages past 'new')")
    lines.append(f"moves applied:    {moves}")
    lines.append(
        f"replies sent:     {sent} (SMTP listener received {len(arrivals)}, "
        f"mean {mean:.0f} bytes; expected {2 * n})"
    )
    lines.append(f"replies pending:  {pending} (left in the outbox after the pass)")
    lines.append(f"left in inbox:    {left}")
    lines.append(f"peak RSS:         {bot.peak_kib / 1024:.0f} MiB (the poll process)")
    ok = bot.status == 0 and moves == n and left == 0 and pending == 0
    ok = ok and len(arrivals) == 2 * n and fetched == n and floor_received == len(replies)
    if bot.status != 0 or re.search(r"\b(ERROR|Traceback)\b", bot.stderr):
        print("the poll process's stderr:\n" + bot.stderr, file=sys.stderr)
    return Round(lines, bot.seconds / floor_s, ok)


if __name__ == "__main__":
    raise SystemExit(main())
