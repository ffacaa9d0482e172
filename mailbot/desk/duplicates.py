"""What counts as a duplicate: a message the desk has recorded before.

A message already handled is recognised by the hash of its bytes or its
fingerprint (the same Message-ID from the same sender with the same text),
and is not applied again. A reused Message-ID alone proves nothing, and
neither does a reused place in the mailbox (folder, UIDVALIDITY, UID): that
message is new. The text hash (the same text from the same sender) finds a
mail loop's echo and old mail sent again; it makes no duplicate.
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Sequence

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from mailbot.mail.inbox import Fetched
from mailbot.mail.letters import Letter
from mailbot.store.engine import held_back
from mailbot.store.models import InboundMessage
from mailbot.store.received import record_inbound


def fingerprint(letter: Letter) -> str | None:
    """What makes two deliveries the same message: Message-ID, sender and text.

    None for a message without a Message-ID (then only its bytes identify it).
    """
    if not letter.message_id:
        return None
    parts = (letter.message_id, letter.from_addr, letter.subject, letter.full_text)
    return hashlib.sha256("\x00".join(parts).encode("utf-8", "replace")).hexdigest()


def text_hash(letter: Letter) -> str | None:
    """What makes two messages the same text from the same sender (a mail loop's echo)."""
    if not letter.from_addr:
        return None
    parts = (letter.from_addr, letter.body.strip())
    return hashlib.sha256("\x00".join(parts).encode("utf-8", "replace")).hexdigest()


def recorded(session: Session, messages: Sequence[tuple[str, str | None]]) -> list[InboundMessage]:
    """The inbound rows recording any of ``messages`` (the hash of its bytes, or its
    fingerprint), oldest first, in one query."""
    shas = sorted({sha for sha, _mark in messages})
    marks = sorted({mark for _sha, mark in messages if mark is not None})
    clauses = [InboundMessage.raw_sha256.in_(shas)]
    if marks:
        clauses.append(InboundMessage.fingerprint.in_(marks))
    query = select(InboundMessage).where(or_(*clauses)).order_by(InboundMessage.id)
    return list(session.scalars(query).all())


def first_of(rows: Sequence[InboundMessage], sha: str, mark: str | None) -> InboundMessage | None:
    """The row among ``rows`` that records the message: the same bytes, or the same
    Message-ID from the same sender with the same text.

    Its place in the mailbox (folder, UIDVALIDITY, UID) decides nothing: a
    mailbox made anew may hand out the same numbers again to new messages.

    >>> row = InboundMessage(raw_sha256="a", fingerprint="f")
    >>> first_of([row], "b", "f") is row, first_of([row], "b", None)
    (True, None)
    """
    return next((r for r in rows if r.raw_sha256 == sha or (mark and r.fingerprint == mark)), None)


def find(session: Session, sha: str, mark: str | None) -> InboundMessage | None:
    """The row recording the message (its bytes' hash ``sha``, its fingerprint ``mark``)."""
    # One query. What the session holds back (the previous message's answers) goes to the
    # database with this message's row.
    with held_back(session, InboundMessage):
        found = recorded(session, [(sha, mark)])
    return first_of(found, sha, mark)


def record(
    session: Session,
    letter: Letter | None,
    sha: str,
    mark: str | None,
    fetched: Fetched,
    now: datetime.datetime,
    *,
    flush: bool = True,
) -> InboundMessage:
    """The inbound row; without ``letter`` only what the mailbox says (poison's last resort).

    Written at once (for its id), unless ``flush`` is false."""
    return record_inbound(
        session,
        now,
        flush=flush,
        message_id=letter.message_id if letter else None,
        raw_sha256=sha,
        fingerprint=mark if letter else None,
        text_sha256=text_hash(letter) if letter else None,
        folder=fetched.folder,
        uidvalidity=fetched.uidvalidity,
        uid=fetched.uid,
        internaldate=fetched.internaldate,
        from_addr=(letter.from_addr or None) if letter else None,
        subject=letter.subject if letter else None,
        raw=fetched.raw,
    )


class _Known:
    """Inbound rows in order, found by their bytes' hash and their fingerprint: what
    :func:`first_of` finds in a list, without reading the list again for each message.

    >>> one, two = InboundMessage(raw_sha256="a", fingerprint="f"), InboundMessage(raw_sha256="b")
    >>> known = _Known([one])
    >>> known.add(two)
    >>> known.first("b", "f") is one, known.first("b", None) is two, known.first("c", None)
    (True, True, None)
    """

    def __init__(self, rows: Sequence[InboundMessage]) -> None:
        self._rows: list[InboundMessage] = []
        self._by_sha: dict[str, int] = {}
        self._by_mark: dict[str, int] = {}
        for row in rows:
            self.add(row)

    def add(self, row: InboundMessage) -> None:
        place = len(self._rows)
        self._rows.append(row)
        self._by_sha.setdefault(row.raw_sha256, place)
        if row.fingerprint:
            self._by_mark.setdefault(row.fingerprint, place)

    def first(self, sha: str, mark: str | None) -> InboundMessage | None:
        """The first row with the bytes' hash ``sha`` or the fingerprint ``mark``."""
        places = [self._by_sha.get(sha), self._by_mark.get(mark) if mark else None]
        found = [p for p in places if p is not None]
        return self._rows[min(found)] if found else None


def record_all(
    session: Session,
    batch: Sequence[Fetched],
    read: Sequence[tuple[Letter, str, str | None]],
    now: datetime.datetime,
) -> tuple[list[InboundMessage], set[int]]:
    """Each message's inbound row: the one recorded before, else a new one; and the
    ids of the new ones.

    The rows are what :func:`find` and :func:`record` would give one
    message after another: a message the same as an earlier one of the
    batch (bytes or fingerprint) finds that one's row, which by its turn
    has been handled.
    """
    known = _Known(recorded(session, [(sha, mark) for _letter, sha, mark in read]))
    rows: list[InboundMessage] = []
    made: list[InboundMessage] = []
    for fetched, (letter, sha, mark) in zip(batch, read, strict=True):
        row = known.first(sha, mark)
        if row is None:
            row = record(session, letter, sha, mark, fetched, now, flush=False)
            known.add(row)
            made.append(row)
        rows.append(row)
    session.flush()
    return rows, {row.id for row in made}
