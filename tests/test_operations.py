"""The bot as a sysadmin runs it: under systemd, scraped by Prometheus, backed up while it
works, moved to PostgreSQL, logging to a file; and the command line's small walls.

The daemon is the real ``mailbot run`` process against Dovecot and the aiosmtpd
listener; systemd's notification socket is a real datagram socket the test
binds, as systemd does for a ``Type=notify`` unit.
"""

from __future__ import annotations

import datetime
import itertools
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml
from harness import Federation, login, mailbot
from mailservers import ImapAccount, SmtpSink, free_port
from prometheus_client.parser import text_string_to_metric_families
from test_backup import rows_of
from test_daemon import START_LIST, wait_until

from mailbot.cli import COMMANDS, build_parser, main

WHITE, BLACK, TD = "white@example.org", "black@example.org", "td@federation.example"
GAME = "[RUN-1/1] move"
UTC = datetime.UTC


def start_daemon(config: Path, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "mailbot", "-c", str(config), "run"],
        env={**os.environ, **env},
        stderr=subprocess.PIPE,
        text=True,
    )


def stop(proc: subprocess.Popen[str]) -> tuple[int, str]:
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(20)
    finally:
        if proc.poll() is None:
            proc.kill()
    return code, proc.stderr.read() if proc.stderr else ""


@pytest.fixture
def fed(
    store_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> Iterator[Federation]:
    f = Federation(store_url, imap_account, smtp_sink, START_LIST, tmp_path)
    try:
        yield f
    finally:
        f.close()


def with_settings(fed: Federation, tmp_path: Path, **settings: object) -> Path:
    """The federation's configuration file with more keys."""
    path = tmp_path / "config-more.yaml"
    path.write_text(yaml.safe_dump({**fed.mapping, **settings}))
    return path


# ---------------------------------------------------------------------------
# systemd


class NotifySocket:
    """What a process sends to ``NOTIFY_SOCKET``, each datagram with when it came."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.2)
        self.heard: list[tuple[float, str]] = []

    def listen(self, seconds: float, until: Callable[[], bool] = lambda: False) -> None:
        """Keep what the daemon says for ``seconds``, or until ``until()`` holds."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not until():
            try:
                self.heard.append((time.monotonic(), self.sock.recv(4096).decode()))
            except TimeoutError:
                continue

    def said(self, word: str, since: float = 0.0) -> list[float]:
        return [at for at, text in self.heard if at >= since and word in text.split("\n")]

    def close(self) -> None:
        self.sock.close()


@pytest.mark.slow
def test_under_systemd_ready_watchdog_stopping_and_no_watchdog_while_the_loop_is_stuck(
    sqlite_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> None:
    """READY once the database answers, WATCHDOG at half of WATCHDOG_USEC from the main
    loop, none while the loop is stuck on a database lock another process holds, again
    once it is free, and STOPPING on SIGTERM."""
    fed = Federation(sqlite_url, imap_account, smtp_sink, START_LIST, tmp_path)
    notify = NotifySocket(tmp_path / "notify")
    assert fed.config_path is not None
    proc = start_daemon(fed.config_path, NOTIFY_SOCKET=str(notify.path), WATCHDOG_USEC="2000000")
    try:
        # three beats after READY (a loaded machine may start the daemon slowly)
        notify.listen(
            30, until=lambda: any(notify.said("READY=1")) and
            len(notify.said("WATCHDOG=1", since=notify.said("READY=1")[0])) >= 3,
        )  # fmt: skip
        ready = notify.said("READY=1")
        assert len(ready) == 1, notify.heard
        status = next(t for _, t in notify.heard if t.startswith("READY=1"))
        assert "STATUS=" in status
        beats = notify.said("WATCHDOG=1", since=ready[0])
        assert len(beats) >= 3, notify.heard
        assert max(b - a for a, b in itertools.pairwise(beats)) < 2.0

        # another process holds the SQLite file locked, and a move arrives: the loop
        # is stuck in the desk, waiting for the lock
        database = sqlite_url.removeprefix("sqlite:///")
        holder = sqlite3.connect(database, timeout=1, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        before = len(fed.received(BLACK))
        fed.write(WHITE, "1. e2-e4", datetime.datetime.now(UTC), subject=GAME)
        locked_at = time.monotonic()
        notify.listen(8)
        during = notify.said("WATCHDOG=1", since=locked_at + 2.5)
        holder.execute("ROLLBACK")
        holder.close()
        released = time.monotonic()
        assert during == [], "WATCHDOG=1 went on while the loop was stuck"
        # the lock is gone within SQLite's busy timeout: the move is played, the loop turns
        assert wait_until(lambda: len(fed.received(BLACK)) > before, 40)
        notify.listen(3)
        assert notify.said("WATCHDOG=1", since=released), notify.heard[-5:]
    finally:
        code, stderr = stop(proc)
        notify.listen(1)
        notify.close()
        fed.close()
    assert code == 0, stderr
    assert notify.said("STOPPING=1"), notify.heard[-3:]


# ---------------------------------------------------------------------------
# Prometheus


def scrape(port: int) -> dict[str, float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
        text = answer.read().decode()
    figures: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
            figures[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return figures


@pytest.mark.slow
def test_a_running_daemon_is_scraped_for_its_metrics(fed: Federation, tmp_path: Path) -> None:
    port = free_port()
    config = with_settings(fed, tmp_path, metrics={"listen": f"127.0.0.1:{port}"})
    proc = start_daemon(config)
    try:
        assert wait_until(lambda: _scrapes(port), 30)
        fed.write(WHITE, "1. e2-e4", datetime.datetime.now(UTC), subject=GAME)
        assert wait_until(lambda: fed.received(BLACK), 30)

        def counted() -> bool:
            f = scrape(port)
            return (
                f.get("mailbot_messages_total{outcome=processed}") == 1
                and f.get("mailbot_mails_sent_total", 0) >= 2
                and f.get("mailbot_outbox_pending") == 0
                and f.get("mailbot_sweep_duration_seconds_count", 0) >= 1
            )

        assert wait_until(counted, 30), scrape(port)
        figures = scrape(port)
        assert figures["mailbot_store_up"] == 1
        assert figures["mailbot_mails_failed_total"] == 0
        assert figures["mailbot_mails_bounced_total"] == 0
        assert figures["mailbot_outbox_pending"] == 0
        assert figures["mailbot_last_poll_success_timestamp_seconds"] > time.time() - 60
        assert figures["mailbot_last_sweep_success_timestamp_seconds"] > time.time() - 60
        assert figures["mailbot_poll_duration_seconds_count"] >= 1
        assert figures["mailbot_sweep_duration_seconds_count"] >= 1
        assert "mailbot_backlog_messages" in figures
    finally:
        code, stderr = stop(proc)
    assert code == 0, stderr


def _scrapes(port: int) -> bool:
    try:
        scrape(port)
        return True
    except OSError:
        return False


# ---------------------------------------------------------------------------
# Backup, restore, and the move to PostgreSQL


@pytest.mark.slow
def test_backed_up_while_running_restored_onto_postgresql_and_back_the_game_goes_on(
    sqlite_url: str,
    postgres_url: str,
    imap_account: ImapAccount,
    smtp_sink: SmtpSink,
    tmp_path: Path,
) -> None:
    fed = Federation(sqlite_url, imap_account, smtp_sink, START_LIST, tmp_path)
    assert fed.config_path is not None
    proc = start_daemon(fed.config_path)
    during = tmp_path / "during.mailbot-backup"
    try:
        now = datetime.datetime.now(UTC)
        fed.write(WHITE, "1. e2-e4", now, subject=GAME)
        assert wait_until(lambda: fed.received(BLACK), 30)
        fed.write(BLACK, "1... e7-e5", now, subject=GAME)
        # taken while the daemon reads Black's move and answers it
        done = mailbot("-c", str(fed.config_path), "backup", str(during))
        assert done.returncode == 0, done.stderr
        assert "rows" in done.stdout
        assert wait_until(
            lambda: any(m.message["X-Mailbot-Event"] == "move" for m in fed.received(WHITE)), 30
        )
    finally:
        code, stderr = stop(proc)
        fed.close()
    assert code == 0, stderr
    assert during.stat().st_mode & 0o777 == 0o600

    # the snapshot of one instant loads into PostgreSQL, which checks every reference
    first_pg = tmp_path / "postgresql.yaml"
    first_pg.write_text(yaml.safe_dump({**fed.mapping, "database": postgres_url}))
    done = mailbot("-c", str(first_pg), "restore", str(during))
    assert done.returncode == 0, done.stderr
    assert len(rows_of(postgres_url)["moves"]) in (1, 2)

    # the club's whole database, once the daemon stopped, moves to PostgreSQL row for row
    club = tmp_path / "club.mailbot-backup"
    assert mailbot("-c", str(fed.config_path), "backup", str(club)).returncode == 0
    federation = _fresh_postgres_schema()
    try:
        pg = tmp_path / "federation.yaml"
        pg.write_text(yaml.safe_dump({**fed.mapping, "database": federation}))
        done = mailbot("-c", str(pg), "restore", str(club))
        assert done.returncode == 0, done.stderr
        assert rows_of(federation) == rows_of(sqlite_url)

        # the bot goes on there: White's second move is read, played and forwarded
        client = login(imap_account)
        try:
            client.append("INBOX", _move(WHITE, "2. Ng1-f3"), msg_time=datetime.datetime.now(UTC))
        finally:
            client.logout()
        before = len(smtp_sink.to(BLACK))
        done = mailbot("-c", str(pg), "poll")
        assert done.returncode == 0, done.stderr
        assert "handled=1" in done.stdout
        assert len(smtp_sink.to(BLACK)) == before + 1
        assert smtp_sink.to(BLACK)[-1].message["X-Mailbot-Move"] == "g1f3"

        # a database with rows is refused in one line; an empty SQLite file takes it all back
        back = tmp_path / "federation.mailbot-backup"
        assert mailbot("-c", str(pg), "backup", str(back)).returncode == 0
        refused = mailbot("-c", str(pg), "restore", str(back))
        assert refused.returncode == 2
        assert len(refused.stderr.splitlines()) == 1 and "not empty" in refused.stderr
        home = f"sqlite:///{tmp_path / 'home.db'}"
        home_config = tmp_path / "home.yaml"
        home_config.write_text(yaml.safe_dump({**fed.mapping, "database": home}))
        assert mailbot("-c", str(home_config), "restore", str(back)).returncode == 0
        assert rows_of(home) == rows_of(federation)
        status = mailbot("-c", str(home_config), "status", "RUN-1/1")
        assert status.returncode == 0 and "f3" in status.stdout, status.stdout
        # and goes on there too: Black's answer is played and forwarded to White
        client = login(imap_account)
        try:
            client.append("INBOX", _move(BLACK, "2... Nb8-c6"), msg_time=datetime.datetime.now(UTC))
        finally:
            client.logout()
        done = mailbot("-c", str(home_config), "poll")
        assert done.returncode == 0 and "handled=1" in done.stdout, done.stderr
        assert smtp_sink.to(WHITE)[-1].message["X-Mailbot-Move"] == "b8c6"
        sweep = mailbot("-c", str(home_config), "sweep")
        assert sweep.returncode == 0, sweep.stderr
    finally:
        _drop_postgres_schema(federation)


def _move(sender: str, body: str) -> bytes:
    from email.message import EmailMessage

    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, "bot@federation.example", GAME
    msg["Message-ID"] = f"<after-restore-{time.time_ns()}@players.example>"
    msg.set_content(body)
    return msg.as_bytes()


def _fresh_postgres_schema() -> str:
    import uuid

    from conftest import POSTGRES_URL
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    schema = f"t_{uuid.uuid4().hex}"
    admin = create_engine(POSTGRES_URL)
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    admin.dispose()
    url = make_url(POSTGRES_URL).update_query_dict({"options": f"-csearch_path={schema}"})
    return url.render_as_string(hide_password=False)


def _drop_postgres_schema(url: str) -> None:
    from conftest import POSTGRES_URL
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    schema = str(make_url(url).query["options"]).removeprefix("-csearch_path=")
    admin = create_engine(POSTGRES_URL)
    with admin.begin() as connection:
        connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    admin.dispose()


# ---------------------------------------------------------------------------
# Logs


@pytest.mark.slow
def test_the_daemon_logs_json_to_a_file_without_library_chatter(
    fed: Federation, tmp_path: Path
) -> None:
    log_file = tmp_path / "log" / "mailbot.log"
    config = with_settings(fed, tmp_path, log_file=str(log_file), log_format="json")
    proc = start_daemon(config)
    try:
        fed.write(WHITE, "1. e2-e4", datetime.datetime.now(UTC), subject=GAME)
        assert wait_until(lambda: fed.received(BLACK), 30)
        assert wait_until(lambda: log_file.exists() and "sent move" in log_file.read_text(), 10)
        log_file.rename(log_file.with_suffix(".log.1"))  # logrotate
        fed.write(BLACK, "1... e7-e5", datetime.datetime.now(UTC), subject=GAME)
        assert wait_until(lambda: log_file.exists() and "e7" in log_file.read_text(), 30)
    finally:
        code, stderr = stop(proc)
    assert code == 0, stderr
    assert stderr == ""  # everything went to the file
    lines = [
        json.loads(line)
        for path in (log_file.with_suffix(".log.1"), log_file)
        for line in path.read_text().splitlines()
    ]
    assert {"time", "level", "logger", "message"} <= set(lines[0])
    assert lines[0]["logger"].startswith("mailbot")
    assert not [line for line in lines if not line["logger"].startswith("mailbot")]
    assert not [line for line in lines if "Adding job" in line["message"]]
    assert any(line["message"] == "stopped" for line in lines)


# ---------------------------------------------------------------------------
# The command line's walls


@pytest.mark.slow
def test_a_config_with_several_mistakes_reports_all_of_them_one_line_each(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(
        "database: sqlite:///x.db\n"
        "timezone: Mars/Olympus\n"
        "imap: {host: h, port: nine, security: ssl, username: u, password: p,\n"
        "       folder: INBOX, done_folder: Done, colour: red}\n"
        "smtp: {host: h, port: 465, security: tls}\n"
        "metrics: {listen: anywhere}\n"
        "log_format: xml\n"
    )
    for command, exit_status in (("status", 2), ("health", 3)):
        done = mailbot("-c", str(config), command)
        assert done.returncode == exit_status, done.stderr
        lines = done.stderr.splitlines()
        assert lines == [
            f"mailbot: {config}: timezone: unknown time zone 'Mars/Olympus' (like Europe/Sofia "
            "or UTC)",
            f"mailbot: {config}: imap.port: must be a whole number",
            f"mailbot: {config}: imap.colour: unknown key",
            f"mailbot: {config}: smtp.security: must be one of ssl, starttls, none",
            f"mailbot: {config}: smtp.sender: is required",
            f"mailbot: {config}: metrics.listen: must be host:port (like 127.0.0.1:9464)",
            f"mailbot: {config}: log_format: must be one of text, json",
        ]


@pytest.mark.slow
def test_poll_alone_is_one_pass(fed: Federation) -> None:
    assert fed.config_path is not None
    fed.write(WHITE, "1. e2-e4", datetime.datetime.now(UTC), subject=GAME)
    done = mailbot("-c", str(fed.config_path), "poll")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("poll: handled=1")
    assert fed.received(BLACK)


def test_every_commands_help_says_what_it_does_and_shows_an_example(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # in this process (a process per command took most of a minute): the width a
    # process whose output is a pipe gets
    monkeypatch.setenv("COLUMNS", "80")
    parser = build_parser()
    for cmd in COMMANDS:
        assert main([*cmd.words, "--help"]) == 0, cmd.words
        done = capsys.readouterr()
        description = done.out.split("\n\n")[1]
        assert len(description.split()) >= 10, (cmd.words, description)
        examples = re.split(r"\nexamples?( \([^)]*\))?:\n", done.out)
        assert len(examples) > 1, cmd.words
        assert examples[-1].lstrip().startswith(("mailbot ", "systemctl ")), cmd.words
    assert parser.prog == "mailbot"


def test_an_sqlite_file_in_a_missing_folder_names_the_folder(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    folder = tmp_path / "state" / "mailbot"
    config.write_text(
        f"database: sqlite:///{folder}/mailbot.db\n"
        "timezone: Europe/Sofia\n"
        "imap: {host: h, port: 993, security: ssl, username: u, password: p,\n"
        "       folder: INBOX, done_folder: Done}\n"
        "smtp: {host: h, port: 465, security: ssl, sender: 'CC <bot@federation.example>'}\n"
    )
    done = mailbot("-c", str(config), "init")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"mailbot: the database sqlite:///{folder}/mailbot.db cannot be opened: its folder "
        f"{folder} does not exist; create it (and let the bot's user write there), or fix "
        f"`database` in {config}"
    ]


@pytest.mark.slow
def test_a_refused_login_is_plain_words(fed: Federation, tmp_path: Path) -> None:
    mapping = {**fed.mapping, "imap": {**fed.mapping["imap"], "password": "Zq9-not-it"}}  # type: ignore[dict-item]
    config = tmp_path / "other.yaml"
    config.write_text(yaml.safe_dump(mapping))
    done = mailbot("-c", str(config), "poll")
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert "refused the login (Authentication failed. [AUTHENTICATIONFAILED])" in lines[0]
    assert "b'[" not in lines[0] and "Zq9-not-it" not in lines[0]
