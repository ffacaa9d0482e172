"""Files the bot replaces whole: written beside their place, then renamed over it.

A reader (another process, a crash) sees the old file or the new one, never half
of one; the file is the owner's alone (mode 0600), for what holds secrets or
players' mail (the OAuth2 token file, a backup).

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> with replaced_privately(folder / "tokens.json") as out:
...     _ = out.write(b"{}")
>>> (folder / "tokens.json").read_bytes(), oct((folder / "tokens.json").stat().st_mode & 0o777)
(b'{}', '0o600')
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO


@contextlib.contextmanager
def replaced_privately(path: Path) -> Iterator[BinaryIO]:
    """Write ``path`` anew: a temporary file in its folder (mode 0600), synced to disk
    and renamed over it when the ``with`` block ends; removed if the block fails."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(descriptor, 0o600)
        with os.fdopen(descriptor, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    with contextlib.suppress(OSError):  # the rename itself, on disk
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
