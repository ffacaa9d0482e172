"""A hostile inbound-mail corpus: what an arbiter's inbox must survive.

:func:`hostile_corpus` builds, for a given :class:`World` (the bot, its
director, the players and their running games), a few hundred messages as
they would lie in the bot's mailbox (raw bytes, CRLF line ends): broken MIME,
lying and unknown charsets, NUL characters, huge headers and bodies, deep
nesting, header injection, every flavour of forged sender and
``Authentication-Results``, strangers with international addresses,
Message-ID collisions with the test's control moves, all kinds of machine
mail, garbage and HTML bombs. Each message says what must become of it
(:class:`Expect`) and whether Dovecot's IMAP ``APPEND`` takes it.

The corpus is the same on every run: nothing is random but for
``random.Random`` seeded with the message's name.

    python tests/hostile.py      # counts per class for a sample world
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import enum
import quopri
import random
import re
import zlib
from collections.abc import Iterable, Sequence
from email.utils import format_datetime

__all__ = ["Expect", "Hostile", "World", "hostile_corpus"]


@dataclasses.dataclass(frozen=True)
class World:
    """The federation the corpus is written against."""

    bot: str  # the bot's address, e.g. "bot@federation.example"
    director: str  # the tournament director's address, e.g. "td@federation.example"
    authserv_id: str  # the receiving server's authserv-id, e.g. "mx.federation.example"
    players: tuple[str, ...]  # registered players' addresses (lower case, ASCII), at least 4
    games: tuple[tuple[str, str, str], ...]  # (tag "INDEX/N", white, black) of running games
    index: str  # the tournament index, e.g. "HX-2026"
    start: datetime.datetime  # an aware UTC datetime; Date: headers are around it


class Expect(enum.Enum):
    """What must become of a message."""

    #: Machine mail: must never be answered at all.
    MACHINE = "machine"
    #: Pretends to be someone (TD or a player) it is not; must have no effect on any game.
    FORGED = "forged"
    #: An unregistered sender writing ordinary mail: may be answered, at most once a day.
    STRANGER = "stranger"
    #: From a registered player (real From, no forgery) but unreadable: must be answered.
    UNREADABLE = "unreadable"
    #: Broken in other ways: any fate is fine as long as nothing crashes or stalls.
    ANY = "any"


@dataclasses.dataclass(frozen=True)
class Hostile:
    """One message of the corpus."""

    name: str  # unique, like "nul-subject-encoded-01"
    klass: str  # the class, like "nul", "deep-nesting", "forged-ar-below"
    raw: bytes  # the message as it would lie in the mailbox (CRLF line ends)
    expect: Expect
    sender: str | None  # the real author's address when there is one, lower case
    imap_ok: bool  # Dovecot's APPEND accepts it: no raw NUL byte, not empty, under 8 MB


CRLF = b"\r\n"
#: Messages of this size or more are not appended over IMAP (the test servers' limit).
IMAP_LIMIT = 8_000_000
HOSTILE_DOMAIN = "hostile.example"
EVE = "eve@evil.example"
MALLORY = "mallory@attacker.example"
TRUDY = "trudy@intruder.example"
VICTIM = "victim@victim.example"
STRANGERS = (
    "walter@elsewhere.example",
    "olga@outsider.example",
    "peggy@nowhere.example",
    "victor@visitor.example",
)

Field = tuple[str, str | bytes]

# A Bulgarian and a Russian letter with a move, and filler text.
_BG = "Здравейте,\n\nмоят ход е: {move}\n\nПоздрави,\nИван\n"
_RU = "Добрый день!\n\nМой ход: {move}\n\nС уважением,\nПётр\n"
_FILLER = "The quick brown fox jumps over the lazy dog; съешь же ещё этих мягких булок. "


# ---------------------------------------------------------------------------
# Building blocks


def _b(value: str | bytes) -> bytes:
    return value if isinstance(value, bytes) else value.encode("utf-8")


def _crlf(text: str) -> str:
    return re.sub(r"\r\n|\r|\n", "\r\n", text)


def _text(text: str, charset: str = "utf-8") -> bytes:
    """Text with CRLF line ends, encoded."""
    return _crlf(text).encode(charset)


def _field(name: str, value: str | bytes) -> bytes:
    return _b(name) + b": " + _b(value)


def _join(fields: Iterable[Field | bytes], body: bytes | None = b"") -> bytes:
    """A message from header fields and a body; ``None`` means no separator, no body."""
    lines = [f if isinstance(f, bytes) else _field(*f) for f in fields]
    head = CRLF.join(lines) + CRLF if lines else b""
    if body is None:
        return head
    return head + CRLF + body


def _b64(data: bytes, width: int = 76) -> bytes:
    """Base64 in lines of ``width``, CRLF-terminated."""
    encoded = base64.b64encode(data)
    lines = [encoded[i : i + width] for i in range(0, len(encoded), width)]
    return CRLF.join(lines) + CRLF


def _qp(data: bytes) -> bytes:
    """Quoted-printable of CRLF text, line by line."""
    lines = data.split(CRLF)
    return CRLF.join(quopri.encodestring(line).replace(b"\n", CRLF) for line in lines)


def _ew(data: str | bytes, charset: str = "utf-8", encoding: str = "B") -> str:
    """One RFC 2047 encoded word."""
    raw = data.encode(charset) if isinstance(data, str) else data
    if encoding.upper() == "B":
        payload = base64.b64encode(raw).decode("ascii")
    else:
        safe = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!*+-/"
        payload = "".join(
            "_" if byte == 0x20 else chr(byte) if byte in safe else f"={byte:02X}" for byte in raw
        )
    return f"=?{charset}?{encoding}?{payload}?="


def _fold(words: Sequence[str], width: int = 76) -> str:
    """Words folded into header continuation lines."""
    lines: list[str] = []
    current = ""
    for word in words:
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    lines.append(current)
    return "\r\n ".join(lines)


def _domain(address: str) -> str:
    return address.rpartition("@")[2]


def _display(address: str) -> str:
    local = address.partition("@")[0]
    words = [w for w in re.split(r"[^A-Za-z0-9]+", local) if w]
    return " ".join(w.capitalize() for w in words) or local


def _filler(size: int, seed: str) -> bytes:
    """About ``size`` bytes of numbered filler lines."""
    lines: list[bytes] = []
    total = 0
    rng = random.Random(seed)
    number = 0
    while total < size:
        number += 1
        start = rng.randrange(len(_FILLER) // 2)
        line = f"{number:07d} {_FILLER[start:]}{_FILLER[:start]}".encode()
        lines.append(line)
        total += len(line) + 2
    return CRLF.join(lines) + CRLF


@dataclasses.dataclass(frozen=True)
class _Slot:
    """The name, Message-ID and Date of the next message."""

    name: str
    mid: str
    date: str


class _Corpus:
    """The corpus being written, with the world's facts at hand."""

    def __init__(self, world: World) -> None:
        if len(world.players) < 4:
            raise ValueError("the world needs at least 4 players")
        self.world = world
        self.items: list[Hostile] = []
        self.klass = ""
        self._count = 0
        self._in_class = 0
        self.dd = _domain(world.director)
        self.slug = re.sub(r"[^a-z0-9]+", "-", world.index.lower()).strip("-") or "index"
        games = world.games or ((f"{world.index}/1", world.players[0], world.players[1]),)
        self.games = games

    # -- naming

    def section(self, klass: str) -> None:
        self.klass = klass
        self._in_class = 0

    def slot(self, variant: str) -> _Slot:
        self._in_class += 1
        self._count += 1
        name = f"{self.klass}-{variant}-{self._in_class:02d}"
        when = self.world.start + datetime.timedelta(minutes=7 * self._count)
        return _Slot(name, f"<{name}.{self.slug}@{HOSTILE_DOMAIN}>", format_datetime(when))

    def add(self, slot: _Slot, raw: bytes, expect: Expect, sender: str | None) -> None:
        ok = b"\x00" not in raw and 0 < len(raw) < IMAP_LIMIT
        lowered = sender.lower() if sender is not None else None
        self.items.append(Hostile(slot.name, self.klass, raw, expect, lowered, ok))

    # -- the world

    def player(self, i: int) -> str:
        return self.world.players[i % len(self.world.players)]

    def named(self, address: str) -> str:
        return f"{_display(address)} <{address}>"

    def tag(self, i: int) -> str:
        return self.games[i % len(self.games)][0]

    def game_of(self, address: str) -> tuple[str, str, str, str]:
        """``(tag, white, black, colour)`` of a game the player plays in."""
        for tag, white, black in self.games:
            if address in (white, black):
                return tag, white, black, "white" if address == white else "black"
        tag, white, black = self.games[0]
        return tag, white, black, "white"

    def subject_for(self, address: str, tail: str = "move") -> str:
        tag, white, black, _ = self.game_of(address)
        return f"Re: [{tag}] {_display(white)} – {_display(black)}: {tail}"

    def move(self, address: str, cyrillic: bool = False) -> str:
        white = self.game_of(address)[3] == "white"
        if cyrillic:
            return "1. Кg1-f3" if white else "1... Кg8-f6"
        return "1. e2-e4" if white else "1... e7-e5"

    def bot_quote(self, address: str) -> str:
        """The bot's last message to a player, as a reply quotes it."""
        tag, white, black, colour = self.game_of(address)
        line = "1. e2-e4" if colour == "black" else "1. e2-e4 e7-e5"
        return (
            f"> [{tag}] {_display(white)} – {_display(black)}\n"
            f"> {line}; 2.3. – 2.3. – 3.3. = 1 day\n> Your move.\n"
        )

    def head(
        self,
        slot: _Slot,
        frm: str | bytes,
        subject: str | bytes,
        *,
        to: str | None = None,
        mid: bool = True,
        date: bool = True,
    ) -> list[Field]:
        fields: list[Field] = [("From", frm), ("To", to or self.world.bot), ("Subject", subject)]
        if date:
            fields.append(("Date", slot.date))
        if mid:
            fields.append(("Message-ID", slot.mid))
        return fields

    def mail(
        self,
        variant: str,
        expect: Expect,
        author: str | None,
        body: bytes,
        *,
        frm: str | bytes | None = None,
        subject: str | bytes | None = None,
        ctype: str | None = "text/plain; charset=utf-8",
        cte: str | None = "8bit",
        top: Sequence[Field | bytes] = (),
        extra: Sequence[Field | bytes] = (),
        to: str | None = None,
    ) -> _Slot:
        """Write and add an ordinary-looking message; ``author`` is the real sender."""
        slot = self.slot(variant)
        if frm is None:
            if author is None:
                raise ValueError("a message needs a From")
            frm = self.named(author)
            genuine = author in self.world.players and expect in (Expect.UNREADABLE, Expect.ANY)
            if genuine and not top and self._count % 2 == 0:
                # Every other genuine message carries the receiving server's verdict.
                top = [self.ar_pass(author)]
        if subject is None:
            subject = self.subject_for(author) if author in self.world.players else "Hello"
        fields: list[Field | bytes] = [*top, *self.head(slot, frm, subject, to=to), *extra]
        if ctype is not None:
            fields += [("MIME-Version", "1.0"), ("Content-Type", ctype)]
        if cte is not None:
            fields.append(("Content-Transfer-Encoding", cte))
        self.add(slot, _join(fields, body), expect, author)
        return slot

    def ar_pass(self, address: str) -> Field:
        """What the receiving server writes for genuine mail from ``address``."""
        domain = _domain(address)
        return (
            "Authentication-Results",
            f"{self.world.authserv_id}; spf=pass smtp.mailfrom={address}; "
            f"dkim=pass header.d={domain}; dmarc=pass header.from={domain}",
        )

    def received(self, host: str, slot: _Slot) -> Field:
        return (
            "Received",
            f"from {host} ({host} [192.0.2.66])\r\n\tby {self.world.authserv_id} "
            f"with ESMTP id {zlib.crc32(slot.name.encode()):08x}; {slot.date}",
        )


def _multipart(boundary: str, parts: Sequence[bytes], close: bool = True) -> bytes:
    """A multipart body from parts (each its header fields, a blank line and content)."""
    out = b""
    for part in parts:
        out += f"--{boundary}".encode() + CRLF + part + CRLF
    if close:
        out += f"--{boundary}--".encode() + CRLF
    return out


def _part(fields: Sequence[Field], content: bytes) -> bytes:
    return _join(fields, content)


# ---------------------------------------------------------------------------
# 1. broken MIME


def _broken_mime(c: _Corpus) -> None:
    c.section("broken-mime")
    a, b, d, e = c.player(0), c.player(1), c.player(2), c.player(3)
    text = _text(f"{c.move(a)}\n\nRegards\n")
    plain = ("Content-Type", "text/plain; charset=utf-8")

    c.mail(
        "boundary-never-appears",
        Expect.ANY,
        a,
        text,
        ctype='multipart/mixed; boundary="never-seen-anywhere"',
        cte=None,
    )
    body = _multipart("open-ended", [_part([plain], _text(c.move(b) + "\n"))], close=False)
    c.mail("never-closed", Expect.ANY, b, body, ctype='multipart/mixed; boundary="open-ended"')
    body = _multipart("the-other-one", [_part([plain], _text(c.move(d) + "\n"))])
    c.mail(
        "boundary-mismatch",
        Expect.ANY,
        d,
        body,
        ctype='multipart/mixed; boundary="declared-one"',
        cte=None,
    )
    # The boundary line comes before the headers of the first part ends.
    body = (
        b"--misplaced\r\nContent-Type: text/plain;\r\n--misplaced\r\n charset=utf-8\r\n\r\n"
        + _text(c.move(e) + "\n")
        + b"--misplaced--\r\n"
    )
    c.mail("boundary-in-header", Expect.ANY, e, body, ctype='multipart/mixed; boundary="misplaced"')
    # Truncated base64 of a long letter whose move would have come at the end.
    long_letter = ("Здравейте, " * 40 + "\nмоят ход е: " + c.move(a, True) + "\n").encode()
    cut = _b64(long_letter)[:301]
    c.mail("truncated-base64", Expect.UNREADABLE, a, cut, cte="base64")
    c.mail(
        "base64-with-junk",
        Expect.ANY,
        b,
        b"MS4gZTIt!!!ZTQ=*** not base64 at all ***\r\nZ\r\n",
        cte="base64",
    )
    c.mail(
        "invalid-quoted-printable",
        Expect.ANY,
        d,
        _text(f"{c.move(d)}=ZZ=4\n=\n=G1 soft=\nbreak=3"),
        cte="quoted-printable",
    )
    c.mail(
        "cte-garbage",
        Expect.ANY,
        e,
        _text(f"{c.move(e)}\n"),
        cte='x-uuencode-gzip; base65="yes',
    )
    # The body starts right after the headers, without a blank line.
    slot = c.slot("no-separator")
    fields = [*c.head(slot, c.named(a), c.subject_for(a)), plain]
    c.add(slot, _join([*fields, c.move(a).encode(), b"Thanks"], None), Expect.ANY, a)
    # Header lines without a colon, one before From.
    slot = c.slot("header-without-colon")
    broken: list[Field | bytes] = [
        b"This line has no colon at all",
        *[_field(k, v) for k, v in c.head(slot, c.named(b), c.subject_for(b))],
        b"X-Broken header without colon",
    ]
    c.add(slot, _join(broken, _text(c.move(b) + "\n")), Expect.ANY, b)
    c.mail(
        "multipart-no-boundary-param",
        Expect.ANY,
        d,
        _text(f"--\n{c.move(d)}\n--\n"),
        ctype="multipart/alternative",
        cte=None,
    )
    # Inner boundary a prefix of the outer one.
    inner = _multipart("ab", [_part([plain], _text(c.move(e) + "\n"))])
    outer = _multipart(
        "abc",
        [_part([("Content-Type", 'multipart/mixed; boundary="ab"')], inner)],
    )
    c.mail("nested-prefix-boundary", Expect.ANY, e, outer, ctype='multipart/mixed; boundary="abc"')
    c.mail(
        "unbalanced-quote",
        Expect.ANY,
        a,
        _multipart("q", [_part([plain], _text(c.move(a) + "\n"))]),
        ctype='multipart/mixed; boundary="q',
        cte=None,
        extra=[("Date", "Tue, 31 Feb 2026 99:99:99 +9999")],
    )


# ---------------------------------------------------------------------------
# 2. lying charsets


def _lying_charset(c: _Corpus) -> None:
    c.section("lying-charset")
    p = [c.player(i) for i in range(4)]

    def bg(i: int) -> str:
        return _BG.format(move=c.move(p[i % 4], True))

    def ru(i: int) -> str:
        return _RU.format(move=c.move(p[i % 4], True))

    cases: list[tuple[str, str, bytes, str]] = [
        ("utf8-declared-cp1251", "text/plain; charset=utf-8", _text(bg(0), "cp1251"), "8bit"),
        ("utf8-declared-koi8r", "text/plain; charset=UTF-8", _text(ru(1), "koi8-r"), "8bit"),
        ("koi8r-declared-utf8", "text/plain; charset=koi8-r", _text(ru(2)), "8bit"),
        ("cp1251-declared-utf8", "text/plain; charset=windows-1251", _text(bg(3)), "8bit"),
        (
            "latin1-declared-cp1251",
            "text/plain; charset=iso-8859-1",
            _text(bg(0), "cp1251"),
            "8bit",
        ),
        ("ascii-declared-koi8r", "text/plain; charset=us-ascii", _text(ru(1), "koi8-r"), "7bit"),
        (
            "mixed-lines",
            "text/plain; charset=utf-8",
            _text(bg(2)) + _text(ru(2), "cp1251") + _text(bg(2), "koi8-r"),
            "8bit",
        ),
        (
            "qp-utf8-declared-cp1251",
            "text/plain; charset=utf-8",
            _qp(_text(ru(3), "cp1251")),
            "quoted-printable",
        ),
        ("utf16-declared-utf8", "text/plain; charset=utf-16", _text(bg(0)) + b"!", "8bit"),
        (
            "html-meta-disagrees",
            "text/html; charset=windows-1251",
            _text(
                '<html><head><meta charset="utf-8"></head><body><p>'
                + ru(1).replace("\n", "<br>")
                + "</p></body></html>",
                "koi8-r",
            ),
            "8bit",
        ),
    ]
    for i, (variant, ctype, body, cte) in enumerate(cases):
        c.mail(variant, Expect.ANY, p[i % 4], body, ctype=ctype, cte=cte)
    # The subject's encoded word lies too.
    author = p[1]
    subject = "Re: " + _ew(f"[{c.game_of(author)[0]}] ход".encode("cp1251"), "utf-8")
    c.mail(
        "subject-word-lies",
        Expect.ANY,
        author,
        _text(ru(1)),
        subject=subject,
        ctype="text/plain; charset=utf-8",
    )


# ---------------------------------------------------------------------------
# 3. unknown charsets


def _unknown_charset(c: _Corpus) -> None:
    c.section("unknown-charset")
    p = [c.player(i) for i in range(4)]

    def letter(i: int, charset: str = "utf-8") -> bytes:
        return _text(_BG.format(move=c.move(p[i % 4], True)), charset)

    def ascii_move(i: int) -> bytes:
        return _text(f"{c.move(p[i % 4])}\n\nThanks\n")

    u, a = Expect.UNREADABLE, Expect.ANY
    long_label = "x-" + "very-long-charset-label-" * 12 + "end"
    cases: list[tuple[str, str, bytes, Expect]] = [
        ("x-klingon", "x-klingon", letter(0, "cp1251"), u),
        ("idna", "idna", letter(1), u),
        ("rot13", "rot13", ascii_move(2), a),
        ("utf-7-holding-utf8", "utf-7", letter(3), u),
        ("utf-7-genuine", "utf-7", letter(0, "utf-7"), a),
        ("base64-codec", "base64", letter(1, "koi8-r"), u),
        ("punycode", "punycode", letter(2, "cp1251"), u),
        ("zlib", "zlib", letter(3), u),
        ("hex", "hex", ascii_move(0), a),
        ("uu", "uu", letter(1, "cp1251"), u),
        ("empty-label", '""', letter(2, "cp1251"), a),
        ("very-long-label", long_label, letter(3), u),
    ]
    for i, (variant, charset, body, expect) in enumerate(cases):
        c.mail(variant, expect, p[i % 4], body, ctype=f"text/plain; charset={charset}")
    author = p[0]
    html = _text(
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=x-mac-klingon">'
        "</head><body>" + _BG.format(move=c.move(author, True)) + "</body></html>",
        "koi8-r",
    )
    c.mail("html-meta-unknown", u, author, html, ctype="text/html")
    author = p[1]
    subject = f"Re: [{c.game_of(author)[0]}] " + _ew(b"qaStaH", "x-klingon")
    c.mail("subject-word-unknown", a, author, _text(c.move(author) + "\n"), subject=subject)
    compressed = zlib.compress(_BG.format(move=c.move(p[2], True)).encode())
    c.mail(
        "zlib-compressed-body",
        u,
        p[2],
        _b64(compressed),
        ctype="text/plain; charset=zlib",
        cte="base64",
    )


# ---------------------------------------------------------------------------
# 4. NUL


def _nul(c: _Corpus) -> None:
    c.section("nul")
    p = [c.player(i) for i in range(4)]

    def move(i: int) -> bytes:
        return _text(c.move(p[i % 4]) + "\n")

    tag = c.game_of(p[0])[0]
    c.mail("subject-encoded", Expect.ANY, p[0], move(0), subject=f"Re: [{tag}] =?utf-8?Q?a=00b?=")
    c.mail(
        "from-name-encoded",
        Expect.ANY,
        p[1],
        move(1),
        frm=f"=?utf-8?Q?{_display(p[1])}=00Jr?= <{p[1]}>",
    )
    slot = c.slot("message-id-encoded")
    fields = c.head(slot, c.named(p[2]), c.subject_for(p[2]), mid=False)
    mid = f"=?utf-8?Q?=3Cnul=00id.{slot.name}@{HOSTILE_DOMAIN}=3E?="
    c.add(slot, _join([*fields, ("Message-ID", mid)], move(2)), Expect.ANY, p[2])
    c.mail(
        "qp-body",
        Expect.ANY,
        p[3],
        _text(f"{c.move(p[3])}=00\n=00=00 thanks=00\n"),
        cte="quoted-printable",
    )
    c.mail(
        "base64-body-some-nul",
        Expect.ANY,
        p[0],
        _b64(_text(c.move(p[0]) + "\x00\x00\nthanks\x00\n")),
        cte="base64",
    )
    c.mail("base64-body-all-nul", Expect.UNREADABLE, p[1], _b64(bytes(1024)), cte="base64")
    body = _multipart(
        "nul-attach",
        [
            _part([("Content-Type", "text/plain; charset=utf-8")], move(2)),
            _part(
                [
                    ("Content-Type", "application/octet-stream"),
                    ("Content-Disposition", "attachment; filename*=utf-8''game%00.pgn"),
                    ("Content-Transfer-Encoding", "base64"),
                ],
                _b64(b"1. e4 e5\x00"),
            ),
        ],
    )
    c.mail(
        "filename-rfc2231", Expect.ANY, p[2], body, ctype='multipart/mixed; boundary="nul-attach"'
    )
    c.mail(
        "charset-rfc2231",
        Expect.ANY,
        p[3],
        move(3),
        ctype="text/plain; charset*=us-ascii''utf%00-8",
    )
    c.mail(
        "subject-b-word",
        Expect.ANY,
        p[0],
        move(0),
        subject=f"Re: [{tag}] =?utf-8?B?AA==?= =?utf-8?B?AAAA?=",
    )
    c.mail(
        "to-name-encoded",
        Expect.ANY,
        p[1],
        move(1),
        to=f"=?utf-8?Q?Arbiter=00?= <{c.world.bot}>",
    )
    # Raw NUL bytes: IMAP refuses these.
    c.mail("raw-in-body", Expect.ANY, p[2], _text(c.move(p[2]) + "\x00\nthanks\x00\x00\n"))
    c.mail(
        "raw-in-subject",
        Expect.ANY,
        p[3],
        move(3),
        subject=c.subject_for(p[3]).encode() + b"\x00tail",
    )
    c.mail(
        "raw-in-from-name",
        Expect.ANY,
        p[0],
        move(0),
        frm=f'"{_display(p[0])}\x00X" <{p[0]}>'.encode(),
    )
    c.mail("raw-in-field-name", Expect.ANY, p[1], move(1), extra=[("X-N\x00l", "yes")])


# ---------------------------------------------------------------------------
# 5. huge headers


def _huge_header(c: _Corpus) -> None:
    c.section("huge-header")
    p = [c.player(i) for i in range(4)]

    def move(i: int) -> bytes:
        return _text(c.move(p[i % 4]) + "\n")

    tag = c.game_of(p[0])[0]
    c.mail("subject-100k", Expect.ANY, p[0], move(0), subject=f"Re: [{tag}] " + "A" * 100_000)
    words = [f"word{i}" for i in range(14_000)]
    c.mail(
        "subject-100k-folded",
        Expect.ANY,
        p[1],
        move(1),
        subject=f"Re: [{c.game_of(p[1])[0]}] " + _fold(words),
    )
    c.mail(
        "5000-fields",
        Expect.ANY,
        p[2],
        move(2),
        extra=[(f"X-Filler-{i:04d}", f"value {i}") for i in range(5000)],
    )
    slot = c.slot("references-50k")
    refs: list[str] = []
    while sum(len(r) + 1 for r in refs) < 50_000:
        refs.append(f"<ref{len(refs)}.{slot.name}@{HOSTILE_DOMAIN}>")
    fields = [*c.head(slot, c.named(p[3]), c.subject_for(p[3])), ("References", " ".join(refs))]
    c.add(slot, _join(fields, move(3)), Expect.ANY, p[3])
    slot = c.slot("message-id-2000")
    fields = c.head(slot, c.named(p[0]), c.subject_for(p[0]), mid=False)
    mid = f"<{'m' * (1990 - len(slot.name) - len(HOSTILE_DOMAIN))}.{slot.name}@{HOSTILE_DOMAIN}>"
    c.add(slot, _join([*fields, ("Message-ID", mid)], move(0)), Expect.ANY, p[0])
    long_name = "Ivan " * 60 + "the Long"
    c.mail("from-long-name", Expect.ANY, p[1], move(1), frm=f'"{long_name}" <{p[1]}>')
    local = "a" * 30 + ".very.long.local.part.of.34.chars"
    domain = ".".join(["x" * 63, "y" * 63, "z" * 40, "example"])
    long_address = f"{local}@{domain}"
    c.mail(
        "from-long-address",
        Expect.STRANGER,
        long_address,
        _text("help\n"),
        frm=f'"{"Stranger " * 12}" <{long_address}>',
        subject="help",
    )
    encoded = [_ew(f"ход{i}") for i in range(1000)]
    c.mail(
        "1000-encoded-words",
        Expect.ANY,
        p[2],
        move(2),
        subject=f"Re: [{c.game_of(p[2])[0]}] " + _fold(encoded),
    )
    slot = c.slot("5000-received")
    received = [c.received(f"relay{i}.example", slot) for i in range(5000)]
    fields = [*received, *c.head(slot, c.named(p[3]), c.subject_for(p[3]))]
    c.add(slot, _join(fields, move(3)), Expect.ANY, p[3])
    c.mail("field-1mb", Expect.ANY, p[0], move(0), extra=[("X-Junk", "J" * 1_000_000)])
    recipients = ", ".join(f"r{i}@recipients.example" for i in range(10_000))
    c.mail("10000-recipients", Expect.ANY, p[1], move(1), extra=[("Cc", recipients)])
    folded = "\r\n ".join(f"piece{i}" for i in range(10_000))
    c.mail("10000-continuations", Expect.ANY, p[2], move(2), extra=[("X-Folded", folded)])


# ---------------------------------------------------------------------------
# 6. huge bodies


def _huge_body(c: _Corpus) -> None:
    c.section("huge-body")
    p = [c.player(i) for i in range(4)]

    def first(i: int) -> bytes:
        return _text(c.move(p[i % 4]) + "\n\n")

    c.mail("plain-6mb", Expect.ANY, p[0], first(0) + _filler(6_000_000, "plain-6mb"))
    lines = CRLF.join(str(i % 10).encode() for i in range(200_000)) + CRLF
    c.mail("200000-lines", Expect.ANY, p[1], first(1) + lines)
    c.mail("one-2mb-line", Expect.ANY, p[2], first(2) + b"x" * 2_000_000 + CRLF)
    slot_name = "attachment-3mb"
    payload = random.Random(slot_name).randbytes(3_000_000)
    body = _multipart(
        "big-attach",
        [
            _part([("Content-Type", "text/plain; charset=utf-8")], first(3)),
            _part(
                [
                    ("Content-Type", "application/octet-stream"),
                    ("Content-Disposition", 'attachment; filename="analysis.bin"'),
                    ("Content-Transfer-Encoding", "base64"),
                ],
                _b64(payload),
            ),
        ],
    )
    c.mail(slot_name, Expect.ANY, p[3], body, ctype='multipart/mixed; boundary="big-attach"')
    c.mail("just-under-limit", Expect.ANY, p[0], first(0) + _filler(7_800_000, "just-under-limit"))
    c.mail("over-limit-9mb", Expect.ANY, p[1], first(1) + _filler(9_000_000, "over-limit"))
    quoted = b"".join(b"> " + line + CRLF for line in _filler(1_000_000, "quoted").split(CRLF))
    c.mail("quoted-1mb", Expect.ANY, p[2], first(2) + quoted)
    parts = [_part([("Content-Type", "text/plain")], b"x") for _ in range(20_000)]
    body = _multipart("wide", [_part([("Content-Type", "text/plain")], first(3)), *parts])
    c.mail("20000-parts", Expect.ANY, p[3], body, ctype='multipart/mixed; boundary="wide"')
    text = first(0) + _filler(3_000_000, "base64-text")
    c.mail("base64-text-4mb", Expect.ANY, p[0], _b64(text), cte="base64")


# ---------------------------------------------------------------------------
# 7. deep nesting


def _nest(
    kinds: Sequence[str], leaf: bytes, *, same_boundary: bool = False, close: bool = True
) -> bytes:
    """Multiparts of the given subtypes, each inside the one before, around a leaf part.

    Returns the body of the outermost one (its boundary is ``n0``, or ``same``).
    """
    opening: list[bytes] = []
    closing: list[bytes] = []
    for level, kind in enumerate(kinds):
        boundary = "same" if same_boundary else f"n{level}"
        if level:
            opening.append(f'Content-Type: multipart/{kind}; boundary="{boundary}"'.encode())
            opening.append(b"")
        opening.append(f"--{boundary}".encode())
        if close:
            closing.append(f"--{boundary}--".encode())
    closing.reverse()
    return CRLF.join([*opening, leaf.rstrip(CRLF), *closing]) + CRLF


def _deep_nesting(c: _Corpus) -> None:
    c.section("deep-nesting")
    p = [c.player(i) for i in range(4)]

    def leaf(i: int) -> bytes:
        return b"Content-Type: text/plain; charset=utf-8\r\n\r\n" + _text(c.move(p[i % 4]))

    def multipart(variant: str, i: int, kinds: Sequence[str], **kw: bool) -> None:
        boundary = "same" if kw.get("same_boundary") else "n0"
        c.mail(
            variant,
            Expect.ANY,
            p[i % 4],
            _nest(kinds, leaf(i), **kw),
            ctype=f'multipart/{kinds[0]}; boundary="{boundary}"',
            cte=None,
        )

    multipart("mixed-1000", 0, ["mixed"] * 1000)
    multipart("mixed-1000-unclosed", 1, ["mixed"] * 1000, close=False)
    multipart("mixed-1000-same-boundary", 2, ["mixed"] * 1000, same_boundary=True)
    multipart("alt-related-mixed-100", 3, ["mixed", "related", "alternative"] * 100)
    multipart("digest-300", 0, ["digest"] * 300)
    multipart("mixed-12", 1, ["mixed"] * 12)
    multipart("mixed-13", 2, ["mixed"] * 13)
    # message/rfc822 inside message/rfc822, 200 times.
    author = p[3]
    inner = leaf(3)
    wrapper = (
        f"From: {c.named(author)}\r\nSubject: Fwd: {c.subject_for(author)}\r\n"
        "MIME-Version: 1.0\r\nContent-Type: message/rfc822\r\n\r\n"
    ).encode()
    c.mail(
        "rfc822-200",
        Expect.ANY,
        author,
        wrapper * 199 + inner + CRLF,
        ctype="message/rfc822",
        cte=None,
    )
    # The move first, then an attachment nested 1000 deep.
    body = _multipart(
        "top",
        [
            leaf(0),
            b'Content-Type: multipart/mixed; boundary="n0"\r\n\r\n'
            + _nest(["mixed"] * 1000, leaf(0)),
        ],
    )
    c.mail("move-first-then-1000", Expect.ANY, p[0], body, ctype='multipart/mixed; boundary="top"')
    # A binary tree of multiparts, 12 levels, 4096 leaves.
    counter = iter(range(10**6))

    def tree(depth: int) -> bytes:
        if depth == 0:
            return b"Content-Type: text/plain\r\n\r\n."
        boundary = f"t{next(counter)}"
        inner_body = _multipart(boundary, [tree(depth - 1), tree(depth - 1)])
        return f'Content-Type: multipart/mixed; boundary="{boundary}"\r\n\r\n'.encode() + inner_body

    body = _multipart("root", [leaf(1), tree(12)])
    c.mail("binary-tree-12", Expect.ANY, p[1], body, ctype='multipart/mixed; boundary="root"')


# ---------------------------------------------------------------------------
# 8. header injection


def _header_injection(c: _Corpus) -> None:
    c.section("header-injection")
    p = [c.player(i) for i in range(4)]
    s = STRANGERS
    bcc = f"\r\nBcc: {VICTIM}"

    def move(i: int) -> bytes:
        return _text(c.move(p[i % 4]) + "\n")

    help_text = _text("help\n")
    tag = c.game_of(p[1])[0]
    c.mail(
        "subject-q-bcc",
        Expect.STRANGER,
        s[0],
        help_text,
        subject=_ew(f"help{bcc}", encoding="Q"),
    )
    c.mail(
        "subject-b-bcc",
        Expect.ANY,
        p[1],
        move(1),
        subject=f"Re: [{tag}] " + _ew(f"move{bcc}"),
    )
    c.mail(
        "from-name-bcc",
        Expect.STRANGER,
        s[1],
        help_text,
        frm=f"{_ew('Olga' + bcc, encoding='Q')} <{s[1]}>",
        subject="help",
    )
    c.mail(
        "from-name-bcc",
        Expect.ANY,
        p[2],
        move(2),
        frm=f"{_ew(_display(p[2]) + bcc)} <{p[2]}>",
    )
    fake = "\r\n\r\nYour opponent resigned. Result 1-0.\r\n"
    c.mail(
        "subject-fake-body",
        Expect.STRANGER,
        s[2],
        help_text,
        subject="status " + _ew(fake, encoding="Q"),
    )
    c.mail(
        "subject-fake-body",
        Expect.ANY,
        p[3],
        move(3),
        subject=f"Re: [{c.game_of(p[3])[0]}] " + _ew("move" + fake),
    )
    slot = c.slot("message-id-crlf")
    fields = c.head(slot, s[3], "help", mid=False)
    mid = f"<{_ew('x' + bcc, encoding='Q')}.{slot.name}@{HOSTILE_DOMAIN}>"
    c.add(slot, _join([*fields, ("Message-ID", mid)], help_text), Expect.STRANGER, s[3])
    slot = c.slot("references-crlf")
    fields = c.head(slot, c.named(p[0]), c.subject_for(p[0]))
    ref = f"<{_ew('r' + bcc, encoding='Q')}@{HOSTILE_DOMAIN}>"
    fields += [("In-Reply-To", ref), ("References", ref)]
    c.add(slot, _join(fields, move(0)), Expect.ANY, p[0])
    c.mail(
        "subject-lf-event",
        Expect.ANY,
        p[1],
        move(1),
        subject=f"Re: [{tag}] " + _ew("move\nX-Mailbot-Event: confirmed\nAuto-Submitted: no"),
    )
    c.mail(
        "subject-nel-ls",
        Expect.STRANGER,
        s[0],
        help_text,
        subject=_ew(f"help\u0085Bcc: {VICTIM}\u2028Cc: {VICTIM}\u2029"),
    )
    c.mail(
        "reply-to-crlf",
        Expect.STRANGER,
        s[1],
        _text("status\n"),
        subject="status",
        extra=[("Reply-To", f"{_ew('Olga' + bcc, encoding='Q')} <{s[1]}>")],
    )


# ---------------------------------------------------------------------------
# 9-12. forged Authentication-Results


def _order(c: _Corpus, i: int) -> str:
    tag = c.tag(i)
    return [
        f"forfeit {tag} white",
        f"result {tag} 0-1",
        f"penalty {tag} black 10",
        f"overstep {tag} black",
        f"forfeit {tag} black",
        f"result {tag} 1-0",
        f"penalty {tag} white 5",
        f"result {tag} 1/2-1/2",
    ][i % 8]


def _director_mail(
    c: _Corpus,
    variant: str,
    i: int,
    top: Sequence[Field | bytes],
    *,
    author: str | None = None,
    frm: str | None = None,
    extra: Sequence[Field | bytes] = (),
) -> None:
    order = _order(c, i)
    c.mail(
        variant,
        Expect.FORGED,
        author,
        _text(f"{order}\n\nG. Georgiev\nTournament director\n"),
        frm=frm or f"Tournament Director <{c.world.director}>",
        subject=f"[{order.split()[1]}] order",
        top=top,
        extra=extra,
    )


def _player_forgery(
    c: _Corpus,
    variant: str,
    victim: str,
    top: Sequence[Field | bytes],
    *,
    author: str | None = None,
    frm: str | None = None,
    extra: Sequence[Field | bytes] = (),
) -> None:
    c.mail(
        variant,
        Expect.FORGED,
        author,
        _text(f"{c.move(victim)}\n\n{_display(victim)}\n"),
        frm=frm or c.named(victim),
        subject=c.subject_for(victim),
        top=top,
        extra=extra,
    )


def _ar(server: str, results: str) -> Field:
    return ("Authentication-Results", f"{server}; {results}")


def _forged_ar_above(c: _Corpus) -> None:
    c.section("forged-ar-above")
    a, dd = c.world.authserv_id, c.dd
    rp: Field = ("Return-Path", f"<{EVE}>")
    _director_mail(
        c, "other-server-pass", 0, [_ar("mx.evil.example", f"dmarc=pass header.from={dd}")]
    )
    _director_mail(
        c, "dmarc-fail", 1, [_ar(a, f"dmarc=fail (p=reject) header.from={dd}"), rp], author=EVE
    )
    _director_mail(
        c, "suffix-server-pass", 2, [_ar(f"{a}.evil.example", f"dmarc=pass header.from={dd}")]
    )
    _director_mail(c, "prefix-server-pass", 3, [_ar(f"x{a}", f"dmarc=pass header.from={dd}")])
    _director_mail(
        c, "subdomain-server-pass", 4, [_ar(f"relay.{a}", f"dmarc=pass header.from={dd}")]
    )
    _director_mail(
        c,
        "fail-above-fake-pass",
        5,
        [
            _ar(a, f"spf=fail smtp.mailfrom={EVE}; dmarc=fail header.from={dd}"),
            _ar("mx.evil.example", f"dmarc=pass header.from={dd}"),
            rp,
        ],
        author=EVE,
    )
    _director_mail(
        c, "dmarc-none", 6, [_ar(a, f"spf=none; dkim=none; dmarc=none header.from={dd}")]
    )
    _director_mail(c, "dmarc-temperror", 7, [_ar(a, f"dmarc=temperror header.from={dd}")])
    _director_mail(
        c,
        "arc-only-pass",
        0,
        [
            ("ARC-Authentication-Results", f"i=1; {a}; dmarc=pass header.from={dd}"),
            _ar("mx.evil.example", "arc=pass"),
        ],
    )
    victim = c.player(0)
    vd = _domain(victim)
    _player_forgery(
        c,
        "player-dmarc-fail",
        victim,
        [_ar(a, f"spf=pass smtp.mailfrom={EVE}; dmarc=fail header.from={vd}"), rp],
        author=EVE,
    )
    victim = c.player(1)
    _player_forgery(
        c,
        "player-fail-above-pass",
        victim,
        [
            _ar(a, f"dmarc=fail (p=quarantine) header.from={_domain(victim)}"),
            _ar("mx.evil.example", f"dmarc=pass header.from={_domain(victim)}"),
        ],
    )
    _director_mail(
        c,
        "uppercase-fail",
        1,
        [_ar(a.upper(), f"DMARC=FAIL header.from={dd.upper()}")],
    )


def _forged_ar_below(c: _Corpus) -> None:
    c.section("forged-ar-below")
    a, dd = c.world.authserv_id, c.dd
    top = _ar(a, f"spf=pass smtp.mailfrom={EVE}; dkim=none")

    def below(domain: str, server: str | None = None) -> Field:
        return _ar(
            server or a, f"spf=pass; dkim=pass header.d={domain}; dmarc=pass header.from={domain}"
        )

    def director(
        variant: str, i: int, fields: Sequence[Field | bytes], author: str | None = EVE
    ) -> None:
        _director_mail(c, variant, i, fields, author=author)

    director("forfeit", 4, [top, below(dd)])
    director("result", 5, [top, below(dd)])
    director("penalty", 2, [top, below(dd)])
    slot_received = ("Received", f"from evil.example by {a}; {format_datetime(c.world.start)}")
    director("below-received", 3, [top, slot_received, below(dd)])
    director("other-server-below", 0, [top, below(dd, "mx.evil.example")])
    director("top-none", 7, [_ar(a, "none"), below(dd)], None)
    director(
        "top-fails-spf-dkim",
        1,
        [
            _ar(a, "spf=softfail smtp.mailfrom=evil.example; dkim=fail header.d=evil.example"),
            below(dd),
        ],
        None,
    )
    director("three-results", 6, [top, below(dd), below(dd)])
    director(
        "folded",
        2,
        [
            _field(
                "Authentication-Results", f"{a};\r\n\tspf=pass smtp.mailfrom={EVE};\r\n\tdkim=none"
            ),
            _field("Authentication-Results", f"{a};\r\n\tdmarc=pass\r\n\theader.from={dd}"),
        ],
    )
    # Below every other field, right above the body.
    victim = c.player(2)
    _player_forgery(
        c, "player-at-bottom", victim, [top], author=EVE, extra=[below(_domain(victim))]
    )
    victim = c.player(3)
    _player_forgery(c, "player", victim, [top, below(_domain(victim))], author=EVE)


def _dmarc_in_property(c: _Corpus) -> None:
    c.section("dmarc-in-property")
    a, dd = c.world.authserv_id, c.dd
    cases: list[tuple[str, str, str | None]] = [
        (
            "spf-mailfrom",
            "spf=pass smtp.mailfrom=dmarc=pass@evil.example; dkim=none",
            "dmarc=pass@evil.example",
        ),
        ("dkim-domain", "spf=none; dkim=pass header.d=dmarc=pass.evil.example", None),
        ("quoted-local", 'spf=pass smtp.mailfrom="dmarc=pass"@evil.example', None),
        ("dkim-selector", "dkim=pass header.i=@dmarc=pass.evil.example header.s=dmarc=pass", None),
        ("comment", f"spf=none (dmarc=pass header.from={dd}) smtp.mailfrom={EVE}", EVE),
        ("smtp-auth", "auth=pass smtp.auth=dmarc=pass", None),
        ("helo", "spf=pass smtp.helo=dmarc=pass; dkim=fail", None),
        ("iprev", "iprev=pass policy.iprev=dmarc=pass", None),
        ("x-method", f"x-dmarc=pass header.from={dd}", None),
        ("reason", 'dkim=fail reason="dmarc=pass header.from=' + dd + '"', None),
    ]
    for i, (variant, results, author) in enumerate(cases):
        _director_mail(c, variant, i, [_ar(a, results)], author=author)
    victim = c.player(0)
    _player_forgery(
        c,
        "player-spf-mailfrom",
        victim,
        [_ar(a, f"spf=pass smtp.mailfrom=dmarc=pass@{_domain(victim)}.evil.example; dkim=none")],
    )
    victim = c.player(1)
    _player_forgery(
        c,
        "player-comment",
        victim,
        [_ar(a, f"spf=pass (dmarc=pass header.from={_domain(victim)}) smtp.mailfrom={EVE}")],
        author=EVE,
    )


def _dmarc_wrong_domain(c: _Corpus) -> None:
    c.section("dmarc-wrong-domain")
    a, dd = c.world.authserv_id, c.dd
    cases: list[tuple[str, str]] = [
        ("evil", "dmarc=pass header.from=evil.example"),
        ("suffix", f"dmarc=pass header.from={dd}.evil.example"),
        ("glued", f"dmarc=pass header.from=x{dd}"),
        ("subdomain", f"dmarc=pass header.from=mail.{dd}"),
        ("upper-suffix", f"dmarc=pass header.from={dd.upper()}.EVIL.EXAMPLE"),
        ("domain-in-comment", f"dmarc=pass header.from=evil.example ({dd})"),
        ("two-verdicts", f"dmarc=pass header.from=evil.example; dmarc=fail header.from={dd}"),
        ("player-domain", "dmarc=pass header.from=players-mail.example"),
    ]
    for i, (variant, results) in enumerate(cases):
        _director_mail(c, variant, i, [_ar(a, results)])
    for i in range(2):
        victim = c.player(i + 2)
        _player_forgery(
            c,
            "player",
            victim,
            [_ar(a, f"spf=pass smtp.mailfrom={EVE}; dmarc=pass header.from=evil.example")],
            author=EVE,
        )


# ---------------------------------------------------------------------------
# 13-15. forged From


def _multi_from(c: _Corpus) -> None:
    c.section("multi-from")
    td = c.world.director
    _director_mail(c, "td-then-eve", 0, [], author=EVE, frm=f"{td}, {EVE}")
    _director_mail(c, "eve-then-td", 1, [], author=EVE, frm=f"{EVE}, {td}")
    slot_extra: list[Field | bytes] = [("From", EVE)]
    _director_mail(c, "two-fields-td-first", 2, [], author=EVE, frm=td, extra=slot_extra)
    _director_mail(c, "two-fields-eve-first", 3, [("From", EVE)], author=EVE, frm=td)
    _director_mail(c, "sender-differs", 4, [], author=EVE, frm=td, extra=[("Sender", EVE)])
    _director_mail(c, "group-syntax", 5, [], author=EVE, frm=f"Board: {td}, {EVE};")
    _director_mail(c, "no-comma", 6, [], author=EVE, frm=f"<{td}> <{EVE}>")
    victim = c.player(0)
    _player_forgery(
        c, "player-sender-differs", victim, [], author=MALLORY, extra=[("Sender", MALLORY)]
    )
    victim = c.player(1)
    _player_forgery(
        c,
        "player-two-names",
        victim,
        [],
        author=MALLORY,
        frm=f'"{_display(victim)}" <{victim}>, "Mallory" <{MALLORY}>',
    )
    victim = c.player(2)
    _player_forgery(c, "player-two-fields", victim, [], author=MALLORY, extra=[("From", MALLORY)])
    _director_mail(
        c,
        "pass-for-second",
        7,
        [_ar(c.world.authserv_id, f"dmarc=pass header.from={_domain(EVE)}")],
        author=EVE,
        frm=f"{td}, {EVE}",
    )


def _address_in_display_name(c: _Corpus) -> None:
    c.section("address-in-display-name")
    td = c.world.director
    for i, frm in enumerate(
        [
            f"{td} <{EVE}>",
            f'"{td}" <{EVE}>',
            f"{_ew(td, encoding='Q')} <{EVE}>",
            f'"{td} via Federation" <{EVE}>',
            f"{EVE} ({td})",
            f"{td}<{EVE}>",
            f'"<{td}>" <{EVE}>',
            f"{td.replace('@', '＠')} <{EVE}>",
        ]
    ):
        _director_mail(c, f"director-{i + 1}", i, [], author=EVE, frm=frm)
    victim = c.player(0)
    _player_forgery(
        c,
        "player-angle-in-name",
        victim,
        [],
        author=EVE,
        frm=f'"{_display(victim)} <{victim}>" <{EVE}>',
    )
    victim = c.player(1)
    _player_forgery(
        c,
        "player-own-domain-pass",
        victim,
        [_ar(c.world.authserv_id, f"dmarc=pass header.from={_domain(EVE)}")],
        author=EVE,
        frm=f'"{victim}" <{EVE}>',
    )


def _forged_director_plain(c: _Corpus) -> None:
    c.section("forged-director-plain")
    td = c.world.director
    for i in range(6):
        frm = [td, f"Tournament Director <{td}>", td.upper(), f'"{_display(td)}" <{td}>'][i % 4]
        _director_mail(c, "order", i, [], frm=frm)
    tag = c.tag(1)
    c.mail(
        "confirm-out-of-the-blue",
        Expect.FORGED,
        None,
        _text("confirm\n"),
        frm=td,
        subject=f"Re: [{tag}] claim",
        extra=[("In-Reply-To", f"<no-such-claim.{c.slug}@{_domain(c.world.bot)}>")],
    )
    c.mail(
        "confirm-bulgarian",
        Expect.FORGED,
        None,
        _text("потвърждавам\n"),
        frm=td,
        subject=f"Re: [{c.tag(2)}] искане",
    )
    orders = "\n".join(_order(c, i) for i in range(3))
    c.mail("several-orders", Expect.FORGED, None, _text(orders + "\n"), frm=td, subject="orders")
    slot_top: list[Field | bytes] = [
        ("Return-Path", f"<{EVE}>"),
        ("Received", f"from evil.example (evil.example [192.0.2.66]) by mx.{c.dd}"),
    ]
    _director_mail(c, "visible-envelope", 6, slot_top, author=EVE, frm=td)


# ---------------------------------------------------------------------------
# 16-18. strangers and collisions


def _smtputf8_sender(c: _Corpus) -> None:
    c.section("smtputf8-sender")
    cases: list[tuple[str, str, str, str]] = [
        ("bg", "иван@пример.бг", "Помощ", "помощ\n"),
        ("bg-again", "иван@пример.бг", "Статус", "статус\n"),
        ("de", "müller@bücher.de", "Hilfe", "help\n"),
        ("de-upper", "Müller@Bücher.de", "Status", "status\n"),
        ("zh", "用户@例子.广告", "帮助", "1. e2-e4\n"),
        ("el", "δοκιμή@παράδειγμα.δοκιμή", "help", "help\n"),
        ("ascii-domain", "josé@example.com", "status", "status\n"),
        ("hi", "ईमेल@उदाहरण.भारत", "help", "help\n"),
        ("ru-ascii-domain", "пётр@players-unknown.example", "Ход", "1. Кg1-f3\n"),
        ("ru-named", "анна@почта.рф", "Помощь", "помощь\n"),
    ]
    for variant, address, subject, body in cases:
        frm = f"{address.split('@')[0].capitalize()} <{address}>" if "named" in variant else address
        c.mail(variant, Expect.STRANGER, address, _text(body), frm=frm, subject=subject)


def _idn_sender(c: _Corpus) -> None:
    c.section("idn-sender")

    def puny(domain: str) -> str:
        return domain.encode("idna").decode("ascii")

    bg, de, zh = puny("пример.бг"), puny("bücher.de"), puny("例子.广告")
    cases: list[tuple[str, str, str, str]] = [
        ("bg", f"ivan@{bg}", _ew("Иван Петров"), "help\n"),
        ("bg-again", f"ivan@{bg}", _ew("Иван Петров", "koi8-r", "Q"), "status\n"),
        ("de", f"mueller@{de}", _ew("Jürgen Müller", "iso-8859-1", "Q"), "help\n"),
        ("zh", f"user@{zh}", _ew("用户"), "1. e2-e4\n"),
        ("upper", f"IVAN@{bg.upper()}", _ew("ИВАН"), "help\n"),
        ("invalid-punycode", "ivan@xn--zzzzzz-9999.example", "Ivan", "help\n"),
        ("punycode-local", f"{puny('иван')}@example.net", _ew("Иван", "cp1251"), "status\n"),
        ("many-labels", f"anna@{puny('почта')}.{puny('сайт')}.{puny('рф')}", _ew("Анна"), "help\n"),
    ]
    for variant, address, name, body in cases:
        c.mail(
            variant,
            Expect.STRANGER,
            address,
            _text(body),
            frm=f"{name} <{address}>",
            subject=body.strip(),
        )


def _message_id_collision(c: _Corpus) -> None:
    c.section("message-id-collision")
    index = c.world.index

    def control(k: int) -> str:
        return f"<{index}-control-{k}@players.example>"

    for k in range(1, 7):
        author = STRANGERS[k % len(STRANGERS)]
        slot = c.slot(f"stranger-control-{k}")
        fields = [*c.head(slot, author, ["help", "status", "hello"][k % 3], mid=False)]
        fields.append(("Message-ID", control(k)))
        c.add(slot, _join(fields, _text("help\n")), Expect.STRANGER, author)
    for k in range(1, 6):
        author = c.player(k)
        slot = c.slot(f"player-control-{k}")
        fields = [*c.head(slot, c.named(author), c.subject_for(author, "status"), mid=False)]
        fields.append(("Message-ID", control(k)))
        c.add(slot, _join(fields, _text("status\n")), Expect.ANY, author)
    # The same Message-ID without angle brackets, and folded.
    author = STRANGERS[0]
    slot = c.slot("stranger-bare-control")
    fields = [*c.head(slot, author, "help", mid=False)]
    fields.append(("Message-ID", control(1).strip("<>")))
    c.add(slot, _join(fields, _text("help\n")), Expect.STRANGER, author)
    author = STRANGERS[1]
    slot = c.slot("stranger-folded-control")
    fields = [*c.head(slot, author, "help", mid=False)]
    fields.append(("Message-ID", "\r\n " + control(2)))
    c.add(slot, _join(fields, _text("help\n")), Expect.STRANGER, author)


# ---------------------------------------------------------------------------
# 19-24. machine mail


def _machine_move(c: _Corpus, author: str) -> bytes:
    """A machine's message that carries a legal-looking move of ``author``."""
    return _text(
        f"This is an automatic message.\n\n{c.move(author)}\n\n"
        f"On {format_datetime(c.world.start)}, Arbiter <{c.world.bot}> wrote:\n"
        + c.bot_quote(author)
    )


def _machine_rfc3834(c: _Corpus) -> None:
    c.section("machine-rfc3834")
    cases: list[tuple[str, str, str]] = [
        ("auto-replied", "Auto-Submitted", "auto-replied"),
        ("auto-generated", "Auto-Submitted", "auto-generated"),
        ("auto-notified", "Auto-Submitted", "auto-notified"),
        ("owner-email", "Auto-Submitted", "auto-replied; owner-email=" + c.player(3)),
        ("capitalised", "Auto-Submitted", "Auto-Replied"),
        ("comment", "Auto-Submitted", "auto-generated (vacation)"),
        ("upper-name", "AUTO-SUBMITTED", "auto-notified"),
        ("folded", "Auto-Submitted", "\r\n auto-replied"),
        ("lower-name-extension", "auto-submitted", "x-custom-auto"),
    ]
    for i, (variant, name, value) in enumerate(cases):
        author = c.player(i)
        c.mail(variant, Expect.MACHINE, author, _machine_move(c, author), extra=[(name, value)])


def _machine_autoreply_headers(c: _Corpus) -> None:
    c.section("machine-autoreply-headers")
    cases: list[tuple[str, list[Field]]] = [
        ("x-autoreply", [("X-Autoreply", "yes")]),
        ("x-autorespond", [("X-Autorespond", "Vacation message")]),
        ("suppress-all", [("X-Auto-Response-Suppress", "All")]),
        ("suppress-oof", [("X-Auto-Response-Suppress", "DR, OOF, AutoReply")]),
        ("precedence-bulk", [("Precedence", "bulk")]),
        ("precedence-junk", [("Precedence", "junk")]),
        ("precedence-list", [("Precedence", "list")]),
        ("precedence-auto-reply", [("Precedence", "auto_reply")]),
        ("x-precedence-bulk", [("X-Precedence", "bulk")]),
        ("list-id", [("List-Id", "Chess club <club.lists.example>")]),
        ("list-unsubscribe", [("List-Unsubscribe", "<mailto:leave@lists.example>")]),
        ("empty-return-path", [("Return-Path", "<>")]),
    ]
    for i, (variant, fields) in enumerate(cases):
        stranger = i % 3 == 2
        author = STRANGERS[i % len(STRANGERS)] if stranger else c.player(i)
        top = [f for f in fields if f[0] == "Return-Path"]
        extra = [f for f in fields if f[0] != "Return-Path"]
        body = (
            _text("help\n\n" + c.bot_quote(c.player(0))) if stranger else _machine_move(c, author)
        )
        c.mail(
            variant + ("-stranger" if stranger else ""),
            Expect.MACHINE,
            author,
            body,
            top=top,
            extra=extra,
            subject="Re: help" if stranger else None,
        )
    author = c.player(1)
    c.mail(
        "empty-return-path-spaced",
        Expect.MACHINE,
        author,
        _machine_move(c, author),
        top=[("Return-Path", "< >")],
    )


def _bounce_text(c: _Corpus, author: str) -> bytes:
    tag, white, black, _ = c.game_of(author)
    return _text(
        "This is the mail system at host mx.players.example.\n\n"
        "I'm sorry to have to inform you that your message could not\n"
        "be delivered to one or more recipients.\n\n"
        f"<{author}>: host mx.players.example said: 550 5.1.1 mailbox full\n\n"
        "--- Below this line is a copy of the message.\n\n"
        f"From: Arbiter <{c.world.bot}>\n"
        f"To: {author}\n"
        f"Subject: [{tag}] {_display(white)} – {_display(black)}: move\n"
        "Auto-Submitted: auto-generated\n"
        "X-Mailbot-Event: move\n\n"
        f"{c.move(author)}\n"
    )


def _machine_daemon(c: _Corpus) -> None:
    c.section("machine-daemon")
    cases: list[tuple[str, str, str | None, str]] = [
        ("upper", "MAILER-DAEMON@mx.players.example", "MAILER-DAEMON@mx.players.example", ""),
        ("lower", "mailer-daemon@mx.players.example", "mailer-daemon@mx.players.example", ""),
        ("underscore", "MAILER_DAEMON@mx.players.example", "MAILER_DAEMON@mx.players.example", ""),
        ("mixed-case", "Mailer-Daemon@mx.players.example", "Mailer-Daemon@mx.players.example", ""),
        ("postmaster", "postmaster@players.example", "postmaster@players.example", ""),
        (
            "delivery-system",
            "Mail Delivery System <bounce@mx.players.example>",
            "bounce@mx.players.example",
            "Undelivered Mail Returned to Sender",
        ),
        (
            "delivery-subsystem",
            "Mail Delivery Subsystem <mailer-daemon@googlemail.com>",
            "mailer-daemon@googlemail.com",
            "Delivery Status Notification (Failure)",
        ),
        (
            "postmaster-named",
            "Postmaster <Postmaster@players.example>",
            "postmaster@players.example",
            "",
        ),
        ("bare-local", "MAILER-DAEMON", None, ""),
        (
            "russian",
            f"{_ew('Почтовая служба')} <mailer-daemon@mail.players.example>",
            "mailer-daemon@mail.players.example",
            _ew("Недоставленное сообщение"),
        ),
    ]
    for i, (variant, frm, address, subject) in enumerate(cases):
        author = c.player(i)
        tag = c.game_of(author)[0]
        c.mail(
            variant,
            Expect.MACHINE,
            address,
            _bounce_text(c, author),
            frm=frm,
            subject=subject or f"Undeliverable: [{tag}] move",
        )


def _machine_ooo_subject(c: _Corpus) -> None:
    c.section("machine-ooo-subject")
    prefixes: list[tuple[str, str, str]] = [
        ("en-out-of-office", "Out of Office: ", "utf-8"),
        ("en-automatic-reply", "Automatic reply: ", "utf-8"),
        ("en-autoreply", "Autoreply: ", "utf-8"),
        ("en-away", "Away from the office", "utf-8"),
        ("en-vacation", "Vacation reply", "utf-8"),
        ("bg-automatic", "Автоматичен отговор: ", "utf-8"),
        ("bg-out-of-office", "Извън офиса", "cp1251"),
        ("bg-absent", "Отсъствам", "utf-8"),
        ("ru-autoreply", "Автоответ: ", "koi8-r"),
        ("ru-automatic", "Автоматический ответ: ", "utf-8"),
        ("ru-not-in", "Нет на месте", "utf-8"),
        ("ru-out-of-office", "Вне офиса", "cp1251"),
        ("ru-on-leave", "В отпуске", "utf-8"),
    ]
    for i, (variant, prefix, charset) in enumerate(prefixes):
        author = c.player(i)
        tag, white, black, _ = c.game_of(author)
        original = f"[{tag}] {_display(white)} – {_display(black)}: move"
        subject_text = prefix + original if prefix.endswith(": ") else prefix
        if charset == "koi8-r":
            subject_text = subject_text.replace("–", "-")
        subject = subject_text if subject_text.isascii() else _ew(subject_text, charset)
        if i % 3 == 0:
            body = _text(
                "I am out of the office until 20 March with no access to e-mail.\n\n"
                + c.bot_quote(author)
            )
        elif i % 3 == 1:
            body = _text(
                "Благодаря за писмото. Ще отговоря след завръщането си.\n\n"
                "-----Original Message-----\n"
                f"From: Arbiter <{c.world.bot}>\nSubject: {original}\n\n{c.move(author)}\n"
            )
        else:
            body = _text(
                f"Я в отпуске. Ваше сообщение «{original}» ({c.move(author)}) "
                "будет прочитано позже.\n"
            )
        c.mail(variant, Expect.MACHINE, author, body, subject=subject)


def _machine_own_address(c: _Corpus) -> None:
    c.section("machine-own-address")
    bot = c.world.bot
    local, _, domain = bot.partition("@")
    tagged = f"{local}+x@{domain}"
    loop = f"{local.capitalize()}+Loop@{domain.title()}"
    author = c.player(0)
    tag, white, black, _ = c.game_of(author)
    bot_subject = f"[{tag}] {_display(white)} – {_display(black)}: move"
    events: list[Field] = [
        ("Auto-Submitted", "auto-generated"),
        ("X-Mailbot-Event", "move"),
        ("X-Mailbot-Game", tag),
        ("X-Mailbot-Ply", "1"),
        ("X-Mailbot-Move", "e2-e4"),
    ]
    move = _machine_move(c, author)
    c.mail("exact", Expect.MACHINE, bot, move, frm=bot, subject=bot_subject)
    c.mail("plus-tag", Expect.MACHINE, tagged, move, frm=tagged, subject=bot_subject)
    c.mail("upper", Expect.MACHINE, bot, move, frm=bot.upper(), subject=bot_subject)
    c.mail("display-name", Expect.MACHINE, bot, move, frm=f"Federation CC <{bot}>")
    c.mail("plus-tag-mixed-case", Expect.MACHINE, loop, move, frm=loop)
    c.mail(
        "verbatim-own",
        Expect.MACHINE,
        bot,
        _text(f"{c.move(author)}\n"),
        frm=f"Federation CC <{bot}>",
        subject=bot_subject,
        extra=events,
    )
    c.mail(
        "event-from-player",
        Expect.MACHINE,
        author,
        move,
        extra=[("X-Mailbot-Event", "move")],
    )
    c.mail(
        "event-from-stranger",
        Expect.MACHINE,
        STRANGERS[2],
        _text("help\n"),
        subject="help",
        extra=[("x-mailbot-event", "confirm")],
    )
    c.mail(
        "auto-submitted-no",
        Expect.MACHINE,
        bot,
        move,
        frm=bot,
        subject=bot_subject,
        extra=[("Auto-Submitted", "no")],
    )
    c.mail(
        "encoded-display",
        Expect.MACHINE,
        bot,
        move,
        frm=f"{_ew('Федерация')} <{bot.upper()}>",
        subject=bot_subject,
    )


def _report(
    c: _Corpus,
    variant: str,
    author: str | None,
    frm: str,
    report_type: str,
    human: str,
    status_type: str,
    status: str,
    *,
    subject: str,
    original_type: str = "message/rfc822",
    wrap_mixed: bool = False,
) -> None:
    player = c.player(len(c.items))
    tag, white, black, _ = c.game_of(player)
    original = _text(
        f"From: Arbiter <{c.world.bot}>\nTo: {player}\n"
        f"Subject: [{tag}] {_display(white)} – {_display(black)}: move\n\n{c.move(player)}\n"
    )
    if original_type == "text/rfc822-headers":
        original = original.partition(b"\r\n\r\n")[0] + CRLF
    body = _multipart(
        "report",
        [
            _part([("Content-Type", "text/plain; charset=utf-8")], _text(human)),
            _part([("Content-Type", status_type)], _text(status)),
            _part([("Content-Type", original_type)], original),
        ],
    )
    ctype = f'multipart/report; report-type={report_type}; boundary="report"'
    if wrap_mixed:
        body = _multipart("outer", [_part([("Content-Type", ctype)], body)])
        ctype = 'multipart/mixed; boundary="outer"'
    c.mail(variant, Expect.MACHINE, author, body, frm=frm, subject=subject, ctype=ctype, cte=None)


def _machine_reports(c: _Corpus) -> None:
    c.section("machine-reports")
    daemon = "MAILER-DAEMON@mx.players.example"
    dsn = (
        "Reporting-MTA: dns; mx.players.example\n\n"
        "Final-Recipient: rfc822; {rcpt}\nAction: {action}\nStatus: {status}\n"
    )
    p = [c.player(i) for i in range(4)]
    failed = dsn.format(rcpt=p[0], action="failed", status="5.1.1")
    _report(
        c,
        "dsn-failed",
        daemon,
        daemon,
        "delivery-status",
        "Delivery failed.",
        "message/delivery-status",
        failed,
        subject="Undelivered Mail Returned to Sender",
    )
    _report(
        c,
        "dsn-postmaster",
        "postmaster@players.example",
        "postmaster@players.example",
        "delivery-status",
        "Delivery failed.",
        "message/delivery-status",
        failed,
        subject="Delivery Status Notification (Failure)",
    )
    delayed = dsn.format(rcpt=p[1], action="delayed", status="4.4.7")
    _report(
        c,
        "dsn-delayed",
        daemon,
        daemon,
        "delivery-status",
        "Delivery delayed.",
        "message/delivery-status",
        delayed,
        subject="Delayed Mail (still being retried)",
    )
    _report(
        c,
        "dsn-from-stranger",
        STRANGERS[0],
        f"Mail System <{STRANGERS[0]}>",
        "delivery-status",
        "Could not deliver.",
        "message/delivery-status",
        failed,
        subject="Returned mail",
    )
    mdn = (
        "Reporting-UA: mail.players.example; Mailer\nFinal-Recipient: rfc822; {rcpt}\n"
        "Disposition: manual-action/MDN-sent-manually; displayed\n"
    )
    _report(
        c,
        "mdn-read",
        p[0],
        c.named(p[0]),
        "disposition-notification",
        "Your message was read.",
        "message/disposition-notification",
        mdn.format(rcpt=p[0]),
        subject="Read: move",
        original_type="text/rfc822-headers",
    )
    _report(
        c,
        "mdn-outlook",
        p[1],
        c.named(p[1]),
        "disposition-notification",
        "Your message\n\n  To: you\n\nwas read on Monday.",
        "message/disposition-notification",
        mdn.format(rcpt=p[1]),
        subject="Read: Re: move",
    )
    _report(
        c,
        "global-dsn",
        daemon,
        daemon,
        "global-delivery-status",
        "Доставката не бе успешна.",
        "message/global-delivery-status",
        dsn.format(rcpt="иван@пример.бг", action="failed", status="5.1.1"),
        subject="Undelivered",
        original_type="message/global",
    )
    _report(
        c,
        "global-mdn",
        p[2],
        c.named(p[2]),
        "disposition-notification",
        "Прочетено.",
        "message/global-disposition-notification",
        mdn.format(rcpt=p[2]),
        subject="Прочетено",
        original_type="message/global-headers",
    )
    _report(
        c,
        "report-inside-mixed",
        p[3],
        c.named(p[3]),
        "delivery-status",
        "Delivery failed.",
        "message/delivery-status",
        failed,
        subject="Returned mail: see transcript",
        wrap_mixed=True,
    )
    # A bare delivery-status body, no multipart.
    c.mail(
        "bare-delivery-status",
        Expect.MACHINE,
        daemon,
        _text(failed),
        frm=daemon,
        subject="failure notice",
        ctype="message/delivery-status",
        cte=None,
    )
    # A delivery-status part inside an ordinary multipart/mixed from a player's address.
    author = p[1]
    body = _multipart(
        "mixed-dsn",
        [
            _part([("Content-Type", "text/plain")], _text(f"Delivery failed.\n{c.move(author)}\n")),
            _part([("Content-Type", "message/delivery-status")], _text(failed)),
        ],
    )
    c.mail(
        "mixed-with-status",
        Expect.MACHINE,
        author,
        body,
        subject="Undeliverable: move",
        ctype='multipart/mixed; boundary="mixed-dsn"',
        cte=None,
        extra=[("X-Failed-Recipients", p[0])],
    )


# ---------------------------------------------------------------------------
# 25. empty and garbage


def _empty_and_garbage(c: _Corpus) -> None:
    c.section("empty-and-garbage")
    p = [c.player(i) for i in range(4)]
    c.add(c.slot("zero-bytes"), b"", Expect.ANY, None)
    c.add(c.slot("lone-crlf"), CRLF, Expect.ANY, None)
    c.add(c.slot("three-crlf"), CRLF * 3, Expect.ANY, None)
    c.add(c.slot("only-body"), _text(f"{c.move(p[0])}\nthanks\n"), Expect.ANY, None)
    slot = c.slot("random-binary")
    c.add(slot, random.Random(slot.name).randbytes(4096), Expect.ANY, None)
    slot = c.slot("random-binary-no-nul")
    data = random.Random(slot.name).randbytes(4096).replace(b"\x00", b"\x01")
    c.add(slot, data, Expect.ANY, None)
    # Headers only: from a player, nothing to read.
    tag = c.game_of(p[0])[0]
    slot = c.slot("only-headers")
    c.add(slot, _join(c.head(slot, c.named(p[0]), f"Re: [{tag}]"), None), Expect.UNREADABLE, p[0])
    slot = c.slot("only-headers-no-final-crlf")
    c.add(slot, _join(c.head(slot, p[1], "Re:"), None)[:-2], Expect.UNREADABLE, p[1])
    c.mail("empty-body", Expect.UNREADABLE, p[2], b"", subject=c.subject_for(p[2], ""))
    c.mail("whitespace-body", Expect.UNREADABLE, p[3], b"   \r\n\t\r\n \r\n", subject="Re:")
    c.mail("only-signature", Expect.UNREADABLE, p[0], _text("-- \nIvan Ivanov\n+359 888 000\n"))
    c.mail("only-quote", Expect.UNREADABLE, p[1], _text(c.bot_quote(p[1])))
    c.mail("base64-empty", Expect.UNREADABLE, p[2], b"====\r\n", cte="base64")
    body = _multipart(
        "img",
        [
            _part([("Content-Type", "text/plain; charset=utf-8")], b""),
            _part(
                [
                    ("Content-Type", "image/png"),
                    ("Content-Disposition", 'attachment; filename="board.png"'),
                    ("Content-Transfer-Encoding", "base64"),
                ],
                _b64(b"\x89PNG\r\n\x1a\n" + bytes(range(1, 200))),
            ),
        ],
    )
    c.mail(
        "empty-text-with-image",
        Expect.UNREADABLE,
        p[3],
        body,
        ctype='multipart/mixed; boundary="img"',
        cte=None,
    )
    slot = c.slot("binary-header-block")
    raw = random.Random(slot.name).randbytes(600).replace(b"\x00", b"\x7f").replace(b":", b";")
    c.add(slot, raw + CRLF + CRLF + _text(c.move(p[0]) + "\n"), Expect.ANY, None)
    c.mail("empty-from", Expect.ANY, None, _text(c.move(p[1]) + "\n"), frm="", subject="move")


# ---------------------------------------------------------------------------
# 26. HTML bombs


def _html_bombs(c: _Corpus) -> None:
    c.section("html-bombs")
    p = [c.player(i) for i in range(4)]

    def page(inner: str, head: str = "") -> bytes:
        return _text(f"<html><head>{head}</head><body>{inner}</body></html>")

    def html(variant: str, i: int, body: bytes, cte: str = "8bit") -> None:
        c.mail(variant, Expect.ANY, p[i % 4], body, ctype="text/html; charset=utf-8", cte=cte)

    def mv(i: int) -> str:
        return c.move(p[i % 4])

    html("nested-div-100k", 0, page("<div>" * 100_000 + mv(0) + "</div>" * 100_000))
    html("nested-div-unclosed", 1, page("<div><span>" * 50_000 + mv(1)))
    html("unclosed-tags", 2, page("<b><i><p><font><u>" * 10_000 + mv(2)))
    html("style-1mb", 3, page(mv(3), "<style>" + "p{color:red}\n" * 80_000 + "</style>"))
    html("style-unclosed", 0, page(mv(0), "<style>" + "p{color:red}\n" * 80_000))
    html("entity-flood", 1, page("&nbsp;" * 200_000 + mv(1) + "&#x41;&amp;amp;" * 50_000))
    html("script-1mb", 2, page("<script>" + "var a=1;\n" * 110_000 + "</script>" + mv(2)))
    html("table-20k", 3, page("<table><tr><td>" * 20_000 + mv(3)))
    html("comment-unclosed", 0, page(f"<p>{mv(0)}</p><!-- " + "x" * 100_000))
    html(
        "attributes-50k", 1, page("<p " + " ".join(f"a{i}=v" for i in range(50_000)) + f">{mv(1)}")
    )
    doctype = "<!DOCTYPE html [" + "".join(
        f'<!ENTITY e{i} "&e{i - 1};&e{i - 1};&e{i - 1};">' for i in range(1, 30)
    )
    html("entity-laughs", 2, _text(f'{doctype}<!ENTITY e0 "lol">]><p>{mv(2)} &e29;</p>'))
    html("br-1m", 3, page("<br>" * 1_000_000 + mv(3)))
    html("cdata-unclosed", 0, page(f"<p>{mv(0)}</p><![CDATA[" + "y" * 100_000))
    # a megabyte of constructs that never close: html.parser rescanned the rest of the
    # input for each one, and took most of an hour over one such message
    html("attribute-quote-unclosed-1mb", 1, page(f"<p>{mv(1)}</p>" + "<a b='" * 175_000))
    html("comment-open-1mb", 2, page(f"<p>{mv(2)}</p>" + "<!--" * 262_000))
    html("tag-open-1mb", 3, page(f"<p>{mv(3)}</p>" + "<a " * 350_000))
    html(
        "base64-nested",
        1,
        _b64(page("<blockquote>" * 30_000 + mv(1))),
        cte="base64",
    )
    alt = _multipart(
        "alt",
        [
            _part([("Content-Type", "text/plain; charset=utf-8")], b" \r\n"),
            _part(
                [("Content-Type", "text/html; charset=utf-8")],
                page("<div>" * 50_000 + mv(2)),
            ),
        ],
    )
    c.mail(
        "alternative-empty-plain",
        Expect.ANY,
        p[2],
        alt,
        ctype='multipart/alternative; boundary="alt"',
        cte=None,
    )


# ---------------------------------------------------------------------------
# The corpus

_SECTIONS = (
    _broken_mime,
    _lying_charset,
    _unknown_charset,
    _nul,
    _huge_header,
    _huge_body,
    _deep_nesting,
    _header_injection,
    _forged_ar_above,
    _forged_ar_below,
    _dmarc_in_property,
    _dmarc_wrong_domain,
    _multi_from,
    _address_in_display_name,
    _forged_director_plain,
    _smtputf8_sender,
    _idn_sender,
    _message_id_collision,
    _machine_rfc3834,
    _machine_autoreply_headers,
    _machine_daemon,
    _machine_ooo_subject,
    _machine_own_address,
    _machine_reports,
    _empty_and_garbage,
    _html_bombs,
)


def hostile_corpus(world: World) -> list[Hostile]:
    """The hostile corpus for ``world``: the same messages on every call."""
    corpus = _Corpus(world)
    for section in _SECTIONS:
        section(corpus)
    names = [h.name for h in corpus.items]
    if len(set(names)) != len(names):
        raise AssertionError("duplicate names in the hostile corpus")
    return corpus.items


def sample_world() -> World:
    """A world for trying the corpus out."""
    players = (
        "ivanov@players.example",
        "petrov@players.example",
        "smirnova@mail.example",
        "jones@chess.example",
        "mueller@schach.example",
        "georgieva@players.example",
    )
    games = tuple(
        (f"HX-2026/{n + 1}", players[n], players[(n + 1) % len(players)])
        for n in range(len(players))
    )
    return World(
        bot="bot@federation.example",
        director="td@federation.example",
        authserv_id="mx.federation.example",
        players=players,
        games=games,
        index="HX-2026",
        start=datetime.datetime(2026, 3, 2, 9, 0, tzinfo=datetime.UTC),
    )


if __name__ == "__main__":
    import collections

    corpus = hostile_corpus(sample_world())
    counts = collections.Counter(h.klass for h in corpus)
    refused = collections.Counter(h.klass for h in corpus if not h.imap_ok)
    for klass, count in counts.items():
        note = f"  ({refused[klass]} not for IMAP)" if refused[klass] else ""
        print(f"{klass:28} {count:4}{note}")
    largest = max(corpus, key=lambda h: len(h.raw))
    print(f"{'total':28} {len(corpus):4} in {len(counts)} classes")
    print(f"largest: {largest.name}, {len(largest.raw):,} bytes")
    assert len(corpus) >= 220 and len(counts) >= 22
    assert len({h.name for h in corpus}) == len(corpus)
    world = sample_world()
    for h in corpus:
        if h.imap_ok:
            assert b"\x00" not in h.raw and len(h.raw) < IMAP_LIMIT, h.name
        if h.expect is Expect.UNREADABLE:
            assert h.sender in world.players, h.name
        if h.expect is Expect.STRANGER:
            assert h.sender and h.sender not in (*world.players, world.director), h.name
