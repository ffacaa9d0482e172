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
(which prove nothing: everyone who received that message has them; they only
say which message a report that proves nothing claims to be about). Nothing
here touches the store: :mod:`mailbot.store.outbox` matches a report to its row.
"""

from __future__ import annotations

import base64
import dataclasses
import email.utils
import functools
import logging
import re
import secrets
from collections.abc import Callable, Iterable, Iterator, Sequence
from email import policy as email_policy
from email.message import Message
from email.parser import BytesHeaderParser, BytesParser, HeaderParser
from types import ModuleType
from typing import TypeVar

from mailbot.mail.addresses import normal_address
from mailbot.mail.charsets import decode_text

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
#: The header fields that say to which address a report was delivered: the receiving
#: server's first, then the report's own To.
_DELIVERED = ("delivered-to", "x-original-to", "envelope-to", "x-envelope-to", "to")
#: The most addresses a report is taken to be delivered to.
_MAX_DELIVERED = 20
_RE_MESSAGE_ID = re.compile(r"^[ \t]*message-id:[ \t]*<([^<>\s]{1,250})>", re.I | re.M)
_RE_SPACE = re.compile(r"\s+")
_MAX_REASON = 500
_T = TypeVar("_T")
#: What a part that cannot be read says.
_NO_TEXTS: tuple[str, ...] = ()
_A = TypeVar("_A")


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

    The 80 random bits are read at once and written in base32 (five bits a
    letter, the alphabet of :data:`_ALPHABET`): one read of the system's
    randomness for each reply, not one for each letter.

    >>> len(new_check()), new_check() == new_check()
    (16, False)
    >>> set(new_check()) <= set(_ALPHABET)
    True
    """
    random_bits = secrets.token_bytes((CHECK_LENGTH * 5 + 7) // 8)
    return base64.b32encode(random_bits).decode("ascii").lower()[:CHECK_LENGTH]


def return_path(base: str, row: int, check: str) -> str:
    """The envelope sender of outbox row ``row``: ``base`` (``Name <address>`` or an
    address) with ``+b-ROW-CHECK`` in its local part; ``base`` itself when the
    local part would grow past what SMTP carries.

    >>> return_path("bounces@federation.example", 7, "q" * 16)
    'bounces+b-7-qqqqqqqqqqqqqqqq@federation.example'
    >>> return_path("x" * 60 + "@federation.example", 7, "q" * 16).startswith("xxx")
    True
    """
    address = _address_of(base)
    local, at, domain = address.rpartition("@")
    tagged = f"{local}{_TAG}{row}-{check}"
    if not at or len(tagged) > _MAX_LOCAL:
        return address
    return f"{tagged}@{domain}"


@functools.lru_cache(maxsize=16)
def _address_of(base: str) -> str:
    """The address in ``base``, parsed once for all the rows sent from it (a parse costs
    about as much as composing a mail's headers)."""
    return email.utils.parseaddr(base)[1] or base


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

    Never raises, and each thing it says is read on its own: a part that cannot
    be read (a charset nobody knows, broken bytes, a detector's crash) costs what
    that part says, never the addresses the report was delivered to nor the
    failures read elsewhere.

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
    message = _parse(raw)
    texts = _texts(message)
    return Report(_failures(message, texts), _delivered_to(message), _returned_ids(message, texts))


def _parse(raw: bytes) -> Message:
    """The message ``raw``; its header alone when its body cannot be parsed (parts
    nested past Python's recursion limit), an empty message when nothing can."""
    for parser in (BytesParser, BytesHeaderParser):
        try:
            return parser(policy=email_policy.compat32).parsebytes(raw)
        except Exception:  # the parser's errors are not documented
            continue
    return Message()


def _attempt(read: Callable[[_A], _T], value: _A, otherwise: _T) -> _T:
    """What ``read`` reads of ``value``; ``otherwise`` when it fails.

    The detectors and the parts of a report are heuristics run on whatever a
    server (or a forger) wrote: any error of theirs means "this part says nothing".

    >>> _attempt(lambda data: data.decode("unknown-8bit"), b"abc", "")
    ''
    """
    try:
        return read(value)
    except Exception:
        return otherwise


def _delivered_to(message: Message) -> tuple[str, ...]:
    """The addresses the report was delivered to, the receiving server's first."""
    found: list[str] = []
    for name in _DELIVERED:
        for value in _attempt(_fields(message), name, _NO_TEXTS):
            found.extend(_attempt(_addresses_in, value, _NO_TEXTS))
    return tuple(dict.fromkeys(found))[:_MAX_DELIVERED]


def _fields(message: Message) -> Callable[[str], tuple[str, ...]]:
    """Who reads the values of a header field of ``message``, as text."""
    return lambda name: tuple(str(value) for value in message.get_all(name, []))


def _addresses_in(value: str) -> tuple[str, ...]:
    return tuple(normal_address(a) for _, a in email.utils.getaddresses([value]) if a)


@functools.cache
def _detectors() -> ModuleType:
    """flufl.bounce, loaded with the first report (a pass that reads none starts without
    it), its detectors quiet: they log every step at INFO, and a detector's crash with
    its traceback, and the bot reads such a report as no report and says so in its own
    words."""
    import flufl.bounce

    logging.getLogger("flufl.bounce").setLevel(logging.CRITICAL + 1)
    return flufl.bounce


def _failures(message: Message, texts: Sequence[str]) -> tuple[Failure, ...]:
    """The recipients that failed, each with the server's reason for it: as the
    detectors find them, or, when one of them fails on the report, as its
    message/delivery-status part says (RFC 3464)."""
    blocks = _attempt(_status_blocks, message, dict[str, _Block]())
    detectors = _detectors()  # outside the guard: a missing detector is no report's fault
    try:
        temporary, permanent = detectors.all_failures(message)
        failed = {_address(a): True for a in sorted(permanent)}
        for a in sorted(temporary):
            failed.setdefault(_address(a), False)
    except Exception:  # a detector's crash
        failed = {a: b.permanent for a, b in blocks.items() if b.permanent is not None}
    failed.pop("", None)
    return tuple(
        Failure(address, permanent, _attempt(_reason(blocks, texts), address, ""))
        for address, permanent in failed.items()
    )


def _address(value: bytes) -> str:
    text = value.decode("ascii", "replace").strip().strip("<>")
    return normal_address(text) if "@" in text else ""


def _clean(value: str) -> str:
    return _RE_SPACE.sub(" ", value).strip()[:_MAX_REASON]


def _parts(message: Message) -> Iterator[Message]:
    """Every part, at most 200 (a report has a handful); those before a part the
    walk fails on."""
    walk = message.walk()
    for _ in range(200):
        part = _attempt(next, walk, None)  # None: the walk's end (StopIteration), or its failure
        if part is None:
            return
        yield part


@dataclasses.dataclass(frozen=True)
class _Block:
    """What a message/delivery-status part says of one recipient (RFC 3464 2.3)."""

    address: str
    #: ``Action: failed`` (True), ``delayed`` (False), or anything else (None).
    permanent: bool | None
    #: The Diagnostic-Code, else the Status.
    reason: str


def _status_blocks(message: Message) -> dict[str, _Block]:
    """What the message/delivery-status parts say of each recipient."""
    blocks: dict[str, _Block] = {}
    for part in _parts(message):
        if part.get_content_type() != "message/delivery-status" or not part.is_multipart():
            continue
        payload = part.get_payload()
        for block in payload if isinstance(payload, list) else ():
            if isinstance(block, Message):
                said = _attempt(_block, block, None)
                if said is not None:
                    blocks.setdefault(said.address, said)
    return blocks


def _block(block: Message) -> _Block | None:
    """What a DSN block says of its recipient (None: nothing)."""
    recipient = str(block.get("final-recipient", "") or block.get("original-recipient", ""))
    address = _address(recipient.rpartition(";")[2].encode("ascii", "replace"))
    diagnostic = str(block.get("diagnostic-code", "")).partition(";")
    reason = _clean(diagnostic[2] or diagnostic[0]) or _clean(str(block.get("status", "")))
    action = str(block.get("action", "")).strip().lower()
    permanent = {"failed": True, "delayed": False}.get(action)
    if not address or (not reason and permanent is None):
        return None
    return _Block(address, permanent, reason)


def _texts(message: Message) -> tuple[str, ...]:
    """The decoded text/plain parts outside the returned message.

    The charset a part declares is a claim like any other: one no codec knows
    (``unknown-8bit``, ``x-unknown``), a codec that is no charset (``idna``), or
    bytes it does not hold are read as :func:`~mailbot.mail.charsets.decode_text`
    guesses; a part that cannot be read at all is left out."""
    texts = (_attempt(_text, part, "") for part in _parts(message))
    return tuple(text for text in texts if text)


def _text(part: Message) -> str:
    if part.get_content_type() != "text/plain":
        return ""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    return decode_text(payload, _attempt(_charset, part, None)).text


def _charset(part: Message) -> str | None:
    return part.get_content_charset()


def _reason(blocks: dict[str, _Block], texts: Sequence[str]) -> Callable[[str], str]:
    """Who finds the server's reason for an address: its DSN block's, else the lines
    after the address in the human-readable text (Exim, Postfix, sendmail, qmail all
    write it so)."""
    return lambda address: _reason_for(address, blocks, texts)


def _reason_for(address: str, blocks: dict[str, _Block], texts: Sequence[str]) -> str:
    if address in blocks and blocks[address].reason:
        return blocks[address].reason
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


def _returned_ids(message: Message, texts: Sequence[str]) -> tuple[str, ...]:
    """The Message-IDs of the returned message: its message/rfc822 or
    text/rfc822-headers part, a Message-ID line quoted in the text, and the
    report's In-Reply-To and References."""
    ids: list[str] = []
    for part in _parts(message):
        ids.extend(_attempt(_returned_id, part, []))
    for text in texts:
        ids.extend(_RE_MESSAGE_ID.findall(text))
    for name in ("in-reply-to", "references"):
        ids.extend(_ids(" ".join(_attempt(_fields(message), name, _NO_TEXTS))))
    return tuple(dict.fromkeys(ids))[:20]


def _returned_id(part: Message) -> list[str]:
    """The Message-ID of the returned message, if ``part`` holds it (or its header)."""
    kind = part.get_content_type()
    if kind == "message/rfc822":
        payload = part.get_payload()
        inner = payload if isinstance(payload, list) else ()
        return [
            i for m in inner if isinstance(m, Message) for i in _ids(str(m.get("message-id", "")))
        ]
    if kind == "text/rfc822-headers":
        body = part.get_payload(decode=True)
        if isinstance(body, bytes):
            head = HeaderParser().parsestr(body.decode("ascii", "replace"), headersonly=True)
            return _ids(str(head.get("message-id", "")))
    return []


def _ids(value: str) -> list[str]:
    return re.findall(r"<([^<>\s]{1,250})>", value)
