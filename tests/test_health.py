"""``mailbot health``: each check made to fail once, and the exit status monitoring reads."""

from __future__ import annotations

import datetime
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from deskbench import Bench
from faults import unavailable
from sqlalchemy import select, update

from mailbot.cli import main
from mailbot.mail.oauth import fingerprint
from mailbot.shell.health import POLL, SWEEP, beat
from mailbot.store.models import InboundMessage, Outbox
from mailbot.store.schema import upgrade


def write_config(folder: Path, database: str, **changes: object) -> Path:
    data: dict[str, object] = {
        "database": database,
        "timezone": "Europe/Sofia",
        "imap": {"host": "127.0.0.1", "port": 993, "security": "ssl", "username": "bot",
                 "password": "pw", "folder": "INBOX", "done_folder": "Processed"},
        "smtp": {"host": "127.0.0.1", "port": 465, "security": "ssl", "username": "bot",
                 "password": "pw", "sender": "Federation CC <bot@federation.example>"},
    }  # fmt: skip
    data.update(changes)
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def health(config: Path) -> tuple[int, dict[str, str]]:
    """The exit status and each check's line, by the check's name."""
    out = io.StringIO()
    status = main(["-c", str(config), "health"], stdout=out)
    lines = out.getvalue().splitlines()
    return status, {line.split(" ")[1].rstrip(":"): line for line in lines}


@pytest.fixture
def bench(db_url: str) -> Bench:
    b = Bench(db_url)
    yield b
    b.close()


@pytest.mark.slow
def test_a_working_bot_is_ok_and_each_finding_raises_the_status(
    bench: Bench, db_url: str, tmp_path: Path
) -> None:
    config = write_config(tmp_path, db_url)
    status, found = health(config)
    assert status == 1  # a bot that never polled or swept is not known to work
    assert found["poll"] == "WARNING poll: last successful poll: never"
    assert found["database"] == "OK database: reachable and writes"
    assert found["migration"].startswith("OK migration: at revision 00")

    beat(bench.sessions, POLL)
    beat(bench.sessions, SWEEP)
    status, found = health(config)
    assert status == 0, found
    assert set(found) == {"database", "migration", "poll", "sweep", "outbox", "failed",
                          "bounced", "quarantine"}  # fmt: skip
    assert all(line.startswith("OK ") for line in found.values()), found

    # the start mails and a move's answers wait, queued minutes ago: still fine
    minutes_ago = datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=5)
    bench.send("white@example.org", "1. e2-e4", minutes_ago, subject="[PX-1/1]")
    with bench.sessions.begin() as session:
        session.execute(update(Outbox).values(created_at=minutes_ago))
    waiting = len(bench.outbox())
    status, found = health(config)
    assert status == 0, found
    assert found["outbox"] == f"OK outbox: {waiting} waiting, the oldest queued 5 min ago"

    # the outbox stalls for two hours (past 60 minutes): a warning; for a day: critical
    two_hours_ago = datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=2)
    with bench.sessions.begin() as session:
        session.execute(update(Outbox).values(created_at=two_hours_ago))
    status, found = health(config)
    assert status == 1, found
    assert found["outbox"] == (
        f"WARNING outbox: {waiting} waiting, the oldest queued 2 h ago (more than 1 h)"
    )
    with bench.sessions.begin() as session:
        session.execute(update(Outbox).values(created_at=two_hours_ago - datetime.timedelta(1)))
    assert health(config)[0] == 2

    with bench.sessions.begin() as session:
        session.execute(update(Outbox).values(status="failed"))
        session.execute(update(InboundMessage).values(status="quarantined"))
    status, found = health(config)
    assert status == 1, found
    assert found["failed"] == (
        f"WARNING failed mail: {waiting} mail given up; see mailbot outbox --failed"
    )
    assert found["quarantine"] == (
        "WARNING quarantine: 1 messages set aside; see mailbot quarantine"
    )

    # a server accepted a message and a delivery report said later it did not arrive
    assert found["bounced"] == "OK bounced: no mail bounced after it was sent"
    with bench.sessions.begin() as session:
        first = session.scalars(select(Outbox.id).order_by(Outbox.id)).first()
        session.execute(update(Outbox).where(Outbox.id == first).values(status="bounced"))
    status, found = health(config)
    assert status == 1, found
    assert found["bounced"] == (
        "WARNING bounced: 1 mail bounced after it was sent; see mailbot outbox --bounced"
    )


@pytest.mark.slow
def test_the_oauth2_token_files_are_checked(bench: Bench, db_url: str, tmp_path: Path) -> None:
    """Read as any process reads them while the daemon runs: no token file, a refresh
    token, one the provider refused (marked by the bot's token source)."""
    token_file = tmp_path / "token.json"
    oauth2 = {"provider": "generic", "client_id": "bot", "token_url": "https://idp.example/t",
              "token_file": str(token_file)}  # fmt: skip
    imap = {"host": "127.0.0.1", "port": 993, "security": "ssl", "username": "bot",
            "auth": "oauth2", "oauth2": oauth2, "folder": "INBOX",
            "done_folder": "Processed"}  # fmt: skip
    config = write_config(tmp_path, db_url, imap=imap)
    beat(bench.sessions, POLL)
    beat(bench.sessions, SWEEP)
    fix = f"run: mailbot -c {config} oauth authorize imap"

    status, found = health(config)
    assert status == 2
    assert found["oauth2"] == f"CRITICAL oauth2: imap: no token file {token_file}; {fix}"

    token_file.write_text(json.dumps({"refresh_token": "rt-1"}))
    status, found = health(config)
    assert status == 0, found
    assert found["oauth2"] == "OK oauth2: imap: refresh token present, refreshed at the next login"

    expires = int(time.time()) + 3600
    token_file.write_text(json.dumps({"refresh_token": "rt-1", "access_token": "at-1",
                                      "expires_at": expires}))  # fmt: skip
    assert health(config)[1]["oauth2"].startswith(
        "OK oauth2: imap: refresh token present, access token for 59 min"
    )

    marked = {"sha256": fingerprint("rt-1"), "error": "invalid_grant", "at": expires}
    token_file.write_text(json.dumps({"refresh_token": "rt-1", "refused": marked}))
    status, found = health(config)
    assert status == 2
    assert found["oauth2"] == (
        f"CRITICAL oauth2: imap: the provider refused the last refresh (invalid_grant); {fix}"
    )

    # a new token (mailbot oauth authorize) is not the refused one
    token_file.write_text(json.dumps({"refresh_token": "rt-2", "refused": marked}))
    assert health(config)[0] == 0

    token_file.write_text("{}")
    status, found = health(config)
    assert status == 2 and "no token file" in found["oauth2"]
    token_file.write_text(json.dumps({"access_token": "at-1"}))
    status, found = health(config)
    assert found["oauth2"] == f"CRITICAL oauth2: imap: {token_file} holds no refresh token; {fix}"


def test_the_last_poll_and_sweep_come_from_the_database_whoever_ran_them(
    bench: Bench, db_url: str, tmp_path: Path
) -> None:
    config = write_config(tmp_path, db_url, health={"poll_minutes": 1})
    old = datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=2)
    beat(bench.sessions, POLL)
    beat(bench.sessions, SWEEP)
    with bench.sessions.begin() as session:
        from mailbot.store.models import Heartbeat

        session.execute(update(Heartbeat).where(Heartbeat.name == POLL).values(at=old))
    status, found = health(config)
    assert status == 1
    assert found["poll"].startswith("WARNING poll: last successful poll 2 min ago")


def test_a_database_behind_the_code_is_critical(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    upgrade(url, "0008")
    status, found = health(write_config(tmp_path, url))
    assert status == 2
    assert "the code wants" in found["migration"] and "run mailbot init" in found["migration"]


def test_a_database_that_cannot_be_reached_is_critical(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'no-such-folder' / 'mailbot.db'}"
    status, found = health(write_config(tmp_path, url))
    assert status == 2
    assert found["database"].startswith("CRITICAL database: the database sqlite:")
    assert "cannot be reached" in found["database"]


@pytest.mark.slow
def test_a_database_that_cannot_write_is_critical(tmp_path: Path) -> None:
    """A real read-only file, and the check run as a service user would run it."""
    if subprocess.run(["which", "setpriv"], capture_output=True, check=False).returncode:
        unavailable("setpriv (util-linux) is needed to run without root's powers")
    url = f"sqlite:///{tmp_path / 'mailbot.db'}"
    upgrade(url)
    (tmp_path / "mailbot.db").chmod(0o444)
    config = write_config(tmp_path, url)
    done = subprocess.run(
        ["setpriv", "--bounding-set=-all", "--inh-caps=-all",
         sys.executable, "-m", "mailbot", "-c", str(config), "health"],
        capture_output=True, text=True, check=False, env={**os.environ},
    )  # fmt: skip
    assert done.returncode == 2, done
    assert done.stdout.startswith("CRITICAL database: the database sqlite:")
    assert "cannot write: it is read-only" in done.stdout


@pytest.mark.parametrize("argv", [["health", "--bogus"], ["health"]])
def test_bad_usage_or_config_is_unknown(argv: list[str], tmp_path: Path) -> None:
    broken = tmp_path / "config.yaml"
    broken.write_text("database: [\n")
    assert main(["-c", str(broken), *argv], stdout=io.StringIO()) == 3
