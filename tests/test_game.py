"""How games end: the board, the players, claims, adjudication, withdrawal."""

from __future__ import annotations

import datetime

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mailbot.rules.game import (
    ClaimStatus,
    DrawOffer,
    GameEnd,
    GameEndError,
    NoDrawOfferError,
    PlayerGame,
    Termination,
    WithdrawalOutcome,
    accept_draw,
    adjudicate,
    adjudication_claims_due,
    agree_draw,
    annul,
    claim_draw,
    claim_tablebase_win,
    decide_withdrawal,
    end_after_move,
    forfeit,
    offer_stands,
    resign,
    settle_adjudication,
)
from mailbot.rules.profile import WithdrawalPolicy, profile


def play(*sans: str, fen: str | None = None) -> chess.Board:
    board = chess.Board(fen) if fen else chess.Board()
    for san in sans:
        board.push_san(san)
    return board


# The knights go out and back: after 1. Nf3 Nf6 2. Ng1 Ng8 the start position
# is back on the board with White to move.
KNIGHT_DANCE = ("Nf3", "Nf6", "Ng1", "Ng8")


# The board -------------------------------------------------------------------


def test_fools_mate_is_a_win_for_black() -> None:
    end = end_after_move(play("f3", "e5", "g4", "Qh4#"))
    assert end is not None
    assert (end.result, end.termination, end.winner) == ("0-1", Termination.CHECKMATE, chess.BLACK)
    assert end.score(chess.BLACK) == 1.0 and end.score(chess.WHITE) == 0.0
    assert "checkmate" in end.reason


def test_stalemate_is_a_draw() -> None:
    board = play("Qf7", fen="7k/8/6K1/8/8/8/5Q2/8 w - - 0 1")
    end = end_after_move(board)
    assert end is not None
    assert (end.result, end.termination, end.winner) == ("1/2-1/2", Termination.STALEMATE, None)
    assert "Black has no legal move" in end.reason


@pytest.mark.parametrize(
    "fen",
    [
        "8/8/4k3/8/8/3K4/8/8 w - - 0 60",  # king against king
        "8/8/4k3/8/8/3KB3/8/8 w - - 0 60",  # king and bishop against king
        "8/8/4k3/8/8/3KN3/8/8 w - - 0 60",  # king and knight against king
        "8/8/4kn2/8/8/3K4/8/8 w - - 0 60",  # the same for Black
        "8/8/3bk3/8/8/3KB3/8/8 w - - 0 60",  # bishops on squares of one colour (d6, e3)
    ],
)
def test_dead_positions_are_drawn(fen: str) -> None:
    end = end_after_move(chess.Board(fen))
    assert end is not None
    assert (end.result, end.termination) == ("1/2-1/2", Termination.INSUFFICIENT_MATERIAL)


@pytest.mark.parametrize(
    "fen",
    [
        "8/8/4k3/8/8/3KR3/8/8 w - - 0 60",  # a rook can mate
        "8/8/4k3/8/8/3KP3/8/8 w - - 0 60",  # a pawn can promote
        "8/8/2b1k3/8/8/3KB3/8/8 w - - 0 60",  # bishops on both colours (c6, e3): mate exists
        "8/8/4k3/8/8/2NKN3/8/8 w - - 0 60",  # two knights: mate is possible with help
    ],
)
def test_positions_with_mating_material_play_on(fen: str) -> None:
    assert end_after_move(chess.Board(fen)) is None


def test_the_start_position_plays_on() -> None:
    assert end_after_move(chess.Board()) is None


# The players -----------------------------------------------------------------


@pytest.mark.parametrize(("color", "result"), [(chess.WHITE, "0-1"), (chess.BLACK, "1-0")])
def test_resignation_gives_the_opponent_the_point(color: chess.Color, result: str) -> None:
    end = resign(color)
    assert (end.result, end.termination, end.winner) == (result, Termination.RESIGNATION, not color)
    assert end.score(color) == 0.0


def test_agreed_draw_gives_each_half_a_point() -> None:
    end = agree_draw()
    assert (end.result, end.termination, end.winner) == ("1/2-1/2", Termination.DRAW_AGREED, None)
    assert end.score(chess.WHITE) == end.score(chess.BLACK) == 0.5


def test_offer_with_a_move_can_be_accepted_until_the_opponent_moves() -> None:
    offer = DrawOffer(chess.WHITE, 21)  # sent together with White's 11th move
    assert offer_stands(offer, 21)
    assert accept_draw(offer, chess.BLACK, 21).termination is Termination.DRAW_AGREED
    assert not offer_stands(offer, 22)
    with pytest.raises(NoDrawOfferError, match="lapsed when Black played move 11"):
        accept_draw(offer, chess.BLACK, 22)


def test_offer_made_while_thinking_survives_the_offerers_own_move() -> None:
    offer = DrawOffer(chess.BLACK, 21)  # Black, to move, offers before answering
    assert offer_stands(offer, 22)
    assert accept_draw(offer, chess.WHITE, 22).result == "1/2-1/2"
    with pytest.raises(NoDrawOfferError, match="lapsed when White played move 12"):
        accept_draw(offer, chess.WHITE, 23)


@given(by=st.booleans(), ply=st.integers(0, 300), later=st.integers(0, 300))
@settings(max_examples=200, deadline=None)
def test_an_offer_never_outlives_two_half_moves(by: bool, ply: int, later: int) -> None:
    offer = DrawOffer(by, ply)
    assert offer_stands(offer, ply)
    assert offer_stands(offer, ply + later) == (later == 0 or (later == 1 and (ply % 2 == 0) == by))


def test_accepting_without_an_offer_is_refused_with_a_reason() -> None:
    with pytest.raises(NoDrawOfferError, match="no draw offer"):
        accept_draw(None, chess.BLACK, 10)


def test_a_player_cannot_accept_their_own_offer() -> None:
    with pytest.raises(NoDrawOfferError, match="own draw offer"):
        accept_draw(DrawOffer(chess.WHITE, 10), chess.WHITE, 10)


def test_offer_lapses_when_the_offerer_oversteps() -> None:
    offer = DrawOffer(chess.WHITE, 21)
    assert not offer_stands(offer, 21, offerer_overstepped=True)
    with pytest.raises(NoDrawOfferError, match="overstepped"):
        accept_draw(offer, chess.BLACK, 21, offerer_overstepped=True)


# Claims ----------------------------------------------------------------------


def test_threefold_claim_granted_with_the_intended_move() -> None:
    board = play(*KNIGHT_DANCE, "Nf3", "Nf6", "Ng1")  # Black to move; Ng8 repeats a third time
    decision = claim_draw(
        board, chess.BLACK, intended_move=chess.Move.from_uci("f6g8"), tablebase_rule=False
    )
    assert decision.status is ClaimStatus.GRANTED
    assert decision.ground is Termination.THREEFOLD_REPETITION
    assert decision.move == chess.Move.from_uci("f6g8")  # the move goes into the record
    assert decision.end is not None and decision.end.result == "1/2-1/2"
    assert "4... Ng8" in decision.reason
    assert len(board.move_stack) == 7  # the claim does not touch the game's board


def test_threefold_claim_on_the_board_needs_no_move() -> None:
    board = play(*KNIGHT_DANCE, *KNIGHT_DANCE)  # the start position for the third time
    decision = claim_draw(board, chess.WHITE, tablebase_rule=False)
    assert decision.status is ClaimStatus.GRANTED
    assert decision.move is None


def test_threefold_claim_refused_when_the_position_occurred_only_twice() -> None:
    board = play(*KNIGHT_DANCE)
    decision = claim_draw(board, chess.WHITE, tablebase_rule=False)
    assert decision.status is ClaimStatus.REFUSED
    assert decision.end is None
    assert "occurred only twice" in decision.reason


def test_refused_claim_with_a_move_still_plays_the_move() -> None:
    board = play("e4", "e5")
    move = chess.Move.from_uci("g1f3")
    decision = claim_draw(board, chess.WHITE, intended_move=move, tablebase_rule=False)
    assert decision.status is ClaimStatus.REFUSED
    assert decision.move == move
    assert "would occur with 2. Nf3 only once" in decision.reason
    assert len(board.move_stack) == 2  # the claim does not touch the game's board


def test_only_the_player_to_move_can_claim() -> None:
    board = play(*KNIGHT_DANCE, *KNIGHT_DANCE)
    decision = claim_draw(board, chess.BLACK, tablebase_rule=False)
    assert decision.status is ClaimStatus.REFUSED
    assert "White's move" in decision.reason


def test_illegal_intended_move_is_an_error() -> None:
    with pytest.raises(chess.IllegalMoveError):
        claim_draw(
            chess.Board(),
            chess.WHITE,
            intended_move=chess.Move.from_uci("e2e5"),
            tablebase_rule=False,
        )


def test_claim_after_the_game_ended_is_an_error() -> None:
    with pytest.raises(GameEndError, match="already over"):
        claim_draw(play("f3", "e5", "g4", "Qh4#"), chess.WHITE, tablebase_rule=False)


def test_intended_mate_wins_rather_than_draws() -> None:
    board = play(*KNIGHT_DANCE, *KNIGHT_DANCE, "f3", "e5", "g4")
    decision = claim_draw(
        board, chess.BLACK, intended_move=chess.Move.from_uci("d8h4"), tablebase_rule=False
    )
    assert decision.status is ClaimStatus.REFUSED
    assert decision.move == chess.Move.from_uci("d8h4")


# Eight pieces: rooks, a bishop and a knight; 99 half-moves without a capture or
# a pawn move, White to move.
EIGHT_PIECES_99 = "2b1k3/r7/8/3n4/8/3B4/R7/4K2R w - - 99 120"
# Five pieces: in the tablebases.
FIVE_PIECES_99 = "4k3/r7/8/8/8/3B4/R7/4K3 w - - 99 120"


def test_fifty_move_claim_granted_with_the_intended_move() -> None:
    board = chess.Board(EIGHT_PIECES_99)
    move = chess.Move.from_uci("h1h2")
    decision = claim_draw(board, chess.WHITE, intended_move=move, tablebase_rule=True)
    assert decision.status is ClaimStatus.GRANTED
    assert decision.ground is Termination.FIFTY_MOVES
    assert decision.end is not None and decision.end.termination is Termination.FIFTY_MOVES
    assert decision.move == move


def test_fifty_move_claim_granted_on_the_board() -> None:
    board = chess.Board(EIGHT_PIECES_99.replace(" 99 ", " 100 "))
    decision = claim_draw(board, chess.WHITE, tablebase_rule=False)
    assert decision.status is ClaimStatus.GRANTED
    assert decision.move is None


def test_fifty_move_claim_refused_before_the_fiftieth_move() -> None:
    decision = claim_draw(chess.Board(EIGHT_PIECES_99), chess.WHITE, tablebase_rule=False)
    assert decision.status is ClaimStatus.REFUSED
    assert "only 49 moves were made without a capture or a pawn move" in decision.reason


def test_fifty_move_count_restarts_with_a_capture() -> None:
    board = chess.Board(EIGHT_PIECES_99)
    rook_takes = chess.Move.from_uci("a2a7")
    decision = claim_draw(board, chess.WHITE, intended_move=rook_takes, tablebase_rule=False)
    assert decision.status is ClaimStatus.REFUSED
    assert "a capture or a pawn move was just made" in decision.reason


def test_fifty_moves_in_a_tablebase_position_go_to_the_td() -> None:
    board = chess.Board(FIVE_PIECES_99)
    move = chess.Move.from_uci("e1f1")
    decision = claim_draw(board, chess.WHITE, intended_move=move, tablebase_rule=True)
    assert decision.status is ClaimStatus.NEEDS_TD
    assert decision.ground is Termination.FIFTY_MOVES
    assert decision.end is None
    assert decision.move == move
    assert decision.fen is not None and chess.Board(decision.fen).board_fen() == (
        "4k3/r7/8/8/8/3B4/R7/5K2"
    )
    assert "tablebases" in decision.reason


def test_fifty_moves_in_a_tablebase_position_without_the_rule_is_a_draw() -> None:
    board = chess.Board(FIVE_PIECES_99)
    move = chess.Move.from_uci("e1f1")
    decision = claim_draw(board, chess.WHITE, intended_move=move, tablebase_rule=False)
    assert decision.status is ClaimStatus.GRANTED


def test_draw_claim_in_a_tablebase_position_goes_to_the_td() -> None:
    board = chess.Board("4k3/r7/8/8/8/3B4/R7/4K3 w - - 10 120")
    decision = claim_draw(board, chess.WHITE, tablebase_rule=True)
    assert decision.status is ClaimStatus.NEEDS_TD
    assert decision.ground is Termination.TABLEBASE
    refused = claim_draw(board, chess.WHITE, tablebase_rule=False)
    assert refused.status is ClaimStatus.REFUSED


def test_tablebase_win_claim_goes_to_the_td() -> None:
    board = chess.Board("8/8/4k3/8/8/3QK3/8/8 b - - 0 70")
    decision = claim_tablebase_win(board, chess.WHITE, tablebase_rule=True)
    assert decision.status is ClaimStatus.NEEDS_TD
    assert decision.fen == board.fen()


@pytest.mark.parametrize(
    ("fen", "rule", "why"),
    [
        ("8/8/4k3/8/8/3QK3/8/8 b - - 0 70", False, "does not decide games by the tablebases"),
        (EIGHT_PIECES_99, True, "8 pieces"),
        ("r3k3/8/8/8/8/8/8/R3K3 w Qq - 0 1", True, "castling"),
    ],
)
def test_tablebase_win_claim_refused(fen: str, rule: bool, why: str) -> None:
    decision = claim_tablebase_win(chess.Board(fen), chess.WHITE, tablebase_rule=rule)
    assert decision.status is ClaimStatus.REFUSED
    assert why in decision.reason


# Decisions -------------------------------------------------------------------


def test_game_end_rejects_contradictions() -> None:
    with pytest.raises(GameEndError):
        GameEnd("1-0", Termination.CHECKMATE, chess.BLACK, "?")
    with pytest.raises(GameEndError):
        GameEnd("1/2-1/2", Termination.RESIGNATION, None, "?")
    with pytest.raises(GameEndError):
        GameEnd("1-0", Termination.ANNULLED, chess.WHITE, "?")
    with pytest.raises(GameEndError):
        GameEnd("+/-", Termination.FORFEIT, chess.WHITE, "?")


def test_forfeits_annulment_and_adjudication() -> None:
    assert forfeit(chess.BLACK, Termination.TIME_FORFEIT, "overstepped").result == "1-0"
    with pytest.raises(GameEndError):
        forfeit(chess.BLACK, Termination.CHECKMATE, "?")
    annulled = annul("withdrawn")
    assert (annulled.result, annulled.score(chess.WHITE)) == ("annulled", None)
    assert adjudicate("0-1").winner == chess.BLACK
    assert adjudicate("1/2-1/2", termination=Termination.TABLEBASE).termination.value == "tablebase"
    with pytest.raises(GameEndError):
        adjudicate("*")


def test_adjudication_claims_are_due_fifteen_days_after_the_end() -> None:
    end = datetime.date(2027, 6, 30)
    assert adjudication_claims_due(end, profile("bg-email")) == datetime.date(2027, 7, 15)
    longer = profile("bg-email", {"adjudication_claim_days": 30})
    assert adjudication_claims_due(end, longer) == datetime.date(2027, 7, 30)


@pytest.mark.parametrize(
    ("white", "black", "settled"),
    [
        ("1-0", "1-0", "1-0"),
        ("1/2-1/2", "1/2-1/2", "1/2-1/2"),
        ("0-1", "0-1", "0-1"),
        ("1-0", "1/2-1/2", None),
        ("1-0", "0-1", None),
        ("1/2-1/2", None, None),
        (None, None, None),
    ],
)
def test_equal_adjudication_claims_stand(
    white: str | None, black: str | None, settled: str | None
) -> None:
    assert settle_adjudication(white, black) == settled


def test_an_adjudication_claim_must_be_a_result() -> None:
    with pytest.raises(GameEndError):
        settle_adjudication("*", "*")


# Withdrawal --------------------------------------------------------------------


def outcomes(games: list[PlayerGame], policy: WithdrawalPolicy, valid: bool) -> dict[str, str]:
    return {d.game: d.outcome.value for d in decide_withdrawal(games, policy, valid_reason=valid)}


SOME_PLAY = [
    PlayerGame("E/1", chess.WHITE, 20),
    PlayerGame("E/2", chess.BLACK, 31),
    PlayerGame("E/3", chess.WHITE, 64, finished=True),
]


@pytest.mark.parametrize("policy", list(WithdrawalPolicy))
def test_without_a_valid_reason_unfinished_games_are_lost(policy: WithdrawalPolicy) -> None:
    decisions = decide_withdrawal(SOME_PLAY, policy, valid_reason=False)
    assert [d.game for d in decisions] == ["E/1", "E/2"]  # the finished game keeps its result
    first, second = decisions
    assert first.outcome is WithdrawalOutcome.LOST and second.outcome is WithdrawalOutcome.LOST
    assert first.end is not None and first.end.result == "0-1"  # the withdrawn player had White
    assert second.end is not None and second.end.result == "1-0"
    assert first.end.termination is Termination.WITHDRAWAL


def test_bulgarian_rules_send_a_valid_withdrawal_to_the_arbiter() -> None:
    # art. 48: serious illness or death; the unfinished games are adjudicated.
    games = [PlayerGame("E/1", chess.WHITE, 4), PlayerGame("E/2", chess.BLACK, 6)]
    assert outcomes(games, WithdrawalPolicy.LOSE_ALL, True) == {
        "E/1": "adjudicated",
        "E/2": "adjudicated",
    }


def test_iccf_valid_reason_and_a_finished_game_means_adjudication() -> None:
    decisions = decide_withdrawal(SOME_PLAY, WithdrawalPolicy.ICCF, valid_reason=True)
    assert {d.outcome for d in decisions} == {WithdrawalOutcome.ADJUDICATED}
    assert all(d.end is None for d in decisions)
    assert "finished 1 game" in decisions[0].reason


def test_iccf_valid_reason_with_25_moves_on_average_means_adjudication() -> None:
    games = [PlayerGame("E/1", chess.WHITE, 50), PlayerGame("E/2", chess.BLACK, 50)]
    assert set(outcomes(games, WithdrawalPolicy.ICCF, True).values()) == {"adjudicated"}


def test_iccf_valid_reason_with_fewer_moves_means_annulment() -> None:
    games = [PlayerGame("E/1", chess.WHITE, 50), PlayerGame("E/2", chess.BLACK, 49)]
    decisions = decide_withdrawal(games, WithdrawalPolicy.ICCF, valid_reason=True)
    assert {d.outcome for d in decisions} == {WithdrawalOutcome.ANNULLED}
    assert all(d.end is not None and d.end.result == "annulled" for d in decisions)


@pytest.mark.parametrize("policy", list(WithdrawalPolicy))
@pytest.mark.parametrize("valid", [True, False])
def test_a_player_who_never_moved_has_all_games_annulled(
    policy: WithdrawalPolicy, valid: bool
) -> None:
    games = [
        PlayerGame("E/1", chess.BLACK, 1),  # White moved, the player did not answer
        PlayerGame("E/2", chess.WHITE, 0),
        PlayerGame("E/3", chess.BLACK, 1, finished=True),  # lost by silence
    ]
    assert outcomes(games, policy, valid) == {
        "E/1": "annulled",
        "E/2": "annulled",
        "E/3": "annulled",
    }


def test_own_moves_count_the_players_colour() -> None:
    assert PlayerGame("g", chess.WHITE, 1).own_moves == 1
    assert PlayerGame("g", chess.BLACK, 1).own_moves == 0
    assert PlayerGame("g", chess.BLACK, 2).own_moves == 1
