"""A stop in the middle of a send: ``mailbot run`` as a real process, SIGTERM while
the SMTP server holds its answers, and a restart.

A mail the server has taken is marked sent before the daemon ends, so the
restart sends no message twice; a server that holds its answer past the
grace period (3 s) ends the daemon as a crash would, and a mail sent again
then is the same message, with the same Message-ID (docs/architecture.md,
invariant 4). Each test prints one line with what it measured (run with
``-s``).
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import signal
import time
from pathlib import Path

import pytest
from faults import (  # noqa: F401 (fixtures)
    DaemonProcess,
    Daemons,
    SlowSmtp,
    daemons,
    duel,
    sigterm_and_time,
    slow_smtp,
    within,
    write_daemon_config,
)
from harness import Federation
from mailservers import ImapAccount, SmtpSink
from sqlalchemy import select, text

from mailbot.shell.daemon import FORCE_STOP_AFTER
from mailbot.store.models import Heartbeat, Outbox

#: every test here takes more than a second (pyproject.toml: markers)
pytestmark = pytest.mark.slow

UTC = datetime.UTC
TD = "td@federation.example"
WHITE, BLACK = "white@example.org", "black@example.org"
#: How long the server holds its 250 after the data of each message.
HOLD = 2.0


def _duel() -> str:
    """One game between White and Black."""
    return duel("STP-1", "Stop test", WHITE, BLACK, TD)


def _outbox(fed: Federation) -> list[tuple[str, str]]:
    """(Message-ID, status) of every row of the outbox."""
    with fed.sessions() as session:
        return [(f"<{m}>", s) for m, s in session.execute(select(Outbox.message_id, Outbox.status))]


def _all_sent(fed: Federation) -> bool:
    rows = _outbox(fed)
    return bool(rows) and all(status == "sent" for _, status in rows)


def _started(daemon: DaemonProcess) -> bool:
    """Whether the daemon has made its first pass up to the outbox (the catch-up sweep
    comes just before it)."""
    return "sweep: " in daemon.output()


def _copies(server: SlowSmtp) -> collections.Counter[str]:
    """How many copies of each Message-ID the server took."""
    return collections.Counter(str(m.message["Message-ID"]) for m in server.messages)


#: Where the stop lands: (the step the server reaches, which time, seconds after it).
POINTS = {
    # the second reply's MAIL FROM is held: the first reply is taken, the second not yet
    # (the 250s are held 1 s: the second reply's whole send fits the grace period)
    "before-data": ("mail", 2, 0.2),
    # the second reply's data has come and the server holds its 250
    "during-the-held-250": ("data", 2, 0.5),
    # the first reply's 250 is on its way
    "right-after-the-250": ("answered", 1, 0.0),
}


@dataclasses.dataclass(frozen=True)
class Stopped:
    """What a stop in the middle of a send left, and what the restart then sent."""

    #: How long SIGTERM took to end the first run, and what that run wrote.
    seconds: float
    output: str
    #: The messages the server had taken, and the 250s it had begun to answer, then.
    taken: int
    answered: int
    #: (Message-ID, status) of every outbox row once the restart has sent them all.
    rows: list[tuple[str, str]]


def _stop_and_restart(
    server: SlowSmtp,
    at: tuple[str, int, float],
    store_url: str,
    imap_account: ImapAccount,
    daemons: Daemons,  # noqa: F811
    tmp_path: Path,
) -> Stopped:
    """White's move causes two replies; SIGTERM ``at`` (the n-th step of the server,
    then seconds) must end the daemon with 0 within 5 s; a restart sends what is left
    and is stopped once every row is sent."""
    step, nth, after = at
    fed = Federation(store_url, imap_account, server, _duel(), tmp_path)  # type: ignore[arg-type]
    try:
        config = write_daemon_config(tmp_path / "daemon.yaml", fed.mapping)
        fed.write(WHITE, "1. e2-e4", datetime.datetime.now(UTC), subject="[STP-1/1] move")
        first = daemons.start(config)
        assert server.wait_for_step(step, nth), f"no {step} {nth}:\n{first.tail()}"
        time.sleep(after)
        code, seconds = sigterm_and_time(first)
        assert code == 0 and seconds < 5, f"exit {code} after {seconds:.1f} s:\n{first.tail()}"
        taken, answered = len(server.messages), server.steps.count("answered")

        second = daemons.start(config)
        within(second, lambda: _started(second) and _all_sent(fed), 45, "every reply sent")
        code, _ = sigterm_and_time(second)
        assert code == 0, second.tail()
        return Stopped(seconds, first.output(), taken, answered, _outbox(fed))
    finally:
        fed.close()


@pytest.mark.parametrize("point", list(POINTS))
def test_a_stop_in_the_middle_of_a_send_sends_no_message_twice(
    point: str,
    store_url: str,
    imap_account: ImapAccount,
    daemons: Daemons,  # noqa: F811
    tmp_path: Path,
) -> None:
    """White's move causes two replies; the server holds every 250 for 2 s (for the
    stop before DATA, every MAIL FROM for 0.5 s and every 250 for 1 s). SIGTERM at
    the point stops the daemon with 0 within 5 s; a restart sends what is left; the
    server has taken each reply exactly once, by Message-ID."""
    at = POINTS[point]
    holds = {"mail": 0.5, "data": HOLD / 2} if at[0] == "mail" else {"data": HOLD}
    with slow_smtp(**holds) as server:
        stopped = _stop_and_restart(server, at, store_url, imap_account, daemons, tmp_path)
    copies = _copies(server)
    assert sorted(copies) == sorted(message_id for message_id, _ in stopped.rows)
    assert {(m.message["X-Mailbot-Event"], m.recipients) for m in server.messages} == {
        ("move", (BLACK,)),
        ("move-accepted", (WHITE,)),
    }
    assert copies == dict.fromkeys(copies, 1), f"sent twice: {copies}"
    print(
        f"SIGTERM {point}: exit 0 after {stopped.seconds:.2f} s with {stopped.taken} of "
        f"{len(stopped.rows)} replies taken; after the restart every reply was taken once"
    )


def test_a_server_that_holds_its_answer_past_the_grace_period_ends_the_daemon_as_a_crash(
    store_url: str,
    imap_account: ImapAccount,
    daemons: Daemons,  # noqa: F811
    tmp_path: Path,
) -> None:
    """The server holds every 250 for 4.5 s; SIGTERM while it holds the second: the
    daemon ends once the grace period is over, before the answer; after a restart
    every reply has been taken, a reply taken twice as the same message (one
    Message-ID and one return path for each reply)."""
    hold = FORCE_STOP_AFTER + 1.5
    with slow_smtp(data=hold) as server:
        at = ("data", 2, 0.5)
        stopped = _stop_and_restart(server, at, store_url, imap_account, daemons, tmp_path)
    assert stopped.seconds >= FORCE_STOP_AFTER, stopped.output
    assert "did not end within 3 s" in stopped.output
    assert stopped.answered < 2  # it ended before the held answer
    copies = _copies(server)
    assert sorted(copies) == sorted(message_id for message_id, _ in stopped.rows)
    assert len(stopped.rows) == 2 and all(n <= 2 for n in copies.values()), copies
    # the same return path too, so a delivery report about either copy names the row
    paths = {(str(m.message["Message-ID"]), m.envelope_from) for m in server.messages}
    assert len(paths) == len(copies), paths
    print(
        f"a 250 held {hold:.1f} s: SIGTERM ended the daemon after {stopped.seconds:.2f} s; "
        f"copies taken by Message-ID: {sorted(copies.values())}"
    )


def _held_up_by(fed: Federation, holder: int) -> bool:
    """Whether a session waits for a lock the session ``holder`` (its backend pid) holds:
    only that one, since the tests of other workers share the server (PostgreSQL)."""
    with fed.engine.connect() as connection:
        waiting = connection.scalar(
            text(
                "select count(*) from pg_stat_activity"
                " where cast(:holder as integer) = any(pg_blocking_pids(pid))"
            ),
            {"holder": holder},
        )
    return bool(waiting)


def test_a_stop_while_the_daemon_writes_its_heartbeat_waits_for_the_write(
    postgres_url: str,
    imap_account: ImapAccount,
    smtp_sink: SmtpSink,
    daemons: Daemons,  # noqa: F811
    tmp_path: Path,
) -> None:
    """After each pass the daemon writes its heartbeat (what ``mailbot health`` reads).
    The heartbeat's row is locked by another session, so the write waits; SIGTERM comes
    then, and the lock is let go half a second later: the daemon finishes the write and
    ends with 0, with no error of the database's library in its log (a stop that cut
    the statement short left the connection mid-query, and the pool logged the failed
    reset as an error with its traceback). The heartbeat of that last pass is written, so
    ``mailbot health`` shows it."""
    fed = Federation(postgres_url, imap_account, smtp_sink, _duel(), tmp_path)
    try:
        config = write_daemon_config(tmp_path / "daemon.yaml", fed.mapping)
        daemon = daemons.start(config)
        within(daemon, lambda: _beat(fed) is not None, 30, "the first heartbeat")
        first = _beat(fed)
        with fed.engine.connect() as holder:
            holder.execute(select(Heartbeat).with_for_update())  # every row, until commit
            pid = int(holder.scalar(text("select pg_backend_pid()")) or 0)
            fed.write(WHITE, "1. e2-e4", datetime.datetime.now(UTC), subject="[STP-1/1] move")
            within(daemon, lambda: _held_up_by(fed, pid), 30, "the heartbeat waiting")
            daemon.proc.send_signal(signal.SIGTERM)
            time.sleep(0.5)
            holder.commit()
        code = daemon.proc.wait(FORCE_STOP_AFTER + 5)
        output = daemon.output()
        rows = _outbox(fed)
        last = _beat(fed)
    finally:
        fed.close()
    assert code == 0, output
    assert "stopping at once" not in output, output  # the write ended within the grace
    assert "Traceback" not in output and " ERROR " not in output, output
    # the move's pass was committed before the heartbeat: its mail waits for the next start
    assert rows and {status for _, status in rows} <= {"pending", "sent"}, rows
    assert first is not None and last is not None and last[0] > first[0], (first, last)
    assert last[1] == "handled=1", last


def _beat(fed: Federation) -> tuple[datetime.datetime, str | None] | None:
    """When the daemon's last pass ended, and what it did (its heartbeat), or None."""
    with fed.sessions() as session:
        row = session.get(Heartbeat, "poll")
        return None if row is None else (row.at, row.detail)
