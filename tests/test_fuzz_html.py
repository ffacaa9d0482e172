"""Fuzzing the reading of HTML bodies: hostile markup in broken MIME trees.

Hypothesis builds markup from what breaks parsers (unclosed ``<a b='``,
``<!--`` and ``<![CDATA[``, nesting thousands deep, end tags that close
nothing, entities right and wrong, huge attributes, NUL, bytes of other
charsets) repeated up to about 100 kB, and sends it in a letter as senders
and broken mailers do: a lone HTML part, a ``multipart/alternative`` with an
empty plain part, alternatives nested in mixed trees, boundaries never
closed or never there, base64 cut short, quoted-printable, charsets unknown
or wrong. Whatever comes, the letter is read (its sender known), in time
linear in its size. And a move written in HTML, around greetings, quotes and
signatures, reads as the move meant.
"""

from __future__ import annotations

import pytest
from fuzzing import assert_linear_time, assert_scales_linearly, budget, cpu_seconds, note_input
from fuzzing_mail import (
    CLOSINGS,
    GREETINGS,
    HEAD,
    Written,
    assert_read,
    benign_html,
    fill,
    html_letter,
    judged,
    no_move,
    reading,
    transfer_encoded,
    written_moves,
)
from hypothesis import given
from hypothesis import strategies as st

from mailbot.mail.htmltext import MAX_OPEN, html_to_text
from mailbot.mail.letters import Letter
from mailbot.rules.notation import write_last_moves

#: What turns the rest of the markup into one text or comment, while it lasts.
SWALLOWING = [
    "<a b='",
    '<a b="',
    "<a b=",
    "<!--",
    "<![CDATA[",
    "<!DOCTYPE html",
    "<?xml version='1.0'?>",
    "<style>",
    "<script>",
    "<textarea>",
    "<plaintext>",
    "<title>",
    "<noscript>",
    "<iframe>",
    "<",
    "</",
]
#: Elements, end tags, entities and text: the structure the reader follows.
STRUCTURE = [
    "-->",
    "]]>",
    "<b>",
    "<b></p>",
    "<q></x>",
    "<blockquote></div>",
    "<div>",
    "<p>",
    "<li>",
    "<td>",
    "<tr>",
    "<table>",
    "<select><option>",
    "<pre>",
    "<blockquote>",
    '<blockquote type="cite">',
    '<div class="gmail_quote">',
    '<div id="divRplyFwdMsg">',
    '<div class="moz-signature">',
    "<svg><foreignObject>",
    "<math><mi>",
    "<html a=1>",
    "<body>",
    "<head><meta charset=koi8-r>",
    "</p>",
    "</div>",
    "</x>",
    "</blockquote>",
    "</body>",
    "</html>",
    "</br>",
    ">",
    "<br>",
    "<br/>",
    "<x/>",
    "&",
    "&amp",
    "&nbsp;",
    "&#1089;",
    "&#x41f;",
    "&#99999999999;",
    "&#0;",
    "&#xD800;",
    "&nosuchentityatall;",
    "\x00",
    "\r",
    "\n",
    "\u202e",
    "\ufeff",
    "\ud800",
    "12. Nf3",
    "ход Кg1-f3",
    "5254",
    "> 1. e4",
    "-- ",
]


@st.composite
def attribute_flood(draw: st.DrawFn) -> str:
    """One huge attribute, or many (the same name again, or all different)."""
    n = draw(st.integers(1, 5000))
    kind = draw(st.sampled_from(["long", "many", "same"]))
    if kind == "long":
        return f"<a title='{'x' * n * 10}'>"
    if kind == "many":
        return "<a " + " ".join(f"a{i}=1" for i in range(n)) + ">"
    return "<a " + "x=1 " * n + ">"


#: A piece of markup to repeat: mostly structure, sometimes with what swallows the rest.
UNITS = st.one_of(
    st.lists(st.sampled_from(STRUCTURE), min_size=1, max_size=6),
    st.lists(
        st.one_of(st.sampled_from(SWALLOWING + STRUCTURE), st.text(max_size=12), attribute_flood()),
        min_size=1,
        max_size=6,
    ),
).map("".join)

SIZES = st.sampled_from([30_000, 100_000, 5_000, 600, 64, 0])  # large ones first: drawn often
CHARSETS = ["utf-8", "cp1251", "koi8-r", "utf-16", "iso-2022-jp", "x-unknown", "", "utf-7"]
ENCODINGS = ["8bit", "7bit", "base64", "quoted-printable", "cut-base64", "x-uuencode"]
TREES = [
    "single",
    "alternative",
    "alternative-unclosed",
    "alternative-no-boundary",
    "mixed-alternative",
    "related",
    "deep",
    "html-then-plain",
]


def _body(draw: st.DrawFn, markup: str) -> tuple[str, bytes]:
    """The part's header lines and its encoded body: a charset (right, wrong or unknown),
    maybe with bytes of another charset mixed in, in a transfer encoding."""
    charset = draw(st.sampled_from(CHARSETS))
    codec = charset if charset in ("utf-8", "cp1251", "koi8-r", "utf-16") else "utf-8"
    data = markup.encode(codec, "surrogatepass" if codec == "utf-8" else "replace")
    if draw(st.booleans()):
        mixed = "<p>Поздрави, ход Кg8-f6</p>".encode(draw(st.sampled_from(["cp1251", "koi8-r"])))
        data = data + mixed + data[: draw(st.integers(0, 50))]
    encoding = draw(st.sampled_from(ENCODINGS))
    if encoding == "cut-base64":
        data = transfer_encoded(data, "base64")
        data = data[: draw(st.integers(0, len(data)))]
        encoding = "base64"
    else:
        data = transfer_encoded(data, encoding)
    params = f"; charset={charset}" if charset else ""
    return (
        f"Content-Type: text/html{params}\r\nContent-Transfer-Encoding: {encoding}\r\n",
        data,
    )


@st.composite
def hostile_letters(draw: st.DrawFn) -> bytes:
    """A letter with hostile markup of up to about 100 kB in a MIME tree, whole or broken."""
    markup = fill(draw(UNITS), draw(SIZES))
    head, data = _body(draw, markup)
    html = head.encode() + b"\r\n" + data
    plain = b"Content-Type: text/plain; charset=utf-8\r\n\r\n" + draw(
        st.sampled_from([b"", b" \r\n", b"12. Nf3", b"\xff\xfe"])
    )
    tree = draw(st.sampled_from(TREES))

    def multipart(subtype: str, parts: list[bytes], boundary: str = "=b=", close: bool = True):
        body = b"".join(b"--" + boundary.encode() + b"\r\n" + p + b"\r\n" for p in parts)
        end = b"--" + boundary.encode() + b"--\r\n" if close else b""
        return f'Content-Type: multipart/{subtype}; boundary="{boundary}"\r\n\r\n'.encode() + (
            body + end
        )

    if tree == "single":
        part = html
    elif tree == "alternative":
        part = multipart("alternative", [plain, html])
    elif tree == "alternative-unclosed":
        part = multipart("alternative", [plain, html], close=False)
    elif tree == "alternative-no-boundary":
        part = b'Content-Type: multipart/alternative; boundary="never"\r\n\r\n' + html
    elif tree == "mixed-alternative":
        part = multipart("mixed", [multipart("alternative", [plain, html], "=a="), plain], "=m=")
    elif tree == "related":
        part = multipart("related", [html, b"Content-Type: image/png\r\n\r\n\x89PNG"])
    elif tree == "deep":
        part = html
        for level in range(draw(st.integers(1, 40))):
            part = multipart(draw(st.sampled_from(["mixed", "alternative"])), [part], f"d{level}")
    else:
        part = multipart("alternative", [html, plain])
    return HEAD.encode() + part


def read_hostile(raw: bytes) -> Letter:
    return reading(raw)[0]


@pytest.mark.fuzz
@budget(500)
@given(raw=hostile_letters())
def test_hostile_html_is_read_without_error_in_linear_time(raw: bytes) -> None:
    letters: list[Letter] = []
    seconds = cpu_seconds(lambda: letters.append(read_hostile(raw)))
    note_input(len(raw), seconds)
    assert_read(letters[0])
    assert_linear_time(read_hostile, raw, benign_html, first=seconds)


@pytest.mark.fuzz
@budget(40)
@given(unit=UNITS)
def test_hostile_html_eight_times_as_long_takes_at_most_twenty_times_as_long(unit: str) -> None:
    """The same markup at 32 kB and at 256 kB: a quadratic reader takes 64 times as long."""

    def make(size: int) -> bytes:
        return html_letter(fill(unit, size))

    note_input(*assert_scales_linearly(read_hostile, make, size=32_000))


# -- a move in HTML ---------------------------------------------------------------------


LAYOUTS = [
    "<p>{greeting}</p><p>{move}</p><p>{closing}</p>",
    "<div>{greeting}<br>{move}<br><br>{closing}</div>",
    '<div dir="ltr"><div>{move}</div></div><br><div class="gmail_quote"><div dir="ltr" '
    'class="gmail_attr">On Mon, Petar wrote:<br></div><blockquote class="gmail_quote" '
    'style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204)">'
    "{earlier}</blockquote></div>",
    '<div class="moz-cite-prefix">On 02.03.2026 Petar wrote:<br></div>'
    '<blockquote type="cite">{earlier}</blockquote><p>{move}</p>'
    '<pre class="moz-signature" cols="72">-- \n{closing}</pre>',
    '<html><head><style>p {{margin:0}}</style></head><body><p class="MsoNormal">{move}'
    '<o:p></o:p></p><div id="divRplyFwdMsg"><b>From:</b> Petar<br>{earlier}</div></body></html>',
    "<pre>{greeting}\n{move}\n\n{closing}</pre>",
    "<span style='font-family:Arial'>{greeting}</span><div><b>{move}</b></div>"
    '<div id="signature">{closing}</div>',
    "<table><tr><td>{move}</td></tr></table><p>{closing}</p>",
]


def _in_html(text: str) -> str:
    """Text as markup: special characters escaped, lines broken with ``<br>``."""
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return escaped.replace("\n", "<br>\n")


@st.composite
def moves_in_html(draw: st.DrawFn) -> tuple[Written, bytes]:
    """A move written in an HTML letter, with greetings, a closing and a quoted earlier
    move around it, in a charset that may turn letters into entities."""
    written = draw(written_moves())
    layout = draw(st.sampled_from(LAYOUTS))
    move = _in_html(written.text)
    if draw(st.booleans()):
        move = move.replace(". ", ".&nbsp;", 1)
    earlier = _in_html(write_last_moves(written.board, written.notation))
    pre = layout.startswith("<pre>")
    markup = layout.format(
        greeting=draw(st.sampled_from(GREETINGS)),
        move=written.text if pre else move,
        closing=_in_html(draw(st.sampled_from(CLOSINGS))),
        earlier=earlier,
    )
    charset = draw(st.sampled_from(["utf-8", "cp1251", "koi8-r", "us-ascii"]))
    encoding = draw(st.sampled_from(["8bit", "base64", "quoted-printable"]))
    return written, html_letter(markup, charset, encoding)


def test_the_words_around_a_move_hold_no_move() -> None:
    assert all(no_move(phrase) for phrase in (*GREETINGS, *CLOSINGS))


@pytest.mark.fuzz
@budget(300)
@given(case=moves_in_html())
def test_a_move_written_in_html_reads_as_the_move_meant(case: tuple[Written, bytes]) -> None:
    written, raw = case
    read: list[tuple[Letter, str]] = []
    note_input(len(raw), cpu_seconds(lambda: read.append(reading(raw))))
    letter, text = read[0]
    judgement = judged(written, text)
    assert_read(letter)
    assert judgement.accepted, (written.kind, written.text, text, judgement)
    assert judgement.move == written.move, (written.kind, written.text, text, judgement)


# -- what the fuzzing found -----------------------------------------------------------


def test_end_tags_that_close_nothing_in_deep_markup_take_linear_time() -> None:
    """``<b></p>`` repeated: libxml2 looked through every open element for each end tag,
    400 kB took 4 s; markup deeper than MAX_OPEN is now read no further."""

    def make(size: int) -> bytes:
        return html_letter("<p>12... Nc6</p>" + fill("<b></p>", size))

    assert_scales_linearly(read_hostile, make, size=50_000)
    letter = read_hostile(make(400_000))
    assert (letter.body, letter.garbled) == ("12... Nc6", True)


def test_a_reply_below_quotes_nested_short_of_the_bound_is_still_read() -> None:
    depth = (MAX_OPEN - 10) // 2
    nested = '<blockquote type="cite"><div>12. Nf3' * depth + "</div></blockquote>" * depth
    text = html_to_text(f"<html><body>{nested}<p>12... Nc6</p></body></html>")
    assert (text.unquoted, text.broken) == ("12... Nc6", False)
