"""Verdicts on moves sent by mail: docs/rules.md 3.2 (art. 7-22; 003 part 1 art. 2b and 4)."""

from __future__ import annotations

import chess
import pytest

from mailbot.rules.interpretation import legal_moves_of_piece
from mailbot.rules.notation import Notation
from mailbot.rules.referee import Verdict, explain, explain_reminder, judge

EN, BG, BG_LATIN, RU, DE = (
    Notation.EN,
    Notation.BG_CYRILLIC,
    Notation.BG_LATIN,
    Notation.RU,
    Notation.DE,
)


def game(*uci: str, fen: str = chess.STARTING_FEN) -> chess.Board:
    board = chess.Board(fen)
    for move in uci:
        board.push_uci(move)
    return board


def ucis(moves: tuple[chess.Move, ...]) -> set[str]:
    return {move.uci() for move in moves}


# --- Legal moves ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "notation"),
    [
        ("1. Кg1-f3", BG),
        ("1. Kg1-f3", BG_LATIN),
        ("1. Кg1-f3", RU),
        ("1. Ng1-f3", EN),
        ("1. Sg1-f3", DE),
        ("1. ♘g1-f3", Notation.FIGURINE),
        ("1. 7163", Notation.ICCF_NUMERIC),
        ("7163", BG),  # numeric by agreement beside the algebraic one (003 p1 2b)
    ],
)
def test_first_knight_move_in_each_notation_is_legal(text: str, notation: Notation) -> None:
    judgement = judge(text, chess.Board(), notation)
    assert judgement.verdict is Verdict.LEGAL
    assert judgement.move == chess.Move.from_uci("g1f3")
    assert judgement.reminders == ()
    assert not judgement.penalised


def test_judging_does_not_change_the_board() -> None:
    board = game("e2e4")
    judge("1. e2-e4 c7-c5", board, EN)
    assert board.fen() == game("e2e4").fen()
    assert board.move_stack == [chess.Move.from_uci("e2e4")]


def test_cyrillic_letters_in_the_squares() -> None:
    judgement = judge("1.е2-е4", chess.Board(), BG)  # Cyrillic е
    assert judgement.verdict is Verdict.LEGAL
    assert judgement.move == chess.Move.from_uci("e2e4")


@pytest.mark.parametrize("text", ["e2xe4", "e2:e4", "e2-e4+", "e2-e4#", "e2-e4!?", "Ng1:f3+"])
def test_wrong_capture_and_check_signs_never_make_a_move_impossible(text: str) -> None:
    judgement = judge(text, chess.Board(), EN)
    assert judgement.verdict is Verdict.LEGAL
    assert not judgement.penalised


def test_a_wrong_move_number_is_a_reminder_only() -> None:
    judgement = judge("5. e2-e4", chess.Board(), EN)
    assert judgement.verdict is Verdict.LEGAL
    assert judgement.move == chess.Move.from_uci("e2e4")
    (reminder,) = judgement.reminders
    assert reminder.code == "wrong-move-number"
    assert dict(reminder.details) == {"move": "e2-e4", "written": "5", "expected": "1"}


def test_move_number_of_blacks_move() -> None:
    board = game("e2e4")
    assert judge("1... c7-c5", board, EN).reminders == ()
    assert [r.code for r in judge("2... c7-c5", board, EN).reminders] == ["wrong-move-number"]


def test_a_move_with_words_around_it() -> None:
    judgement = judge("Здравейте! Играя 1. Кg1-f3 и предлагам реми.", chess.Board(), BG)
    assert judgement.move == chess.Move.from_uci("g1f3")
    assert judgement.verdict is Verdict.LEGAL


@pytest.mark.parametrize("text", ["draw", "Реми?", "I resign.", "Мой ход скоро", "Hello!", ""])
def test_a_message_without_a_move(text: str) -> None:
    judgement = judge(text, chess.Board(), EN)
    assert judgement.verdict is Verdict.NO_MOVE
    assert judgement.reason_code == "no-move"
    assert judgement.move is None
    assert not judgement.penalised


# --- Impossible moves (art. 14) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "code", "alternatives"),
    [
        ("1.Кg1-e3", "illegal-for-piece", {"g1f3", "g1h3"}),
        ("1.е1-е4", "illegal-for-piece", set()),
        ("1.с2-d4", "illegal-for-piece", {"c2c3", "c2c4"}),
    ],
)
def test_impossible_moves_of_article_14(text: str, code: str, alternatives: set[str]) -> None:
    judgement = judge(text, chess.Board(), BG)
    assert judgement.verdict is Verdict.IMPOSSIBLE
    assert judgement.reason_code == code
    assert judgement.move is None
    assert ucis(judgement.legal_alternatives) == alternatives
    assert judgement.penalised


def test_impossible_move_names_piece_and_squares() -> None:
    judgement = judge("1.Кg1-e3", chess.Board(), BG)
    assert judgement.reason == "the knight on g1 cannot move to e3"
    assert judgement.details["square"] == "g1"
    assert judgement.details["legal"] == "Кg1-h3, Кg1-f3"


def test_empty_from_square() -> None:
    judgement = judge("e3-e4", chess.Board(), EN)
    assert (judgement.verdict, judgement.reason_code) == (Verdict.IMPOSSIBLE, "no-piece")
    assert judgement.legal_alternatives == ()


def test_piece_of_the_wrong_colour() -> None:
    judgement = judge("Ng8-f6", chess.Board(), EN)
    assert (judgement.verdict, judgement.reason_code) == (Verdict.IMPOSSIBLE, "wrong-colour")
    assert "Black's" in judgement.reason


def test_a_move_that_leaves_the_king_in_check() -> None:
    pinned = game(fen="4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1")
    judgement = judge("Ne2-c3", pinned, EN)
    assert (judgement.verdict, judgement.reason_code) == (Verdict.IMPOSSIBLE, "king-in-check")
    assert judgement.legal_alternatives == ()


@pytest.mark.parametrize("text", ["0-0", "O-O-O", "Ke1-g1", "5171"])
def test_castling_that_is_not_allowed(text: str) -> None:
    judgement = judge(text, chess.Board(), EN)
    assert (judgement.verdict, judgement.reason_code) == (
        Verdict.IMPOSSIBLE,
        "castling-not-allowed",
    )


def test_castling_through_an_attacked_square() -> None:
    board = game(fen="4k3/8/8/8/8/8/5r2/4K2R w K - 0 1")
    assert judge("0-0", board, EN).reason_code == "castling-not-allowed"


@pytest.mark.parametrize(
    ("text", "notation"),
    [("Дg1-f3", BG), ("Фe3-e4", RU), ("Zg1-f3", BG_LATIN), ("Qe1-e2", EN)],
)
def test_a_letter_that_names_the_piece_in_no_notation(text: str, notation: Notation) -> None:
    board = game("e2e3", "e7e6")
    judgement = judge(text, board, notation)
    assert (judgement.verdict, judgement.reason_code) == (Verdict.IMPOSSIBLE, "letter-mismatch")


def test_incomplete_notation_naming_no_legal_move() -> None:
    judgement = judge("Nd5", chess.Board(), EN)
    assert (judgement.verdict, judgement.reason_code) == (Verdict.IMPOSSIBLE, "no-such-move")
    assert ucis(judgement.legal_alternatives) == {"b1a3", "b1c3", "g1f3", "g1h3"}


# --- Letters of other notations -------------------------------------------------------------


def test_bulgarian_knight_letter_in_an_english_game_is_accepted_with_a_reminder() -> None:
    judgement = judge("Kg1-f3", chess.Board(), EN)
    assert judgement.verdict is Verdict.LEGAL
    assert judgement.move == chess.Move.from_uci("g1f3")
    (reminder,) = judgement.reminders
    assert reminder.code == "letter-from-other-notation"
    assert reminder.details["expected"] == "N"
    assert not judgement.penalised


def test_english_king_letter_in_a_bulgarian_game() -> None:
    board = game("e2e4", "e7e5")
    judgement = judge("Ke1-e2", board, BG)
    assert judgement.move == chess.Move.from_uci("e1e2")
    assert [r.code for r in judgement.reminders] == ["letter-from-other-notation"]
    assert judgement.reminders[0].details["expected"] == "Ц"


def test_russian_king_in_a_bulgarian_game_and_bulgarian_bishop_in_a_german_one() -> None:
    board = game("e2e4", "e7e5")
    assert [r.code for r in judge("Крe1-e2", board, BG).reminders] == ["letter-from-other-notation"]
    assert judge("Крe1-e2", board, RU).reminders == ()
    assert judge("Оf1-c4", board, DE).move == chess.Move.from_uci("f1c4")


def test_figurines_of_either_colour_are_understood_everywhere() -> None:
    assert judge("♞g1-f3", chess.Board(), RU).reminders == ()
    assert judge("♘g8-f6", game("e2e4"), BG).move == chess.Move.from_uci("g8f6")


def test_cyrillic_o_is_castling_or_the_bulgarian_bishop() -> None:
    board = game("e2e4", "e7e5", "g1f3", "b8c6")
    assert judge("Оf1-c4", board, BG).move == chess.Move.from_uci("f1c4")
    board.push_uci("f1c4")
    board.push_uci("f8c5")
    assert judge("О-О", board, BG).move == chess.Move.from_uci("e1g1")


# --- Incomplete notation (art. 7 note 2, art. 9) ------------------------------------------


def test_incomplete_notation_is_played_with_a_reminder() -> None:
    judgement = judge("Nf3", chess.Board(), EN)
    assert judgement.verdict is Verdict.INCOMPLETE
    assert judgement.move == chess.Move.from_uci("g1f3")
    assert judgement.reason_code == "incomplete-notation"
    assert judgement.reminders[0].details["full"] == "Ng1-f3"
    assert not judgement.penalised


@pytest.mark.parametrize(("text", "notation"), [("e4", BG), ("Кf3", BG), ("Кf3", RU), ("Sf3", DE)])
def test_incomplete_notation_in_every_language(text: str, notation: Notation) -> None:
    judgement = judge(text, chess.Board(), notation)
    assert judgement.verdict is Verdict.INCOMPLETE


def test_a_piece_move_without_its_letter_is_incomplete() -> None:
    judgement = judge("g1f3", chess.Board(), EN)
    assert (judgement.verdict, judgement.reason_code) == (
        Verdict.INCOMPLETE,
        "missing-piece-letter",
    )
    assert judgement.move == chess.Move.from_uci("g1f3")


def test_incomplete_notation_that_fits_two_moves_is_unclear() -> None:
    board = game(fen="4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1")
    judgement = judge("Nd2", board, EN)
    assert (judgement.verdict, judgement.reason_code) == (Verdict.UNCLEAR, "two-readings")
    assert ucis(judgement.legal_alternatives) == {"b1d2", "f3d2"}
    assert judgement.move is None
    assert judge("Nbd2", board, EN).move == chess.Move.from_uci("b1d2")


def test_the_agreed_notation_decides_an_incomplete_letter_first() -> None:
    board = game(fen="4k3/8/8/8/6N1/8/8/4K3 w - - 0 1")  # king and knight both reach f2
    assert judge("Kf2", board, EN).move == chess.Move.from_uci("e1f2")
    assert judge("Kf2", board, BG).move == chess.Move.from_uci("g4f2")


def test_an_incomplete_letter_read_in_another_notation() -> None:
    board = game(fen="4k3/8/8/8/6N1/8/8/7K w - - 0 1")  # only the knight reaches f2
    judgement = judge("Kf2", board, EN)
    assert judgement.verdict is Verdict.INCOMPLETE
    assert judgement.move == chess.Move.from_uci("g4f2")
    assert [r.code for r in judgement.reminders] == [
        "incomplete-notation",
        "letter-from-other-notation",
    ]


def test_an_incomplete_letter_giving_two_moves_in_another_notation_is_unclear() -> None:
    board = game(fen="7k/8/8/8/8/5N2/8/1N5K w - - 0 1")  # the king cannot reach d2
    judgement = judge("Kd2", board, EN)
    assert (judgement.verdict, judgement.reason_code) == (Verdict.UNCLEAR, "two-readings")


# --- Promotion, castling, en passant ------------------------------------------------------

PROMOTE = "7k/4P3/8/8/8/8/8/4K3 w - - 0 50"


@pytest.mark.parametrize(
    ("text", "notation", "verdict", "piece"),
    [
        ("e7-e8Д", BG, Verdict.LEGAL, chess.QUEEN),
        ("e7-e8К", BG, Verdict.LEGAL, chess.KNIGHT),
        ("e7-e8T", BG_LATIN, Verdict.LEGAL, chess.ROOK),
        ("e7-e8Ф", RU, Verdict.LEGAL, chess.QUEEN),
        ("e7-e8С", RU, Verdict.LEGAL, chess.BISHOP),
        ("e7-e8L", DE, Verdict.LEGAL, chess.BISHOP),
        ("e7-e8Q", EN, Verdict.LEGAL, chess.QUEEN),
        ("e7e8q", EN, Verdict.LEGAL, chess.QUEEN),
        ("e7-e8♕", Notation.FIGURINE, Verdict.LEGAL, chess.QUEEN),
        ("57581", Notation.ICCF_NUMERIC, Verdict.LEGAL, chess.QUEEN),
        ("57584", EN, Verdict.LEGAL, chess.KNIGHT),
        ("e8=Q", EN, Verdict.INCOMPLETE, chess.QUEEN),
        ("e8Q+", EN, Verdict.INCOMPLETE, chess.QUEEN),
        ("e8(R)", EN, Verdict.INCOMPLETE, chess.ROOK),
        ("e8/N", EN, Verdict.INCOMPLETE, chess.KNIGHT),
        ("e8Ф", RU, Verdict.INCOMPLETE, chess.QUEEN),
        ("e8D", DE, Verdict.INCOMPLETE, chess.QUEEN),
        ("e8=Д", BG, Verdict.INCOMPLETE, chess.QUEEN),
    ],
)
def test_promotion_forms(
    text: str, notation: Notation, verdict: Verdict, piece: chess.PieceType
) -> None:
    judgement = judge(text, game(fen=PROMOTE), notation)
    assert judgement.verdict is verdict
    assert judgement.move == chess.Move(chess.E7, chess.E8, piece)


def test_promotion_letter_of_another_notation() -> None:
    judgement = judge("e7-e8D", game(fen=PROMOTE), EN)
    assert judgement.move == chess.Move(chess.E7, chess.E8, chess.QUEEN)
    assert [r.code for r in judgement.reminders] == ["letter-from-other-notation"]
    knight = judge("e7-e8K", game(fen=PROMOTE), EN)  # K: a knight in Bulgarian, never a king
    assert knight.move == chess.Move(chess.E7, chess.E8, chess.KNIGHT)


@pytest.mark.parametrize("text", ["e7-e8", "e8", "5758"])
def test_promotion_without_the_piece_is_unclear(text: str) -> None:
    judgement = judge(text, game(fen=PROMOTE), EN)
    assert (judgement.verdict, judgement.reason_code) == (Verdict.UNCLEAR, "no-promotion-piece")
    assert len(judgement.legal_alternatives) == 4


def test_a_promotion_letter_on_an_ordinary_move() -> None:
    judgement = judge("e2-e4Q", chess.Board(), EN)
    assert (judgement.verdict, judgement.reason_code) == (Verdict.IMPOSSIBLE, "not-a-promotion")


CASTLE = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 12"


@pytest.mark.parametrize(
    ("text", "notation", "uci"),
    [
        ("0-0", BG, "e1g1"),
        ("O-O", EN, "e1g1"),
        ("o-o", EN, "e1g1"),
        ("О-О", BG, "e1g1"),
        ("0-0-0", RU, "e1c1"),
        ("О-О-О", BG, "e1c1"),
        ("12. 0-0+", EN, "e1g1"),
        ("Цe1-g1", BG, "e1g1"),
        ("Ke1-c1", EN, "e1c1"),
        ("5171", Notation.ICCF_NUMERIC, "e1g1"),
        ("5131", BG, "e1c1"),
    ],
)
def test_castling_forms(text: str, notation: Notation, uci: str) -> None:
    judgement = judge(text, game(fen=CASTLE), notation)
    assert judgement.verdict is Verdict.LEGAL
    assert judgement.move == chess.Move.from_uci(uci)


def test_castling_by_black_after_white_castled() -> None:
    board = game("e1g1", fen=CASTLE)
    assert judge("0-0", board, EN).move == chess.Move.from_uci("e8g8")
    assert judge("12. 0-0 0-0", board, EN).move == chess.Move.from_uci("e8g8")
    assert judge("0-0 0-0-0", board, EN).move == chess.Move.from_uci("e8c8")


@pytest.mark.parametrize(
    ("text", "notation"),
    [
        ("e5:d6 в.п.", RU),
        ("e5xd6 e.p.", EN),
        ("e5-d6", BG),
        ("exd6 ep", EN),
        ("e:d6", RU),
        ("5546", Notation.ICCF_NUMERIC),
    ],
)
def test_en_passant(text: str, notation: Notation) -> None:
    board = game("d7d5", fen="4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 30")
    judgement = judge(text, board, notation)
    assert judgement.accepted
    assert judgement.move == chess.Move.from_uci("e5d6")
    assert board.is_en_passant(judgement.move)


# --- Repetition of the opponent's move (art. 7-8, 15) -------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "1.e2-e4 c7-c5",
        "1. e2-e4 c7-c5",
        "1. e4 c7-c5",
        "1. 5254 c7-c5",
        "1. e2-e4 (5254) c7-c5 (3735)",
        "1. Pe2-e4 c7-c5",
        "1... c7-c5",
        "c7-c5",
    ],
)
def test_repeating_the_opponents_move_in_any_form(text: str) -> None:
    judgement = judge(text, game("e2e4"), EN)
    assert judgement.verdict is Verdict.LEGAL
    assert judgement.move == chess.Move.from_uci("c7c5")
    assert judgement.reminders == ()


def test_incorrect_repetition_of_article_15() -> None:
    judgement = judge("1.c2-c4 Кg8-f6", game("e2e4"), BG)
    assert judgement.verdict is Verdict.INCORRECT
    assert judgement.reason_code == "wrong-repetition"
    assert judgement.move is None
    assert dict(judgement.details) == {"written": "c2-c4", "expected": "e2-e4", "number": "1"}
    assert judgement.penalised


def test_incorrect_repetition_of_article_20() -> None:
    # White plays 33. Кd5-e3; Black repeats it as 33. Кd5-c3 and moves.
    board = game("d5e3", fen="4k3/8/4q3/3N4/8/8/8/4K3 w - - 0 33")
    judgement = judge("33. Кd5-c3 Дe6-g4", board, BG)
    assert judgement.verdict is Verdict.INCORRECT
    assert judgement.details["expected"] == "Кd5-e3"
    assert judge("33. Кd5-e3 Дe6-g4", board, BG).verdict is Verdict.LEGAL


def test_incorrect_repetition_in_incomplete_notation() -> None:
    assert judge("1. d4 e5", game("e2e4"), EN).verdict is Verdict.INCORRECT


def test_only_the_opponents_move_is_no_move() -> None:
    judgement = judge("1. e2-e4", game("e2e4"), EN)
    assert (judgement.verdict, judgement.reason_code) == (Verdict.NO_MOVE, "only-repetition")
    assert not judgement.penalised


def test_art_8_move_line_with_dates() -> None:
    board = game("e1e2", fen="6nk/8/8/8/8/8/8/4R1K1 w - - 0 15")
    line = "15. Те1-e2 Кg8-f6; 11.3. – 12.3. – 15.3. = 3 дни; общо време: белите 15 дни"
    judgement = judge(line, board, BG)
    assert judgement.verdict is Verdict.LEGAL
    assert judgement.move == chess.Move.from_uci("g8f6")
    assert judgement.reminders == ()


def test_art_8_line_copied_back_with_the_next_move() -> None:
    board = game("e1e2", "g8f6", fen="6nk/8/8/8/8/8/8/4R1K1 w - - 0 15")
    text = "15. Те1-e2 Кg8-f6; 11.3. – 12.3. – 15.3. = 3 дни\n16. Тe2-e3"
    judgement = judge(text, board, BG)
    assert judgement.verdict is Verdict.LEGAL
    assert judgement.move == chess.Move.from_uci("e2e3")
    assert judgement.reminders == ()
    wrong = judge("15. Те1-e2 Кg8-h6 16. Тe2-e3", board, BG)
    assert wrong.verdict is Verdict.INCORRECT


def test_a_longer_copy_of_the_game_before_the_move() -> None:
    board = game("e2e4", "e7e5", "g1f3")
    judgement = judge("1. e4 e5 2. Nf3 Nc6", board, EN)
    assert judgement.move == chess.Move.from_uci("b8c6")
    assert [r.code for r in judgement.reminders] == ["incomplete-notation"]
    numbered = judge("1. e2-e4 e7-e5 2. Ng1-f3 Nb8-c6", board, EN)
    assert (numbered.verdict, numbered.reminders) == (Verdict.LEGAL, ())
    assert judge("1. e2-e4 e7-e5 2. Ng1-h3 Nb8-c6", board, EN).verdict is Verdict.INCORRECT


# --- Two moves, two readings (art. 16; 003 p1 4a) -----------------------------------------


@pytest.mark.parametrize("text", ["e2-e4 (5254)", "e2-e4 5254", "Ng1-f3 (Nf3)", "e2-e4, e2-e4"])
def test_the_same_move_written_twice_is_one_move(text: str) -> None:
    judgement = judge(text, chess.Board(), EN)
    assert judgement.accepted
    assert judgement.reminders == ()


@pytest.mark.parametrize("text", ["e2-e4 5244", "e2-e4 (5244)", "e2-e4 d2-d4", "Nf3 Nc3"])
def test_two_different_moves_are_unclear(text: str) -> None:
    judgement = judge(text, chess.Board(), EN)
    assert (judgement.verdict, judgement.reason_code) == (Verdict.UNCLEAR, "two-moves")
    assert judgement.move is None
    assert judgement.penalised


def test_squares_separated_by_a_space() -> None:
    assert judge("e2 e4", chess.Board(), EN).move == chess.Move.from_uci("e2e4")
    assert judge("Ng1 f3", chess.Board(), EN).move == chess.Move.from_uci("g1f3")
    # Black's "1. e4 e5" repeats White's move and answers it; it is not a move e4-e5.
    assert judge("1. e4 e5", game("e2e4"), EN).move == chess.Move.from_uci("e7e5")


def test_squares_separated_by_a_space_that_give_two_different_moves_are_unclear() -> None:
    # White's knight went e5-d3 last move; "Nd3 e5" is the knight back to e5, or
    # "(I played) Nd3, (now) e5".
    board = game("e5d3", "a7a6", fen="4k3/p7/8/4N3/4P3/8/8/4K3 w - - 0 20")
    judgement = judge("Nd3 e5", board, EN)
    assert (judgement.verdict, judgement.reason_code) == (Verdict.UNCLEAR, "two-readings")
    assert ucis(judgement.legal_alternatives) == {"d3e5", "e4e5"}
    assert judge("Nd3-e5", board, EN).move == chess.Move.from_uci("d3e5")


def test_squares_separated_by_a_space_that_leave_a_word_unused_are_unclear() -> None:
    judgement = judge("1. e4 e5", chess.Board(), EN)
    assert (judgement.verdict, judgement.reason_code) == (Verdict.UNCLEAR, "spaced-squares")
    assert judgement.penalised
    allowed = judge("1. e4 e5", chess.Board(), EN, conditional_allowed=True)
    assert allowed.move == chess.Move.from_uci("e2e4")
    assert [m.uci() for m in allowed.conditional] == ["e7e5"]


# --- Conditional lines (docs/rules.md 2.3) -----------------------------------------------------


def test_conditional_line_where_allowed() -> None:
    board = game(fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 10")
    judgement = judge("10. d2-d4 Ng8-f6 11. Bc1-g5", board, EN, conditional_allowed=True)
    assert judgement.verdict is Verdict.LEGAL
    assert judgement.move == chess.Move.from_uci("d2d4")
    assert ucis(judgement.conditional) == {"g8f6", "c1g5"}
    assert [m.uci() for m in judgement.conditional] == ["g8f6", "c1g5"]
    assert judgement.reminders == ()


def test_conditional_line_lapses_at_an_illegal_move() -> None:
    board = game(fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 10")
    text = "10. d2-d4 Ng8-f6 11. Bc1-h5 Nf6-e4"
    judgement = judge(text, board, EN, conditional_allowed=True)
    assert judgement.verdict is Verdict.LEGAL
    assert [m.uci() for m in judgement.conditional] == ["g8f6"]
    assert [r.code for r in judgement.reminders] == ["conditional-lapsed"]
    assert not judgement.penalised


def test_conditional_line_where_not_allowed() -> None:
    board = game(fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 10")
    judgement = judge("10. d2-d4 Ng8-f6 11. Bc1-g5", board, EN)
    assert judgement.move == chess.Move.from_uci("d2d4")
    assert judgement.conditional == ()
    assert [r.code for r in judgement.reminders] == ["conditional-not-allowed"]


def test_conditional_line_of_black_after_the_repetition() -> None:
    board = game("e2e4")
    judgement = judge("1. e4 e5 2. Nf3 Nc6", board, EN, conditional_allowed=True)
    assert judgement.move == chess.Move.from_uci("e7e5")
    assert [m.uci() for m in judgement.conditional] == ["g1f3", "b8c6"]


# --- Helpers ------------------------------------------------------------------------------


def test_legal_moves_of_piece() -> None:
    board = chess.Board()
    assert ucis(legal_moves_of_piece(board, chess.B1)) == {"b1a3", "b1c3"}
    assert legal_moves_of_piece(board, chess.E4) == ()  # empty
    assert legal_moves_of_piece(board, chess.B8) == ()  # Black's, White to move
    assert legal_moves_of_piece(board, chess.D1) == ()  # blocked


# --- Texts in the players' languages ------------------------------------------------------

#: One message for every reason code: (text, board, notation, conditional moves allowed).
EXAMPLES = {
    "legal": ("Кg1-f3", chess.Board(), BG, False),
    "incomplete-notation": ("Кf3", chess.Board(), BG, False),
    "missing-piece-letter": ("g1-f3", chess.Board(), BG, False),
    "no-move": ("реми", chess.Board(), BG, False),
    "only-repetition": ("1. e2-e4", game("e2e4"), BG, False),
    "copy-differs": ("1. d2-d4 e7-e5 2. Кg1-f3 Кb8-c6", game("e2e4", "e7e5", "g1f3"), BG, False),
    "wrong-repetition": ("1. c2-c4 Кg8-f6", game("e2e4"), BG, False),
    "no-piece": ("e3-e4", chess.Board(), BG, False),
    "wrong-colour": ("Кg8-f6", chess.Board(), BG, False),
    "letter-mismatch": ("Дg1-f3", chess.Board(), BG, False),
    "castling-not-allowed": ("0-0", chess.Board(), BG, False),
    "king-in-check": ("Кe2-c3", game(fen="4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1"), BG, False),
    "illegal-for-piece": ("Кg1-e3", chess.Board(), BG, False),
    "not-a-promotion": ("e2-e4Д", chess.Board(), BG, False),
    "no-promotion-piece": ("e7-e8", game(fen=PROMOTE), BG, False),
    "no-such-move": ("Кd5", chess.Board(), BG, False),
    "two-readings": ("Кd2", game(fen="4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1"), BG, False),
    "spaced-squares": ("e4 e5", chess.Board(), BG, False),
    "two-moves": ("e2-e4 d2-d4", chess.Board(), BG, False),
}


@pytest.mark.parametrize("code", sorted(EXAMPLES))
def test_every_reason_is_explained_in_english_bulgarian_and_russian(code: str) -> None:
    text, board, notation, conditional = EXAMPLES[code]
    judgement = judge(text, board, notation, conditional_allowed=conditional)
    assert judgement.reason_code == code
    assert explain(judgement, "en") == judgement.reason
    assert explain(judgement, "fr") == judgement.reason  # unknown language: English
    for language in ("bg", "ru"):
        translated = explain(judgement, language)
        assert translated != judgement.reason
        assert "{" not in translated
        assert any("а" <= char <= "я" for char in translated.lower())
        for key, value in judgement.details.items():
            if key not in ("piece", "colour", "turn", "side") and value in judgement.reason:
                assert value in translated, (key, value)


def test_explanations_name_the_piece_and_colour_in_the_players_language() -> None:
    judgement = judge("Кg8-f6", chess.Board(), BG)
    assert explain(judgement, "bg") == "конят на g8 е на черните, а на ход са белите"
    assert explain(judgement, "ru") == "конь на g8 принадлежит чёрным, а ход белых"
    assert judgement.reason == "the knight on g8 is Black's, and it is White's move"
    castling = judge("0-0-0", chess.Board(), RU)
    assert explain(castling, "ru") == "длинная рокировка (0-0-0) в этой позиции невозможна"


@pytest.mark.parametrize(
    ("text", "board", "notation", "conditional", "code"),
    [
        ("Кf3", chess.Board(), BG, False, "incomplete-notation"),
        ("g1f3", chess.Board(), BG, False, "missing-piece-letter"),
        ("Ng1-f3", chess.Board(), BG, False, "letter-from-other-notation"),
        ("7. Кg1-f3", chess.Board(), BG, False, "wrong-move-number"),
        ("d2-d4 d7-d5", chess.Board(), BG, False, "conditional-not-allowed"),
        ("d2-d4 d7-d4", chess.Board(), BG, True, "conditional-lapsed"),
    ],
)
def test_every_reminder_is_explained_in_three_languages(
    text: str, board: chess.Board, notation: Notation, conditional: bool, code: str
) -> None:
    judgement = judge(text, board, notation, conditional_allowed=conditional)
    assert judgement.accepted
    (reminder,) = [r for r in judgement.reminders if r.code == code]
    assert explain_reminder(reminder, "en") == reminder.text
    for language in ("bg", "ru"):
        translated = explain_reminder(reminder, language)
        assert translated != reminder.text
        assert "{" not in translated
        for key, value in reminder.details.items():
            if key not in ("piece", "notation") and value in reminder.text:
                assert value in translated, (key, value)


def test_letter_reminder_names_the_other_notation() -> None:
    (reminder,) = judge("Ng1-f3", chess.Board(), BG).reminders
    assert reminder.text == "N is the knight in English notation; this game writes the knight as К"
    assert explain_reminder(reminder, "bg") == (
        "N означава „кон“ в нотацията „английска“; в тази партия се пише К"
    )


def test_the_move_as_written_is_kept() -> None:
    assert judge("Играя 1. Кg1-f3!", chess.Board(), BG).written == "Кg1-f3!"
    assert judge("1.Кg1-e3", chess.Board(), BG).written == "Кg1-e3"
    assert judge("реми", chess.Board(), BG).written is None
