"""Real mail servers for the tests: Dovecot IMAP and an aiosmtpd SMTP listener.

Dovecot (Debian's ``dovecot-imapd``) is started once per test session on a
free loopback port from a configuration written to a temporary folder; its
mail processes run as an unprivileged user. Each test gets its own IMAP
account. Without Dovecot the tests that need it fail under CI and are
skipped with the reason elsewhere.

For OAuth2 a second Dovecot (``oauth_dovecot``) also takes SASL XOAUTH2 and
OAUTHBEARER through its oauth2 passdb, which asks the tests' loopback provider
(:mod:`tokenserver`, ``token_provider``) to introspect each token (RFC 7662);
``oauth_smtp`` is an aiosmtpd listener that takes only those two mechanisms,
with a token the provider says is live.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import email
import email.message
import email.policy
import functools
import grp
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword
from tokenserver import Provider

from mailbot.mail.settings import Security


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


#: The password of each Dovecot account is this followed by its name (see Dovecot.account).
PASSWORD_PREFIX = "pw-"


@dataclasses.dataclass(frozen=True)
class ImapAccount:
    """Settings for one IMAP account, shaped like the ``imap:`` config section."""

    host: str
    port: int
    username: str
    #: left out of the repr: a failing test prints its fixtures' values
    password: str = dataclasses.field(repr=False)
    security: Security = Security.NONE
    folder: str = "INBOX"
    done_folder: str = "Processed"
    quarantine_folder: str = "Quarantine"


class Dovecot:
    """A Dovecot instance of the test session; with ``introspection_url``, one that also
    takes XOAUTH2 and OAUTHBEARER (its oauth2 passdb asks that URL about each token,
    trusting the certificate ``ca_file``)."""

    def __init__(
        self,
        root: Path,
        introspection_url: str | None = None,
        ca_file: Path | None = None,
        *,
        separator: str | None = None,
    ) -> None:
        #: With a separator (``.`` or ``/``): the account's folders lie under ``INBOX``
        #: and that separator (a personal namespace with the prefix ``INBOX.``), as
        #: cPanel hosts keep them.
        self.separator = separator
        self.introspection_url = introspection_url
        self.ca_file = ca_file
        self.root = root
        self.port = free_port()
        self.mail = root / "mail"
        self._accounts = itertools.count(1)
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
        if os.geteuid() == 0:
            os.chown(self.mail, entry.pw_uid, entry.pw_gid)
        internal = "dovecot" if os.geteuid() == 0 else self.user
        login = "dovenull" if os.geteuid() == 0 else self.user
        mechanisms, oauth2 = "plain login", ""
        if self.introspection_url is not None:
            mechanisms += " xoauth2 oauthbearer"
            oauth2 = self._oauth2_passdb()
        layout, namespace = "", ""
        if self.separator is not None:
            layout = ":LAYOUT=fs" if self.separator == "/" else ""
            namespace = f"""namespace inbox {{
  inbox = yes
  prefix = INBOX{self.separator}
  separator = {self.separator}
}}"""
        conf = self.conf
        conf.write_text(
            f"""
base_dir = {self.root}/run
state_dir = {self.root}/state
log_path = {self.root}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = {mechanisms}
auth_failure_delay = 0
default_internal_user = {internal}
default_login_user = {login}
mail_location = maildir:{self.mail}/%u{layout}
{namespace}
first_valid_uid = 1
first_valid_gid = 1
passdb {{
  driver = static
  args = password={PASSWORD_PREFIX}%u
}}
{oauth2}
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
        self.proc = subprocess.Popen(
            [binary, "-F", "-c", str(conf)], stdin=subprocess.DEVNULL, start_new_session=True
        )  # its own process group, as the Cyrus below (whose master signals its group)
        _wait_for_port(self.port)

    @property
    def conf(self) -> Path:
        return self.root / "dovecot.conf"

    def _oauth2_passdb(self) -> str:
        """The oauth2 passdb (Dovecot 2.3): RFC 7662 introspection by POST, the user
        named by ``username``, a token good only while ``active`` is true."""
        settings = self.root / "dovecot-oauth2.conf.ext"
        settings.write_text(
            f"""introspection_mode = post
introspection_url = {self.introspection_url}
force_introspection = yes
username_attribute = username
active_attribute = active
active_value = true
tls_ca_cert_file = {self.ca_file}
"""
        )
        return f"""passdb {{
  driver = oauth2
  mechanisms = xoauth2 oauthbearer
  args = {settings}
}}"""

    def kick(self, username: str) -> None:
        """End every IMAP session of ``username`` (``doveadm kick``)."""
        doveadm = shutil.which("doveadm") or "/usr/bin/doveadm"
        subprocess.run(
            [doveadm, "-c", str(self.conf), "kick", username],
            check=True, capture_output=True, timeout=30,
        )  # fmt: skip

    def account(self) -> ImapAccount:
        """A new, empty IMAP account: a name not used before on this server.

        The passdb is static, the password a function of the name: an account needs no
        file written (a passwd-file is read again at most once a second, so a login within
        the second of the last had to wait for the next), and another password is
        refused as a real server refuses it."""
        name = f"bot{next(self._accounts)}"
        return ImapAccount("127.0.0.1", self.port, name, PASSWORD_PREFIX + name)

    def stop(self) -> None:
        _stop(self.proc)


def _stop(proc: subprocess.Popen[bytes] | None) -> None:
    """Stop a server's process: politely, then not."""
    if proc is not None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _require_dovecot() -> None:
    if shutil.which("dovecot") is None and not Path("/usr/sbin/dovecot").exists():
        if os.environ.get("CI"):
            pytest.fail("Dovecot is not installed: CI must install dovecot-imapd")
        pytest.skip("Dovecot is not installed here (apt-get install dovecot-imapd)")


@contextlib.contextmanager
def running_dovecot(
    prefix: str, provider: Provider | None = None, *, separator: str | None = None
) -> Iterator[Dovecot]:
    """A Dovecot in a new temporary folder (with OAuth2 through ``provider``; with
    ``separator``, the personal namespace ``INBOX`` + separator), stopped and removed
    after."""
    _require_dovecot()
    root = Path(tempfile.mkdtemp(prefix=prefix))
    root.chmod(0o755)
    if provider is None:
        server = Dovecot(root, separator=separator)
    else:
        ca = root / "provider.pem"
        ca.write_bytes(provider.cert.read_bytes())
        ca.chmod(0o644)
        server = Dovecot(root, f"{provider.url}/introspect", ca)
    with _serving(server, root):
        yield server


@contextlib.contextmanager
def _serving(server: Dovecot | Cyrus, root: Path) -> Iterator[None]:
    """``server`` started, and after stopped and its folder ``root`` removed."""
    server.start()
    try:
        yield
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def dovecot_server() -> Iterator[Dovecot]:
    with running_dovecot("mailbot-dovecot-") as server:
        yield server


@pytest.fixture
def imap_account(dovecot_server: Dovecot) -> ImapAccount:
    """A fresh IMAP account on the session's Dovecot."""
    return dovecot_server.account()


class Cyrus:
    """A Cyrus IMAP of the test session, run from the unpacked Debian packages in
    ``home`` (``cyrus-imapd`` conflicts with ``dovecot-imapd`` as an installed
    package; scripts/test unpacks it) with a throwaway configuration in ``root``: the
    standard namespace (folders under ``INBOX.``), any password taken
    (``sasl_pwcheck_method: alwaystrue``), an account's inbox made at its first login.
    """

    def __init__(self, home: Path, root: Path) -> None:
        self.home = home
        self.root = root
        self.port = free_port()
        self._accounts = itertools.count(1)
        self.proc: subprocess.Popen[bytes] | None = None
        self.user = "nobody" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name

    def start(self) -> None:
        entry = pwd.getpwnam(self.user)
        for sub in ("conf", "conf/socket", "partition", "run"):  # socket: IDLE's
            (self.root / sub).mkdir(exist_ok=True)
            os.chown(self.root / sub, entry.pw_uid, entry.pw_gid)
        group = grp.getgrgid(entry.pw_gid).gr_name
        conf = self.root / "imapd.conf"
        conf.write_text(
            f"""configdirectory: {self.root}/conf
defaultpartition: default
partition-default: {self.root}/partition
cyrus_user: {self.user}
cyrus_group: {group}
sasl_pwcheck_method: alwaystrue
sasl_mech_list: PLAIN LOGIN
allowplaintext: yes
virtdomains: off
altnamespace: no
unixhierarchysep: no
autocreate_quota: 0
idlesocket: {self.root}/run/idle
notifysocket: {self.root}/run/notify
lmtpsocket: {self.root}/run/lmtp
"""
        )
        bin_ = self.home / "usr/lib/cyrus/bin"
        services = self.root / "cyrus.conf"
        services.write_text(
            f"""START {{
  recover cmd="{bin_}/ctl_cyrusdb -r -C {conf}"
}}
SERVICES {{
  imap cmd="{bin_}/imapd -C {conf}" listen="127.0.0.1:{self.port}" prefork=0
}}
EVENTS {{
}}
DAEMON {{
  idled cmd="{bin_}/idled -C {conf}"
}}
"""
        )
        libraries = [str(self.home / folder / "x86_64-linux-gnu") for folder in ("usr/lib", "lib")]
        env = {**os.environ, "LD_LIBRARY_PATH": ":".join(libraries)}
        master = [str(bin_ / "master"), "-C", str(conf), "-M", str(services), "-D"]
        # a session of its own: on its way down the master signals its whole process
        # group (kill(0, SIGTERM)), which without one is the test worker's, with the
        # other Cyrus of the worker in it (a private one's stop ended the session's)
        self.proc = subprocess.Popen(
            [*master, "-p", str(self.root / "run/master.pid")], env=env,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        _wait_for_port(self.port)

    def account(self) -> ImapAccount:
        """A new, empty IMAP account (any password logs in).

        A session's Cyrus whose master has exited is started again on its port with its
        mail, as a service manager would, and says so on the worker's own error stream,
        which no test's captured output holds. (A private Cyrus's stop used to end the
        session's, through its master's signal to its process group; each now has a
        group of its own.)"""
        if self.proc is not None and self.proc.poll() is not None:
            print(f"Cyrus on port {self.port} had exited ({self.proc.returncode}): started again",
                  file=sys.__stderr__)  # fmt: skip
            self.start()
        n = next(self._accounts)
        return ImapAccount("127.0.0.1", self.port, f"bot{n}", f"pw{n}")

    def stop(self) -> None:
        _stop(self.proc)

    def restart(self) -> float:
        """Stop, then start again on the same port with the same mail; how long it was
        down, in seconds."""
        began = time.monotonic()
        self.stop()
        _wait_for_silence(self.port)
        self.start()
        return time.monotonic() - began


def _wait_for_silence(port: int, seconds: float = 15.0) -> None:
    """Wait until nothing answers on ``port`` (a server's children gone too)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                time.sleep(0.05)
        except OSError:
            return
    raise RuntimeError(f"127.0.0.1:{port} still answers after the server stopped")


def cyrus_home() -> Path | None:
    """Where Cyrus IMAP's unpacked packages are (or the installed ones), if anywhere."""
    named = os.environ.get("MAILBOT_TEST_CYRUS") or "/var/tmp/mailbot-test/cyrus"
    for home in (Path(named), Path("/")):
        if (home / "usr/lib/cyrus/bin/master").exists():
            return home
    return None


@contextlib.contextmanager
def running_cyrus(prefix: str) -> Iterator[Cyrus]:
    """A Cyrus IMAP in a new temporary folder, stopped and removed after."""
    home = cyrus_home()
    if home is None:
        if os.environ.get("CI"):
            pytest.fail("Cyrus IMAP is missing: CI must unpack cyrus-imapd (scripts/test)")
        pytest.skip("Cyrus IMAP is not here (scripts/test unpacks cyrus-imapd)")
    root = Path(tempfile.mkdtemp(prefix=prefix))
    root.chmod(0o755)
    server = Cyrus(home, root)
    with _serving(server, root):
        yield server


@pytest.fixture(scope="session")
def cyrus_server() -> Iterator[Cyrus]:
    with running_cyrus("mailbot-cyrus-") as server:
        yield server


@pytest.fixture
def private_cyrus() -> Iterator[Cyrus]:
    """A Cyrus IMAP of the test's own, which the test may restart."""
    with running_cyrus("mailbot-cyrus-own-") as server:
        yield server


class _ReadingPolicy(email.policy.EmailPolicy):
    r"""``email.policy.default``, with each header value parsed once.

    A test asks a message for its headers again and again (the parser itself asks a
    part for its Content-Type several times), and the default policy parses the
    value anew each time: an eighth of a long game's test went there. A parsed header
    is an immutable string, the same for the same name and value, so it is kept.

    >>> message = email.message_from_bytes(b"Subject: =?utf-8?q?=D0=A5?=\n\n", policy=READING)
    >>> message["Subject"], message["Subject"] is message["Subject"]
    ('Х', True)
    """

    def header_fetch_parse(self, name: str, value: str) -> str:
        if hasattr(value, "name"):
            return value
        return _parsed_header(self, name, value)


@functools.lru_cache(maxsize=8192)
def _parsed_header(policy: email.policy.EmailPolicy, name: str, value: str) -> str:
    return email.policy.EmailPolicy.header_fetch_parse(policy, name, value)  # type: ignore[no-any-return]


#: How the tests read the messages the bot sends: as a mail client does.
READING = _ReadingPolicy()


@dataclasses.dataclass(frozen=True)
class Received:
    """One message the SMTP listener accepted: its envelope, and its bytes as they came.

    The message is parsed when a test first reads it, not as it arrives: a backlog's
    thousands of answers are counted by their envelopes, and parsing each one on the
    listener's thread cost the suite more than any test read of them."""

    envelope_from: str
    recipients: tuple[str, ...]
    raw: bytes

    @functools.cached_property
    def message(self) -> email.message.EmailMessage:
        """The message, parsed as a mail client reads it (:data:`READING`)."""
        parsed = email.message_from_bytes(self.raw, policy=READING)
        assert isinstance(parsed, email.message.EmailMessage)
        return parsed


class SmtpSink:
    """An aiosmtpd listener on loopback that keeps every message it accepts."""

    def __init__(self) -> None:
        self.port = free_port()
        self.messages: list[Received] = []
        self.refuse_next = 0
        #: Seconds each message's DATA waits before it is taken, as a slow relay's does.
        self.delay = 0.0
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        if self.delay:
            await asyncio.sleep(self.delay)
        with self._lock:
            if self.refuse_next:
                self.refuse_next -= 1
                return "451 4.3.0 try again later"
        raw = envelope.original_content or envelope.content  # type: ignore[attr-defined]
        item = Received(
            envelope.mail_from,  # type: ignore[attr-defined]
            tuple(envelope.rcpt_tos),  # type: ignore[attr-defined]
            bytes(raw),
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


@pytest.fixture(scope="session")
def token_provider() -> Iterator[Provider]:
    """The loopback OAuth2 provider of the test session (HTTPS, self-signed)."""
    folder = Path(tempfile.mkdtemp(prefix="mailbot-provider-"))
    folder.chmod(0o755)
    provider = Provider(folder).start()
    try:
        yield provider
    finally:
        provider.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def oauth_dovecot(token_provider: Provider) -> Iterator[Dovecot]:
    """A Dovecot whose oauth2 passdb asks ``token_provider`` about each token."""
    with running_dovecot("mailbot-dovecot-oauth-", token_provider) as server:
        yield server


def _sasl_bearer(blob: bytes) -> tuple[str, str]:
    r"""The user and the token of an XOAUTH2 or OAUTHBEARER client response.

    >>> _sasl_bearer(b"n,a=bot,\x01auth=Bearer t\x01\x01")
    ('bot', 't')
    >>> _sasl_bearer(b"user=bot\x01auth=Bearer t\x01\x01")
    ('bot', 't')
    """
    user = token = ""
    head, _, rest = blob.decode("utf-8", "replace").partition("\x01")
    if head.startswith("n,"):
        user = head.split(",")[1].removeprefix("a=").replace("=2C", ",").replace("=3D", "=")
    elif head.startswith("user="):
        user = head.removeprefix("user=")
    for field in rest.split("\x01"):
        if field.startswith("auth=Bearer "):
            token = field.removeprefix("auth=Bearer ")
    return user, token


class PasswordSmtpSink(SmtpSink):
    """An SMTP listener that takes mail only after a login (PLAIN or LOGIN) with
    ``username`` and ``password``; without TLS, so on loopback only.

    >>> sink = PasswordSmtpSink("bot", "secret")
    >>> sink.settings["username"], sink.settings["password"]
    ('bot', 'secret')
    """

    def __init__(self, username: str, password: str) -> None:
        self.username, self.password = username, password
        super().__init__()
        self.controller = Controller(
            self, hostname="127.0.0.1", port=self.port, authenticator=self._authenticate,
            auth_required=True, auth_require_tls=False,
        )  # fmt: skip

    def _authenticate(
        self, server: object, session: object, envelope: object, mechanism: str, data: object
    ) -> AuthResult:
        good = isinstance(data, LoginPassword) and (data.login, data.password) == (
            self.username.encode(),
            self.password.encode(),
        )
        return AuthResult(success=good, handled=False)  # refused: aiosmtpd answers 535

    @property
    def settings(self) -> dict[str, object]:
        return {**super().settings, "username": self.username, "password": self.password}


class OAuthSmtpSink(SmtpSink):
    """An SMTP listener that takes mail only after AUTH XOAUTH2 or OAUTHBEARER with an
    access token ``provider`` says is live for the user (no PLAIN, no LOGIN)."""

    def __init__(self, provider: Provider) -> None:
        self.provider = provider
        #: (mechanism, user, accepted) of every AUTH.
        self.logins: list[tuple[str, str, bool]] = []
        super().__init__()
        self.controller = Controller(
            self, hostname="127.0.0.1", port=self.port, auth_required=True,
            auth_require_tls=False, auth_exclude_mechanism=["PLAIN", "LOGIN"],
        )  # fmt: skip

    async def _bearer(self, server: SMTP, args: list[str], mechanism: str) -> AuthResult:
        if len(args) > 1:
            blob = base64.b64decode(args[1])
        else:
            answer = await server.challenge_auth("")
            if not isinstance(answer, bytes):
                return AuthResult(success=False, handled=False)
            blob = answer
        user, token = _sasl_bearer(blob)
        ok = self.provider.live(token, user)
        with self._lock:
            self.logins.append((mechanism, user, ok))
        if ok:
            return AuthResult(success=True, auth_data=user)
        return AuthResult(success=False, handled=False, message="535 5.7.8 token not accepted")

    async def auth_XOAUTH2(self, server: SMTP, args: list[str]) -> AuthResult:
        return await self._bearer(server, args, "XOAUTH2")

    async def auth_OAUTHBEARER(self, server: SMTP, args: list[str]) -> AuthResult:
        return await self._bearer(server, args, "OAUTHBEARER")


@pytest.fixture
def oauth_smtp(token_provider: Provider) -> Iterator[OAuthSmtpSink]:
    sink = OAuthSmtpSink(token_provider)
    sink.controller.start()
    try:
        yield sink
    finally:
        sink.controller.stop()


#: The domain whose mail a :class:`PostfixRelay` takes and then cannot deliver.
BOUNCING = "bounce.example"
#: What its report gives as the reason.
BOUNCE_REASON = "no such mailbox here"
#: Debian's ``postfix`` command.
POSTFIX = "/usr/sbin/postfix"


class PostfixRelay(SmtpSink):
    """A private Postfix, the real MTA, in front of the SMTP listener.

    The bot hands its mail to Postfix (``port`` is Postfix's), which
    relays it to the listener; mail for :data:`BOUNCING` it takes and then cannot
    deliver, so it writes its own delivery report (RFC 3464) to the message's
    envelope sender, which it relays to the listener as well. Postfix runs as
    root with a configuration folder, queue and log of its own (``home``).
    """

    def __init__(self, home: Path) -> None:
        super().__init__()
        self.home = home
        #: The listener's port; ``port`` (what the bot is told) is Postfix's.
        self.listener_port, self.port = self.port, free_port()
        self.etc = home / "etc"
        #: The delivery reports Postfix sent back (null envelope sender), byte for byte.
        self.raw_reports: list[bytes] = []

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        if envelope.mail_from in ("", "<>"):  # type: ignore[attr-defined]
            with self._lock:
                self.raw_reports.append(envelope.original_content or envelope.content)  # type: ignore[attr-defined]
        return await super().handle_DATA(server, session, envelope)

    def start(self) -> None:
        self.controller.start()
        data, queue = self.home / "data", self.home / "queue"
        for folder in (self.etc, data, queue):
            folder.mkdir(parents=True)
        os.chown(data, pwd.getpwnam("postfix").pw_uid, grp.getgrnam("postfix").gr_gid)
        (self.etc / "transport").write_text(
            f"{BOUNCING} error:5.1.1 {BOUNCE_REASON}\n* smtp:[127.0.0.1]:{self.listener_port}\n"
        )
        (self.etc / "main.cf").write_text(
            "compatibility_level = 3.6\n"
            f"queue_directory = {queue}\ndata_directory = {data}\n"
            f"maillog_file = {self.home}/maillog\nmaillog_file_prefixes = {self.home}\n"
            "inet_interfaces = 127.0.0.1\ninet_protocols = ipv4\n"
            "myhostname = mx.example.net\nmydomain = example.net\nmydestination =\n"
            "mynetworks = 127.0.0.0/8\nsmtpd_relay_restrictions = permit_mynetworks, reject\n"
            # take the mail first, report it undeliverable afterwards, as a relay does
            "smtpd_reject_unlisted_recipient = no\n"
            f"transport_maps = texthash:{self.etc}/transport\n"
            "smtp_dns_support_level = disabled\nsmtputf8_enable = yes\n"
            "alias_maps =\nalias_database =\n"
        )
        lines = []
        for line in Path("/etc/postfix/master.cf").read_text().splitlines():
            fields = line.split()
            if line[:1] not in ("", "#", " ", "\t") and len(fields) >= 8:
                if fields[:2] == ["smtp", "inet"]:
                    fields[0] = f"127.0.0.1:{self.port}"
                fields[4] = "n"  # no chroot: the queue is not where the package put it
                line = " ".join(fields)
            lines.append(line)
        (self.etc / "master.cf").write_text("\n".join(lines) + "\n")
        self._postfix("start")
        _wait_for_port(self.port)

    def _postfix(self, command: str) -> None:
        done = subprocess.run(
            [POSTFIX, "-c", str(self.etc), command], capture_output=True, text=True
        )
        assert done.returncode == 0, f"postfix {command}: {done.stdout}{done.stderr}{self.log()}"

    def log(self) -> str:
        """The end of Postfix's log, to say what it did."""
        log = self.home / "maillog"
        return log.read_text()[-3000:] if log.exists() else "(no log)"

    def stop(self) -> None:
        try:
            self._postfix("stop")
        finally:
            self.controller.stop()


def _require_postfix() -> None:
    if not Path(POSTFIX).exists() or os.geteuid() != 0:
        lack = "Postfix (apt-get install postfix), run as root"
        if os.environ.get("CI"):
            pytest.fail(f"{lack}: CI must install it (scripts/test)")
        pytest.skip(lack)


@pytest.fixture
def postfix_relay() -> Iterator[PostfixRelay]:
    """A private Postfix relaying to an SMTP listener (:class:`PostfixRelay`), in a
    folder of its own that Postfix's unprivileged processes can reach."""
    _require_postfix()
    home = Path(tempfile.mkdtemp(prefix="mailbot-postfix-"))
    home.chmod(0o755)
    relay = PostfixRelay(home)
    try:
        relay.start()
        yield relay
    finally:
        relay.stop()
        shutil.rmtree(home, ignore_errors=True)
