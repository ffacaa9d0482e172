"""Quoting: the new text of a plain-text body, without quotes, attributions and signatures.

A player answers above (or below) the quoted earlier letter: lines starting
with ``>``, what follows a localized "wrote:" line or an Outlook header
block, a forwarded message and a signature after ``-- `` are not new text.

    >>> new_text("12... Ng8-f6\\n\\n-- \\nIvan")
    '12... Ng8-f6'
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from mailbot.mail.charsets import tidy

__all__ = ["new_text", "squeeze_blank_lines", "unflow"]

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
    """Whether ``text`` (one to three stripped lines joined) is an attribution line. Every
    pattern ends in a colon, so a text that does not is none without a search.

    >>> _looks_like_attribution("On Mon, Ivan wrote:"), _looks_like_attribution("12. Nf3")
    (True, False)
    """
    return text.endswith(":") and bool(
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
        if not chunk[-1].rstrip().endswith(":"):
            # no attribution of this size (each ends in a colon); where the joined
            # lines were over the length, the longer sizes are too and give 0 as well
            continue
        joined = " ".join(c.strip() for c in chunk)
        if len(joined) > 300:
            return 0
        if _looks_like_attribution(joined):
            return size
    return 0


def squeeze_blank_lines(lines: Iterable[str]) -> str:
    """The lines joined, runs of blank lines made one, none at the start or end."""
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
    lines = [line.replace("\xa0", " ").rstrip() for line in tidy(text).split("\n")]
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
    return squeeze_blank_lines(kept)


def unflow(text: str, delsp: bool) -> str:
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
