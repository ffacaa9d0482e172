"""HTML bodies as text: blocks become lines, quoted blocks are marked ``>``.

The markup is read by libxml2's HTML parser (through lxml), which is linear
in its input whatever the markup: the standard library's ``html.parser``
rescans the rest of the input for every unclosed tag or comment, so a mail of
``<a b='`` repeated takes minutes. libxml2 looks through the open elements
for every end tag it cannot match, so markup nested deeper than
:data:`MAX_OPEN` elements is read no further (``<b></p>`` repeated would
otherwise take time quadratic in its length).

>>> html_to_text("<p>1. e4</p><blockquote>1. d4</blockquote>").unquoted
'1. e4'
"""

from __future__ import annotations

import dataclasses
import html
import re
from collections.abc import Mapping

from lxml import etree

from mailbot.mail.headers import squash_space
from mailbot.mail.quoting import squeeze_blank_lines
from mailbot.mail.storable import MAX_QUOTE, MAX_TEXT
from mailbot.rules.errors import MailError

__all__ = ["MAX_OPEN", "HtmlText", "html_to_text"]

#: Elements open at once past which the rest of the markup is not read. Mail
#: nests a few dozen deep (a long thread of replies, each quoting the one
#: before, a few hundred); what a writer wrote now comes before the deep part.
MAX_OPEN = 512


@dataclasses.dataclass(frozen=True)
class HtmlText:
    """An HTML body as text: ``full`` with quotes marked ``>``, ``unquoted`` without them.

    ``broken`` is true when the markup could not be parsed and the tags were
    merely stripped (then quotes could not be told apart), or when it nests
    deeper than :data:`MAX_OPEN` and the rest was not read.
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

    Bounded whatever the markup: quotes deeper than :data:`MAX_QUOTE` are
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
            self._depth = min(depth, MAX_QUOTE)
        self._parts.append(text)
        self._size += len(text)

    def end_line(self, hard: bool) -> None:
        if self._parts:
            line = "".join(self._parts).replace("\xa0", " ").strip()
            self._parts = []
        elif hard:
            line = ""
        else:
            return  # no text since the last line ended: a block around a block
        if (line or hard) and self._size <= MAX_TEXT:
            self.lines.append((">" * self._depth + " " + line).rstrip() if self._depth else line)
            self._size += self._depth + 1

    def text(self) -> str:
        self.end_line(hard=False)
        return squeeze_blank_lines(self.lines)


class MarkupTooDeep(MailError):
    """The markup nests deeper than :data:`MAX_OPEN`: the rest is not read (caught here)."""


@dataclasses.dataclass
class _Open:
    tag: str
    hides: bool
    drops: bool
    quotes: bool


class _HtmlReader:
    """The target of lxml's parser: elements open and close in order, text comes between."""

    def __init__(self) -> None:
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

    def start(self, tag: str, attrib: Mapping[str, str]) -> None:
        if len(self._open) >= MAX_OPEN:
            raise MarkupTooDeep
        tag = tag.lower()
        attr = {k.lower(): (v or "") for k, v in attrib.items()} if attrib else {}
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

    def end(self, tag: str) -> None:
        tag = tag.lower()
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

    def close(self) -> None:
        """The end of the input: lxml has closed every element already."""

    def data(self, data: str) -> None:
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
    # libxml2 stops at a NUL; a stray one must not hide the rest of the body
    markup = markup.replace("\x00", "\ufffd")
    try:
        parser = etree.HTMLParser(target=reader, recover=True, no_network=True)
        parser.feed(markup)
        parser.close()
    except MarkupTooDeep:
        # what was read so far stands: the rest is deeper than any writer nests
        return HtmlText(reader.full.text(), reader.unquoted.text(), broken=True)
    except (etree.LxmlError, ValueError):
        stripped = html.unescape(_RE_TAG.sub("\n", markup))
        flat = squeeze_blank_lines(squash_space(line) for line in stripped.split("\n"))
        return HtmlText(flat, flat, broken=True)
    return HtmlText(reader.full.text(), reader.unquoted.text())
