"""A federation on real servers for the mail-path tests.

Players' messages are appended to the bot's Dovecot inbox with the
INTERNALDATE the scenario wants (as a mail server delivering them at that
time would); the bot reads them over IMAP and answers over SMTP to the
aiosmtpd listener, where the test reads what each player received.
"""

from __future__ import annotations

import contextlib
import datetime
import email.utils
import imaplib
import io
import itertools
import subprocess
import time
import types
from collections.abc import Mapping, Sequence
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import yaml
from deskbench import dsn
from imapclient import IMAPClient
from imapclient.exceptions import LoginError
from mailservers import ImapAccount, Received, SmtpSink
from migrated import migrated
from sqlalchemy.orm import Session, sessionmaker

from mailbot.cli import main
from mailbot.config import Config, config_from_mapping
from mailbot.shell.passes import PassReport, fixed_clock, poll_once
from mailbot.store.engine import make_engine, session_factory
from mailbot.store.startlist import parse_start_list
from mailbot.store.tournaments import import_start_list

BOT = "bot@federation.example"
UTC = datetime.UTC

_ids = itertools.count(1)


def config_mapping(db_url: str, imap: ImapAccount, smtp: SmtpSink) -> dict[str, object]:
    return {
        "database": db_url,
        "timezone": "Europe/Sofia",
        "imap": {
            "host": imap.host,
            "port": imap.port,
            "security": "none",
            "username": imap.username,
            "password": imap.password,
            "folder": "INBOX",
            "done_folder": "Processed",
        },
        "smtp": {
            "host": "127.0.0.1",
            "port": smtp.port,
            "security": "none",
            "username": "",
            "password": "",
            "sender": f"Federation CC <{BOT}>",
        },
    }


def login(imap: ImapAccount, seconds: float = 10.0) -> IMAPClient:
    """Log in as ``imap``'s account, trying again for up to ``seconds`` while the
    server refuses (a server just started again may not take logins at once)."""
    deadline = time.monotonic() + seconds
    while True:
        client = IMAPClient(imap.host, port=imap.port, ssl=False)
        try:
            client.login(imap.username, imap.password)
            return client
        except LoginError:
            client.shutdown()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


class Federation:
    """The bot's database, mailbox and SMTP listener, with one tournament."""

    def __init__(
        self,
        db_url: str,
        imap: ImapAccount,
        smtp: SmtpSink,
        start_list: str,
        tmp_path: Path | None = None,
        *,
        policy: Mapping[str, object] | None = None,
        settings: Mapping[str, object] | None = None,
    ) -> None:
        self.imap = imap
        self.smtp = smtp
        self.mapping = config_mapping(db_url, imap, smtp)
        if policy is not None:
            self.mapping["policy"] = dict(policy)
        self.mapping.update(settings or {})
        self.config: Config = config_from_mapping(self.mapping, {})
        migrated(db_url)  # the schema of the migrations, copied from a template
        self.engine = make_engine(db_url)
        self.sessions: sessionmaker[Session] = session_factory(self.engine)
        self.start_list = parse_start_list(start_list)
        with self.sessions() as session, session.begin():
            import_start_list(session, self.start_list, datetime.datetime(2026, 1, 1, tzinfo=UTC))
        self.config_path: Path | None = None
        if tmp_path is not None:
            self.config_path = tmp_path / "config.yaml"
            self.config_path.write_text(yaml.safe_dump(self.mapping))
        self.client = login(imap)

    def close(self) -> None:
        with contextlib.suppress(imaplib.IMAP4.abort, imaplib.IMAP4.error, OSError):
            self.client.logout()  # a connection the server closed is closed
        self.engine.dispose()

    def email_of(self, player_id: str) -> str:
        return next(p.email for p in self.start_list.players if p.id == player_id)

    def deliver(self, raw: bytes, at: datetime.datetime) -> None:
        """Put a message into the bot's inbox as arriving at ``at``.

        The test's own connection is the delivering server's: if the IMAP server
        closed it (seen once on a loaded machine, while the bot's workers held
        theirs), it logs in again and delivers once more, as a mail server retries.
        """
        try:
            self.client.append("INBOX", raw, msg_time=at)
        except (imaplib.IMAP4.abort, OSError):
            self.client = login(self.imap)
            self.client.append("INBOX", raw, msg_time=at)

    def write(
        self,
        sender: str,
        body: str,
        at: datetime.datetime,
        *,
        subject: str = "move",
        reply_to: Received | None = None,
        headers: Sequence[tuple[str, str]] = (),
    ) -> EmailMessage:
        """A player writes to the bot; the message arrives at ``at``."""
        msg = self.compose(sender, body, at, subject=subject, reply_to=reply_to, headers=headers)
        self.deliver(msg.as_bytes(), at)
        return msg

    def compose(
        self,
        sender: str,
        body: str,
        at: datetime.datetime,
        *,
        subject: str = "move",
        reply_to: Received | None = None,
        headers: Sequence[tuple[str, str]] = (),
    ) -> EmailMessage:
        """The message :meth:`write` would deliver, not delivered: a reply goes to the
        replied message's ``Reply-To`` when it has one, else to the bot."""
        msg = EmailMessage()
        msg["From"] = sender
        answer_to = reply_to.message["Reply-To"] if reply_to is not None else None
        msg["To"] = str(answer_to) if answer_to else BOT
        msg["Subject"] = subject
        msg["Date"] = email.utils.format_datetime(at)
        msg["Message-ID"] = f"<m{next(_ids)}.{at.timestamp():.0f}@players.example>"
        if reply_to is not None:
            mid = str(reply_to.message["Message-ID"])
            msg["In-Reply-To"] = mid
            msg["References"] = mid
            if not subject.lower().startswith("re:"):
                msg.replace_header("Subject", f"Re: {reply_to.message['Subject']}")
        for name, value in headers:
            msg[name] = value
        msg.set_content(body)
        return msg

    def bounce(self, mail: Received, recipient: str, at: datetime.datetime, **options: Any) -> None:
        """The delivery report a receiving MTA sends back for ``mail`` (a DSN as Postfix
        writes it, :func:`deskbench.dsn`): to the envelope sender the SMTP listener
        recorded, arriving in the bot's inbox at ``at``."""
        returned = types.SimpleNamespace(
            subject=str(mail.message["Subject"]),
            message_id=str(mail.message["Message-ID"]).strip().strip("<>"),
            event=str(mail.message["X-Mailbot-Event"]),
        )
        raw = dsn(to=mail.envelope_from, recipient=recipient, returned=returned, when=at, **options)
        self.deliver(raw, at)

    def poll(self, now: datetime.datetime) -> PassReport:
        return poll_once(self.config, self.sessions, fixed_clock(now))

    def received(self, address: str) -> list[Received]:
        return self.smtp.to(address)

    def last(self, address: str) -> Received:
        got = self.received(address)
        assert got, f"{address} received nothing"
        return got[-1]

    def pending_in_inbox(self) -> int:
        return self.in_folder("INBOX")

    def in_folder(self, folder: str) -> int:
        """How many messages lie in ``folder`` of the bot's mailbox (0 if it does not exist).

        The test's own connection looks as a mail client would: if the server closed
        it (seen on a loaded machine: "Server shutting down" to the test's session
        while the bot's own went on), it logs in again and looks once more."""
        try:
            return self._count(folder)
        except (imaplib.IMAP4.abort, OSError):
            self.client = login(self.imap)
            return self._count(folder)

    def _count(self, folder: str) -> int:
        if not self.client.folder_exists(folder):
            return 0
        self.client.select_folder(folder)
        return len(self.client.search(["UNDELETED"]))


def mailbot(*argv: str) -> subprocess.CompletedProcess[str]:
    """The command line ``mailbot ARGV`` run by its main function in this process, as a
    finished process reports it (exit status, what it printed, what it logged), without
    a second of the process's imports: for commands that end, which the tests read
    after; a daemon or a process the test signals or talks to runs as a process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(list(argv), stdout=out)
    return subprocess.CompletedProcess(["mailbot", *argv], code, out.getvalue(), err.getvalue())


def text_of(item: Received) -> str:
    part = item.message.get_body(("plain",))
    assert part is not None
    return str(part.get_content())
