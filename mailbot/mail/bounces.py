"""Delivery reports: the return path that names a sent message, and what a report says.

Every message the bot sends has its own envelope sender (VERP): the bot's
address, or ``bounce_address``, with ``+b-ROW-CHECK`` in its local part, where
``ROW`` is the outbox row and ``CHECK`` a random value stored on the row
(:func:`new_check`). A delivery report goes back to that address, so the
address it was delivered to names the row without trusting the report's body;
the check value makes a report about a row nobody was given impossible to
forge by counting row numbers. The tag cannot be taken for an order key
(``+o-``, :mod:`mailbot.mail.orderkeys`) nor for a player's secret: ``b-``, digits, a
dash and exactly :data:`CHECK_LENGTH` base32 letters, and it is only looked for
in machine mail.

>>> path = return_path("Federation CC <bot@federation.example>", 42, "abcdefghijklmnop")
>>> path
'bot+b-42-abcdefghijklmnop@federation.example'
>>> tag_in([path])
Tag(row=42, check='abcdefghijklmnop')
>>> tag_in(["bot+o-" + "k" * 26 + "@federation.example"]) is None
True

:func:`read_report` reads a report's bytes with flufl.bounce (Mailman's
detectors: RFC 3464 DSNs and the common non-standard formats) and returns
which recipients failed, for good or for now, with the server's reason, the
addresses it was delivered to, and the Message-IDs of the returned message
(for services that rewrite the envelope sender). Nothing here touches the
store: :mod:`mailbot.store.outbox` matches a report to its row.
"""

from __future__ import annotations

import dataclasses
import email.utils
import logging
import re
import secrets
from collections.abc import Iterable, Iterator
from email import policy as email_policy
from email.message import Message
from email.parser import BytesParser, HeaderParser

import flufl.bounce

from mailbot.mail.addresses import normal_address

__all__ = [
    "CHECK_LENGTH",
    "Failure",
    "Report",
    "Tag",
    "new_check",
    "read_report",
    "return_path",
    "tag_in",
]

#: Characters of a check value: 16 of base32, 80 bits.
CHECK_LENGTH = 16
_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
_TAG = "+b-"
_RE_TAGGED = re.compile(
    rf"^(?P<local>[^@]+)\+b-(?P<row>[1-9][0-9]{{0,9}})-(?P<check>[a-z2-7]{{{CHECK_LENGTH}}})@[^@]+$"
)
#: The highest row id (the store's ids are 32-bit integers): a tag past it names no row.
_MAX_ROW = 2**31 - 1
#: The longest local part SMTP carries (RFC 5321 4.5.3.1.1).
_MAX_LOCAL = 64
#: The header fields that say to which address a report was delivered.
_DELIVERED = ("to", "delivered-to", "x-original-to", "envelope-to", "x-envelope-to")
_RE_MESSAGE_ID = re.compile(r"^[ \t]*message-id:[ \t]*<([^<>\s]{1,250})>", re.I | re.M)
_RE_SPACE = re.compile(r"\s+")
_MAX_REASON = 500

# the detectors log every step at INFO, and a detector's crash with its traceback: the
# bot reads the report as no report and says so in its own words
logging.getLogger("flufl.bounce").setLevel(logging.CRITICAL + 1)


@dataclasses.dataclass(frozen=True)
class Tag:
    """The outbox row a return path names, and the check value it shows."""

    row: int
    check: str


@dataclasses.dataclass(frozen=True)
class Failure:
    """One recipient a report says the message did not reach.

    ``permanent``: the server gave up (``Action: failed``, a 5.x.x status); else
    the delivery is only delayed (``Action: delayed``, 4.x.x) and may still succeed.
    """

    address: str
    permanent: bool
    reason: str


@dataclasses.dataclass(frozen=True)
class Report:
    """What a delivery report says (see :func:`read_report`)."""

    failures: tuple[Failure, ...] = ()
    #: The addresses the report was delivered to (To, Delivered-To, X-Original-To...).
    delivered_to: tuple[str, ...] = ()
    #: The Message-IDs of the returned message (its part, or the report's thread).
    message_ids: tuple[str, ...] = ()

    @property
    def permanent(self) -> tuple[Failure, ...]:
        return tuple(f for f in self.failures if f.permanent)


def new_check() -> str:
    """A fresh check value: 16 lower-case base32 characters from :mod:`secrets`.

    >>> len(new_check()), new_check() == new_check()
    (16, False)
    """
    return "".join(secrets.choice(_ALPHABET) for _ in range(CHECK_LENGTH))


def return_path(base: str, row: int, check: str) -> str:
    """The envelope sender of outbox row ``row``: ``base`` (``Name <address>`` or an
    address) with ``+b-ROW-CHECK`` in its local part; ``base`` itself when the
    local part would grow past what SMTP carries.

    >>> return_path("bounces@federation.example", 7, "q" * 16)
    'bounces+b-7-qqqqqqqqqqqqqqqq@federation.example'
    >>> return_path("x" * 60 + "@federation.example", 7, "q" * 16).startswith("xxx")
    True
    """
    address = email.utils.parseaddr(base)[1] or base
    local, at, domain = address.rpartition("@")
    tagged = f"{local}{_TAG}{row}-{check}"
    if not at or len(tagged) > _MAX_LOCAL:
        return address
    return f"{tagged}@{domain}"


def tag_in(addresses: Iterable[str]) -> Tag | None:
    """The first return-path tag among ``addresses`` (any case), or None.

    >>> tag_in(["Bot+B-7-QQQQQQQQQQQQQQQQ@Federation.example"])
    Tag(row=7, check='qqqqqqqqqqqqqqqq')
    >>> tag_in(["bot+b-7-short@federation.example", "player+secret1@example.org"]) is None
    True
    >>> tag_in(["bot+b-99999999999-" + "q" * 16 + "@federation.example"]) is None
    True
    """
    for address in addresses:
        found = _RE_TAGGED.match(address.strip().lower())
        if found is not None and int(found["row"]) <= _MAX_ROW:
            return Tag(int(found["row"]), found["check"])
    return None


# ---------------------------------------------------------------------------
# Reading a report


def read_report(raw: bytes) -> Report:
    """What the delivery report ``raw`` says; an empty :class:`Report` for anything else.

    Never raises: a message the detectors cannot read reports no failure.

    >>> raw = (b"From: MAILER-DAEMON@mx.example\\r\\nTo: bot+b-3-" + b"a" * 16 +
    ...        b"@fed.example\\r\\nX-Failed-Recipients: ann@example.org\\r\\n"
    ...        b"Subject: Mail delivery failed\\r\\n\\r\\n  ann@example.org\\r\\n"
    ...        b"    550 5.1.1 User unknown\\r\\n")
    >>> report = read_report(raw)
    >>> report.failures
    (Failure(address='ann@example.org', permanent=True, reason='550 5.1.1 User unknown'),)
    >>> tag_in(report.delivered_to)
    Tag(row=3, check='aaaaaaaaaaaaaaaa')
    >>> read_report(b"\\xff\\xfe not mail at all")
    Report(failures=(), delivered_to=(), message_ids=())
    """
    try:
        message = BytesParser(policy=email_policy.compat32).parsebytes(raw)
        return _read(message)
    except (RecursionError, MemoryError, Exception):
        return Report()


def _read(message: Message) -> Report:
    try:
        temporary, permanent = flufl.bounce.all_failures(message)
    except Exception:
        temporary, permanent = frozenset(), frozenset()
    failed = {_address(a): True for a in sorted(permanent)}
    for a in sorted(temporary):
        failed.setdefault(_address(a), False)
    failed.pop("", None)
    blocks = _status_blocks(message)
    texts = list(_texts(message))
    failures = tuple(
        Failure(address, permanent, _reason(address, blocks, texts))
        for address, permanent in failed.items()
    )
    delivered = [
        normal_address(a)
        for _, a in email.utils.getaddresses(
            [str(v) for name in _DELIVERED for v in message.get_all(name, [])]
        )
        if a
    ]
    return Report(failures, tuple(dict.fromkeys(delivered))[:20], _returned_ids(message, texts))


def _address(value: bytes) -> str:
    text = value.decode("ascii", "replace").strip().strip("<>")
    return normal_address(text) if "@" in text else ""


def _clean(value: str) -> str:
    return _RE_SPACE.sub(" ", value).strip()[:_MAX_REASON]


def _parts(message: Message) -> Iterator[Message]:
    """Every part, at most 200 (a report has a handful)."""
    for count, part in enumerate(message.walk()):
        if count >= 200:
            return
        yield part


def _status_blocks(message: Message) -> dict[str, str]:
    """The reason of each recipient of the message/delivery-status parts: the
    Diagnostic-Code, else the Status (RFC 3464 2.3)."""
    reasons: dict[str, str] = {}
    for part in _parts(message):
        if part.get_content_type() != "message/delivery-status" or not part.is_multipart():
            continue
        payload = part.get_payload()
        for block in payload if isinstance(payload, list) else ():
            if not isinstance(block, Message):
                continue
            recipient = str(block.get("final-recipient", "") or block.get("original-recipient", ""))
            address = _address(recipient.rpartition(";")[2].encode("ascii", "replace"))
            diagnostic = str(block.get("diagnostic-code", "")).partition(";")
            reason = _clean(diagnostic[2] or diagnostic[0]) or _clean(str(block.get("status", "")))
            if address and reason:
                reasons.setdefault(address, reason)
    return reasons


def _texts(message: Message) -> Iterator[str]:
    """The decoded text/plain parts outside the returned message."""
    for part in _parts(message):
        if part.get_content_type() != "text/plain":
            continue
        payload = part.get_payload(decode=True)
        if isinstance(payload, bytes):
            yield payload.decode(part.get_content_charset() or "ascii", "replace")


def _reason(address: str, blocks: dict[str, str], texts: list[str]) -> str:
    """The server's reason for ``address``: its DSN block's, else the lines after the
    address in the human-readable text (Exim, Postfix, sendmail, qmail all write it so)."""
    if address in blocks:
        return blocks[address]
    for text in texts:
        lines = text.splitlines()
        for number, line in enumerate(lines):
            if address not in line.lower():
                continue
            after = line.lower().partition(address)[2].lstrip(">: ").strip()
            following: list[str] = [after] if after else []
            for more in lines[number + 1 : number + 6]:
                if not more.strip() or (more.strip().startswith("<") and "@" in more):
                    break
                following.append(more.strip().strip("()"))
            reason = _clean(" ".join(following))
            if reason:
                return reason
    return ""


def _returned_ids(message: Message, texts: list[str]) -> tuple[str, ...]:
    """The Message-IDs of the returned message: its message/rfc822 or
    text/rfc822-headers part, a Message-ID line quoted in the text, and the
    report's In-Reply-To and References."""
    ids: list[str] = []
    for part in _parts(message):
        kind = part.get_content_type()
        if kind == "message/rfc822":
            payload = part.get_payload()
            for inner in payload if isinstance(payload, list) else ():
                if isinstance(inner, Message):
                    ids.extend(_ids(str(inner.get("message-id", ""))))
        elif kind == "text/rfc822-headers":
            body = part.get_payload(decode=True)
            if isinstance(body, bytes):
                head = HeaderParser().parsestr(body.decode("ascii", "replace"), headersonly=True)
                ids.extend(_ids(str(head.get("message-id", ""))))
    for text in texts:
        ids.extend(_RE_MESSAGE_ID.findall(text))
    for name in ("in-reply-to", "references"):
        ids.extend(_ids(" ".join(str(v) for v in message.get_all(name, []))))
    return tuple(dict.fromkeys(ids))[:20]


def _ids(value: str) -> list[str]:
    return re.findall(r"<([^<>\s]{1,250})>", value)
