"""The durable outbox: every message the bot sends is first a table row.

A row is queued in the same transaction as the change that caused it, sent
later, retried with back-off while the server fails, and marked sent only
after the server accepted it (docs/architecture.md, invariant 4). Its Message-ID is
fixed when it is queued, so a resend after a crash is recognisable.

Each row is composed and sent on its own, so one bad row never holds up the
others: a permanent failure (a 5xx answer, an address the SMTP path cannot
carry) marks that row ``failed`` with its reason and tells the tournament
director once; a temporary one backs that row off; a server that cannot be
reached ends the pass and leaves the rest waiting.

>>> backoff(1), backoff(3), backoff(30)
(datetime.timedelta(seconds=60), datetime.timedelta(seconds=900), datetime.timedelta(seconds=21600))
"""

from __future__ import annotations

import binascii
import dataclasses
import datetime
import email.utils
import enum
import functools
import logging
import re
import uuid
from collections.abc import Callable, Mapping, Sequence

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from mailbot.mail.addresses import AddressError, ascii_domain, normal_address, smtp_address
from mailbot.mail.bounces import Failure, Report, new_check, return_path, tag_in
from mailbot.mail.postman import Postman, SendError, compose_address
from mailbot.rules.errors import StoreError
from mailbot.store.engine import recent
from mailbot.store.kinds import GONE_WRONG, OutboxStatus
from mailbot.store.models import Outbox, Player

log = logging.getLogger(__name__)

#: Rows marked sent in one transaction (one commit, one disk flush).
MARKS = 25
#: After this many failed attempts a row is given up (status ``failed``).
MAX_ATTEMPTS = 25
_STEPS = (60, 300, 900, 3600, 3 * 3600)
_CAP = 6 * 3600
#: The header that marks the notice telling the director a message was given up.
UNDELIVERABLE = "X-Mailbot-Undeliverable"


def backoff(attempts: int) -> datetime.timedelta:
    """How long to wait after the ``attempts``-th failure."""
    seconds = _STEPS[attempts - 1] if 1 <= attempts <= len(_STEPS) else _CAP
    return datetime.timedelta(seconds=seconds)


def new_message_id(sender: str) -> str:
    """A fresh Message-ID (without angle brackets) in the sender's domain.

    >>> new_message_id("Bot <bot@fed.example>").endswith("@fed.example")
    True
    """
    return f"mailbot.{uuid.uuid4().hex}@{_id_domain(sender)}"


@functools.lru_cache(maxsize=64)
def _id_domain(sender: str) -> str:
    """The domain of the sender's Message-IDs (the sender is the same for every message)."""
    domain = compose_address(sender).rpartition("@")[2] or "mailbot.invalid"
    try:
        return ascii_domain(domain)
    except AddressError:
        return "mailbot.invalid"


def queue(
    session: Session,
    *,
    sender: str,
    to: Sequence[str],
    subject: str,
    text: str,
    html: str | None,
    event: str,
    now: datetime.datetime,
    cc: Sequence[str] = (),
    headers: Mapping[str, str] | None = None,
    game_id: int | None = None,
    inbound_id: int | None = None,
) -> Outbox:
    """Add a message to the outbox (in the caller's transaction).

    Its Message-ID and the check value of its return path are fixed here, with
    the change that caused it: a message sent again after a crash rolled back
    its mark is the same message, on the same return path.
    """
    recipients = list(dict.fromkeys(normal_address(a) for a in to))
    row = Outbox(
        message_id=new_message_id(sender),
        verp_check=new_check(),
        to_addrs=recipients,
        cc_addrs=[a for a in dict.fromkeys(normal_address(a) for a in cc) if a not in recipients],
        subject=subject,
        headers=dict(headers or {}),
        text_body=text,
        html_body=html,
        event=event,
        game_id=game_id,
        inbound_id=inbound_id,
        status="pending",
        attempts=0,
        next_attempt_at=now,
        created_at=now,
    )
    session.add(row)
    if game_id is not None:
        recent(session).mail.setdefault(game_id, []).append(row)
    return row


# ---------------------------------------------------------------------------
# Composing

_LINESEP = "\r\n"
_RE_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
#: Message-IDs longer than this are left out of In-Reply-To and References.
_MAX_ID = 250
_MAX_REFERENCES = 10
_ADDRESS_FIELDS = frozenset({"from", "to", "cc", "reply-to", "sender"})
_THREAD_FIELDS = frozenset({"in-reply-to", "references"})


def _one_line(value: str) -> str:
    return _RE_CONTROL.sub(" ", value).strip()


def _fold(name: str, words: Sequence[str], separator: str = " ") -> str:
    """``name: words`` folded between words so lines stay within 78 characters."""
    lines: list[str] = []
    line = f"{name}:"
    for index, word in enumerate(words):
        piece = word + (separator.rstrip() if index < len(words) - 1 else "")
        if len(line) + 1 + len(piece) > 78 and line.strip() != f"{name}:":
            lines.append(line)
            line = " " + piece
        else:
            line += " " + piece
    lines.append(line)
    return _LINESEP.join(lines) + _LINESEP


#: An ASCII word longer than this is written as encoded words, which may be split
#: anywhere: folding splits only between words, and no line may pass 998 characters.
_LONGEST_WORD = 900


def _text_field(name: str, value: str) -> str:
    value = _one_line(value)
    if value.isascii() and all(len(word) <= _LONGEST_WORD for word in value.split(" ")):
        return _fold(name, value.split(" ") if value else [""])
    return f"{name}: {_encoded_words(value, 76 - len(name) - 2)}{_LINESEP}"


def _encoded_words(value: str, room: int) -> str:
    r"""``value`` as RFC 2047 encoded words (UTF-8, base64), one to a line, each line
    within 76 characters (``room`` on the first); a character is never split.

    The email package's :class:`~email.header.Header` does the same in pure
    Python, at several times the cost, for every subject with a dash or a name.

    >>> _encoded_words("Иван – Петър", 60)
    '=?utf-8?b?0JjQstCw0L0g4oCTINCf0LXRgtGK0YA=?='
    >>> _encoded_words("😀", 14)  # wider than the room: a word of its own all the same
    '=?utf-8?b?8J+YgA==?='
    >>> from email.header import decode_header, make_header
    >>> text = "Шахмат " * 30
    >>> words = _encoded_words(text, 67)
    >>> str(make_header(decode_header(words))) == text
    True
    >>> max(len(line) for line in words.split("\r\n")) <= 76
    True
    """
    data = value.encode("utf-8")
    words: list[str] = []
    start = 0
    while start < len(data):
        size = max(3, (room - len("=?utf-8?b??=")) // 4 * 3)
        end = min(len(data), start + size)
        while start < end < len(data) and data[end] & 0xC0 == 0x80:  # not inside a character
            end -= 1
        if end == start:  # a character wider than the room: a line of its own
            end += 1
            while end < len(data) and data[end] & 0xC0 == 0x80:
                end += 1
        words.append(f"=?utf-8?b?{binascii.b2a_base64(data[start:end], newline=False).decode()}?=")
        start, room = end, 76 - 1
    return f"{_LINESEP} ".join(words)


def _mailbox(value: str, smtputf8: bool) -> str:
    """``Name <address>`` with the name encoded as needed and the address as the path carries it."""
    name, address = email.utils.parseaddr(_one_line(value))
    if not address:
        address = _one_line(value)
    address = smtp_address(address, smtputf8=smtputf8)
    if not name:
        return address
    if name.isascii():
        return email.utils.formataddr((name, "x@x")).rpartition(" <")[0] + f" <{address}>"
    return f"{_encoded_words(name, 60)} <{address}>"


def _address_field(name: str, values: Sequence[str], smtputf8: bool) -> str:
    return _fold(name, [_mailbox(v, smtputf8) for v in values], separator=", ")


def _thread_field(name: str, value: str, smtputf8: bool) -> str | None:
    """In-Reply-To / References with every id that fits on a line, the last ten at most."""
    ids = [
        i
        for i in re.findall(r"<[^<>]*>", value)
        if len(i) <= _MAX_ID and (smtputf8 or i.isascii()) and not _RE_CONTROL.search(i)
    ]
    if not ids:
        return None
    return _fold(name, ids[-_MAX_REFERENCES:])


def _qp(text: str) -> str:
    """``text`` as UTF-8, quoted-printable, with CRLF line ends (:func:`binascii.b2a_qp`,
    in C: the email package's own encoder is pure Python and was most of a reply's cost)."""
    encoded = binascii.b2a_qp(text.encode("utf-8")).decode("ascii")
    return encoded.replace("\n", _LINESEP)


def _text_part(text: str, subtype: str) -> str:
    return (
        f'Content-Type: text/{subtype}; charset="utf-8"{_LINESEP}'
        f"Content-Transfer-Encoding: quoted-printable{_LINESEP}{_LINESEP}{_qp(text)}"
    )


def _body(row: Outbox) -> str:
    """The MIME headers and body of a row: its text, and its HTML as an alternative."""
    if not row.html_body:
        return f"MIME-Version: 1.0{_LINESEP}" + _text_part(row.text_body, "plain")
    # "=_" never occurs in quoted-printable text; the line break before each
    # delimiter belongs to the delimiter (RFC 2046 5.1.1), not to the part
    boundary = f"=_{uuid.uuid4().hex[:24]}"
    plain, html = _text_part(row.text_body, "plain"), _text_part(row.html_body, "html")
    nl = _LINESEP
    return (
        f'MIME-Version: 1.0{nl}Content-Type: multipart/alternative; boundary="{boundary}"{nl}'
        f"{nl}--{boundary}{nl}{plain}{nl}--{boundary}{nl}{html}{nl}--{boundary}--{nl}"
    )


def compose(row: Outbox, sender: str, *, smtputf8: bool = False) -> bytes:
    """The bytes of an outbox row's message, ready for SMTP.

    Header lines are folded, and In-Reply-To and References keep only the ids
    that fit, so no line exceeds 998 characters. Addresses go as the path
    carries them (:func:`mailbot.mail.addresses.smtp_address`): raises
    :class:`~mailbot.mail.addresses.AddressError` for one it cannot. The header
    fields and the body are written here (the email package's modern folder
    drops the space between two encoded words of a long Cyrillic subject, and
    its generator was most of a reply's cost): the text, and the HTML as its
    alternative, in UTF-8 quoted-printable, lines of at most 76 characters.
    """
    fields = [
        _address_field("From", [sender], smtputf8),
        _address_field("To", row.to_addrs, smtputf8),
    ]
    if row.cc_addrs:
        fields.append(_address_field("Cc", row.cc_addrs, smtputf8))
    fields.append(_text_field("Subject", row.subject))
    fields.append(_text_field("Date", email.utils.format_datetime(row.created_at)))
    fields.append(_text_field("Message-ID", f"<{row.message_id}>"))
    headers = {str(k): str(v) for k, v in row.headers.items()}
    headers.setdefault("Auto-Submitted", "auto-generated")
    for name, value in headers.items():
        key = name.lower()
        if key in _THREAD_FIELDS:
            field = _thread_field(name, value, smtputf8)
            if field is not None:
                fields.append(field)
        elif key in _ADDRESS_FIELDS:
            fields.append(_address_field(name, [value], smtputf8))
        else:
            fields.append(_text_field(name, value))
    return ("".join(fields) + _body(row)).encode("utf-8")


def _compose(row: Outbox, sender: str, smtputf8: bool) -> bytes:
    return compose(row, sender, smtputf8=smtputf8)


def envelope(row: Outbox, smtputf8: bool) -> list[str]:
    """The envelope recipients of a row, as the path carries them (or AddressError)."""
    return [smtp_address(a, smtputf8=smtputf8) for a in [*row.to_addrs, *row.cc_addrs]]


# ---------------------------------------------------------------------------
# Sending


@dataclasses.dataclass(frozen=True)
class Delivery:
    """What one pass over the outbox did."""

    sent: int = 0
    deferred: int = 0
    failed: int = 0

    def __add__(self, other: Delivery) -> Delivery:
        return Delivery(
            self.sent + other.sent, self.deferred + other.deferred, self.failed + other.failed
        )

    def line(self) -> str:
        """``sent=3 deferred=0 failed=0``."""
        return f"sent={self.sent} deferred={self.deferred} failed={self.failed}"


#: Called when a row is given up, in the transaction that gives it up.
GiveUp = Callable[[Session, Outbox, datetime.datetime], None]


def deliver_due(
    sessions: sessionmaker[Session],
    postman: Postman,
    now: datetime.datetime,
    *,
    batch: int = 500,
    on_give_up: GiveUp | None = None,
    stopping: Callable[[], bool] = lambda: False,
    bounce_address: str | None = None,
) -> Delivery:
    """Send every pending row that is due, ``batch`` rows at a time over one connection.

    Each row goes with its own return path (:func:`mailbot.mail.bounces.return_path`, on
    ``bounce_address`` when given, else on the sender's address), so a delivery
    report that comes back later names it (:func:`bounce_of`).

    Rows are locked and marked :data:`MARKS` to a transaction, so a crash
    resends at most those of the group in flight, each with its stable
    Message-ID; a row another worker holds is skipped (``SKIP LOCKED``), so
    two workers never send the same row. When the server cannot be reached,
    the pass ends and the other rows wait for the next one; while the postman
    pauses after such a failure, nothing is tried. ``stopping()`` is asked
    before each row: once it says so, the row in hand has been finished and
    marked, the marks are committed and the pass ends, so a stop that waits
    for this call sends nothing twice.
    """
    total = Delivery()
    after = 0
    while postman.available() and not stopping():
        with sessions() as session:
            ids = session.scalars(
                select(Outbox.id)
                .where(Outbox.status == "pending", Outbox.next_attempt_at <= now, Outbox.id > after)
                .order_by(Outbox.id)
                .limit(batch)
            ).all()
        if not ids:
            return total
        after = ids[-1]
        with postman.batch():
            done, reachable = _deliver(
                sessions, postman, now, ids, on_give_up, stopping, bounce_address
            )
        total += done
        if not reachable:
            return total
    return total


def _deliver(
    sessions: sessionmaker[Session],
    postman: Postman,
    now: datetime.datetime,
    ids: Sequence[int],
    on_give_up: GiveUp | None,
    stopping: Callable[[], bool],
    bounce_address: str | None = None,
) -> tuple[Delivery, bool]:
    tally = _Tally()
    for start in range(0, len(ids), MARKS):
        if stopping():
            break
        with sessions() as session, session.begin():
            rows = session.scalars(
                select(Outbox)
                .where(Outbox.id.in_(ids[start : start + MARKS]), Outbox.status == "pending")
                .order_by(Outbox.id)
                .with_for_update(skip_locked=True)
            ).all()
            for row in rows:
                if stopping():
                    break
                if not _send(session, row, postman, now, tally, on_give_up, bounce_address):
                    return tally.delivery(), False
    return tally.delivery(), True


@dataclasses.dataclass
class _Tally:
    """What one delivery has done so far."""

    sent: int = 0
    deferred: int = 0
    failed: int = 0
    #: Messages in a row whose sending broke off midway.
    broken: int = 0

    def delivery(self) -> Delivery:
        return Delivery(self.sent, self.deferred, self.failed)


def _send(
    session: Session,
    row: Outbox,
    postman: Postman,
    now: datetime.datetime,
    tally: _Tally,
    on_give_up: GiveUp | None,
    bounce_address: str | None,
) -> bool:
    """Send one message of the outbox and record how it went; False: the server is
    away (or broke off twice in a row), and the mail waits."""
    if row.verp_check is None:  # queued before the check was fixed with the row
        row.verp_check = new_check()
    try:
        refused = postman.send(
            functools.partial(_compose, row, postman.settings.sender),
            functools.partial(envelope, row),
            envelope_from=return_path(
                bounce_address or postman.settings.sender, row.id, row.verp_check
            ),
        )
    except (AddressError, SendError) as exc:
        return _not_sent(session, row, exc, postman, now, tally, on_give_up)
    except Exception as exc:  # composing failed: this row's fault, not the others'
        row.attempts += 1
        row.last_error = _one_line(f"{type(exc).__name__}: {exc}")[:2000]
        _give_up(session, row, now, on_give_up)
        tally.failed += 1
        return True
    tally.broken = 0
    row.status = OutboxStatus.SENT
    row.sent_at = now
    row.attempts += 1
    if refused:
        row.last_error = _one_line(f"refused: {refused}")[:2000]
        log.warning("outbox %s: some recipients refused: %s", row.id, refused)
    log.info("sent %s to %s: %s", row.event, _to(row), _one_line(row.subject)[:120])
    tally.sent += 1
    return True


def _not_sent(
    session: Session,
    row: Outbox,
    exc: AddressError | SendError,
    postman: Postman,
    now: datetime.datetime,
    tally: _Tally,
    on_give_up: GiveUp | None,
) -> bool:
    """Record a message the server did not take: deferred, given up, or (False) waiting
    with the rest because the server is away or broke off twice in a row."""
    unreachable = isinstance(exc, SendError) and exc.unreachable
    midway = isinstance(exc, SendError) and exc.midway
    permanent = isinstance(exc, AddressError) or (isinstance(exc, SendError) and exc.permanent)
    row.last_error = _one_line(str(exc))[:2000]
    if unreachable:
        # the server's fault, not this message's: no attempt is counted
        log.warning("outbox: %s; the mail waits", exc)
        return False
    row.attempts += 1
    tally.broken = tally.broken + 1 if midway else 0
    if tally.broken >= 2:
        # twice in a row: the server, not the messages; they wait
        row.next_attempt_at = now + backoff(row.attempts)
        postman.pause()
        log.warning("outbox: %s, twice in a row; the mail waits", exc)
        tally.deferred += 1
        return False
    if permanent or row.attempts >= MAX_ATTEMPTS:
        _give_up(session, row, now, on_give_up)
        tally.failed += 1
    else:
        row.next_attempt_at = now + backoff(row.attempts)
        tally.deferred += 1
        log.warning("outbox %s to %s deferred: %s", row.id, _to(row), exc)
    return True


def _to(row: Outbox) -> str:
    return ", ".join([*row.to_addrs, *row.cc_addrs])


def _give_up(
    session: Session, row: Outbox, now: datetime.datetime, on_give_up: GiveUp | None
) -> None:
    row.status, row.dismissed_at = OutboxStatus.FAILED, None
    log.error("outbox %s to %s given up: %s", row.id, _to(row), row.last_error)
    if on_give_up is not None and UNDELIVERABLE not in row.headers:
        on_give_up(session, row, now)


def listing(session: Session, *, status: str = "pending") -> list[Outbox]:
    """The rows of one status (``pending``, ``failed``, ``bounced``...), oldest first."""
    return list(
        session.scalars(select(Outbox).where(Outbox.status == status).order_by(Outbox.id)).all()
    )


class NotDismissible(StoreError, ValueError):
    """The id names no row given up or bounced; ``args[0]`` says so in one line."""


def dismiss(session: Session, row_id: int | None, now: datetime.datetime) -> list[Outbox]:
    """Dismiss the row given up or bounced with ``row_id`` (None: every one not yet
    dismissed) at ``now``: it stays listed, marked, and no longer counts in ``mailbot
    health``. A row dismissed already keeps its instant. Returns the rows named.

    Raises :class:`NotDismissible` for an id that names no row, or a row still
    waiting or sent.
    """
    if row_id is None:
        rows = session.scalars(
            select(Outbox)
            .where(Outbox.status.in_(GONE_WRONG), Outbox.dismissed_at.is_(None))
            .order_by(Outbox.id)
            .with_for_update()
        ).all()
    else:
        row = session.get(Outbox, row_id, with_for_update=True)
        if row is None:
            raise NotDismissible(f"no mail {row_id} in the outbox; see mailbot outbox --failed")
        if row.status not in GONE_WRONG:
            raise NotDismissible(
                f"mail {row_id} is {row.status.value}, neither given up nor bounced: "
                "only those are dismissed"
            )
        rows = [row]
    for row in rows:
        if row.dismissed_at is None:
            row.dismissed_at = now
    return list(rows)


def gone_wrong(session: Session) -> dict[OutboxStatus, tuple[int, int]]:
    """Of the mail given up and of the mail bounced: how many rows are not dismissed
    (what ``mailbot health`` and the metrics warn about), and how many are."""
    counted = session.execute(
        select(
            Outbox.status,
            func.count().filter(Outbox.dismissed_at.is_(None)),
            func.count().filter(Outbox.dismissed_at.is_not(None)),
        )
        .where(Outbox.status.in_(GONE_WRONG))
        .group_by(Outbox.status)
    ).all()
    found = {status: (0, 0) for status in GONE_WRONG}
    found.update({status: (warn, dismissed) for status, warn, dismissed in counted})
    return found


# ---------------------------------------------------------------------------
# Mail that came back


class Unproven(enum.StrEnum):
    """Why a delivery report proves nothing, and so changes nothing."""

    #: It names no recipient that failed.
    NO_FAILURE = "no-failure"
    #: It reached no return path of the bot's (the plain address, a made-up ``+tag``).
    NO_TAG = "no-tag"
    #: It reached no return path, but quotes the Message-ID of a message the bot sent
    #: (which everyone who received that message has).
    QUOTED = "quoted"
    #: Its return path names no outbox row.
    NO_ROW = "no-row"
    #: Its return path names a row, with another check value than the row's.
    WRONG_CHECK = "wrong-check"
    #: The row it names was never sent.
    UNSENT = "unsent"
    #: The address it says failed is none the row was sent to.
    OTHER_RECIPIENT = "other-recipient"


@dataclasses.dataclass(frozen=True)
class Bounce:
    """A report matched to the row it is about (``row``), with the failures of that
    row's recipients; or, without a row, why the report proves nothing (``unproven``)
    and the row it claims to be about, if any (``claimed``: the row its return path
    names, else one whose Message-ID it quotes): the message it is kept beside as
    evidence."""

    row: Outbox | None
    failures: tuple[Failure, ...] = ()
    unproven: Unproven | None = None
    claimed: Outbox | None = None


def bounce_of(session: Session, report: Report) -> Bounce:
    """The sent row ``report`` is about, and which of its recipients failed.

    Only the return path proves which row that is (docs/contract.md, "Bounces"):
    the report must have been delivered to a return path naming the row
    (:func:`mailbot.mail.bounces.tag_in` on the addresses it was delivered to) with
    the row's check value, the row must have been sent, and a failed address must
    be one it was sent to. Anything else (the plain address, a made-up tag, a
    quoted Message-ID, a wrong check value, another recipient) names no row and
    changes nothing: ``unproven`` says why.
    """
    if not report.failures:
        return Bounce(None, unproven=Unproven.NO_FAILURE)
    tag = tag_in(report.delivered_to)
    session.flush()  # the row is read again (locked): what this session changed is written
    if tag is None:
        quoted = _quoted(session, report.message_ids)
        return Bounce(None, unproven=Unproven.QUOTED if quoted else Unproven.NO_TAG,
                      claimed=quoted)  # fmt: skip
    # locked: two workers with two reports about one row act once (PostgreSQL)
    row = session.get(Outbox, tag.row, with_for_update=True, populate_existing=True)
    if row is None:
        return Bounce(None, unproven=Unproven.NO_ROW, claimed=_quoted(session, report.message_ids))
    if row.verp_check is None or row.verp_check != tag.check:
        return Bounce(None, unproven=Unproven.WRONG_CHECK, claimed=row)
    if row.status not in (OutboxStatus.SENT, OutboxStatus.BOUNCED):
        return Bounce(None, unproven=Unproven.UNSENT, claimed=row)
    sent_to = {normal_address(a) for a in [*row.to_addrs, *row.cc_addrs]}
    failures = tuple(f for f in report.failures if f.address in sent_to)
    if not failures:
        return Bounce(None, unproven=Unproven.OTHER_RECIPIENT, claimed=row)
    return Bounce(row, failures, claimed=row)


def _quoted(session: Session, message_ids: Sequence[str]) -> Outbox | None:
    """The first row the bot sent whose Message-ID is among ``message_ids``."""
    if not message_ids:
        return None
    return session.scalars(
        select(Outbox).where(Outbox.message_id.in_(message_ids)).order_by(Outbox.id).limit(1)
    ).first()


def bounced_moves(
    session: Session, game_ids: Sequence[int]
) -> dict[int, dict[tuple[int, str], datetime.datetime]]:
    """The move lines of ``game_ids`` that bounced: game id to (ply, UCI) of the move the
    mail carried to when it bounced (a move voided since no longer matches its ply)."""
    if not game_ids:
        return {}
    rows = session.execute(
        select(Outbox.game_id, Outbox.headers, Outbox.bounced_at).where(
            Outbox.game_id.in_(game_ids),
            Outbox.status == "bounced",
            Outbox.event.in_(("move", "repeat")),
        )
    ).all()
    found: dict[int, dict[tuple[int, str], datetime.datetime]] = {}
    for game_id, headers, bounced_at in rows:
        ply, uci = str(headers.get("X-Mailbot-Ply", "")), str(headers.get("X-Mailbot-Move", ""))
        if game_id is not None and ply.isdigit() and bounced_at is not None:
            plies = found.setdefault(game_id, {})
            key = (int(ply), uci)
            plies[key] = min(bounced_at, plies.get(key, bounced_at))
    return found


def recipients_tournaments(session: Session, row: Outbox) -> list[int]:
    """The tournaments whose players a row was addressed to (for rows about no game)."""
    addresses = [*row.to_addrs, *row.cc_addrs]
    found = session.scalars(select(Player.tournament_id).where(Player.email.in_(addresses)))
    return list(dict.fromkeys(found.all()))


def note_delay(row: Outbox, error: str) -> None:
    """A delivery report says the row's mail is delayed, with ``error``: noted, no more."""
    row.last_error = error


def mark_bounced(row: Outbox, now: datetime.datetime, error: str) -> None:
    """A delivery report says the row's mail failed for good, with ``error``, at ``now``."""
    row.status, row.bounced_at, row.last_error = OutboxStatus.BOUNCED, now, error
    row.dismissed_at = None  # a new failure: it warns again


def count_bounce(player: Player, now: datetime.datetime) -> int:
    """Count a bounce of mail to ``player`` at ``now``; the bounces so far."""
    player.bounces += 1
    player.bounced_at = now
    return player.bounces
