"""The arbiter's desk: the one place that opens a transaction for a message.

One inbound message is handled in one database transaction: its row (with the
raw bytes), the moves and penalties it causes, and every reply it causes in
the outbox (in a batch, the row is recorded as ``new`` just before, and its
change from ``new`` is committed with the rest). It goes through named
stages: *record* (:meth:`Desk._record`), *trust* (machine mail, the From,
DMARC), *route* (to the director's orders, a leave request, the game it is
about, or an answer), *handle* (the word's handler in
:mod:`mailbot.desk.handlers`, which records what changes and returns events),
*notify* (the :class:`~mailbot.compose.notifier.Notifier` queues the mail the events
mean) and *commit*. A message already handled is recognised by the hash of its bytes
or its fingerprint (the same Message-ID from the same sender with the same
text), and is not applied again. A reused Message-ID alone proves nothing, and
neither does a reused place in the mailbox (folder, UIDVALIDITY, UID): that
message is new.

Whatever fails in one message stays with that message: the failure is
recorded in a transaction of its own, the message is tried again at the next
pass, and after :data:`MAX_ATTEMPTS` it goes to quarantine and the director
is told once. Only the store's own faults stop the pass: a database that
cannot be reached, or one that refuses to write for its own reasons (a full
disk, a read-only file, an I/O error: :mod:`mailbot.store.outage`). Then no message
is charged for it and the messages stay in the inbox
(:class:`~mailbot.store.outage.StoreUnavailable`); a message goes to quarantine
unrecorded only once the store has shown that it writes.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import hashlib
import logging
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import event, false, func, inspect, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from mailbot.compose.notices import Renderer
from mailbot.compose.notifier import Notifier, Origin
from mailbot.desk import director, handlers
from mailbot.desk.handlers import answers, orders
from mailbot.desk.handlers import preferences as digest
from mailbot.desk.handlers import requests as handler_requests
from mailbot.desk.handlers.context import Context, Limits
from mailbot.mail import bounces, trust
from mailbot.mail.addresses import normal_address
from mailbot.mail.inbox import Fetched
from mailbot.mail.intent import Word, read_words
from mailbot.mail.letters import AutoKind, Letter, read_letter
from mailbot.mail.postman import compose_address
from mailbot.rules import events as ev
from mailbot.store.engine import held_back, recent
from mailbot.store.models import (
    BOUNCES_MARKED,
    Game,
    InboundMessage,
    Notice,
    Outbox,
    Player,
    Tournament,
)
from mailbot.store.outage import StoreUnavailable, diagnose, fault_of, probe, where_of
from mailbot.store.outbox import bounce_of
from mailbot.store.queries import players_writing_from, prefetch_games, prefetch_senders
from mailbot.store.record import tag_of

log = logging.getLogger(__name__)

#: A message that failed this many times goes to quarantine.
MAX_ATTEMPTS = 3


class Outcome(enum.Enum):
    """What became of one inbound message."""

    HANDLED = "handled"
    DUPLICATE = "duplicate"
    IGNORED = "ignored"
    FAILED = "failed"
    QUARANTINED = "quarantined"


class BatchTaken(RuntimeError):
    """Another worker handled messages of a batch while this one did: it is rolled back."""


@dataclasses.dataclass(frozen=True)
class Policy:
    """Who the desk trusts and how much it answers."""

    sender: str
    authserv_id: str | None = None
    require_dmarc: bool = False
    replies_per_sender_per_day: int = 20
    #: The days of the reply cap are counted in this time zone.
    timezone: str = "UTC"
    #: The folder of the Syzygy tables, if installed (:mod:`mailbot.rules.tablebase`).
    tablebases: str | None = None

    @property
    def address(self) -> str:
        return normal_address(compose_address(self.sender))


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


_CLAIM = "mailbot.claim"


_LOCKED = "mailbot.locked"


def _claim_before_writing(session: Session, *args: Any) -> None:
    """Before a batch's first write on SQLite: its claim (:meth:`Desk._claim`); and
    before each write once it holds the write lock, the new rows' ids."""
    ids = session.info.pop(_CLAIM, None)
    if ids:
        Desk._claim(session, ids)
        session.info[_LOCKED] = True
    if session.info.get(_LOCKED):
        _number_new_rows(session)


def _hold_write_lock(session: Session) -> None:
    """Take SQLite's write lock now (a write that changes nothing), to write at once."""
    session.connection().execute(update(InboundMessage).where(false()).values(id=InboundMessage.id))
    session.info[_LOCKED] = True


def _unlocked(session: Session, *args: Any) -> None:
    session.info.pop(_LOCKED, None)


event.listen(Session, "before_flush", _claim_before_writing)
event.listen(Session, "after_commit", _unlocked)
event.listen(Session, "after_soft_rollback", _unlocked)


def _number_new_rows(session: Session) -> None:
    """Give the new rows their ids, in the order they were added, after the highest
    of their table: the database then takes each table's rows in one statement
    instead of one statement a row (for which SQLite would return each id).

    Only under SQLite's write lock, which no other writer can then insert past.
    """
    new: dict[Any, list[Any]] = {}
    for obj in session.new:
        state = inspect(obj)
        (column,) = state.mapper.primary_key
        key = state.mapper.get_property_by_column(column).key
        if getattr(obj, key) is None:
            new.setdefault(column, []).append((state.insert_order, key, obj))
    connection = session.connection()
    for column, rows in new.items():
        top = connection.execute(select(func.max(column))).scalar() or 0
        for number, (_order, key, obj) in enumerate(sorted(rows, key=lambda r: r[0]), top + 1):
            setattr(obj, key, number)


def _single_writer(session: Session) -> bool:
    """Whether the database takes one writer at a time (SQLite), not row locks."""
    return session.get_bind().dialect.name == "sqlite"


def _recorded(session: Session, messages: Sequence[tuple[str, str | None]]) -> list[InboundMessage]:
    """The inbound rows recording any of ``messages`` (the hash of its bytes, or its
    fingerprint), oldest first, in one query."""
    shas = sorted({sha for sha, _mark in messages})
    marks = sorted({mark for _sha, mark in messages if mark is not None})
    clauses = [InboundMessage.raw_sha256.in_(shas)]
    if marks:
        clauses.append(InboundMessage.fingerprint.in_(marks))
    query = select(InboundMessage).where(or_(*clauses)).order_by(InboundMessage.id)
    return list(session.scalars(query).all())


def _first_of(rows: Sequence[InboundMessage], sha: str, mark: str | None) -> InboundMessage | None:
    """The row among ``rows`` that records the message: the same bytes, or the same
    Message-ID from the same sender with the same text.

    Its place in the mailbox (folder, UIDVALIDITY, UID) decides nothing: a
    mailbox made anew may hand out the same numbers again to new messages.
    """
    return next((r for r in rows if r.raw_sha256 == sha or (mark and r.fingerprint == mark)), None)


def _short(value: str | None, size: int = 80) -> str:
    if not value:
        return "-"
    return value if len(value) <= size else value[: size - 1] + "…"


def _storable(value: str, size: int = 2000) -> str:
    """Text the database takes whatever the mail put in it (reasons, errors)."""
    return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]", "", value)[:size]


#: The machine mail that may be a delivery report (never an auto-reply, a list's mail or
#: the bot's own): only these are read for the failures they report.
_REPORT_KINDS = frozenset(
    {AutoKind.DELIVERY_REPORT, AutoKind.MAILER_DAEMON, AutoKind.AUTO_SUBMITTED,
     AutoKind.EMPTY_RETURN_PATH}
)  # fmt: skip


def _count_bounces(
    session: Session, row: Outbox, addresses: Sequence[str], now: datetime.datetime
) -> tuple[int, ...]:
    """Count a bounce on each player at ``addresses`` (of the row's tournament, if it is
    about a game); the players whose address has now bounced
    :data:`~mailbot.store.models.BOUNCES_MARKED` times or more."""
    query = select(Player).where(Player.email.in_(addresses))
    if row.game is not None:
        query = query.where(Player.tournament_id == row.game.tournament_id)
    marked = []
    for player in session.scalars(query.order_by(Player.id)).all():
        player.bounces += 1
        player.bounced_at = now
        if player.bounces >= BOUNCES_MARKED:
            marked.append(player.id)
    return tuple(marked)


# ---------------------------------------------------------------------------
# The desk


class Desk:
    """Handles inbound messages; see the module docstring."""

    def __init__(
        self, sessions: sessionmaker[Session], policy: Policy, renderer: Renderer | None = None
    ) -> None:
        self.sessions = sessions
        self.policy = policy
        self.renderer = renderer or Renderer()

    # -- entry point ---------------------------------------------------------

    def receive(self, fetched: Fetched, now: datetime.datetime) -> Outcome:
        """Handle one fetched message.

        Never raises for a bad message, however broken; raises
        :class:`StoreUnavailable` when the store is at fault.
        """
        letter, sha, mark = self._read(fetched)
        try:
            outcome = self._receive(fetched, letter, sha, mark, now)
        except StoreUnavailable:
            raise
        except Exception as exc:
            self._check_store(exc)
            log.warning(
                "message %s from %s failed: %s: %s",
                _short(letter.message_id),
                _short(letter.from_addr),
                type(exc).__name__,
                _short(str(exc), 300),
            )
            log.debug("the failure in full", exc_info=True)
            return self._failed(letter, sha, mark, fetched, now, exc)
        return outcome

    def receive_all(
        self,
        batch: Sequence[Fetched],
        now: datetime.datetime,
        stopping: Callable[[], bool] = lambda: False,
    ) -> list[Outcome]:
        """Handle ``batch`` in one transaction: one commit, one disk flush, for them all.

        The outcomes are what :meth:`receive` gives one message at a time, in
        order; the caller files the messages only after this returns, when
        the batch is durable. If any message of the batch fails (or another
        worker handled one first), the whole batch is rolled back and its
        messages are handled again one at a time, each in its own
        transaction, so a bad message costs the others nothing. Once
        ``stopping()`` says so, the messages handled so far are committed and
        the rest left: the outcomes are then fewer than the messages.

        The messages' rows are recorded first, in a short transaction of their
        own, as ``new``; a row's change from ``new`` is committed with what
        its message did. The batch claims the rows (:meth:`_claim`) before it
        reads a game, so a second worker on PostgreSQL waits for the first
        and then finds the messages handled. On SQLite, which has one worker
        and one write lock for the whole database, the claim comes with the
        batch's first write, for a batch of moves at its end: the lock is
        held only while the batch writes, so a courier sending the answers
        of the batch before can mark them sent meanwhile.
        """
        if len(batch) < 2:
            return [self.receive(fetched, now) for fetched in batch[:1]]
        said: list[str] = []
        try:
            with self.sessions() as session:
                read = [self._read(fetched) for fetched in batch]
                single_writer = _single_writer(session)
                with session.begin():
                    if single_writer:
                        _hold_write_lock(session)
                    rows, made = self._record_all(session, batch, read, now)
                with session.begin():
                    outcomes: list[Outcome] = []
                    unhandled = {row.id for row in rows if row.status == "new"}
                    if single_writer:
                        session.info[_CLAIM] = unhandled  # at the batch's first write
                    else:
                        self._claim(session, unhandled)
                    # the session's Recent holds them for the batch
                    prefetch_games(session, (r[0].game_tag for r in read if r[0].game_tag))
                    day = now.astimezone(ZoneInfo(self.policy.timezone)).date()
                    prefetch_senders(session, (r[0].from_addr for r in read if r[0].from_addr), day)
                    for fetched, (letter, sha, mark), row in zip(batch, read, rows, strict=True):
                        if outcomes and stopping():
                            break
                        outcomes.append(
                            self._take(session, fetched, letter, sha, mark, now, said, row)
                        )
                    taken = {row.id for row in rows[: len(outcomes)]} & unhandled
                    for row in rows[len(outcomes) :]:
                        # recorded for a message this pass leaves in the mailbox: the next
                        # pass records it again
                        if row.id in made and row.id not in taken:
                            session.delete(row)
        except Exception as exc:
            fault = fault_of(exc, where_of(self.sessions))
            if fault is not None:
                raise StoreUnavailable(fault) from exc
            log.info(
                "a batch of %d messages was rolled back (%s); one at a time",
                len(batch),
                type(exc).__name__,
            )
            outcomes = []
            for fetched in batch:
                if outcomes and stopping():
                    break
                outcomes.append(self.receive(fetched, now))
            return outcomes
        for line in said:
            log.info("%s", line)
        return outcomes

    @staticmethod
    def _claim(session: Session, ids: Iterable[int]) -> None:
        """Take the rows ``ids`` (``new`` when the batch began) as this batch's:
        :class:`BatchTaken` if another worker has handled one meanwhile.

        It locks the rows (on SQLite the whole database), so it waits for
        any transaction holding them and then sees them handled.
        """
        wanted = sorted(set(ids))
        if not wanted:
            return
        claimed = session.connection().execute(
            update(InboundMessage)
            .where(InboundMessage.id.in_(wanted), InboundMessage.status == "new")
            .values(attempts=InboundMessage.attempts)
        )
        if claimed.rowcount != len(wanted):
            raise BatchTaken(f"{len(wanted) - claimed.rowcount} of the batch's messages")

    def _read(self, fetched: Fetched) -> tuple[Letter, str, str | None]:
        """The message read, the hash of its bytes and its fingerprint."""
        letter = read_letter(fetched.raw, own_addresses=(self.policy.address,))
        return letter, hashlib.sha256(fetched.raw).hexdigest(), fingerprint(letter)

    def _receive(
        self,
        fetched: Fetched,
        letter: Letter,
        sha: str,
        mark: str | None,
        now: datetime.datetime,
    ) -> Outcome:
        said: list[str] = []
        try:
            with self.sessions() as session, session.begin():
                outcome = self._take(session, fetched, letter, sha, mark, now, said)
        except BatchTaken:
            log.info("message %s handled by another worker", _short(letter.message_id))
            return Outcome.DUPLICATE
        except IntegrityError:
            with self.sessions() as session:
                known = self._find(session, sha, mark)
                if known is not None and known.status != "new":
                    # another worker recorded the same message first
                    log.info("message %s already recorded", _short(letter.message_id))
                    return Outcome.DUPLICATE
            raise  # any other conflict is a failure like the rest: retried, then quarantined
        for line in said:
            log.info("%s", line)
        return outcome

    def _record_all(
        self,
        session: Session,
        batch: Sequence[Fetched],
        read: Sequence[tuple[Letter, str, str | None]],
        now: datetime.datetime,
    ) -> tuple[list[InboundMessage], set[int]]:
        """Each message's inbound row: the one recorded before, else a new one; and the
        ids of the new ones.

        The rows are what :meth:`_find` and :meth:`_record` would give one
        message after another: a message the same as an earlier one of the
        batch (bytes or fingerprint) finds that one's row, which by its turn
        has been handled.
        """
        known = _recorded(session, [(sha, mark) for _letter, sha, mark in read])
        rows: list[InboundMessage] = []
        made: list[InboundMessage] = []
        for fetched, (letter, sha, mark) in zip(batch, read, strict=True):
            row = _first_of(known, sha, mark)
            if row is None:
                row = self._record(session, letter, sha, mark, fetched, now, flush=False)
                known.append(row)
                made.append(row)
            rows.append(row)
        session.flush()
        return rows, {row.id for row in made}

    def _take(
        self,
        session: Session,
        fetched: Fetched,
        letter: Letter,
        sha: str,
        mark: str | None,
        now: datetime.datetime,
        said: list[str],
        recorded: InboundMessage | None = None,
    ) -> Outcome:
        """Record and handle one message in ``session``'s transaction (the caller commits,
        then logs ``said``); ``recorded``, its row when the caller found or recorded it.

        A message handled before is a duplicate; a copy of poison (or of one
        whose filing was cut short) joins it in quarantine.
        """
        inbound = recorded or self._find(session, sha, mark)
        if inbound is not None and inbound.status == "quarantined":
            return Outcome.QUARANTINED
        if inbound is None:
            inbound = self._record(session, letter, sha, mark, fetched, now)
        elif recorded is None and inbound.status == "new":
            # recorded, not handled: by a pass cut short, or by a worker handling it now
            self._claim(session, {inbound.id})
        elif inbound.status != "new":
            log.info("message %s: already handled", _short(letter.message_id))
            return Outcome.DUPLICATE
        ctx = self._context(session, inbound, letter, now)
        self._handle(ctx)
        ctx.notifier.tell(*ctx.events)
        if inbound.status == "new":
            inbound.status = "processed"
        inbound.handled_at = now
        inbound.reason = _storable(inbound.reason) if inbound.reason else None
        said.append(self._outcome_line(ctx))
        return Outcome.IGNORED if inbound.status == "ignored" else Outcome.HANDLED

    @staticmethod
    def _outcome_line(ctx: Context) -> str:
        """What the log says of a handled message (written once it is committed)."""
        row = ctx.inbound
        where = ""
        g = ctx.session.get(Game, row.game_id) if row.game_id else None
        if g is not None:
            last = f" {g.moves[-1].uci}" if g.moves else ""
            where = f" game {tag_of(g)} ply {len(g.moves)}{last}"
        reason = f" ({_short(row.reason, 160)})" if row.reason else ""
        return (
            f"message {_short(ctx.letter.message_id)} from {_short(ctx.letter.from_addr)}:"
            f"{where} {row.status}{reason}"
        )

    def _check_store(self, exc: BaseException) -> None:
        """Raise :class:`StoreUnavailable` when the store, not the message, is at fault."""
        fault = diagnose(self.sessions, exc)
        if fault is not None:
            raise StoreUnavailable(fault) from exc

    def _find(self, session: Session, sha: str, mark: str | None) -> InboundMessage | None:
        # One query. What the session holds back (the previous message's answers) goes to the
        # database with this message's row.
        with held_back(session, InboundMessage):
            found = _recorded(session, [(sha, mark)])
        return _first_of(found, sha, mark)

    def _record(
        self,
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
        row = InboundMessage(
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
            status="new",
            attempts=0,
            created_at=now,
        )
        session.add(row)
        if flush:
            session.flush()
        return row

    def _failed(
        self,
        letter: Letter,
        sha: str,
        mark: str | None,
        fetched: Fetched,
        now: datetime.datetime,
        exc: Exception,
    ) -> Outcome:
        """Count a failed attempt in a transaction of its own; quarantine after the last.

        If even that fails with what the letter says, the bare message is
        recorded; if nothing can be recorded although the store shows that it
        writes, it goes to quarantine unrecorded (its bytes stay in the
        quarantine folder).
        """
        for bare in (False, True):
            try:
                return self._count_failure(None if bare else letter, sha, mark, fetched, now, exc)
            except Exception as again:
                self._check_store(again)
                log.warning("recording the failure failed: %s", _short(str(again), 300))
        fault = probe(self.sessions)
        if fault is not None:
            raise StoreUnavailable(fault) from exc
        log.error(
            "message %s from %s cannot be recorded; it goes to quarantine",
            _short(letter.message_id),
            _short(letter.from_addr),
        )
        return Outcome.QUARANTINED

    def _count_failure(
        self,
        letter: Letter | None,
        sha: str,
        mark: str | None,
        fetched: Fetched,
        now: datetime.datetime,
        exc: Exception,
    ) -> Outcome:
        with self.sessions() as session, session.begin():
            row = self._find(session, sha, mark if letter else None) or self._record(
                session, letter, sha, mark, fetched, now
            )
            row.attempts += 1
            row.last_error = _storable(f"{type(exc).__name__}: {exc}")
            if row.attempts < MAX_ATTEMPTS:
                return Outcome.FAILED
            row.status = "quarantined"
            row.reason = f"failed {row.attempts} times"
            row.handled_at = now
            log.error(
                "message %s from %s quarantined after %d failures: %s",
                _short(row.message_id),
                _short(row.from_addr),
                row.attempts,
                _short(row.last_error, 300),
            )
            self._tell_directors_of_quarantine(session, row, now)
        return Outcome.QUARANTINED

    def _tell_directors_of_quarantine(
        self, session: Session, row: InboundMessage, now: datetime.datetime
    ) -> None:
        sender = row.from_addr or ""
        players = players_writing_from(session, sender)
        tournaments = [p.tournament for p in players] or list(
            session.scalars(select(Tournament)).all()
        )
        day = now.astimezone(ZoneInfo(self.policy.timezone)).date().isoformat()
        told = [
            t.id
            for t in tournaments
            # strangers' poison: one notice a day is enough to go and look
            if players or self._first_today(session, t, day, now)
        ]
        notifier = Notifier(session, self.policy.sender, now, renderer=self.renderer)
        notifier.tell(ev.Quarantined(row.id, tuple(told)))

    @staticmethod
    def _first_today(session: Session, t: Tournament, day: str, now: datetime.datetime) -> bool:
        """Whether this is the day's first quarantine of a stranger's mail for ``t``."""
        key = f"{t.id}:{day}"
        found = session.scalars(
            select(Notice.id).where(
                Notice.game_id.is_(None), Notice.kind == "quarantine", Notice.key == key
            )
        ).first()
        if found is not None:
            return False
        session.add(Notice(tournament_id=t.id, kind="quarantine", key=key, created_at=now))
        session.flush()
        return True

    # -- the pipeline: trust, route, handle --------------------------------------

    def _context(self, session: Session, inbound: InboundMessage, letter: Letter,
                 now: datetime.datetime) -> Context:  # fmt: skip
        notifier = Notifier(session, self.policy.sender, now, renderer=self.renderer)
        limits = Limits(self.policy.replies_per_sender_per_day, self.policy.timezone)
        ctx = Context(
            session=session,
            now=now,
            inbound_id=inbound.id,
            inbound=inbound,
            letter=letter,
            limits=limits,
            notifier=notifier,
            tablebases=self.policy.tablebases,
        )
        notifier.origin = Origin(
            letter.from_addr,
            letter.message_id,
            letter.references,
            inbound.id,
            may_answer=ctx.may_answer,
        )
        return ctx

    def _handle(self, ctx: Context) -> None:
        """The stages a message goes through: trust, route, handle."""
        if not self._trusted(ctx):
            return
        ctx.players = players_writing_from(ctx.session, ctx.sender)
        ctx.directed = director.tournaments_of(ctx.session, ctx.sender)
        self._route(ctx)

    def _trusted(self, ctx: Context) -> bool:
        """Machine mail, a From that names no one (or someone else too), a DMARC failure:
        ignored, and answered never."""
        letter, inbound = ctx.letter, ctx.inbound
        if letter.auto is not None:
            if letter.auto in _REPORT_KINDS and self._delivery_report(ctx):
                return False
            inbound.status, inbound.reason = "ignored", f"automatic mail: {letter.auto.value}"
            return False
        problem = trust.sender_problem(letter.senders, letter.from_fields)
        if problem is None and not letter.from_addr:
            problem = "no sender address"
        if problem is None:
            problem = self._authentication_refusal(ctx)
        if problem is not None:
            inbound.status, inbound.reason = "ignored", problem
            log.warning(
                "ignored %s from %s: %s",
                _short(letter.message_id),
                _short(letter.from_addr),
                problem,
            )
            return False
        return True

    @staticmethod
    def _delivery_report(ctx: Context) -> bool:
        """Act on a delivery report that names a row the bot sent; False for machine
        mail that reports no failure (ignored as automatic mail).

        A permanent failure marks the row ``bounced`` and tells who must know
        (:class:`~mailbot.rules.events.Bounced`); a temporary one is noted on the row and
        told to nobody; a report that names no row the bot sent to that address,
        or a row that bounced already, changes nothing.
        """
        inbound = ctx.inbound
        report = bounces.read_report(inbound.raw)
        if not report.failures:
            return False
        found = bounce_of(ctx.session, report)
        row = found.row
        machine = f"automatic mail: {ctx.letter.auto.value if ctx.letter.auto else 'report'}"
        if row is None:
            inbound.status = "ignored"
            inbound.reason = f"{machine} (a delivery report {found.why}; nothing done)"
            log.warning("ignored the delivery report %s: %s", _short(inbound.message_id),
                        found.why)  # fmt: skip
            return True
        permanent = [f for f in found.failures if f.permanent]
        said = "; ".join(f"{f.address}: {f.reason or '?'}" for f in permanent or found.failures)
        if row.status == "bounced":
            inbound.status = "ignored"
            inbound.reason = f"{machine} (about outbox {row.id}, which bounced already)"
            return True
        inbound.game_id = row.game_id
        if not permanent:
            row.last_error = _storable(f"delayed: {said}")
            inbound.reason = f"delivery delayed: outbox {row.id} ({said})"
            return True
        row.status, row.bounced_at, row.last_error = "bounced", ctx.now, _storable(said)
        marked = _count_bounces(ctx.session, row, [f.address for f in permanent], ctx.now)
        reasons = dict.fromkeys(f.reason for f in permanent if f.reason)
        ctx.tell(
            ev.Bounced(row.id, ", ".join(f.address for f in permanent), "; ".join(reasons), marked)
        )
        inbound.reason = f"delivery report: outbox {row.id} bounced ({said})"
        log.warning("outbox %s bounced: %s", row.id, _short(said, 300))
        return True

    def _authentication_refusal(self, ctx: Context) -> str | None:
        """Why the sender cannot be trusted under the policy, or None.

        Sets ``ctx.authenticated`` when the receiving server vouches for the From.
        """
        authserv = self.policy.authserv_id
        if not authserv:
            return None
        letter = ctx.letter
        domain = letter.from_addr.rpartition("@")[2]
        verdict = trust.dmarc_verdict(letter.authentication_results, authserv, domain)
        ctx.authenticated = verdict is trust.Dmarc.PASS
        if verdict is trust.Dmarc.FAIL:
            return "DMARC failed"
        if self.policy.require_dmarc and verdict is not trust.Dmarc.PASS:
            return "no DMARC pass from the receiving server"
        return None

    def _route(self, ctx: Context) -> None:
        """To the handler the message is for: orders, leave, a game, or an answer."""
        letter = ctx.letter
        if ctx.known and (not letter.readable or (letter.garbled and not letter.body.strip())):
            answers.unreadable(ctx)
            return
        if ctx.directed and orders.orders(ctx):
            return
        ctx.words = read_words(letter.body)
        if not ctx.directed and orders.refuse_others(ctx):
            return
        if ctx.players and ctx.words.has(Word.LEAVE):
            if not answers.secret_missing(ctx, ctx.players[0]):
                handler_requests.leave(ctx)
            return
        if ctx.players and ctx.words.has(Word.DIGEST):
            if not answers.secret_missing(ctx, ctx.players[0]):
                digest.digest(ctx)
            return
        g, tag_problem = self._which_game(ctx)
        if g is None:
            answers.without_game(ctx, tag_problem)
            return
        ctx.inbound.game_id = g.id
        ctx.game = g
        ctx.mover = next((p for p in (g.white, g.black) if p.writes_from(ctx.sender)), None)
        if ctx.mover is None:
            answers.stranger(ctx, g)
        elif not answers.secret_missing(ctx, ctx.mover):
            handlers.in_game(ctx)

    def _which_game(self, ctx: Context) -> tuple[Game | None, str | None]:
        """The game a message is about: subject tag, else thread, else the only one to move."""
        session, letter = ctx.session, ctx.letter
        if letter.game_tag:
            index, _, number = letter.game_tag.rpartition("/")
            g = (
                recent(session).games.get((index, int(number)))
                or session.scalars(
                    select(Game)
                    .join(Tournament)
                    .where(Tournament.index == index, Game.number == int(number))
                ).first()
            )
            return (g, None) if g is not None else (None, letter.game_tag)
        thread = [*letter.in_reply_to, *letter.references]
        if thread:
            row = session.scalars(
                select(Outbox)
                .where(Outbox.message_id.in_(thread), Outbox.game_id.is_not(None))
                .order_by(Outbox.id.desc())
            ).first()
            if row is not None and row.game is not None:
                return row.game, None
        to_move = [
            g
            for p in ctx.players
            for g in ctx.games_of(p)
            if g.result is None and (g.white if len(g.moves) % 2 == 0 else g.black).id == p.id
        ]
        return (to_move[0], None) if len(to_move) == 1 else (None, None)
