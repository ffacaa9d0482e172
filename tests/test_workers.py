"""Two ``mailbot run`` workers on one mailbox and one PostgreSQL database.

A federation that outgrows one machine starts more workers on the same
PostgreSQL database; nothing else is shared between them. Both read the same
inbox and the same outbox, so both try every message and every reply: a
message is recorded once (a unique key on its folder, UIDVALIDITY and UID)
and handled once (a worker claims its row before it reads the game; the
second worker's claim waits for the first's commit, then finds the message
handled and counts it as a duplicate), and a reply is locked by the worker sending
it (``FOR UPDATE SKIP LOCKED``), which the other skips.

Twenty games are played four plies deep, twenty moves at a time, while both
workers run: every move must be applied once, in order, and every reply
must reach its player once.
"""

from __future__ import annotations

import collections
import datetime
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from faults import wait_until
from harness import Federation
from mailservers import ImapAccount, SmtpSink
from sqlalchemy import func, select, text

from mailbot.desk.pipeline import Desk
from mailbot.mail.inbox import Mailbox
from mailbot.shell.passes import fixed_clock, policy_of, read_mailbox
from mailbot.store.models import InboundMessage, Move, Outbox

#: every test here takes more than a second (pyproject.toml: markers)
pytestmark = pytest.mark.slow

INDEX = "WK-1"
PLAYERS = 10
GAMES = 20
LINE = ["1. e2-e4", "1... e7-e5", "2. g1-f3", "2... b8-c6"]
UCI = ["e2e4", "e7e5", "g1f3", "b8c6"]


def _email(i: int) -> str:
    return f"p{i:02d}@players.example"


def _pairs() -> list[tuple[int, int]]:
    """20 games among 10 players, four each: nobody writes over the daily reply cap."""
    pairs = []
    for k in range(GAMES):
        rnd, i = divmod(k, PLAYERS)
        a, b = i, (i + rnd + 1) % PLAYERS
        pairs.append((a, b) if rnd % 2 == 0 else (b, a))
    return pairs


def _start_list(today: datetime.date) -> str:
    players = "\n".join(
        f"  - {{id: p{i:02d}, name: Player {i}, email: {_email(i)}}}" for i in range(PLAYERS)
    )
    games = "\n".join(f"  - {{white: p{w:02d}, black: p{b:02d}}}" for w, b in _pairs())
    return f"""
index: {INDEX}
name: Two workers
profile: bg-email
start: {today - datetime.timedelta(days=1)}
end: {today + datetime.timedelta(days=365)}
language: en
notation: en
director: {{name: Tom Director, email: td@federation.example}}
players:
{players}
games:
{games}
"""


def _worker(config: Path, name: str) -> subprocess.Popen[str]:
    env = {**os.environ, "MAILBOT_CONFIG": str(config)}
    with (config.parent / f"{name}.err").open("w") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "mailbot", "run"], env=env, stderr=err, text=True
        )


def _wait(check: Callable[[], object], seconds: float, what: str) -> None:
    assert wait_until(check, seconds, interval=0.2), f"timed out waiting for {what}"


def test_two_workers_apply_every_move_once_and_send_every_reply_once(
    postgres_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> None:
    today = datetime.datetime.now(datetime.UTC).date()
    fed = Federation(postgres_url, imap_account, smtp_sink, _start_list(today), tmp_path)
    assert fed.config_path is not None
    workers = [_worker(fed.config_path, "a"), _worker(fed.config_path, "b")]
    pairs = _pairs()
    try:
        for ply, text in enumerate(LINE, 1):
            for number, (white, black) in enumerate(pairs, 1):
                sender = _email(white if ply % 2 == 1 else black)
                now = datetime.datetime.now(datetime.UTC)
                fed.write(sender, text, now, subject=f"[{INDEX}/{number}] move")

            def applied(ply: int = ply) -> bool:
                with fed.sessions() as session:
                    count = session.scalar(select(func.count()).select_from(Move))
                    pending = session.scalar(
                        select(func.count()).select_from(Outbox).where(Outbox.status != "sent")
                    )
                return count == ply * GAMES and pending == 0

            _wait(applied, 120, f"the {GAMES} moves of ply {ply} and their replies")
            for w in workers:
                assert w.poll() is None, (tmp_path / "a.err").read_text()
        _wait(lambda: fed.pending_in_inbox() == 0, 30, "an empty inbox")
    finally:
        for w in workers:
            w.send_signal(signal.SIGTERM)
        codes = [w.wait(30) for w in workers]
    assert codes == [0, 0], [(tmp_path / f"{n}.err").read_text()[-2000:] for n in "ab"]

    with fed.sessions() as session:
        # each message recorded once; each move applied once, in order, by its message
        inbound = session.scalars(select(InboundMessage)).all()
        assert len(inbound) == 4 * GAMES
        assert {r.status for r in inbound} == {"processed"}
        moves = session.scalars(select(Move).order_by(Move.game_id, Move.ply)).all()
        by_game: dict[int, list[str]] = collections.defaultdict(list)
        for m in moves:
            by_game[m.game.number].append(m.uci)
        assert by_game == {n: UCI for n in range(1, GAMES + 1)}
        outbox = session.scalars(select(Outbox)).all()
    assert {r.status for r in outbox} == {"sent"}
    assert fed.in_folder("Processed") == 4 * GAMES

    # every reply arrived once: as many messages as outbox rows, no Message-ID twice
    arrived = collections.Counter(str(m.message["Message-ID"]) for m in smtp_sink.messages)
    assert sum(arrived.values()) == len(outbox), "a reply was sent twice or not at all"
    assert max(arrived.values()) == 1
    moves_told = collections.Counter(
        (str(m.message["X-Mailbot-Game"]), str(m.message["X-Mailbot-Ply"]))
        for m in smtp_sink.messages
        if m.message["X-Mailbot-Event"] == "move"
    )
    # the opponent heard of each move exactly once
    assert moves_told == {
        (f"{INDEX}/{n}", str(ply)): 1 for n in range(1, GAMES + 1) for ply in range(1, 5)
    }
    # each message was handled by one worker: the workers' logs name it processed 80 times
    logs = [(tmp_path / f"{n}.err").read_text() for n in "ab"]
    assert sum(log.count(" processed") for log in logs) == 4 * GAMES
    fed.close()


def test_a_second_worker_files_nothing_while_the_first_files_its_batch(
    postgres_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> None:
    """An IMAP ``MOVE`` is no atomic step between two sessions: Dovecot copies, then
    expunges, so two workers moving one message at once each leave a copy in the done
    folder (a run of the test above once found 100 messages there for 80). The worker
    that handled a batch holds the mailbox's turn until the batch is filed; the other
    waits for it, then finds the messages handled and gone from the inbox."""
    today = datetime.datetime.now(datetime.UTC).date()
    fed = Federation(postgres_url, imap_account, smtp_sink, _start_list(today), tmp_path)
    now = datetime.datetime.now(datetime.UTC)
    for number, (white, _) in enumerate(_pairs(), 1):
        fed.write(_email(white), LINE[0], now, subject=f"[{INDEX}/{number}] move")

    filing = threading.Event()  # the first worker has committed and is about to file
    go_on = threading.Event()
    filed_by_second: list[int] = []

    class First(Mailbox):
        def file_done(self, *uids: int) -> None:
            filing.set()
            go_on.wait(60)
            super().file_done(*uids)

    class Second(Mailbox):
        def file_done(self, *uids: int) -> None:
            filed_by_second.extend(uids)
            super().file_done(*uids)

    def waiting_for_the_turn() -> bool:
        with fed.sessions() as session:
            locks = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            return bool(session.scalar(text(locks)))

    clock = fixed_clock(now)
    outcomes: dict[str, object] = {}

    def work(name: str, mailbox: Mailbox) -> None:
        with mailbox:
            outcomes[name] = read_mailbox(mailbox, Desk(fed.sessions, policy_of(fed.config)), clock)

    first = threading.Thread(target=work, args=("first", First(fed.config.imap)))
    second = threading.Thread(target=work, args=("second", Second(fed.config.imap)))
    first.start()
    try:
        assert filing.wait(60), "the first worker never came to filing its batch"
        second.start()
        _wait(waiting_for_the_turn, 60, "the second worker to wait for the mailbox's turn")
        assert filed_by_second == []
    finally:
        go_on.set()
        first.join(60)
        if second.is_alive() or second.ident is not None:
            second.join(60)
    assert outcomes["first"] == {"handled": GAMES}
    assert outcomes["second"] == {"duplicate": GAMES}
    assert fed.in_folder("Processed") == GAMES
    assert fed.pending_in_inbox() == 0
    with fed.sessions() as session:
        assert session.scalar(select(func.count()).select_from(Move)) == GAMES
    fed.close()
