"""Xfcc passwords: made on the word ``xfcc``, kept only as a slow hash, checked at
each request, and the lockout of an address that guesses.

A password is ``hashlib.scrypt`` with a salt of its own (``scrypt$N$r$p$salt$hash``);
a new one replaces the old. :data:`TRIES` refused logins of one address within
:data:`WINDOW` pause it for :data:`PAUSE`: while paused even the right
password is refused, and nothing more is counted (docs/contract.md, "Players'
chess programs"). A password is never logged; its one copy in clear is the
bot's copy of the mail that carried it, until the mail server has taken that
mail (:func:`hide_sent`) or, for a copy sent before this was so, until the
first login with it; a password replaced before its answer went is hidden in
that answer, which then carries none (:func:`set_password`).

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
import re
import secrets
from collections.abc import Sequence

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from mailbot.mail.addresses import normal_address
from mailbot.store.kinds import MailEvent, OutboxStatus
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
#: What stands for a password in the bot's copy of a mail once it has gone.
HIDDEN = "********"
#: A word of a password's form: LENGTH letters of ALPHABET, none beside them.
_WRITTEN = re.compile(rf"(?<![{ALPHABET}])[{ALPHABET}]{{{LENGTH}}}(?![{ALPHABET}])")


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
    ``mailed_for``: the message whose answer carries it (:func:`log_in` clears it there).

    The previous password, if the answer that carries it still shows it (not yet
    sent: the player asked twice in a pass), is hidden there at once: no copy keeps
    a password that no longer works, and the player is mailed none."""
    key = normal_address(address)
    row = session.get(XfccPassword, key)
    if row is None:
        row = XfccPassword(address=key, hashed=hash_password(password), created_at=now)
        session.add(row)
    else:
        if row.mailed_for is not None and row.mailed_for != mailed_for:
            _hide_superseded(session, row)
        row.hashed, row.created_at = hash_password(password), now
    row.mailed_for = mailed_for


def _hide_superseded(session: Session, row: XfccPassword) -> None:
    """Hide ``row``'s password, about to be replaced, in the answer that carries it,
    sent or not: its hash is known only until the new one takes its place."""
    carriers = session.scalars(
        select(Outbox).where(Outbox.inbound_id == row.mailed_for, Outbox.event == MailEvent.NOTICE)
    ).all()
    for mail in carriers:
        _hide_matching(mail, row.hashed)


def written(text: str) -> list[str]:
    """The words of ``text`` that have a password's form, each once.

    >>> written("Password: k7QmZp3xRtWv9Hcd\\nUser: ivan@example.org (k7QmZp3xRtWv9Hcd)")
    ['k7QmZp3xRtWv9Hcd']
    """
    return list(dict.fromkeys(_WRITTEN.findall(text)))


def hide_sent(session: Session, sent: Sequence[Outbox]) -> None:
    """Hide the password in the bot's copy of each mail of ``sent`` (just taken by the
    server) that carried one, the answer to the word ``xfcc``: from then on the bot's
    copy shows the password no more.

    The store keeps only the password's hash, so the copy's words of a password's
    form are checked against it, and the one that matches gives way to :data:`HIDDEN`.
    The password's row lets go of the answer only if it still names it: a new
    password made meanwhile (and not yet committed) names its own answer.
    """
    carriers: dict[int, list[Outbox]] = {}
    for mail in sent:
        if mail.inbound_id is not None and mail.event == MailEvent.NOTICE:
            carriers.setdefault(mail.inbound_id, []).append(mail)
    if not carriers:
        return
    query = select(XfccPassword.address, XfccPassword.hashed, XfccPassword.mailed_for).where(
        XfccPassword.mailed_for.in_(carriers)
    )
    for address, hashed, mailed_for in session.execute(query).all():
        if mailed_for is None:  # the query's own filter: never so
            continue
        for mail in carriers[mailed_for]:
            if _hide_matching(mail, hashed):
                session.execute(
                    update(XfccPassword)
                    .where(XfccPassword.address == address, XfccPassword.mailed_for == mailed_for)
                    .values(mailed_for=None)
                )


def _hide_matching(mail: Outbox, hashed: str) -> bool:
    """Hide in ``mail`` the word of a password's form that ``hashed`` was made from;
    whether there was one."""
    password = next((w for w in written(mail.text_body) if matches(hashed, w)), None)
    if password is not None:
        _hide(mail, password)
    return password is not None


def _hide(mail: Outbox, password: str) -> None:
    mail.text_body = mail.text_body.replace(password, HIDDEN)
    if mail.html_body is not None:
        mail.html_body = mail.html_body.replace(password, HIDDEN)


def _clear_mailed(session: Session, row: XfccPassword, password: str) -> None:
    """The password out of the sent answer that carried it, if the sending left it
    there (a copy sent by an earlier version): from the first login with it on, the
    store holds it nowhere in clear."""
    sent = session.scalars(
        select(Outbox).where(
            Outbox.inbound_id == row.mailed_for, Outbox.status == OutboxStatus.SENT
        )
    ).all()
    for mail in sent:
        _hide(mail, password)
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
