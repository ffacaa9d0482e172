"""Real mail servers for the tests: Dovecot IMAP and an aiosmtpd SMTP listener.

Dovecot (Debian's ``dovecot-imapd``) is started once per test session on a
free loopback port from a configuration written to a temporary folder; its
mail processes run as an unprivileged user. Each test gets its own IMAP
account. Without Dovecot the tests that need it fail under CI and are
skipped with the reason elsewhere.
"""

from __future__ import annotations

import dataclasses
import email
import email.message
import email.policy
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for_port(port: int, seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


@dataclasses.dataclass(frozen=True)
class ImapAccount:
    """Settings for one IMAP account, shaped like the ``imap:`` config section."""

    host: str
    port: int
    username: str
    password: str
    security: str = "none"
    folder: str = "INBOX"
    done_folder: str = "Processed"
    quarantine_folder: str = "Quarantine"


class Dovecot:
    """A Dovecot instance of the test session."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.passwd = root / "passwd"
        self.mail = root / "mail"
        self._accounts = itertools.count(1)
        self._born = int(time.time()) - 100_000
        self.proc: subprocess.Popen[bytes] | None = None
        if os.geteuid() == 0:
            self.user = "nobody"
        else:
            self.user = pwd.getpwuid(os.geteuid()).pw_name

    def start(self) -> None:
        binary = shutil.which("dovecot") or "/usr/sbin/dovecot"
        entry = pwd.getpwnam(self.user)
        for sub in ("run", "state", "mail"):
            (self.root / sub).mkdir(exist_ok=True)
        if not self.passwd.exists():  # a restart keeps the accounts
            self.passwd.write_text("")
        if os.geteuid() == 0:
            os.chown(self.mail, entry.pw_uid, entry.pw_gid)
        internal = "dovecot" if os.geteuid() == 0 else self.user
        login = "dovenull" if os.geteuid() == 0 else self.user
        conf = self.root / "dovecot.conf"
        conf.write_text(
            f"""
base_dir = {self.root}/run
state_dir = {self.root}/state
log_path = {self.root}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
default_internal_user = {internal}
default_login_user = {login}
mail_location = maildir:{self.mail}/%u
first_valid_uid = 1
first_valid_gid = 1
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {self.passwd}
}}
userdb {{
  driver = static
  args = uid={entry.pw_uid} gid={entry.pw_gid} home={self.mail}/%u
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  chroot =
}}
"""
        )
        self.proc = subprocess.Popen([binary, "-F", "-c", str(conf)])
        _wait_for_port(self.port)

    def account(self) -> ImapAccount:
        """A new, empty IMAP account."""
        n = next(self._accounts)
        name, password = f"bot{n}", f"pw{n}"
        with self.passwd.open("a") as f:
            f.write(f"{name}:{{PLAIN}}{password}\n")
        # Dovecot re-reads the file when its mtime changes, in whole seconds: give
        # every version its own second so an account added within one is seen.
        stamp = self._born + n
        os.utime(self.passwd, (stamp, stamp))
        return ImapAccount("127.0.0.1", self.port, name, password)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture(scope="session")
def dovecot_server() -> Iterator[Dovecot]:
    if shutil.which("dovecot") is None and not Path("/usr/sbin/dovecot").exists():
        if os.environ.get("CI"):
            pytest.fail("Dovecot is not installed: CI must install dovecot-imapd")
        pytest.skip("Dovecot is not installed here (apt-get install dovecot-imapd)")
    root = Path(tempfile.mkdtemp(prefix="mailbot-dovecot-"))
    root.chmod(0o755)
    server = Dovecot(root)
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def imap_account(dovecot_server: Dovecot) -> ImapAccount:
    """A fresh IMAP account on the session's Dovecot."""
    return dovecot_server.account()


@dataclasses.dataclass(frozen=True)
class Received:
    """One message the SMTP listener accepted."""

    envelope_from: str
    recipients: tuple[str, ...]
    message: email.message.EmailMessage


class SmtpSink:
    """An aiosmtpd listener on loopback that keeps every message it accepts."""

    def __init__(self) -> None:
        self.port = free_port()
        self.messages: list[Received] = []
        self.refuse_next = 0
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        with self._lock:
            if self.refuse_next:
                self.refuse_next -= 1
                return "451 4.3.0 try again later"
        raw = envelope.original_content or envelope.content  # type: ignore[attr-defined]
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        item = Received(
            envelope.mail_from,  # type: ignore[attr-defined]
            tuple(envelope.rcpt_tos),  # type: ignore[attr-defined]
            msg,  # type: ignore[arg-type]
        )
        with self._arrived:
            self.messages.append(item)
            self._arrived.notify_all()
        return "250 OK"

    def to(self, address: str) -> list[Received]:
        """Messages whose envelope named ``address``."""
        with self._lock:
            return [m for m in self.messages if address in m.recipients]

    def wait_for(self, count: int, seconds: float = 10.0) -> list[Received]:
        """Block until ``count`` messages have arrived in all; return them all."""
        with self._arrived:
            self._arrived.wait_for(lambda: len(self.messages) >= count, seconds)
            return list(self.messages)

    @property
    def settings(self) -> dict[str, object]:
        return {
            "host": "127.0.0.1",
            "port": self.port,
            "security": "none",
            "username": None,
            "password": None,
            "sender": "Mailbot Test <bot@federation.example>",
        }


@pytest.fixture
def smtp_sink() -> Iterator[SmtpSink]:
    sink = SmtpSink()
    sink.controller.start()
    try:
        yield sink
    finally:
        sink.controller.stop()
