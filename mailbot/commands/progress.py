"""How far a long command has come, drawn on the terminal as pip draws its bar.

Only when the stream is a terminal: a log, a pipe or a file gets nothing. The line
is drawn again at most ten times a second and ends with a newline when the work is
done::

    >>> import io
    >>> quiet = io.StringIO()  # not a terminal
    >>> bar = Bar("games", quiet)
    >>> bar(5_000, 100_128); bar(100_128, 100_128); quiet.getvalue()
    ''
    >>> Bar.line("games", 50_064, 100_128, 4.0)
    'games ━━━━━━━━━━━━━━━━━━━━╺━━━━━━━━━━━━━━━━━━━ 50,064/100,128 0:00:04'
"""

from __future__ import annotations

import datetime
import time
from typing import TextIO

#: Cells of the bar.
WIDTH = 40
#: Seconds between two drawings of the line (the last one is always drawn).
EVERY = 0.1


class Bar:
    """A progress bar for ``what`` on ``stream``, drawn only if it is a terminal; called
    with the work done and the work in all."""

    def __init__(self, what: str, stream: TextIO) -> None:
        self.what = what
        self.stream = stream
        self.shown = stream.isatty()
        self.began = time.monotonic()
        self.drawn = 0.0

    def __call__(self, done: int, total: int) -> None:
        if not self.shown:
            return
        now = time.monotonic()
        finished = done >= total
        if not finished and now - self.drawn < EVERY:
            return
        self.drawn = now
        line = self.line(self.what, done, total, now - self.began)
        self.stream.write("\r" + line + ("\n" if finished else ""))
        self.stream.flush()

    @staticmethod
    def line(what: str, done: int, total: int, seconds: float) -> str:
        """The line drawn: the bar, the work done of the work in all, the time taken."""
        cells = WIDTH * done / total if total else WIDTH
        full = int(cells)
        bar = "━" * full + ("╺" if full < WIDTH else "") + "━" * max(WIDTH - full - 1, 0)
        elapsed = datetime.timedelta(seconds=int(seconds))
        return f"{what} {bar} {done:,}/{total:,} {elapsed}"
