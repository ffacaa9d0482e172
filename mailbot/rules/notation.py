"""Writing and reading moves in the notations of correspondence chess (docs/rules.md 3.1).

Writing gives the full notation the rules ask for (art. 7 note 2, art. 8): the
from-square and the to-square, the piece letter of the agreed notation, the
capture sign of that notation, the promotion piece after the move:

>>> import chess
>>> board = chess.Board()
>>> write_move(board, chess.Move.from_uci("g1f3"), Notation.BG_CYRILLIC)
'Кg1-f3'
>>> write_move(board, chess.Move.from_uci("e2e4"), Notation.ICCF_NUMERIC)
'5254'
>>> board.push_uci("e2e4")
Move.from_uci('e2e4')
>>> board.push_uci("c7c5")
Move.from_uci('c7c5')
>>> write_last_moves(board, Notation.EN)
'1. e2-e4 c7-c5'

Reading is syntax only: :func:`read_moves` finds what looks like a move in a
message and says what was written, without a board. Whether a reading names a
legal move, and which, is the referee's business (:mod:`mailbot.rules.referee`).

>>> [r.move_text for r in read_moves("15. Те1-e2 Кg8-f6; 11.3. – 12.3. – 15.3. = 3 дни")]
['Те1-e2', 'Кg8-f6']
>>> reading = read_moves("Играя 1.e2-e4 (5254), реми?")[0]
>>> chess.square_name(reading.from_square), chess.square_name(reading.to_square), reading.number
('e2', 'e4', 1)

What the reader accepts:

- squares with Latin file letters; Cyrillic look-alikes (``а``, ``с``, ``е``,
  and in full notation also ``А``, ``В``, ``С``, ``Е``, ``Н``) count as the Latin
  letters. Capital file letters are read only in full notation with both
  squares in capitals (``E2-E4``): ``A4`` in a sentence is not a move, and
  ``B8e6`` is a bishop move;
- full notation: an optional piece letter (a Cyrillic one also in lower
  case, as phones write it: ``кg1-f3``), the from-square, a separator
  (``-``, ``–``, ``—``, ``x``, ``:``, ``×``, spaces, or nothing as in ``g1f3``),
  the to-square, an optional promotion piece (``e8Д``, ``e8=Q``, ``e8(Q)``,
  ``e8/Q``, ``e7e8q``), an optional ``e.p.``/``ep``/``в.п.``;
- incomplete notation (SAN): ``e4``, ``exd5``, ``Nf3``, ``Кf3``, ``Nbd2``,
  ``R1e2``, ``e8=Q``;
- castling: ``0-0``, ``O-O``, ``o-o``, Cyrillic ``О-О``, and the long forms;
- ICCF numeric: four digits 1-8 (``5254``), a fifth digit 1-4 for the
  promotion piece (``57581``);
- a move number before the move (``15.``, ``15...``, ``15…``, ``15 .``,
  ``15. ...``) and signs after it (``+ # ! ? !! ?! ++``).

Two squares separated by spaces only (``e2 e4``, but also ``1. e4 e5``) may be
one move in full notation or two moves in incomplete notation. The reading
keeps both: :attr:`Reading.alternative` holds the two incomplete readings, and
the referee decides with the position.

Piece letters mean different pieces in different notations; the table is
:func:`letter_meanings`. Visually identical Latin and Cyrillic letters are the
same letter (Latin ``K`` and Cyrillic ``К``, ``T`` and ``Т``, ``O`` and ``О``,
``C`` and ``С``). The letters of a figurine or numeric game are read as English.
Figurines of either colour name their piece in every notation.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import re
import threading
from collections.abc import Iterable, Mapping

import chess

from mailbot.rules.placement import Placement, placement

__all__ = [
    "Castling",
    "Notation",
    "Reading",
    "example_move",
    "letter_for",
    "letter_meanings",
    "promotion_meanings",
    "read_moves",
    "reading_notation",
    "write_last_moves",
    "write_line",
    "write_move",
]


class Notation(enum.Enum):
    """The notations of docs/rules.md 3.1, by their start-list names."""

    EN = "en"
    BG_CYRILLIC = "bg-cyrillic"
    BG_LATIN = "bg-latin"
    RU = "ru"
    DE = "de"
    ICCF_NUMERIC = "iccf-numeric"
    FIGURINE = "figurine"

    @property
    def label(self) -> str:
        """The notation's name in English.

        >>> Notation.BG_LATIN.label
        'Bulgarian (Latin letters)'
        """
        return _LABELS[self]


_LABELS = {
    Notation.EN: "English",
    Notation.BG_CYRILLIC: "Bulgarian (Cyrillic letters)",
    Notation.BG_LATIN: "Bulgarian (Latin letters)",
    Notation.RU: "Russian",
    Notation.DE: "German",
    Notation.ICCF_NUMERIC: "ICCF numeric",
    Notation.FIGURINE: "figurines",
}


class Castling(enum.Enum):
    """Which castling a reading names."""

    KINGSIDE = "0-0"
    QUEENSIDE = "0-0-0"


# --- Piece letters --------------------------------------------------------------------------

_K, _Q, _R, _B, _N, _P = chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN

#: The letters the bot writes.
_WRITTEN_LETTERS: dict[Notation, dict[chess.PieceType, str]] = {
    Notation.EN: {_K: "K", _Q: "Q", _R: "R", _B: "B", _N: "N"},
    Notation.BG_CYRILLIC: {_K: "Ц", _Q: "Д", _R: "Т", _B: "О", _N: "К"},
    Notation.BG_LATIN: {_K: "Z", _Q: "D", _R: "T", _B: "O", _N: "K"},
    Notation.RU: {_K: "Кр", _Q: "Ф", _R: "Л", _B: "С", _N: "К"},
    Notation.DE: {_K: "K", _Q: "D", _R: "T", _B: "L", _N: "S"},
}

#: What each letter (after folding look-alikes, see ``_fold_letter``) names, per notation.
_LETTER_TABLE: dict[str, dict[Notation, chess.PieceType]] = {}
for _notation, _letters in _WRITTEN_LETTERS.items():
    for _type, _letter in _letters.items():
        _LETTER_TABLE.setdefault(_letter, {})[_notation] = _type

_LETTER_FOLD = {
    "К": "K",  # Cyrillic Ka
    "Т": "T",
    "О": "O",
    "С": "C",
    "Кр": "KR",
    "Kp": "KR",
    "Kр": "KR",
    "Кp": "KR",
    "КР": "KR",
    "KР": "KR",
}
# Re-key the table on folded letters: "K" collects English/German king and Bulgarian/Russian
# knight, "T" the rook of three notations, "O" the Bulgarian bishop, "C" the Russian bishop.
_FOLDED_TABLE: dict[str, dict[Notation, chess.PieceType]] = {}
for _letter, _meanings in _LETTER_TABLE.items():
    _FOLDED_TABLE.setdefault(_LETTER_FOLD.get(_letter, _letter), {}).update(_meanings)

_FIGURINES = {
    chess.Piece(piece_type, color).unicode_symbol(): piece_type
    for piece_type in chess.PIECE_TYPES
    for color in chess.COLORS
}

_ICCF_PROMOTIONS = {"1": _Q, "2": _R, "3": _B, "4": _N}
_ICCF_DIGITS = {piece_type: digit for digit, piece_type in _ICCF_PROMOTIONS.items()}
_UCI_PROMOTIONS = {"q": _Q, "r": _R, "b": _B, "n": _N}


def _fold_letter(letter: str) -> str:
    return _LETTER_FOLD.get(letter, letter)


def letter_meanings(letter: str) -> Mapping[Notation, chess.PieceType]:
    """The piece a letter names in each notation where it names one.

    >>> meanings = letter_meanings("K")
    >>> meanings[Notation.EN] == chess.KING, meanings[Notation.BG_LATIN] == chess.KNIGHT
    (True, True)
    >>> sorted(n.value for n in letter_meanings("О"))  # Cyrillic O: the Bulgarian bishop
    ['bg-cyrillic', 'bg-latin']
    >>> letter_meanings("X")
    {}
    """
    if letter in _FIGURINES:
        return dict.fromkeys(Notation, _FIGURINES[letter])
    if letter == "P":
        return dict.fromkeys(Notation, _P)
    return dict(_FOLDED_TABLE.get(_fold_letter(letter), {}))


def promotion_meanings(letter: str, *, numeric: bool = False) -> Mapping[Notation, chess.PieceType]:
    """The piece a promotion letter (or ICCF digit) names, per notation.

    >>> promotion_meanings("Д") == {Notation.BG_CYRILLIC: chess.QUEEN}
    True
    >>> promotion_meanings("1", numeric=True)[Notation.ICCF_NUMERIC] == chess.QUEEN
    True
    """
    if numeric:
        if letter in _ICCF_PROMOTIONS:
            return dict.fromkeys(Notation, _ICCF_PROMOTIONS[letter])
        return {}
    if letter in _UCI_PROMOTIONS:
        return {Notation.EN: _UCI_PROMOTIONS[letter]}
    return {
        notation: piece_type
        for notation, piece_type in letter_meanings(letter).items()
        if piece_type in (_Q, _R, _B, _N)
    }


def letter_for(piece_type: chess.PieceType, notation: Notation) -> str:
    """The letter ``notation`` writes for a piece (empty for a pawn).

    Figurine and numeric games are given the English letter (see :func:`reading_notation`).

    >>> letter_for(chess.KING, Notation.RU), letter_for(chess.PAWN, Notation.DE)
    ('Кр', '')
    """
    if piece_type == _P:
        return ""
    return _WRITTEN_LETTERS[reading_notation(notation)][piece_type]


def reading_notation(notation: Notation) -> Notation:
    """The notation whose letters a game in ``notation`` reads as its own.

    Figurine and numeric games have no letters of their own; players type English ones.

    >>> reading_notation(Notation.FIGURINE)
    <Notation.EN: 'en'>
    """
    if notation in (Notation.FIGURINE, Notation.ICCF_NUMERIC):
        return Notation.EN
    return notation


# --- Writing --------------------------------------------------------------------------------

_CAPTURE_SIGNS = {
    Notation.EN: "x",
    Notation.BG_CYRILLIC: ":",
    Notation.BG_LATIN: ":",
    Notation.RU: ":",
    Notation.DE: "x",
    Notation.FIGURINE: "x",
}


def _piece_text(piece: chess.Piece, notation: Notation) -> str:
    if notation is Notation.FIGURINE:
        return piece.unicode_symbol()
    return _WRITTEN_LETTERS[notation][piece.piece_type]


def example_move(board: chess.Board) -> chess.Move | None:
    """The move a mail gives as an example of how to write one: the first legal move in
    the order of its UCI text, or None when there is none.

    >>> example_move(chess.Board())
    Move.from_uci('a2a3')
    >>> example_move(chess.Board("8/1P4k1/8/8/8/8/6K1/8 w - - 0 1"))
    Move.from_uci('b7b8b')
    """
    own = board.occupied_co[board.turn]
    for square in _UCI_SQUARES:  # the pieces in that order: the first that can move
        if own & chess.BB_SQUARES[square]:
            moves = list(board.generate_legal_moves(from_mask=chess.BB_SQUARES[square]))
            if moves:
                return min(moves, key=_uci_order)
    return None


#: A square's place in the order of UCI texts: file first, then rank.
_SQUARE_ORDER = tuple(chess.square_file(s) * 8 + chess.square_rank(s) for s in chess.SQUARES)
#: The squares in that order: a1, a2 ... a8, b1 ...
_UCI_SQUARES = tuple(sorted(chess.SQUARES, key=_SQUARE_ORDER.__getitem__))


def _uci_order(move: chess.Move) -> int:
    """Sorts moves as their UCI texts sort (``b`` < ``n`` < ``q`` < ``r`` for a promotion),
    without writing them: a mail's example is chosen for every move mail."""
    promotion = "bnqr".find(chess.piece_symbol(move.promotion)) if move.promotion else -1
    return (_SQUARE_ORDER[move.from_square] * 64 + _SQUARE_ORDER[move.to_square]) * 8 + promotion


def write_move(board: chess.Board, move: chess.Move, notation: Notation) -> str:
    """Write ``move``, legal in ``board`` (the position before it), in full notation.

    >>> board = chess.Board("4k3/P7/8/8/8/8/8/4K2R w K - 0 1")
    >>> write_move(board, chess.Move.from_uci("a7a8q"), Notation.BG_CYRILLIC)
    'a7-a8Д+'
    >>> write_move(board, chess.Move.from_uci("a7a8q"), Notation.ICCF_NUMERIC)
    '17181'
    >>> write_move(board, chess.Move.from_uci("e1g1"), Notation.RU)
    '0-0'
    >>> write_move(board, chess.Move.from_uci("h1h8"), Notation.DE)
    'Th1-h8+'

    Raises :class:`chess.IllegalMoveError` for a move that is not legal in ``board``.

    The text depends only on the position (where the pieces stand, whose move it is,
    the castling rights and the en passant square) and the move: a move mail writes its
    move in the line, in what was played and in what the desk read, so each text is
    written once and kept (the last :data:`KEPT_MOVES`).
    """
    position = (board.turn, board.castling_rights, board.ep_square, board.chess960)
    return _written((placement(board), *position), board, move, notation)


#: Texts of moves :func:`write_move` keeps: a backlog's batch writes a few hundred.
KEPT_MOVES = 1024


def _written(
    position: tuple[Placement | int | bool | None, ...],
    board: chess.Board,
    move: chess.Move,
    notation: Notation,
) -> str:
    key = (position, move, notation)
    text = _WRITTEN.get(key)
    if text is None:
        text = _write(board, move, notation)
        with _KEEPING:  # the daemon's threads write moves too: one changes the texts at a time
            _WRITTEN[key] = text
            while len(_WRITTEN) > KEPT_MOVES:
                del _WRITTEN[next(iter(_WRITTEN))]
    return text


#: The texts kept by :func:`_written`, the oldest first.
_WRITTEN: dict[tuple[tuple[Placement | int | bool | None, ...], chess.Move, Notation], str] = {}
_KEEPING = threading.Lock()


def _write(board: chess.Board, move: chess.Move, notation: Notation) -> str:
    if not board.is_legal(move):
        raise chess.IllegalMoveError(f"illegal move {move.uci()} in {board.fen()}")
    if notation is Notation.ICCF_NUMERIC:
        return _write_numeric(move)
    if board.is_kingside_castling(move):
        text = Castling.KINGSIDE.value
    elif board.is_queenside_castling(move):
        text = Castling.QUEENSIDE.value
    else:
        piece = board.piece_at(move.from_square)
        assert piece is not None
        letter = "" if piece.piece_type == _P else _piece_text(piece, notation)
        sign = _CAPTURE_SIGNS[notation] if board.is_capture(move) else "-"
        text = letter + chess.square_name(move.from_square) + sign
        text += chess.square_name(move.to_square)
        if move.promotion:
            text += _piece_text(chess.Piece(move.promotion, board.turn), notation)
    if board.gives_check(move):
        after = board.copy(stack=False)
        after.push(move)
        text += "#" if after.is_checkmate() else "+"
    return text


def _write_numeric(move: chess.Move) -> str:
    def square(sq: chess.Square) -> str:
        return f"{chess.square_file(sq) + 1}{chess.square_rank(sq) + 1}"

    text = square(move.from_square) + square(move.to_square)
    if move.promotion:
        text += _ICCF_DIGITS[move.promotion]
    return text


def write_line(board: chess.Board, moves: Iterable[chess.Move], notation: Notation) -> str:
    """Write consecutive ``moves``, played from ``board``, with their move numbers.

    >>> board = chess.Board("r1bqkbnr/pppppppp/2n5/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 1 15")
    >>> write_line(board, [chess.Move.from_uci("g8f6"), chess.Move.from_uci("e2e4")], Notation.RU)
    '15... Кg8-f6 16. e2-e4'
    >>> write_line(board, [], Notation.EN)
    ''
    """
    position = board.copy(stack=False)
    parts: list[str] = []
    for index, move in enumerate(moves):
        if position.turn == chess.WHITE:
            parts.append(f"{position.fullmove_number}.")
        elif index == 0:
            parts.append(f"{position.fullmove_number}...")
        parts.append(write_move(position, move, notation))
        position.push(move)
    return " ".join(parts)


def write_last_moves(board: chess.Board, notation: Notation, plies: int = 2) -> str:
    """Write the last ``plies`` half-moves of the game, as the move line of art. 8 does.

    With the default, this is the opponent's last move and the new move
    (``15. Те1-e2 Кg8-f6``); after White's first move it is that move alone.

    >>> board = chess.Board()
    >>> board.push_uci("g1f3")
    Move.from_uci('g1f3')
    >>> write_last_moves(board, Notation.BG_LATIN)
    '1. Kg1-f3'
    """
    count = min(plies, len(board.move_stack))
    start = board.copy()
    for _ in range(count):
        start.pop()
    return write_line(start, board.move_stack[len(board.move_stack) - count :], notation)


# --- Reading --------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Reading:
    """One move as written in a message: syntax only, not yet judged against a position.

    Squares are python-chess square numbers; ``from_file``/``from_rank`` (0-7) are the
    disambiguation of incomplete notation (``Nbd2``, ``R1e2``, ``exd5``).
    """

    #: The move as written, without its move number.
    move_text: str
    #: Offsets of ``move_text`` in the text that was read.
    span: tuple[int, int]
    #: The piece letter or figurine as written (``"Кр"``, ``"N"``, ``"♘"``), if any.
    piece_letter: str | None = None
    from_square: chess.Square | None = None
    to_square: chess.Square | None = None
    from_file: int | None = None
    from_rank: int | None = None
    #: The promotion piece as written (a letter, a figurine, or an ICCF digit 1-4).
    promotion_letter: str | None = None
    castling: Castling | None = None
    #: ICCF numeric notation.
    numeric: bool = False
    #: Full notation: both squares (or castling) given.
    full: bool = False
    capture: bool = False
    en_passant: bool = False
    #: The move number written before the move, if any.
    number: int | None = None
    #: The number was written as Black's (``15...``).
    black_marker: bool = False
    #: For two squares separated only by spaces (``e4 e5``): the same text read
    #: as two moves in incomplete notation.
    alternative: tuple[Reading, Reading] | None = None

    @property
    def incomplete(self) -> bool:
        """Incomplete notation (art. 7 note 2): only the to-square is given.

        >>> read_moves("Nf3")[0].incomplete, read_moves("Ng1-f3")[0].incomplete
        (True, False)
        """
        return not self.full


_H = r"[^\S\r\n]"  # a space within one line
_DASHES = "\\-\u2010\u2011\u2012\u2013\u2014\u2015\u2212"
_CAPTURES = ":x\u0445\u00d7"  # colon, Latin x, Cyrillic ha, multiplication sign
_FILES_UPPER = "A-H\u0410\u0412\u0421\u0415\u041d"  # and Cyrillic А В С Е Н
_FILES_SAN = "a-h\u0430\u0435\u0441"
_FILE_OF = {
    "а": "a",
    "е": "e",
    "с": "c",
    "А": "a",
    "В": "b",
    "С": "c",
    "Е": "e",
    "Н": "h",
}
_FIGURINE_CLASS = "".join(_FIGURINES)
_PIECE = rf"(?:[KК][рpР]|[KQRBNZDTOSLPCКТОСЦДФЛ{_FIGURINE_CLASS}])"
# Phones write the piece letter in lower case (``кg1-f3``): read in full notation only,
# where the from-square follows at once (a Latin lower-case letter is a file, never a piece).
_PIECE_LOWER = "(?:кр|[ктоцдфлс](?![а-яё]))"
_PROMO_LETTERS = "QRBNDTOSLKCДТОКФЛС\u2655\u2656\u2657\u2658\u265b\u265c\u265d\u265e"


def _promotion(name: str) -> str:
    return rf"(?:(?:{_H}?[=/]{_H}?|\()?(?P<{name}>[{_PROMO_LETTERS}]|[qrbn](?![a-z]))\)?)?"


def _full(name: str, files: str) -> str:
    return (
        rf"(?P<{name}_piece>{_PIECE}|{_PIECE_LOWER})?(?P<{name}_from>[{files}][1-8])"
        rf"(?P<{name}_sep>{_H}*[{_DASHES}{_CAPTURES}]{_H}*|{_H}+|)"
        rf"(?P<{name}_to>[{files}][1-8]){_promotion(name + '_promo')}"
    )


_MOVE_PATTERN = re.compile(
    rf"""
    (?<![\w@/\\{_DASHES}])(?<!\w\.)
    (?:(?P<num>\d{{1,3}}){_H}?(?P<dots>…|\.{{1,3}})(?:{_H}?(?P<dots2>…|\.{{2,3}}))?{_H}*)?
    (?P<move>
        (?P<castle>[0OoОо](?:{_H}?[{_DASHES}]{_H}?[0OoОо]){{1,2}})
      | (?P<iccf>[1-8]{{4}}[1-4]?)(?!\d)
      | {_full("f", _FILES_SAN)}
      | {_full("u", _FILES_UPPER)}
      | (?P<s_piece>{_PIECE})?(?P<s_file>[{_FILES_SAN}])?(?P<s_rank>[1-8])?
        (?P<s_cap>[{_CAPTURES}])?(?P<s_to>[{_FILES_SAN}][1-8]){_promotion("s_promo")}
    )
    (?P<ep>{_H}?(?:e\.{_H}?p\.?|ep|в\.{_H}?п\.?|en{_H}passant))?
    (?P<signs>[+#!?‼⁇⁈⁉]*)
    (?![\w@/])(?![{_DASHES}]\w)(?![.,:/]\d)
    """,
    re.VERBOSE,
)


def _square(text: str) -> chess.Square:
    file = _FILE_OF.get(text[0], text[0].lower())
    return chess.parse_square(file + text[1])


def _file(char: str) -> int:
    return "abcdefgh".index(_FILE_OF.get(char, char))


def read_moves(text: str) -> tuple[Reading, ...]:
    """Every move-like token in ``text``, in order.

    >>> [r.move_text for r in read_moves("I play Nf3. Nice weather; made4 is a typo. 0-0!")]
    ['Nf3', '0-0!']
    >>> read_moves("О-О")[0].castling, read_moves("Оf1-c4")[0].piece_letter
    (<Castling.KINGSIDE: '0-0'>, 'О')
    >>> [r.move_text for r in read_moves("реми, 2026, 1988, 3 дни")]
    []

    A message's text is read more than once on its way (the referee, the reply
    cap, the reading of its words): the readings of the last texts of a usual
    length are kept.
    """
    if len(text) <= KEPT_TEXT:
        return _kept_moves(text)
    return _read_moves(text)


#: Texts up to this length are read once while they are among the last ones read.
KEPT_TEXT = 10_000


@functools.lru_cache(maxsize=64)
def _kept_moves(text: str) -> tuple[Reading, ...]:
    return _read_moves(text)


def _read_moves(text: str) -> tuple[Reading, ...]:
    readings: list[Reading] = []
    for match in _MOVE_PATTERN.finditer(text):
        readings.append(_reading(match))
    return tuple(readings)


def _reading(match: re.Match[str]) -> Reading:
    start, end = match.start("move"), match.end()
    move_text = match.string[start:end]
    number = int(match["num"]) if match["num"] else None
    dots = (match["dots"] or "") + (match["dots2"] or "")
    black_marker = number is not None and (len(dots) > 1 or "…" in dots)
    if match["castle"]:
        zeros = sum(1 for char in match["castle"] if char in "0OoОо")
        return Reading(
            move_text,
            (start, end),
            castling=Castling.KINGSIDE if zeros == 2 else Castling.QUEENSIDE,
            full=True,
            number=number,
            black_marker=black_marker,
        )
    if match["iccf"]:
        return _numeric_reading(match, move_text, number, black_marker)
    if match["f_from"] or match["u_from"]:
        return _full_reading(match, move_text, number, black_marker)
    return Reading(
        move_text,
        (start, end),
        piece_letter=match["s_piece"],
        to_square=_square(match["s_to"]),
        from_file=_file(match["s_file"]) if match["s_file"] else None,
        from_rank=int(match["s_rank"]) - 1 if match["s_rank"] else None,
        promotion_letter=match["s_promo"],
        capture=match["s_cap"] is not None,
        en_passant=match["ep"] is not None,
        number=number,
        black_marker=black_marker,
    )


def _numeric_reading(
    match: re.Match[str], move_text: str, number: int | None, black_marker: bool
) -> Reading:
    """An ICCF numeric move (``5254``, ``52545`` with a promotion digit)."""
    digits = match["iccf"]
    return Reading(
        move_text,
        (match.start("move"), match.end()),
        from_square=chess.square(int(digits[0]) - 1, int(digits[1]) - 1),
        to_square=chess.square(int(digits[2]) - 1, int(digits[3]) - 1),
        promotion_letter=digits[4] if len(digits) == 5 else None,
        numeric=True,
        full=True,
        number=number,
        black_marker=black_marker,
    )


def _full_reading(
    match: re.Match[str], move_text: str, number: int | None, black_marker: bool
) -> Reading:
    """A move in full notation (both squares), files in lower case (``f``) or capitals (``u``)."""
    name = "f" if match["f_from"] else "u"
    separator = match[f"{name}_sep"]
    piece = match[f"{name}_piece"]
    reading = Reading(
        move_text,
        (match.start("move"), match.end()),
        piece_letter=piece.upper() if piece and piece.islower() else piece,
        from_square=_square(match[f"{name}_from"]),
        to_square=_square(match[f"{name}_to"]),
        promotion_letter=match[f"{name}_promo"],
        full=True,
        capture=any(char in _CAPTURES for char in separator),
        en_passant=match["ep"] is not None,
        number=number,
        black_marker=black_marker,
    )
    if name == "f" and separator and not separator.strip():
        return dataclasses.replace(reading, alternative=_split(match, reading))
    return reading


def _split(match: re.Match[str], joined: Reading) -> tuple[Reading, Reading]:
    """``Ng1 f3`` read as two incomplete moves ``Ng1`` and ``f3``, when both can be."""
    text = match.string
    first_start = match.start("f_piece") if match["f_piece"] else match.start("f_from")
    first_end = match.end("f_from")
    second_start = match.start("f_to")
    second_end = joined.span[1]
    first = Reading(
        text[first_start:first_end],
        (first_start, first_end),
        piece_letter=joined.piece_letter,
        to_square=joined.from_square,
        number=joined.number,
        black_marker=joined.black_marker,
    )
    second = Reading(
        text[second_start:second_end],
        (second_start, second_end),
        to_square=joined.to_square,
        promotion_letter=joined.promotion_letter,
        en_passant=joined.en_passant,
    )
    return first, second
