"""Files the bot replaces whole: written beside their place, then renamed over it.

A reader (another process, a crash) sees the old file or the new one, never half
of one. Nothing a stranger planted is followed: the folder is opened without
following a symbolic link, the temporary file is made new (``O_EXCL``,
``O_NOFOLLOW``) under an unpredictable name inside it, and a target or folder
that is a symbolic link is refused with :class:`LinkRefusedError`. What holds
secrets or players' mail (the OAuth2 token file, a backup) is the owner's alone
(mode 0600); pages and dispute files are readable by all (0644).

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> with replaced_privately(folder / "tokens.json") as out:
...     _ = out.write(b"{}")
>>> (folder / "tokens.json").read_bytes(), oct((folder / "tokens.json").stat().st_mode & 0o777)
(b'{}', '0o600')
>>> (folder / "link").symlink_to(folder / "tokens.json")
>>> try:
...     write_file(folder / "link", b"x")
... except LinkRefusedError as refused:
...     print(refused.strerror)
is a symbolic link; the bot writes through none
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from mailbot.rules.errors import MailbotError

__all__ = ["LinkRefusedError", "replaced", "replaced_privately", "write_file"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


class LinkRefusedError(MailbotError, OSError):
    """The file or folder to write is a symbolic link: the bot writes through none.

    An :class:`OSError` (``ELOOP``) whose ``strerror`` says so in one line, so a
    command that reports a folder it cannot write to reports this too.
    """

    def __init__(self, path: Path) -> None:
        super().__init__(errno.ELOOP, "is a symbolic link; the bot writes through none", str(path))


def _refuse_link(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISLNK(os.lstat(path).st_mode):
            raise LinkRefusedError(path)


@contextlib.contextmanager
def replaced(path: Path, *, mode: int = 0o644) -> Iterator[BinaryIO]:
    """Write ``path`` anew: a new temporary file in its folder, synced to disk and
    renamed over it when the ``with`` block ends; removed if the block fails.

    The folder is created if missing. Raises :class:`LinkRefusedError` when the
    folder or ``path`` is a symbolic link.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    _refuse_link(path.parent)
    try:
        folder = os.open(path.parent, os.O_RDONLY | _DIRECTORY | _NOFOLLOW)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise LinkRefusedError(path.parent) from None
        raise
    try:
        _refuse_link(path)
        temporary = f".{path.name[:200]}.{secrets.token_hex(8)}.part"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_BINARY", 0)
        descriptor = os.open(temporary, flags, mode, dir_fd=folder)
        try:
            os.fchmod(descriptor, mode)
            with os.fdopen(descriptor, "wb") as out:
                yield out
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, path.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=folder)
            raise
        with contextlib.suppress(OSError):  # the rename itself, on disk
            os.fsync(folder)
    finally:
        os.close(folder)


def replaced_privately(path: Path) -> contextlib.AbstractContextManager[BinaryIO]:
    """:func:`replaced` for a file only its owner may read (mode 0600)."""
    return replaced(path, mode=0o600)


def write_file(path: Path, data: bytes) -> Path:
    """Replace ``path`` with ``data`` (mode 0644), as :func:`replaced` does; returns ``path``."""
    with replaced(path) as out:
        out.write(data)
    return path
