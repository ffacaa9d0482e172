"""The durable outbox: every message the bot sends is first a table row.

A row is queued in the same transaction as the change that caused it, sent
later, retried with back-off while the server fails, and marked sent only
after the server accepted it (docs/architecture.md, invariant 4). Its Message-ID is
fixed when it is queued, so a resend after a crash is recognisable.

This module keeps the rows: it queues them, lists and dismisses those gone
wrong, matches a delivery report to the row it is about, and names each write
the delivery loop (:mod:`mailbot.shell.delivery`) makes as it sends them. The
bytes of a row's message are :mod:`mailbot.mail.wire`'s (:func:`outgoing` makes
the value it writes them from); nothing here talks to a server.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
from collections.abc import Mapping, Sequence

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from mailbot.mail.addresses import normal_address
from mailbot.mail.attachments import Attachment
from mailbot.mail.bounces import Failure, Report, new_check, tag_in
from mailbot.mail.wire import OutgoingMail, new_message_id
from mailbot.rules.errors import StoreError
from mailbot.store.engine import recent
from mailbot.store.kinds import GONE_WRONG, MailEvent, OutboxStatus
from mailbot.store.models import Outbox, Player

#: The header that marks the notice telling the director a message was given up.
UNDELIVERABLE = "X-Mailbot-Undeliverable"


def queue(
    session: Session,
    *,
    sender: str,
    to: Sequence[str],
    subject: str,
    text: str,
    html: str | None,
    event: MailEvent,
    now: datetime.datetime,
    cc: Sequence[str] = (),
    headers: Mapping[str, str] | None = None,
    game_id: int | None = None,
    inbound_id: int | None = None,
    attachments: Sequence[Attachment] = (),
) -> Outbox:
    """Add a message to the outbox (in the caller's transaction), with its files.

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
        attachments=[a.stored() for a in attachments] or None,
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
# Sending: what the delivery loop reads and writes


def due(session: Session, now: datetime.datetime, *, after: int, limit: int) -> list[int]:
    """The ids of the pending rows due at ``now``, after the id ``after``, oldest first,
    ``limit`` at most."""
    return list(
        session.scalars(
            select(Outbox.id)
            .where(Outbox.status == "pending", Outbox.next_attempt_at <= now, Outbox.id > after)
            .order_by(Outbox.id)
            .limit(limit)
        ).all()
    )


def lock_pending(session: Session, ids: Sequence[int]) -> list[Outbox]:
    """The rows of ``ids`` still pending, oldest first, locked to be sent in the
    caller's transaction; a row another worker holds is skipped (``SKIP LOCKED``)."""
    return list(
        session.scalars(
            select(Outbox)
            .where(Outbox.id.in_(ids), Outbox.status == "pending")
            .order_by(Outbox.id)
            .with_for_update(skip_locked=True)
        ).all()
    )


def outgoing(row: Outbox) -> OutgoingMail:
    """What the wire form of a row's message is written from."""
    return OutgoingMail(
        message_id=row.message_id,
        created_at=row.created_at,
        to_addrs=tuple(row.to_addrs),
        cc_addrs=tuple(row.cc_addrs),
        subject=row.subject,
        headers={str(k): str(v) for k, v in row.headers.items()},
        text_body=row.text_body,
        html_body=row.html_body,
        attachments=tuple(row.attachments or ()),
    )


def return_check(row: Outbox) -> str:
    """The check value of a row's return path; fixed now for a row queued before the
    check was fixed with the row."""
    if row.verp_check is None:
        row.verp_check = new_check()
    return row.verp_check


def mark_sent(row: Outbox, now: datetime.datetime, refused: str | None) -> None:
    """The server took the row's message at ``now``; ``refused``: the recipients it
    refused, if any."""
    row.status = OutboxStatus.SENT
    row.sent_at = now
    row.attempts += 1
    if refused is not None:
        row.last_error = refused


def count_attempt(row: Outbox, error: str) -> int:
    """An attempt to send the row failed with ``error``; the attempts so far."""
    row.attempts += 1
    row.last_error = error
    return row.attempts


def retry_at(row: Outbox, at: datetime.datetime) -> None:
    """The row is tried again at ``at``."""
    row.next_attempt_at = at


def give_up(row: Outbox) -> None:
    """The row is given up (status ``failed``): it warns until dismissed."""
    row.status, row.dismissed_at = OutboxStatus.FAILED, None


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
            Outbox.event.in_((MailEvent.MOVE, MailEvent.REPEAT)),
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
    """The row's mail is delayed, with ``error`` (a delivery report says so, or the
    server could not be reached): noted, no more."""
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
