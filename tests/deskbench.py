"""The desk on a real database without the mail servers: messages go straight in.

For the behaviour of the desk itself (what it records, applies and answers),
the IMAP round trip adds nothing but time: a :class:`Bench` hands raw
messages to :meth:`mailbot.desk.pipeline.Desk.receive` as the inbox would (with a
folder, UIDVALIDITY, UID and arrival time) and reads the outbox table for the
answers. The mail path itself is tested on Dovecot and aiosmtpd elsewhere.
"""

from __future__ import annotations

import contextlib
import datetime
import email.header
import email.policy
import email.utils
import itertools
import types
from collections.abc import Callable, Iterator, Sequence
from email.message import EmailMessage
from typing import Protocol

from migrated import copy_database, migrated
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from mailbot.desk.pipeline import Desk, Outcome, Policy
from mailbot.mail.inbox import Fetched
from mailbot.shell.delivery import deliver_due
from mailbot.store.engine import make_engine, session_factory
from mailbot.store.models import Game, InboundMessage, Outbox, Tournament
from mailbot.store.startlist import parse_start_list
from mailbot.store.tournaments import import_start_list

BOT = "bot@federation.example"
TD = "td@federation.example"
AUTHSERV = "mx.federation.example"
UTC = datetime.UTC

START_LIST = """
index: PX-1
name: Poison cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: en
notation: en
director: {name: Tom Director, email: td@federation.example}
players:
  - {id: white, name: Walter White, email: white@example.org}
  - {id: black, name: Bella Black, email: black@example.org}
  - {id: grey, name: Gary Grey, email: grey@example.org}
  - {id: ivan, name: Иван Иванов, email: ivan@пример.бг, language: bg, notation: bg-cyrillic}
games:
  - {white: white, black: black}
  - {white: grey, black: ivan}
"""
WHITE, BLACK, GREY, IVAN = (
    "white@example.org",
    "black@example.org",
    "grey@example.org",
    "ivan@пример.бг",
)


def at(day: int, hour: int = 9) -> datetime.datetime:
    return datetime.datetime(2026, 3, day, hour, tzinfo=UTC)


class Bench:
    """A database with one tournament and a desk that reads straight from bytes."""

    def __init__(
        self,
        db_url: str,
        start_list: str = START_LIST,
        *,
        authserv_id: str | None = None,
        require_dmarc: bool = False,
        copy_of: Bench | None = None,
    ) -> None:
        self.url = db_url
        if copy_of is None:
            migrated(db_url)  # the schema of the migrations, copied from a template
        else:
            copy_database(copy_of.url, db_url)
        self.engine = make_engine(db_url)
        self.sessions: sessionmaker[Session] = session_factory(self.engine)
        if copy_of is None:
            with self.sessions.begin() as session:
                import_start_list(session, parse_start_list(start_list), at(1, 0))
        self.desk = Desk(
            self.sessions,
            Policy(
                sender=f"Federation CC <{BOT}>",
                authserv_id=authserv_id,
                require_dmarc=require_dmarc,
                timezone="Europe/Sofia",
            ),
        )
        #: the UID and Message-ID number of the last message handed in
        self.uid, self.number = (0, 0) if copy_of is None else (copy_of.uid, copy_of.number)

    def copy(self, db_url: str) -> Bench:
        """A bench on the new database ``db_url`` with this one's rows, as if its
        messages had been sent there: the next UID and Message-ID follow on. A state
        that takes many messages is played once and copied to each test that needs it.

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     played = Bench(f"sqlite:///{folder}/played.db")
        ...     _ = played.send(WHITE, "1. e2-e4", at(2), subject="[PX-1/1] move")
        ...     copied = played.copy(f"sqlite:///{folder}/copy.db")
        ...     played.close()
        ...     print(copied.plies(1), copied.uid, [row.to_addrs for row in copied.outbox()])
        ...     copied.close()
        ['e2e4'] 1 [['black@example.org'], ['white@example.org']]
        """
        return Bench(
            db_url,
            authserv_id=self.desk.policy.authserv_id,
            require_dmarc=self.desk.policy.require_dmarc,
            copy_of=self,
        )

    def close(self) -> None:
        self.engine.dispose()

    def message(
        self,
        sender: str,
        body: str,
        *,
        subject: str = "move",
        headers: Sequence[tuple[str, str]] = (),
        reply_to: Outbox | None = None,
        message_id: str | None = None,
        to: str | None = None,
    ) -> bytes:
        """A plain message from ``sender``, as a mail client writes it: a reply goes to
        the replied message's ``Reply-To`` when it has one, else to the bot (unless
        ``to`` says otherwise)."""
        msg = EmailMessage()
        msg["From"] = sender
        answer_to = reply_to.headers.get("Reply-To") if reply_to is not None else None
        msg["To"] = to or answer_to or BOT
        msg["Subject"] = subject
        msg["Date"] = email.utils.format_datetime(at(2))
        if message_id is None:
            self.number += 1
            message_id = f"<b{self.number}@players.example>"
        msg["Message-ID"] = message_id
        if reply_to is not None:
            msg["In-Reply-To"] = f"<{reply_to.message_id}>"
            msg["References"] = f"<{reply_to.message_id}>"
        for name, value in headers:
            msg[name] = value
        msg.set_content(body)
        # raw UTF-8 where an address needs it, as SMTPUTF8 mail arrives (RFC 6532)
        return msg.as_bytes(policy=email.policy.SMTPUTF8)

    def receive(self, raw: bytes, when: datetime.datetime) -> Outcome:
        """The desk handles ``raw`` as arriving at ``when``, at a new UID."""
        self.uid += 1
        return self.receive_at(raw, when, self.uid)

    def receive_at(self, raw: bytes, when: datetime.datetime, uid: int) -> Outcome:
        fetched = Fetched("INBOX", 1, uid, raw, when)
        return self.desk.receive(fetched, when + datetime.timedelta(minutes=1))

    def send(self, sender: str, body: str, when: datetime.datetime, **kwargs: object) -> Outcome:
        return self.receive(self.message(sender, body, **kwargs), when)  # type: ignore[arg-type]

    def outbox(self, to: str | None = None, event: str | None = None) -> list[Outbox]:
        """Queued mail (to ``to``, of ``event``), oldest first."""
        with self.sessions() as session:
            rows = session.scalars(select(Outbox).order_by(Outbox.id)).all()
        return [
            r
            for r in rows
            if (to is None or to in [*r.to_addrs, *r.cc_addrs])
            and (event is None or r.event == event)
        ]

    def inbound(self) -> list[InboundMessage]:
        with self.sessions() as session:
            return list(session.scalars(select(InboundMessage).order_by(InboundMessage.id)))

    def last_inbound(self) -> InboundMessage:
        return self.inbound()[-1]

    def plies(self, number: int) -> list[str]:
        """The moves of game ``number`` in UCI."""
        with self.sessions() as session:
            g = session.scalars(select(Game).join(Tournament).where(Game.number == number)).one()
            return [m.uci for m in g.moves]

    def game(self, number: int) -> tuple[str | None, int]:
        """Result and penalty days of game ``number``."""
        with self.sessions() as session:
            g = session.scalars(select(Game).where(Game.number == number)).one()
            return g.result, sum(p.days for p in g.penalties)


# ---------------------------------------------------------------------------
# Sending and delivery reports


class Relay:
    """Stands for the SMTP server in the desk's tests: accepts every message and keeps
    its envelope (the return path above all) and bytes, as the aiosmtpd sink does."""

    def __init__(self, sender: str = f"Federation CC <{BOT}>") -> None:
        self.settings = types.SimpleNamespace(sender=sender)
        self.sent: list[tuple[str, list[str], bytes]] = []

    def available(self) -> bool:
        return True

    def pause(self) -> None:
        pass

    @contextlib.contextmanager
    def batch(self) -> Iterator[Relay]:
        yield self

    def send(
        self,
        compose: Callable[[bool], bytes],
        recipients: Callable[[bool], Sequence[str]],
        *,
        envelope_from: str | None = None,
    ) -> dict[str, str]:
        self.sent.append((envelope_from or BOT, list(recipients(True)), compose(True)))
        return {}

    def envelope_of(self, row: Outbox) -> str:
        """The return path row ``row`` went with."""
        marker = f"<{row.message_id}>".encode()
        return next(path for path, _to, data in self.sent if marker in data)


def deliver(bench: Bench, relay: Relay, now: datetime.datetime, **options: object) -> int:
    """Send what the bench's outbox has due through ``relay``; how many went."""
    done = deliver_due(bench.sessions, relay, now, **options)  # type: ignore[arg-type]
    return done.sent


_reports = itertools.count(1)


class Returned(Protocol):
    """What a report returns of the message it is about (an outbox row, a received mail)."""

    subject: str
    message_id: str
    event: str


def dsn(
    *,
    to: str,
    recipient: str,
    returned: Returned | None = None,
    action: str = "failed",
    status: str = "5.1.1",
    reason: str = "Recipient address rejected: User unknown in virtual mailbox table",
    style: str = "postfix",
    when: datetime.datetime | None = None,
    message_id: str | None = None,
    charset: str = "us-ascii",
) -> bytes:
    """A delivery status notification (RFC 3464) as Postfix or Exim write them, delivered
    to ``to`` (in To and Delivered-To, as an MTA delivers it) about ``recipient``,
    returning the headers of ``returned``. Its human-readable part declares ``charset``;
    under any other label than ``us-ascii`` it ends with a line of 8-bit text (a
    Bulgarian server's words in windows-1251, as a misconfigured MTA sends them)."""
    when = when or at(3)
    mta = "mx.example.org"
    number = next(_reports)
    boundary = f"{number:08X}.{style}/{mta}"
    code = f"{'550' if status.startswith('5') else '451'} {status}"
    diagnostic = f"smtp; {code} <{recipient}>: {reason}"
    head = (
        f"Return-Path: <>\r\nDelivered-To: {to}\r\nX-Original-To: {to}\r\n"
        f"Date: {email.utils.format_datetime(when)}\r\n"
        f"Message-ID: <{message_id or f'{number:08X}.report@{mta}'}>\r\n"
        f"To: {to}\r\nAuto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\n"
        "Content-Type: multipart/report; report-type=delivery-status;\r\n"
        f'\tboundary="{boundary}"\r\n'
    )
    if style == "exim":
        head += (
            "From: Mail Delivery System <Mailer-Daemon@mx.example.org>\r\n"
            "Subject: Mail delivery failed: returning message to sender\r\n"
            + (f"X-Failed-Recipients: {recipient}\r\n" if action == "failed" else "")
        )
        notice = (
            "This message was created automatically by mail delivery software.\r\n\r\n"
            "A message that you sent could not be delivered to one or more of its\r\n"
            "recipients. This is a permanent error. The following address(es) failed:\r\n\r\n"
            f"  {recipient}\r\n    host {mta} [192.0.2.25]\r\n"
            f"    SMTP error from remote mail server after RCPT TO:<{recipient}>:\r\n"
            f"    {code} <{recipient}>: {reason}\r\n"
        )
        description = ""
    else:
        subject = (
            "Undelivered Mail Returned to Sender"
            if action == "failed"
            else "Delayed Mail (still being retried)"
        )
        head += f"From: MAILER-DAEMON@{mta} (Mail Delivery System)\r\nSubject: {subject}\r\n"
        notice = (
            f"This is the mail system at host {mta}.\r\n\r\n"
            + (
                "I'm sorry to have to inform you that your message could not\r\n"
                "be delivered to one or more recipients. It's attached below.\r\n\r\n"
                if action == "failed"
                else "####################################################################\r\n"
                "# THIS IS A WARNING ONLY.  YOU DO NOT NEED TO RESEND YOUR MESSAGE. #\r\n"
                "####################################################################\r\n\r\n"
                "Your message could not be delivered for more than 4 hour(s).\r\n"
                "It will be retried until it is 5 day(s) old.\r\n\r\n"
            )
            + "                   The mail system\r\n\r\n"
            f"<{recipient}>: host {mta}[192.0.2.25] said: {code} <{recipient}>:\r\n"
            f"    {reason} (in reply to RCPT TO command)\r\n"
        )
        description = "Content-Description: Notification\r\n"
    status_part = (
        f"Reporting-MTA: dns; {mta}\r\nArrival-Date: {email.utils.format_datetime(when)}\r\n\r\n"
        f"Final-Recipient: rfc822; {recipient}\r\nOriginal-Recipient: rfc822;{recipient}\r\n"
        f"Action: {action}\r\nStatus: {status}\r\nRemote-MTA: dns; {mta}\r\n"
        f"Diagnostic-Code: {diagnostic}\r\n"
    )
    returned_headers = ""
    if returned is not None:
        returned_headers = (
            f"Return-Path: <{to}>\r\nFrom: Federation CC <{BOT}>\r\nTo: {recipient}\r\n"
            f"Subject: {email.header.Header(returned.subject, 'utf-8').encode()}\r\n"
            f"Message-ID: <{returned.message_id}>\r\n"
            f"X-Mailbot-Event: {returned.event}\r\n"
        )
    kind = "text/rfc822-headers" if style == "exim" else "message/rfc822"
    parts = [
        f"{description}Content-Type: text/plain; charset={charset}\r\n\r\n{notice}",
        f"Content-Description: Delivery report\r\nContent-Type: message/delivery-status\r\n\r\n"
        f"{status_part}",
        f"Content-Description: Undelivered Message Headers\r\nContent-Type: {kind}\r\n\r\n"
        f"{returned_headers}\r\n",
    ]
    body = "This is a MIME-encapsulated message.\r\n\r\n" + "".join(
        f"--{boundary}\r\n{part}\r\n" for part in parts
    )
    raw = (head + "\r\n" + body + f"--{boundary}--\r\n").encode("ascii")
    if charset == "us-ascii":
        return raw
    local = "Писмото не е доставено.\r\n".encode("cp1251")
    return raw.replace(notice.encode("ascii"), notice.encode("ascii") + local, 1)
