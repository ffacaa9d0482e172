"""Generated mail for the fuzz suite: letters around a text, noise, positions and moves.

The fuzz tests of HTML bodies (tests/test_fuzz_html.py) and of move texts
(tests/test_fuzz_moves.py) build their letters here: the same headers, the
benign inputs their time bounds are measured against, the phrases a player
writes around a move, and the move itself, drawn from a random game and
written as the bot reads it.

>>> letter = plain_letter("12. Nf3")
>>> read_letter(letter).body
'12. Nf3'
"""

from __future__ import annotations

import base64
import dataclasses
import quopri
import random

import chess
from copygames import NOTATIONS, make_copy, random_game
from hypothesis import strategies as st

from mailbot.mail.letters import Letter, read_letter
from mailbot.mail.storable import MAX_READ
from mailbot.rules.notation import Notation, read_moves, write_last_moves, write_move
from mailbot.rules.referee import Judgement, judge

SENDER = "ivan@example.org"
HEAD = (
    f"From: Ivan Ivanov <{SENDER}>\r\nTo: chess@federation.example\r\n"
    "Subject: Re: [PX-1/1] Ivanov - Petrov: move\r\nMessage-ID: <fuzz@example.org>\r\n"
    "MIME-Version: 1.0\r\n"
)

#: What players write around a move; none of it reads as a move (checked by the tests).
GREETINGS = (
    "Hi Ivan,",
    "Здравейте, Иване!",
    "Привет!",
    "Hallo Hans,",
    "Dear opponent,",
    "My move:",
    "Мой ход:",
    "Моят ход е:",
    "Mein Zug:",
    "¡Hola!",
    "你好",
    "Καλημέρα",
    "Hope you are well!",
)
CLOSINGS = (
    "Thank you for the game so far.",
    "Regards,\nIvan",
    "Поздрави,\nПетър Петров",
    "С уважением,\nИван",
    "Mit freundlichen Grüßen",
    "Best wishes from Sofia",
    "Take care.",
    "Cheers",
)


def plain_letter(text: str, charset: str = "utf-8", encoding: str = "8bit") -> bytes:
    """A letter whose body is ``text`` as ``text/plain`` in ``charset`` and ``encoding``."""
    return _letter("text/plain", text, charset, encoding)


def html_letter(markup: str, charset: str = "utf-8", encoding: str = "8bit") -> bytes:
    """A letter whose body is ``markup`` as ``text/html``."""
    return _letter("text/html", markup, charset, encoding)


def _letter(ctype: str, text: str, charset: str, encoding: str) -> bytes:
    data = text.encode(charset, "xmlcharrefreplace" if ctype == "text/html" else "replace")
    return (
        HEAD + f"Content-Type: {ctype}; charset={charset}\r\n"
        f"Content-Transfer-Encoding: {encoding}\r\n\r\n"
    ).encode() + transfer_encoded(data, encoding)


def transfer_encoded(data: bytes, encoding: str) -> bytes:
    """``data`` in a transfer encoding (``base64``, ``quoted-printable``, else as it is)."""
    if encoding == "base64":
        return base64.encodebytes(data).replace(b"\n", b"\r\n")
    if encoding == "quoted-printable":
        return quopri.encodestring(data).replace(b"\n", b"\r\n")
    return data


def fill(unit: str, size: int) -> str:
    """``unit`` repeated to ``size`` characters."""
    return (unit * (size // max(1, len(unit)) + 1))[:size]


def benign_plain(size: int) -> bytes:
    """A letter of ``size`` bytes of short lines: the densest benign text (every line
    is looked at for quotes, attributions and signatures)."""
    return plain_letter(fill("ok\n", size - len(plain_letter(""))))


def benign_html(size: int) -> bytes:
    """A letter of ``size`` bytes of dense, well-formed markup."""
    return html_letter(fill("<p>12. Nf3 <b>x</b></p>", size - len(html_letter(""))))


def reading(raw: bytes) -> tuple[Letter, str]:
    """The letter and the text the referee reads in it (as the desk cuts it)."""
    letter = read_letter(raw)
    return letter, letter.body[:MAX_READ]


def assert_read(letter: Letter) -> None:
    """The letter was read, not given up on: ``read_letter`` turns an exception into an
    empty letter that has lost even its sender."""
    assert letter.from_addr == SENDER, "read_letter gave up on the letter (an exception)"


def no_move(text: str) -> bool:
    """Whether ``text`` alone holds nothing the reader takes for a move."""
    return not read_moves(text)


# -- moves --------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Written:
    """A move of a game written as a player writes it, and what it means."""

    board: chess.Board
    notation: Notation
    move: chess.Move
    text: str
    #: How it was written: ``move``, ``numbered``, ``line`` (art. 8) or ``copy-<layout>``.
    kind: str


KINDS = ("move", "numbered", "line", "copy")
LAYOUTS = ("numbered", "lines", "from-black", "marks", "pgn", "quoted", "dates")


@st.composite
def written_moves(draw: st.DrawFn) -> Written:
    """A legal move in a random position of a seeded random game, written in one of the
    notations the bot reads: alone, with its number, as the art. 8 line, or at the end
    of a copy of the whole game (tests/copygames.py)."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    name = draw(st.sampled_from(sorted(NOTATIONS)))
    kind = draw(st.sampled_from(KINDS))
    if kind == "copy":
        layout = draw(st.sampled_from(LAYOUTS))
        copy = make_copy(rng, name, layout, plies=draw(st.integers(2, 60)))
        return Written(copy.board, copy.notation, copy.move, copy.text, f"copy-{layout}")
    board, move = random_game(rng, draw(st.integers(2, 80)))
    notation = NOTATIONS[name]
    text = board.san(move) if name == "san" else write_move(board, move, notation)
    if kind == "numbered":
        dots = "." if board.turn == chess.WHITE else "..."
        text = f"{board.fullmove_number}{dots} {text}"
    elif kind == "line" and name != "san":
        after = board.copy()
        after.push(move)
        text = write_last_moves(after, notation, draw(st.integers(2, 3)))
    return Written(board, notation, move, text, kind)


def judged(written: Written, text: str) -> Judgement:
    """The referee's verdict on ``text`` in the written move's game."""
    return judge(text, written.board, written.notation)


def assert_the_move_or_none(written: Written, judgement: Judgement, text: str) -> None:
    """The text is read as the move meant, or as no move at all: never another move."""
    if judgement.accepted:
        assert judgement.move == written.move, (written.kind, text[:2000], judgement)
