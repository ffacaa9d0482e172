"""A backlog's answers go out while the backlog is read (the courier).

``poll --once`` hands a backlog to the desk fifty messages to a transaction.
With more than one batch waiting, a courier process sends each committed
batch's answers while the desk handles the next, so players hear back while
the bot is still reading; the pass waits for the courier before it sends
what is left, so every answer goes once. Real Dovecot and a real SMTP
listener; the store on SQLite and, under ``MAILBOT_TEST_STORE=postgresql``,
on PostgreSQL.
"""

from __future__ import annotations

import collections
import datetime
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import processes
import pytest
from faults import wait_until
from harness import Federation
from mailservers import ImapAccount, SmtpSink
from sqlalchemy import func, select

from mailbot.desk.pipeline import Desk, Outcome
from mailbot.mail.inbox import Fetched
from mailbot.shell.delivery import MARKS
from mailbot.store.models import Move, Outbox

#: every test here takes more than a second (pyproject.toml: markers)
pytestmark = pytest.mark.slow

UTC = datetime.UTC
INDEX = "CO-1"
PLAYERS = 40
#: Three batches of fifty and a part: more than one batch gets a courier.
GAMES = 120
FIRST = datetime.datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


def _email(i: int) -> str:
    return f"p{i:02d}@players.example"


def _pairs() -> list[tuple[int, int]]:
    """120 games among 40 players, each White in three: nobody nears the reply cap."""
    return [(i, (i + k) % PLAYERS) for k in (1, 2, 3) for i in range(PLAYERS)]


def _start_list() -> str:
    entries = [f"{{id: p{i:02d}, name: Player {i}, email: {_email(i)}}}" for i in range(PLAYERS)]
    entries += [f"{{white: p{w:02d}, black: p{b:02d}}}" for w, b in _pairs()]
    head = f"index: {INDEX}\nname: Courier cup\nprofile: bg-email\nstart: 2026-03-01\n"
    head += "end: 2027-06-30\nlanguage: en\nnotation: en\n"
    head += "director: {name: Tom Director, email: td@federation.example}\n"
    players, games = entries[:PLAYERS], entries[PLAYERS:]
    return head + "".join(
        f"{title}:\n" + "".join(f"  - {e}\n" for e in group)
        for title, group in (("players", players), ("games", games))
    )


@pytest.fixture
def fed(
    store_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> Iterator[Federation]:
    """The cup, with every White's first move waiting in the inbox, one a minute."""
    federation = Federation(store_url, imap_account, smtp_sink, _start_list(), tmp_path)
    try:
        for number, (white, _black) in enumerate(_pairs(), 1):
            at = FIRST + datetime.timedelta(minutes=number)
            federation.write(_email(white), "1. e2-e4", at, subject=f"[{INDEX}/{number}] move")
        yield federation
    finally:
        federation.close()


Receive = Callable[[Desk, Sequence[Fetched], datetime.datetime], list[Outcome]]


def _on_batch(
    monkeypatch: pytest.MonkeyPatch, before: Callable[[int], None]
) -> collections.Counter[str]:
    """Call ``before(n)`` as the desk takes its ``n``-th batch (1, 2, ...)."""
    calls: collections.Counter[str] = collections.Counter()
    original: Receive = Desk.receive_all  # type: ignore[assignment]

    def receive_all(
        desk: Desk, batch: Sequence[Fetched], now: datetime.datetime, *rest: object
    ) -> list[Outcome]:
        calls["batches"] += 1
        before(calls["batches"])
        return original(desk, batch, now, *rest)  # type: ignore[call-arg]

    monkeypatch.setattr(Desk, "receive_all", receive_all)
    return calls


def _check_all_sent_once(
    fed: Federation, sink: SmtpSink, report: str, *, twice: int, handled: int | None = GAMES
) -> None:
    """Every White's move applied and forwarded to Black, and confirmed to White: 240
    answers, each Message-ID at most ``twice`` times more than once; the pass that
    ``report`` is of handled ``handled`` messages (None: some, after an earlier pass)."""
    with fed.sessions() as session:
        assert session.scalar(select(func.count()).select_from(Move)) == GAMES
        statuses = collections.Counter(session.scalars(select(Outbox.status)).all())
    assert statuses == {"sent": 2 * GAMES}, statuses
    ids = collections.Counter(str(m.message["Message-ID"]) for m in sink.messages)
    assert len(ids) == 2 * GAMES
    repeated = sum(n - 1 for n in ids.values())
    assert repeated <= twice, f"{repeated} answers went twice"
    for w, b in _pairs():
        assert sink.to(_email(b)), f"Black of {w}-{b} heard nothing"
    assert handled is None or f"handled={handled} " in report, report
    assert "failed=0" in report, report
    assert fed.pending_in_inbox() == 0


def test_a_backlogs_answers_go_out_while_it_is_read(
    fed: Federation, smtp_sink: SmtpSink, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before the desk takes the third batch, the first batch's players have their
    answers; at the end every answer has gone, each once."""
    heard: list[int] = []

    def before(n: int) -> None:
        if n == 3:  # the first batch is committed; the courier has had it a while
            wait_until(lambda: len(smtp_sink.messages) >= 2, 60.0, interval=0.02)
            heard.append(len(smtp_sink.messages))

    calls = _on_batch(monkeypatch, before)
    report = fed.poll(FIRST + datetime.timedelta(hours=3)).line()
    assert calls["batches"] == 3
    assert heard and heard[0] >= 2, "no answer went out while the backlog was read"
    _check_all_sent_once(fed, smtp_sink, report, twice=0)
    assert "sent=240" in report, report


def _signal_the_courier(
    monkeypatch: pytest.MonkeyPatch, sink: SmtpSink, signum: signal.Signals
) -> list[int | None]:
    """As the desk takes its second batch, once the courier's first answer has arrived,
    send the courier ``signum`` and wait for it to end; the list gets its exit code."""
    ended: list[int | None] = []

    def before(n: int) -> None:
        if n == 2:
            couriers = [p for p in multiprocessing.active_children() if p.name == "mailbot-courier"]
            assert couriers, "no courier for a backlog of three batches"
            wait_until(lambda: len(sink.messages) >= 1, 60.0, interval=0.02)
            assert couriers[0].pid is not None
            os.kill(couriers[0].pid, signum)
            couriers[0].join(10)
            ended.append(couriers[0].exitcode)

    _on_batch(monkeypatch, before)
    return ended


def test_if_the_courier_dies_the_pass_sends_what_it_left(
    fed: Federation, smtp_sink: SmtpSink, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The courier is killed (SIGKILL) once it has sent a few answers: the pass still
    reads the whole backlog and sends every answer; those the courier had sent but
    not yet marked (at most one group of ``MARKS``) go twice, none is lost."""
    killed = _signal_the_courier(monkeypatch, smtp_sink, signal.SIGKILL)
    report = fed.poll(FIRST + datetime.timedelta(hours=3)).line()
    assert killed, "the courier was not killed"
    _check_all_sent_once(fed, smtp_sink, report, twice=MARKS)


def test_a_courier_sent_sigterm_marks_what_it_sent_and_nothing_goes_twice(
    fed: Federation, smtp_sink: SmtpSink, monkeypatch: pytest.MonkeyPatch
) -> None:
    """systemd stops a service with SIGTERM to each of its processes: the courier, sent
    SIGTERM as soon as its first answer arrives, finishes the answer in hand, commits
    the marks of those it sent and ends; the pass sends the rest, and no answer goes
    twice."""
    stopped = _signal_the_courier(monkeypatch, smtp_sink, signal.SIGTERM)
    report = fed.poll(FIRST + datetime.timedelta(hours=3)).line()
    _check_all_sent_once(fed, smtp_sink, report, twice=0)
    assert stopped == [0], f"the courier ended with {stopped}"


def test_a_batch_in_hand_does_not_hold_up_the_answers_of_the_one_before(
    fed: Federation, smtp_sink: SmtpSink, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Halfway through the desk's second batch, the courier sends all 100 answers of
    the first and marks them sent: a batch writes to the database only at its end,
    so the courier is not kept waiting for the whole batch (on SQLite, whose one
    write lock the batch would otherwise hold from its first message)."""
    taken: collections.Counter[str] = collections.Counter()
    marked: list[bool] = []
    original = Desk._take

    def sent() -> int:
        with fed.sessions() as session:
            query = select(func.count()).select_from(Outbox).where(Outbox.status == "sent")
            return session.scalar(query) or 0

    def take(desk: Desk, *args: object, **kwargs: object) -> Outcome:
        taken["messages"] += 1
        if taken["messages"] == 75:  # the 25th message of the second batch
            marked.append(wait_until(lambda: sent() >= 100, 30.0, interval=0.02))
        return original(desk, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Desk, "_take", take)
    report = fed.poll(FIRST + datetime.timedelta(hours=3)).line()
    assert marked == [True], "the first batch's answers were not marked sent meanwhile"
    assert len(smtp_sink.messages) >= 100
    _check_all_sent_once(fed, smtp_sink, report, twice=0)


#: ``python -m mailbot`` that first writes down each way a process is started.
_RECORDING = """
import multiprocessing, sys
from pathlib import Path
record = Path(sys.argv.pop(1))
get_context = multiprocessing.get_context
def recording(method=None):
    with record.open("a") as lines:
        lines.write(f"{method}\\n")
    return get_context(method)
multiprocessing.get_context = recording
from mailbot.__main__ import run
sys.exit(run())
"""


def test_a_poll_process_of_its_own_forks_its_courier_and_sends_every_answer_once(
    fed: Federation, smtp_sink: SmtpSink, tmp_path: Path
) -> None:
    """``mailbot poll --once`` as a process of its own has no thread beside its main one,
    so it forks its courier, with the bot's modules loaded, instead of starting a new
    interpreter: every answer goes out once, and the log has each answer's line once
    (a forked courier does not also write through the handlers it inherited)."""
    assert fed.config_path is not None
    record, out, err = tmp_path / "methods", tmp_path / "out", tmp_path / "err"
    argv = [str(record), "-c", str(fed.config_path), "poll", "--once", "--now", "2026-03-02T11:00"]
    bot = processes.start(argv, output=out, error=err, code=_RECORDING)
    bot.wait(timeout=120)
    assert bot.returncode == 0, err.read_text()
    assert record.read_text().split() == ["fork"]
    _check_all_sent_once(fed, smtp_sink, out.read_text(), twice=0)
    sent_lines = [line for line in err.read_text().splitlines() if " sent move" in line]
    assert len(sent_lines) == 2 * GAMES, err.read_text()[-2000:]


def _children(pid: int) -> list[int]:
    """The processes ``pid`` started that still run (Linux's /proc)."""
    listed = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(child) for child in listed.split()]


def _running(pid: int) -> bool:
    """Whether process ``pid`` still runs (gone, or ended and not yet reaped: no)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def test_a_poll_process_killed_outright_takes_its_forked_courier_with_it(
    fed: Federation, smtp_sink: SmtpSink, tmp_path: Path
) -> None:
    """``mailbot poll --once`` is killed (SIGKILL: the OOM killer, ``timeout -s KILL``)
    once its forked courier has begun to send: the courier sees the pass gone, finishes
    the answer in hand and ends, instead of sending on beside the next pass; the next
    pass reads the rest, and every answer goes out once."""
    assert fed.config_path is not None
    record, out, err = tmp_path / "methods", tmp_path / "out", tmp_path / "err"
    argv = [str(record), "-c", str(fed.config_path), "poll", "--once", "--now", "2026-03-02T11:00"]
    bot = processes.start(argv, output=out, error=err, code=_RECORDING)
    try:
        assert wait_until(lambda: len(smtp_sink.messages) >= 1, 120.0, interval=0.01)
        (courier,) = _children(bot.pid)
    finally:
        bot.kill()
        bot.wait(timeout=30)
    assert record.read_text().split() == ["fork"]
    assert wait_until(lambda: not _running(courier), 15.0, interval=0.05), (
        "the courier sends on after its pass was killed"
    )
    assert len(smtp_sink.messages) < 2 * GAMES, "the pass had finished before the kill"
    report = fed.poll(FIRST + datetime.timedelta(hours=3)).line()
    _check_all_sent_once(fed, smtp_sink, report, twice=0, handled=None)
