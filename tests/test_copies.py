"""The whole game copied with the new move at its end (docs/rules.md 2.4; art. 7-8, 15, 21).

A copy is matched against the game's record move by move, whatever its
notation and layout: a copy that agrees plays the new move; the opponent's
last move copied wrongly is incorrect (art. 15); a difference elsewhere is no
move at all, with the first difference shown and no penalty.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import chess
import pytest
from copygames import LAYOUTS, NOTATIONS, Copy, make_copy
from deskbench import Bench, at
from fuzzing import counted, scale

from mailbot.compose.catalogue import say_kept
from mailbot.rules.notation import Notation
from mailbot.rules.referee import Judgement, Verdict, explain, judge
from mailbot.store.models import InboundMessage

EN = Notation.EN

#: Copies per notation in each property test (half with White to move, half with Black):
#: the first fifth of them in the ordinary run, all (times the fuzz scale) in the fuzz
#: suite (tests/fuzzing.py), from the same seed.
COPIES = 500
TIERS = [
    pytest.param(COPIES // 5, id="quick"),
    pytest.param(COPIES * scale(), id="at-length", marks=pytest.mark.fuzz),
]


def reason_of(row: InboundMessage) -> str:
    """Why the bot did not act on a message, as the logs and the quarantine list say it."""
    return say_kept("en", row.reason_phrase, row.reason)


def game(*uci: str) -> chess.Board:
    board = chess.Board()
    for move in uci:
        board.push_uci(move)
    return board


# --- The reproducers ----------------------------------------------------------------------


def test_a_copy_whose_first_move_is_legal_again_plays_the_new_move() -> None:
    board = game("b1c3", "e7e6", "c3b1", "b7b6", "b2b4", "a7a5")
    text = "1. Nb1-c3 e7-e6 2. Nc3-b1 b7-b6 3. b2-b4 a7-a5 4. Nb1-a3"
    judgement = judge(text, board, EN)
    assert (judgement.verdict, judgement.move) == (Verdict.LEGAL, chess.Move.from_uci("b1a3"))
    assert judgement.reminders == ()


def test_a_copy_in_short_notation_plays_the_queen_move_at_its_end() -> None:
    board = game("b1a3", "g8h6", "a3b5", "h8g8", "c2c4", "e7e5", "h2h3", "b8c6")
    judgement = judge("1. Na3 Nh6 2. Nb5 Rg8 3. c4 e5 4. h3 Nc6 5. Qa4", board, EN)
    assert (judgement.verdict, judgement.move) == (Verdict.INCOMPLETE, chess.Move.from_uci("d1a4"))
    assert [r.code for r in judgement.reminders] == ["incomplete-notation"]


def test_pawn_pairs_of_a_short_copy_are_two_moves_each() -> None:
    board = game("e2e4", "e7e5", "d2d4", "d7d5", "c2c4", "c7c5", "b2b4", "b7b5", "a2a4", "a7a5")
    judgement = judge("1. e4 e5 2. d4 d5 3. c4 c5 4. b4 b5 5. a4 a5 6. h4", board, EN)
    assert (judgement.verdict, judgement.move) == (Verdict.INCOMPLETE, chess.Move.from_uci("h2h4"))
    assert not judgement.penalised


def test_a_different_first_move_is_no_move_and_shows_the_difference() -> None:
    board = game("e2e4", "e7e5", "g1f3", "b8c6")
    judgement = judge("1. d2-d4 e7-e5 2. Ng1-f3 Nb8-c6 3. Bf1-b5", board, EN)
    assert (judgement.verdict, judgement.reason_code) == (Verdict.NO_MOVE, "copy-differs")
    assert judgement.move is None and not judgement.penalised
    assert dict(judgement.details) == {
        "number": "1",
        "expected": "1. e2-e4",
        "written": "1. d2-d4",
    }
    assert judgement.reason == (
        "the copy of the game differs from the record at move 1: "
        "the game has 1. e2-e4, the copy has 1. d2-d4"
    )


def test_an_altered_earlier_move_is_no_move_not_an_impossible_one() -> None:
    # Black's 1... e5 copied as 1... e6: the copy differs; it is not the opponent's last move
    board = game("e2e4", "e7e5", "g1f3", "b8c6", "f1b5")
    judgement = judge("1. e4 e6 2. Nf3 Nc6 3. Bb5 a6", board, EN)
    assert (judgement.verdict, judgement.reason_code) == (Verdict.NO_MOVE, "copy-differs")
    assert (judgement.details["expected"], judgement.details["written"]) == (
        "1... e7-e5",
        "1... e6",
    )
    assert explain(judgement, "bg") == (
        "преписът на партията се различава от записа при ход 1: "
        "в партията е 1... e7-e5, в преписа – 1... e6"
    )


def test_the_opponents_last_move_copied_wrongly_is_incorrect() -> None:
    board = game("e2e4", "e7e5", "g1f3", "b8c6", "f1b5")
    judgement = judge("1. e4 e5 2. Nf3 Nc6 3. Bc4 a6", board, EN)
    assert (judgement.verdict, judgement.reason_code) == (Verdict.INCORRECT, "wrong-repetition")
    assert judgement.penalised


def test_a_copy_that_is_also_a_conditional_line_is_unclear() -> None:
    # knights out and back: "Nf3 Nf6 Ng1 Ng8 Nc3" copies the game and plays Nc3, or
    # plays Nf3 now and proposes the rest
    board = game("g1f3", "g8f6", "f3g1", "f6g8")
    text = "Ng1-f3 Ng8-f6 Nf3-g1 Nf6-g8 Nb1-c3"
    assert judge(text, board, EN).move == chess.Move.from_uci("b1c3")
    judgement = judge(text, board, EN, conditional_allowed=True)
    assert (judgement.verdict, judgement.reason_code) == (Verdict.UNCLEAR, "two-readings")
    numbered = "1. Ng1-f3 Ng8-f6 2. Nf3-g1 Nf6-g8 3. Nb1-c3"
    assert judge(numbered, board, EN, conditional_allowed=True).move == chess.Move.from_uci("b1c3")


# --- Properties over random games ---------------------------------------------------------


def copies(notation: str, count: int, *, replace: bool) -> list[Copy]:
    """``count`` seeded copies in ``notation``: every layout, White and Black to move."""
    rng = random.Random(f"copies-{notation}-{replace}")
    return [
        make_copy(rng, notation, LAYOUTS[i % len(LAYOUTS)], black=bool(i % 2), replace=replace)
        for i in range(count)
    ]


@counted
def read(copy: Copy, conditional: bool = False) -> Judgement:
    return judge(copy.text, copy.board, copy.notation, conditional_allowed=conditional)


@pytest.mark.parametrize("count", TIERS)
@pytest.mark.parametrize("notation", sorted(NOTATIONS))
@pytest.mark.slow
def test_an_intact_copy_plays_exactly_the_new_move(notation: str, count: int) -> None:
    for index, copy in enumerate(copies(notation, count, replace=False)):
        judgement = read(copy, conditional=index % 5 == 0)
        assert judgement.accepted and judgement.move == copy.move, (copy.text, judgement)
        assert judgement.conditional == ()
        assert {r.code for r in judgement.reminders} <= {"incomplete-notation"}, copy.text


@pytest.mark.parametrize("count", TIERS)
@pytest.mark.parametrize("notation", sorted(NOTATIONS))
@pytest.mark.slow
def test_a_copy_with_one_move_replaced_follows_the_rules(notation: str, count: int) -> None:
    for copy in copies(notation, count, replace=True):
        judgement = read(copy)
        assert copy.replaced is not None
        assert judgement.move is None, (copy.text, judgement)
        if copy.replaced == len(copy.board.move_stack) - 1:
            assert judgement.verdict is Verdict.INCORRECT, (copy.text, judgement)
            assert judgement.reason_code == "wrong-repetition"
            continue
        assert (judgement.verdict, judgement.reason_code) == (Verdict.NO_MOVE, "copy-differs"), (
            copy.text,
            judgement,
        )
        assert not judgement.penalised
        before = copy.board.copy()
        while len(before.move_stack) > copy.replaced:
            before.pop()
        assert judgement.details["number"] == str(before.fullmove_number)
        assert judgement.details["written"].endswith(f" {copy.written}"), (copy.text, judgement)


def test_a_two_thousand_ply_knight_shuffle_copied_whole_is_read_in_linear_time() -> None:
    """Nothing ends a game on fivefold repetition by itself, so a game may run to
    2,000 plies of knights going back and forth; its whole copy (13 kB) took the
    referee's history check 6 to 11 s. Now it reads as any copy: the new move at
    its end, in a few hundredths of a second."""
    board = chess.Board()
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    for ply in range(2000):
        board.push_uci(shuffle[ply % 4])
    replay, words = chess.Board(), []
    for move in board.move_stack:
        number = f"{replay.fullmove_number}. " if replay.turn == chess.WHITE else ""
        words.append(number + replay.san(move))
        replay.push(move)
    text = " ".join(words) + " 1001. Nc3"
    began = time.perf_counter()
    judgement = judge(text, board, EN)
    # a bound on the complexity class, fifty times what it takes: not a benchmark
    assert time.perf_counter() - began < 2
    assert judgement.move == chess.Move.from_uci("b1c3")


def test_a_three_hundred_move_copy_reads_in_well_under_a_tenth_of_a_second() -> None:
    rng = random.Random(300)
    board = chess.Board()
    while len(board.move_stack) < 600:
        moves = list(board.legal_moves)
        if not moves:
            board.pop()
            continue
        board.push(rng.choice(moves))
    new = rng.choice(list(board.legal_moves))
    replay, words = chess.Board(), []
    for move in [*board.move_stack, new]:
        number = f"{replay.fullmove_number}. " if replay.turn == chess.WHITE else ""
        words.append(number + replay.san(move))
        replay.push(move)
    text = " ".join(words)
    for conditional in (False, True):
        times = []
        for _ in range(3):
            began = time.perf_counter()
            judgement = judge(text, board, EN, conditional_allowed=conditional)
            times.append(time.perf_counter() - began)
        assert judgement.move == new
        assert min(times) < 0.1, times


# --- Through the desk: what the player reads ----------------------------------------------

START_LIST = """
index: CP-1
name: Copies cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: en
notation: en
director: {name: Tom Director, email: td@federation.example}
players:
  - {id: ann, name: Ann Able, email: ann@example.org}
  - {id: ivan, name: Иван Иванов, email: ivan@example.org, language: bg, notation: bg-cyrillic}
  - {id: olga, name: Ольга Петрова, email: olga@example.org, language: ru, notation: ru,
     gender: f}
games:
  - {white: ann, black: ivan}
  - {white: olga, black: ann}
"""
ANN, IVAN, OLGA = (f"{k}@example.org" for k in ("ann", "ivan", "olga"))


@pytest.fixture
def bench(store_url: str) -> Iterator[Bench]:
    b = Bench(store_url, START_LIST)
    try:
        yield b
    finally:
        b.close()


def play(bench: Bench, game: int, *moves: tuple[str, str]) -> int:
    """Play ``moves`` (sender, text) in game ``game``, one a day from 2 March; the next day."""
    for day, (sender, text) in enumerate(moves, start=2):
        bench.send(sender, text, at(day), subject=f"[CP-1/{game}] move")
    return 2 + len(moves)


@pytest.mark.parametrize(
    ("sender", "game", "moves", "copy", "heading", "difference"),
    [
        (ANN, 1,
         [(ANN, "1. e2-e4"), (IVAN, "1... e7-e5"), (ANN, "2. Ng1-f3"), (IVAN, "2... Кb8-c6")],
         "1. e2-e4 e7-e6 2. Ng1-f3 Nb8-c6 3. Bf1-b5", "Your copy of the game differs",
         "at move 1: the game has 1... e7-e5, your copy has 1... e7-e6"),
        (IVAN, 1, [(ANN, "1. e2-e4"), (IVAN, "1... e7-e5"), (ANN, "2. Ng1-f3")],
         "1. d2-d4 e7-e5 2. Кg1-f3 Кb8-c6", "Преписът на партията се различава",
         "при ход 1: в партията е 1. e2-e4, а във Вашия препис – 1. d2-d4"),
        (OLGA, 2,
         [(OLGA, "1. c2-c4"), (ANN, "1... c7-c5"), (OLGA, "2. Кb1-c3"), (ANN, "2... Nb8-c6")],
         "1. c2-c4 c7-c6 2. Кb1-c3 Кb8-c6 3. g2-g3", "Копия партии расходится",
         "на 1-м ходу: в партии 1... c7-c5, а в вашей копии 1... c7-c6"),
    ],
)  # fmt: skip
def test_a_copy_that_differs_is_answered_with_the_difference_and_costs_nothing(
    bench: Bench,
    sender: str,
    game: int,
    moves: list[tuple[str, str]],
    copy: str,
    heading: str,
    difference: str,
) -> None:
    day = play(bench, game, *moves)
    plies = bench.plies(game)
    assert len(plies) == len(moves)
    before = {r.id for r in bench.outbox()}
    bench.send(sender, copy, at(day), subject=f"[CP-1/{game}] move")
    assert bench.plies(game) == plies  # nothing played
    assert bench.game(game) == (None, 0)  # no penalty
    new = [r for r in bench.outbox() if r.id not in before]
    (answer,) = new  # the opponent hears nothing
    assert answer.to_addrs == [sender]
    assert heading in answer.subject
    assert difference in answer.text_body
    assert "+5" not in answer.text_body
    assert "copy" in reason_of(bench.last_inbound())


def test_a_copy_that_agrees_plays_its_last_move_and_reaches_the_opponent(bench: Bench) -> None:
    day = play(bench, 1, (ANN, "1. e2-e4"), (IVAN, "1... e7-e5"), (ANN, "2. Ng1-f3"))
    bench.send(IVAN, "1. e2-e4 e7-e5 2. Кg1-f3 Кb8-c6", at(day), subject="[CP-1/1] move")
    assert bench.plies(1)[-1] == "b8c6"
    assert bench.game(1) == (None, 0)
    (line,) = [r for r in bench.outbox(ANN, "move") if "Nb8-c6" in r.text_body]
    assert "2... Nb8-c6" in line.text_body
