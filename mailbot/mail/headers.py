"""Header fields: encoded words, the subject and its game tag, message ids, addresses.

>>> game_tag(decode_header("=?utf-8?q?Re:_[BG-2026-E1/7]_=D0=A5=D0=BE=D0=B4?="))
'BG-2026-E1/7'
"""

from __future__ import annotations

import binascii
import functools
import re
from email.utils import getaddresses

from mailbot.mail.addresses import normal_address
from mailbot.mail.charsets import clean_header, decode_text
from mailbot.mail.storable import MAX_MESSAGE_ID, storable

__all__ = [
    "RE_SPACE",
    "address_pairs",
    "decode_header",
    "game_tag",
    "message_id_list",
    "normal_message_id",
    "squash_space",
    "subject_core",
    "tolerant_base64",
    "unfold",
]

_RE_FOLD = re.compile(r"\r?\n(?=[ \t])")
_RE_ENCODED_WORD = re.compile(r"=\?([^?\s]+)\?([bBqQ])\?([^?]*)\?=")
RE_SPACE = re.compile(r"\s+")
_RE_ANGLE_ID = re.compile(r"<([^<>]*)>")


def unfold(value: str) -> str:
    """A header value on one line: the folding (CRLF before blanks) removed."""
    return _RE_FOLD.sub("", value).strip("\r\n")


def squash_space(text: str) -> str:
    """Every run of white space one space, none at the ends."""
    return RE_SPACE.sub(" ", text).strip()


def tolerant_base64(data: bytes) -> tuple[bytes, bool]:
    """Tolerant base64: ``(decoded, broken)``; broken when truncated or soiled."""
    compact = re.sub(rb"\s+", b"", data)
    letters = re.sub(rb"[^A-Za-z0-9+/]", b"", compact)
    broken = len(letters) != len(compact.rstrip(b"=")) or len(compact) % 4 != 0
    if len(letters) % 4 == 1:
        letters = letters[:-1]
        broken = True
    letters += b"=" * (-len(letters) % 4)
    try:
        return binascii.a2b_base64(letters), broken
    except (binascii.Error, ValueError):
        return b"", True


def _decode_word(encoding: str, payload: str) -> bytes:
    data = payload.encode("ascii", "replace")
    if encoding in "bB":
        return tolerant_base64(data)[0]
    return binascii.a2b_qp(data, header=True)


def decode_header(value: str) -> str:
    """Decode RFC 2047 encoded words (and raw 8-bit text) in a header value.

    >>> decode_header("=?koi8-r?Q?=E8=CF=C4?= 12")
    'Ход 12'
    >>> decode_header("=?utf-8?B?0KXQvtC0?=\\r\\n =?utf-8?B?0LrQsA==?=")
    'Ходка'
    """
    text = unfold(value)
    pieces: list[tuple[str, bytes] | str] = []
    position = 0
    for match in _RE_ENCODED_WORD.finditer(text):
        literal = text[position : match.start()]
        after_word = bool(pieces) and isinstance(pieces[-1], tuple)
        if literal and not (literal.isspace() and after_word):
            pieces.append(literal)
        charset = match.group(1).split("*", 1)[0]
        data = _decode_word(match.group(2), match.group(3))
        previous = pieces[-1] if pieces else None
        if isinstance(previous, tuple) and previous[0].lower() == charset.lower():
            pieces[-1] = (previous[0], previous[1] + data)
        else:
            pieces.append((charset, data))
        position = match.end()
    if position < len(text):
        pieces.append(text[position:])
    out: list[str] = []
    for piece in pieces:
        if isinstance(piece, tuple):
            out.append(decode_text(piece[1], piece[0]).text)
        else:
            out.append(clean_header(piece))
    return "".join(out)


_RE_PREFIX = re.compile(
    r"^\s*(?:re|fwd?|aw|wg|sv|vs|antw|réf|отг|отв|ответ|пересл)\.?"
    r"\s*(?:\[\d+\]|\(\d+\)|\^\d+)?\s*[:：]\s*",
    re.IGNORECASE,
)
_RE_GAME_TAG = re.compile(r"\[\s*([\w.\-]+?)\s*/\s*(\d{1,6})\s*\]")


def subject_core(subject: str) -> str:
    """The subject without reply and forward prefixes, however nested.

    >>> subject_core("Re: Fwd: Re[2]: Отг.: AW: [BG-2026-E1/7] Ivanov – Petrov")
    '[BG-2026-E1/7] Ivanov – Petrov'
    >>> subject_core("Resign")
    'Resign'
    """
    core = squash_space(subject)
    while True:
        match = _RE_PREFIX.match(core)
        if not match:
            return core
        core = core[match.end() :]


def game_tag(subject: str) -> str | None:
    """The ``INDEX/N`` game tag from a subject, or None.

    >>> game_tag("Re: [BG-2026-E1/07] Ivanov – Petrov: move")
    'BG-2026-E1/7'
    >>> game_tag("Re: move") is None
    True
    """
    match = _RE_GAME_TAG.search(subject)
    if match is None:
        return None
    return f"{match.group(1)}/{int(match.group(2))}"


def _id_text(value: str) -> str:
    return storable(clean_header(RE_SPACE.sub("", value)), MAX_MESSAGE_ID)


def message_id_list(value: str) -> tuple[str, ...]:
    """The message ids of ``In-Reply-To`` or ``References``, each once, in order."""
    found = [RE_SPACE.sub("", m) for m in _RE_ANGLE_ID.findall(value)]
    found = [m for m in found if m]
    if not found:
        found = [t.strip("<>") for t in value.split() if "@" in t]
    return tuple(i for i in dict.fromkeys(_id_text(m) for m in found if m) if i)


def normal_message_id(value: str | None) -> str | None:
    """A ``Message-ID`` without its brackets and spaces, storable; None when empty."""
    if value is None:
        return None
    ids = message_id_list(value)
    if ids:
        return ids[0]
    compact = _id_text(value).strip("<>")
    return compact or None


def address_pairs(values: list[str]) -> list[tuple[str, str]]:
    """(decoded display name, normal address) pairs; names decoded after splitting.

    Fields of a usual length are read once (:func:`_kept_pairs`): a player's
    ``From`` and the bot's address in ``To`` come again and again in a backlog.
    """
    if sum(map(len, values)) <= _KEPT_LENGTH:
        return list(_kept_pairs(tuple(values)))
    return _pairs(values)


#: Address fields longer than this in all are read anew each time, not kept.
_KEPT_LENGTH = 1000


@functools.lru_cache(maxsize=1024)
def _kept_pairs(values: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    return tuple(_pairs(list(values)))


def _pairs(values: list[str]) -> list[tuple[str, str]]:
    try:
        pairs = getaddresses(values)
    except Exception:
        pairs = []
    result = []
    for name, addr in pairs:
        address = storable(clean_header(addr).strip().strip("<>").strip(), 1000)
        address = normal_address(address) if address else ""
        display = storable(squash_space(decode_header(name)), 1000)
        if address or display:
            result.append((display, address))
    return result
