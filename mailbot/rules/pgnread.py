"""A PGN as a player's answer (docs/contract.md, "Players' chess programs"; docs/rules.md
2.4, "The whole game copied").

A chess program answers with the whole game as PGN, the new move at its end. The
game is read with python-chess and written back as the text a player would copy by
hand: the moves with their numbers in figurine full notation, which the referee
reads in every notation without a reminder. That text goes through the same
judgment as any copy of the game (:mod:`mailbot.rules.copies`), so a PGN is
matched against the record move by move, as a copy is (art. 21). A move python-chess
cannot read (a notation of its own, a move that is no move) leaves the moves as
written, for the referee to read and judge as any copy.

>>> answer = read_pgn('[Event "Cup"]\\n[GameId "BG-2026-E1/3"]\\n\\n'
...                   '1. e4 e5 2. Nf3 {Your move! [%ccsnt 2026.03.04]} *')
>>> answer.text, answer.comment, answer.game_id
('1. e2-e4 e7-e5 2. ♘g1-f3', 'Your move!', 'BG-2026-E1/3')
>>> read_pgn('1. e4 e5 2. Qxf7').text
'1. e4 e5 2. Qxf7'
>>> found = pasted_pgn('Hello,\\n\\n[Event "Cup"]\\n[Site "X"]\\n\\n1. e4 e5 *\\n\\nRegards')
>>> found is not None and (found[0].splitlines()[0], found[1])
('[Event "Cup"]', 'Hello,\\n\\nRegards')
"""

from __future__ import annotations

import dataclasses
import io
import re

import chess
import chess.pgn

from mailbot.rules.notation import Notation, write_line
from mailbot.rules.pgn import RESULTS

__all__ = ["PgnAnswer", "game_tag_of", "pasted_pgn", "read_pgn"]

#: A tag pair on a line of its own: ``[Event "Cup"]``.
_TAG_LINE = re.compile(r'^\s*\[[A-Za-z0-9_]+\s+"(?:[^"\\]|\\.)*"\s*\]\s*$')
#: A command in a comment (``[%ccsnt 2026.03.04]``, ``[%clk 1:00:00]``): not words.
_COMMAND = re.compile(r"\[%[^\]]*\]")
#: A comment in braces, or from a semicolon to the end of its line.
_COMMENTS = re.compile(r"\{[^}]*\}|;[^\n]*")
#: A PGN read as an answer is at most this long (a game of 300 moves with a comment
#: after each is a third of it).
LONGEST = 50_000


@dataclasses.dataclass(frozen=True)
class PgnAnswer:
    """What a PGN says as an answer.

    ``text`` is its moves as the referee reads them; ``comment`` the words of the
    comment after its last move (commands left out); ``game_id`` and ``cmail`` its
    ``GameId`` and ``CmailGameName`` tags, if any.
    """

    text: str
    comment: str
    game_id: str | None
    cmail: str | None


class _Builder(chess.pgn.GameBuilder[chess.pgn.Game]):
    """python-chess's game builder, keeping the first move it could not play."""

    refused: str | None = None

    def parse_san(self, board: chess.Board, san: str) -> chess.Move:
        try:
            return super().parse_san(board, san)
        except ValueError:
            if self.refused is None:
                self.refused = san
            raise

    def handle_error(self, error: Exception) -> None:
        """Keep the error with the game, unlogged: a player's PGN is the player's."""
        self.game.errors.append(error)


def read_pgn(text: str) -> PgnAnswer | None:
    """The answer a PGN gives; None when it holds no game."""
    builder = _Builder()
    game = chess.pgn.read_game(io.StringIO(text[:LONGEST]), Visitor=lambda: builder)
    if game is None:
        return None
    moves = list(game.mainline_moves())
    board = game.board()
    line = write_line(board, moves, Notation.FIGURINE)
    if builder.refused is not None or game.errors:
        # a move python-chess cannot read (a notation of its own, long algebraic
        # with Cyrillic letters, a move that is no move): the movetext as written,
        # which the referee reads in every notation and judges move by move
        line = _movetext(text[:LONGEST])
    comment = " ".join(_COMMAND.sub(" ", game.end().comment).split())
    tags = game.headers
    return PgnAnswer(line, comment, tags.get("GameId"), tags.get("CmailGameName"))


def _movetext(text: str) -> str:
    """A PGN's moves as written: its tag pairs, comments and result left out.

    >>> _movetext('[Event "Cup"]\\n\\n1. e2-e4 {good} e7-e5 ; well\\n2. Кg1-f3 *')
    '1. e2-e4 e7-e5 2. Кg1-f3'
    """
    lines = [line for line in text.splitlines() if not _TAG_LINE.match(line)]
    moves = _COMMENTS.sub(" ", "\n".join(lines))
    words = moves.split()
    if words and words[-1] in RESULTS:
        words.pop()
    return " ".join(words)


def game_tag_of(answer: PgnAnswer) -> str | None:
    """The ``INDEX/N`` a PGN names: its ``GameId``, else its ``CmailGameName`` (the tag
    with ``/`` written ``-``).

    >>> game_tag_of(PgnAnswer("", "", None, "BG-2026-E1-3"))
    'BG-2026-E1/3'
    >>> game_tag_of(PgnAnswer("", "", None, "Kasparov-Karpov")) is None
    True
    """
    if answer.game_id and "/" in answer.game_id:
        return answer.game_id.strip()
    if answer.cmail:
        index, _, number = answer.cmail.strip().rpartition("-")
        if index and number.isdigit():
            return f"{index}/{int(number)}"
    return None


def pasted_pgn(body: str) -> tuple[str, str] | None:
    """The PGN pasted in a body, and the rest of the body around it; None without one.

    A pasted PGN starts at a line of tag pairs and ends at the first empty line
    after its moves.
    """
    lines = body.splitlines()
    start = next((i for i, line in enumerate(lines) if _TAG_LINE.match(line)), None)
    if start is None:
        return None
    end = start
    while end < len(lines) and _TAG_LINE.match(lines[end]):
        end += 1
    while end < len(lines) and not lines[end].strip():
        end += 1
    while end < len(lines) and lines[end].strip() and not _TAG_LINE.match(lines[end]):
        end += 1
    rest = "\n".join([*lines[:start], *lines[end:]])
    return "\n".join(lines[start:end]), re.sub(r"\n{3,}", "\n\n", rest).strip()
