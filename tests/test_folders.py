"""Folders as the server names them: on servers that keep an account's folders under
``INBOX.`` or ``INBOX/`` (Cyrus IMAP, Dovecot with such a personal namespace, as
cPanel hosts run it), ``done_folder: Processed`` written without the prefix files
the handled mail in ``INBOX.Processed`` and the quarantine in ``INBOX.Quarantine``,
through the real mail path (``mailbot poll --once``); a folder the server refuses
is reported naming its key and the server's words.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from harness import Federation, config_mapping
from mailservers import Cyrus, Dovecot, ImapAccount, SmtpSink, cyrus_server, running_dovecot
from migrated import migrated
from test_quarantine import BROKEN, IVANOV, SMITH, START_LIST, at, failing, mails, poll, run_cli

from mailbot.cli import main
from mailbot.mail.inbox import Mailbox, MailboxError, Namespace, namespace_of

__all__ = ["cyrus_server", "failing"]  # fixtures


@pytest.fixture(scope="module")
def dovecot_dot() -> Iterator[Dovecot]:
    with running_dovecot("mailbot-dovecot-dot-", separator=".") as server:
        yield server


@pytest.fixture(scope="module")
def dovecot_slash() -> Iterator[Dovecot]:
    with running_dovecot("mailbot-dovecot-slash-", separator="/") as server:
        yield server


#: Each server, and the separator its personal namespace ``INBOX`` + separator uses.
SERVERS = {"cyrus": ".", "dovecot-inbox-dot": ".", "dovecot-inbox-slash": "/"}


@pytest.fixture(params=list(SERVERS))
def prefixed(request: pytest.FixtureRequest) -> tuple[ImapAccount, str]:
    """An account on a server whose folders lie under INBOX, and its separator."""
    fixture = {"cyrus": "cyrus_server", "dovecot-inbox-dot": "dovecot_dot"}.get(
        request.param, "dovecot_slash"
    )
    server: Cyrus | Dovecot = request.getfixturevalue(fixture)
    return server.account(), SERVERS[request.param]


@pytest.fixture
def fed(
    db_url: str, prefixed: tuple[ImapAccount, str], smtp_sink: SmtpSink, tmp_path: Path
) -> Iterator[Federation]:
    federation = Federation(db_url, prefixed[0], smtp_sink, START_LIST, tmp_path)
    try:
        yield federation
    finally:
        federation.close()


@pytest.mark.slow
def test_the_server_names_the_folders_written_without_its_prefix(
    fed: Federation, prefixed: tuple[ImapAccount, str], failing: set[str]
) -> None:
    """``done_folder: Processed`` and the default quarantine folder, as
    docs/contract.md ("Configuration (YAML)") writes them: the move is played and
    answered, the handled message lies in INBOX.Processed (INBOX/Processed), the
    failing one in INBOX.Quarantine."""
    sep = prefixed[1]
    assert fed.mapping["imap"]["done_folder"] == "Processed"  # type: ignore[index]
    fed.write(IVANOV, "1. e2-e4", at(5, 9), subject="[QT-1/1] move")
    assert poll(fed, at(5, 10)) == {"handled": 1}
    (move,) = mails(fed, SMITH, "move")
    assert move.message["X-Mailbot-Move"] == "e2e4"
    assert (fed.pending_in_inbox(), fed.in_folder(f"INBOX{sep}Processed")) == (0, 1)
    assert not fed.client.folder_exists("Processed")

    failing.add(SMITH)
    fed.write(SMITH, "1... e7-e5", at(5, 11), subject="[QT-1/1] move")
    outcomes = [poll(fed, at(5, 12 + h)) for h in range(3)]
    assert outcomes == [{"failed": 1}, {"failed": 1}, {"quarantined": 1}]
    assert (fed.pending_in_inbox(), fed.in_folder(f"INBOX{sep}Quarantine")) == (0, 1)
    assert not fed.client.folder_exists("Quarantine")
    code, out = run_cli(fed, "quarantine")
    assert code == 0 and out.rstrip().endswith(f"failed 3 times: {BROKEN}"), out


@pytest.mark.slow
def test_a_name_written_with_the_prefix_is_taken_as_it_is(
    db_url: str, prefixed: tuple[ImapAccount, str], smtp_sink: SmtpSink, tmp_path: Path
) -> None:
    """``INBOX.Обработано`` (a Cyrillic name, in modified UTF-7 on the wire) is not
    prefixed twice."""
    account, sep = prefixed
    done = f"INBOX{sep}Обработано"
    imap = dict(config_mapping(db_url, account, smtp_sink)["imap"])  # type: ignore[call-overload]
    imap["done_folder"] = done
    fed = Federation(db_url, account, smtp_sink, START_LIST, tmp_path, settings={"imap": imap})
    try:
        fed.write(IVANOV, "1. e2-e4", at(5, 9), subject="[QT-1/1] move")
        assert poll(fed, at(5, 10)) == {"handled": 1}
        assert fed.in_folder(done) == 1
        assert not fed.client.folder_exists(f"INBOX{sep}INBOX{sep}Обработано")
    finally:
        fed.close()


def test_the_namespace_is_read_from_the_server(prefixed: tuple[ImapAccount, str]) -> None:
    account, sep = prefixed
    with Mailbox(account) as mailbox:
        assert mailbox.folders.namespace.prefix == f"INBOX{sep}"
        assert (mailbox.folders.inbox, mailbox.folders.done) == ("INBOX", f"INBOX{sep}Processed")


def test_a_server_without_a_prefix_keeps_the_names(imap_account: ImapAccount) -> None:
    with Mailbox(imap_account) as mailbox:
        assert namespace_of(mailbox.client).prefix == ""
        assert mailbox.folders.done == "Processed"
        assert mailbox.client.folder_exists("Processed")


def test_a_folder_the_server_refuses_is_reported_by_its_key(cyrus_server: Cyrus) -> None:
    """Another user's folder: Cyrus refuses to create it, and the message names the
    key and the server's words, not the server as a whole."""
    account = cyrus_server.account()
    refused = ImapAccount(**{**vars(account), "done_folder": "user.someone.Done"})
    with pytest.raises(MailboxError) as caught:
        Mailbox(refused).connect()
    assert str(caught.value) == (
        'imap.done_folder: the server refused to create "user.someone.Done": '
        'Permission denied; "user." holds folders of other accounts: this one\'s lie '
        'under "INBOX."'
    )


def test_a_name_nested_with_another_separator_is_answered_with_the_server_s(
    cyrus_server: Cyrus,
) -> None:
    """Cyrus separates nested folders with ".": ``Processed/2026`` (as written on a
    server that nests with "/") is refused, and the line says how this server writes it."""
    account = cyrus_server.account()
    nested = ImapAccount(**{**vars(account), "done_folder": "Processed/2026"})
    with pytest.raises(MailboxError) as caught:
        Mailbox(nested).connect()
    assert str(caught.value) == (
        'imap.done_folder: the server refused to create "INBOX.Processed/2026": '
        'Invalid mailbox name; this server separates nested folders with "." '
        "(INBOX.Processed.2026)"
    )
    written = ImapAccount(**{**vars(account), "done_folder": "Processed.2026"})
    with Mailbox(written) as mailbox:
        assert mailbox.client.folder_exists("INBOX.Processed.2026")


def test_poll_names_the_refused_folder_s_key_not_the_server(
    db_url: str, cyrus_server: Cyrus, smtp_sink: SmtpSink, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    account = cyrus_server.account()
    mapping = config_mapping(db_url, account, smtp_sink)
    mapping["imap"]["quarantine_folder"] = "user.td.Quarantine"  # type: ignore[index]
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(mapping))
    migrated(db_url)
    assert main(["-c", str(path), "poll", "--once"]) == 1
    assert capsys.readouterr().err == (
        f"mailbot: {path}: imap.quarantine_folder: the server refused to create "
        '"user.td.Quarantine": Permission denied; "user." holds folders of other accounts: '
        'this one\'s lie under "INBOX."\n'
    )


def test_namespace_names() -> None:
    dovecot = Namespace("INBOX/", "/")
    assert dovecot.name("Processed") == "INBOX/Processed"
    assert dovecot.name("inbox/Processed") == "inbox/Processed"
    assert dovecot.name("INBOX") == "INBOX"
    assert Namespace("", ".").name("Processed") == "Processed"
    assert Namespace("INBOX.", ".", ("user.",)).outside("user.ann.Done")
    assert not Namespace("INBOX.", ".", ("user.",)).outside("Processed")


@pytest.mark.slow
def test_a_fresh_account_needs_no_folder_keys(cyrus_server: Cyrus) -> None:
    """``folder``, ``done_folder`` and ``quarantine_folder`` have defaults."""
    from mailbot.config import config_from_mapping

    account = cyrus_server.account()
    config = config_from_mapping(
        {
            "database": "sqlite://",
            "timezone": "UTC",
            "imap": {"host": account.host, "port": account.port, "security": "none",
                     "username": account.username, "password": account.password},
            "smtp": {"host": "127.0.0.1", "port": 25, "security": "none",
                     "sender": "bot@example.org"},
        },
        {},
    )  # fmt: skip
    with Mailbox(config.imap) as mailbox:
        assert (mailbox.folders.inbox, mailbox.folders.done, mailbox.folders.quarantine) == (
            "INBOX", "INBOX.Processed", "INBOX.Quarantine",
        )  # fmt: skip
