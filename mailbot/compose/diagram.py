"""Board diagrams for mail: plain text and an HTML table that mail clients show.

SVG is not shown by most mail clients, so the HTML diagram is a table of
Unicode figurines, styled with inline styles and the table attributes mail
clients keep.

>>> import chess
>>> print(text_diagram(chess.Board()).splitlines()[0])
8 ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜
"""

from __future__ import annotations

import html

import chess

_LIGHT = "#f0d9b5"
_DARK = "#b58863"


def _squares(orientation: chess.Color) -> tuple[list[int], list[int]]:
    ranks = list(range(7, -1, -1)) if orientation == chess.WHITE else list(range(8))
    files = list(range(8)) if orientation == chess.WHITE else list(range(7, -1, -1))
    return ranks, files


def text_diagram(board: chess.Board, orientation: chess.Color = chess.WHITE) -> str:
    """The position as eight lines of figurines, empty squares as dots.

    >>> import chess
    >>> print(text_diagram(chess.Board(), chess.BLACK).splitlines()[-1])
      h g f e d c b a
    """
    ranks, files = _squares(orientation)
    lines = []
    for rank in ranks:
        cells = []
        for file in files:
            piece = board.piece_at(chess.square(file, rank))
            cells.append(piece.unicode_symbol() if piece else "·")
        lines.append(f"{rank + 1} " + " ".join(cells))
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
    ranks, files = _squares(orientation)
    marked = {lastmove.from_square, lastmove.to_square} if lastmove else set()
    rows = []
    # what a square shares comes from the table (inherited) and from plain
    # attributes every mail client keeps (width, height, bgcolor): a diagram
    # of about 4 KB rather than 9 KB of inline styles repeated 64 times
    label = '<td style="font-size:11px;line-height:16px;color:#555;padding:0 4px">'
    for rank in ranks:
        tds = [f"{label}{rank + 1}</td>"]
        for file in files:
            square = chess.square(file, rank)
            colour = _LIGHT if (file + rank) % 2 else _DARK
            mark = ' style="outline:2px solid #e6a800"' if square in marked else ""
            piece = board.piece_at(square)
            symbol = html.escape(piece.unicode_symbol()) if piece else "&nbsp;"
            tds.append(f'<td width="32" bgcolor="{colour}"{mark}>{symbol}</td>')
        rows.append('<tr height="32">' + "".join(tds) + "</tr>")
    footer = "".join(f"{label}{chess.FILE_NAMES[f]}</td>" for f in files)
    rows.append(f"<tr><td></td>{footer}</tr>")
    return (
        '<table style="border-collapse:collapse;font-family:serif;font-size:26px;'
        'line-height:32px;text-align:center" cellspacing="0" cellpadding="0">'
        + "".join(rows)
        + "</table>"
    )
