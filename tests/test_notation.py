"""Writing moves in every notation of docs/rules.md 3.1, and reading them out of mail text."""

from __future__ import annotations

import chess
import pytest

from mailbot.rules.notation import (
    Castling,
    Notation,
    Reading,
    letter_for,
    letter_meanings,
    promotion_meanings,
    read_moves,
    write_last_moves,
    write_line,
    write_move,
)

START = chess.Board()
#: White to move: a pawn on e7 that promotes, castling both ways, a capture on f7.
PROMOTION = chess.Board("r3k3/4P3/8/8/8/8/8/R3K2R w KQq - 0 40")
#: White to move: e5xd6 en passant.
EN_PASSANT = chess.Board("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 30")


def move(uci: str) -> chess.Move:
    return chess.Move.from_uci(uci)


def squares(reading: Reading) -> tuple[str | None, str | None]:
    def name(square: chess.Square | None) -> str | None:
        return None if square is None else chess.square_name(square)

    return name(reading.from_square), name(reading.to_square)


def test_notation_values_are_the_start_list_names() -> None:
    assert {n.value for n in Notation} == {
        "en",
        "bg-cyrillic",
        "bg-latin",
        "ru",
        "de",
        "iccf-numeric",
        "figurine",
    }


# --- Writing ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("notation", "knight", "pawn"),
    [
        (Notation.EN, "Ng1-f3", "e2-e4"),
        (Notation.BG_CYRILLIC, "Кg1-f3", "e2-e4"),
        (Notation.BG_LATIN, "Kg1-f3", "e2-e4"),
        (Notation.RU, "Кg1-f3", "e2-e4"),
        (Notation.DE, "Sg1-f3", "e2-e4"),
        (Notation.FIGURINE, "♘g1-f3", "e2-e4"),
        (Notation.ICCF_NUMERIC, "7163", "5254"),
    ],
)
def test_first_moves_in_full_notation(notation: Notation, knight: str, pawn: str) -> None:
    assert write_move(START, move("g1f3"), notation) == knight
    assert write_move(START, move("e2e4"), notation) == pawn


@pytest.mark.parametrize(
    ("notation", "king", "queen", "rook"),
    [
        (Notation.EN, "Ke1-d2", "Qd1-d2", "Ra1-a3"),
        (Notation.BG_CYRILLIC, "Цe1-d2", "Дd1-d2", "Тa1-a3"),
        (Notation.BG_LATIN, "Ze1-d2", "Dd1-d2", "Ta1-a3"),
        (Notation.RU, "Крe1-d2", "Фd1-d2", "Лa1-a3"),
        (Notation.DE, "Ke1-d2", "Dd1-d2", "Ta1-a3"),
        (Notation.FIGURINE, "♔e1-d2", "♕d1-d2", "♖a1-a3"),
    ],
)
def test_piece_letters_of_every_notation(
    notation: Notation, king: str, queen: str, rook: str
) -> None:
    board = chess.Board("4k3/8/8/8/8/8/8/R2QK3 w - - 0 1")
    board.set_piece_at(chess.D2, None)
    assert write_move(board, move("e1d2"), notation) == king
    assert write_move(board, move("d1d2"), notation) == queen
    assert write_move(board, move("a1a3"), notation) == rook


@pytest.mark.parametrize(
    ("notation", "bishop"),
    [
        (Notation.EN, "Bf1-c4"),
        (Notation.BG_CYRILLIC, "Оf1-c4"),
        (Notation.BG_LATIN, "Of1-c4"),
        (Notation.RU, "Сf1-c4"),
        (Notation.DE, "Lf1-c4"),
        (Notation.FIGURINE, "♗f1-c4"),
        (Notation.ICCF_NUMERIC, "6134"),
    ],
)
def test_bishop_letters(notation: Notation, bishop: str) -> None:
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    assert write_move(board, move("f1c4"), notation) == bishop


def test_figurines_follow_the_colour_of_the_side_that_moves() -> None:
    board = chess.Board()
    board.push_uci("e2e4")
    assert write_move(board, move("g8f6"), Notation.FIGURINE) == "♞g8-f6"


@pytest.mark.parametrize(
    ("notation", "capture"),
    [
        (Notation.EN, "Rh1xh8+"),
        (Notation.BG_CYRILLIC, "Тh1:h8+"),
        (Notation.BG_LATIN, "Th1:h8+"),
        (Notation.RU, "Лh1:h8+"),
        (Notation.DE, "Th1xh8+"),
        (Notation.FIGURINE, "♖h1xh8+"),
        (Notation.ICCF_NUMERIC, "8188"),
    ],
)
def test_capture_sign_of_each_notation(notation: Notation, capture: str) -> None:
    board = chess.Board("4k2r/8/8/8/8/8/8/4K2R w - - 0 1")
    assert write_move(board, move("h1h8"), notation) == capture


@pytest.mark.parametrize(
    ("notation", "queen", "knight"),
    [
        (Notation.EN, "e7-e8Q+", "e7-e8N"),
        (Notation.BG_CYRILLIC, "e7-e8Д+", "e7-e8К"),
        (Notation.BG_LATIN, "e7-e8D+", "e7-e8K"),
        (Notation.RU, "e7-e8Ф+", "e7-e8К"),
        (Notation.DE, "e7-e8D+", "e7-e8S"),
        (Notation.FIGURINE, "e7-e8♕+", "e7-e8♘"),
        (Notation.ICCF_NUMERIC, "57581", "57584"),
    ],
)
def test_promotion_in_every_notation(notation: Notation, queen: str, knight: str) -> None:
    board = chess.Board("7k/4P3/8/8/8/8/8/4K3 w - - 0 1")
    assert write_move(board, move("e7e8q"), notation) == queen
    assert write_move(board, move("e7e8n"), notation) == knight


def test_castling_is_written_with_zeros_and_as_a_king_move_in_iccf() -> None:
    assert write_move(PROMOTION, move("e1g1"), Notation.BG_CYRILLIC) == "0-0"
    assert write_move(PROMOTION, move("e1c1"), Notation.EN) == "0-0-0"
    assert write_move(PROMOTION, move("e1g1"), Notation.ICCF_NUMERIC) == "5171"
    assert write_move(PROMOTION, move("e1c1"), Notation.ICCF_NUMERIC) == "5131"


def test_en_passant_is_a_capture() -> None:
    assert write_move(EN_PASSANT, move("e5d6"), Notation.RU) == "e5:d6"


def test_mate_sign() -> None:
    board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    assert write_move(board, move("a1a8"), Notation.EN) == "Ra1-a8#"


def test_an_illegal_move_is_not_written() -> None:
    with pytest.raises(chess.IllegalMoveError):
        write_move(START, move("g1e3"), Notation.EN)


@pytest.mark.parametrize(
    ("fen", "uci", "written", "same_pieces"),
    [
        # castling written where it is allowed, then the same pieces without the right
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "e1g1",
            "0-0",
            "r3k2r/8/8/8/8/8/8/R3K2R w kq - 0 1",
        ),
        # en passant written right after the double step, then the same pieces a move later
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "e5d6", "e5xd6", "4k3/8/8/3pP3/8/8/8/4K3 w - - 0 2"),
    ],
)
def test_a_move_written_once_is_not_written_again_where_it_is_illegal(
    fen: str, uci: str, written: str, same_pieces: str
) -> None:
    """Texts of moves are kept by the position: one where the pieces stand the same but
    the move is not allowed (no castling right, no en passant any more) is no such
    position, and the move is refused there as ever."""
    assert write_move(chess.Board(fen), move(uci), Notation.EN) == written
    with pytest.raises(chess.IllegalMoveError):
        write_move(chess.Board(same_pieces), move(uci), Notation.EN)


def test_write_line_numbers_white_and_black_moves() -> None:
    board = chess.Board("4k3/8/8/8/8/8/8/K6R w - - 0 15")
    moves = [move("h1e1"), move("e8f7"), move("e1e2")]
    assert write_line(board, moves, Notation.BG_CYRILLIC) == "15. Тh1-e1+ Цe8-f7 16. Тe1-e2"
    board.push(moves[0])
    assert write_line(board, moves[1:], Notation.EN) == "15... Ke8-f7 16. Re1-e2"


def test_write_last_moves_gives_the_art_8_move_pair() -> None:
    board = chess.Board("6nk/8/8/8/8/8/8/4R1K1 w - - 0 15")
    board.push_uci("e1e2")
    board.push_uci("g8f6")
    assert write_last_moves(board, Notation.BG_CYRILLIC) == "15. Тe1-e2 Кg8-f6"
    assert write_last_moves(board, Notation.BG_CYRILLIC, plies=1) == "15... Кg8-f6"


def test_write_last_moves_after_whites_first_move() -> None:
    board = chess.Board()
    board.push_uci("e2e4")
    assert write_last_moves(board, Notation.ICCF_NUMERIC) == "1. 5254"


# --- Letters --------------------------------------------------------------------------------


def test_k_is_a_king_in_english_and_german_and_a_knight_in_bulgarian_and_russian() -> None:
    for letter in ("K", "К"):  # Latin and Cyrillic
        meanings = letter_meanings(letter)
        assert meanings[Notation.EN] == chess.KING
        assert meanings[Notation.DE] == chess.KING
        assert meanings[Notation.BG_CYRILLIC] == chess.KNIGHT
        assert meanings[Notation.BG_LATIN] == chess.KNIGHT
        assert meanings[Notation.RU] == chess.KNIGHT


@pytest.mark.parametrize(
    ("letter", "notation", "piece"),
    [
        ("Ц", Notation.BG_CYRILLIC, chess.KING),
        ("Д", Notation.BG_CYRILLIC, chess.QUEEN),
        ("Т", Notation.BG_CYRILLIC, chess.ROOK),
        ("О", Notation.BG_CYRILLIC, chess.BISHOP),
        ("Z", Notation.BG_LATIN, chess.KING),
        ("D", Notation.BG_LATIN, chess.QUEEN),
        ("O", Notation.BG_LATIN, chess.BISHOP),
        ("Кр", Notation.RU, chess.KING),
        ("Ф", Notation.RU, chess.QUEEN),
        ("Л", Notation.RU, chess.ROOK),
        ("С", Notation.RU, chess.BISHOP),
        ("D", Notation.DE, chess.QUEEN),
        ("T", Notation.DE, chess.ROOK),
        ("L", Notation.DE, chess.BISHOP),
        ("S", Notation.DE, chess.KNIGHT),
        ("♞", Notation.RU, chess.KNIGHT),
        ("♔", Notation.BG_LATIN, chess.KING),
    ],
)
def test_letter_table(letter: str, notation: Notation, piece: chess.PieceType) -> None:
    assert letter_meanings(letter)[notation] == piece


def test_letters_that_name_nothing_in_a_notation() -> None:
    assert Notation.EN not in letter_meanings("Д")
    assert Notation.RU not in letter_meanings("O")
    assert letter_meanings("Y") == {}
    assert promotion_meanings("Z") == {}  # a pawn never becomes a king


def test_letter_for_figurine_games_is_english() -> None:
    assert letter_for(chess.KNIGHT, Notation.FIGURINE) == "N"
    assert letter_for(chess.BISHOP, Notation.BG_CYRILLIC) == "О"


# --- Reading ------------------------------------------------------------------------------


def only(text: str) -> Reading:
    readings = read_moves(text)
    assert len(readings) == 1, readings
    return readings[0]


@pytest.mark.parametrize(
    "text",
    ["e2-e4", "e2–e4", "e2—e4", "e2 - e4", "e2xe4", "e2:e4", "e2e4", "E2-E4", "е2-е4", "5254"],
)
def test_full_notation_forms_of_e2_e4(text: str) -> None:
    reading = only(text)
    assert reading.full
    assert squares(reading) == ("e2", "e4")
    assert reading.move_text == text


def test_cyrillic_look_alike_files_are_latin_files() -> None:
    assert squares(only("Кс1-а3")) == ("c1", "a3")  # Cyrillic с and а
    assert squares(only("С1-Е3")) == ("c1", "e3")  # capitals in full notation


def test_spaces_between_the_squares_keep_both_readings() -> None:
    reading = only("e2 e4")
    assert squares(reading) == ("e2", "e4")
    assert reading.alternative is not None
    first, second = reading.alternative
    assert (first.move_text, second.move_text) == ("e2", "e4")
    assert first.incomplete and second.incomplete
    assert only("e2 - e4").alternative is None


@pytest.mark.parametrize(
    ("text", "letter", "to", "file", "rank"),
    [
        ("Nf3", "N", "f3", None, None),
        ("Кf3", "К", "f3", None, None),
        ("e4", None, "e4", None, None),
        ("exd5", None, "d5", 4, None),
        ("e:d5", None, "d5", 4, None),
        ("Nbd2", "N", "d2", 1, None),
        ("R1e2", "R", "e2", None, 0),
        ("B8e6", "B", "e6", None, 7),
        ("Крe2", "Кр", "e2", None, None),
        ("♘f3", "♘", "f3", None, None),
    ],
)
def test_incomplete_notation(
    text: str, letter: str | None, to: str, file: int | None, rank: int | None
) -> None:
    reading = only(text)
    assert reading.incomplete
    assert reading.piece_letter == letter
    assert squares(reading) == (None, to)
    assert (reading.from_file, reading.from_rank) == (file, rank)


@pytest.mark.parametrize(
    ("text", "letter", "full"),
    [
        ("e7-e8Д", "Д", True),
        ("e8=Q", "Q", False),
        ("e8Q", "Q", False),
        ("e7e8q", "q", True),
        ("e8(Q)", "Q", False),
        ("e8/Q", "Q", False),
        ("e7-e8Ф", "Ф", True),
        ("e8D", "D", False),
        ("dxe8=♕+", "♕", False),
        ("57581", "1", True),
    ],
)
def test_promotion_forms(text: str, letter: str, full: bool) -> None:
    reading = only(text)
    assert reading.promotion_letter == letter
    assert reading.full is full
    assert reading.to_square == chess.E8


@pytest.mark.parametrize(
    ("text", "castling"),
    [
        ("0-0", Castling.KINGSIDE),
        ("O-O", Castling.KINGSIDE),
        ("o-o", Castling.KINGSIDE),
        ("О-О", Castling.KINGSIDE),  # Cyrillic O
        ("0–0", Castling.KINGSIDE),
        ("0-0-0", Castling.QUEENSIDE),
        ("O-O-O+", Castling.QUEENSIDE),
        ("О-О-О", Castling.QUEENSIDE),
    ],
)
def test_castling_forms(text: str, castling: Castling) -> None:
    reading = only(text)
    assert reading.castling is castling
    assert reading.piece_letter is None


def test_cyrillic_o_before_a_square_is_the_bulgarian_bishop() -> None:
    reading = only("Оf1-c4")
    assert reading.castling is None
    assert reading.piece_letter == "О"
    assert squares(reading) == ("f1", "c4")


@pytest.mark.parametrize("text", ["e5xd6 e.p.", "e5:d6 в.п.", "exd6 ep", "exd6e.p."])
def test_en_passant_marks(text: str) -> None:
    reading = only(text)
    assert reading.en_passant
    assert reading.to_square == chess.D6


@pytest.mark.parametrize(
    ("text", "number", "black"),
    [
        ("15. Кg8-f6", 15, False),
        ("15.Кg8-f6", 15, False),
        ("15...Кg8-f6", 15, True),
        ("15… Кg8-f6", 15, True),
        ("15 . Кg8-f6", 15, False),
        ("15. ... Кg8-f6", 15, True),
        ("Кg8-f6", None, False),
    ],
)
def test_move_numbers(text: str, number: int | None, black: bool) -> None:
    reading = only(text)
    assert reading.move_text == "Кg8-f6"
    assert (reading.number, reading.black_marker) == (number, black)


@pytest.mark.parametrize("text", ["Nf3+", "Nf3#", "Nf3!", "Nf3?", "Nf3!!", "Nf3?!", "Nf3++"])
def test_signs_after_a_move(text: str) -> None:
    reading = only(text)
    assert reading.move_text == text
    assert reading.to_square == chess.F3


def test_art_8_line_with_dates_and_day_counts() -> None:
    text = (
        "15. Те1-e2 Кg8-f6; 11.3. – 12.3. – 15.3. = 3 дни; "
        "общо време: белите 15 дни, черните 21 дни"
    )
    readings = read_moves(text)
    assert [r.move_text for r in readings] == ["Те1-e2", "Кg8-f6"]
    assert readings[0].number == 15
    assert text[slice(*readings[1].span)] == "Кg8-f6"


@pytest.mark.parametrize(
    "text",
    [
        "Nice to hear from you",
        "I made4 mistakes",
        "draw",
        "реми",
        "ничья",
        "I resign",
        "Играя",
        "Мой ход",
        "I play",
        "see you in 2026",
        "born 1988",
        "12.03.2026",
        "11.3. – 12.3. – 15.3. = 3 дни",
        "A4 paper",
        "Re: your move",
        "mail me at ivan.e4@example.org",
        "e2-e9",
        "1-0",
    ],
)
def test_prose_dates_and_words_are_not_moves(text: str) -> None:
    assert read_moves(text) == ()


def test_moves_are_found_inside_prose() -> None:
    assert [r.move_text for r in read_moves("Играя Кg1-f3. Реми?")] == ["Кg1-f3"]
    assert [r.move_text for r in read_moves("My move: 12. Nf3, and I offer a draw.")] == ["Nf3"]
    assert [r.move_text for r in read_moves("Мой ход: e2-e4 (5254)")] == ["e2-e4", "5254"]


def test_iccf_numbers_need_digits_1_to_8() -> None:
    assert read_moves("5290") == ()
    assert read_moves("52545") == ()  # a fifth digit must be 1-4
    assert squares(only("7163")) == ("g1", "f3")
