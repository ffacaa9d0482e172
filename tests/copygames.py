"""Whole games copied into a message, as players copy them (docs/rules.md 2.4).

A seeded random game is written in one of the notations the bot reads and laid
out as a player lays it out (move numbers, one move per line, a copy that
starts with Black's ``12...``, marks, PGN tags, the game quoted with ``> ``,
dates and comments), with the new move at its end. A copy may have one of its
moves replaced by another legal move. The property tests and
``bench/copies.py`` both read the copies made here.

>>> copy = make_copy(random.Random(1), "long-en", "numbered")
>>> copy.text.startswith("1. ")
True
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Callable, Sequence

import chess

from mailbot.mail.quoting import new_text
from mailbot.rules.notation import Notation, write_move

#: The notations a copy is written in: a name and the game's agreed notation.
NOTATIONS: dict[str, Notation] = {
    "long-en": Notation.EN,
    "san": Notation.EN,
    "bg-cyrillic": Notation.BG_CYRILLIC,
    "bg-latin": Notation.BG_LATIN,
    "ru": Notation.RU,
    "de": Notation.DE,
    "figurine": Notation.FIGURINE,
    "iccf-numeric": Notation.ICCF_NUMERIC,
}

LAYOUTS = ("numbered", "lines", "from-black", "marks", "pgn", "quoted", "dates")

_MARKS = ("!", "?", "!?", "+", "")


@dataclasses.dataclass(frozen=True)
class Copy:
    """A game, the text a player sends, and what the text should amount to."""

    #: The game as played, the opponent's last move on top of its stack.
    board: chess.Board
    #: The message's new text (quotes removed, as the mail path removes them).
    text: str
    #: The game's agreed notation.
    notation: Notation
    #: The new move at the copy's end.
    move: chess.Move
    #: The ply whose move the copy replaced by another legal move, if any.
    replaced: int | None = None
    #: That ply's move as the copy writes it (a replaced move), else "".
    written: str = ""


def random_game(rng: random.Random, plies: int) -> tuple[chess.Board, chess.Move]:
    """A game of up to ``plies`` random legal moves and a legal new move after it.

    Each position's legal moves are generated once: they are the next move's choices
    and, when there are none, the mate or stalemate that ends the game
    (:meth:`chess.Board.is_game_over` would generate them again)."""
    board = chess.Board()
    moves = list(board.legal_moves)
    for _ in range(plies):
        board.push(rng.choice(moves))
        moves = list(board.legal_moves)
        if _over(board, moves):
            board.pop()
            break
    while len(board.move_stack) < 2 or board.is_game_over():  # pragma: no cover - rare
        board = chess.Board()
        board.push_uci("g1f3")
        board.push_uci("g8f6")
    return board, rng.choice(list(board.legal_moves))


def _over(board: chess.Board, moves: list[chess.Move]) -> bool:
    """``board.is_game_over()``, given the position's legal ``moves``."""
    return (
        not moves
        or board.is_insufficient_material()
        or board.is_seventyfive_moves()
        or board.is_fivefold_repetition()
    )


def _writer(name: str) -> Callable[[chess.Board, chess.Move], str]:
    if name == "san":
        return lambda board, move: board.san(move)
    notation = NOTATIONS[name]
    return lambda board, move: write_move(board, move, notation)


def _marked(rng: random.Random, text: str) -> str:
    """A move with capture signs swapped and check and comment marks added, right or wrong."""
    text = text.replace(":", "x") if rng.random() < 0.5 else text.replace("x", ":")
    if rng.random() < 0.5:
        text = text.rstrip("+#")
    return text + rng.choice(_MARKS)


def make_copy(
    rng: random.Random,
    notation: str,
    layout: str,
    *,
    black: bool | None = None,
    replace: bool = False,
    plies: int | None = None,
) -> Copy:
    """A copy of a random game in ``notation`` and ``layout`` with the new move at its end.

    ``black``: the player to move is Black (else White; None: either). ``replace``:
    one move of the copy (any but the new move) is another legal move.
    """
    length = plies if plies is not None else rng.randint(2, 80)
    if black is not None and length % 2 != int(black):
        length += 1
    board, new = random_game(rng, length)
    moves = [*board.move_stack, new]
    start = 0
    if layout == "from-black":
        blacks = [p for p in range(len(board.move_stack) - 1) if p % 2 == 1]
        start = rng.choice(blacks) if blacks else 0
    replaced = rng.choice(_choices(board, start)) if replace else None
    write = _writer(notation)
    replay = chess.Board()
    parts: list[tuple[int, bool, str]] = []  # (number, black, move text)
    written = ""
    for ply, move in enumerate(moves):
        if ply >= start:
            text = write(replay, move)
            if ply == replaced:
                others = [m for m in replay.legal_moves if m != move]
                text = write(replay, rng.choice(others))
            if layout == "marks":
                text = _marked(rng, text)
            if ply == replaced:
                written = text
            parts.append((replay.fullmove_number, replay.turn == chess.BLACK, text))
        replay.push(move)
    text = _laid_out(rng, layout, parts)
    return Copy(board, text, NOTATIONS[notation], new, replaced, written)


def _choices(board: chess.Board, start: int) -> list[int]:
    """The plies from ``start`` on where another legal move could have been played."""
    replay, plies = chess.Board(), []
    for ply, move in enumerate(board.move_stack):
        second = next(itertools.islice(replay.generate_legal_moves(), 1, None), None)
        if ply >= start and second is not None:
            plies.append(ply)
        replay.push(move)
    return plies or [len(board.move_stack) - 1]


def _numbered(parts: Sequence[tuple[int, bool, str]], lines: bool = False) -> list[str]:
    """``1. e4 e5 2. Nf3``: a number before White's move, ``12...`` before a first Black move."""
    words: list[str] = []
    for index, (number, black, move) in enumerate(parts):
        if not black:
            words.append(f"{number}. {move}")
        elif index == 0 or lines:
            words.append(f"{number}... {move}")
        else:
            words.append(move)
    return words


def _laid_out(rng: random.Random, layout: str, parts: Sequence[tuple[int, bool, str]]) -> str:
    if layout == "lines":
        return "\n".join(_numbered(parts, lines=True))
    if layout == "pgn":
        tags = (
            '[Event "Cup"]\n[Site "Sofia BUL"]\n[Date "2026.03.01"]\n[Round "1"]\n'
            '[White "Able, Ann"]\n[Black "Bold, Bob"]\n[Result "*"]\n\n'
        )
        return tags + " ".join(_numbered(parts)) + " *"
    if layout == "quoted":
        earlier = " ".join(_numbered(parts[:-1]))
        quoted = "\n".join(f"> {line}" for line in _wrapped(earlier))
        body = f"On Sunday the arbiter wrote:\n{quoted}\n\nHere is the game:\n"
        return new_text(body + " ".join(_numbered(parts)) + "\n\nRegards")
    if layout == "dates":
        words = []
        for word in _numbered(parts):
            day = rng.randint(1, 28)
            words.append(f"{word} ({day}.{rng.randint(1, 12)}.)")
        return "My game so far (dates as received):\n" + " ".join(words) + "\nThinking hard."
    return " ".join(_numbered(parts))


def _wrapped(text: str, width: int = 72) -> list[str]:
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else lines
