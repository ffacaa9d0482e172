"""The quarantine: messages set aside after repeated failures, listed and put back.

A message whose handling fails :data:`~mailbot.desk.pipeline.MAX_ATTEMPTS` times is
recorded as ``quarantined`` (with its raw bytes, its reason and its last
error), the director is told once, and the message is moved to the quarantine
folder; one that could not be recorded at all lies in that folder alone.
``mailbot quarantine`` lists both: the store's rows by their id, and, as
``imap:UID``, every message of the folder that no quarantined row records
(found by the SHA-256 of its bytes, else by its Message-ID from the same
sender).

Releasing a message puts it back to be handled at the next pass: its row is
``new`` again (no attempt counted, no reason, no error), and the message goes
back into the inbox folder. Its copy in the quarantine folder is moved there
(``UID MOVE`` keeps the INTERNALDATE, the arrival time the clock counts
from); with no copy in the folder, the stored bytes are appended to the inbox
with the stored arrival time. The row is changed in a transaction committed
only once the mailbox has done its part, so a failure leaves both as they
were. The desk finds the row by the message's bytes, claims it and handles
the message once.

The pure part (:func:`owners`, :func:`line`, :func:`parse_target`) decides
which row records a message of the folder and writes the lines; the rest
reads and changes the store and the mailbox.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple
from zoneinfo import ZoneInfo

from sqlalchemy import or_, select
from sqlalchemy.orm import Session, sessionmaker

from mailbot.compose.catalogue import say_kept
from mailbot.mail.inbox import ImapSettings, Mailbox, MailboxError, SetAside
from mailbot.rules.errors import DeskError
from mailbot.store.models import InboundMessage
from mailbot.store.received import release_quarantined

#: The status of a quarantined row.
QUARANTINED = "quarantined"
#: The reason of a message in the folder that no row records.
NOT_RECORDED = "not recorded"
#: How the id of a message of the folder is written: ``imap:UID``.
IMAP_PREFIX = "imap:"


class UnknownMessage(DeskError, LookupError):
    """The ID names no message in quarantine (bad usage: the one line says which)."""


@dataclasses.dataclass(frozen=True)
class Recorded:
    """What identifies a stored message (an inbound row)."""

    id: int
    sha256: str
    message_id: str | None
    from_addr: str | None
    status: str


@dataclasses.dataclass(frozen=True)
class Entry:
    """One message in quarantine, as a line of the listing shows it."""

    #: The row's id, or ``imap:UID`` for a message of the folder alone.
    ident: str
    sender: str | None
    subject: str | None
    #: When it was quarantined (for a message of the folder alone: when it arrived).
    when: datetime.datetime | None
    reason: str


class Target(NamedTuple):
    """What ``release ID`` names: a row of the store, or a UID in the quarantine folder."""

    imap: bool
    number: int


@dataclasses.dataclass(frozen=True)
class Listing:
    """The messages in quarantine: the store's rows first, then the folder's others."""

    entries: list[Entry]
    #: Why the quarantine folder could not be read (then only the store's rows are listed).
    problem: str | None = None


# ---------------------------------------------------------------------------
# The pure part


def parse_target(text: str) -> Target:
    """The message ``release`` names: a store id, or ``imap:UID``.

    >>> parse_target("12"), parse_target("imap:7")
    (Target(imap=False, number=12), Target(imap=True, number=7))
    >>> parse_target("twelve")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mailbot.desk.quarantine.UnknownMessage: 'twelve': not a message id (a number, or imap:UID ...)
    """
    word = text.strip()
    imap = word.lower().startswith(IMAP_PREFIX)
    number = word[len(IMAP_PREFIX) :] if imap else word
    if not number.isascii() or not number.isdigit() or int(number) == 0:
        raise UnknownMessage(
            f"{text!r}: not a message id (a number, or {IMAP_PREFIX}UID as the list shows)"
        )
    return Target(imap, int(number))


def owners(aside: Sequence[SetAside], rows: Iterable[Recorded]) -> dict[int, Recorded]:
    """The row that records each message of the quarantine folder, by UID.

    The same bytes decide first, whatever the row's status; else a
    quarantined row with the same Message-ID from the same sender (a copy
    delivered again with another ``Received:`` line), the earliest. A
    Message-ID alone proves nothing: a message without such a row has none.

    >>> at = datetime.datetime(2026, 3, 5, tzinfo=datetime.UTC)
    >>> aside = [SetAside(1, "a@x.org", "s", "m1@x.org", at, "aa"),
    ...          SetAside(2, "a@x.org", "s", "m1@x.org", at, "bb"),
    ...          SetAside(3, "eve@y.net", "s", "m1@x.org", at, "cc")]
    >>> rows = [Recorded(9, "aa", "m1@x.org", "a@x.org", "quarantined")]
    >>> {uid: row.id for uid, row in owners(aside, rows).items()}
    {1: 9, 2: 9}
    """
    rows = list(rows)
    by_sha = {row.sha256: row for row in sorted(rows, key=lambda r: -r.id)}
    by_id: dict[tuple[str, str], Recorded] = {}
    for row in sorted(rows, key=lambda r: -r.id):
        if row.status == QUARANTINED and row.message_id and row.from_addr:
            by_id[(row.message_id, row.from_addr)] = row
    found: dict[int, Recorded] = {}
    for message in aside:
        owner = by_sha.get(message.sha256)
        if owner is None and message.message_id and message.from_addr:
            owner = by_id.get((message.message_id, message.from_addr))
        if owner is not None:
            found[message.uid] = owner
    return found


def _field(value: str | None, size: int) -> str:
    """One field of a line: no tab or line break in it, at most ``size`` characters."""
    text = re.sub(r"\s+", " ", value or "").strip()
    if not text:
        return "-"
    return text if len(text) <= size else text[: size - 1] + "…"


def line(entry: Entry, timezone: str) -> str:
    """The listing's line of one message: id, sender, subject, when, reason (tab-separated).

    >>> when = datetime.datetime(2026, 3, 5, 10, 0, tzinfo=datetime.UTC)
    >>> entry = Entry("12", "ivanov@example.org", "[BG-2026-E1/1] ход", when, "failed 3 times")
    >>> line(entry, "Europe/Sofia").split("\\t")
    ['12', 'ivanov@example.org', '[BG-2026-E1/1] ход', '2026-03-05 12:00', 'failed 3 times']
    >>> line(Entry("imap:4", None, "a\\nb", None, "not recorded"), "UTC").split("\\t")
    ['imap:4', '-', 'a b', '-', 'not recorded']
    """
    when = (
        entry.when.astimezone(ZoneInfo(timezone)).strftime("%Y-%m-%d %H:%M") if entry.when else ""
    )
    fields = (
        _field(entry.ident, 40),
        _field(entry.sender, 320),
        _field(entry.subject, 120),
        _field(when, 20),
        _field(entry.reason, 500),
    )
    return "\t".join(fields)


def _reason_of(row: InboundMessage) -> str:
    reason = say_kept("en", row.reason_phrase, row.reason)
    return ": ".join(part for part in (reason, row.last_error) if part) or "-"


def _entry_of_row(row: InboundMessage) -> Entry:
    return Entry(str(row.id), row.from_addr, row.subject, row.handled_at, _reason_of(row))


def _entry_of_aside(message: SetAside, owner: Recorded | None) -> Entry:
    reason = NOT_RECORDED if owner is None else f"recorded as message {owner.id} ({owner.status})"
    return Entry(
        f"{IMAP_PREFIX}{message.uid}",
        message.from_addr,
        message.subject,
        message.internaldate,
        reason,
    )


def _loose(
    aside: Sequence[SetAside], owned: dict[int, Recorded]
) -> list[tuple[SetAside, Recorded | None]]:
    """The messages of the folder that no quarantined row accounts for, with their row."""
    return [
        (m, owned.get(m.uid))
        for m in aside
        if m.uid not in owned or owned[m.uid].status != QUARANTINED
    ]


# ---------------------------------------------------------------------------
# The store and the mailbox


def _quarantined_rows(session: Session) -> list[InboundMessage]:
    query = (
        select(InboundMessage)
        .where(InboundMessage.status == QUARANTINED)
        .order_by(InboundMessage.id)
    )
    return list(session.scalars(query).all())


def _recorded(session: Session, aside: Sequence[SetAside]) -> list[Recorded]:
    """The quarantined rows, and every row holding the bytes of a message of ``aside``."""
    columns = (
        InboundMessage.id,
        InboundMessage.raw_sha256,
        InboundMessage.message_id,
        InboundMessage.from_addr,
        InboundMessage.status,
    )
    shas = sorted({m.sha256 for m in aside})
    found: dict[int, Recorded] = {}
    for start in range(0, max(len(shas), 1), 500):
        chunk = shas[start : start + 500]
        query = select(*columns).where(
            or_(InboundMessage.status == QUARANTINED, InboundMessage.raw_sha256.in_(chunk))
        )
        for row in session.execute(query):
            found[row.id] = Recorded(row.id, row.raw_sha256, row.message_id, row.from_addr,
                                     row.status)  # fmt: skip
    return [found[key] for key in sorted(found)]


def listing(sessions: sessionmaker[Session], imap: ImapSettings) -> Listing:
    """Every message in quarantine; when the mailbox cannot be read, the store's, and why."""
    with sessions() as session:
        entries = [_entry_of_row(row) for row in _quarantined_rows(session)]
    try:
        with Mailbox(imap) as mailbox:
            aside = mailbox.set_aside()
    except MailboxError as exc:
        return Listing(entries, str(exc))
    with sessions() as session:
        owned = owners(aside, _recorded(session, aside))
    entries += [_entry_of_aside(m, owner) for m, owner in _loose(aside, owned)]
    return Listing(entries)


def _described(ident: str, sender: str | None, subject: str | None) -> str:
    return f"{ident} from {_field(sender, 320)} ({_field(subject, 120)})"


def release(
    sessions: sessionmaker[Session], imap: ImapSettings, target: str | None, timezone: str = "UTC"
) -> list[str]:
    """Put back into the inbox folder the message ``target`` names, or every one (None).

    Returns one line per message released (times in ``timezone``). Raises :class:`UnknownMessage`
    when ``target`` names no message in quarantine (before anything is
    changed), :class:`~mailbot.mail.inbox.MailboxError` when the mailbox fails
    (the message being released then stays as it was).
    """
    wanted = parse_target(target) if target is not None else None
    if wanted is not None and not wanted.imap:
        with sessions() as session:
            row = session.get(InboundMessage, wanted.number)
            if row is None:
                raise UnknownMessage(f"no message {wanted.number} in the store")
            if row.status != QUARANTINED:
                raise UnknownMessage(f"message {wanted.number} is not in quarantine ({row.status})")
    with Mailbox(imap) as mailbox:
        aside = mailbox.set_aside()
        with sessions() as session:
            known = _recorded(session, aside)
        owned = owners(aside, known)
        rows: list[int] = []
        loose: list[SetAside] = []
        if wanted is None:
            rows = [r.id for r in known if r.status == QUARANTINED]
            loose = [m for m, _owner in _loose(aside, owned)]
        elif not wanted.imap:
            rows = [wanted.number]
        else:
            message = next((m for m in aside if m.uid == wanted.number), None)
            if message is None:
                folder = imap.quarantine_folder
                raise UnknownMessage(f"no message {IMAP_PREFIX}{wanted.number} in {folder}")
            owner = owned.get(message.uid)
            if owner is not None and owner.status == QUARANTINED:
                rows = [owner.id]  # moved back alone, the desk would set it aside again
            else:
                loose = [message]
        done = [
            _release_row(
                sessions,
                mailbox,
                row_id,
                timezone,
                [m.uid for m in aside if _owns(owned, m, row_id)],
            )
            for row_id in rows
        ]
        for message in loose:
            mailbox.release(message.uid)
            ident = f"{IMAP_PREFIX}{message.uid}"
            done.append(
                f"released {_described(ident, message.from_addr, message.subject)}: "
                f"moved back to {imap.folder}"
            )
    return [line for line in done if line]


def _owns(owned: dict[int, Recorded], message: SetAside, row_id: int) -> bool:
    owner = owned.get(message.uid)
    return owner is not None and owner.id == row_id


def _release_row(
    sessions: sessionmaker[Session],
    mailbox: Mailbox,
    row_id: int,
    timezone: str,
    copies: list[int],
) -> str:
    """Set row ``row_id`` back to ``new`` and its message back into the inbox folder.

    The row's change is committed only after the mailbox has moved (or
    appended) the message; "" if the row was released meanwhile by another.
    """
    folder = mailbox.folders.inbox
    with sessions() as session, session.begin():
        if not release_quarantined(session, row_id):
            return ""
        row = session.get(InboundMessage, row_id)
        assert row is not None
        said = f"released {_described(str(row.id), row.from_addr, row.subject)}: "
        if copies:
            mailbox.release(*copies)
            return said + f"moved back to {folder}"
        mailbox.put_back(row.raw, row.internaldate)
        received = row.internaldate.astimezone(ZoneInfo(timezone)).strftime("%Y-%m-%d %H:%M")
        quarantine = mailbox.folders.quarantine
        return said + (
            f"no copy in {quarantine}; its stored bytes appended to {folder} as received {received}"
        )
