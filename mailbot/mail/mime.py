"""MIME structure: the text pieces of a message, found through its parts.

The text parts (plain, or HTML when there is no plain alternative) are
decoded and read; attachments, nested structures deeper than a bound and
broken boundaries are told apart from text.

The standard library's parser looks at every line of a part for the boundary
of every multipart around it, so its time is the lines times the nesting:
:func:`bounded_nesting` makes the multiparts past :data:`MAX_MULTIPARTS`
opaque before the message is parsed.
"""

from __future__ import annotations

import collections
import dataclasses
import re
from email import errors as email_errors
from email.message import Message
from email.utils import collapse_rfc2231_value

from mailbot.mail.attachments import PGN_TYPES
from mailbot.mail.charsets import clean_header, decode_text
from mailbot.mail.headers import tolerant_base64, unfold
from mailbot.mail.htmltext import html_to_text
from mailbot.mail.quoting import unflow
from mailbot.mail.storable import MAX_TEXT

__all__ = [
    "MAX_MULTIPARTS",
    "Piece",
    "bounded_nesting",
    "content_type_of",
    "pgn_attached",
    "text_pieces",
]

_BROKEN_STRUCTURE = (
    email_errors.MissingHeaderBodySeparatorDefect,
    email_errors.StartBoundaryNotFoundDefect,
    email_errors.CloseBoundaryNotFoundDefect,
    email_errors.NoBoundaryInMultipartDefect,
    email_errors.MultipartInvariantViolationDefect,
)
_MAX_DEPTH = 12
#: Multiparts a message declares that are parsed as such; the rest are opaque.
MAX_MULTIPARTS = 32
_DEEP = b"x-deep-multipart"
_RE_MULTIPART = re.compile(
    rb"^(content-type[ \t]*:\s*)multipart(?=/)", re.IGNORECASE | re.MULTILINE
)
_RE_META_CHARSET = re.compile(rb"""<meta[^>]*charset\s*=\s*["']?\s*([\w.:\-]+)""", re.IGNORECASE)


def bounded_nesting(raw: bytes) -> bytes:
    """``raw`` with every ``multipart`` content type after the first :data:`MAX_MULTIPARTS`
    made an opaque ``x-deep-multipart`` one (read as garbled, never as text).

    The parser's time is then at most linear in the message whatever its nesting
    (a thousand nested parts around 40,000 lines took minutes), and its recursion
    stays bounded. Only deep or overfull structures change: nothing deeper than a
    dozen levels is read anyway.

    >>> raw = b"Content-Type: multipart/mixed; boundary=a\\r\\n\\r\\n--a\\r\\n" * 40
    >>> bounded_nesting(raw).count(b"x-deep-multipart/mixed")
    8
    """
    count = 0

    def opaque(match: re.Match[bytes]) -> bytes:
        nonlocal count
        count += 1
        return match.group(0) if count <= MAX_MULTIPARTS else match.group(1) + _DEEP

    return _RE_MULTIPART.sub(opaque, raw)


@dataclasses.dataclass
class Piece:
    """One text part: its text with quotes marked, without them, and whether garbled."""

    full: str
    unquoted: str
    garbled: bool


def _header(part: Message, name: str) -> str | None:
    for key, value in part.raw_items():
        if key.lower() == name:
            return unfold(str(value))
    return None


def content_type_of(part: Message) -> str:
    """The part's content type; ``text/plain`` when it cannot be read."""
    try:
        return part.get_content_type()
    except Exception:
        return "text/plain"


def _param(part: Message, name: str, header: str = "content-type") -> str | None:
    try:
        value = part.get_param(name, header=header)
    except Exception:
        return None
    if value is None:
        return None
    if isinstance(value, tuple):
        value = collapse_rfc2231_value(value)
    return clean_header(str(value))


def _is_attachment(part: Message) -> bool:
    disposition = (_header(part, "content-disposition") or "").split(";")[0].strip().lower()
    if disposition == "attachment":
        return True
    return bool(_param(part, "filename", "content-disposition") or _param(part, "name"))


def _payload(part: Message) -> tuple[bytes, bool]:
    """The decoded bytes of a leaf part, and whether the transfer encoding was broken."""
    encoding = (_header(part, "content-transfer-encoding") or "").strip().lower()
    if encoding == "base64":
        try:
            text = part.get_payload()
        except Exception:
            text = None
        if isinstance(text, str):
            return tolerant_base64(text.encode("ascii", "replace"))
    try:
        # Raw bytes for 7bit/8bit, decoded for quoted-printable, with no charset applied.
        data = part.get_payload(decode=True)
    except Exception:
        return b"", True
    return (data, encoding == "base64") if isinstance(data, bytes) else (b"", False)


def _text_piece(part: Message, html: bool) -> Piece:
    data, broken = _payload(part)
    # a move is written at the top: megabytes of text below it are not read at all
    data = data[: MAX_TEXT * 2]
    charset = _param(part, "charset")
    if html and charset is None:
        meta = _RE_META_CHARSET.search(data[:4096])
        if meta:
            charset = meta.group(1).decode("ascii", "replace")
    decoded = decode_text(data, charset)
    garbled = broken or decoded.garbled
    if html:
        rendered = html_to_text(decoded.text)
        return Piece(rendered.full, rendered.unquoted, garbled or rendered.broken)
    text = decoded.text
    if (_param(part, "format") or "").lower() == "flowed":
        text = unflow(text, (_param(part, "delsp") or "").lower() == "yes")
    return Piece(text, text, garbled)


def text_pieces(part: Message, depth: int) -> list[Piece]:
    """The readable text pieces of a MIME part, attachments and forwards left out."""
    if depth > _MAX_DEPTH:
        return [Piece("", "", True)]
    broken = any(isinstance(d, _BROKEN_STRUCTURE) for d in part.defects)
    ctype = content_type_of(part)
    maintype, _, subtype = ctype.partition("/")
    if maintype == "message":
        result: list[Piece] = []
    elif part.is_multipart():
        payload = part.get_payload()
        children = (
            [c for c in payload if isinstance(c, Message)] if isinstance(payload, list) else []
        )
        if subtype == "alternative":
            result = _alternative(children, depth)
        elif subtype in ("related", "signed"):
            result = text_pieces(children[0], depth + 1) if children else []
        elif subtype == "encrypted":
            result = []
        else:
            result = []
            for child in children:
                if not _is_attachment(child):
                    result.extend(text_pieces(child, depth + 1))
    elif ctype in ("text/plain", "text/html"):
        result = [_text_piece(part, html=ctype == "text/html")]
    elif maintype in ("multipart", _DEEP.decode()):
        broken = True
        result = []
    else:
        result = []
    if broken:
        result.append(Piece("", "", True))
    return result


def _alternative(children: list[Message], depth: int) -> list[Piece]:
    """The plain-text alternative if it says anything, else the richest one that does."""
    readable = [c for c in children if not _is_attachment(c)]
    plain = [c for c in readable if content_type_of(c) == "text/plain"]
    others = [c for c in reversed(readable) if c not in plain]
    tried: list[Piece] = []
    for child in plain + others:
        pieces = text_pieces(child, depth + 1)
        if any(p.full.strip() for p in pieces):
            return pieces
        tried.extend(pieces)
    return [Piece("", "", any(p.garbled for p in tried))]


def pgn_attached(message: Message) -> str | None:
    """The text of the first PGN a message carries as a file (a ``.pgn`` name, or the
    media type ``application/vnd.chess-pgn`` or ``application/x-chess-pgn``), if any.
    Forwarded messages and parts nested deeper than a dozen levels are not looked into.
    """
    stack = collections.deque([(message, 0)])
    while stack:
        part, depth = stack.popleft()
        if depth > _MAX_DEPTH or content_type_of(part).startswith("message/"):
            continue
        if part.is_multipart():
            payload = part.get_payload()
            children = payload if isinstance(payload, list) else []
            stack.extend((c, depth + 1) for c in children if isinstance(c, Message))
            continue
        name = _param(part, "filename", "content-disposition") or _param(part, "name") or ""
        if content_type_of(part) in PGN_TYPES or name.lower().endswith(".pgn"):
            data, _ = _payload(part)
            return decode_text(data[:MAX_TEXT], _param(part, "charset")).text
    return None
