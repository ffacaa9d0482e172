"""Fuzzing the reading of a move: move texts against positions, in noise.

A seeded random game gives a position and a legal move, written in each
notation the bot reads: alone, with its number, as the art. 8 line, or at the
end of a copy of the whole game (tests/copygames.py). The letter around it
holds what players write (greetings and closings in several languages, the
earlier letter quoted, a signature) and, in some letters, garbage of up to
100 kB before or after it, quoted or in the signature. The reader must give
exactly the move meant, or no move at all: never another move. Without
garbage it must give the move. It never fails, and its time is linear in the
letter's size.
"""

from __future__ import annotations

import pytest
from fuzzing import assert_linear_time, assert_scales_linearly, budget, cpu_seconds, note_input
from fuzzing_mail import (
    CLOSINGS,
    GREETINGS,
    Written,
    assert_read,
    assert_the_move_or_none,
    benign_plain,
    fill,
    judged,
    no_move,
    plain_letter,
    reading,
    written_moves,
)
from hypothesis import assume, given
from hypothesis import strategies as st

from mailbot.mail.letters import Letter
from mailbot.rules.notation import Notation, write_last_moves
from mailbot.rules.referee import Judgement

#: Characters of garbage that holds no move: no rank digit, dash or castling letter.
CALM = st.characters(
    blacklist_characters="12345678-–—:xхOoОо0",
    blacklist_categories=["Cs"],
)
#: Anything on one line, moves and quotes included: for the quoted earlier letter and
#: the signature.
WILD = st.one_of(
    st.characters(blacklist_categories=["Cs", "Cc", "Zl", "Zp"]),
    st.sampled_from(list("12345678abcdefgh-x.: >КТЦДОФ♘")),
)

PLACES = ("none", "before", "after", "quoted", "signature")
SIZES = st.sampled_from([30_000, 100_000, 3_000, 300, 10])  # large ones first: drawn often


@st.composite
def letters_with_a_move(draw: st.DrawFn) -> tuple[Written, bytes, str]:
    """A letter holding a written move, and where the garbage in it is (``none``...)."""
    written = draw(written_moves())
    lines = []
    if draw(st.booleans()):
        lines += [draw(st.sampled_from(GREETINGS)), ""]
    place = draw(st.sampled_from(PLACES))
    garbage = ""
    if place != "none":
        unit = draw(st.text(CALM if place in ("before", "after") else WILD, min_size=1))
        garbage = fill(unit, draw(SIZES))
        if place in ("before", "after"):
            assume(no_move(unit) and no_move(garbage[:2000]))
    if place == "before":
        lines += [garbage, ""]
    lines.append(written.text)
    if place == "after":
        lines += ["", garbage]
    if draw(st.booleans()):
        lines += ["", draw(st.sampled_from(CLOSINGS))]
    if place == "quoted" or draw(st.booleans()):
        earlier = write_last_moves(written.board, written.notation)
        quoted = garbage if place == "quoted" else earlier
        lines += ["", "On Mon, 2 Mar 2026, Petar Petrov wrote:"]
        lines += [f"> {line}" for line in quoted.split("\n")]
    if place == "signature":
        lines += ["-- ", garbage]
    text = "\n".join(lines)
    figurine = written.notation is Notation.FIGURINE
    charset = "utf-8" if figurine else draw(st.sampled_from(["utf-8", "cp1251", "koi8-r"]))
    encoding = draw(st.sampled_from(["8bit", "base64", "quoted-printable"]))
    return written, plain_letter(text, charset, encoding), place


def read_and_judge(written: Written, raw: bytes) -> tuple[Letter, Judgement, str]:
    letter, text = reading(raw)
    return letter, judged(written, text), text


@pytest.mark.fuzz
@budget(500)
@given(case=letters_with_a_move())
def test_a_move_in_a_letter_reads_as_the_move_meant_or_as_none(
    case: tuple[Written, bytes, str],
) -> None:
    written, raw, place = case
    results: list[tuple[Letter, Judgement, str]] = []
    seconds = cpu_seconds(lambda: results.append(read_and_judge(written, raw)))
    note_input(len(raw), seconds)
    letter, judgement, text = results[0]
    assert_read(letter)
    assert_the_move_or_none(written, judgement, text)
    if place in ("none", "quoted", "signature"):
        # nothing but what players write around a move: the move is read
        assert judgement.accepted, (written.kind, written.text, text[:2000], judgement)
    assert_linear_time(lambda data: read_and_judge(written, data), raw, benign_plain, first=seconds)


#: Lines that make the reader look twice: quotes, attributions, signatures, rules.
LINES = st.sampled_from(
    [
        ">",
        "> 12. Nf3",
        "-- ",
        "On Mon, Ivan wrote:",
        "Am 2.3.2026 schrieb Ivan <ivan@example.org>:",
        "ivan@example.org:",
        "From: Ivan",
        "Sent: Monday",
        "To: Petar",
        "Subject: move",
        "-----Original Message-----",
        "_" * 30,
        "-" * 50 + "x",
        "Sent from my iPhone",
        "On",
        "<",
        "* Ivan [2026-03-02]:",
        "\xa0",
        "\u200b",
        "\r",
        "",
        "1. e4 e5 2. Nf3 Nc6",
        "5254 7657",
        "Кg1-f3",
    ]
)
TEXT_UNITS = st.lists(st.one_of(LINES, st.text(WILD, max_size=30)), min_size=1, max_size=6).map(
    "\n".join
)


@pytest.mark.fuzz
@budget(30)
@given(written=written_moves(), unit=TEXT_UNITS)
def test_a_letter_eight_times_as_long_takes_at_most_twenty_times_as_long(
    written: Written, unit: str
) -> None:
    """The same lines at 16 kB and at 128 kB, the move at the top: a quadratic reader
    takes 64 times as long."""

    def make(size: int) -> bytes:
        return plain_letter(f"{written.text}\n\n{fill(unit + chr(10), size)}")

    def run(data: bytes) -> object:
        return read_and_judge(written, data)

    note_input(*assert_scales_linearly(run, make, size=16_000))


def test_garbage_without_rank_digits_holds_no_move() -> None:
    calm = "".join(chr(c) for c in range(0x20, 0x3000) if chr(c) not in "12345678-–—:xхOoОо0")
    assert no_move(calm)
