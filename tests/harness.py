"""A federation on real servers for the mail-path tests.

Players' messages are appended to the bot's Dovecot inbox with the
INTERNALDATE the scenario wants (as a mail server delivering them at that
time would); the bot reads them over IMAP and answers over SMTP to the
aiosmtpd listener, where the test reads what each player received.
"""

from __future__ import annotations

import datetime
import email.utils
import itertools
from collections.abc import Sequence
from email.message import EmailMessage
from pathlib import Path

import yaml
from imapclient import IMAPClient
from mailservers import ImapAccount, Received, SmtpSink
from sqlalchemy.orm import Session, sessionmaker

from mailbot.config import Config, config_from_mapping
from mailbot.daemon import PassReport, fixed_clock, poll_once
from mailbot.startlist import parse_start_list
from mailbot.store import import_start_list, make_engine, session_factory, upgrade

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


class Federation:
    """The bot's database, mailbox and SMTP listener, with one tournament."""

    def __init__(
        self,
        db_url: str,
        imap: ImapAccount,
        smtp: SmtpSink,
        start_list: str,
        tmp_path: Path | None = None,
    ) -> None:
        self.imap = imap
        self.smtp = smtp
        self.mapping = config_mapping(db_url, imap, smtp)
        self.config: Config = config_from_mapping(self.mapping, {})
        upgrade(db_url)
        self.engine = make_engine(db_url)
        self.sessions: sessionmaker[Session] = session_factory(self.engine)
        self.start_list = parse_start_list(start_list)
        with self.sessions() as session, session.begin():
            import_start_list(session, self.start_list, datetime.datetime(2026, 1, 1, tzinfo=UTC))
        self.config_path: Path | None = None
        if tmp_path is not None:
            self.config_path = tmp_path / "config.yaml"
            self.config_path.write_text(yaml.safe_dump(self.mapping))
        self.client = IMAPClient(imap.host, port=imap.port, ssl=False)
        self.client.login(imap.username, imap.password)

    def close(self) -> None:
        self.client.logout()
        self.engine.dispose()

    def email_of(self, player_id: str) -> str:
        return next(p.email for p in self.start_list.players if p.id == player_id)

    def deliver(self, raw: bytes, at: datetime.datetime) -> None:
        """Put a message into the bot's inbox as arriving at ``at``."""
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
        msg = EmailMessage()
        msg["From"] = sender
        msg["To"] = BOT
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
        self.deliver(msg.as_bytes(), at)
        return msg

    def poll(self, now: datetime.datetime) -> PassReport:
        return poll_once(self.config, self.sessions, fixed_clock(now))

    def received(self, address: str) -> list[Received]:
        return self.smtp.to(address)

    def last(self, address: str) -> Received:
        got = self.received(address)
        assert got, f"{address} received nothing"
        return got[-1]

    def pending_in_inbox(self) -> int:
        self.client.select_folder("INBOX")
        return len(self.client.search(["UNDELETED"]))


def text_of(item: Received) -> str:
    part = item.message.get_body(("plain",))
    assert part is not None
    return str(part.get_content())
