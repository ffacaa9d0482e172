"""Property tests: every move the bot writes reads back as itself; nothing else is accepted.

Positions come from random legal play, from the initial position and from
positions rich in castling, promotion and en passant.
"""

from __future__ import annotations

import chess
import pytest
from fuzzing import body_of, budget
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mailbot.rules.notation import (
    Notation,
    example_move,
    letter_for,
    write_last_moves,
    write_move,
)
from mailbot.rules.referee import Verdict, judge

#: every test here takes more than a second (pyproject.toml: markers)
pytestmark = pytest.mark.slow

START_POSITIONS = [
    chess.STARTING_FEN,
    # Castling on both wings for both sides, a pawn ready to promote with capture.
    "r3k2r/pPppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    # Promotion on d8 with and without capture; White may castle short.
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    # En passant and a rook endgame.
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    # Black to move, en passant available on e3 for two pawns.
    "rnbqkbnr/ppp1p1pp/8/8/3pPp2/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3",
    # Black promotes on b1, castling for Black only.
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
]


@st.composite
def positions(draw: st.DrawFn, max_plies: int = 60) -> chess.Board:
    """A position reached by random legal moves, with its move stack."""
    board = chess.Board(draw(st.sampled_from(START_POSITIONS)))
    for choice in draw(st.lists(st.integers(0, 1 << 16), max_size=max_plies)):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(moves[choice % len(moves)])
    return board


BASE = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: Each property runs a fifth of its examples here, and all of them again in the fuzz
#: suite (tests/fuzzing.py; the end of this module): about thirty legal moves in a
#: dozen notations make each example many readings.
QUICK = 5


@settings(max_examples=250 // QUICK, parent=BASE)
@given(positions())
def test_every_legal_move_written_in_any_notation_reads_back_as_itself(board: chess.Board) -> None:
    for move in board.legal_moves:
        for notation in Notation:
            text = write_move(board, move, notation)
            judgement = judge(text, board, notation)
            assert judgement.verdict is Verdict.LEGAL, (text, notation, judgement)
            assert judgement.move == move, (text, notation, judgement)
            assert judgement.reminders == (), (text, notation, judgement)


@settings(max_examples=300 // QUICK, parent=BASE)
@given(positions(max_plies=120))
def test_the_example_a_mail_gives_is_the_first_legal_move_in_uci_order(
    board: chess.Board,
) -> None:
    legal = sorted(board.legal_moves, key=lambda m: m.uci())
    assert example_move(board) == (legal[0] if legal else None)


@settings(max_examples=200 // QUICK, parent=BASE)
@given(positions(), st.sampled_from(list(Notation)), st.integers(2, 3))
def test_the_art_8_move_line_reads_back_as_the_new_move(
    board: chess.Board, notation: Notation, plies: int
) -> None:
    """The player copies the opponent's last move (maybe their own before it) and adds theirs."""
    for move in board.legal_moves:
        after = board.copy()
        after.push(move)
        text = write_last_moves(after, notation, plies)
        judgement = judge(text, board, notation)
        assert judgement.verdict is Verdict.LEGAL, (text, notation, judgement)
        assert judgement.move == move, (text, notation, judgement)
        assert judgement.reminders == (), (text, notation, judgement)


@settings(max_examples=600 // QUICK, parent=BASE)
@given(positions())
def test_every_legal_move_in_english_san_reads_back_as_itself(board: chess.Board) -> None:
    for move in board.legal_moves:
        text = board.san(move)
        judgement = judge(text, board, Notation.EN)
        expected = Verdict.LEGAL if board.is_castling(move) else Verdict.INCOMPLETE
        assert judgement.verdict is expected, (text, judgement)
        assert judgement.move == move, (text, judgement)


@settings(max_examples=500 // QUICK, parent=BASE)
@given(
    positions(),
    st.integers(0, 63),
    st.sampled_from(list(Notation)),
    st.booleans(),
)
def test_a_from_to_pair_is_played_only_when_it_is_the_legal_move(
    board: chess.Board, origin: chess.Square, notation: Notation, with_letter: bool
) -> None:
    piece = board.piece_at(origin)
    letter = letter_for(piece.piece_type, notation) if piece and with_letter else ""
    last = board.move_stack[-1] if board.move_stack else None
    for target in chess.SQUARES:
        if notation is Notation.ICCF_NUMERIC:
            text = "".join(
                f"{chess.square_file(sq) + 1}{chess.square_rank(sq) + 1}" for sq in (origin, target)
            )
        else:
            text = f"{letter}{chess.square_name(origin)}-{chess.square_name(target)}"
        judgement = judge(text, board, notation)
        legal = [m for m in board.legal_moves if (m.from_square, m.to_square) == (origin, target)]
        if len(legal) > 1:  # a promotion without the piece
            assert judgement.verdict is Verdict.UNCLEAR, (text, judgement)
            assert judgement.reason_code == "no-promotion-piece"
        elif legal:
            assert judgement.accepted, (text, judgement)
            assert judgement.move == legal[0], (text, judgement)
        elif last is not None and (last.from_square, last.to_square) == (origin, target):
            assert judgement.verdict is Verdict.NO_MOVE, (text, judgement)
        else:
            assert judgement.verdict is Verdict.IMPOSSIBLE, (text, judgement)
            assert judgement.move is None
            # the reply lists the legal moves of the piece the player tried to move
            assert set(judgement.legal_alternatives) == {
                m for m in board.legal_moves if m.from_square == origin
            }


CHESS_TEXT = st.text(
    alphabet=st.sampled_from(list("abcdefgh12345678 -x:.=+#!?()0OКТОЦДФЛСKQRBNZDTSLPрeас…\n♘♞")),
    max_size=40,
)


@settings(max_examples=400 // QUICK, parent=BASE)
@given(positions(max_plies=20), CHESS_TEXT, st.sampled_from(list(Notation)), st.booleans())
def test_any_text_gets_a_verdict_and_only_legal_moves_are_played(
    board: chess.Board, text: str, notation: Notation, conditional: bool
) -> None:
    judgement = judge(text, board, notation, conditional_allowed=conditional)
    if judgement.accepted:
        assert judgement.move in board.legal_moves
        line = board.copy()
        line.push(judgement.move)
        for move in judgement.conditional:
            assert move in line.legal_moves
            line.push(move)
    else:
        assert judgement.move is None
        assert judgement.conditional == ()


# --- The same properties at length, in the fuzz suite ----------------------------------------

FUZZ = pytest.mark.fuzz


@FUZZ
@budget(250)
@given(positions())
def test_at_length_every_legal_move_in_any_notation_reads_back(board: chess.Board) -> None:
    body_of(test_every_legal_move_written_in_any_notation_reads_back_as_itself)(board)


@FUZZ
@budget(200)
@given(positions(), st.sampled_from(list(Notation)), st.integers(2, 3))
def test_at_length_the_art_8_move_line_reads_back_as_the_new_move(
    board: chess.Board, notation: Notation, plies: int
) -> None:
    body_of(test_the_art_8_move_line_reads_back_as_the_new_move)(board, notation, plies)


@FUZZ
@budget(600)
@given(positions())
def test_at_length_every_legal_move_in_english_san_reads_back(board: chess.Board) -> None:
    body_of(test_every_legal_move_in_english_san_reads_back_as_itself)(board)


@FUZZ
@budget(500)
@given(positions(), st.integers(0, 63), st.sampled_from(list(Notation)), st.booleans())
def test_at_length_a_from_to_pair_is_played_only_when_legal(
    board: chess.Board, origin: chess.Square, notation: Notation, with_letter: bool
) -> None:
    body_of(test_a_from_to_pair_is_played_only_when_it_is_the_legal_move)(
        board, origin, notation, with_letter
    )


@FUZZ
@budget(400)
@given(positions(max_plies=20), CHESS_TEXT, st.sampled_from(list(Notation)), st.booleans())
def test_at_length_any_text_gets_a_verdict_and_only_legal_moves_are_played(
    board: chess.Board, text: str, notation: Notation, conditional: bool
) -> None:
    body_of(test_any_text_gets_a_verdict_and_only_legal_moves_are_played)(
        board, text, notation, conditional
    )
