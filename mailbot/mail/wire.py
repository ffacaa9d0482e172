r"""The wire form of a mail: its header fields and MIME body as RFC 5322, 2047 and
2045-2049 write them, and its Message-ID.

A mail to send is an :class:`OutgoingMail`, a value: the store makes one of an
outbox row (:func:`mailbot.store.outbox.outgoing`), and the shell's delivery loop
hands its bytes (:func:`compose`) and its envelope (:func:`envelope`) to the
postman. Nothing here reads the store or talks to a server.

>>> mail = OutgoingMail(
...     message_id="mailbot.1@fed.example",
...     created_at=datetime.datetime(2026, 3, 2, 9, tzinfo=datetime.UTC),
...     to_addrs=("ivan@example.org",), cc_addrs=(), subject="Партия 3",
...     headers={}, text_body="1. e4", html_body=None,
... )
>>> header = compose(mail, "Bot <bot@fed.example>").decode().split("\r\n\r\n")[0]
>>> print(header.replace("\r\n", "\n"))
From: Bot <bot@fed.example>
To: ivan@example.org
Subject: =?utf-8?b?0J/QsNGA0YLQuNGPIDM=?=
Date: Mon, 02 Mar 2026 09:00:00 +0000
Message-ID: <mailbot.1@fed.example>
Auto-Submitted: auto-generated
MIME-Version: 1.0
Content-Type: text/plain; charset="utf-8"
Content-Transfer-Encoding: quoted-printable
"""

from __future__ import annotations

import binascii
import dataclasses
import datetime
import email.utils
import functools
import re
import uuid
from collections.abc import Mapping, Sequence

from mailbot.mail.addresses import AddressError, ascii_domain, smtp_address
from mailbot.mail.attachments import mixed


@dataclasses.dataclass(frozen=True)
class OutgoingMail:
    """What the wire form of one mail is written from: the fields of an outbox row."""

    message_id: str
    #: Its Date field.
    created_at: datetime.datetime
    to_addrs: tuple[str, ...]
    cc_addrs: tuple[str, ...]
    subject: str
    #: More header fields, in their order (In-Reply-To, References, the bot's own...).
    headers: Mapping[str, str]
    text_body: str
    #: The HTML alternative of the text, if any.
    html_body: str | None
    #: The files it carries after its text, as the outbox keeps them
    #: (:meth:`mailbot.mail.attachments.Attachment.stored`).
    attachments: tuple[Mapping[str, str], ...] = ()


def new_message_id(sender: str) -> str:
    """A fresh Message-ID (without angle brackets) in the sender's domain.

    >>> new_message_id("Bot <bot@fed.example>").endswith("@fed.example")
    True
    """
    return f"mailbot.{uuid.uuid4().hex}@{_id_domain(sender)}"


@functools.lru_cache(maxsize=64)
def _id_domain(sender: str) -> str:
    """The domain of the sender's Message-IDs (the sender is the same for every message)."""
    domain = email.utils.parseaddr(sender)[1].rpartition("@")[2] or "mailbot.invalid"
    try:
        return ascii_domain(domain)
    except AddressError:
        return "mailbot.invalid"


_LINESEP = "\r\n"
_RE_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
#: Message-IDs longer than this are left out of In-Reply-To and References.
_MAX_ID = 250
_MAX_REFERENCES = 10
_ADDRESS_FIELDS = frozenset({"from", "to", "cc", "reply-to", "sender"})
_THREAD_FIELDS = frozenset({"in-reply-to", "references"})


def plain_line(value: str) -> str:
    r"""``value`` on one line: control characters (line breaks too) as spaces, trimmed.

    >>> plain_line(" Re: move\r\n12 ")
    'Re: move 12'
    """
    return _RE_CONTROL.sub(" ", value).strip()


def _fold(name: str, words: Sequence[str], separator: str = " ") -> str:
    """``name: words`` folded between words so lines stay within 78 characters."""
    lines: list[str] = []
    line = f"{name}:"
    for index, word in enumerate(words):
        piece = word + (separator.rstrip() if index < len(words) - 1 else "")
        if len(line) + 1 + len(piece) > 78 and line.strip() != f"{name}:":
            lines.append(line)
            line = " " + piece
        else:
            line += " " + piece
    lines.append(line)
    return _LINESEP.join(lines) + _LINESEP


#: An ASCII word longer than this is written as encoded words, which may be split
#: anywhere: folding splits only between words, and no line may pass 998 characters.
_LONGEST_WORD = 900


def _text_field(name: str, value: str) -> str:
    value = plain_line(value)
    if len(name) + 2 + len(value) <= 78 and value.isascii():
        return f"{name}: {value}{_LINESEP}"  # one line: as folded, without the folding
    if value.isascii() and all(len(word) <= _LONGEST_WORD for word in value.split(" ")):
        return _fold(name, value.split(" ") if value else [""])
    return f"{name}: {_encoded_words(value, 76 - len(name) - 2)}{_LINESEP}"


def _encoded_words(value: str, room: int) -> str:
    r"""``value`` as RFC 2047 encoded words (UTF-8, base64), one to a line, each line
    within 76 characters (``room`` on the first); a character is never split.

    The email package's :class:`~email.header.Header` does the same in pure
    Python, at several times the cost, for every subject with a dash or a name.

    >>> _encoded_words("Иван – Петър", 60)
    '=?utf-8?b?0JjQstCw0L0g4oCTINCf0LXRgtGK0YA=?='
    >>> _encoded_words("😀", 14)  # wider than the room: a word of its own all the same
    '=?utf-8?b?8J+YgA==?='
    >>> from email.header import decode_header, make_header
    >>> text = "Шахмат " * 30
    >>> words = _encoded_words(text, 67)
    >>> str(make_header(decode_header(words))) == text
    True
    >>> max(len(line) for line in words.split("\r\n")) <= 76
    True
    """
    data = value.encode("utf-8")
    words: list[str] = []
    start = 0
    while start < len(data):
        size = max(3, (room - len("=?utf-8?b??=")) // 4 * 3)
        end = min(len(data), start + size)
        while start < end < len(data) and data[end] & 0xC0 == 0x80:  # not inside a character
            end -= 1
        if end == start:  # a character wider than the room: a line of its own
            end += 1
            while end < len(data) and data[end] & 0xC0 == 0x80:
                end += 1
        words.append(f"=?utf-8?b?{binascii.b2a_base64(data[start:end], newline=False).decode()}?=")
        start, room = end, 76 - 1
    return f"{_LINESEP} ".join(words)


@functools.lru_cache(maxsize=1024)
def _mailbox(value: str, smtputf8: bool) -> str:
    """``Name <address>`` with the name encoded as needed and the address as the path
    carries it (kept: the sender heads every message and a player gets many)."""
    name, address = email.utils.parseaddr(plain_line(value))
    if not address:
        address = plain_line(value)
    address = smtp_address(address, smtputf8=smtputf8)
    if not name:
        return address
    if name.isascii():
        return email.utils.formataddr((name, "x@x")).rpartition(" <")[0] + f" <{address}>"
    return f"{_encoded_words(name, 60)} <{address}>"


def _address_field(name: str, values: Sequence[str], smtputf8: bool) -> str:
    return _fold(name, [_mailbox(v, smtputf8) for v in values], separator=", ")


def _thread_field(name: str, value: str, smtputf8: bool) -> str | None:
    """In-Reply-To / References with every id that fits on a line, the last ten at most."""
    ids = [
        i
        for i in re.findall(r"<[^<>]*>", value)
        if len(i) <= _MAX_ID and (smtputf8 or i.isascii()) and not _RE_CONTROL.search(i)
    ]
    if not ids:
        return None
    return _fold(name, ids[-_MAX_REFERENCES:])


def _qp(text: str) -> str:
    """``text`` as UTF-8, quoted-printable, with CRLF line ends (:func:`binascii.b2a_qp`,
    in C: the email package's own encoder is pure Python and was most of a reply's cost)."""
    encoded = binascii.b2a_qp(text.encode("utf-8")).decode("ascii")
    return encoded.replace("\n", _LINESEP)


def _text_part(text: str, subtype: str) -> str:
    return (
        f'Content-Type: text/{subtype}; charset="utf-8"{_LINESEP}'
        f"Content-Transfer-Encoding: quoted-printable{_LINESEP}{_LINESEP}{_qp(text)}"
    )


def _body(mail: OutgoingMail) -> str:
    """The MIME headers and body of a mail: its text (and HTML), then its files.

    The one place the body's MIME structure is built: a part added to a mail
    goes here.
    """
    if mail.attachments:
        return mixed(_text_body(mail), mail.attachments)
    return _text_body(mail)


def _text_body(mail: OutgoingMail) -> str:
    """The MIME headers and body of a mail's text, and its HTML as an alternative."""
    if not mail.html_body:
        return f"MIME-Version: 1.0{_LINESEP}" + _text_part(mail.text_body, "plain")
    # "=_" never occurs in quoted-printable text; the line break before each
    # delimiter belongs to the delimiter (RFC 2046 5.1.1), not to the part
    boundary = f"=_{uuid.uuid4().hex[:24]}"
    plain, html = _text_part(mail.text_body, "plain"), _text_part(mail.html_body, "html")
    nl = _LINESEP
    return (
        f'MIME-Version: 1.0{nl}Content-Type: multipart/alternative; boundary="{boundary}"{nl}'
        f"{nl}--{boundary}{nl}{plain}{nl}--{boundary}{nl}{html}{nl}--{boundary}--{nl}"
    )


def compose(mail: OutgoingMail, sender: str, *, smtputf8: bool = False) -> bytes:
    """The bytes of a mail, ready for SMTP.

    Header lines are folded, and In-Reply-To and References keep only the ids
    that fit, so no line exceeds 998 characters. Addresses go as the path
    carries them (:func:`mailbot.mail.addresses.smtp_address`): raises
    :class:`~mailbot.mail.addresses.AddressError` for one it cannot. The header
    fields and the body are written here (the email package's modern folder
    drops the space between two encoded words of a long Cyrillic subject, and
    its generator was most of a reply's cost): the text, and the HTML as its
    alternative, in UTF-8 quoted-printable, lines of at most 76 characters.
    """
    fields = [
        _address_field("From", [sender], smtputf8),
        _address_field("To", mail.to_addrs, smtputf8),
    ]
    if mail.cc_addrs:
        fields.append(_address_field("Cc", mail.cc_addrs, smtputf8))
    fields.append(_text_field("Subject", mail.subject))
    fields.append(_text_field("Date", email.utils.format_datetime(mail.created_at)))
    fields.append(_text_field("Message-ID", f"<{mail.message_id}>"))
    headers = dict(mail.headers)
    headers.setdefault("Auto-Submitted", "auto-generated")
    for name, value in headers.items():
        key = name.lower()
        if key in _THREAD_FIELDS:
            field = _thread_field(name, value, smtputf8)
            if field is not None:
                fields.append(field)
        elif key in _ADDRESS_FIELDS:
            fields.append(_address_field(name, [value], smtputf8))
        else:
            fields.append(_text_field(name, value))
    return ("".join(fields) + _body(mail)).encode("utf-8")


def envelope(mail: OutgoingMail, smtputf8: bool) -> list[str]:
    """The envelope recipients of a mail, as the path carries them (or AddressError)."""
    return [smtp_address(a, smtputf8=smtputf8) for a in [*mail.to_addrs, *mail.cc_addrs]]
