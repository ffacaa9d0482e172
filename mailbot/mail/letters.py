"""Letters: what a raw e-mail says, read without trusting it.

:func:`read_letter` turns the raw bytes of one message (RFC 5322, as an IMAP
server hands them over) into a :class:`Letter`: the sender, the subject and
its game tag, the thread, and above all the *new* text of the message, the
part the player wrote now, without the quoted earlier moves and without the
signature. It never raises: broken mail is the mail's fault, and a letter that
could not be read cleanly says so with ``garbled``.

    >>> raw = (
    ...     b"From: Ivan Ivanov <Ivanov@Example.org>\\r\\n"
    ...     b"To: chess@example.net\\r\\n"
    ...     b"Subject: Re: [BG-2026-E1/7] Ivanov - Petrov: move\\r\\n"
    ...     b"Message-ID: <1@example.org>\\r\\n"
    ...     b"\\r\\n"
    ...     b"12... Ng8-f6\\r\\n"
    ...     b"\\r\\n"
    ...     b"On Mon, 2 Mar 2026, Petar Petrov wrote:\\r\\n"
    ...     b"> 12. Bf1-c4\\r\\n"
    ... )
    >>> letter = read_letter(raw)
    >>> letter.from_addr, letter.game_tag, letter.body
    ('ivanov@example.org', 'BG-2026-E1/7', '12... Ng8-f6')
    >>> letter.subject_core
    '[BG-2026-E1/7] Ivanov - Petrov: move'
    >>> is_machine_mail(letter)
    False
"""

from __future__ import annotations

import binascii
import codecs
import dataclasses
import enum
import hashlib
import re
import types
from collections.abc import Collection, Iterable, Mapping
from datetime import datetime
from email import errors as email_errors
from email import policy as email_policy
from email.message import Message
from email.parser import BytesHeaderParser, BytesParser
from email.utils import collapse_rfc2231_value, getaddresses, parsedate_to_datetime
from html.parser import HTMLParser

from mailbot.mail.addresses import normal_address, without_tag
from mailbot.mail.intent import Word, read_words

__all__ = [
    "AutoKind",
    "DecodedText",
    "HtmlText",
    "Letter",
    "decode_header",
    "decode_text",
    "game_tag",
    "html_to_text",
    "is_machine_mail",
    "new_text",
    "read_letter",
    "subject_core",
]


class AutoKind(enum.Enum):
    """Why a message must never be answered (it was written by a machine).

    When several reasons apply, the first one in this order is reported.
    """

    #: Our own mail came back (``X-Mailbot-Event`` header, or one of our addresses).
    OWN_MAIL = "own-mail"
    #: A delivery or disposition report (``multipart/report``, ``message/delivery-status``).
    DELIVERY_REPORT = "delivery-report"
    #: Sent by ``mailer-daemon@``, ``MAILER_DAEMON@``, ``postmaster@`` or a "Mail Delivery System".
    MAILER_DAEMON = "mailer-daemon"
    #: ``Auto-Submitted`` with any value but ``no`` (RFC 3834).
    AUTO_SUBMITTED = "auto-submitted"
    #: ``X-Autoreply``, ``X-Autorespond``, ``X-Auto-Response-Suppress: All/OOF`` and kin.
    AUTOREPLY = "autoreply"
    #: Mailing-list headers (``List-Id``, ``List-Unsubscribe``, ...).
    MAILING_LIST = "mailing-list"
    #: ``Precedence: bulk``, ``junk`` or ``list``.
    PRECEDENCE = "precedence"
    #: ``Return-Path: <>``: the sender wants no answer (RFC 5321 null path).
    EMPTY_RETURN_PATH = "empty-return-path"
    #: An out-of-office reply known only by its subject ("Automatic reply:", "Автоответ:").
    OUT_OF_OFFICE = "out-of-office"


@dataclasses.dataclass(frozen=True)
class Letter:
    """One received message, as far as the bot cares.

    ``body`` is the new text only: no quoted text, no signature, nothing from
    forwarded messages or attachments. ``full_text`` is the whole decoded text
    body. ``garbled`` is true when the body could not be decoded cleanly
    (unknown charset, characters that had to be replaced, a truncated MIME
    structure): then an unclear move is the post's fault, not the player's,
    and costs no penalty (art. 16-17). ``headers`` holds selected header
    fields, keys in lower case, values unfolded.

    Every text field can be stored as it is: NUL and other control characters
    are gone and lengths are bounded (a subject to 2,000 characters, the text
    to 1 MB); ``from_addr`` is in the normal form of
    :func:`mailbot.mail.addresses.normal_address`, empty when longer than an
    address can be.
    """

    message_id: str | None
    raw_sha256: str
    from_addr: str = ""
    from_name: str = ""
    to_addrs: tuple[str, ...] = ()
    cc_addrs: tuple[str, ...] = ()
    subject: str = ""
    subject_core: str = ""
    game_tag: str | None = None
    in_reply_to: tuple[str, ...] = ()
    references: tuple[str, ...] = ()
    #: The sender's own ``Date:``; informational only (the clock uses the arrival time).
    date_header: datetime | None = None
    body: str = ""
    full_text: str = ""
    authentication_results: tuple[str, ...] = ()
    auto: AutoKind | None = None
    garbled: bool = False
    #: Every (display name, address) pair of the ``From:`` fields, and how many fields.
    senders: tuple[tuple[str, str], ...] = ()
    from_fields: int = 0
    #: False when the body's structure could not be parsed at all (only the header is known).
    readable: bool = True
    headers: Mapping[str, str] = dataclasses.field(
        default_factory=lambda: types.MappingProxyType({}), hash=False
    )


def is_machine_mail(letter: Letter) -> bool:
    """Whether the letter was written by a machine and must not be answered.

    >>> is_machine_mail(read_letter(b"From: MAILER-DAEMON@example.net\\r\\n\\r\\nfailed"))
    True
    """
    return letter.auto is not None


# ---------------------------------------------------------------------------
# Charsets

_RE_NON_ALNUM = re.compile(r"[^a-z0-9]")
_RE_WINDOWS = re.compile(r"x?(?:windows|win|cp|ms|ansi|microsoft)?(125[0-8])")

_CHARSET_ALIASES: dict[str, str] = {
    "utf8": "utf-8",
    "utf": "utf-8",
    "unicode11utf8": "utf-8",
    "unicode20utf8": "utf-8",
    "xunicode20utf8": "utf-8",
    "koi8r": "koi8-r",
    "koi8": "koi8-r",
    "cskoi8r": "koi8-r",
    "xkoi8r": "koi8-r",
    "koi8u": "koi8-u",
    "cskoi8u": "koi8-u",
    "koi8ru": "koi8-u",
    "iso88595": "iso8859-5",
    "iso885951988": "iso8859-5",
    "isoir144": "iso8859-5",
    "cyrillic": "iso8859-5",
    "csisolatincyrillic": "iso8859-5",
    "cp866": "cp866",
    "ibm866": "cp866",
    "866": "cp866",
    "csibm866": "cp866",
    "dos866": "cp866",
    "xcp866": "cp866",
    "maccyrillic": "mac-cyrillic",
    "xmaccyrillic": "mac-cyrillic",
    "xmacukrainian": "mac-cyrillic",
}
# Codecs Python knows that are no MIME charsets (a label naming one is unknown).
_NOT_CHARSETS = frozenset(
    {"idna", "punycode", "unicode-escape", "raw-unicode-escape", "undefined", "mbcs", "oem"}
)
# Labels that promise nothing beyond ASCII: 8-bit bytes under them are read by guessing.
_UNDECLARED_LABELS = frozenset(
    {"", "ascii", "usascii", "us", "ansix341968", "iso646us", "csascii", "646", "default"}
)

# Relative frequency of Cyrillic lower-case letters in Russian and Bulgarian text.
_LETTER_WEIGHTS: dict[str, int] = {
    **dict.fromkeys("оеа", 10),
    **dict.fromkeys("интс", 8),
    **dict.fromkeys("рвлк", 6),
    **dict.fromkeys("мдпуя", 4),
    **dict.fromkeys("зыьбгчъ", 3),
    **dict.fromkeys("йхжшюцщэфё", 2),
}
# Punctuation that Cyrillic 8-bit charsets carry besides letters.
_NEUTRAL_CHARS = frozenset("\xa0«»–—…№“”„‘’°§·•€")
_GUESS_CODECS = ("cp1251", "koi8-r", "cp866", "iso8859-5")
_GUESS_SAMPLE = 1 << 16
_RE_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
_RE_UNSTORABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")

#: Bounds that keep every value of a letter storable.
MAX_TEXT = 1 << 20
MAX_SUBJECT = 2000
MAX_HEADER = 4000
MAX_ADDRESS = 254
MAX_MESSAGE_ID = 998
MAX_REFERENCES = 20
#: Quotes nested deeper than this are marked as this deep.
_MAX_QUOTE = 20


@dataclasses.dataclass(frozen=True)
class DecodedText:
    """Text decoded from bytes, and whether that needed guessing or replacing."""

    text: str
    garbled: bool


def _resolve_charset(label: str | None) -> tuple[str | None, bool]:
    """The Python codec for a charset label: ``(codec, known)``.

    ``(None, True)`` means "nothing declared, guess"; ``(None, False)`` means
    the label names no charset we know.
    """
    if label is None:
        return None, True
    name = label.strip().strip("\"'").strip().lower()
    if not name.isascii() or len(name) > 40:
        return None, False
    compact = _RE_NON_ALNUM.sub("", name)
    if compact in _UNDECLARED_LABELS:
        return None, True
    if compact in _CHARSET_ALIASES:
        return _CHARSET_ALIASES[compact], True
    windows = _RE_WINDOWS.fullmatch(compact)
    if windows:
        return "cp" + windows.group(1), True
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError):
        return None, False
    if not info._is_text_encoding or info.name in _NOT_CHARSETS:
        return None, False
    return info.name, True


def _letter_weight(char: str) -> int:
    weight = _LETTER_WEIGHTS.get(char)
    if weight is not None:
        return weight
    if _is_cyrillic(char):
        return 1
    if char in _NEUTRAL_CHARS:
        return 0
    if char == "\ufffd":
        return -20
    return -5


_CYRILLIC_LETTERS = frozenset(
    "АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдежзийклмнопрстуфхцчшщъыьэюяЁёІіЇїЄєҐґЎў"
)


def _is_cyrillic(char: str) -> bool:
    """A letter of the Russian, Bulgarian or Ukrainian alphabet."""
    return char in _CYRILLIC_LETTERS


def _cyrillic_score(text: str) -> int:
    """How much ``text`` reads like Russian or Bulgarian.

    Common lower-case letters score; odd symbols, capitals inside words and
    lone letters cost; a capital right before a square (``Кg1``, ``Крg8``)
    is a piece letter and scores well.
    """
    score = 0
    size = len(text)
    for i, char in enumerate(text):
        if char.isascii():
            continue
        score += _letter_weight(char)
        if not _is_cyrillic(char):
            continue
        before = text[i - 1] if i else " "
        after = text[i + 1] if i + 1 < size else " "
        square = after in "abcdefgh" and i + 2 < size and text[i + 2] in "12345678"
        if square:
            piece = (char.isupper() and not (before.islower() and _is_cyrillic(before))) or (
                char.islower() and before.isupper() and _is_cyrillic(before)
            )
            score += 10 if piece else -5
        elif char.isupper() and before.islower() and _is_cyrillic(before):
            score -= 8
        elif not _is_cyrillic(before) and not _is_cyrillic(after):
            score -= 3
    return score


def _guess(data: bytes) -> tuple[str, bool]:
    """Decode bytes of unknown charset: ``(text, confident)``.

    UTF-8 when the bytes are valid UTF-8; otherwise the Cyrillic 8-bit charset
    whose reading has the most common Cyrillic lower-case letters.
    """
    if data.isascii():
        return data.decode("ascii"), True
    try:
        return data.decode("utf-8"), True
    except UnicodeDecodeError:
        pass
    sample = data[:_GUESS_SAMPLE]
    best_codec = "utf-8"
    best_score = -(10**18)
    for codec in ("utf-8", *_GUESS_CODECS):
        score = _cyrillic_score(sample.decode(codec, "replace"))
        if score > best_score:
            best_codec, best_score = codec, score
    text = data.decode(best_codec, "replace")
    foreign = [c for c in text[:_GUESS_SAMPLE] if not c.isascii()]
    odd = sum(1 for c in foreign if _letter_weight(c) < 0)
    return text, odd * 5 <= len(foreign)


def _tidy(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")


def decode_text(data: bytes, charset: str | None) -> DecodedText:
    """Decode a text body from bytes under its declared ``charset`` label.

    Broken aliases are understood; without a label, 8-bit text is read as
    UTF-8, windows-1251, KOI8-R, CP866 or ISO-8859-5, whichever reads as
    Cyrillic best. An unknown label is guessed the same way, but marked garbled.

    >>> decode_text("Ход: Кg1-f3".encode("cp1251"), "win-1251")
    DecodedText(text='Ход: Кg1-f3', garbled=False)
    >>> decode_text("Ход: Кg1-f3".encode("koi8-r"), None)
    DecodedText(text='Ход: Кg1-f3', garbled=False)
    >>> decode_text("Ход: Кg1-f3".encode("cp1251"), "x-klingon")
    DecodedText(text='Ход: Кg1-f3', garbled=True)
    """
    codec, known = _resolve_charset(charset)
    garbled = not known
    if codec is None:
        text, confident = _guess(data)
        garbled = garbled or not confident
    else:
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            garbled = True
            if codec == "utf-8":
                text, _ = _guess(data)
            else:
                text = data.decode(codec, "replace")
        except Exception:
            garbled = True
            text, _ = _guess(data)
    text = _tidy(text)
    if "\ufffd" in text or _RE_CONTROL.search(text):
        garbled = True
    return DecodedText(text, garbled)


def _clean(value: str) -> str:
    """A header string without the raw 8-bit bytes the parser left in it."""
    if not any("\udc80" <= c <= "\udcff" for c in value):
        return value
    try:
        data = value.encode("ascii", "surrogateescape")
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace").decode("utf-8")
    return _guess(data)[0]


# ---------------------------------------------------------------------------
# Headers

_RE_FOLD = re.compile(r"\r?\n(?=[ \t])")
_RE_ENCODED_WORD = re.compile(r"=\?([^?\s]+)\?([bBqQ])\?([^?]*)\?=")
_RE_SPACE = re.compile(r"\s+")
_RE_ANGLE_ID = re.compile(r"<([^<>]*)>")


def _unfold(value: str) -> str:
    return _RE_FOLD.sub("", value).strip("\r\n")


def _squash(text: str) -> str:
    return _RE_SPACE.sub(" ", text).strip()


def _base64(data: bytes) -> tuple[bytes, bool]:
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


def _decode_word(charset: str, encoding: str, payload: str) -> bytes:
    data = payload.encode("ascii", "replace")
    if encoding in "bB":
        return _base64(data)[0]
    return binascii.a2b_qp(data, header=True)


def decode_header(value: str) -> str:
    """Decode RFC 2047 encoded words (and raw 8-bit text) in a header value.

    >>> decode_header("=?koi8-r?Q?=E8=CF=C4?= 12")
    'Ход 12'
    >>> decode_header("=?utf-8?B?0KXQvtC0?=\\r\\n =?utf-8?B?0LrQsA==?=")
    'Ходка'
    """
    text = _unfold(value)
    pieces: list[tuple[str, bytes] | str] = []
    position = 0
    for match in _RE_ENCODED_WORD.finditer(text):
        literal = text[position : match.start()]
        after_word = bool(pieces) and isinstance(pieces[-1], tuple)
        if literal and not (literal.isspace() and after_word):
            pieces.append(literal)
        charset = match.group(1).split("*", 1)[0]
        data = _decode_word(charset, match.group(2), match.group(3))
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
            out.append(_clean(piece))
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
    core = _squash(subject)
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
    return _storable(_clean(_RE_SPACE.sub("", value)), MAX_MESSAGE_ID)


def _message_ids(value: str) -> tuple[str, ...]:
    found = [_RE_SPACE.sub("", m) for m in _RE_ANGLE_ID.findall(value)]
    found = [m for m in found if m]
    if not found:
        found = [t.strip("<>") for t in value.split() if "@" in t]
    return tuple(i for i in dict.fromkeys(_id_text(m) for m in found if m) if i)


def _message_id(value: str | None) -> str | None:
    if value is None:
        return None
    ids = _message_ids(value)
    if ids:
        return ids[0]
    compact = _id_text(value).strip("<>")
    return compact or None


def _addresses(values: list[str]) -> list[tuple[str, str]]:
    """(decoded display name, normal address) pairs; names decoded after splitting."""
    try:
        pairs = getaddresses(values)
    except Exception:
        pairs = []
    result = []
    for name, addr in pairs:
        address = _storable(_clean(addr).strip().strip("<>").strip(), 1000)
        address = normal_address(address) if address else ""
        display = _storable(_squash(decode_header(name)), 1000)
        if address or display:
            result.append((display, address))
    return result


# ---------------------------------------------------------------------------
# New text of a plain-text body

_RE_QUOTED = re.compile(r"^[ \t]*>")
_WROTE = (
    r"(?:wrote|writes|написа|пише|пишет|писал|писала|писал\(а\)|написал|написала"
    r"|написал\(а\)|написав|schrieb|a\s+écrit|escribió|scrisse|skrev|schreef)"
)
_RE_ATTR_WROTE = re.compile(rf"(?:^|[\s,>)\]\"]){_WROTE}\s*:$", re.IGNORECASE)
_RE_ATTR_ADDRESS = re.compile(r"[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+\s*>?\s*:$")
_RE_ATTR_MUTT = re.compile(r"^\*\s.*\]\s*:$")
# German and Dutch put the verb before the name: "Am 2.3.2026 schrieb Ivan <ivan@...>:".
_RE_ATTR_VERB_FIRST = re.compile(r"(?:^|\s)(?:schrieb|schreef)\s.{1,200}:$", re.IGNORECASE)
_RE_ATTR_OPENER = re.compile(r"^\s*(?:on|на|в|am|le|el|il|op|em|den)\s", re.IGNORECASE)
_RE_SEPARATOR = re.compile(
    r"^\s*[-=_*]{2,}\s*(?:original\s+message|forwarded\s+message|original\s+e-?mail"
    r"|оригинално\s+съобщение|оригинално\s+писмо|препратено\s+съобщение|препратено\s+писмо"
    r"|исходное\s+сообщение|исходное\s+письмо|оригинальное\s+сообщение"
    r"|пересылаемое\s+сообщение|пересылаемое\s+письмо|пересланное\s+сообщение"
    r"|ursprüngliche\s+nachricht|weitergeleitete\s+nachricht|message\s+d'origine"
    r"|message\s+transféré)\s*[-=_*]*\s*$",
    re.IGNORECASE,
)
_RE_FORWARD_INTRO = re.compile(
    r"^\s*(?:begin\s+forwarded\s+message|начало\s+пересылаемого\s+сообщения"
    r"|начало\s+переадресованного\s+сообщения|начало\s+на\s+препратеното\s+съобщение"
    r"|anfang\s+der\s+weitergeleiteten\s+nachricht)\s*:?\s*$",
    re.IGNORECASE,
)
_RE_RULE = re.compile(r"^\s*_{20,}\s*$")
_RE_HEADER_FROM = re.compile(r"^\s*\*?(?:from|от|von|de|van|od)\*?\s*:\*?\s*\S", re.IGNORECASE)
_RE_HEADER_FIELD = re.compile(
    r"^\s*\*?(?:sent|date|to|cc|subject|изпратено|дата|до|относно|тема|копие|отправлено"
    r"|кому|копия|gesendet|datum|an|betreff|envoyé|à|objet)\*?\s*:",
    re.IGNORECASE,
)
_RE_MOBILE = re.compile(
    r"^\s*(?:sent\s+(?:from|with|via)|get\s+outlook\s+for|изпратено\s+(?:от|с|чрез)"
    r"|отправлено\s+(?:с|со|из|через))\s.{0,60}$",
    re.IGNORECASE,
)
_RE_DEVICE = re.compile(
    r"iphone|ipad|android|samsung|galaxy|mobile|phone|mail|outlook|yahoo|blackberry|huawei"
    r"|xiaomi|\bmy\b|телефон|смартфон|мобил|почт|моя|моят|моего|моём",
    re.IGNORECASE,
)


def _is_signature_start(line: str) -> bool:
    stripped = line.strip()
    if stripped == "--":
        return True
    return bool(_RE_MOBILE.match(line) and _RE_DEVICE.search(line))


def _is_header_block(lines: list[str], i: int) -> bool:
    if not _RE_HEADER_FROM.match(lines[i]):
        return False
    fields = sum(1 for line in lines[i + 1 : i + 7] if _RE_HEADER_FIELD.match(line))
    return fields >= 2


def _looks_like_attribution(text: str) -> bool:
    return bool(
        _RE_ATTR_WROTE.search(text)
        or _RE_ATTR_ADDRESS.search(text)
        or _RE_ATTR_MUTT.match(text)
        or _RE_ATTR_VERB_FIRST.search(text)
    )


def _attribution_span(lines: list[str], i: int) -> int:
    """How many lines from ``i`` form an attribution line ("On ... wrote:"), or 0."""
    for size in (1, 2, 3):
        chunk = lines[i : i + size]
        if len(chunk) < size or any(not c.strip() or _RE_QUOTED.match(c) for c in chunk):
            return 0
        if size > 1 and not (_RE_ATTR_OPENER.match(chunk[0]) or chunk[0].rstrip().endswith("<")):
            return 0
        joined = " ".join(c.strip() for c in chunk)
        if len(joined) > 300:
            return 0
        if _looks_like_attribution(joined):
            return size
    return 0


def _squeeze(lines: Iterable[str]) -> str:
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)


def new_text(text: str) -> str:
    """The new text of a plain-text body: without quotes and signature.

    Lines quoted with ``>`` are dropped wherever they are, so a reply written
    below or between the quoted lines is kept. An attribution line ("On ...
    wrote:", "... написа:", "... пишет:", "... <addr>:") followed by quoted
    lines is dropped with them; followed by unquoted text (the earlier message,
    not marked as a quote) it ends the new text. So do Outlook's
    ``-----Original Message-----`` and header blocks, ``____`` rules, forwarded
    messages, a signature after ``-- `` and "Sent from my iPhone" lines.

    >>> new_text("12... Nc6\\n\\nOn Mon, Ivan wrote:\\n> 12. Nf3\\n")
    '12... Nc6'
    >>> new_text("Ivan wrote:\\n> 12. Nf3\\n\\n12... Nc6\\n-- \\nNf3 chess club")
    '12... Nc6'
    >>> new_text("12... Nc6\\n\\n-----Original Message-----\\nFrom: Ivan\\n12. Nf3")
    '12... Nc6'
    """
    lines = [line.replace("\xa0", " ").rstrip() for line in _tidy(text).split("\n")]
    kept: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if _RE_QUOTED.match(line):
            i += 1
            continue
        if not line.strip():
            kept.append("")
            i += 1
            continue
        if (
            _is_signature_start(line)
            or _RE_SEPARATOR.match(line)
            or _RE_FORWARD_INTRO.match(line)
            or _RE_RULE.match(line)
            or _is_header_block(lines, i)
        ):
            break
        span = _attribution_span(lines, i)
        if span:
            following = i + span
            while following < len(lines) and not lines[following].strip():
                following += 1
            if following < len(lines) and _RE_QUOTED.match(lines[following]):
                i = following
                continue
            break
        kept.append(line)
        i += 1
    return _squeeze(kept)


def _unflow(text: str, delsp: bool) -> str:
    """Undo RFC 3676 ``format=flowed`` soft line breaks (in linear time)."""
    out: list[tuple[int, list[str]]] = []
    soft = False
    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]
        if soft and out and out[-1][0] == depth:
            out[-1][1].append(content)
        else:
            out.append((depth, [content]))
        pieces = out[-1][1]
        soft = content.endswith(" ") and not (len(pieces) == 1 and content == "-- ")
        if soft and delsp:
            pieces[-1] = content[:-1]
    return "\n".join(">" * d + " " + "".join(c) if d else "".join(c) for d, c in out)


# ---------------------------------------------------------------------------
# HTML


@dataclasses.dataclass(frozen=True)
class HtmlText:
    """An HTML body as text: ``full`` with quotes marked ``>``, ``unquoted`` without them.

    ``broken`` is true when the markup could not be parsed and the tags were
    merely stripped (then quotes could not be told apart).
    """

    full: str
    unquoted: str
    broken: bool = False


_VOID_TAGS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param"}
    | {"source", "track", "wbr"}
)
_BLOCK_TAGS = frozenset(
    {"address", "article", "aside", "blockquote", "center", "dd", "div", "dl", "dt"}
    | {"fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5"}
    | {"h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table"}
    | {"tbody", "thead", "tfoot", "tr", "ul", "body", "html"}
)
_HIDDEN_TAGS = frozenset({"style", "script", "title", "template"})
_QUOTE_CLASSES = frozenset(
    {"gmail_quote", "gmail_quote_container", "gmail_extra", "moz-cite-prefix"}
    | {"moz-forward-container", "yahoo_quoted", "gmail_signature", "moz-signature"}
)
_CUT_IDS = frozenset(
    {"divrplyfwdmsg", "appendonsend", "mail-editor-reference-message-container", "stopspelling"}
)
_RE_HTML_SPACE = re.compile(r"[ \t\r\n\f]+")


class _Lines:
    """Text being laid out in lines; ``depth`` marks quoted lines with ``>``.

    Bounded whatever the markup: quotes deeper than :data:`_MAX_QUOTE` are
    marked as that deep, and text beyond :data:`MAX_TEXT` is dropped.
    """

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._parts: list[str] = []
        self._depth = 0
        self._size = 0

    def add(self, text: str, depth: int) -> None:
        if self._size > MAX_TEXT:
            return
        if not self._parts:
            self._depth = min(depth, _MAX_QUOTE)
        self._parts.append(text)
        self._size += len(text)

    def end_line(self, hard: bool) -> None:
        line = "".join(self._parts).replace("\xa0", " ").strip()
        if (line or hard) and self._size <= MAX_TEXT:
            self.lines.append((">" * self._depth + " " + line).rstrip() if self._depth else line)
            self._size += self._depth + 1
        self._parts = []

    def text(self) -> str:
        self.end_line(hard=False)
        return _squeeze(self.lines)


@dataclasses.dataclass
class _Open:
    tag: str
    hides: bool
    drops: bool
    quotes: bool


class _HtmlReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.full = _Lines()
        self.unquoted = _Lines()
        self._open: list[_Open] = []
        self._hidden = 0
        self._dropped = 0
        self._quoted = 0
        self._pre = 0
        self._cut = False

    def _fresh(self) -> bool:
        return not self._dropped and not self._cut

    def _end_line(self, hard: bool) -> None:
        self.full.end_line(hard)
        if self._fresh():
            self.unquoted.end_line(hard)

    def _text(self, text: str) -> None:
        self.full.add(text, self._quoted)
        if self._fresh():
            self.unquoted.add(text, 0)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {k.lower(): (v or "") for k, v in attrs}
        if self._hidden:
            if tag not in _VOID_TAGS:
                self._open.append(_Open(tag, hides=False, drops=False, quotes=False))
            return
        outlook_original = attr.get("id", "").lower() in _CUT_IDS or (
            "outlookmessageheader" in attr.get("class", "").lower().split()
        )
        if outlook_original and not self._dropped:
            # Outlook puts the earlier message after this mark, not inside it.
            self._end_line(hard=False)
            self._cut = True
        if tag == "br":
            self._end_line(hard=True)
            return
        if tag in _BLOCK_TAGS:
            self._end_line(hard=False)
        if tag in ("td", "th"):
            self._text(" ")
        if tag in _VOID_TAGS:
            return
        hides = tag in _HIDDEN_TAGS
        quotes = _is_quote(tag, attr)
        drops = quotes or _is_dropped_block(attr)
        self._open.append(_Open(tag, hides, drops, quotes and tag == "blockquote"))
        self._hidden += hides
        self._dropped += drops
        self._quoted += quotes and tag == "blockquote"
        self._pre += tag == "pre"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID_TAGS:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID_TAGS:
            return
        for index in range(len(self._open) - 1, -1, -1):
            if self._open[index].tag == tag:
                break
        else:
            return
        while len(self._open) > index:
            self._pop()

    def _pop(self) -> None:
        element = self._open.pop()
        if element.tag in _BLOCK_TAGS and not self._hidden:
            self._end_line(hard=False)
        self._hidden -= element.hides
        self._dropped -= element.drops
        self._quoted -= element.quotes
        self._pre -= element.tag == "pre"

    def handle_data(self, data: str) -> None:
        if self._hidden:
            return
        if self._pre:
            first, *rest = data.replace("\r\n", "\n").split("\n")
            self._text(first)
            for line in rest:
                self._end_line(hard=True)
                self._text(line)
            return
        self._text(_RE_HTML_SPACE.sub(" ", data))


def _is_quote(tag: str, attr: Mapping[str, str]) -> bool:
    classes = set(attr.get("class", "").split())
    if classes & _QUOTE_CLASSES - {"gmail_signature", "moz-signature"}:
        return True
    if tag != "blockquote":
        return False
    if attr.get("type", "").lower() == "cite":
        return True
    style = attr.get("style", "").replace(" ", "").lower()
    # Gmail's "indent" button writes a borderless blockquote: that is the writer's own text.
    return not (not classes and "border:none" in style)


def _is_dropped_block(attr: Mapping[str, str]) -> bool:
    classes = set(attr.get("class", "").split())
    return bool(
        classes & _QUOTE_CLASSES
        or attr.get("id", "").lower() == "signature"
        or attr.get("data-smartmail", "") == "gmail_signature"
    )


_RE_TAG = re.compile(r"<[^>]*>?")


def html_to_text(markup: str) -> HtmlText:
    """Lay out an HTML body as text, with and without the quoted parts.

    Style and script are dropped; ``<br>``, ``<p>``, ``<div>``, ``<tr>`` and
    ``<li>`` break lines; entities are decoded. The unquoted text leaves out
    ``<blockquote>``, Gmail's ``div.gmail_quote``, Thunderbird's
    ``.moz-cite-prefix``, signature blocks, and everything from Outlook's
    ``#divRplyFwdMsg`` or ``#appendonsend`` on.

    >>> page = ('<div>Hi,<br>12... N&#1089;6?</div><div>no: Nc6</div>'
    ...         '<blockquote type="cite">12. Nf3</blockquote><p>Bye</p>')
    >>> print(html_to_text(page).unquoted)
    Hi,
    12... Nс6?
    no: Nc6
    Bye
    >>> print(html_to_text(page).full)
    Hi,
    12... Nс6?
    no: Nc6
    > 12. Nf3
    Bye
    """
    reader = _HtmlReader()
    try:
        reader.feed(markup)
        reader.close()
    except Exception:
        import html

        stripped = html.unescape(_RE_TAG.sub("\n", markup))
        flat = _squeeze(_squash(line) for line in stripped.split("\n"))
        return HtmlText(flat, flat, broken=True)
    return HtmlText(reader.full.text(), reader.unquoted.text())


# ---------------------------------------------------------------------------
# MIME structure

_BROKEN_STRUCTURE = (
    email_errors.MissingHeaderBodySeparatorDefect,
    email_errors.StartBoundaryNotFoundDefect,
    email_errors.CloseBoundaryNotFoundDefect,
    email_errors.NoBoundaryInMultipartDefect,
    email_errors.MultipartInvariantViolationDefect,
)
_MAX_DEPTH = 12
_RE_META_CHARSET = re.compile(rb"""<meta[^>]*charset\s*=\s*["']?\s*([\w.:\-]+)""", re.IGNORECASE)


@dataclasses.dataclass
class _Piece:
    full: str
    unquoted: str
    garbled: bool


def _header(part: Message, name: str) -> str | None:
    for key, value in part.raw_items():
        if key.lower() == name:
            return _unfold(str(value))
    return None


def _content_type(part: Message) -> str:
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
    return _clean(str(value))


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
            return _base64(text.encode("ascii", "replace"))
    try:
        # Raw bytes for 7bit/8bit, decoded for quoted-printable, with no charset applied.
        data = part.get_payload(decode=True)
    except Exception:
        return b"", True
    return (data, encoding == "base64") if isinstance(data, bytes) else (b"", False)


def _text_piece(part: Message, html: bool) -> _Piece:
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
        return _Piece(rendered.full, rendered.unquoted, garbled or rendered.broken)
    text = decoded.text
    if (_param(part, "format") or "").lower() == "flowed":
        text = _unflow(text, (_param(part, "delsp") or "").lower() == "yes")
    return _Piece(text, text, garbled)


def _pieces(part: Message, depth: int) -> list[_Piece]:
    """The readable text pieces of a MIME part, attachments and forwards left out."""
    if depth > _MAX_DEPTH:
        return [_Piece("", "", True)]
    broken = any(isinstance(d, _BROKEN_STRUCTURE) for d in part.defects)
    ctype = _content_type(part)
    maintype, _, subtype = ctype.partition("/")
    if maintype == "message":
        result: list[_Piece] = []
    elif part.is_multipart():
        payload = part.get_payload()
        children = (
            [c for c in payload if isinstance(c, Message)] if isinstance(payload, list) else []
        )
        if subtype == "alternative":
            result = _alternative(children, depth)
        elif subtype in ("related", "signed"):
            result = _pieces(children[0], depth + 1) if children else []
        elif subtype == "encrypted":
            result = []
        else:
            result = []
            for child in children:
                if not _is_attachment(child):
                    result.extend(_pieces(child, depth + 1))
    elif ctype in ("text/plain", "text/html"):
        result = [_text_piece(part, html=ctype == "text/html")]
    elif maintype == "multipart":
        broken = True
        result = []
    else:
        result = []
    if broken:
        result.append(_Piece("", "", True))
    return result


def _alternative(children: list[Message], depth: int) -> list[_Piece]:
    """The plain-text alternative if it says anything, else the richest one that does."""
    readable = [c for c in children if not _is_attachment(c)]
    plain = [c for c in readable if _content_type(c) == "text/plain"]
    others = [c for c in reversed(readable) if c not in plain]
    tried: list[_Piece] = []
    for child in plain + others:
        pieces = _pieces(child, depth + 1)
        if any(p.full.strip() for p in pieces):
            return pieces
        tried.extend(pieces)
    return [_Piece("", "", any(p.garbled for p in tried))]


# ---------------------------------------------------------------------------
# Machine mail

_AUTOREPLY_HEADERS = ("x-autoreply", "x-autorespond", "x-autoreply-from", "x-mail-autoreply")
_LIST_HEADERS = (
    "list-id",
    "list-unsubscribe",
    "list-post",
    "list-help",
    "list-subscribe",
    "list-owner",
    "list-archive",
)
_REPORT_TYPES = frozenset(
    {
        "multipart/report",
        "message/delivery-status",
        "message/global-delivery-status",
        "message/disposition-notification",
    }
)


_RE_DAEMON_LOCAL = re.compile(r"^(?:mailer[-_.]?daemon|postmaster|mail[-_.]?daemon)$")
_RE_DAEMON_NAME = re.compile(
    r"mail\s*delivery\s*(?:system|subsystem|service)|mailer[-_ ]?daemon|postmaster"
    r"|mail\s*administrator|почтов\w*\s+(?:служба|система)",
    re.IGNORECASE,
)
# Subjects that may be a person's own words ("I am away") as well as an autoresponder's:
# an out-of-office reply unless the text asks for leave (then a player wrote it).
_RE_AWAY = re.compile(
    r"^\s*(?:отсъствам|отсъствие|в\s+отпуск[еа]?|в\s+отпуска|on\s+vacation|on\s+holiday"
    r"|on\s+leave|away)(?:\s*[:：\-–—(]|\s*$|\s+(?:до|until|till)\b)",
    re.IGNORECASE,
)
# Out-of-office replies that carry no header saying so, known by how their subject begins.
_RE_OUT_OF_OFFICE = re.compile(
    r"^\s*(?:out\s+of\s+(?:the\s+)?office|automatic\s+reply|auto[-\s]?reply|auto[-\s]?response"
    r"|auto\s*:|autosvar|abwesenheitsnotiz|away\s+from\s+(?:the|my)\s+office"
    r"|vacation\s+(?:reply|response|notice)|i\s+am\s+out\s+of\s+the\s+office"
    r"|автоматичен\s+отговор|автоотговор|извън\s+офиса|вън\s+от\s+офиса"
    r"|автоответ|автоматический\s+ответ|автоматическое\s+уведомление|вне\s+офиса"
    r"|нет\s+на\s+месте|отсутствую\s+в\s+офисе)(?:\s*[:：\-–—(]|\s*$)",
    re.IGNORECASE,
)


def _first_token(value: str) -> str:
    return value.split(";", 1)[0].strip().lower()


def _own(address: str, own: Collection[str]) -> bool:
    return bool(address) and without_tag(address) in own


def _auto_kind(
    message: Message,
    headers: Mapping[str, str],
    from_addr: str,
    senders: Iterable[tuple[str, str]],
    subject: str,
    body: str,
    own_addresses: Collection[str],
) -> AutoKind | None:
    own = {without_tag(normal_address(a)) for a in own_addresses}
    if "x-mailbot-event" in headers or any(_own(a, own) for _, a in senders):
        return AutoKind.OWN_MAIL
    types_seen = {_content_type(message)}
    payload = message.get_payload() if message.is_multipart() else None
    if isinstance(payload, list):
        types_seen.update(_content_type(c) for c in payload[:50] if isinstance(c, Message))
    if types_seen & _REPORT_TYPES or "x-failed-recipients" in headers:
        return AutoKind.DELIVERY_REPORT
    if any(
        _RE_DAEMON_LOCAL.match(a.partition("@")[0]) or _RE_DAEMON_NAME.search(n) for n, a in senders
    ):
        return AutoKind.MAILER_DAEMON
    if _first_token(headers.get("auto-submitted", "no") or "no") != "no":
        return AutoKind.AUTO_SUBMITTED
    precedence = _first_token(headers.get("precedence", "") or headers.get("x-precedence", ""))
    suppress = {t.strip().lower() for t in headers.get("x-auto-response-suppress", "").split(",")}
    if (
        any(h in headers for h in _AUTOREPLY_HEADERS)
        or suppress & {"all", "oof"}
        or _first_token(headers.get("x-autogenerated", "")) == "reply"
        or precedence == "auto_reply"
    ):
        return AutoKind.AUTOREPLY
    if any(h in headers for h in _LIST_HEADERS):
        return AutoKind.MAILING_LIST
    if precedence in ("bulk", "junk", "list"):
        return AutoKind.PRECEDENCE
    if _RE_SPACE.sub("", headers.get("return-path", "x")) == "<>":
        return AutoKind.EMPTY_RETURN_PATH
    if _RE_OUT_OF_OFFICE.match(subject):
        return AutoKind.OUT_OF_OFFICE
    if _RE_AWAY.match(subject) and not read_words(body).has(Word.LEAVE):
        return AutoKind.OUT_OF_OFFICE
    return None


# ---------------------------------------------------------------------------
# The letter

_KEPT_HEADERS = frozenset(
    {
        "from",
        "sender",
        "reply-to",
        "to",
        "cc",
        "subject",
        "date",
        "message-id",
        "in-reply-to",
        "references",
        "return-path",
        "auto-submitted",
        "precedence",
        "content-type",
        "user-agent",
        "x-mailer",
        "x-auto-response-suppress",
        "x-autogenerated",
        "x-failed-recipients",
        "x-mailbot-event",
        "x-mailbot-game",
        "x-precedence",
        *_AUTOREPLY_HEADERS,
        *_LIST_HEADERS,
    }
)


def _date(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return parsedate_to_datetime(value)
    except Exception:
        return None


def _storable(value: str, limit: int) -> str:
    """Text as the database can keep it: no NUL or other control characters, bounded.

    >>> _storable("a\\x00b\\x07c", 10)
    'abc'
    """
    if _RE_UNSTORABLE.search(value):
        value = _RE_UNSTORABLE.sub("", value)
    return value[:limit]


def _one_line(value: str, limit: int) -> str:
    """A header value on one line (CR and LF from encoded words become spaces), storable."""
    return _storable(_squash(value), limit)


def _text_body(value: str) -> str:
    return _storable(value, MAX_TEXT)


def _message(raw: bytes) -> tuple[Message, bool]:
    """The parsed message, and whether its body could be read.

    A body the parser cannot take (a thousand nested parts exhaust its
    recursion) leaves the header fields: the sender is still known.
    """
    try:
        return BytesParser(policy=email_policy.compat32).parsebytes(raw), True
    except (RecursionError, MemoryError, Exception):
        pass
    head = raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    try:
        return BytesHeaderParser(policy=email_policy.compat32).parsebytes(head), False
    except Exception:
        return Message(), False


def _read(raw: bytes, own_addresses: Collection[str]) -> Letter:
    message, readable = _message(raw)
    items = [(k.lower(), _unfold(str(v))) for k, v in message.raw_items()]
    headers: dict[str, str] = {}
    for key, value in items:
        if key in _KEPT_HEADERS and key not in headers:
            headers[key] = _storable(_clean(value), MAX_HEADER)

    def every(name: str) -> list[str]:
        return [v for k, v in items if k == name]

    from_fields = every("from")
    senders = tuple(_addresses(from_fields))
    from_name, from_addr = next((p for p in senders if p[1]), ("", ""))
    if len(from_addr) > MAX_ADDRESS:
        from_addr = ""
    subject = _one_line(decode_header(every("subject")[0]), MAX_SUBJECT) if every("subject") else ""
    pieces = _pieces(message, 0) if readable else [_Piece("", "", True)]
    full = _squeeze("\n".join(p.full for p in pieces if p.full).split("\n"))
    unquoted = "\n".join(p.unquoted for p in pieces if p.unquoted)
    garbled = any(p.garbled for p in pieces) or not items
    if not items:
        # Not a message at all: no header field could be read.
        full = unquoted = ""
    body = _text_body(new_text(unquoted))
    return Letter(
        message_id=_message_id(headers.get("message-id")),
        raw_sha256=hashlib.sha256(raw).hexdigest(),
        from_addr=from_addr,
        from_name=_one_line(from_name, 200),
        senders=senders[:10],
        from_fields=len(from_fields),
        to_addrs=tuple(a for _, a in _addresses(every("to")))[:50],
        cc_addrs=tuple(a for _, a in _addresses(every("cc")))[:50],
        subject=subject,
        subject_core=subject_core(subject),
        game_tag=game_tag(subject),
        in_reply_to=_message_ids(headers.get("in-reply-to", ""))[:10],
        references=_message_ids(" ".join(every("references")))[-MAX_REFERENCES:],
        date_header=_date(headers.get("date")),
        body=body,
        full_text=_text_body(full),
        # never cut: a verdict past the cut would read as none (they are not stored)
        authentication_results=tuple(
            _storable(_clean(v), len(v)) for v in every("authentication-results")
        ),
        auto=_auto_kind(message, headers, from_addr, senders, subject, body, own_addresses),
        garbled=garbled,
        readable=readable and bool(items),
        headers=types.MappingProxyType(headers),
    )


def read_letter(raw: bytes, *, own_addresses: Collection[str] = ()) -> Letter:
    """Read one raw message. Never raises: unreadable mail gives an empty, garbled letter.

    ``own_addresses`` are the bot's own addresses: mail from them is
    :attr:`AutoKind.OWN_MAIL`.

    >>> letter = read_letter(b"\\xff\\xfe garbage")
    >>> letter.body, letter.garbled, letter.message_id
    ('', True, None)
    >>> read_letter(b"From: chess@example.net\\r\\n\\r\\nhi",
    ...             own_addresses={"Chess@example.net"}).auto
    <AutoKind.OWN_MAIL: 'own-mail'>
    """
    try:
        return _read(bytes(raw), own_addresses)
    except Exception:
        try:
            digest = hashlib.sha256(bytes(raw)).hexdigest()
        except Exception:
            digest = ""
        return Letter(message_id=None, raw_sha256=digest, garbled=True)
