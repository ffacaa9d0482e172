"""Xfcc passwords: made on the word ``xfcc``, kept only as a slow hash, checked at
each request, and the lockout of an address that guesses.

A password is ``hashlib.scrypt`` with a salt of its own (``scrypt$N$r$p$salt$hash``);
a new one replaces the old. :data:`TRIES` refused logins of one address within
:data:`WINDOW` pause it for :data:`PAUSE`: while paused even the right
password is refused, and nothing more is counted (docs/contract.md, "Players'
chess programs"). A password is never logged; its one copy in clear is the
bot's copy of the mail that carried it, until the first login with it clears it.

>>> row = hash_password("correct horse", salt=b"0123456789abcdef", cost=2)
>>> matches(row, "correct horse"), matches(row, "wrong")
(True, False)
"""

from __future__ import annotations

import base64
import datetime
import enum
import hashlib
import hmac
import secrets

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from mailbot.mail.addresses import normal_address
from mailbot.store.models import Outbox, XfccPassword, XfccRefusal

#: Refused logins that pause an address ...
TRIES = 10
#: ... when they fall within this time ...
WINDOW = datetime.timedelta(minutes=10)
#: ... for this long after the last of them.
PAUSE = datetime.timedelta(minutes=15)
#: scrypt's cost (N = 2 ** COST): about 16 MB and a few tens of milliseconds.
COST = 14
#: Letters of a new password (no 0/O, 1/l/I: it is read off a mail).
ALPHABET = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
LENGTH = 16
#: What stands for a password in a mail once it has been used.
HIDDEN = "********"


class Login(enum.Enum):
    """What a login came to."""

    ACCEPTED = "accepted"
    REFUSED = "refused"
    PAUSED = "paused"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def hash_password(password: str, *, salt: bytes | None = None, cost: int = COST) -> str:
    """The stored form of ``password``: scrypt with a salt of its own."""
    salt = salt if salt is not None else secrets.token_bytes(16)
    n, r, p = 2**cost, 8, 1
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=32)
    return f"scrypt${n}${r}${p}${_b64(salt)}${_b64(digest)}"


def matches(stored: str, password: str) -> bool:
    """Whether ``password`` is the one ``stored`` was made from (in constant time)."""
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        found = hashlib.scrypt(
            password.encode("utf-8"),
            salt=base64.b64decode(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=32,
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(found, base64.b64decode(digest))


def new_password() -> str:
    """A fresh password, to be mailed once."""
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def set_password(
    session: Session,
    address: str,
    password: str,
    now: datetime.datetime,
    mailed_for: int | None = None,
) -> None:
    """``password`` is ``address``'s from now on; the previous one stops working.
    ``mailed_for``: the message whose answer carries it (:func:`log_in` clears it there)."""
    key = normal_address(address)
    row = session.get(XfccPassword, key)
    if row is None:
        row = XfccPassword(address=key, hashed=hash_password(password), created_at=now)
        session.add(row)
    else:
        row.hashed, row.created_at = hash_password(password), now
    row.mailed_for = mailed_for


def _clear_mailed(session: Session, row: XfccPassword, password: str) -> None:
    """The password out of the sent answer that carried it: from the first login
    with it on, the store holds it nowhere in clear."""
    sent = session.scalars(
        select(Outbox).where(Outbox.inbound_id == row.mailed_for, Outbox.status == "sent")
    ).all()
    for mail in sent:
        mail.text_body = mail.text_body.replace(password, HIDDEN)
        if mail.html_body is not None:
            mail.html_body = mail.html_body.replace(password, HIDDEN)
    if sent:
        row.mailed_for = None


def paused_until(
    session: Session, address: str, now: datetime.datetime
) -> datetime.datetime | None:
    """When the pause of ``address`` ends, if it is paused at ``now``."""
    since = now - WINDOW - PAUSE
    times = list(
        session.scalars(
            select(XfccRefusal.at)
            .where(XfccRefusal.address == normal_address(address), XfccRefusal.at > since)
            .order_by(XfccRefusal.at)
        )
    )
    for first, last in zip(times, times[TRIES - 1 :], strict=False):
        if last - first <= WINDOW and now < last + PAUSE:
            return last + PAUSE
    return None


def log_in(session: Session, address: str, password: str, now: datetime.datetime) -> Login:
    """Check ``address``'s ``password`` at ``now``; a refusal is counted."""
    key = normal_address(address)
    if paused_until(session, key, now) is not None:
        return Login.PAUSED
    row = session.get(XfccPassword, key)
    if row is not None and matches(row.hashed, password):
        if row.mailed_for is not None:
            _clear_mailed(session, row, password)
        return Login.ACCEPTED
    session.execute(delete(XfccRefusal).where(XfccRefusal.at < now - datetime.timedelta(days=1)))
    session.add(XfccRefusal(address=key, at=now))
    return Login.REFUSED
