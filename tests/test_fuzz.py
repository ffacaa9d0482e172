"""Fuzzing the desk with messages of random structure, on SQLite and PostgreSQL.

Hypothesis builds messages from parts a hostile or broken sender might use:
header fields in any order and number (Froms of players, the director,
strangers, garbage), encoded words (RFC 2047) in known, unknown and wrong
charsets, with NUL and line breaks, floods of header fields, game tags, MIME
trees of random depth (up to a thousand levels) with random content types,
charsets, parameters (RFC 2231, doubled, unterminated), boundaries (empty,
overlong, inside the parts), transfer encodings and bodies (moves, words,
binary noise, base64 cut short or with foreign bytes, quoted-printable with
bad escapes). Whatever comes, the letter is read without an error in time
linear in its size, and the desk records the message and decides its fate
without an error: a failure the desk had to catch (``Outcome.FAILED``) is a
bug this test reports.
"""

from __future__ import annotations

import base64
import itertools
import quopri
from collections.abc import Iterator

import pytest
from deskbench import BLACK, BOT, GREY, IVAN, TD, WHITE, Bench, at
from fuzzing import assert_linear_time, assert_scales_linearly, budget, cpu_seconds, note_input
from fuzzing_mail import benign_plain
from hypothesis import given
from hypothesis import strategies as st

from mailbot.desk.pipeline import Outcome
from mailbot.mail import letters
from mailbot.rules.errors import MailbotError

#: The module's fixture is costly: its tests run in one worker under pytest-xdist.
pytestmark = pytest.mark.xdist_group("fuzz")

SENDERS = [
    WHITE,
    BLACK,
    GREY,
    IVAN,
    TD,
    BOT,
    "eve@evil.example",
    "иван@пример.бг",
    f"{WHITE} <eve@evil.example>",
    f'"{TD}" <eve@evil.example>',
    "=?utf-8?Q?a=00b?= <eve@evil.example>",
    "MAILER_DAEMON@mx.example.org",
    "undisclosed-recipients:;",
    "",
    "<>",
    "@@@",
]
WORDS = [
    "1. e2-e4",
    "1... e7-e5",
    "1. Кg1-f3",
    "кg8-f6",
    "5254",
    "draw",
    "resign",
    "accept",
    "claim",
    "status",
    "help",
    "leave 2026-06-01 2026-06-30",
    "forfeit PX-1/1 black",
    "penalty PX-1/1 white 10",
    "confirm",
    "\x00",
    "> 1. d2-d4",
    "-- ",
    "Ход: Тf1:f7",
]
CHARSETS = ["utf-8", "cp1251", "koi8-r", "idna", "x-unknown", "utf-7", "", "base64", "utf-16"]
TYPES = ["text/plain", "text/html", "application/octet-stream", "message/rfc822", "text/x-junk"]
FIELDS = ["In-Reply-To", "References", "Auto-Submitted", "Authentication-Results", "Precedence"]
FIELDS += ["Return-Path", "Date", "X-Junk", "Content-Type", "Sender", "List-Id"]
ENCODINGS = ["7bit", "8bit", "base64", "quoted-printable", "x-uuencode", "binary"]
#: Content-Type parameters as broken mailers write them (RFC 2231, doubled, unterminated).
PARAMS = [
    "",
    "; charset*=utf-8''%D0%BA%D0%BE",
    "; charset*=''",
    "; charset*0*=utf-8''%D0; charset*1*=%BA",
    '; charset="utf-8',
    "; charset=utf-8; charset=cp1251",
    "; format=flowed; delsp=yes",
    "; format=flowed",
    "; name*=x''%ZZ",
    '; name="move.txt"',
    ";;;=;",
    "; charset=" + "x" * 3000,
]
#: Encoded words (RFC 2047), right and wrong.
WORDS_2047 = [
    "=?koi8-r?B?98/E?=",
    "=?windows-1251?Q?=D5=EE=E4?=",
    "=?utf-8*bg?Q?=D1=85?=",
    "=?x-unknown?B?AAAA?=",
    "=?utf-8?B?****?=",
    "=?utf-8?Q?=ZZ?=",
    "=?utf-8?X?abc?=",
    "=?utf-16?B?2D3eAA==?=",
    "=??Q?x?=",
    "=?utf-8?B?" + "QUFB" * 500 + "?=",
    "=?utf-8?Q?a?= =?utf-8?Q?b?=",
]

_ids = itertools.count(1)


@st.composite
def header_value(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(["", "[PX-1/1] move", "Re: [PX-1/2] 1. Ng1-f3", "Автоответ:"]))
    text += draw(st.text(max_size=30))
    if draw(st.booleans()):
        raw = text.encode("utf-8", "surrogatepass")
        text = f"=?utf-8?B?{base64.b64encode(raw).decode()}?="
    if draw(st.booleans()):
        text += draw(st.sampled_from(["=?utf-8?Q?x=00y?=", "=?x?Q?=0D=0A?=", "\r\n\tfolded"]))
    if draw(st.booleans()):
        text += " ".join(draw(st.lists(st.sampled_from(WORDS_2047), max_size=4)))
    return text.replace("\n", "\n ").replace("\r\n ", "\r\n ")


@st.composite
def part(draw: st.DrawFn, depth: int) -> bytes:
    """A MIME part: a leaf with random type, charset, encoding and body, or a tree."""
    if depth > 0 and draw(st.booleans()):
        boundary = draw(
            st.sampled_from([f"b{depth}x{draw(st.integers(0, 99))}", "", "b" * 200, "1. e4"])
        )
        children = draw(st.lists(part(depth - 1), min_size=0, max_size=3))
        subtype = draw(st.sampled_from(["mixed", "alternative", "related", "signed", "report"]))
        head = f'Content-Type: multipart/{subtype}; boundary="{boundary}"\r\n\r\n'.encode()
        body = b"".join(b"--" + boundary.encode() + b"\r\n" + c + b"\r\n" for c in children)
        if draw(st.booleans()):
            body += b"--" + boundary.encode() + b"--\r\n"
        return head + body
    ctype = draw(st.sampled_from(TYPES))
    charset = draw(st.sampled_from(CHARSETS))
    encoding = draw(st.sampled_from(ENCODINGS))
    words = draw(st.lists(st.sampled_from(WORDS), max_size=4))
    text = "\n".join([*words, draw(st.text(max_size=40))])
    if ctype == "text/html":
        text = f"<div>{text}<blockquote>1. d2-d4</blockquote>" + "<b>" * draw(st.integers(0, 50))
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        data += draw(st.binary(max_size=40))
    if encoding == "base64":
        data = base64.b64encode(data)[: draw(st.integers(0, 400))]
        if draw(st.booleans()):
            junk = draw(st.sampled_from([b"\xff\xfe", b"!!", b"=", b"\r\n=\r\n"]))
            data = data[:10] + junk + data
    elif encoding == "quoted-printable":
        data = quopri.encodestring(data)
        if draw(st.booleans()):
            data += draw(st.sampled_from([b"=ZZ", b"=", b"=\r\n", b"=0", b"=\xff"]))
    params = draw(st.sampled_from(PARAMS))
    head = f"Content-Type: {ctype}; charset={charset}{params}\r\n"
    head += f"Content-Transfer-Encoding: {encoding}\r\n"
    return head.encode("utf-8", "surrogatepass") + b"\r\n" + data


@st.composite
def message(draw: st.DrawFn) -> bytes:
    fields: list[tuple[str, str]] = []
    for _ in range(draw(st.integers(0, 3))):
        fields.append(("From", draw(st.sampled_from(SENDERS))))
    fields.append(("Subject", draw(header_value())))
    if draw(st.booleans()):
        fields.append(("Message-ID", f"<f{next(_ids)}{draw(st.text(max_size=10))}@fuzz.example>"))
    for name in draw(st.lists(st.sampled_from(FIELDS), max_size=4)):
        fields.append((name, draw(header_value())))
    fields = draw(st.permutations(fields))
    head = "".join(f"{k}: {v}\r\n" for k, v in fields).encode("utf-8", "surrogatepass")
    head += b"MIME-Version: 1.0\r\n"
    return head + draw(part(draw(st.integers(0, 4))))


@st.composite
def flooded(draw: st.DrawFn) -> bytes:
    """A message, maybe after a flood of header fields, maybe nested in many multiparts."""
    raw = draw(message())
    flood = draw(st.sampled_from(["", "fields", "froms", "long", "deep", "deep-lines"]))
    n = draw(st.sampled_from([10, 300, 900, 3000]))
    if flood == "fields":
        raw = b"".join(b"X-Flood-%d: %d\r\n" % (i, i) for i in range(n)) + raw
    elif flood == "froms":
        raw = b"From: a%d@evil.example\r\n" % n * n + raw
    elif flood == "long":
        raw = b"Subject: " + b"=?utf-8?Q?x?= " * n + b"\r\n" + raw
    elif flood.startswith("deep"):
        head, _, body = raw.partition(b"MIME-Version: 1.0\r\n")
        nest = b"".join(
            b'Content-Type: multipart/mixed; boundary="n%d"\r\n\r\n--n%d\r\n' % (i, i)
            for i in range(n)
        )
        raw = head + b"MIME-Version: 1.0\r\n" + nest + body
        if flood == "deep-lines":  # lines inside every one of the multiparts
            raw += b"x\r\n" * 40_000
    return raw


def read_raising(raw: bytes) -> letters.Letter:
    """The letter read as :func:`~mailbot.mail.letters.read_letter` reads it, but with its
    errors let through: read_letter turns one into an empty letter (without even the
    sender), which this test must see."""
    try:
        return letters._read(raw, ())
    except MailbotError:
        return letters.read_letter(raw)


@pytest.mark.fuzz
@budget(500)
@given(raw=flooded())
def test_any_letter_is_read_without_error_in_linear_time(raw: bytes) -> None:
    seconds = cpu_seconds(lambda: read_raising(raw))
    note_input(len(raw), seconds)
    assert_linear_time(read_raising, raw, benign_plain, first=seconds)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def bench(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Bench]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'fuzz.db'}"
        b = Bench(url)
        try:
            yield b
        finally:
            b.close()
        return
    # one PostgreSQL schema for the whole module (the conftest fixture is per test)
    from conftest import POSTGRES_URL, require_postgres
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    require_postgres()
    admin = create_engine(POSTGRES_URL)
    schema = f"fuzz_{next(_ids)}_{id(request)}"
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = make_url(POSTGRES_URL).update_query_dict({"options": f"-csearch_path={schema}"})
    b = Bench(url.render_as_string(hide_password=False))
    try:
        yield b
    finally:
        b.close()
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.mark.fuzz
@budget(150)
@given(raw=message())
def test_any_message_gets_a_fate_and_never_an_error(bench: Bench, raw: bytes) -> None:
    outcome = bench.receive(raw, at(2))
    assert outcome not in (Outcome.FAILED, Outcome.QUARANTINED), raw[:300]
    row = bench.last_inbound()
    assert row.status != "new"
    assert row.attempts == 0, row.last_error


# -- what the fuzzing found -----------------------------------------------------------


def test_lines_inside_deeply_nested_multiparts_take_linear_time() -> None:
    """Every line was matched against the boundary of every multipart around it: nine
    hundred levels around 40,000 lines took 3 s, and a bigger message minutes. The
    move before the nest is still read; what lies past the bound is garbled."""

    def make(size: int) -> bytes:
        depth = size // 200
        nest = b"".join(
            b'Content-Type: multipart/mixed; boundary="n%d"\r\n\r\n--n%d\r\n' % (i, i)
            for i in range(depth)
        )
        lines = b"x\r\n" * ((size - len(nest)) // 3)
        return (
            b"From: ivan@example.org\r\nSubject: move\r\nMIME-Version: 1.0\r\n"
            b'Content-Type: multipart/mixed; boundary="top"\r\n\r\n--top\r\n'
            b"Content-Type: text/plain\r\n\r\n12... Nc6\r\n--top\r\n" + nest + lines
        )

    assert_scales_linearly(read_raising, make, size=16_000)
    letter = read_raising(make(128_000))
    assert (letter.from_addr, letter.body) == ("ivan@example.org", "12... Nc6")
    assert letter.garbled
