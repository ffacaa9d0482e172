"""``mailbot run`` as a real process while its servers fail under it.

PostgreSQL stopped and started again, an SMTP server that never greets, an
IMAP server restarted while the bot waits in IDLE, SIGKILL at random moments
while the bot works through a backlog, and SIGTERM in the middle of one.
Each test prints one line with what it measured (run with ``-s``).
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import datetime
import random
import re
import signal
import time
from collections.abc import Callable
from pathlib import Path

import chess
import pytest
from faults import (  # noqa: F401 (fixtures)
    DaemonProcess,
    Daemons,
    FrozenProxy,
    HungSmtp,
    PrivateDovecot,
    PrivatePostgres,
    daemons,
    duel,
    event_dates,
    hung_smtp,
    private_dovecot,
    private_postgres,
    sigterm_and_time,
    wait_until,
    within,
    write_daemon_config,
)
from harness import Federation, login
from mailservers import Cyrus, ImapAccount, Received, SmtpSink, private_cyrus  # noqa: F401 (fixture)
from sqlalchemy import func, select, text

from mailbot.store.models import Game, InboundMessage, Move, Outbox

#: every test here takes more than a second (pyproject.toml: markers)
pytestmark = pytest.mark.slow

UTC = datetime.UTC
TD = "td@federation.example"
WHITE, BLACK = "white@example.org", "black@example.org"
#: How long a SIGTERM may take to stop the daemon.
STOP_SECONDS = 5.0


def _duel() -> str:
    """A start list of one game between White and Black."""
    return duel("FLT-1", "Fault test", WHITE, BLACK, TD)


def _now() -> datetime.datetime:
    return datetime.datetime.now(UTC)


def _answered(fed: Federation, player: str, uci: str) -> bool:
    """Whether ``player`` was sent the opponent's move ``uci``."""
    return any(
        m.message["X-Mailbot-Event"] == "move" and m.message["X-Mailbot-Move"] == uci
        for m in fed.received(player)
    )


def _plies(fed: Federation) -> list[str]:
    """The moves of the only game, in order."""
    with fed.sessions() as session:
        return list(session.scalars(select(Move.uci).order_by(Move.ply)))


def _stop(daemon: DaemonProcess) -> float:
    """SIGTERM the daemon; it must exit with 0 within 5 s. How long it took."""
    code, seconds = sigterm_and_time(daemon)
    assert code == 0 and seconds < STOP_SECONDS, (
        f"SIGTERM: exit code {code} after {seconds:.1f} s (-9: still running, killed), "
        f"want 0 within {STOP_SECONDS:.0f} s; its output ends:\n{daemon.tail()}"
    )
    return seconds


# a. PostgreSQL stopped and started again ---------------------------------------

#: A log line about the database.
DATABASE = re.compile(r"database|postgres", re.IGNORECASE)


def test_postgres_stopped_and_started_again_under_the_daemon(
    private_postgres: PrivatePostgres,  # noqa: F811
    imap_account: ImapAccount,
    smtp_sink: SmtpSink,
    daemons: Daemons,  # noqa: F811
    tmp_path: Path,
) -> None:
    """PostgreSQL is stopped (``pg_ctl stop -m fast``) under a running daemon and
    Black's move arrives meanwhile: the daemon keeps running, says the database
    is unreachable in a few lines (no traceback), and once PostgreSQL is back it
    applies the move and White gets it; SIGTERM then stops it at once with 0."""
    fed = Federation(private_postgres.url, imap_account, smtp_sink, _duel(), tmp_path)
    try:
        config = write_daemon_config(tmp_path / "daemon.yaml", fed.mapping)
        daemon = daemons.start(config)
        fed.write(WHITE, "1. e2-e4", _now(), subject="[FLT-1/1] move")
        within(daemon, lambda: _answered(fed, BLACK, "e2e4"), 30, "White's move forwarded")

        fed.engine.dispose()  # the test's own connections end with the server
        outage_began = len(daemon.output())
        stopped = time.monotonic()
        private_postgres.stop("fast")
        fed.write(BLACK, "1... e7-e5", _now(), subject="[FLT-1/1] move")
        died = wait_until(lambda: not daemon.running(), 10)
        assert not died, f"the daemon {daemon.state()} with PostgreSQL down:\n{daemon.tail()}"

        private_postgres.start()
        down = time.monotonic() - stopped
        took = within(daemon, lambda: _answered(fed, WHITE, "e7e5"), 60, "Black's move forwarded")
        assert daemon.running()
        seconds = _stop(daemon)

        output = daemon.output()
        assert "Traceback" not in output, output
        said = [line for line in output[outage_began:].splitlines() if DATABASE.search(line)]
        assert 1 <= len(said) <= 5, f"lines about the database during the outage: {said}"
        assert _plies(fed) == ["e2e4", "e7e5"]
    finally:
        fed.close()
    print(
        f"PostgreSQL down {down:.1f} s: move answered {took:.1f} s after it came back, "
        f"{len(said)} log line(s) about it; SIGTERM: exit 0 after {seconds:.2f} s"
    )


def test_sigterm_stops_the_daemon_while_the_database_does_not_answer(
    private_postgres: PrivatePostgres,  # noqa: F811
    imap_account: ImapAccount,
    smtp_sink: SmtpSink,
    daemons: Daemons,  # noqa: F811
    tmp_path: Path,
) -> None:
    """The database stops answering (not refusing: its host is frozen) while the
    daemon handles Black's move: SIGTERM still stops the daemon within 5 s, the
    move is rolled back, and the next run applies it once."""
    fed = Federation(private_postgres.url, imap_account, smtp_sink, _duel(), tmp_path)
    proxy = FrozenProxy(("127.0.0.1", private_postgres.port))
    try:
        mapping = copy.deepcopy(fed.mapping)
        mapping["database"] = private_postgres.url.replace(
            f":{private_postgres.port}/", f":{proxy.port}/"
        )
        config = write_daemon_config(tmp_path / "daemon.yaml", mapping)
        daemon = daemons.start(config)
        fed.write(WHITE, "1. e2-e4", _now(), subject="[FLT-1/1] move")
        within(daemon, lambda: _answered(fed, BLACK, "e2e4"), 30, "White's move forwarded")
        proxy.frozen.set()
        fed.write(BLACK, "1... e7-e5", _now(), subject="[FLT-1/1] move")
        # the daemon has taken the move and waits for the database
        assert proxy.held.wait(30), daemon.tail()
        code, seconds = sigterm_and_time(daemon)
        assert (code, seconds < STOP_SECONDS) == (0, True), daemon.tail()
        proxy.frozen.clear()
        assert _plies(fed) == ["e2e4"]
        again = daemons.start(config)
        within(again, lambda: _answered(fed, WHITE, "e7e5"), 30, "Black's move forwarded")
        _stop(again)
        assert _plies(fed) == ["e2e4", "e7e5"]
    finally:
        proxy.close()
        fed.close()
    print(f"SIGTERM with the database frozen: exit 0 after {seconds:.2f} s")


# b. an SMTP server that never greets -----------------------------------------------


def _outbox_statuses(fed: Federation) -> list[str]:
    with fed.sessions() as session:
        return list(session.scalars(select(Outbox.status).order_by(Outbox.id)))


def test_moves_are_applied_while_smtp_hangs_and_sigterm_stops_a_hung_send(
    store_url: str,
    imap_account: ImapAccount,
    smtp_sink: SmtpSink,
    hung_smtp: HungSmtp,  # noqa: F811
    daemons: Daemons,  # noqa: F811
    tmp_path: Path,
) -> None:
    """The SMTP server accepts connections and never greets. Black's move,
    arriving while the daemon waits for the greeting to send White's replies,
    is applied within 30 s; SIGTERM stops the daemon with 0 within 5 s, also
    (second run) while it is stuck in a send; no reply is lost: all stay pending."""
    fed = Federation(store_url, imap_account, smtp_sink, _duel(), tmp_path)
    try:
        config = write_daemon_config(
            tmp_path / "daemon.yaml", fed.mapping, smtp={"port": hung_smtp.port}
        )
        daemon = daemons.start(config)
        fed.write(WHITE, "1. e2-e4", _now(), subject="[FLT-1/1] move")
        within(daemon, lambda: _plies(fed) == ["e2e4"], 30, "White's move applied")
        within(daemon, lambda: hung_smtp.hanging, 30, "the daemon sending White's replies")
        fed.write(BLACK, "1... e7-e5", _now(), subject="[FLT-1/1] move")
        applied = within(
            daemon, lambda: _plies(fed) == ["e2e4", "e7e5"], 30, "Black's move applied"
        )
        first = _stop(daemon)

        # a fresh daemon finds White's next move and its replies due: SIGTERM while
        # it waits for the greeting
        assert wait_until(lambda: hung_smtp.hanging == 0, 5), "the first run left a send open"
        fed.write(WHITE, "2. Ng1-f3", _now(), subject="[FLT-1/1] move")
        second = daemons.start(config)
        within(second, lambda: hung_smtp.hanging, 30, "the second daemon sending")
        seconds = _stop(second)

        assert smtp_sink.messages == []
        plies = _plies(fed)
        assert plies[:2] == ["e2e4", "e7e5"]
        assert _outbox_statuses(fed) == ["pending"] * 2 * len(plies)
    finally:
        fed.close()
    print(
        f"SMTP hung ({hung_smtp.accepted} connections): Black's move applied after "
        f"{applied:.1f} s; SIGTERM: exit 0 after {first:.2f} s, "
        f"in the middle of a hung send: exit 0 after {seconds:.2f} s"
    )


# c. IMAP restarted under IDLE ----------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Restartable:
    """An IMAP server of the test's own with an account on it, and its done folder."""

    account: ImapAccount
    restart: Callable[[], float]
    done_folder: str


@pytest.fixture(params=["dovecot", "cyrus"])
def restartable(request: pytest.FixtureRequest) -> Restartable:
    if request.param == "dovecot":
        dovecot: PrivateDovecot = request.getfixturevalue("private_dovecot")
        return Restartable(dovecot.account, dovecot.restart, "Processed")
    # Cyrus keeps the account's folders under INBOX. and has an IDLE of its own (idled)
    cyrus: Cyrus = request.getfixturevalue("private_cyrus")
    return Restartable(cyrus.account(), cyrus.restart, "INBOX.Processed")


def test_imap_restarted_while_the_daemon_idles(
    sqlite_url: str,
    restartable: Restartable,
    smtp_sink: SmtpSink,
    daemons: Daemons,  # noqa: F811
    tmp_path: Path,
) -> None:
    """Dovecot or Cyrus IMAP is restarted while the daemon waits in IDLE: before it,
    a move is answered under IDLE within seconds; after it, a move delivered is
    answered within 60 s; the daemon never exits on its own, the handled mail lies in
    the done folder, and SIGTERM stops the daemon with 0 within 5 s. On SQLite in every
    run: the IMAP server is the subject, and the store no part of it."""
    account = restartable.account
    fed = Federation(sqlite_url, account, smtp_sink, _duel(), tmp_path)
    try:
        config = write_daemon_config(tmp_path / "daemon.yaml", fed.mapping)
        daemon = daemons.start(config)
        fed.write(WHITE, "1. e2-e4", _now(), subject="[FLT-1/1] move")
        within(daemon, lambda: _answered(fed, BLACK, "e2e4"), 30, "White's move forwarded")
        time.sleep(1.0)  # the replies are sent: the daemon waits in IDLE
        fed.write(BLACK, "1... e7-e5", _now(), subject="[FLT-1/1] move")
        idle = within(daemon, lambda: _answered(fed, WHITE, "e7e5"), 30, "Black's move")
        assert idle < 10, f"answered {idle:.1f} s after delivery: IDLE did not wake the daemon"
        time.sleep(1.0)

        down = restartable.restart()
        fed.client = login(account)  # the test's own session ended too
        fed.write(WHITE, "2. g1-f3", _now(), subject="[FLT-1/1] move")
        took = within(daemon, lambda: _answered(fed, BLACK, "g1f3"), 60, "White's 2nd move")
        assert daemon.running(), daemon.tail()
        seconds = _stop(daemon)
        assert _plies(fed) == ["e2e4", "e7e5", "g1f3"]
        assert fed.in_folder(restartable.done_folder) == 3
    finally:
        fed.close()
    print(
        f"a move answered {idle:.1f} s after delivery under IDLE; restarted "
        f"({down:.1f} s down): move answered {took:.1f} s after delivery; "
        f"SIGTERM: exit 0 after {seconds:.2f} s"
    )


# backlogs ------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Letter:
    """One player's move in the backlog."""

    game: int
    ply: int
    uci: str
    mover: str
    opponent: str
    body: str

    @property
    def tag(self) -> str:
        return f"FLT-2/{self.game}"

    def replies(self) -> set[tuple[str, str, str, str]]:
        """(event, game, ply, recipient) of the two replies the move must cause."""
        ply = str(self.ply)
        return {
            ("move", self.tag, ply, self.opponent),
            ("move-accepted", self.tag, ply, self.mover),
        }


@dataclasses.dataclass(frozen=True)
class Backlog:
    start_list: str
    #: The intended moves of each game, in UCI.
    lines: dict[int, list[str]]
    #: In arrival order: ply 1 of every game, then ply 2...
    letters: list[Letter]


def _line(rng: random.Random, plies: int) -> list[chess.Move]:
    """Legal moves that end nothing, promote nothing and repeat no position."""
    while True:
        board = chess.Board()
        seen = {board.epd()}
        line: list[chess.Move] = []
        for _ in range(plies):
            choices = []
            for move in sorted(board.legal_moves, key=lambda m: m.uci()):
                board.push(move)
                if board.outcome() is None and board.epd() not in seen and not move.promotion:
                    choices.append(move)
                board.pop()
            if not choices:
                break
            line.append(rng.choice(choices))
            board.push(line[-1])
            seen.add(board.epd())
        if len(line) == plies:
            return line


def _backlog(games: int, plies: int = 10, seed: int = 20261130) -> Backlog:
    """``games`` games of ``plies`` moves among ``games`` players in a ring
    (player i has White against i+1): nobody writes more than ``plies`` times."""
    rng = random.Random(seed)
    email = [f"p{i:02d}@players.example" for i in range(games)]
    pairs = [(i, (i + 1) % games) for i in range(games)]
    moves = {n: _line(rng, plies) for n in range(1, games + 1)}
    boards = {n: chess.Board() for n in moves}
    letters = []
    for ply in range(plies):
        for n, (white, black) in enumerate(pairs, 1):
            mover, opponent = (white, black) if ply % 2 == 0 else (black, white)
            board, move = boards[n], moves[n][ply]
            dots = "." if board.turn == chess.WHITE else "..."
            body = f"{board.fullmove_number}{dots} {board.lan(move)}\n\n-- \nPlayer {mover}\n"
            board.push(move)
            letters.append(Letter(n, ply + 1, move.uci(), email[mover], email[opponent], body))
    start, end = event_dates()
    start_list = "\n".join(
        [
            "index: FLT-2",
            "name: Backlog cup",
            "profile: bg-email",
            f"start: {start.isoformat()}",
            f"end: {end.isoformat()}",
            "language: en",
            "notation: en",
            "conditional_moves: false",
            f"director: {{name: Tom Director, email: {TD}}}",
            "players:",
            *(f"  - {{id: p{i:02d}, name: Player {i}, email: {email[i]}}}" for i in range(games)),
            "games:",
            *(f"  - {{white: p{w:02d}, black: p{b:02d}}}" for w, b in pairs),
        ]
    )
    lines = {n: [m.uci() for m in line] for n, line in moves.items()}
    return Backlog(start_list + "\n", lines, letters)


def _arrivals(letters: list[Letter]) -> list[tuple[Letter, datetime.datetime]]:
    """When each letter arrives: a minute apart, the last one a minute ago."""
    first = _now() - datetime.timedelta(minutes=len(letters) + 1)
    return [(letter, first + datetime.timedelta(minutes=i)) for i, letter in enumerate(letters)]


def _deliver(fed: Federation, arrivals: list[tuple[Letter, datetime.datetime]]) -> None:
    for letter, at in arrivals:
        fed.write(letter.mover, letter.body, at, subject=f"[{letter.tag}] my move")


def _progress(fed: Federation) -> tuple[int, int]:
    """(messages handled, replies sent)."""
    with fed.sessions() as session:
        handled = session.scalar(
            select(func.count()).select_from(InboundMessage).where(InboundMessage.status != "new")
        )
        sent = session.scalar(
            select(func.count()).select_from(Outbox).where(Outbox.status == "sent")
        )
    return int(handled or 0), int(sent or 0)


def _finished(fed: Federation, backlog: Backlog) -> bool:
    """Every message handled and out of the inbox, no reply waiting to be sent.

    The replies are asked for last: a batch's replies are committed with its messages,
    so once every message is handled they are all in the outbox. Asked first, they
    could be counted before the last batch's commit and the messages after it, and
    the backlog seem finished for a moment with that batch's replies still to send."""
    handled, _sent = _progress(fed)
    if handled != len(backlog.letters) or fed.pending_in_inbox() != 0:
        return False
    with fed.sessions() as session:
        waiting = session.scalar(
            select(func.count()).select_from(Outbox).where(Outbox.status == "pending")
        )
    return not waiting


def _state(fed: Federation, backlog: Backlog) -> Callable[[], str]:
    """What :func:`_finished` finds, said in a line, for a test that waited in vain."""

    def state() -> str:
        with fed.sessions() as session:
            waiting = session.execute(
                select(Outbox.id, Outbox.next_attempt_at, Outbox.attempts, Outbox.last_error)
                .where(Outbox.status == "pending")
                .order_by(Outbox.id)
            ).all()
        handled, sent = _progress(fed)
        return (
            f"{handled} of {len(backlog.letters)} messages handled, {sent} replies sent, "
            f"{fed.pending_in_inbox()} messages in the inbox, pending replies: "
            f"{[tuple(row) for row in waiting[:10]]}{_waits(fed)}"
        )

    return state


def _waits(fed: Federation) -> str:
    """On PostgreSQL, the sessions that wait for a lock or sit in an open transaction,
    and who holds them up: what a daemon that stopped short was waiting for."""
    if fed.engine.dialect.name != "postgresql":
        return ""
    with fed.engine.connect() as connection:
        rows = connection.execute(
            text(
                "SELECT pid, state, wait_event_type, wait_event, pg_blocking_pids(pid),"
                " now() - xact_start, left(query, 160) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                " AND (wait_event_type = 'Lock' OR state LIKE 'idle in transaction%')"
            )
        ).all()
    return "; waiting or in a transaction: " + (
        "; ".join(str(tuple(row)) for row in rows) if rows else "none"
    )


def _reply_key(item: Received) -> tuple[str, str, str, str]:
    m = item.message
    return (
        str(m["X-Mailbot-Event"]),
        str(m.get("X-Mailbot-Game", "")),
        str(m.get("X-Mailbot-Ply", "")),
        ", ".join(item.recipients),
    )


def _check_backlog(fed: Federation, sink: SmtpSink, backlog: Backlog) -> int:
    """Every move applied exactly once, the inbox empty, every reply received at
    least once and twice only as the same message; how many came twice."""
    assert fed.pending_in_inbox() == 0
    with fed.sessions() as session:
        rows = session.execute(
            select(Game.number, Move.ply, Move.uci).join(Move.game).order_by(Game.number, Move.ply)
        ).all()
        statuses = collections.Counter(session.scalars(select(Outbox.status)))
    applied: dict[int, list[tuple[int, str]]] = collections.defaultdict(list)
    for number, ply, uci in rows:
        applied[number].append((ply, uci))
    expected = {n: list(enumerate(line, 1)) for n, line in backlog.lines.items()}
    assert dict(applied) == expected
    assert statuses == {"sent": 2 * len(backlog.letters)}

    got: dict[tuple[str, str, str, str], list[Received]] = collections.defaultdict(list)
    for item in sink.messages:
        got[_reply_key(item)].append(item)
    wanted = {reply for letter in backlog.letters for reply in letter.replies()}
    assert set(got) == wanted
    duplicates = 0
    for key, items in got.items():
        assert len({str(i.message["Message-ID"]) for i in items}) == 1, key
        duplicates += len(items) - 1
    for letter in backlog.letters:
        for event, tag, ply, recipient in letter.replies():
            for item in got[(event, tag, ply, recipient)]:
                assert item.message["X-Mailbot-Move"] == letter.uci, (event, tag, ply)
    return duplicates


# d. SIGKILL at random moments -----------------------------------------------------------

KILLS = 20


def test_backlog_survives_twenty_sigkills_of_the_daemon(
    db_url: str,
    imap_account: ImapAccount,
    smtp_sink: SmtpSink,
    daemons: Daemons,  # noqa: F811
    tmp_path: Path,
) -> None:
    """120 moves in 12 games come in four parts, before the 1st, 6th, 11th and 16th
    start of ``mailbot run`` (the last move only during the final run); each run
    is killed with SIGKILL 0.2-2 s after it starts, 20 times; then one run
    finishes and is stopped with SIGTERM: every move is applied once, the inbox
    is empty, every reply arrived, and one that arrived twice is the same
    message (same Message-ID) both times."""
    backlog = _backlog(games=12)
    fed = Federation(db_url, imap_account, smtp_sink, backlog.start_list, tmp_path)
    try:
        *waiting, last = _arrivals(backlog.letters)
        part = -(-len(waiting) // 4)
        config = write_daemon_config(tmp_path / "daemon.yaml", fed.mapping)
        rng = random.Random(f"{KILLS} kills")
        kills: list[tuple[int, int]] = []
        for round_ in range(KILLS):
            if round_ % 5 == 0:
                _deliver(fed, waiting[round_ // 5 * part : (round_ // 5 + 1) * part])
            daemon = daemons.start(config)
            time.sleep(rng.uniform(0.2, 2.0))
            assert daemon.running(), f"the daemon {daemon.state()}:\n{daemon.tail()}"
            daemon.proc.send_signal(signal.SIGKILL)
            daemon.proc.wait()
            kills.append(_progress(fed))

        daemon = daemons.start(config)
        _deliver(fed, [last])
        took = within(
            daemon,
            lambda: _finished(fed, backlog),
            90,
            "the backlog finished",
            _state(fed, backlog),
        )
        seconds = _stop(daemon)
        duplicates = _check_backlog(fed, smtp_sink, backlog)
    finally:
        fed.close()
    backend = db_url.split(":", 1)[0]
    print(
        f"{KILLS} SIGKILLs on {backend}, (handled, sent) at each: {kills}; the final run "
        f"was done {took:.1f} s after the last move came and stopped after {seconds:.2f} s; "
        f"replies received twice: {duplicates}"
    )


# e. SIGTERM mid-backlog ----------------------------------------------------------------------


def _in_hand(fed: Federation) -> int:
    """Messages recorded and not yet handled: the batch the desk has in hand."""
    with fed.sessions() as session:
        query = select(func.count()).select_from(InboundMessage)
        return int(session.scalar(query.where(InboundMessage.status == "new")) or 0)


@pytest.mark.parametrize("moment", ["a-second-after-the-start", "the-second-batch-in-hand"])
def test_sigterm_in_the_middle_of_a_backlog(
    moment: str,
    store_url: str,
    imap_account: ImapAccount,
    smtp_sink: SmtpSink,
    daemons: Daemons,  # noqa: F811
    tmp_path: Path,
) -> None:
    """400 moves wait; SIGTERM 1 s after the daemon starts (once it handles mail), or
    while the desk has the second batch in hand and the courier sends the first's
    answers, stops it with 0 within 5 s, mid-backlog, without reading the rest of
    the inbox: the messages handled before the stop are filed in the done folder,
    the rest wait in the inbox. A second run finishes the backlog with every move
    applied once, reads no message as one handled before (a duplicate) and sends
    every reply exactly once.

    The backlog is long enough to outlast that second: on an idle machine the
    daemon handles 300 messages a second, and 150 were all done within it."""
    backlog = _backlog(games=40)
    fed = Federation(store_url, imap_account, smtp_sink, backlog.start_list, tmp_path)
    try:
        _deliver(fed, _arrivals(backlog.letters))
        config = write_daemon_config(tmp_path / "daemon.yaml", fed.mapping)
        daemon = daemons.start(config)
        if moment == "the-second-batch-in-hand":
            in_hand = lambda: _progress(fed)[0] >= 50 and _in_hand(fed) > 0  # noqa: E731
            within(daemon, in_hand, 60, "the second batch in hand")
        else:
            within(daemon, lambda: _progress(fed)[0] > 0, 30, "the first message handled")
            time.sleep(max(0.0, daemon.started + 1.0 - time.monotonic()))
        handled, sent = _progress(fed)
        assert handled < len(backlog.letters), "the backlog was done before the SIGTERM came"
        seconds = _stop(daemon)
        stopped_at, _sent = _progress(fed)
        assert stopped_at < len(backlog.letters), (
            f"after SIGTERM (with {handled} handled) the daemon read the whole inbox"
        )
        filed, waiting = fed.in_folder("Processed"), fed.pending_in_inbox()
        assert (filed, waiting) == (stopped_at, len(backlog.letters) - stopped_at), (
            f"{stopped_at} handled before the stop; {filed} filed, {waiting} in the inbox"
        )

        second = daemons.start(config)
        took = within(
            second,
            lambda: _finished(fed, backlog),
            90,
            "the backlog finished",
            _state(fed, backlog),
        )
        stop = _stop(second)
        duplicates = _check_backlog(fed, smtp_sink, backlog)
        read = [
            line for line in second.output().splitlines() if "mailbot.shell.daemon: read " in line
        ]
    finally:
        fed.close()
    assert not [line for line in read if "duplicate" in line], read
    assert duplicates == 0, f"{duplicates} replies sent twice"
    print(
        f"SIGTERM mid-backlog ({handled} of {len(backlog.letters)} handled, {sent} sent): "
        f"exit 0 after {seconds:.2f} s with {stopped_at} handled; "
        f"a second run finished in {took:.1f} s and stopped after {stop:.2f} s; "
        f"replies received twice: {duplicates}"
    )
