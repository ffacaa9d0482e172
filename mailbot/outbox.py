"""The durable outbox: every message the bot sends is first a table row.

A row is queued in the same transaction as the change that caused it, sent
later, retried with back-off while the server fails, and marked sent only
after the server accepted it (design.md, invariant 4). Its Message-ID is
fixed when it is queued, so a resend after a crash is recognisable.

>>> backoff(1), backoff(3), backoff(30)
(datetime.timedelta(seconds=60), datetime.timedelta(seconds=900), datetime.timedelta(seconds=21600))
"""

from __future__ import annotations

import dataclasses
import datetime
import email.utils
import logging
import uuid
from collections.abc import Mapping, Sequence
from email.charset import QP, Charset
from email.header import Header
from email.message import Message
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from mailbot.postman import Postman, SendError, compose_address
from mailbot.store import Outbox

log = logging.getLogger(__name__)

#: After this many failed attempts a row is given up (status ``failed``).
MAX_ATTEMPTS = 25
_STEPS = (60, 300, 900, 3600, 3 * 3600)
_CAP = 6 * 3600


def backoff(attempts: int) -> datetime.timedelta:
    """How long to wait after the ``attempts``-th failure."""
    seconds = _STEPS[attempts - 1] if 1 <= attempts <= len(_STEPS) else _CAP
    return datetime.timedelta(seconds=seconds)


def new_message_id(sender: str) -> str:
    """A fresh Message-ID (without angle brackets) in the sender's domain.

    >>> new_message_id("Bot <bot@fed.example>").endswith("@fed.example")
    True
    """
    domain = compose_address(sender).rpartition("@")[2] or "mailbot.invalid"
    return f"mailbot.{uuid.uuid4().hex}@{domain}"


def queue(
    session: Session,
    *,
    sender: str,
    to: Sequence[str],
    subject: str,
    text: str,
    html: str | None,
    event: str,
    now: datetime.datetime,
    cc: Sequence[str] = (),
    headers: Mapping[str, str] | None = None,
    game_id: int | None = None,
    inbound_id: int | None = None,
) -> Outbox:
    """Add a message to the outbox (in the caller's transaction)."""
    row = Outbox(
        message_id=new_message_id(sender),
        to_addrs=list(dict.fromkeys(to)),
        cc_addrs=[a for a in dict.fromkeys(cc) if a not in to],
        subject=subject,
        headers=dict(headers or {}),
        text_body=text,
        html_body=html,
        event=event,
        game_id=game_id,
        inbound_id=inbound_id,
        status="pending",
        attempts=0,
        next_attempt_at=now,
        created_at=now,
    )
    session.add(row)
    return row


def _header(value: str) -> str | Header:
    """Non-ASCII header text as RFC 2047 words (the legacy encoder keeps the spaces)."""
    return value if value.isascii() else Header(value, "utf-8")


def _address(value: str) -> str:
    name, address = email.utils.parseaddr(value)
    return email.utils.formataddr((name, address), charset="utf-8") if name else address


def compose(row: Outbox, sender: str) -> Message:
    """The message of an outbox row, ready for SMTP.

    Built with the legacy ``email.mime`` classes: the modern header folder
    drops the space between two encoded words of a long Cyrillic subject.
    """
    charset = Charset("utf-8")
    charset.body_encoding = QP
    msg: Message
    plain = MIMEText(row.text_body, "plain", charset)  # type: ignore[arg-type]
    if row.html_body:
        msg = MIMEMultipart("alternative")
        msg.attach(plain)
        msg.attach(MIMEText(row.html_body, "html", charset))  # type: ignore[arg-type]
    else:
        msg = plain
    msg["From"] = _address(sender)
    msg["To"] = ", ".join(row.to_addrs)
    if row.cc_addrs:
        msg["Cc"] = ", ".join(row.cc_addrs)
    msg["Subject"] = _header(row.subject)  # type: ignore[assignment]
    msg["Date"] = email.utils.format_datetime(row.created_at)
    msg["Message-ID"] = f"<{row.message_id}>"
    headers: dict[str, Any] = dict(row.headers)
    headers.setdefault("Auto-Submitted", "auto-generated")
    for name, value in headers.items():
        msg[name] = _header(str(value))  # type: ignore[assignment]
    return msg


@dataclasses.dataclass(frozen=True)
class Delivery:
    """What one pass over the outbox did."""

    sent: int = 0
    deferred: int = 0
    failed: int = 0


def deliver_due(
    sessions: sessionmaker[Session],
    postman: Postman,
    now: datetime.datetime,
    *,
    batch: int = 500,
) -> Delivery:
    """Send every pending row that is due, ``batch`` rows at a time over one connection.

    Each row is committed on its own, so a crash resends at most the row in
    flight (with its stable Message-ID).
    """
    total = Delivery()
    while True:
        with sessions() as session:
            ids = session.scalars(
                select(Outbox.id)
                .where(Outbox.status == "pending", Outbox.next_attempt_at <= now)
                .order_by(Outbox.id)
                .limit(batch)
            ).all()
        if not ids:
            return total
        with postman.batch():
            done = _deliver(sessions, postman, now, ids)
        total = Delivery(
            total.sent + done.sent, total.deferred + done.deferred, total.failed + done.failed
        )
        if len(ids) < batch:
            return total


def _deliver(
    sessions: sessionmaker[Session], postman: Postman, now: datetime.datetime, ids: Sequence[int]
) -> Delivery:
    sent = deferred = failed = 0
    for row_id in ids:
        with sessions() as session, session.begin():
            row = session.get(Outbox, row_id, with_for_update=True)
            if row is None or row.status != "pending":
                continue
            message = compose(row, postman.settings.sender)
            try:
                refused = postman.send(message, [*row.to_addrs, *row.cc_addrs])
            except SendError as exc:
                row.attempts += 1
                row.last_error = str(exc)[:2000]
                if exc.permanent or row.attempts >= MAX_ATTEMPTS:
                    row.status = "failed"
                    failed += 1
                    log.error("outbox %s given up: %s", row.message_id, exc)
                else:
                    row.next_attempt_at = now + backoff(row.attempts)
                    deferred += 1
                    log.warning("outbox %s deferred: %s", row.message_id, exc)
                continue
            row.status = "sent"
            row.sent_at = now
            row.attempts += 1
            if refused:
                row.last_error = f"refused: {refused}"
                log.warning("outbox %s: some recipients refused: %s", row.message_id, refused)
            sent += 1
    return Delivery(sent, deferred, failed)
