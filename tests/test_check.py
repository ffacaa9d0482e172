"""``mailbot check``: the configuration tried against real servers (Dovecot, Cyrus
IMAP, an SMTP listener that wants a password, SQLite and PostgreSQL), one line per
check naming the key to fix, and nothing changed."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from harness import login
from mailservers import Cyrus, ImapAccount, cyrus_server, free_port
from migrated import migrated

from mailbot.cli import main

__all__ = ["cyrus_server"]  # a fixture

# the listener takes a password without TLS, on loopback only
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")

SMTP_USER, SMTP_PASSWORD = "bot@federation.example", "smtp-secret"


class _Accepting:
    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        raise AssertionError("mailbot check sent a message")


def _authenticate(
    server: object, session: object, envelope: object, mechanism: str, data: object
) -> AuthResult:
    good = isinstance(data, LoginPassword) and (data.login, data.password) == (
        SMTP_USER.encode(),
        SMTP_PASSWORD.encode(),
    )
    return AuthResult(success=good, handled=False)  # refused: aiosmtpd answers 535


@pytest.fixture(scope="module")
def smtp_port() -> Iterator[int]:
    """An SMTP listener that takes a login only with the password, and no mail."""
    port = free_port()
    controller = Controller(
        _Accepting(), hostname="127.0.0.1", port=port, authenticator=_authenticate,
        auth_required=True, auth_require_tls=False,
    )  # fmt: skip
    controller.start()
    try:
        yield port
    finally:
        controller.stop()


@pytest.fixture
def database(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'mailbot.db'}"
    migrated(url)
    return url


def configuration(database: str, imap: ImapAccount, smtp_port: int) -> dict[str, Any]:
    return {
        "database": database,
        "timezone": "Europe/Sofia",
        "imap": {"host": imap.host, "port": imap.port, "security": "none",
                 "username": imap.username, "password": imap.password,
                 "done_folder": "Processed"},
        "smtp": {"host": "127.0.0.1", "port": smtp_port, "security": "none",
                 "username": SMTP_USER, "password": SMTP_PASSWORD,
                 "sender": f"Federation CC <{SMTP_USER}>"},
    }  # fmt: skip


def check(tmp_path: Path, mapping: dict[str, Any]) -> tuple[int, list[str]]:
    """``mailbot -c CONFIG check``: (exit status, its lines)."""
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(mapping, allow_unicode=True))
    out = io.StringIO()
    code = main(["-c", str(path), "check"], stdout=out)
    return code, out.getvalue().splitlines()


def failing(lines: list[str]) -> list[str]:
    return [line for line in lines if not line.startswith("OK ")]


@pytest.fixture
def account(imap_account: ImapAccount) -> ImapAccount:
    login(imap_account).logout()  # its INBOX made, as the server has it before any check
    return imap_account


def test_a_good_configuration_is_all_ok_and_changes_nothing(
    tmp_path: Path, database: str, account: ImapAccount, smtp_port: int
) -> None:
    code, lines = check(tmp_path, configuration(database, account, smtp_port))
    where = f"{account.username} at 127.0.0.1:{account.port}"
    assert lines == [
        "OK database: reachable, at revision " + lines[0].rsplit(" ", 1)[-1],
        f"OK imap login: {where}",
        "OK imap.folder: INBOX",
        "OK imap.done_folder: Processed (made at the first poll)",
        "OK imap.quarantine_folder: Quarantine (made at the first poll)",
        "OK imap idle: the server has IDLE",
        f"OK smtp login: {SMTP_USER} at 127.0.0.1:{smtp_port}",
    ]
    assert code == 0
    client = login(account)
    assert not client.folder_exists("Processed")  # no folder made
    client.logout()


@pytest.mark.parametrize("section", ["imap", "smtp"])
@pytest.mark.slow
def test_a_wrong_password_is_one_line_naming_the_key(
    tmp_path: Path, database: str, account: ImapAccount, smtp_port: int, section: str
) -> None:
    """The other checks still run."""
    mapping = configuration(database, account, smtp_port)
    mapping[section]["password"] = "wrong"
    code, lines = check(tmp_path, mapping)
    said = {
        "imap": f"CRITICAL imap login: IMAP 127.0.0.1:{account.port} refused the login "
        "(Authentication failed. [AUTHENTICATIONFAILED]); check imap.username and imap.password",
        "smtp": f"CRITICAL smtp login: SMTP 127.0.0.1:{smtp_port}: login refused (535); "
        "check smtp.username and smtp.password",
    }
    assert failing(lines) == [said[section]]
    assert len(lines) == (7 if section == "smtp" else 3)
    assert code == 2


def test_a_folder_the_server_refuses_is_named_by_its_key(
    tmp_path: Path, database: str, cyrus_server: Cyrus, smtp_port: int
) -> None:
    """Cyrus keeps the account's folders under ``INBOX.``: ``Processed`` is named so;
    another user's folder cannot be the account's."""
    mapping = configuration(database, cyrus_server.account(), smtp_port)
    mapping["imap"]["quarantine_folder"] = "user.someone.Quarantine"
    code, lines = check(tmp_path, mapping)
    assert "OK imap.done_folder: INBOX.Processed (made at the first poll)" in lines
    assert failing(lines) == [
        'CRITICAL imap.quarantine_folder: "user.someone.Quarantine" is not this account\'s '
        'to make; "user." holds folders of other accounts: this one\'s lie under "INBOX."'
    ]
    assert code == 2


def test_an_unreachable_database_is_one_line(
    tmp_path: Path, account: ImapAccount, smtp_port: int
) -> None:
    dead = "postgresql+psycopg://postgres@127.0.0.1:9/none"
    code, lines = check(tmp_path, configuration(dead, account, smtp_port))
    (line,) = failing(lines)
    assert line.startswith(f"CRITICAL database: the database {dead} cannot be reached (")
    assert line.endswith("; check database")
    assert code == 2


@pytest.mark.slow
def test_a_database_init_has_not_made_says_run_init(
    tmp_path: Path, account: ImapAccount, smtp_port: int
) -> None:
    missing = tmp_path / "none.db"
    code, lines = check(tmp_path, configuration(f"sqlite:///{missing}", account, smtp_port))
    assert failing(lines) == [
        f"CRITICAL database: no file {missing}: run mailbot init (or fix database)"
    ]
    assert not missing.exists()
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    code, lines = check(tmp_path, configuration(f"sqlite:///{empty}", account, smtp_port))
    assert failing(lines) == ["CRITICAL database: has no tables of the bot: run mailbot init"]
    assert code == 2


def test_a_bad_configuration_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("database: sqlite://\n")
    assert main(["-c", str(path), "check"], stdout=io.StringIO()) == 2
