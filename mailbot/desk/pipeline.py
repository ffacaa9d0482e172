"""The arbiter's desk: the one place that opens a transaction for a message.

One inbound message is handled in one database transaction: its row (with the
raw bytes), the moves and penalties it causes, and every reply it causes in
the outbox (in a batch, the row is recorded as ``new`` just before, and its
change from ``new`` is committed with the rest). It goes through named
stages: *record* (:func:`mailbot.desk.duplicates.record`), *trust* (machine
mail, the From, DMARC: :mod:`mailbot.desk.admission`), *route* (to the
director's orders, a player's word, the game it is about, or an answer:
:mod:`mailbot.desk.routes`), *handle* (the word's handler in
:mod:`mailbot.desk.handlers`, which records what changes and returns events),
*notify* (the :class:`~mailbot.compose.notifier.Notifier` queues the mail the events
mean) and *commit*. A message already handled is recognised by the hash of its bytes
or its fingerprint (the same Message-ID from the same sender with the same
text: :mod:`mailbot.desk.duplicates`), and is not applied again. A reused
Message-ID alone proves nothing, and neither does a reused place in the
mailbox (folder, UIDVALIDITY, UID): that message is new.

Whatever fails in one message stays with that message: the failure is
recorded in a transaction of its own, the message is tried again at the next
pass, and after :data:`MAX_ATTEMPTS` it goes to quarantine and the director
is told once (:mod:`mailbot.desk.failures`). Each message's handling has a
time budget (:data:`BUDGET`), checked between its stages: reading a message is
bounded and linear in its size by construction (the text to 1 MB, moves and
words from its first 20,000 characters, HTML through a linear parser), so the
budget is the backstop for whatever else might take long. A message past it
is rolled back and goes to quarantine at once (another try would cost as much
again), the director is told once, and the pass goes on with the others. The
daemon's forced stop owns SIGALRM, so the budget is a deadline looked at
between the stages, not a signal. Only the store's own faults stop
the pass: a database that cannot be reached, or one that refuses to write for
its own reasons (a full disk, a read-only file, an I/O error:
:mod:`mailbot.store.outage`). Then no message is charged for it and the messages stay in the inbox
(:class:`~mailbot.store.outage.StoreUnavailable`); a message goes to quarantine
unrecorded only once the store has shown that it writes.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import functools
import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from zoneinfo import ZoneInfo

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from mailbot.compose.catalogue import say_kept
from mailbot.compose.notices import Renderer
from mailbot.compose.notifier import Gathering, Notifier, Origin
from mailbot.desk import admission, director, duplicates, routes
from mailbot.desk.claims import CLAIM, BatchTaken, claim, hold_write_lock, single_writer
from mailbot.desk.failures import tell_directors_of_quarantine
from mailbot.desk.handlers.context import Context, Limits
from mailbot.desk.notes import short, storable
from mailbot.mail.addresses import normal_address
from mailbot.mail.inbox import Fetched
from mailbot.mail.letters import Letter, read_letter
from mailbot.mail.postman import compose_address
from mailbot.rules.errors import DeskError
from mailbot.store.kinds import InboundStatus
from mailbot.store.models import Game, InboundMessage
from mailbot.store.outage import (
    StoreUnavailable,
    diagnose,
    probe,
    raise_if_outage,
)
from mailbot.store.queries import (
    players_writing_from,
    prefetch_games,
    prefetch_senders,
    prefetch_texts,
)
from mailbot.store.received import count_failure, forget_inbound, mark_processed, quarantine_failed
from mailbot.store.record import tag_of

log = logging.getLogger(__name__)

#: A message that failed this many times goes to quarantine.
MAX_ATTEMPTS = 3
#: Seconds one message's handling may take before it is set aside (checked between stages).
BUDGET = 60.0


class OverBudget(DeskError, TimeoutError):
    """A message's handling took longer than :data:`BUDGET`; ``stage`` is where it was seen.

    The budget is written as it is set, a fraction of a second too:

    >>> str(OverBudget("route", 61.3))
    'handling took 61.3 s, over the budget of 60 s (route)'
    """

    def __init__(self, stage: str, took: float) -> None:
        super().__init__(f"handling took {took:.1f} s, over the budget of {BUDGET:g} s ({stage})")
        self.stage = stage


@dataclasses.dataclass
class _Budget:
    """The deadline of one message's handling, looked at between its stages."""

    started: float = dataclasses.field(default_factory=time.monotonic)

    def check(self, stage: str) -> None:
        took = time.monotonic() - self.started
        if took > BUDGET:
            raise OverBudget(stage, took)


class Outcome(enum.Enum):
    """What became of one inbound message."""

    HANDLED = "handled"
    DUPLICATE = "duplicate"
    IGNORED = "ignored"
    FAILED = "failed"
    QUARANTINED = "quarantined"


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
    #: The Xfcc service's public URL, if the daemon serves Xfcc.
    xfcc_url: str | None = None

    @functools.cached_property
    def address(self) -> str:
        """The bot's own address, read from ``sender`` once (every message asks).

        >>> Policy("Federation CC <Bot@Federation.example>").address
        'bot@federation.example'
        """
        return normal_address(compose_address(self.sender))


#: One message as the desk reads it: the letter, the hash of its bytes, its fingerprint.
Read = tuple[Letter, str, str | None]


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
                short(letter.message_id),
                short(letter.from_addr),
                type(exc).__name__,
                short(str(exc), 300),
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
        its message did. The batch claims the rows (:func:`~mailbot.desk.claims.claim`)
        before it reads a game, so a second worker on PostgreSQL waits for the first
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
                lone_writer = single_writer(session)
                with session.begin():
                    if lone_writer:
                        hold_write_lock(session)
                    rows, made = duplicates.record_all(session, batch, read, now)
                with session.begin():
                    outcomes = self._take_batch(
                        session, batch, read, (rows, made), now, stopping, said, lone_writer
                    )
        except Exception as exc:
            raise_if_outage(self.sessions, exc)
            log.info(
                "a batch of %d messages was rolled back (%s); one at a time",
                len(batch),
                type(exc).__name__,
            )
            return self._one_at_a_time(batch, now, stopping)
        for line in said:
            log.info("%s", line)
        return outcomes

    def _take_batch(
        self,
        session: Session,
        batch: Sequence[Fetched],
        read: Sequence[Read],
        recorded: tuple[list[InboundMessage], set[int]],
        now: datetime.datetime,
        stopping: Callable[[], bool],
        said: list[str],
        lone_writer: bool,
    ) -> list[Outcome]:
        """Claim and handle the batch's messages in ``session``'s transaction, until
        ``stopping()``; ``recorded``, their rows and the ids of those made new for it."""
        rows, made = recorded
        outcomes: list[Outcome] = []
        unhandled = {row.id for row in rows if row.status == InboundStatus.NEW}
        if lone_writer:
            session.info[CLAIM] = unhandled  # at the batch's first write
        else:
            claim(session, unhandled)
        # the session's Recent holds them for the batch
        prefetch_games(session, (r[0].game_tag for r in read if r[0].game_tag))
        prefetch_texts(session, (row.text_sha256 for row in rows if row.text_sha256))
        day = now.astimezone(ZoneInfo(self.policy.timezone)).date()
        prefetch_senders(session, (r[0].from_addr for r in read if r[0].from_addr), day)
        # the notices of the batch's messages to a reader who wrote none of them go as one
        gathering = Gathering(Notifier(session, self.policy.sender, now, renderer=self.renderer))
        for fetched, (letter, sha, mark), row in zip(batch, read, rows, strict=True):
            if outcomes and stopping():
                break
            outcomes.append(
                self._take(session, fetched, letter, sha, mark, now, said, row, gathering)
            )
        gathering.send()
        taken = {row.id for row in rows[: len(outcomes)]} & unhandled
        for row in rows[len(outcomes) :]:
            # recorded for a message this pass leaves in the mailbox: the next
            # pass records it again
            if row.id in made and row.id not in taken:
                forget_inbound(session, row)
        return outcomes

    def _one_at_a_time(
        self, batch: Sequence[Fetched], now: datetime.datetime, stopping: Callable[[], bool]
    ) -> list[Outcome]:
        """The batch's messages each in a transaction of its own, until ``stopping()``."""
        outcomes: list[Outcome] = []
        for fetched in batch:
            if outcomes and stopping():
                break
            outcomes.append(self.receive(fetched, now))
        return outcomes

    def _read(self, fetched: Fetched) -> Read:
        """The message read, the hash of its bytes and its fingerprint."""
        letter = read_letter(fetched.raw, own_addresses=(self.policy.address,))
        return letter, hashlib.sha256(fetched.raw).hexdigest(), duplicates.fingerprint(letter)

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
            log.info("message %s handled by another worker", short(letter.message_id))
            return Outcome.DUPLICATE
        except IntegrityError:
            with self.sessions() as session:
                known = duplicates.find(session, sha, mark)
                if known is not None and known.status != InboundStatus.NEW:
                    # another worker recorded the same message first
                    log.info("message %s already recorded", short(letter.message_id))
                    return Outcome.DUPLICATE
            raise  # any other conflict is a failure like the rest: retried, then quarantined
        for line in said:
            log.info("%s", line)
        return outcome

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
        gathering: Gathering | None = None,
    ) -> Outcome:
        """Record and handle one message in ``session``'s transaction (the caller commits,
        then logs ``said``); ``recorded``, its row when the caller found or recorded it.

        A message handled before is a duplicate; a copy of poison (or of one
        whose filing was cut short) joins it in quarantine. With a ``gathering``,
        the notices to readers other than the sender wait for the rest of the batch.
        """
        inbound = recorded or duplicates.find(session, sha, mark)
        if inbound is not None and inbound.status == InboundStatus.QUARANTINED:
            return Outcome.QUARANTINED
        if inbound is None:
            inbound = duplicates.record(session, letter, sha, mark, fetched, now)
        elif recorded is None and inbound.status == InboundStatus.NEW:
            # recorded, not handled: by a pass cut short, or by a worker handling it now
            claim(session, {inbound.id})
        elif inbound.status != InboundStatus.NEW:
            log.info("message %s: already handled", short(letter.message_id))
            return Outcome.DUPLICATE
        budget = _Budget()
        ctx = self._context(session, inbound, letter, now)
        ctx.notifier.gathering = gathering
        self._handle(ctx, budget)
        budget.check("handle")
        ctx.notifier.tell(*ctx.events)
        if ctx.last_answer is not None:  # the cap was reached while telling, if not before
            ctx.notifier.tell(ctx.last_answer)
        budget.check("notify")
        mark_processed(inbound, now)
        said.append(self._outcome_line(ctx))
        return Outcome.IGNORED if inbound.status == InboundStatus.IGNORED else Outcome.HANDLED

    @staticmethod
    def _outcome_line(ctx: Context) -> str:
        """What the log says of a handled message (written once it is committed)."""
        row = ctx.inbound
        where = ""
        g = ctx.session.get(Game, row.game_id) if row.game_id else None
        if g is not None:
            last = f" {g.moves[-1].uci}" if g.moves else ""
            where = f" game {tag_of(g)} ply {len(g.moves)}{last}"
        said = say_kept("en", row.reason_phrase, row.reason)
        reason = f" ({short(said, 160)})" if said else ""
        return (
            f"message {short(ctx.letter.message_id)} from {short(ctx.letter.from_addr)}:"
            f"{where} {row.status}{reason}"
        )

    def _check_store(self, exc: BaseException) -> None:
        """Raise :class:`StoreUnavailable` when the store, not the message, is at fault."""
        fault = diagnose(self.sessions, exc)
        if fault is not None:
            raise StoreUnavailable(fault) from exc

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
                log.warning("recording the failure failed: %s", short(str(again), 300))
        fault = probe(self.sessions)
        if fault is not None:
            raise StoreUnavailable(fault) from exc
        log.error(
            "message %s from %s cannot be recorded; it goes to quarantine",
            short(letter.message_id),
            short(letter.from_addr),
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
            row = duplicates.find(session, sha, mark if letter else None) or duplicates.record(
                session, letter, sha, mark, fetched, now
            )
            attempts = count_failure(row, storable(f"{type(exc).__name__}: {exc}"))
            if attempts < MAX_ATTEMPTS and not isinstance(exc, OverBudget):
                return Outcome.FAILED
            quarantine_failed(row, now)
            log.error(
                "message %s from %s quarantined at its attempt %d: %s",
                short(row.message_id),
                short(row.from_addr),
                row.attempts,
                short(row.last_error, 300),
            )
            day = now.astimezone(ZoneInfo(self.policy.timezone)).date().isoformat()
            tell_directors_of_quarantine(session, row, now, day, self.policy.sender, self.renderer)
        return Outcome.QUARANTINED

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
            xfcc_url=self.policy.xfcc_url,
        )
        notifier.origin = Origin(
            letter.from_addr,
            letter.message_id,
            letter.references,
            inbound.id,
            may_answer=ctx.may_answer,
        )
        return ctx

    def _handle(self, ctx: Context, budget: _Budget) -> None:
        """The stages a message goes through: trust, route, handle."""
        policy = self.policy
        if not admission.trusted(ctx, policy.authserv_id, policy.require_dmarc):
            return
        budget.check("trust")
        ctx.players = players_writing_from(ctx.session, ctx.sender)
        ctx.directed = director.tournaments_of(ctx.session, ctx.sender)
        routes.route(ctx)
