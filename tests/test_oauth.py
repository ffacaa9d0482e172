"""OAuth2 logins against real parts: Dovecot's oauth2 passdb and an aiosmtpd listener
that take only live bearer tokens, both asking the loopback provider of
:mod:`tokenserver` (HTTPS with a certificate the bot trusts through
``REQUESTS_CA_BUNDLE``). The bot runs as the operator runs it (``mailbot poll``,
``mailbot run``, ``mailbot oauth authorize``), with ``log_level: DEBUG``, and every
line it wrote is searched for the tokens, codes and secrets the provider issued.

The ``google`` and ``microsoft`` presets cannot be reached from here; every flow
goes through ``provider: generic`` pointed at the loopback provider.

The store is SQLite in every run: these tests are about logins and tokens, which no
database changes (``MAILBOT_TEST_STORE=postgresql`` leaves them out).
"""

from __future__ import annotations

import datetime
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import requests
from harness import Federation, login, mailbot
from mailservers import (  # noqa: F401 (fixtures)
    Dovecot,
    ImapAccount,
    OAuthSmtpSink,
    oauth_dovecot,
    oauth_smtp,
    token_provider,
)
from test_daemon import wait_until
from tokenserver import Client, Provider

#: As test_daemon's, with an end far off: a refused token is told to the directors
#: of the tournaments still running.
START_LIST = """
index: OA-1
name: OAuth test
profile: bg-email
start: 2026-01-01
end: 2099-12-31
language: en
notation: en
director: {name: Tom Director, email: td@federation.example}
players:
  - {id: white, name: Walter White, email: white@example.org}
  - {id: black, name: Bella Black, email: black@example.org}
games: [{white: white, black: black}]
"""
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
WHITE, BLACK, TD = "white@example.org", "black@example.org", "td@federation.example"
UTC = datetime.UTC


def no_secrets(provider: Provider, *texts: str) -> None:
    """None of the tokens, codes and secrets the provider ever issued is in ``texts``."""
    joined = "\n".join(texts)
    leaked = sorted(s for s in provider.secrets if s in joined)
    assert not leaked, f"{len(leaked)} secrets in the output, kinds {[s[:3] for s in leaked]}"


def oauth2_section(provider: Provider, client: Client, token_file: Path, **more: object) -> dict:
    section: dict[str, object] = {
        "provider": "generic",
        "client_id": client.client_id,
        "token_file": str(token_file),
        "token_url": f"{provider.url}/token",
        "scopes": ["mail"],
    }
    if client.secret is not None:
        section["client_secret"] = client.secret
    section.update(more)
    return section


class Bot:
    """A federation whose bot logs in to IMAP and SMTP with OAuth2 only."""

    def __init__(
        self,
        store_url: str,
        dovecot: Dovecot,
        smtp: OAuthSmtpSink,
        provider: Provider,
        tmp_path: Path,
        *,
        rotate: bool = False,
        separate_smtp: bool = False,
        device: bool = False,
        browser: bool = False,
        secret: str | None = None,
        public: bool = False,
    ) -> None:
        self.provider = provider
        self.account: ImapAccount = dovecot.account()
        self.dovecot = dovecot
        self.client = provider.register(self.account.username, rotate=rotate, secret=not public)
        if secret is not None:
            self.client_config = Client(self.client.client_id, secret, self.account.username)
        else:
            self.client_config = self.client
        self.token_file = tmp_path / "imap-token.json"
        self.first_refresh = provider.grant(self.client)
        write_token(self.token_file, self.first_refresh)
        imap_oauth = oauth2_section(provider, self.client_config, self.token_file)
        if device:
            imap_oauth["device_url"] = f"{provider.url}/device"
        if browser:
            imap_oauth["authorize_url"] = f"{provider.url}/authorize"
        if separate_smtp:
            self.smtp_client = provider.register(self.account.username)
            self.smtp_token_file = tmp_path / "smtp-token.json"
            write_token(self.smtp_token_file, provider.grant(self.smtp_client))
            smtp_oauth = oauth2_section(provider, self.smtp_client, self.smtp_token_file)
        else:
            self.smtp_token_file = self.token_file
            smtp_oauth = oauth2_section(provider, self.client_config, self.token_file)
        smtp_oauth["mechanism"] = "oauthbearer"  # IMAP logs in with XOAUTH2
        settings = {
            "log_level": "DEBUG",
            "imap": {
                "host": "127.0.0.1", "port": dovecot.port, "security": "none",
                "username": self.account.username, "auth": "oauth2", "oauth2": imap_oauth,
                "folder": "INBOX", "done_folder": "Processed",
            },
            "smtp": {
                "host": "127.0.0.1", "port": smtp.port, "security": "none",
                "username": self.account.username, "auth": "oauth2", "oauth2": smtp_oauth,
                "sender": "Federation CC <bot@federation.example>",
            },
        }  # fmt: skip
        self.fed = Federation(
            store_url, self.account, smtp, START_LIST, tmp_path, settings=settings
        )
        assert self.fed.config_path is not None
        self.config_path = self.fed.config_path
        self.env = {
            **os.environ,
            "REQUESTS_CA_BUNDLE": str(provider.cert),
            "SSL_CERT_FILE": str(provider.cert),
        }
        self.outputs: list[str] = []

    def mailbot(self, *words: str) -> subprocess.CompletedProcess[str]:
        """``mailbot -c CONFIG WORDS`` in this process (``oauth_env`` trusts the provider
        as the processes' environment does): what it printed, logged and returned."""
        done = mailbot("-c", str(self.config_path), *words)
        self.outputs += [done.stdout, done.stderr]
        return done

    def start(self, *words: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "mailbot", "-c", str(self.config_path), *words],
            env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip

    def kick(self) -> None:
        """End the user's IMAP sessions (the bot's, and the test's own, which logs in
        again by password to deliver the players' mail)."""
        self.dovecot.kick(self.account.username)
        self.fed.client = login(self.account)

    def tokens(self, path: Path | None = None) -> dict[str, object]:
        data: dict[str, object] = json.loads((path or self.token_file).read_text())
        return data


def write_token(path: Path, refresh_token: str) -> None:
    path.write_text(json.dumps({"refresh_token": refresh_token}))
    path.chmod(0o600)


@pytest.fixture
def oauth_env(
    token_provider: Provider,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> Provider:
    """The bot in this process trusts the provider's certificate, as the subprocesses do."""
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(token_provider.cert))
    monkeypatch.setenv("SSL_CERT_FILE", str(token_provider.cert))
    return token_provider


Make = Callable[..., Bot]


@pytest.fixture
def bot_of(
    sqlite_url: str,
    oauth_dovecot: Dovecot,  # noqa: F811
    oauth_smtp: OAuthSmtpSink,  # noqa: F811
    oauth_env: Provider,
    tmp_path: Path,
) -> Iterator[Make]:
    """Makes the test's bot: ``bot_of(rotate=..., separate_smtp=..., device=..., browser=...)``;
    afterwards, everything the bot printed or logged is searched for secrets."""
    made: list[Bot] = []

    def make(**options: object) -> Bot:
        bot = Bot(sqlite_url, oauth_dovecot, oauth_smtp, oauth_env, tmp_path, **options)  # type: ignore[arg-type]
        made.append(bot)
        return bot

    yield make
    for bot in made:
        bot.fed.close()
        no_secrets(oauth_env, *bot.outputs)


class Daemon:
    """``mailbot run`` in a process, its stderr (the log) read in a thread."""

    def __init__(self, bot: Bot) -> None:
        import threading

        self.bot = bot
        self.proc = bot.start("run")
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))

    def logged(self, pattern: str) -> list[str]:
        return [line for line in list(self.lines) if re.search(pattern, line)]

    def wait_for_log(self, pattern: str, seconds: float = 30) -> bool:
        return wait_until(lambda: self.logged(pattern), seconds)

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(15)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        self._reader.join(5)
        self.bot.outputs.append("\n".join(self.lines))
        return code


def moves_to(fed: Federation, address: str) -> list[str]:
    return [
        str(m.message["X-Mailbot-Move"])
        for m in fed.received(address)
        if m.message["X-Mailbot-Event"] in ("move", "move-accepted")
    ]


# -- the cases ----------------------------------------------------------------------------


@pytest.mark.slow
def test_a_first_login_reads_the_move_by_imap_and_answers_by_smtp(bot_of: Make) -> None:
    bot: Bot = bot_of()
    now = datetime.datetime.now(UTC)
    bot.fed.write(WHITE, "1. e2-e4", now, subject="[OA-1/1] move")

    done = bot.mailbot("poll", "--once")

    assert done.returncode == 0, done.stderr
    # Black receives the move, White the confirmation, through the OAuth-only listener
    assert moves_to(bot.fed, BLACK) == ["e2e4"]
    assert moves_to(bot.fed, WHITE) == ["e2e4"]
    assert bot.fed.pending_in_inbox() == 0
    smtp: OAuthSmtpSink = bot.fed.smtp  # type: ignore[assignment]
    assert ("OAUTHBEARER", bot.account.username, True) in smtp.logins
    # one refresh served both logins (they share the token file); it is private
    assert bot.provider.count("token", "refresh_token", client=bot.client.client_id) == 1
    assert bot.token_file.stat().st_mode & 0o777 == 0o600
    stored = bot.tokens()
    assert stored["refresh_token"] == bot.first_refresh
    assert bot.provider.live(str(stored["access_token"]), bot.account.username)
    assert float(stored["expires_at"]) > time.time() + 3000  # type: ignore[arg-type]
    # a second pass needs no new token
    assert bot.mailbot("poll", "--once").returncode == 0
    assert bot.provider.count("token", "refresh_token", client=bot.client.client_id) == 1


def _read_stdout_until(proc: subprocess.Popen[str], pattern: str, seconds: float) -> str:
    assert proc.stdout is not None
    deadline = time.monotonic() + seconds
    seen = ""
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen += line
        if re.search(pattern, line):
            return seen
    proc.kill()
    raise AssertionError(f"no {pattern!r} in {seen!r}: {proc.stderr.read() if proc.stderr else ''}")


@pytest.mark.slow
def test_authorize_with_code_and_pkce_writes_a_private_token_file(bot_of: Make) -> None:
    bot: Bot = bot_of(browser=True)
    bot.token_file.unlink()
    proc = bot.start("oauth", "authorize", "imap")
    try:
        printed = _read_stdout_until(proc, r"^https://", 30)
        url = next(line for line in printed.splitlines() if line.startswith("https://"))
        assert "code_challenge_method=S256" in url and "state=" in url
        # the operator's browser: the provider sends it back to the loopback listener
        answer = requests.get(url, allow_redirects=False, verify=str(bot.provider.cert), timeout=10)
        assert answer.status_code == 302
        back = answer.headers["Location"]
        assert back.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(back, timeout=10) as page:
            assert page.status == 200
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    bot.outputs += [printed, out, err]
    assert proc.returncode == 0, err
    assert "token file" in out and "code flow" in out
    assert bot.token_file.stat().st_mode & 0o777 == 0o600
    stored = bot.tokens()
    assert bot.provider.refresh_token_works(str(stored["refresh_token"]))
    assert bot.provider.count("token", "authorization_code") >= 1
    # the bot logs in with what was written
    assert bot.mailbot("poll", "--once").returncode == 0


def authorize_by_device(bot: Bot) -> subprocess.CompletedProcess[str]:
    """``oauth authorize imap`` by device code, the operator entering the code."""
    proc = bot.start("oauth", "authorize", "imap", "--device")
    try:
        printed = _read_stdout_until(proc, r"enter the code", 30)
        code = re.search(r"enter the code (\S+)", printed)
        assert code is not None
        bot.provider.approve(code.group(1))
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    bot.outputs += [printed, out, err]
    return subprocess.CompletedProcess(proc.args, proc.returncode, printed + out, err)


@pytest.mark.slow
def test_authorize_with_a_device_code_writes_a_private_token_file(bot_of: Make) -> None:
    """A public client (no secret), as Microsoft's installed applications are."""
    bot: Bot = bot_of(device=True, public=True)
    url = bot.provider.url
    bot.token_file.unlink()
    done = authorize_by_device(bot)
    assert done.returncode == 0, done.stderr
    assert f"Open {url}/verify" in done.stdout
    assert "device flow" in done.stdout
    assert bot.token_file.stat().st_mode & 0o777 == 0o600
    assert bot.provider.refresh_token_works(str(bot.tokens()["refresh_token"]))
    assert bot.provider.count("token", "urn:ietf:params:oauth:grant-type:device_code") >= 1
    assert "client_secret" not in bot.config_path.read_text()
    # the bot refreshes with it as a public client too
    bot.fed.write(WHITE, "1. e2-e4", datetime.datetime.now(UTC), subject="[OA-1/1] move")
    assert bot.mailbot("poll", "--once").returncode == 0
    assert moves_to(bot.fed, BLACK) == ["e2e4"]


@pytest.mark.slow
def test_a_token_that_expires_during_idle_is_refreshed_and_no_move_is_lost(bot_of: Make) -> None:
    bot: Bot = bot_of()
    daemon = Daemon(bot)
    try:
        assert daemon.wait_for_log(r"connected to IMAP"), daemon.lines
        bot.fed.write(WHITE, "1. e2-e4", datetime.datetime.now(UTC), subject="[OA-1/1] move")
        assert wait_until(lambda: moves_to(bot.fed, BLACK) == ["e2e4"], 30)
        refreshes = bot.provider.count("token", "refresh_token", client=bot.client.client_id)
        # the access token dies while the daemon idles; Dovecot checks tokens only at
        # login, so the session is ended for the daemon to log in again
        assert bot.provider.expire_access_tokens(bot.client) >= 1
        bot.kick()
        bot.fed.write(BLACK, "1... e7-e5", datetime.datetime.now(UTC), subject="[OA-1/1] m")
        assert wait_until(lambda: moves_to(bot.fed, WHITE) == ["e2e4", "e7e5"], 40), daemon.lines[
            -20:
        ]
        assert daemon.wait_for_log(r"refused the access token; refreshing it")
        assert bot.provider.count("token", "refresh_token", client=bot.client.client_id) > refreshes
        assert daemon.proc.poll() is None
        assert wait_until(lambda: bot.fed.pending_in_inbox() == 0, 10)
        assert bot.fed.in_folder("Processed") == 2
    finally:
        code = daemon.stop()
    assert code == 0


@pytest.mark.slow
def test_a_rotated_refresh_token_is_stored_at_once_and_the_old_one_is_dead(bot_of: Make) -> None:
    bot: Bot = bot_of(rotate=True)
    bot.fed.write(WHITE, "1. e2-e4", datetime.datetime.now(UTC), subject="[OA-1/1] move")
    assert bot.mailbot("poll", "--once").returncode == 0
    first = str(bot.tokens()["refresh_token"])
    assert first != bot.first_refresh
    assert not bot.provider.refresh_token_works(bot.first_refresh)
    assert bot.provider.refresh_token_works(first)
    # the next refresh rotates again; the file follows
    bot.provider.expire_access_tokens(bot.client)
    bot.fed.write(BLACK, "1... e7-e5", datetime.datetime.now(UTC), subject="[OA-1/1] m")
    assert bot.mailbot("poll", "--once").returncode == 0
    second = str(bot.tokens()["refresh_token"])
    assert second not in (first, bot.first_refresh)
    assert not bot.provider.refresh_token_works(first)
    assert moves_to(bot.fed, WHITE) == ["e2e4", "e7e5"]
    assert bot.token_file.stat().st_mode & 0o777 == 0o600


def refused_logins(bot: Bot) -> int:
    """How many times the IMAP server found the bot's access token dead (asking the provider)."""
    return bot.provider.count("introspect", outcome="inactive")


@pytest.mark.slow
def test_a_revoked_token_is_one_line_the_td_is_told_once_and_the_bot_resumes(bot_of: Make) -> None:
    bot: Bot = bot_of(separate_smtp=True, device=True)
    daemon = Daemon(bot)
    try:
        assert daemon.wait_for_log(r"connected to IMAP"), daemon.lines
        bot.provider.revoke_all(bot.client)  # the user withdrew the bot's access
        bot.kick()
        assert daemon.wait_for_log(r"refused the refresh token"), daemon.lines[-20:]
        # the director learns it once, by SMTP, whose token still works
        assert wait_until(lambda: [m for m in bot.fed.received(TD)
                                   if m.message["X-Mailbot-Event"] == "error"], 20)  # fmt: skip
        # a retry later (its login refused again: the IMAP server finds the token dead)
        logins_before = refused_logins(bot)
        assert wait_until(lambda: refused_logins(bot) > logins_before, 30), daemon.lines[-20:]
        assert daemon.proc.poll() is None
        refused = daemon.logged(r" WARNING .*refused the refresh token")
        assert len(refused) == 1, "\n".join(refused)
        line = refused[0]
        assert "WARNING" in line and "imap" in line and bot.account.username in line
        assert f"mailbot -c {bot.config_path} oauth authorize imap" in line
        notices = [m for m in bot.fed.received(TD) if m.message["X-Mailbot-Event"] == "error"]
        assert len(notices) == 1
        assert "cannot log in" in str(notices[0].message["Subject"])
        assert "oauth authorize imap" in notices[0].message.get_body(("plain",)).get_content()  # type: ignore[union-attr]
        # a move waits meanwhile; the operator authorizes anew in another process
        bot.fed.write(WHITE, "1. e2-e4", datetime.datetime.now(UTC), subject="[OA-1/1] move")
        assert authorize_by_device(bot).returncode == 0
        assert wait_until(lambda: moves_to(bot.fed, BLACK) == ["e2e4"], 60), daemon.lines[-20:]
        assert daemon.wait_for_log(r"working again after")
        assert len(daemon.logged(r" WARNING .*refused the refresh token")) == 1
        assert len([m for m in bot.fed.received(TD)
                    if m.message["X-Mailbot-Event"] == "error"]) == 1  # fmt: skip
    finally:
        code = daemon.stop()
    assert code == 0


@pytest.mark.slow
def test_a_wrong_client_secret_is_one_clear_line(bot_of: Make) -> None:
    bot: Bot = bot_of(secret="not-the-secret", device=True)
    bot.fed.write(WHITE, "1. e2-e4", datetime.datetime.now(UTC), subject="[OA-1/1] move")

    done = bot.mailbot("poll", "--once")

    assert done.returncode == 1  # the provider's refusal (CONTRACT: not bad usage)
    # the log at DEBUG says more (the traceback too); what the operator reads is one line
    lines = [line for line in done.stderr.splitlines() if line.startswith("mailbot:")]
    assert len(lines) == 1, done.stderr
    assert not re.search(r" (WARNING|ERROR|CRITICAL) ", done.stderr), done.stderr
    assert "refused the client (invalid_client" in lines[0]
    assert "client_secret" in lines[0]
    assert bot.fed.pending_in_inbox() == 1  # nothing read, nothing lost
    # monitoring sees it
    status, out = _health(bot.config_path)
    assert status == 2
    critical = r"^CRITICAL oauth2: imap: the provider refused .*invalid_client.*client_secret"
    assert re.search(critical, out, re.M), out
    # oauth authorize says it in one line too, as a configuration to fix (exit 2)
    done = bot.mailbot("oauth", "authorize", "imap")
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.startswith("mailbot:")]
    assert len(lines) == 1, done.stderr
    assert "refused the client (invalid_client" in lines[0] and "client_secret" in lines[0]


def _health(config: Path) -> tuple[int, str]:
    done = mailbot("-c", str(config), "health")
    return done.returncode, done.stdout


@pytest.mark.slow
def test_no_token_code_or_secret_reaches_any_log(bot_of: Make) -> None:
    """Every flow at DEBUG: a first login, a refusal and refresh, a rotation, both kinds of
    ``oauth authorize``; none of the provider's secrets in any line (the other cases'
    output is searched too, when each ends)."""
    bot: Bot = bot_of(rotate=True, device=True, browser=True)
    bot.fed.write(WHITE, "1. e2-e4", datetime.datetime.now(UTC), subject="[OA-1/1] move")
    assert bot.mailbot("poll", "--once").returncode == 0
    bot.provider.expire_access_tokens(bot.client)
    assert bot.mailbot("poll", "--once").returncode == 0
    assert authorize_by_device(bot).returncode == 0
    bot.provider.revoke_all(bot.client)
    bot.provider.expire_access_tokens(bot.client)
    assert bot.mailbot("poll", "--once").returncode == 1
    logs = "\n".join(bot.outputs)
    assert "DEBUG" in logs  # the runs did log at DEBUG
    assert bot.provider.secrets  # and there was something to find
    no_secrets(bot.provider, logs, bot.config_path.read_text().replace(
        str(bot.client.secret), ""))  # fmt: skip


@pytest.mark.slow
def test_health_reports_the_token_files(bot_of: Make) -> None:
    bot: Bot = bot_of()
    status, out = _health(bot.config_path)
    assert "OK oauth2: imap: refresh token present" in out, out
    bot.token_file.unlink()
    status, out = _health(bot.config_path)
    assert status == 2
    assert (
        f"CRITICAL oauth2: imap: no token file {bot.token_file}; run: mailbot -c "
        f"{bot.config_path} oauth authorize imap"
    ) in out


def test_processes_sharing_a_token_file_refresh_once_and_early(
    oauth_env: Provider, tmp_path: Path
) -> None:
    """Eight logins at once (threads, each with its own lock descriptor, as processes
    have) on a token file whose access token expires within the minute: one refresh,
    the rotated refresh token kept, every login given the same live token."""
    import threading

    from mailbot.mail.oauth import TokenSource
    from mailbot.mail.settings import OAuth2Config
    from mailbot.mail.settings import Provider as Preset

    provider = oauth_env
    client = provider.register("bot-shared", rotate=True)
    first = provider.grant(client)
    path = tmp_path / "token.json"
    path.write_text(json.dumps({"refresh_token": first, "access_token": "old",
                                "expires_at": int(time.time()) + 30}))  # fmt: skip
    settings = OAuth2Config(
        Preset.GENERIC, client.client_id, str(path), client_secret=client.secret,
        token_url=f"{provider.url}/token", scopes=("mail",),
    )  # fmt: skip
    got: list[str] = []
    start = threading.Barrier(8)

    def login(account: str) -> None:
        source = TokenSource(settings, account, "bot-shared")
        start.wait()
        got.append(source.token())

    threads = [threading.Thread(target=login, args=(("imap", "smtp")[i % 2],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(got) == 8 and len(set(got)) == 1
    assert provider.live(got[0], "bot-shared")
    assert provider.count("token", "refresh_token", client=client.client_id) == 1
    stored = json.loads(path.read_text())
    assert stored["refresh_token"] != first and provider.refresh_token_works(
        stored["refresh_token"]
    )
    assert not provider.refresh_token_works(first)
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_refused_smtp_token_stops_sending_until_a_new_one_is_written(
    oauth_env: Provider,
    oauth_smtp: OAuthSmtpSink,  # noqa: F811
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The postman says so once, then does not try (nor ask the provider) while the file
    holds the refused token; a token written by ``oauth authorize`` is used at once."""
    from mailbot.config import config_from_mapping
    from mailbot.mail.oauth import TokenRevoked
    from mailbot.mail.postman import Postman, SendError, SendFailure

    provider = oauth_env
    client = provider.register("bot-smtp")
    path = tmp_path / "smtp-token.json"
    write_token(path, provider.grant(client))
    smtp = {"host": "127.0.0.1", "port": oauth_smtp.port, "security": "none",
            "username": "bot-smtp", "auth": "oauth2", "sender": "Bot <bot@federation.example>",
            "oauth2": oauth2_section(provider, client, path)}  # fmt: skip
    imap = {"host": "127.0.0.1", "port": 1, "security": "none", "username": "bot",
            "password": "", "folder": "INBOX", "done_folder": "Processed"}  # fmt: skip
    config = config_from_mapping(
        {"database": "sqlite://", "timezone": "UTC", "imap": imap, "smtp": smtp}, {}
    )
    postman = Postman(config.smtp)
    message = b"From: bot@federation.example\r\nTo: td@federation.example\r\n\r\nhello\r\n"

    def send() -> dict[str, str]:
        return postman.send(lambda _: message, lambda _: ["td@federation.example"])

    assert send() == {}
    provider.revoke_all(client)
    provider.expire_access_tokens(client)
    with pytest.raises(SendError) as caught:
        send()
    assert caught.value.failure is SendFailure.UNREACHABLE
    assert isinstance(caught.value.__cause__, TokenRevoked)
    assert "refused the refresh token (invalid_grant" in str(caught.value)
    assert "oauth authorize smtp" in str(caught.value)

    def refused() -> int:
        return provider.count("token", "refresh_token", "invalid_grant", client=client.client_id)

    asked = refused()
    assert not postman.available()
    with pytest.raises(SendError):
        send()  # even when asked to: the file still holds the refused token
    assert refused() == asked == 1
    write_token(path, provider.grant(client))  # what `oauth authorize smtp` does
    assert postman.available()
    assert send() == {}
    assert len(oauth_smtp.to("td@federation.example")) == 2
    no_secrets(provider, caplog.text, str(caught.value))
