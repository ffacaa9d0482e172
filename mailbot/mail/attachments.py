"""Files a message of the bot carries: the game as PGN with every move mail
(docs/contract.md, "Players' chess programs"), written after the text as the
parts of a ``multipart/mixed`` message.

An outbox row keeps its files as :meth:`Attachment.stored` values; :func:`mixed`
writes the message body around the text (and HTML) entity the outbox composes.

>>> pgn = Attachment("BG-2026-E1-3.pgn", PGN_TYPE, '[Event "Т"]\\n')
>>> Attachment.from_stored(pgn.stored()) == pgn
True
>>> print(attachment_part(pgn).replace("\\r\\n", "\\n"), end="")
Content-Type: application/vnd.chess-pgn; name="BG-2026-E1-3.pgn"
Content-Disposition: attachment; filename="BG-2026-E1-3.pgn"
Content-Transfer-Encoding: base64
<BLANKLINE>
W0V2ZW50ICLQoiJdCg==
"""

from __future__ import annotations

import base64
import dataclasses
import re
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["PGN_TYPE", "PGN_TYPES", "Attachment", "attachment_part", "file_name", "mixed"]

#: The media type of the PGN a move mail carries.
PGN_TYPE = "application/vnd.chess-pgn"
#: The media types a PGN arrives in (besides a ``.pgn`` file name).
PGN_TYPES = frozenset({PGN_TYPE, "application/x-chess-pgn"})

_LINESEP = "\r\n"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MIME_VERSION = f"MIME-Version: 1.0{_LINESEP}"


@dataclasses.dataclass(frozen=True)
class Attachment:
    """One file of a message: its name, media type and text (sent as UTF-8)."""

    filename: str
    media_type: str
    text: str

    def stored(self) -> dict[str, str]:
        """The file as an outbox row keeps it (JSON)."""
        return {"filename": self.filename, "type": self.media_type, "text": self.text}

    @classmethod
    def from_stored(cls, value: Mapping[str, Any]) -> Attachment:
        """The file an outbox row kept."""
        return cls(str(value["filename"]), str(value["type"]), str(value["text"]))


def file_name(stem: str, suffix: str) -> str:
    """A file name every mail program and file system takes: ASCII letters, digits,
    dots, dashes and underscores.

    >>> file_name("BG-2026-E1/3", ".pgn"), file_name("Турнир 1/2", ".pgn")
    ('BG-2026-E1-3.pgn', 'game-1-2.pgn')
    """
    name = _UNSAFE.sub("-", stem.replace("/", "-")).strip("-.")
    if not re.search(r"[A-Za-z]", name):
        name = f"game-{name}" if name else "game"
    return name + suffix


def attachment_part(attachment: Attachment) -> str:
    """The MIME headers and body of one file: UTF-8 in base64, lines of 76 characters."""
    name = _UNSAFE.sub("-", attachment.filename)
    data = base64.encodebytes(attachment.text.encode("utf-8")).decode("ascii")
    nl = _LINESEP
    return (
        f'Content-Type: {attachment.media_type}; name="{name}"{nl}'
        f'Content-Disposition: attachment; filename="{name}"{nl}'
        f"Content-Transfer-Encoding: base64{nl}{nl}" + data.replace("\n", nl)
    )


def mixed(entity: str, attachments: Sequence[Mapping[str, Any]]) -> str:
    """The body of a message with files: ``entity`` (the text, or the text and its HTML
    alternative, with its own MIME headers) first, then each stored file.

    >>> body = mixed("MIME-Version: 1.0\\r\\nContent-Type: text/plain\\r\\n\\r\\nhi\\r\\n",
    ...              [Attachment("X-1.pgn", PGN_TYPE, "*").stored()])
    >>> import email
    >>> message = email.message_from_string("Subject: x\\r\\n" + body)
    >>> [p.get_content_type() for p in message.walk()]
    ['multipart/mixed', 'text/plain', 'application/vnd.chess-pgn']
    >>> message.get_payload()[1].get_payload(decode=True)
    b'*'
    """
    # "=_" never occurs in quoted-printable or base64 text; the line break before each
    # delimiter belongs to the delimiter (RFC 2046 5.1.1)
    boundary = f"=_{uuid.uuid4().hex[:24]}"
    nl = _LINESEP
    parts = [entity.removeprefix(_MIME_VERSION)]
    parts += [attachment_part(Attachment.from_stored(a)) for a in attachments]
    inner = "".join(f"{nl}--{boundary}{nl}{part}" for part in parts)
    return (
        f'{_MIME_VERSION}Content-Type: multipart/mixed; boundary="{boundary}"{nl}'
        f"{inner}{nl}--{boundary}--{nl}"
    )
