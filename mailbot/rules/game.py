"""How a correspondence game ends (docs/rules.md sections 3, 4 and 6).

A game ends on the board (checkmate, stalemate, a dead position), by the
players (resignation, an agreed draw, a draw claim), or by a decision
(a time forfeit, the 40-day silence, the tournament director's sanction,
adjudication, a withdrawal). Each end is a :class:`GameEnd`::

    >>> import chess
    >>> board = chess.Board()
    >>> for san in ["f3", "e5", "g4", "Qh4"]:
    ...     board.push_san(san)
    Move.from_uci('f2f3')
    Move.from_uci('e7e5')
    Move.from_uci('g2g4')
    Move.from_uci('d8h4')
    >>> end = end_after_move(board)
    >>> end.result.value, end.termination.value, end.reason
    ('0-1', 'checkmate', 'Black wins by checkmate')

Nothing here does I/O or reads the clock: the functions take a position, the
ply count, the profile's switches, and return plain values.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
from collections.abc import Iterable, Sequence

import chess

from mailbot.rules.errors import RulesError
from mailbot.rules.phrase import Phrase
from mailbot.rules.profile import Profile, WithdrawalPolicy
from mailbot.rules.result import BOARD_RESULTS, Result

#: The results a game can end with (a forfeit keeps ``1-0``/``0-1``: its
#: termination tells it was not played out).
RESULTS = (*BOARD_RESULTS, Result.ANNULLED)

#: Positions with at most this many pieces (kings included) and no castling
#: rights are in the tablebases (003 part 1 art. 1a, 11b).
TABLEBASE_PIECES = 7

#: A fifty-move claim needs this many half-moves without a capture or a pawn
#: move: fifty by each player (FIDE art. 9.3).
FIFTY_MOVE_PLIES = 100


class GameEndError(RulesError, ValueError):
    """A game end that cannot be: a result that contradicts its termination,
    a draw accepted when no offer stands, an adjudication claim that is no
    result."""


class NoDrawOfferError(GameEndError):
    """A player accepted a draw but no offer of the opponent stands."""


class Termination(enum.Enum):
    """Why a game ended."""

    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    #: Neither player can checkmate by any series of legal moves (FIDE 5.2.2).
    INSUFFICIENT_MATERIAL = "insufficient-material"
    RESIGNATION = "resignation"
    DRAW_AGREED = "draw-agreed"
    THREEFOLD_REPETITION = "threefold-repetition"
    FIFTY_MOVES = "fifty-moves"
    #: Decided by the tablebases on a claim (003 part 1 art. 1a, 11b).
    TABLEBASE = "tablebase"
    #: The time limit overstepped (art. 27-30).
    TIME_FORFEIT = "time-forfeit"
    #: No move and no delay notice for 40 days (art. 31; 003 part 2 art. 3b).
    SILENCE = "silence"
    #: Unfinished at the end of the tournament, decided by the arbiter (art. 52-55).
    ADJUDICATION = "adjudication"
    #: A player left the tournament (art. 47; 003 part 1 art. 9).
    WITHDRAWAL = "withdrawal"
    #: A loss the tournament director imposes as a sanction (art. 17, 56).
    FORFEIT = "forfeit"
    #: The game does not count (003 part 1 art. 9).
    ANNULLED = "annulled"


_DECISIVE = frozenset(
    {
        Termination.CHECKMATE,
        Termination.RESIGNATION,
        Termination.TIME_FORFEIT,
        Termination.SILENCE,
        Termination.WITHDRAWAL,
        Termination.FORFEIT,
    }
)
_DRAWN = frozenset(
    {
        Termination.STALEMATE,
        Termination.INSUFFICIENT_MATERIAL,
        Termination.DRAW_AGREED,
        Termination.THREEFOLD_REPETITION,
        Termination.FIFTY_MOVES,
    }
)
_DECIDED = frozenset({Termination.TABLEBASE, Termination.ADJUDICATION})
_FORFEITS = frozenset(
    {Termination.TIME_FORFEIT, Termination.SILENCE, Termination.FORFEIT, Termination.WITHDRAWAL}
)


def _name(color: chess.Color) -> str:
    return "White" if color == chess.WHITE else "Black"


def _colour(color: chess.Color) -> str:
    return "white" if color == chess.WHITE else "black"


def _win(color: chess.Color) -> Result:
    return Result.WHITE_WINS if color == chess.WHITE else Result.BLACK_WINS


@dataclasses.dataclass(frozen=True)
class GameEnd:
    """The result of a game and why.

    ``result`` is ``1-0``, ``0-1``, ``1/2-1/2`` or ``annulled`` (a
    :class:`~mailbot.rules.result.Result`; its text is taken too). A loss by forfeit
    keeps ``1-0``/``0-1``; the ``termination`` tells it was not played out.
    ``reason`` is a sentence for the players and the TD.

    >>> end = resign(chess.WHITE)
    >>> end.result.value, end.winner == chess.BLACK, end.reason
    ('0-1', True, 'White resigns')
    >>> GameEnd("1-0", Termination.STALEMATE, chess.WHITE, "?")
    Traceback (most recent call last):
    ...
    mailbot.rules.game.GameEndError: stalemate ends a game in a draw, not 1-0
    """

    result: Result
    termination: Termination
    winner: chess.Color | None
    reason: str

    def __post_init__(self) -> None:
        if self.result not in RESULTS:
            raise GameEndError(
                f"unknown result {self.result!r}: use one of {', '.join(r.value for r in RESULTS)}"
            )
        object.__setattr__(self, "result", Result(self.result))
        expected = self.result.winner
        if self.winner != expected:
            raise GameEndError(f"result {self.result} does not match the winner {self.winner!r}")
        term = self.termination
        if term is Termination.ANNULLED:
            if self.result is not Result.ANNULLED:
                raise GameEndError(f"an annulled game has no result, not {self.result}")
        elif self.result is Result.ANNULLED:
            raise GameEndError(f"{term.value} needs a result, not annulled")
        elif term in _DECISIVE and expected is None:
            raise GameEndError(f"{term.value} ends a game with a win, not {self.result}")
        elif term in _DRAWN and expected is not None:
            raise GameEndError(f"{term.value} ends a game in a draw, not {self.result}")

    def score(self, color: chess.Color) -> float | None:
        """Points for ``color``: 1, 0.5 or 0; None for an annulled game.

        >>> agree_draw().score(chess.BLACK)
        0.5
        """
        return self.result.score(color)


def end_after_move(board: chess.Board) -> GameEnd | None:
    """The end the last move brought about on the board, or None if play goes on.

    Checkmate, stalemate, and a dead position (no sequence of legal moves can
    checkmate: king against king, king and one minor piece against king, and
    bishops all on squares of one colour).

    >>> end_after_move(chess.Board("8/8/8/8/8/2k5/8/2K1N3 w - - 0 60")).termination.value
    'insufficient-material'
    >>> end_after_move(chess.Board()) is None
    True
    """
    if board.is_checkmate():
        winner = not board.turn
        return GameEnd(
            _win(winner), Termination.CHECKMATE, winner, f"{_name(winner)} wins by checkmate"
        )
    if board.is_stalemate():
        return GameEnd(
            Result.DRAW,
            Termination.STALEMATE,
            None,
            f"draw by stalemate: {_name(board.turn)} has no legal move and is not in check",
        )
    if board.is_insufficient_material():
        return GameEnd(
            Result.DRAW,
            Termination.INSUFFICIENT_MATERIAL,
            None,
            "draw: neither player has the material to checkmate",
        )
    return None


def resign(color: chess.Color) -> GameEnd:
    """``color`` resigns; the opponent wins.

    >>> resign(chess.BLACK).result
    <Result.WHITE_WINS: '1-0'>
    """
    return GameEnd(_win(not color), Termination.RESIGNATION, not color, f"{_name(color)} resigns")


def agree_draw() -> GameEnd:
    """Both players agree to a draw.

    >>> agree_draw().result
    <Result.DRAW: '1/2-1/2'>
    """
    return GameEnd(Result.DRAW, Termination.DRAW_AGREED, None, "draw agreed")


def forfeit(loser: chess.Color, termination: Termination, reason: str) -> GameEnd:
    """``loser`` loses without the game being played out.

    ``termination`` is one of TIME_FORFEIT, SILENCE, FORFEIT or WITHDRAWAL.

    >>> forfeit(chess.WHITE, Termination.SILENCE, "no move for 41 days").result
    <Result.BLACK_WINS: '0-1'>
    >>> forfeit(chess.WHITE, Termination.RESIGNATION, "?")
    Traceback (most recent call last):
    ...
    mailbot.rules.game.GameEndError: resignation is not a forfeit
    """
    if termination not in _FORFEITS:
        raise GameEndError(f"{termination.value} is not a forfeit")
    return GameEnd(_win(not loser), termination, not loser, reason)


def annul(reason: str) -> GameEnd:
    """The game is annulled: it has no result and counts for nobody.

    >>> annul("the player withdrew before making a move").score(chess.WHITE) is None
    True
    """
    return GameEnd(Result.ANNULLED, Termination.ANNULLED, None, reason)


def adjudicate(
    result: str, *, termination: Termination = Termination.ADJUDICATION, reason: str = ""
) -> GameEnd:
    """A result decided off the board: by the arbiter (art. 53-55) or, with
    ``termination=Termination.TABLEBASE``, by the TD from the tablebases.

    >>> adjudicate("1/2-1/2").reason
    'adjudicated 1/2-1/2'
    """
    if termination not in _DECIDED:
        raise GameEndError(f"{termination.value} is not decided by adjudication")
    if result not in BOARD_RESULTS:
        raise GameEndError(f"an adjudication needs a result (1-0, 0-1, 1/2-1/2), not {result!r}")
    decided = Result(result)
    return GameEnd(decided, termination, decided.winner, reason or f"adjudicated {decided}")


# Draw offers ---------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class DrawOffer:
    """A draw offer by ``by``, made when ``ply`` half-moves had been played
    (counted after the offerer's move when the offer comes with a move).

    The offer stands until the opponent's next move (003 part 1 art. 2f);
    it cannot be withdrawn, and it lapses if the offerer oversteps the time
    limit.
    """

    by: chess.Color
    ply: int

    def __post_init__(self) -> None:
        if self.ply < 0:
            raise GameEndError(f"a ply count cannot be negative: {self.ply}")


def offer_stands(offer: DrawOffer | None, ply: int, *, offerer_overstepped: bool = False) -> bool:
    """Whether ``offer`` can still be accepted when ``ply`` half-moves are played.

    White offers with 1. e4 (ply 1): Black may accept instead of answering,
    but once Black has moved (ply 2) the offer is gone.

    >>> offer = DrawOffer(chess.WHITE, 1)
    >>> offer_stands(offer, 1), offer_stands(offer, 2)
    (True, False)

    An offer made while thinking (White at ply 0) survives White's own move:

    >>> offer = DrawOffer(chess.WHITE, 0)
    >>> offer_stands(offer, 1), offer_stands(offer, 2)
    (True, False)
    """
    return _lapse(offer, ply, offerer_overstepped=offerer_overstepped) is None


def _lapse(offer: DrawOffer | None, ply: int, *, offerer_overstepped: bool) -> str | None:
    """Why ``offer`` no longer stands at ``ply``, or None if it stands."""
    if offer is None:
        return "there is no draw offer to accept"
    if ply < offer.ply:
        raise GameEndError(f"ply {ply} is before the offer was made (ply {offer.ply})")
    if offerer_overstepped:
        return f"{_name(offer.by)}'s draw offer lapsed when {_name(offer.by)} overstepped the time"
    opponent = not offer.by
    # Half-move k (1-based) is played by White when k is odd.
    for k in range(offer.ply + 1, ply + 1):
        if (k % 2 == 1) == (opponent == chess.WHITE):
            return (
                f"{_name(offer.by)}'s draw offer lapsed when {_name(opponent)} "
                f"played move {(k + 1) // 2}"
            )
    return None


def accept_draw(
    offer: DrawOffer | None, by: chess.Color, ply: int, *, offerer_overstepped: bool = False
) -> GameEnd:
    """``by`` accepts ``offer`` when ``ply`` half-moves are played: the game is drawn.

    >>> accept_draw(DrawOffer(chess.WHITE, 1), chess.BLACK, 1).termination.value
    'draw-agreed'
    >>> accept_draw(DrawOffer(chess.WHITE, 1), chess.BLACK, 3)
    Traceback (most recent call last):
    ...
    mailbot.rules.game.NoDrawOfferError: White's draw offer lapsed when Black played move 1
    """
    if offer is not None and offer.by == by:
        raise NoDrawOfferError(f"{_name(by)} cannot accept their own draw offer")
    why = _lapse(offer, ply, offerer_overstepped=offerer_overstepped)
    if why is not None:
        raise NoDrawOfferError(why)
    return agree_draw()


# Draw claims ----------------------------------------------------------------


class ClaimStatus(enum.Enum):
    GRANTED = "granted"
    REFUSED = "refused"
    #: The claim needs a tablebase probe: the TD decides (003 part 1 art. 11b).
    NEEDS_TD = "needs-td"


@dataclasses.dataclass(frozen=True)
class ClaimDecision:
    """The answer to a claim.

    - ``end``: the game's end when the claim is granted.
    - ``ground``: the rule the decision rests on (THREEFOLD_REPETITION,
      FIFTY_MOVES or TABLEBASE), None when no rule applied.
    - ``move``: the intended move that must now be played. The intended move
      is sealed like any other (FIDE 9.5; art. 12): it is played when the
      claim is refused or goes to the TD, and when the claim is granted
      because of it. It is None when the position on the board decided.
    - ``fen``: the position for the TD when the status is NEEDS_TD.
    """

    status: ClaimStatus
    reason: str
    ground: Termination | None = None
    end: GameEnd | None = None
    move: chess.Move | None = None
    fen: str | None = None
    #: The reason as a phrase of the catalogue, for the reader's language.
    phrase: Phrase = dataclasses.field(default_factory=lambda: Phrase("claim.granted"))


def in_tablebase(board: chess.Board) -> bool:
    """Whether the position is covered by the 7-piece tablebases.

    >>> in_tablebase(chess.Board("8/8/4k3/8/8/3QK3/8/8 w - - 0 70"))
    True
    >>> in_tablebase(chess.Board())
    False
    """
    return chess.popcount(board.occupied) <= TABLEBASE_PIECES and not board.castling_rights


def _occurrences(board: chess.Board) -> int:
    """How often the position on the board has occurred, counted up to three."""
    if board.is_repetition(3):
        return 3
    return 2 if board.is_repetition(2) else 1


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _check_claim(board: chess.Board) -> None:
    if end_after_move(board) is not None:
        raise GameEndError("the game is already over")


def claim_draw(
    board: chess.Board,
    claimant: chess.Color,
    *,
    intended_move: chess.Move | None = None,
    tablebase_rule: bool,
) -> ClaimDecision:
    """Decide ``claimant``'s draw claim in the position ``board`` (which
    holds the game's moves, so repetitions can be counted).

    The grounds, in order (FIDE 9.2, 9.3; 003 part 1 art. 1a, 11b):

    1. threefold repetition: the position has occurred three times, or
       will with ``intended_move``;
    2. the fifty-move rule: the last fifty moves of each player, or the
       last ones with ``intended_move``, had no capture and no pawn move.
       Under ``tablebase_rule``, in a position of the tablebases the rule
       does not hold if the stronger side has a win, so the claim goes to
       the TD;
    3. under ``tablebase_rule``, any claim in a position of the tablebases
       goes to the TD, who reads the result from the tables.

    Only the player who has the move can claim (FIDE 9.2). An illegal
    ``intended_move`` raises :class:`chess.IllegalMoveError`.

    >>> board = chess.Board()
    >>> for san in ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"]:
    ...     _ = board.push_san(san)
    >>> decision = claim_draw(board, chess.BLACK, tablebase_rule=False)
    >>> decision.status.value
    'refused'
    >>> decision.reason[:45]
    'no draw: the position has occurred only twice'
    >>> decision = claim_draw(
    ...     board, chess.BLACK, intended_move=chess.Move.from_uci("f6g8"), tablebase_rule=False
    ... )
    >>> decision.status.value, decision.end.reason
    ('granted', 'draw by threefold repetition, claimed by Black with 4... Ng8')
    """
    _check_claim(board)
    if claimant != board.turn:
        return ClaimDecision(
            ClaimStatus.REFUSED,
            f"only the player who has the move can claim a draw; it is {_name(board.turn)}'s move",
            phrase=Phrase("claim.not-your-turn"),
        )
    after, with_move = _with_intended_move(board, intended_move)
    if intended_move is not None and after.is_checkmate():
        return ClaimDecision(
            ClaimStatus.REFUSED,
            "the intended move gives checkmate, which ends the game",
            move=intended_move,
            phrase=Phrase("claim.mate-ends"),
        )
    return _by_repetition_or_fifty(board, after, claimant, intended_move, with_move, tablebase_rule)


def _by_repetition_or_fifty(
    board: chess.Board,
    after: chess.Board,
    claimant: chess.Color,
    intended_move: chess.Move | None,
    with_move: str,
    tablebase_rule: bool,
) -> ClaimDecision:
    """The claim by its grounds in order: threefold repetition, fifty moves, tablebase."""
    who = f"claimed by {_name(claimant)}"

    # 1. Threefold repetition.
    if _occurrences(board) >= 3:
        return _granted(Termination.THREEFOLD_REPETITION, f"draw by threefold repetition, {who}")
    seen = _occurrences(after)
    if intended_move is not None and seen >= 3:
        return _granted(
            Termination.THREEFOLD_REPETITION,
            f"draw by threefold repetition, {who}{with_move}",
            intended_move,
        )

    # 2. The fifty-move rule.
    if board.halfmove_clock >= FIFTY_MOVE_PLIES:
        decided, clock = board, board.halfmove_clock
    else:
        decided, clock = after, after.halfmove_clock
    if clock >= FIFTY_MOVE_PLIES:
        move = intended_move if decided is after else None
        if tablebase_rule and in_tablebase(decided):
            return _fifty_moves_in_tablebase(decided, clock, intended_move)
        text = f"draw by the fifty-move rule, {who}"
        return _granted(Termination.FIFTY_MOVES, text + (with_move if move else ""), move)

    # 3. A tablebase position.
    if tablebase_rule and in_tablebase(after):
        return _in_tablebase(after, intended_move)
    return _no_draw(seen, clock, intended_move, with_move)


def _with_intended_move(
    board: chess.Board, intended_move: chess.Move | None
) -> tuple[chess.Board, str]:
    """The position after the intended move, and the move as a claim names it.

    An illegal ``intended_move`` raises :class:`chess.IllegalMoveError`.
    """
    if intended_move is not None and not board.is_legal(intended_move):
        raise chess.IllegalMoveError(f"illegal intended move: {intended_move.uci()}")
    after = board.copy()
    with_move = ""
    if intended_move is not None:
        number = board.fullmove_number
        dots = "." if board.turn == chess.WHITE else "..."
        with_move = f" with {number}{dots} {board.san(intended_move)}"
        after.push(intended_move)
    return after, with_move


def _in_tablebase(after: chess.Board, intended_move: chess.Move | None) -> ClaimDecision:
    """A claim in a position of the tablebases: the TD reads the result from the tables."""
    return ClaimDecision(
        ClaimStatus.NEEDS_TD,
        f"the position ({chess.popcount(after.occupied)} pieces) is in the tablebases: "
        "the tournament director checks the result in the tables",
        ground=Termination.TABLEBASE,
        move=intended_move,
        fen=after.fen(),
        phrase=Phrase("claim.tablebase", {"pieces": chess.popcount(after.occupied)}),
    )


def _fifty_moves_in_tablebase(
    decided: chess.Board, clock: int, intended_move: chess.Move | None
) -> ClaimDecision:
    """Fifty moves are reached in a position of the tablebases: the TD decides."""
    return ClaimDecision(
        ClaimStatus.NEEDS_TD,
        f"{clock // 2} moves without a capture or a pawn move, but the position "
        f"({chess.popcount(decided.occupied)} pieces) is in the tablebases: the "
        "fifty-move rule does not hold if the tables show a win, so the tournament "
        "director decides",
        ground=Termination.FIFTY_MOVES,
        move=intended_move,
        fen=decided.fen(),
        phrase=Phrase(
            "claim.fifty-tablebase",
            {"moves": clock // 2, "pieces": chess.popcount(decided.occupied)},
        ),
    )


def _no_draw(
    seen: int, clock: int, intended_move: chess.Move | None, with_move: str
) -> ClaimDecision:
    """The claim refused: the position was not seen three times, fifty moves not reached."""
    place = "would occur" if intended_move is not None else "has occurred"
    moves = clock // 2
    quiet = (
        "a capture or a pawn move was just made"
        if moves == 0
        else f"only {_plural(moves, 'move')} {'was' if moves == 1 else 'were'} made without "
        f"a capture or a pawn move ({FIFTY_MOVE_PLIES // 2} are needed)"
    )
    return ClaimDecision(
        ClaimStatus.REFUSED,
        f"no draw: the position {place}{with_move} only {_times(seen)}, and {quiet}",
        move=intended_move,
        phrase=Phrase("claim.no-draw", {"seen": seen, "moves": moves}),
    )


def _granted(ground: Termination, reason: str, move: chess.Move | None = None) -> ClaimDecision:
    end = GameEnd(Result.DRAW, ground, None, reason)
    return ClaimDecision(ClaimStatus.GRANTED, reason, ground=ground, end=end, move=move)


def claim_tablebase_win(
    board: chess.Board, claimant: chess.Color, *, tablebase_rule: bool
) -> ClaimDecision:
    """``claimant`` claims a win by the tablebases (003 part 1 art. 11b).

    The bot has no tablebase files: a claim it cannot refuse goes to the TD
    with the position.

    >>> board = chess.Board("8/8/4k3/8/8/3QK3/8/8 b - - 0 70")
    >>> claim_tablebase_win(board, chess.WHITE, tablebase_rule=True).status.value
    'needs-td'
    >>> claim_tablebase_win(board, chess.WHITE, tablebase_rule=False).reason
    'this tournament does not decide games by the tablebases'
    """
    _check_claim(board)
    if not tablebase_rule:
        return ClaimDecision(
            ClaimStatus.REFUSED,
            "this tournament does not decide games by the tablebases",
            phrase=Phrase("claim.no-tablebase-rule"),
        )
    pieces = chess.popcount(board.occupied)
    if pieces > TABLEBASE_PIECES:
        return ClaimDecision(
            ClaimStatus.REFUSED,
            f"the position has {pieces} pieces; the tablebases cover at most {TABLEBASE_PIECES}",
            phrase=Phrase("claim.too-many-pieces", {"pieces": pieces, "limit": TABLEBASE_PIECES}),
        )
    if board.castling_rights:
        return ClaimDecision(
            ClaimStatus.REFUSED,
            "positions where castling is still possible are not in the tables",
            phrase=Phrase("claim.castling"),
        )
    return ClaimDecision(
        ClaimStatus.NEEDS_TD,
        f"{_name(claimant)} claims a win by the tablebases ({pieces} pieces): "
        "the tournament director checks the tables",
        ground=Termination.TABLEBASE,
        fen=board.fen(),
        phrase=Phrase("claim.tablebase-win", {"pieces": pieces, "colour": _colour(claimant)}),
    )


# End of the tournament --------------------------------------------------------


def adjudication_claims_due(tournament_end: datetime.date, profile: Profile) -> datetime.date:
    """The last day for the players' adjudication claims (art. 52: 15 days).

    >>> from mailbot.rules.profile import profile
    >>> adjudication_claims_due(datetime.date(2027, 6, 30), profile("bg-email"))
    datetime.date(2027, 7, 15)
    """
    return tournament_end + datetime.timedelta(days=profile.adjudication_claim_days)


def settle_adjudication(white_claim: str | None, black_claim: str | None) -> str | None:
    """The result both players claim (art. 53 note), or None: the arbiter decides.

    A claim is a result (``1-0``, ``0-1``, ``1/2-1/2``), or None when the
    player sent none.

    >>> settle_adjudication("1/2-1/2", "1/2-1/2")
    '1/2-1/2'
    >>> settle_adjudication("1-0", "1/2-1/2") is None
    True
    """
    for claim in (white_claim, black_claim):
        if claim is not None and claim not in BOARD_RESULTS:
            raise GameEndError(f"an adjudication claim is 1-0, 0-1 or 1/2-1/2, not {claim!r}")
    if white_claim is not None and white_claim == black_claim:
        return white_claim
    return None


# Withdrawal -------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class PlayerGame:
    """One game of a player who withdraws: ``color`` is the player's colour,
    ``ply`` the half-moves played, ``finished`` whether it has a result."""

    game: str
    color: chess.Color
    ply: int
    finished: bool = False

    @property
    def own_moves(self) -> int:
        """The moves the player made in this game."""
        return (self.ply + 1) // 2 if self.color == chess.WHITE else self.ply // 2


class WithdrawalOutcome(enum.Enum):
    LOST = "lost"
    #: Goes to the arbiter like an unfinished game at the end (art. 52-55).
    ADJUDICATED = "adjudicated"
    ANNULLED = "annulled"


@dataclasses.dataclass(frozen=True)
class WithdrawalDecision:
    """What happens to one game. ``end`` is the game's end when it is lost
    or annulled, None when the arbiter decides."""

    game: str
    outcome: WithdrawalOutcome
    end: GameEnd | None
    reason: str


#: ICCF: with a valid reason, games are adjudicated from this many moves on
#: average (003 part 1 art. 9; 003 part 2 art. 8).
ADJUDICATION_MIN_AVERAGE_MOVES = 25


def decide_withdrawal(
    games: Iterable[PlayerGame], policy: WithdrawalPolicy, *, valid_reason: bool
) -> tuple[WithdrawalDecision, ...]:
    """The fate of a withdrawn player's games (docs/rules.md section 6).

    ``games`` are all of the player's games, finished ones included: they
    count for the ICCF rule. Decisions cover the unfinished games, and every
    game when the player never moved.

    - A player who never made a move: every game is annulled (the organiser
      may seat a replacement instead; 003 part 1 art. 9; art. 47 A).
    - Without a valid reason: every unfinished game is lost (both policies).
    - With a valid reason, ``WithdrawalPolicy.ICCF``: unfinished games are
      adjudicated when on average 25 or more moves were made in them or the
      player finished a game; otherwise annulled.
    - With a valid reason, ``WithdrawalPolicy.LOSE_ALL``: art. 47 A covers
      withdrawal without a valid reason only; art. 48 sends the unfinished
      games of a player who stops for serious illness or death to the
      arbiter, so they are adjudicated.

    >>> games = [PlayerGame("E1/1", chess.WHITE, 61), PlayerGame("E1/4", chess.BLACK, 30)]
    >>> iccf = WithdrawalPolicy.ICCF
    >>> [d.outcome.value for d in decide_withdrawal(games, iccf, valid_reason=True)]
    ['annulled', 'annulled']
    >>> games.append(PlayerGame("E1/6", chess.WHITE, 45, finished=True))
    >>> [d.outcome.value for d in decide_withdrawal(games, iccf, valid_reason=True)]
    ['adjudicated', 'adjudicated']
    """
    everything = tuple(games)
    unfinished = [g for g in everything if not g.finished]
    if not any(g.own_moves for g in everything):
        reason = "the player withdrew without making a move: the game is annulled"
        return tuple(
            WithdrawalDecision(g.game, WithdrawalOutcome.ANNULLED, annul(reason), reason)
            for g in everything
        )
    if not valid_reason:
        return tuple(_lost(g) for g in unfinished)
    if policy is WithdrawalPolicy.LOSE_ALL:
        reason = "the player withdrew for a valid reason: the arbiter adjudicates the game"
        return tuple(_adjudicated(g, reason) for g in unfinished)
    return _withdrawn_for_valid_reason(everything, unfinished)


def _withdrawn_for_valid_reason(
    everything: Sequence[PlayerGame], unfinished: Sequence[PlayerGame]
) -> tuple[WithdrawalDecision, ...]:
    """ICCF: adjudicated when the player finished a game or enough moves were made."""
    finished = len(everything) - len(unfinished)
    total_ply = sum(g.ply for g in unfinished)
    # Average full moves >= 25  <=>  total plies >= 2 * 25 * number of games.
    enough = total_ply >= 2 * ADJUDICATION_MIN_AVERAGE_MOVES * len(unfinished)
    if finished or enough:
        why = (
            f"the player finished {_plural(finished, 'game')}"
            if finished
            else f"on average {ADJUDICATION_MIN_AVERAGE_MOVES} or more moves were made"
        )
        reason = f"the player withdrew for a valid reason and {why}: the arbiter adjudicates"
        return tuple(_adjudicated(g, reason) for g in unfinished)
    reason = (
        "the player withdrew for a valid reason, finished no game, and fewer than "
        f"{ADJUDICATION_MIN_AVERAGE_MOVES} moves were made on average: the game is annulled"
    )
    return tuple(
        WithdrawalDecision(g.game, WithdrawalOutcome.ANNULLED, annul(reason), reason)
        for g in unfinished
    )


def _lost(game: PlayerGame) -> WithdrawalDecision:
    reason = "the player withdrew without a valid reason: the game is lost"
    end = forfeit(
        game.color,
        Termination.WITHDRAWAL,
        f"{_name(game.color)} withdrew from the tournament without a valid reason",
    )
    return WithdrawalDecision(game.game, WithdrawalOutcome.LOST, end, reason)


def _adjudicated(game: PlayerGame, reason: str) -> WithdrawalDecision:
    return WithdrawalDecision(game.game, WithdrawalOutcome.ADJUDICATED, None, reason)
