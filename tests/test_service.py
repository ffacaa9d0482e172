"""The systemd unit and the sd_notify protocol.

``systemd-analyze verify`` checks the shipped unit as systemd would load it
(with ExecStart pointing at the installed ``mailbot``); a warning fails the
test as an error does. The notifications go to a real datagram socket, as
systemd's ``NOTIFY_SOCKET`` is one.
"""

from __future__ import annotations

import configparser
import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from mailbot.shell.service import Service

UNIT = Path(__file__).resolve().parent.parent / "systemd" / "mailbot.service"


def test_the_unit_verifies_without_a_warning(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        if os.environ.get("CI"):
            pytest.fail("systemd-analyze is missing: CI must install systemd")
        pytest.skip("systemd-analyze is not installed here (apt-get install systemd)")
    mailbot = shutil.which("mailbot")
    assert mailbot is not None, "the package is installed with its `mailbot` command"
    unit = tmp_path / "mailbot.service"
    unit.write_text(UNIT.read_text().replace("/opt/mailbot/bin/mailbot", mailbot))
    done = subprocess.run(
        [analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stderr.splitlines() if "mailbot.service" in line] == []


def test_the_unit_is_a_notify_service_with_a_watchdog_and_hardening() -> None:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(UNIT)
    service = parser["Service"]
    assert service["Type"] == "notify"
    assert int(service["WatchdogSec"]) > 0
    assert service["Restart"] == "on-failure"
    assert service["User"] == "mailbot"
    assert service["ProtectSystem"] == "strict"
    assert service["NoNewPrivileges"] == "true"
    assert service["StateDirectory"] == "mailbot"
    assert " run" in service["ExecStart"]
    assert parser["Install"]["WantedBy"] == "multi-user.target"


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    path = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(2)
    try:
        yield sock, path
    finally:
        sock.close()


def heard(sock: socket.socket) -> list[str]:
    messages = []
    sock.setblocking(False)
    try:
        while True:
            messages.append(sock.recv(4096).decode())
    except BlockingIOError:
        return messages
    finally:
        sock.settimeout(2)


def test_ready_status_watchdog_at_half_the_interval_and_stopping(
    notify_socket: tuple[socket.socket, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sock, path = notify_socket
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    monkeypatch.setenv("WATCHDOG_USEC", "10000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    now = [100.0]
    service = Service(clock=lambda: now[0])
    assert service.wake_within(300) == 2.5
    service.ready("reading the inbox")
    service.status("reading the inbox")  # unchanged: not sent again
    service.alive()  # just ready: too early
    now[0] += 5
    service.alive()
    now[0] += 1
    service.alive()  # a second later: too early again
    service.status("IMAP unreachable; retrying")
    service.stopping()
    assert heard(sock) == [
        "READY=1\nSTATUS=reading the inbox",
        "WATCHDOG=1",
        "STATUS=IMAP unreachable; retrying",
        "STOPPING=1\nSTATUS=stopping",
    ]


def test_without_notify_socket_nothing_is_sent_and_a_watchdog_for_another_pid_is_ignored(
    notify_socket: tuple[socket.socket, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sock, path = notify_socket
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    Service().ready("x")
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    monkeypatch.setenv("WATCHDOG_USEC", "1000")
    monkeypatch.setenv("WATCHDOG_PID", "1")
    other = Service()
    assert other.watchdog_seconds is None
    other.alive()
    assert heard(sock) == []
