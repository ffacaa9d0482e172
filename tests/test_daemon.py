"""``mailbot run`` as a real process against Dovecot: IDLE, the catch-up sweep, SIGTERM."""

from __future__ import annotations

import datetime
import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from faults import (  # noqa: F401 (fixtures)
    Daemons,
    daemons,
    wait_until,
    within,
    write_daemon_config,
)
from harness import Federation, config_mapping
from mailservers import ImapAccount, SmtpSink

from mailbot.cli import main

#: every test here takes more than a second (pyproject.toml: markers)
pytestmark = pytest.mark.slow

#: The daemon runs on the real date: the event began long before it and ends more than a
#: year after it, so neither the start nor a warning before the end of the event (30
#: days) comes between a move and its answer, whatever the day, month or year
TODAY = datetime.date.today()
START_LIST = f"""
index: RUN-1
name: Daemon test
profile: bg-email
start: 2026-01-01
end: {TODAY + datetime.timedelta(days=400)}
language: en
notation: en
director: {{name: Tom Director, email: td@federation.example}}
players:
  - {{id: white, name: Walter White, email: white@example.org}}
  - {{id: black, name: Bella Black, email: black@example.org}}
games: [{{white: white, black: black}}]
"""
WHITE, BLACK, TD = "white@example.org", "black@example.org", "td@federation.example"


def test_daemon_answers_under_idle_sweeps_at_start_and_stops_on_sigterm(
    store_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> None:
    fed = Federation(store_url, imap_account, smtp_sink, START_LIST, tmp_path)
    now = datetime.datetime.now(datetime.UTC)
    # White's move was handled 20 days ago; Black has been silent since
    moved = now - datetime.timedelta(days=20)
    fed.write(WHITE, "1. e2-e4", moved, subject="[RUN-1/1] move")
    fed.poll(moved + datetime.timedelta(minutes=1))
    assert fed.last(BLACK).message["X-Mailbot-Event"] == "move"

    env = {**os.environ, "MAILBOT_CONFIG": str(fed.config_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mailbot", "run"], env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        # the catch-up sweep at start repeats the 20-day-old move, a copy to the TD
        assert wait_until(
            lambda: any(m.message["X-Mailbot-Event"] == "repeat" for m in fed.received(BLACK)),
            30,
        )
        assert wait_until(
            lambda: any(m.message["X-Mailbot-Event"] == "repeat" for m in fed.received(TD)), 10
        )
        # a reply arriving now is answered while the daemon waits in IDLE
        before = len(fed.received(WHITE))
        fed.write(BLACK, "1... e7-e5", datetime.datetime.now(datetime.UTC), subject="[RUN-1/1] m")
        started = time.monotonic()

        # (the move is looked for by name, whatever else the sweep at start sends White)
        def answered() -> bool:
            return any(
                m.message["X-Mailbot-Event"] == "move" and m.message["X-Mailbot-Move"] == "e7e5"
                for m in fed.received(WHITE)[before:]
            )

        assert wait_until(answered, 30)
        assert time.monotonic() - started < 15
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(15)
        finally:
            if proc.poll() is None:
                proc.kill()
        fed.close()
    assert code == 0, proc.stderr.read() if proc.stderr else ""


def test_daemon_on_a_database_init_has_not_made_waits_for_init_without_a_restart(
    store_url: str,
    imap_account: ImapAccount,
    smtp_sink: SmtpSink,
    tmp_path: Path,
    daemons: Daemons,  # noqa: F811
) -> None:
    config = write_daemon_config(
        tmp_path / "config.yaml", config_mapping(store_url, imap_account, smtp_sink)
    )
    daemon = daemons.start(config)
    within(daemon, lambda: "mailbot init" in daemon.output(), 30, "the line to run init")
    time.sleep(5)  # several looks at the database later
    said = daemon.output()
    assert [line for line in said.splitlines() if "mailbot init" in line] == [
        next(line for line in said.splitlines() if "has no tables yet" in line)
    ], said
    assert "OperationalError" not in said and "ProgrammingError" not in said, said
    assert "Traceback" not in said and "SELECT" not in said, said

    out = io.StringIO()
    assert main(["-c", str(config), "health"], stdout=out) == 2
    assert "CRITICAL migration" in out.getvalue() and "run mailbot init" in out.getvalue()

    assert main(["-c", str(config), "init"], stdout=io.StringIO()) == 0
    fed = Federation(store_url, imap_account, smtp_sink, START_LIST)
    try:
        fed.write(WHITE, "1. e2-e4", datetime.datetime.now(datetime.UTC), subject="[RUN-1/1] m")
        within(
            daemon,
            lambda: any(m.message["X-Mailbot-Event"] == "move" for m in fed.received(BLACK)),
            30,
            "the move answered after init",
        )
    finally:
        fed.close()
    assert daemon.running()
    assert "working again after: the database" in daemon.output()
