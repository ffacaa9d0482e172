"""Crash recovery: the bot killed with SIGKILL while it works through a backlog.

A backlog of 204 messages (200 moves in 20 games of ten moves, a director's
status request, a stranger's ``help``, a stranger writing about a game and an
out-of-office reply) waits in the bot's Dovecot inbox. The real command
``python -m mailbot -c CONFIG poll --once --now T`` is run as a subprocess
and killed with SIGKILL at ten random moments, then run again until a pass
completes. Afterwards every move is applied exactly once, every message is
out of the inbox, and every reply reached the SMTP listener at least once;
a reply that came twice (a kill between the server's acceptance and the
outbox commit) came with the same Message-ID both times.

Three further tests kill the bot at one precise point each: inside the
transaction, between the commit and the IMAP move, and between the SMTP
acceptance and the outbox commit.
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import io
import random
import signal
import time
from pathlib import Path

import chess
import chess.pgn
import processes
import pytest
from harness import BOT, Federation, mailbot, text_of
from imapclient import IMAPClient
from mailservers import ImapAccount, Received, SmtpSink, dovecot_server, imap_account, smtp_sink  # noqa: F401
from processes import BotProcess
from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from mailbot.rules.notation import Notation, write_move
from mailbot.rules.pgn import surname_first
from mailbot.shell.passes import BATCH
from mailbot.store.engine import make_engine
from mailbot.store.models import InboundMessage, Move, Outbox

#: every test here takes more than a second (pyproject.toml: markers)
pytestmark = pytest.mark.slow

UTC = datetime.UTC
INDEX = "CR-2026"
TD = "td@federation.example"
PLIES = 10
GAMES = 20
PLAYERS = 10
KILLS = 10
#: Work held back for each kill still to come (more than ``outbox.MARKS``).
RESERVE = 30
#: Work held back for the last kill: two of the desk's batches. A batch's commit moves
#: the count by up to ``passes.BATCH`` at once, and a pass started with only replies
#: left sends them to the loopback listener within the few milliseconds before the kill.
FINAL = 2 * BATCH
SEED = 20260302
FIRST = datetime.datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
NOW = "2026-03-02T14:00:00+00:00"


def _player(i: int) -> str:
    return f"p{i:02d}"


def _email(key: str) -> str:
    return f"{key}@players.example"


def _name(key: str) -> str:
    return f"Player {key[1:]}"


def _pairs() -> list[tuple[str, str]]:
    """20 games among 10 players: each plays four, two with each colour.

    Nobody writes more than 20 messages, the default daily reply cap.
    """
    pairs = []
    for k in range(GAMES):
        rnd, i = divmod(k, PLAYERS)
        a, b = _player(i), _player((i + rnd + 1) % PLAYERS)
        pairs.append((a, b) if rnd % 2 == 0 else (b, a))
    return pairs


def _start_list(pairs: list[tuple[str, str]]) -> str:
    lines = [
        f"index: {INDEX}",
        "name: Crash recovery cup",
        "profile: bg-email",
        "start: 2026-03-01",
        "end: 2027-06-30",
        "language: en",
        "notation: en",
        "conditional_moves: false",
        f"director: {{name: Tom Director, email: {TD}}}",
        "players:",
        *(
            f"  - {{id: {_player(i)}, name: {_name(_player(i))}, email: {_email(_player(i))}}}"
            for i in range(PLAYERS)
        ),
        "games:",
        *(f"  - {{white: {w}, black: {b}}}" for w, b in pairs),
    ]
    return "\n".join(lines) + "\n"


def _random_line(rng: random.Random) -> list[chess.Move]:
    """Ten legal moves that end nothing, promote nothing and repeat no position."""
    while True:
        board = chess.Board()
        seen = {board.epd()}
        line: list[chess.Move] = []
        for _ in range(PLIES):
            choices = []
            for move in sorted(board.legal_moves, key=lambda m: m.uci()):
                board.push(move)
                fine = board.outcome() is None and board.epd() not in seen
                board.pop()
                if fine and move.promotion is None:
                    choices.append(move)
            if not choices:
                break
            line.append(rng.choice(choices))
            board.push(line[-1])
            seen.add(board.epd())
        if len(line) == PLIES:
            return line


@dataclasses.dataclass(frozen=True)
class Letter:
    """One message of the backlog, and the replies it must cause."""

    sender: str
    subject: str
    body: str
    headers: tuple[tuple[str, str], ...] = ()
    #: (event, X-Mailbot-Game, X-Mailbot-Ply, recipient) of each reply it causes
    replies: tuple[tuple[str, str, str, str], ...] = ()
    #: the move it carries: (game, ply, uci)
    move: tuple[int, int, str] | None = None
    #: how the bot files it: processed, rejected or ignored
    status: str = "processed"


@dataclasses.dataclass(frozen=True)
class Backlog:
    start_list: str
    pairs: list[tuple[str, str]]
    lines: dict[int, list[chess.Move]]
    letters: list[Letter]


def _backlog(moves_only: int | None = None, extras: bool = True) -> Backlog:
    """The moves of every game in arrival order (ply by ply across the games),
    with four other messages in between."""
    rng = random.Random(SEED)
    pairs = _pairs()
    lines = {n: _random_line(rng) for n in range(1, GAMES + 1)}
    boards = {n: chess.Board() for n in lines}
    letters: list[Letter] = []
    for ply in range(PLIES):
        for n, line in lines.items():
            white, black = pairs[n - 1]
            mover, opponent = (white, black) if ply % 2 == 0 else (black, white)
            board, move = boards[n], line[ply]
            dots = "." if board.turn == chess.WHITE else "..."
            body = f"{board.fullmove_number}{dots} {board.lan(move)}\n\n-- \n{_name(mover)}\n"
            board.push(move)
            tag, number = f"{INDEX}/{n}", str(ply + 1)
            letters.append(
                Letter(
                    _email(mover),
                    f"[{tag}] my move",
                    body,
                    replies=(
                        ("move", tag, number, _email(opponent)),
                        ("move-accepted", tag, number, _email(mover)),
                    ),
                    move=(n, ply + 1, move.uci()),
                )
            )
    if moves_only is not None:
        letters = letters[:moves_only]
    if extras:

        def plies_before(game: int, position: int) -> str:
            return str(sum(1 for x in letters[:position] if x.move and x.move[0] == game))

        inserts = [
            (
                45,
                Letter(
                    TD,
                    f"[{INDEX}/3] status please",
                    "status\n",
                    replies=(("status", f"{INDEX}/3", plies_before(3, 45), TD),),
                ),
            ),
            (
                95,
                Letter(
                    "visitor@elsewhere.example",
                    "How does this work?",
                    "help\n",
                    replies=(("notice", "", "", "visitor@elsewhere.example"),),
                ),
            ),
            (
                130,
                Letter(
                    _email("p04"),
                    "Automatic reply: away from my desk",
                    "I am away until Monday.\n",
                    headers=(("Auto-Submitted", "auto-replied"),),
                    status="ignored",
                ),
            ),
            (
                170,
                Letter(
                    "kibitzer@elsewhere.example",
                    f"[{INDEX}/5] a suggestion",
                    "Play 6. Qd1-h5!\n",
                    replies=(
                        ("notice", "", "", "kibitzer@elsewhere.example"),
                        ("notice", f"{INDEX}/5", plies_before(5, 170), TD),
                    ),
                    status="rejected",
                ),
            ),
        ]
        for position, letter in reversed(inserts):
            if position <= len(letters):
                letters.insert(position, letter)
    return Backlog(_start_list(pairs), pairs, lines, letters)


def _deliver(fed: Federation, backlog: Backlog) -> dict[int, str]:
    """Append every letter, a minute apart; the Message-ID of each by position."""
    ids = {}
    for i, letter in enumerate(backlog.letters):
        sent = fed.write(
            letter.sender,
            letter.body,
            FIRST + datetime.timedelta(minutes=i),
            subject=letter.subject,
            headers=letter.headers,
        )
        ids[i] = str(sent["Message-ID"]).strip("<>")
    return ids


def _bot(config: Path, *, crash_at: str | None = None) -> BotProcess:
    """``python -m mailbot -c CONFIG poll --once --now T`` as a process of its own
    (forked with the bot imported: :mod:`processes`).

    With ``crash_at`` the same command runs under a wrapper that sends the
    process SIGKILL at one precise point. Nothing real can make a process die
    exactly there, so the wrapper hooks the libraries underneath the bot
    (an SQLAlchemy flush, imapclient's MOVE, smtplib's send) to inject the
    crash; everything else is the real bot on the real servers.
    """
    argv = ["-c", str(config), "poll", "--once", "--now", NOW]
    # output goes to files: a full pipe nobody reads would stall the bot
    out, err = config.parent / "bot.out", config.parent / "bot.err"
    if crash_at is None:
        return processes.start(argv, output=out, error=err)
    return processes.start([crash_at, *argv], output=out, error=err, code=_CRASH_WRAPPER)


_CRASH_WRAPPER = """
import os, signal, sys
from imapclient import IMAPClient
import smtplib
from sqlalchemy import event
from sqlalchemy.orm import Session
from mailbot.store.models import Move, Outbox

def die():
    os.kill(os.getpid(), signal.SIGKILL)

original_move = IMAPClient.move
original_send = smtplib.SMTP.sendmail
point = sys.argv.pop(1)
if point == "inside-transaction":
    @event.listens_for(Session, "after_flush")
    def written(session, context):
        if any(isinstance(o, Outbox) for o in session.new):
            die()  # the move and its replies are written, not committed
elif point == "after-commit":
    def move(self, messages, folder):
        die()  # the bot moves a message to the done folder only after the commit
    IMAPClient.move = move
elif point == "after-smtp":
    def sendmail(self, *args, **kwargs):
        refused = original_send(self, *args, **kwargs)
        die()  # the server said 250; the outbox row is not marked sent yet
    smtplib.SMTP.sendmail = sendmail
elif point == "poison-then-after-quarantine-commit":
    @event.listens_for(Session, "before_flush")
    def poison(session, context, instances):
        if any(isinstance(o, Move) for o in session.new):
            raise RuntimeError("poison")
    def move(self, messages, folder):
        if folder == "Quarantine":
            die()
        return original_move(self, messages, folder)
    IMAPClient.move = move
else:
    raise SystemExit(f"unknown crash point {point}")
from mailbot.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _finish(config: Path) -> str:
    """Run the bot until a pass completes; its report line."""
    out = config.parent / "bot.out"
    seen = out.stat().st_size if out.exists() else 0
    proc = _bot(config)
    proc.wait(timeout=120)
    assert proc.returncode == 0, (config.parent / "bot.err").read_text()
    return out.read_text()[seen:]


def _progress(engine: Engine) -> int:
    """Messages handled plus replies marked sent."""
    with engine.connect() as connection:
        handled = connection.scalar(
            select(func.count()).select_from(InboundMessage).where(InboundMessage.status != "new")
        )
        sent = connection.scalar(
            select(func.count()).select_from(Outbox).where(Outbox.status == "sent")
        )
    return int(handled or 0) + int(sent or 0)


def _folder_count(imap: ImapAccount, folder: str) -> int:
    client = IMAPClient(imap.host, port=imap.port, ssl=False)
    try:
        client.login(imap.username, imap.password)
        client.select_folder(folder, readonly=True)
        return len(client.search(["ALL"]))
    finally:
        client.logout()


def _reply_key(item: Received) -> tuple[str, str, str, str]:
    m = item.message
    (recipient,) = item.recipients
    return (
        str(m["X-Mailbot-Event"]),
        str(m.get("X-Mailbot-Game", "")),
        str(m.get("X-Mailbot-Ply", "")),
        recipient,
    )


def _replies_by_key(sink: SmtpSink) -> dict[tuple[str, str, str, str], list[Received]]:
    got: dict[tuple[str, str, str, str], list[Received]] = collections.defaultdict(list)
    for item in sink.messages:
        got[_reply_key(item)].append(item)
    return got


def _check_outcome(
    fed: Federation, imap: ImapAccount, sink: SmtpSink, backlog: Backlog, ids: dict[int, str]
) -> int:
    """Everything a player, the director and the federation would check; returns
    the number of replies that arrived more than once."""
    letters = backlog.letters
    # nothing left unread: every message is out of the inbox, in the done folder
    assert fed.pending_in_inbox() == 0
    assert _folder_count(imap, "Processed") == len(letters)
    assert _folder_count(imap, "Quarantine") == 0

    with fed.sessions() as session:
        # one inbound row per message, each handled as expected
        rows = {r.message_id: r for r in session.scalars(select(InboundMessage))}
        assert len(rows) == len(letters)
        for i, letter in enumerate(letters):
            row = rows[ids[i]]
            assert (row.status, row.handled_at is not None) == (letter.status, True), (
                letter.subject,
                row.reason,
            )
        # every move applied exactly once, by the message that carried it
        moves = session.scalars(select(Move).order_by(Move.game_id, Move.ply)).all()
        applied: dict[int, list[tuple[int, str, str | None]]] = collections.defaultdict(list)
        for m in moves:
            carrier = m.inbound.message_id if m.inbound is not None else None
            applied[m.game.number].append((m.ply, m.uci, carrier))
        expected: dict[int, list[tuple[int, str, str | None]]] = collections.defaultdict(list)
        for i, letter in enumerate(letters):
            if letter.move is not None:
                game, ply, uci = letter.move
                expected[game].append((ply, uci, ids[i]))
        assert dict(applied) == dict(expected)
        # no reply left waiting
        statuses = collections.Counter(session.scalars(select(Outbox.status)))
        outbox_ids = set(session.scalars(select(Outbox.message_id)))
    want = sum(len(letter.replies) for letter in letters)
    assert statuses == {"sent": want}

    # every reply reached its recipient at least once; a copy sent twice is
    # the same message (same Message-ID, subject and text) both times
    got = _replies_by_key(sink)
    wanted = {reply for letter in letters for reply in letter.replies}
    assert set(got) == wanted
    duplicates = 0
    for key, items in got.items():
        assert len({str(i.message["Message-ID"]) for i in items}) == 1, key
        assert len({(str(i.message["Subject"]), text_of(i)) for i in items}) == 1, key
        duplicates += len(items) - 1
    assert {str(i.message["Message-ID"]).strip("<>") for i in sink.messages} == outbox_ids

    # the move line names the right move; the PGN holds exactly the intended games
    for letter in letters:
        if letter.move is None:
            continue
        game, ply, uci = letter.move
        board = chess.Board()
        for move in backlog.lines[game][: ply - 1]:
            board.push(move)
        move = chess.Move.from_uci(uci)
        for event, _tag, _ply, recipient in letter.replies:
            (item, *_) = got[(event, f"{INDEX}/{game}", str(ply), recipient)]
            assert item.message["X-Mailbot-Move"] == uci
            assert write_move(board, move, Notation.EN) in text_of(item)
    assert fed.config_path is not None
    exported = mailbot("-c", str(fed.config_path), "pgn", INDEX)
    assert exported.returncode == 0, exported.stderr
    pgn = exported.stdout
    games = {}
    stream = io.StringIO(pgn)
    while (read := chess.pgn.read_game(stream)) is not None:
        games[(read.headers["White"], read.headers["Black"])] = list(read.mainline_moves())
    assert games == {
        (surname_first(_name(w)), surname_first(_name(b))): [
            chess.Move.from_uci(uci) for _ply, uci, _id in expected[n]
        ]
        for n, (w, b) in enumerate(backlog.pairs, 1)
    }
    return duplicates


def test_backlog_survives_ten_kills(
    db_url: str,
    imap_account: ImapAccount,  # noqa: F811
    smtp_sink: SmtpSink,  # noqa: F811
    tmp_path: Path,
) -> None:
    """The bot is killed ten times while it works through 204 waiting messages
    (moves, a status request, help, a stranger, an auto-reply): each restart
    carries on, and the end state is the one an uninterrupted pass leaves."""
    backlog = _backlog()
    fed = Federation(db_url, imap_account, smtp_sink, backlog.start_list, tmp_path)
    engine = make_engine(db_url)
    try:
        ids = _deliver(fed, backlog)
        assert fed.config_path is not None
        work = len(backlog.letters) + sum(len(x.replies) for x in backlog.letters)
        rng = random.Random(SEED)
        kills: list[int] = []
        while len(kills) < KILLS:
            done = _progress(engine)
            left = KILLS - len(kills)
            step = rng.randint(1, max(1, 2 * (work - done) // (left + 1)))
            # keep more than one commit's worth of work (the outbox marks 25 replies
            # sent at a time) for each kill still to come, and more for the last, so
            # that the last lands before the pass can finish
            target = min(done + step, work - FINAL - RESERVE * (left - 1))
            proc = _bot(fed.config_path)
            while proc.poll() is None and _progress(engine) < target:
                time.sleep(0.005)
            time.sleep(rng.uniform(0.0, 0.02))
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            if proc.returncode != -signal.SIGKILL:
                break  # the pass completed before the kill: nothing left to interrupt
            kills.append(_progress(engine))
        report = _finish(fed.config_path)
        duplicates = _check_outcome(fed, imap_account, smtp_sink, backlog, ids)
        assert len(kills) == KILLS, f"only {len(kills)} kills landed (at {kills})"
        assert kills[-1] < work, "the last kill came after all the work was done"
        # a further pass finds nothing to do and sends nothing
        arrived = len(smtp_sink.messages)
        again = _finish(fed.config_path)
        assert "sent=0" in again and "handled" not in again
        assert len(smtp_sink.messages) == arrived
        print(
            f"kills at progress {kills} of {work}; final pass: {report.strip()}; "
            f"replies received twice: {duplicates}"
        )
    finally:
        engine.dispose()
        fed.close()


CRASH_POINTS = ["inside-transaction", "after-commit", "after-smtp"]


@pytest.mark.parametrize("crash_at", CRASH_POINTS)
def test_a_kill_at_a_precise_point_is_recovered(
    crash_at: str,
    db_url: str,
    imap_account: ImapAccount,  # noqa: F811
    smtp_sink: SmtpSink,  # noqa: F811
    tmp_path: Path,
) -> None:
    """White's and Black's first moves of game 1 wait; the bot dies at one point
    of their journey (they are handled in one batch, one transaction), is
    restarted, and each move counts once."""
    backlog = _backlog(moves_only=GAMES + 1, extras=False)  # ply 1 of every game, then 2 of game 1
    backlog = dataclasses.replace(
        backlog, letters=[x for x in backlog.letters if x.move and x.move[0] == 1]
    )
    fed = Federation(db_url, imap_account, smtp_sink, backlog.start_list, tmp_path)
    try:
        ids = _deliver(fed, backlog)
        assert fed.config_path is not None
        crashed = _bot(fed.config_path, crash_at=crash_at)
        crashed.wait(timeout=60)
        assert crashed.returncode == -signal.SIGKILL

        white, black = (_email(k) for k in backlog.pairs[0])
        with fed.sessions() as session:
            plies = session.scalar(select(func.count()).select_from(Move))
        if crash_at == "inside-transaction":
            # rolled back: nothing of the first message stays, it waits in the inbox
            assert plies == 0
            assert fed.pending_in_inbox() == 2
            assert smtp_sink.messages == []
        elif crash_at == "after-commit":
            # the batch (both messages) committed but not filed: both still in the inbox
            assert plies == 2
            assert fed.pending_in_inbox() == 2
            assert smtp_sink.messages == []
        else:
            # both handled and filed; the first reply was accepted, then the bot died
            assert plies == 2
            assert fed.pending_in_inbox() == 0
            assert len(smtp_sink.messages) == 1

        _finish(fed.config_path)
        duplicates = _check_outcome(fed, imap_account, smtp_sink, backlog, ids)
        assert duplicates == (1 if crash_at == "after-smtp" else 0)
        # Black's answer was legal only because White's move was applied once
        assert not [m for m in smtp_sink.messages if m.message["X-Mailbot-Penalty"]]
        for player in (white, black):
            moves = {
                str(m.message["Message-ID"])
                for m in smtp_sink.to(player)
                if m.message["X-Mailbot-Event"] == "move"
            }
            assert len(moves) == 1
        assert BOT not in {r for m in smtp_sink.messages for r in m.recipients}
    finally:
        fed.close()


def test_poison_quarantined_before_a_kill_still_goes_to_quarantine(
    db_url: str,
    imap_account: ImapAccount,  # noqa: F811
    smtp_sink: SmtpSink,  # noqa: F811
    tmp_path: Path,
) -> None:
    """A message that failed three times is quarantined; the bot dies before it
    moves it to the quarantine folder. After the restart it lies in Quarantine
    (where the director's notice says it is), not in the done folder, and the
    director was told once."""
    backlog = _backlog(moves_only=1, extras=False)
    fed = Federation(db_url, imap_account, smtp_sink, backlog.start_list, tmp_path)
    try:
        _deliver(fed, backlog)
        assert fed.config_path is not None
        # The desk never raises on real mail, so the failure is injected: the
        # wrapper makes applying a move fail, and dies at the quarantine move.
        for attempt in (1, 2, 3):
            proc = _bot(fed.config_path, crash_at="poison-then-after-quarantine-commit")
            proc.wait(timeout=60)
            assert proc.returncode == (-signal.SIGKILL if attempt == 3 else 0)
            assert fed.pending_in_inbox() == 1
        _finish(fed.config_path)
        assert fed.pending_in_inbox() == 0
        assert _folder_count(imap_account, "Quarantine") == 1
        assert _folder_count(imap_account, "Processed") == 0
        assert [str(m.message["X-Mailbot-Event"]) for m in smtp_sink.to(TD)] == ["error"]
        assert "Quarantine" in text_of(smtp_sink.to(TD)[0])
        assert [m for m in smtp_sink.messages if TD not in m.recipients] == []
        with fed.sessions() as session:
            assert session.scalar(select(func.count()).select_from(Move)) == 0
            (row,) = session.scalars(select(InboundMessage)).all()
            assert (row.status, row.attempts) == ("quarantined", 3)
    finally:
        fed.close()
