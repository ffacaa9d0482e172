"""Charsets: bytes of a mail body or header decoded into text, guessing when they lie.

A declared charset is mapped through the aliases mail programs write
(``win-1251``, ``x-cp1251``, ``utf8``); an undeclared or unknown one is
guessed among UTF-8 and the Cyrillic codecs by how Bulgarian and Russian
text looks. The result says whether it had to guess or replace.

    >>> decode_text("Ход".encode("cp1251"), "x-cp1251")
    DecodedText(text='Ход', garbled=False)
"""

from __future__ import annotations

import codecs
import dataclasses
import re

__all__ = ["DecodedText", "clean_header", "decode_text", "tidy"]

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


def tidy(text: str) -> str:
    """Line ends made ``\n``, a leading byte-order mark dropped."""
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
    text = tidy(text)
    if "\ufffd" in text or _RE_CONTROL.search(text):
        garbled = True
    return DecodedText(text, garbled)


#: A raw 8-bit byte the parser left in a header string (as a surrogate escape).
_RE_RAW_BYTE = re.compile("[\udc80-\udcff]")


def clean_header(value: str) -> str:
    """A header string without the raw 8-bit bytes the parser left in it."""
    if not _RE_RAW_BYTE.search(value):
        return value
    try:
        data = value.encode("ascii", "surrogateescape")
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace").decode("utf-8")
    return _guess(data)[0]
