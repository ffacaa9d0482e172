"""Board diagrams for mail: plain text and an HTML table that mail clients show.

SVG is not shown by most mail clients, so the HTML diagram is a table of
Unicode figurines, styled with inline styles and the table attributes mail
clients keep.

A diagram depends only on where the pieces stand, the side the reader sees
the board from and (in HTML) the last move's squares. Each is drawn once and
kept (the last :data:`KEPT` of each kind) for the next mail that shows the
same position the same way; what is kept is a string, so keeping it cannot
change what a reader sees.

>>> import chess
>>> print(text_diagram(chess.Board()).splitlines()[0])
8 ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜
"""

from __future__ import annotations

import functools

import chess

from mailbot.rules.placement import Placement, placement

_LIGHT = "#f0d9b5"
_DARK = "#b58863"

#: Diagrams of each kind (text, HTML) kept once drawn, and positions once read: a
#: backlog's positions of a batch or two, a few MB at most.
KEPT = 512

_LABEL = '<td style="font-size:11px;line-height:16px;color:#555;padding:0 4px">'
_TABLE = (
    '<table style="border-collapse:collapse;font-family:serif;font-size:26px;'
    'line-height:32px;text-align:center" cellspacing="0" cellpadding="0">'
)
#: A piece's type and colour -> its figurine.
_FIGURINE = {
    (kind, colour): chess.Piece(kind, colour).unicode_symbol()
    for kind in chess.PIECE_TYPES
    for colour in chess.COLORS
}


#: Each square's cell as far as its mark: its size and colour.
_CELL = [
    f'<td width="32" bgcolor="{_LIGHT if (file + rank) % 2 else _DARK}"'
    for rank in range(8)
    for file in range(8)
]
_MARK = ' style="outline:2px solid #e6a800"'


def _squares(orientation: chess.Color) -> tuple[list[int], list[int]]:
    ranks = list(range(7, -1, -1)) if orientation == chess.WHITE else list(range(8))
    files = list(range(8)) if orientation == chess.WHITE else list(range(7, -1, -1))
    return ranks, files


@functools.lru_cache(maxsize=KEPT)
def _figurines(placement: Placement) -> tuple[str | None, ...]:
    """The figurine on each square (by ``chess.SQUARES``) of a placement: read once
    for a position's text and HTML diagrams, from either side."""
    cells: list[str | None] = [None] * 64
    white = placement[6]
    for kind, mask in zip(chess.PIECE_TYPES, placement[:6], strict=True):
        for square in chess.scan_forward(mask):
            cells[square] = _FIGURINE[kind, bool(white & chess.BB_SQUARES[square])]
    return tuple(cells)


def text_diagram(board: chess.BaseBoard, orientation: chess.Color = chess.WHITE) -> str:
    """The position as eight lines of figurines, empty squares as dots.

    >>> import chess
    >>> print(text_diagram(chess.Board(), chess.BLACK).splitlines()[-1])
      h g f e d c b a
    """
    return _text(placement(board), orientation)


@functools.lru_cache(maxsize=KEPT)
def _text(placement: Placement, orientation: chess.Color) -> str:
    cells = _figurines(placement)
    ranks, files = _squares(orientation)
    lines = [
        f"{rank + 1} " + " ".join(cells[chess.square(file, rank)] or "·" for file in files)
        for rank in ranks
    ]
    lines.append("  " + " ".join(chess.FILE_NAMES[f] for f in files))
    return "\n".join(lines)


def html_diagram(
    board: chess.Board,
    orientation: chess.Color = chess.WHITE,
    lastmove: chess.Move | None = None,
) -> str:
    """The position as an HTML table with inline styles.

    >>> import chess
    >>> "♔" in html_diagram(chess.Board())
    True
    """
    marked = (lastmove.from_square, lastmove.to_square) if lastmove else ()
    return _html(placement(board), orientation, marked)


@functools.lru_cache(maxsize=KEPT)
def _html(placement: Placement, orientation: chess.Color, marked: tuple[int, ...]) -> str:
    cells = _figurines(placement)
    ranks, files = _squares(orientation)
    rows = []
    # what a square shares comes from the table (inherited) and from plain
    # attributes every mail client keeps (width, height, bgcolor): a diagram
    # of about 4 KB rather than 9 KB of inline styles repeated 64 times
    for rank in ranks:
        tds = [f"{_LABEL}{rank + 1}</td>"]
        for file in files:
            square = chess.square(file, rank)
            mark = _MARK if square in marked else ""
            # a figurine is no markup: nothing in it to escape
            tds.append(f"{_CELL[square]}{mark}>{cells[square] or '&nbsp;'}</td>")
        rows.append('<tr height="32">' + "".join(tds) + "</tr>")
    footer = "".join(f"{_LABEL}{chess.FILE_NAMES[f]}</td>" for f in files)
    rows.append(f"<tr><td></td>{footer}</tr>")
    return _TABLE + "".join(rows) + "</table>"
