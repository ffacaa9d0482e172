"""A game's result and a player's colour: one vocabulary from the core to the store.

The values are the store's spellings, so a :class:`Result` is what the
``games.result`` column holds and a :class:`Colour` what every ``color``
column holds. PGN's ``*`` is not among them: in the bot's own words it would
mean two things (an unfinished game, an annulled one); it is only written,
by :attr:`Result.pgn`, into the PGN of an annulled game, which the standard
counts as abandoned::

    >>> Result("1-0").winner == chess.WHITE, Result.ANNULLED.pgn, Result.DRAW.score(chess.BLACK)
    (True, '*', 0.5)
    >>> Result.read("½-½")
    <Result.DRAW: '1/2-1/2'>
    >>> Colour.of(chess.BLACK), Colour.WHITE.color
    (<Colour.BLACK: 'black'>, True)
"""

from __future__ import annotations

import enum

import chess

from mailbot.rules.errors import RulesError

__all__ = ["BOARD_RESULTS", "Colour", "Result", "UnknownResultError"]


class UnknownResultError(RulesError, ValueError):
    """Text that is no result."""


class Result(enum.StrEnum):
    """How a game ended, for the table."""

    WHITE_WINS = "1-0"
    BLACK_WINS = "0-1"
    DRAW = "1/2-1/2"
    #: Won without play (a forfeit recorded as such).
    WHITE_WINS_BY_FORFEIT = "+/-"
    BLACK_WINS_BY_FORFEIT = "-/+"
    #: No result: the game does not count (003 part 1 art. 9, art. 47).
    ANNULLED = "annulled"

    @property
    def winner(self) -> chess.Color | None:
        """The colour that won; None for a draw or an annulled game."""
        if self in (Result.WHITE_WINS, Result.WHITE_WINS_BY_FORFEIT):
            return chess.WHITE
        if self in (Result.BLACK_WINS, Result.BLACK_WINS_BY_FORFEIT):
            return chess.BLACK
        return None

    @property
    def pgn(self) -> str:
        """The PGN ``Result`` tag: ``1-0``, ``0-1``, ``1/2-1/2``, ``*`` (annulled).

        >>> Result.BLACK_WINS_BY_FORFEIT.pgn
        '0-1'
        """
        if self is Result.ANNULLED:
            return "*"
        if self is Result.DRAW:
            return "1/2-1/2"
        return "1-0" if self.winner == chess.WHITE else "0-1"

    @property
    def flipped(self) -> Result:
        """The result seen from the other side (a team board from the other team's).

        >>> Result.WHITE_WINS_BY_FORFEIT.flipped, Result.DRAW.flipped
        (<Result.BLACK_WINS_BY_FORFEIT: '-/+'>, <Result.DRAW: '1/2-1/2'>)
        """
        return {
            Result.WHITE_WINS: Result.BLACK_WINS,
            Result.BLACK_WINS: Result.WHITE_WINS,
            Result.WHITE_WINS_BY_FORFEIT: Result.BLACK_WINS_BY_FORFEIT,
            Result.BLACK_WINS_BY_FORFEIT: Result.WHITE_WINS_BY_FORFEIT,
        }.get(self, self)

    def score(self, color: chess.Color) -> float | None:
        """Points for ``color``: 1, 0.5 or 0; None for an annulled game."""
        if self is Result.ANNULLED:
            return None
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == color else 0.0

    @classmethod
    def read(cls, text: str) -> Result:
        """A result as people write it: ``1-0``, ``0-1``, ``1/2-1/2``, ``½-½``, ``0.5-0.5``.

        >>> Result.read("1-0")
        <Result.WHITE_WINS: '1-0'>
        """
        value = _WRITTEN.get(text.strip().casefold())
        if value is None:
            raise UnknownResultError(f"{text!r} is no result: write 1-0, 0-1 or 1/2-1/2")
        return value


#: The results play over the board can have.
BOARD_RESULTS = (Result.WHITE_WINS, Result.BLACK_WINS, Result.DRAW)

_WRITTEN = {
    "1-0": Result.WHITE_WINS,
    "0-1": Result.BLACK_WINS,
    "1/2-1/2": Result.DRAW,
    "½-½": Result.DRAW,
    "0.5-0.5": Result.DRAW,
}


class Colour(enum.StrEnum):
    """A side, as the store and the phrases name it."""

    WHITE = "white"
    BLACK = "black"

    @classmethod
    def of(cls, color: chess.Color) -> Colour:
        return cls.WHITE if color == chess.WHITE else cls.BLACK

    @property
    def color(self) -> chess.Color:
        """python-chess's colour."""
        return self is Colour.WHITE
