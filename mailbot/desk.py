"""The arbiter's desk: the one place that opens a transaction and calls the core.

One inbound message is handled in one database transaction: its row (with the
raw bytes), the moves and penalties it causes, and every reply it causes in
the outbox. A message already handled is recognised by the hash of its bytes,
its (folder, UIDVALIDITY, UID), or its fingerprint (the same Message-ID from
the same sender with the same text), and is not applied again (design.md,
invariant 1). A reused Message-ID alone proves nothing: that message is new.

Whatever fails in one message stays with that message: the failure is
recorded in a transaction of its own, the message is tried again at the next
pass, and after :data:`MAX_ATTEMPTS` it goes to quarantine and the director
is told once. Only a database that cannot be reached stops the pass
(:class:`StoreUnavailable`).
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import hashlib
import logging
import re
from collections.abc import Sequence
from typing import Any
from zoneinfo import ZoneInfo

import chess
from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from mailbot import director, game, referee, requests, trust
from mailbot.addresses import normal_address
from mailbot.gamemail import Mailer, director_error_notice, finish_game, game_summary
from mailbot.inbox import Fetched
from mailbot.intent import Word, Words, help_words, read_words
from mailbot.letters import Letter, read_letter
from mailbot.notation import read_moves, write_move
from mailbot.notices import Renderer
from mailbot.outbox import queue
from mailbot.postman import compose_address
from mailbot.record import (
    board_of,
    color_name,
    color_of,
    control_of,
    days_for,
    language_for,
    local_date,
    move_line,
    notation_for,
    profile_of,
    tag_of,
    totals,
    write_pair_from,
)
from mailbot.store import (
    Claim,
    Game,
    HeldOrder,
    InboundMessage,
    Move,
    Notice,
    Outbox,
    Penalty,
    Player,
    ReplyCount,
    Tournament,
    store_problem,
)
from mailbot.sweep import overstep_on_move, play_stops_at

log = logging.getLogger(__name__)

#: A message that failed this many times goes to quarantine.
MAX_ATTEMPTS = 3
#: How long orders held for the director's confirmation stay open.
HOLD_DAYS = 7
#: Moves are read from the first this-many characters of a message's new text.
MOVE_TEXT = 20_000
#: The words that answer the director's confirmation request.
_ANSWERS = frozenset({"confirm", "reject"})
#: The same text from the same sender is answered this many times a day at most.
ECHOES_ANSWERED = 2
#: A sender who is neither a player nor a director gets at most this many answers a day.
STRANGER_ANSWERS_PER_DAY = 1


class Outcome(enum.Enum):
    """What became of one inbound message."""

    HANDLED = "handled"
    DUPLICATE = "duplicate"
    IGNORED = "ignored"
    FAILED = "failed"
    QUARANTINED = "quarantined"


class StoreUnavailable(RuntimeError):
    """The database cannot be reached: no message can be handled until it is back."""


@dataclasses.dataclass(frozen=True)
class Policy:
    """Who the desk trusts and how much it answers."""

    sender: str
    authserv_id: str | None = None
    require_dmarc: bool = False
    replies_per_sender_per_day: int = 20
    #: The days of the reply cap are counted in this time zone.
    timezone: str = "UTC"

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


def _short(value: str | None, size: int = 80) -> str:
    if not value:
        return "-"
    return value if len(value) <= size else value[: size - 1] + "…"


def _storable(value: str, size: int = 2000) -> str:
    """Text the database takes whatever the mail put in it (reasons, errors)."""
    return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]", "", value)[:size]


# ---------------------------------------------------------------------------
# The desk


@dataclasses.dataclass
class _Context:
    """What one message's handling needs along the way."""

    session: Session
    inbound: InboundMessage
    letter: Letter
    now: datetime.datetime
    #: Whether the reply cap lets the bot answer the sender (decided once per message).
    answering: bool | None = None
    #: The sender plays or directs in a tournament (a stranger gets fewer answers).
    known: bool = True
    #: The receiving server vouched for the From (a DMARC pass).
    authenticated: bool = False


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
        :class:`StoreUnavailable` when the database cannot be reached.
        """
        sha = hashlib.sha256(fetched.raw).hexdigest()
        letter = read_letter(fetched.raw, own_addresses=(self.policy.address,))
        mark = fingerprint(letter)
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

    def _receive(
        self,
        fetched: Fetched,
        letter: Letter,
        sha: str,
        mark: str | None,
        now: datetime.datetime,
    ) -> Outcome:
        with self.sessions() as session:
            known = self._find(session, sha, mark, fetched)
            if known is not None and known.status == "quarantined":
                # a copy of poison (or one whose filing was cut short) joins it
                return Outcome.QUARANTINED
            if known is not None and known.status != "new":
                log.info("message %s: already handled", _short(letter.message_id))
                return Outcome.DUPLICATE
        try:
            with self.sessions() as session, session.begin():
                inbound = self._find(session, sha, mark, fetched)
                if inbound is None:
                    inbound = self._record(session, letter, sha, mark, fetched, now)
                elif inbound.status != "new":
                    return Outcome.DUPLICATE
                ctx = _Context(session, inbound, letter, now)
                self._handle(ctx)
                if inbound.status == "new":
                    inbound.status = "processed"
                inbound.handled_at = now
                inbound.reason = _storable(inbound.reason) if inbound.reason else None
                status = inbound.status
                self._log_outcome(ctx)
        except IntegrityError:
            with self.sessions() as session:
                known = self._find(session, sha, mark, fetched)
                if known is not None and known.status != "new":
                    # another worker recorded the same message first
                    log.info("message %s already recorded", _short(letter.message_id))
                    return Outcome.DUPLICATE
            raise  # any other conflict is a failure like the rest: retried, then quarantined
        return Outcome.IGNORED if status == "ignored" else Outcome.HANDLED

    def _log_outcome(self, ctx: _Context) -> None:
        row = ctx.inbound
        where = ""
        g = ctx.session.get(Game, row.game_id) if row.game_id else None
        if g is not None:
            last = f" {g.moves[-1].uci}" if g.moves else ""
            where = f" game {tag_of(g)} ply {len(g.moves)}{last}"
        log.info(
            "message %s from %s:%s %s%s",
            _short(ctx.letter.message_id),
            _short(ctx.letter.from_addr),
            where,
            row.status,
            f" ({_short(row.reason, 160)})" if row.reason else "",
        )

    def _check_store(self, exc: BaseException) -> None:
        """Raise :class:`StoreUnavailable` when the database, not the message, is at fault."""
        problem = store_problem(self.sessions)
        if problem is not None:
            raise StoreUnavailable(problem) from exc

    def _find(
        self, session: Session, sha: str, mark: str | None, fetched: Fetched
    ) -> InboundMessage | None:
        clauses = [InboundMessage.raw_sha256 == sha]
        if mark is not None:
            clauses.append(InboundMessage.fingerprint == mark)
        found = session.scalars(select(InboundMessage).where(or_(*clauses))).first()
        if found is None:
            found = session.scalars(
                select(InboundMessage).where(
                    InboundMessage.folder == fetched.folder,
                    InboundMessage.uidvalidity == fetched.uidvalidity,
                    InboundMessage.uid == fetched.uid,
                )
            ).first()
        return found

    def _record(
        self,
        session: Session,
        letter: Letter | None,
        sha: str,
        mark: str | None,
        fetched: Fetched,
        now: datetime.datetime,
    ) -> InboundMessage:
        """The inbound row; without ``letter`` only what the mailbox says (poison's last resort)."""
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
        recorded; if nothing can be recorded, it goes to quarantine unrecorded.
        """
        for bare in (False, True):
            try:
                return self._count_failure(None if bare else letter, sha, mark, fetched, now, exc)
            except Exception as again:
                self._check_store(again)
                log.warning("recording the failure failed: %s", _short(str(again), 300))
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
            row = self._find(session, sha, mark if letter else None, fetched) or self._record(
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
        directors: dict[str, Tournament] = {}
        sender = row.from_addr or ""
        players = session.scalars(select(Player).where(Player.email == sender)).all()
        tournaments = [p.tournament for p in players] or list(
            session.scalars(select(Tournament)).all()
        )
        day = now.astimezone(ZoneInfo(self.policy.timezone)).date().isoformat()
        for t in tournaments:
            if not players and not self._first_today(session, t, day, now):
                continue  # strangers' poison: one notice a day is enough to go and look
            directors.setdefault(t.director_email, t)
        for t in directors.values():
            context = {
                "kind": "quarantine",
                "sender": row.from_addr or "?",
                "subject": row.subject or "",
                "received": row.internaldate.isoformat(timespec="minutes"),
                "attempts": row.attempts,
                "folder": "Quarantine",
                "error": row.last_error or "",
            }
            director_error_notice(
                session, self.policy.sender, self.renderer, t, context, now, inbound_id=row.id
            )

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

    # -- dispatch --------------------------------------------------------------

    def _handle(self, ctx: _Context) -> None:
        letter, inbound, session = ctx.letter, ctx.inbound, ctx.session
        if letter.auto is not None:
            inbound.status = "ignored"
            inbound.reason = f"automatic mail: {letter.auto.value}"
            return
        problem = trust.sender_problem(letter.senders, letter.from_fields)
        if problem is None and not letter.from_addr:
            problem = "no sender address"
        if problem is not None:
            # nobody can be answered safely: the From names no one, or someone else too
            inbound.status = "ignored"
            inbound.reason = problem
            log.warning("ignored %s: %s", _short(letter.message_id), problem)
            return
        refusal = self._authentication_refusal(ctx)
        if refusal is not None:
            inbound.status = "ignored"
            inbound.reason = refusal
            log.warning(
                "ignored %s from %s: %s", _short(letter.message_id), letter.from_addr, refusal
            )
            return
        players = session.scalars(
            select(Player).join(Tournament).where(Player.email == letter.from_addr)
        ).all()
        directed = director.tournaments_of(session, letter.from_addr)
        ctx.known = bool(players or directed)
        if ctx.known and (not letter.readable or (letter.garbled and not letter.body.strip())):
            self._unreadable(ctx, players, directed)
            return
        if directed and self._director_orders(ctx, directed):
            return
        words = read_words(letter.body)
        if not directed and self._refuse_orders(ctx, players):
            return
        if players and words.has(Word.LEAVE):
            if not self._secret_missing(ctx, players[0]):
                self._leave(ctx, players, words)
            return
        g, tag_problem = self._which_game(ctx, players)
        if g is None:
            self._without_game(ctx, players, words, tag_problem)
            return
        inbound.game_id = g.id
        mover = next((p for p in (g.white, g.black) if p.email == letter.from_addr), None)
        if mover is None:
            self._stranger(ctx, g, players)
            return
        if self._secret_missing(ctx, mover):
            return
        self._in_game(ctx, g, mover, words)

    def _authentication_refusal(self, ctx: _Context) -> str | None:
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

    def _unreadable(
        self, ctx: _Context, players: Sequence[Player], directed: Sequence[Tournament]
    ) -> None:
        """A player's or director's message whose text could not be read: they are told."""
        ctx.inbound.status = "rejected"
        ctx.inbound.reason = "the message could not be read"
        if not self._may_answer(ctx):
            return
        me = players[0] if players else None
        t = me.tournament if me is not None else directed[0]
        tz = ZoneInfo(t.timezone)
        received = ctx.inbound.internaldate.astimezone(tz)
        self._send(
            ctx,
            template="notice",
            language=language_for(me) if me is not None else t.language,
            context={
                "kind": "unreadable",
                "recipient": me.name if me is not None else t.director_name,
                "received": f"{received:%d.%m.%Y %H:%M}",
                "subject": _short(ctx.letter.subject, 200) if ctx.letter.subject else "–",
            },
            to=[ctx.letter.from_addr],
            event="notice",
            reply=True,
            index=one_index([p.tournament for p in players] or list(directed)),
        )

    def _which_game(
        self, ctx: _Context, players: Sequence[Player]
    ) -> tuple[Game | None, str | None]:
        """The game a message is about: subject tag, else thread, else the only one to move."""
        session, letter = ctx.session, ctx.letter
        if letter.game_tag:
            index, _, number = letter.game_tag.rpartition("/")
            g = session.scalars(
                select(Game)
                .join(Tournament)
                .where(Tournament.index == index, Game.number == int(number))
            ).first()
            if g is not None:
                return g, None
            return None, letter.game_tag
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
            for p in players
            for g in self._games_of(session, p)
            if g.result is None and self._turn_player(g).id == p.id
        ]
        if len(to_move) == 1:
            return to_move[0], None
        return None, None

    @staticmethod
    def _games_of(session: Session, player: Player) -> list[Game]:
        return list(
            session.scalars(
                select(Game)
                .where(or_(Game.white_id == player.id, Game.black_id == player.id))
                .order_by(Game.id)
            ).all()
        )

    @staticmethod
    def _turn_player(g: Game) -> Player:
        return g.white if len(g.moves) % 2 == 0 else g.black

    # -- answers -----------------------------------------------------------------

    def _may_answer(self, ctx: _Context) -> bool:
        """The reply cap per sender per day (against mail loops).

        One message counts once however many replies it causes; the verdict is
        kept for the rest of the message's handling.
        """
        if ctx.answering is None:
            ctx.answering = not self._echo(ctx) and self._count_answer(ctx, ctx.letter.from_addr)
        return ctx.answering

    def _echo(self, ctx: _Context) -> bool:
        """The same text without a move or a word, from the same sender, a third time
        within a day: a responder that answers every message (with no header or
        subject saying so) is in a loop with the bot, and gets no more answers."""
        row = ctx.inbound
        body = ctx.letter.body
        if row.text_sha256 is None or not body.strip():
            return False
        if read_moves(body) or read_words(body).commands:
            return False  # a player may well ask for the status three times
        since = ctx.now - datetime.timedelta(days=1)
        earlier = ctx.session.scalar(
            select(func.count())
            .select_from(InboundMessage)
            .where(
                InboundMessage.text_sha256 == row.text_sha256,
                InboundMessage.id != row.id,
                InboundMessage.created_at >= since,
            )
        )
        if (earlier or 0) < ECHOES_ANSWERED:
            return False
        row.reason = "the same text came three times in a day (a mail loop?)"
        log.warning("not answering %s: %s", ctx.letter.from_addr, row.reason)
        return True

    def _count_answer(self, ctx: _Context, address: str) -> bool:
        day = ctx.now.astimezone(ZoneInfo(self.policy.timezone)).date()
        session = ctx.session
        row = session.scalars(
            select(ReplyCount).where(ReplyCount.sender == address, ReplyCount.day == day)
        ).first()
        if row is None:
            row = ReplyCount(sender=address, day=day, count=0, updated_at=ctx.now)
            session.add(row)
        cap = self.policy.replies_per_sender_per_day if ctx.known else STRANGER_ANSWERS_PER_DAY
        if row.count >= cap:
            ctx.inbound.reason = "reply cap reached for the day"
            log.warning("not answering %s: daily reply cap (%d) reached", address, cap)
            return False
        row.count += 1
        row.updated_at = ctx.now
        return True

    def _send(
        self,
        ctx: _Context,
        *,
        template: str,
        language: str,
        context: dict[str, Any],
        to: Sequence[str],
        event: str,
        g: Game | None = None,
        cc: Sequence[str] = (),
        reply: bool = False,
        board: chess.Board | None = None,
        orientation: chess.Color = chess.WHITE,
        extra: dict[str, str] | None = None,
        index: str | None = None,
    ) -> Outbox | None:
        """Queue one message; a reply to the sender only while the reply cap allows.

        The cap silences the bot towards the sender, never anything else: a
        move is still applied and forwarded to the opponent.
        """
        sender = ctx.letter.from_addr
        if sender in to and not self._may_answer(ctx):
            to = [a for a in to if a != sender]
            if not to:
                return None
        if g is not None:
            return Mailer(ctx.session, self.policy.sender, self.renderer).game_mail(
                g,
                template=template,
                language=language,
                context=context,
                to=to,
                event=event,
                now=ctx.now,
                cc=cc,
                board=board,
                orientation=orientation,
                extra=extra,
                reply_to=ctx.letter.message_id if reply else None,
                references=ctx.letter.references,
                inbound_id=ctx.inbound.id,
            )
        rendered = self.renderer.render(
            template, language, context, board=board, orientation=orientation
        )
        headers: dict[str, str] = {
            "Auto-Submitted": "auto-replied" if reply else "auto-generated",
            "X-Mailbot-Event": event,
        }
        subject = f"[{index}] {rendered.what}" if index else rendered.what
        headers.update(extra or {})
        if reply and ctx.letter.message_id:
            mid = f"<{ctx.letter.message_id}>"
            refs = [f"<{r}>" for r in ctx.letter.references if r != ctx.letter.message_id]
            headers["In-Reply-To"] = mid
            headers["References"] = " ".join([*refs[-10:], mid])
        return queue(
            ctx.session,
            sender=self.policy.sender,
            to=to,
            cc=cc,
            subject=subject,
            text=rendered.text,
            html=rendered.html,
            event=event,
            now=ctx.now,
            headers=headers,
            inbound_id=ctx.inbound.id,
        )

    def _without_game(
        self, ctx: _Context, players: Sequence[Player], words: Words, tag: str | None
    ) -> None:
        letter, session = ctx.letter, ctx.session
        if not players:
            directors = session.scalars(
                select(Tournament).where(Tournament.director_email == letter.from_addr)
            ).all()
            language = directors[0].language if directors else "en"
            if words.has(Word.HELP) or directors:
                if self._may_answer(ctx):
                    self._send_help(ctx, language, one_index(directors))
                return
            ctx.inbound.status = "rejected"
            ctx.inbound.reason = "unknown sender"
            if self._may_answer(ctx):
                self._send(
                    ctx,
                    template="notice",
                    language="en",
                    context={"kind": "unknown-sender", "sender": letter.from_addr},
                    to=[letter.from_addr],
                    event="notice",
                    reply=True,
                )
            return
        me = players[0]
        language = language_for(me)
        index = one_index([p.tournament for p in players])
        if not self._may_answer(ctx):
            return
        if words.has(Word.HELP):
            self._send_help(ctx, language, index)
            return
        games = [game_summary(g, p) for p in players for g in self._games_of(session, p)]
        if words.has(Word.STATUS):
            self._send(
                ctx,
                template="status",
                language=language,
                context={"recipient": me.name, "games": games},
                to=[letter.from_addr],
                event="status",
                reply=True,
                index=index,
            )
            return
        ctx.inbound.status = "rejected"
        ctx.inbound.reason = "unknown game" if tag else "game not identified"
        self._send(
            ctx,
            template="notice",
            language=language,
            context={
                "kind": "unknown-game" if tag else "which-game",
                "tag": tag,
                "recipient": me.name,
                "games": [s for s in games if s["result"] is None] or games,
            },
            to=[letter.from_addr],
            event="notice",
            reply=True,
            index=index,
        )

    def _send_help(self, ctx: _Context, language: str, index: str | None = None) -> None:
        self._send(
            ctx,
            template="help",
            language=language,
            context={"words": help_words(language), "game": None},
            to=[ctx.letter.from_addr],
            event="notice",
            reply=True,
            index=index,
        )

    def _stranger(self, ctx: _Context, g: Game, players: Sequence[Player]) -> None:
        """A message about a game from someone who does not play in it."""
        letter = ctx.letter
        t = g.tournament
        ctx.inbound.status = "rejected"
        ctx.inbound.reason = "sender is not a player of the game"
        if letter.from_addr == t.director_email:
            # the director may ask for the status of any game
            if self._may_answer(ctx):
                self._send(
                    ctx,
                    template="status",
                    language=t.language,
                    context={"recipient": t.director_name, "games": [game_summary(g)]},
                    to=[letter.from_addr],
                    event="status",
                    g=g,
                    reply=True,
                    board=board_of(g),
                )
                ctx.inbound.status = "processed"
                ctx.inbound.reason = None
            return
        language = language_for(players[0]) if players else t.language
        if not self._may_answer(ctx):
            # a sender over the cap floods neither itself nor the director
            return
        self._send(
            ctx,
            template="notice",
            language=language,
            context={
                "kind": "not-a-player" if players else "unknown-sender",
                "sender": letter.from_addr,
                "recipient": players[0].name if players else letter.from_addr,
                "game": game_summary(g),
            },
            to=[letter.from_addr],
            event="notice",
            reply=True,
            index=t.index,
        )
        self._send(
            ctx,
            template="notice",
            language=t.language,
            context={
                "kind": "stranger-copy",
                "sender": letter.from_addr,
                "game": game_summary(g),
                "body": letter.body.strip()[:4000],
            },
            to=[t.director_email],
            event="notice",
            g=g,
        )

    # -- a player's message about their game ---------------------------------

    def _in_game(self, ctx: _Context, g: Game, mover: Player, words: Words) -> None:
        letter = ctx.letter
        t = g.tournament
        language = language_for(mover)
        color = color_of(g, mover)
        opponent = g.black if color == chess.WHITE else g.white
        if words.has(Word.HELP):
            self._send_help(ctx, language, t.index)
            return
        board = board_of(g)
        if g.result is not None:
            ctx.inbound.status = "rejected"
            ctx.inbound.reason = "game already finished"
            self._notice(ctx, g, mover, "game-finished", {})
            return
        if words.has(Word.RESIGN):
            self._finish(ctx, g, game.resign(color), reply_to=mover)
            return
        if words.has(Word.ACCEPT) or words.has(Word.DECLINE):
            self._answer_offer(ctx, g, mover, color, accept=words.has(Word.ACCEPT))
            return
        if words.has(Word.DELAY):
            requests.delay_notice(self._request(ctx, mover), g)
            return
        claim_word = words.get(Word.CLAIM)
        if claim_word is not None:
            requests.claim(self._request(ctx, mover), g, claim_word.rest, letter.body)
            return
        if ctx.inbound.internaldate >= play_stops_at(g) or mover.withdrawn_at is not None:
            # the game waits for the arbiter (art. 52-53, a withdrawal): no more moves
            ctx.inbound.status = "rejected"
            ctx.inbound.reason = "the game waits for adjudication"
            self._notice(ctx, g, mover, "adjudication-pending", {})
            return
        judgement = referee.judge(
            letter.body[:MOVE_TEXT],
            board,
            notation_for(mover),
            conditional_allowed=t.conditional_moves,
        )
        subject_move = _subject_move(letter, g)
        if judgement.verdict is referee.Verdict.NO_MOVE and subject_move:
            # a move written only in the subject ("Re: [X/3] 12. Кg1-f3"), the body empty
            judgement = referee.judge(
                subject_move, board, notation_for(mover), conditional_allowed=t.conditional_moves
            )
        has_move = judgement.verdict is not referee.Verdict.NO_MOVE
        if words.has(Word.STATUS) and not has_move:
            self._send(
                ctx,
                template="status",
                language=language,
                context={"recipient": mover.name, "games": [game_summary(g, mover)]},
                to=[mover.email],
                event="status",
                g=g,
                reply=True,
                board=board,
                orientation=color,
            )
            return
        if board.turn != color:
            if words.has(Word.DRAW) and not has_move:
                self._offer_draw(ctx, g, mover, color)
                return
            ctx.inbound.status = "rejected"
            ctx.inbound.reason = "not the sender's move"
            last = len(g.moves)
            line = move_line(g, last, notation_for(mover), ZoneInfo(t.timezone)) if last else None
            self._notice(ctx, g, mover, "not-your-move", {"line": line, "opponent": opponent.name})
            return
        if not has_move:
            if words.has(Word.DRAW):
                self._offer_draw(ctx, g, mover, color)
                return
            ctx.inbound.status = "rejected"
            ctx.inbound.reason = "no move found"
            self._notice(ctx, g, mover, "no-move", {"example": self._example(board, mover)})
            return
        if judgement.penalised:
            self._reject(ctx, g, mover, color, judgement, board)
            return
        self._play(ctx, g, mover, color, judgement, words)

    def _secret_missing(self, ctx: _Context, player: Player) -> bool:
        """A player with a secret must show it (body or ``bot+SECRET@``); else refused."""
        secret = player.secret
        if not secret:
            return False
        # addresses are compared without case, as mail systems do
        tags = {a.partition("@")[0].partition("+")[2].casefold() for a in ctx.letter.to_addrs}
        if secret.casefold() in tags or re.search(
            rf"(?<![\w-]){re.escape(secret)}(?![\w-])", ctx.letter.body
        ):
            return False
        ctx.inbound.status = "rejected"
        ctx.inbound.reason = "the player's secret is missing"
        log.warning("refused a message from %s: the player's secret is missing", player.email)
        self._send(
            ctx,
            template="notice",
            language=language_for(player),
            context={"kind": "secret-missing", "recipient": player.name},
            to=[player.email],
            event="notice",
            reply=True,
        )
        return True

    def _mailer(self, ctx: _Context) -> Mailer:
        return Mailer(ctx.session, self.policy.sender, self.renderer)

    def _request(self, ctx: _Context, player: Player) -> requests.Request:
        return requests.Request(
            session=ctx.session,
            mailer=self._mailer(ctx),
            player=player,
            now=ctx.now,
            received=ctx.inbound.internaldate,
            message_id=ctx.letter.message_id,
            references=ctx.letter.references,
            inbound_id=ctx.inbound.id,
        )

    def _leave(self, ctx: _Context, players: Sequence[Player], words: Words) -> None:
        """Art. 42-46: a leave request covers all the player's games of the tournament."""
        player = players[0]
        games = self._games_of(ctx.session, player)
        if not games:
            return
        req = self._request(ctx, player)
        if words.leave is None:
            ctx.inbound.status = "rejected"
            ctx.inbound.reason = f"leave: {words.leave_error}"
            today = ctx.inbound.internaldate.date()
            requests.refuse_leave(req, games[0], today, today, words.leave_error or "")
            return
        start, end = words.leave
        if not requests.request_leave(req, start, end, games):
            ctx.inbound.status = "rejected"
            ctx.inbound.reason = "leave refused"

    def _director_orders(self, ctx: _Context, directed: Sequence[Tournament]) -> bool:
        """Carry out (or hold) the orders in a director's message; False if it holds none.

        Orders are carried out when the director is known to have written them:
        the receiving server vouched for the From (DMARC), or the message
        answers mail the bot sent to the director alone (its Message-IDs are
        unguessable). Otherwise they are held, and the director confirms them
        by replying to the challenge the bot sends to the registered address.
        """
        lines = [
            line.strip()
            for line in ctx.letter.body.splitlines()
            if director.order_verb(line.strip()) is not None
        ]
        held = self._held_in_thread(ctx)
        if held:
            self._answer_hold(ctx, directed, held, lines)
            return True
        if not lines:
            return False
        address = ctx.letter.from_addr
        if not (ctx.authenticated or self._answers_own_mail(ctx, address)):
            self._hold(ctx, directed, lines)
            return True
        self._carry_out(ctx, directed, lines)
        return True

    def _answer_hold(
        self,
        ctx: _Context,
        directed: Sequence[Tournament],
        held: Sequence[HeldOrder],
        lines: Sequence[str],
    ) -> None:
        """The director's answer to the confirmation request: ``confirm`` carries the
        held orders out (with any others in the answer), ``reject`` cancels them;
        an answer with neither (an out-of-office reply) changes nothing."""
        verdicts = [director.order_verb(line) for line in lines]
        rest = [line for line, verb in zip(lines, verdicts, strict=True) if verb not in _ANSWERS]
        if "reject" in verdicts:
            for order in held:
                order.status, order.decided_at = "cancelled", ctx.now
            ctx.inbound.reason = "held orders cancelled by the director"
            self._hold_notice(ctx, directed, "order-cancelled", [o for h in held for o in h.orders])
            return
        if "confirm" not in verdicts:
            ctx.inbound.reason = (
                "an answer to the confirmation request with neither confirm nor reject"
            )
            return
        confirmed: list[str] = []
        lapsed: list[str] = []
        for order in held:
            live = order.lapses_at >= ctx.now
            order.status, order.decided_at = ("confirmed" if live else "lapsed"), ctx.now
            (confirmed if live else lapsed).extend(order.orders)
        if lapsed:  # confirmed too late: asked again
            self._hold(ctx, directed, lapsed)
        if confirmed or rest:
            self._carry_out(ctx, directed, [*confirmed, *rest])

    def _carry_out(
        self, ctx: _Context, directed: Sequence[Tournament], order_lines: Sequence[str]
    ) -> None:
        lines: list[str] = []
        orders: list[director.Order] = []
        for line in order_lines:
            try:
                order = director.read_order(line)
            except director.OrderError as exc:
                lines.append(f"{line}: {exc}")
                continue
            if order is not None:
                orders.append(order)
        claim = self._claim_in_thread(ctx)
        desk = director.Desk(ctx.session, self._mailer(ctx), ctx.now, directed, ctx.inbound.id)
        for order in orders:
            try:
                lines.append(director.carry_out(desk, order, claim))
            except director.OrderError as exc:
                lines.append(f"{order.verb}: not done: {exc}")
        log.info("director %s: %s", ctx.letter.from_addr, "; ".join(lines))
        t = directed[0]
        self._send(
            ctx,
            template="notice",
            language=t.language,
            context={"kind": "orders", "recipient": t.director_name, "lines": lines},
            to=[ctx.letter.from_addr],
            event="notice",
            reply=True,
            index=one_index(directed),
        )

    def _thread(self, ctx: _Context) -> list[Outbox]:
        """The bot's own messages this one answers (by In-Reply-To and References)."""
        thread = [*ctx.letter.in_reply_to, *ctx.letter.references]
        if not thread:
            return []
        return list(
            ctx.session.scalars(
                select(Outbox).where(Outbox.message_id.in_(thread)).order_by(Outbox.id.desc())
            ).all()
        )

    def _answers_own_mail(self, ctx: _Context, address: str) -> bool:
        """Whether the message answers mail the bot sent to ``address`` and nobody else."""
        return any(row.to_addrs == [address] and not row.cc_addrs for row in self._thread(ctx))

    def _held_in_thread(self, ctx: _Context) -> list[HeldOrder]:
        """The held orders whose challenge this message answers (only the director has it)."""
        ids = [
            row.id
            for row in self._thread(ctx)
            if row.to_addrs == [ctx.letter.from_addr] and not row.cc_addrs
        ]
        if not ids:
            return []
        return list(
            ctx.session.scalars(
                select(HeldOrder).where(
                    HeldOrder.outbox_id.in_(ids),
                    HeldOrder.status == "held",
                    HeldOrder.director_email == ctx.letter.from_addr,
                )
            ).all()
        )

    def _hold_notice(
        self,
        ctx: _Context,
        directed: Sequence[Tournament],
        kind: str,
        orders: Sequence[str],
        extra: dict[str, str] | None = None,
    ) -> Outbox | None:
        t = directed[0]
        tz = ZoneInfo(t.timezone)
        lapses = (ctx.now + datetime.timedelta(days=HOLD_DAYS)).astimezone(tz)
        return self._send(
            ctx,
            template="notice",
            language=t.language,
            context={
                "kind": kind,
                "recipient": t.director_name,
                "sender": ctx.letter.from_addr,
                "received": f"{ctx.inbound.internaldate.astimezone(tz):%d.%m.%Y %H:%M}",
                "orders": list(orders),
                "lapses": f"{lapses:%d.%m.%Y}",
            },
            to=[t.director_email],
            event="notice",
            index=one_index(directed),
            extra=extra,
        )

    def _hold(self, ctx: _Context, directed: Sequence[Tournament], lines: list[str]) -> None:
        """Hold orders the bot cannot tell the director wrote; ask the director to confirm."""
        held = HeldOrder(
            director_email=ctx.letter.from_addr,
            orders=[_storable(line, 500) for line in lines[:50]],
            inbound_id=ctx.inbound.id,
            status="held",
            created_at=ctx.now,
            lapses_at=ctx.now + datetime.timedelta(days=HOLD_DAYS),
        )
        ctx.session.add(held)
        ctx.session.flush()
        ctx.inbound.reason = "orders held until the director confirms them"
        log.warning(
            "orders in the name of %s held for confirmation: %s",
            ctx.letter.from_addr,
            "; ".join(_short(line, 60) for line in lines),
        )
        challenge = self._hold_notice(
            ctx, directed, "order-held", held.orders, {"X-Mailbot-Held": str(held.id)}
        )
        if challenge is not None:
            ctx.session.flush()
            held.outbox_id = challenge.id

    def _claim_in_thread(self, ctx: _Context) -> Claim | None:
        """The claim whose packet the director's message answers."""
        for row in self._thread(ctx):
            claim_id = row.headers.get("X-Mailbot-Claim")
            if claim_id:
                return ctx.session.get(Claim, int(claim_id))
        return None

    def _refuse_orders(self, ctx: _Context, players: Sequence[Player]) -> bool:
        """An order only the director may give, from someone else: refused and logged.

        True when the message holds nothing else to act on.
        """
        verbs = [
            v
            for line in ctx.letter.body.splitlines()
            if (v := director.order_verb(line)) is not None and v in director.DIRECTOR_ONLY
        ]
        if not verbs:
            return False
        log.warning(
            "refused %s from %s: only the tournament director may give it",
            ", ".join(verbs),
            ctx.letter.from_addr,
        )
        others = "\n".join(
            line for line in ctx.letter.body.splitlines() if director.order_verb(line) is None
        )
        if players and read_moves(others):
            return False  # the message carries a move too: that is handled as usual
        ctx.inbound.status = "rejected"
        ctx.inbound.reason = "an order only the director may give"
        language = language_for(players[0]) if players else "en"
        self._send(
            ctx,
            template="notice",
            language=language,
            context={"kind": "not-director", "verbs": verbs,
                     "recipient": players[0].name if players else ctx.letter.from_addr},
            to=[ctx.letter.from_addr],
            event="notice",
            reply=True,
        )  # fmt: skip
        return True

    def _example(self, board: chess.Board, player: Player) -> str:
        moves = sorted(board.legal_moves, key=lambda m: m.uci())
        if not moves:
            return ""
        return write_move(board, moves[0], notation_for(player))

    def _notice(
        self, ctx: _Context, g: Game, player: Player, kind: str, extra: dict[str, Any]
    ) -> None:
        context: dict[str, Any] = {
            "kind": kind,
            "recipient": player.name,
            "game": game_summary(g, player),
        }
        context.update(extra)
        self._send(
            ctx,
            template="notice",
            language=language_for(player),
            context=context,
            to=[player.email],
            event="notice",
            g=g,
            reply=True,
        )

    def _offer_draw(self, ctx: _Context, g: Game, mover: Player, color: chess.Color) -> None:
        g.draw_offer_by = color_name(color)
        g.draw_offer_ply = len(g.moves)
        opponent = g.black if color == chess.WHITE else g.white
        for recipient, other, reply in ((opponent, mover, False), (mover, opponent, True)):
            self._send(
                ctx,
                template="draw-offer",
                language=language_for(recipient),
                context={
                    "recipient": recipient.name,
                    "opponent": other.name,
                    "yours": recipient.id == mover.id,
                },
                to=[recipient.email],
                event="draw-offer",
                g=g,
                reply=reply,
            )

    def _answer_offer(
        self, ctx: _Context, g: Game, mover: Player, color: chess.Color, *, accept: bool
    ) -> None:
        offer = (
            game.DrawOffer(
                chess.WHITE if g.draw_offer_by == "white" else chess.BLACK, g.draw_offer_ply or 0
            )
            if g.draw_offer_by
            else None
        )
        opponent = g.black if color == chess.WHITE else g.white
        if offer is None or offer.by == color or not game.offer_stands(offer, len(g.moves)):
            ctx.inbound.status = "rejected"
            ctx.inbound.reason = "no draw offer stands"
            self._notice(ctx, g, mover, "no-draw-offer", {})
            return
        if accept:
            self._finish(ctx, g, game.accept_draw(offer, color, len(g.moves)), reply_to=mover)
            return
        g.draw_offer_by = None
        g.draw_offer_ply = None
        self._notice(ctx, g, opponent, "draw-declined", {"opponent": mover.name})
        self._notice(ctx, g, mover, "you-declined", {"opponent": opponent.name})

    def _reject(
        self,
        ctx: _Context,
        g: Game,
        mover: Player,
        color: chess.Color,
        judgement: referee.Judgement,
        board: chess.Board,
    ) -> None:
        t = g.tournament
        p = profile_of(t)
        verdict = judgement.verdict.value
        # art. 17 note: no penalty when the mail, not the player, garbled the move
        penalty = 0 if (ctx.letter.garbled and verdict == "unclear") else p.penalty_days
        if penalty:
            g.penalties.append(
                Penalty(
                    color=color_name(color),
                    days=penalty,
                    reason=verdict,
                    ply_at=len(g.moves),
                    created_at=ctx.now,
                    inbound_id=ctx.inbound.id,
                    decided_by="referee",
                )
            )
        ctx.inbound.status = "rejected"
        ctx.inbound.reason = f"{verdict}: {judgement.reason}"
        style = notation_for(mover)
        tz = ZoneInfo(t.timezone)
        sums = totals(g)
        # art. 19: the legal moves of the piece the player tried to move; an unclear
        # move's reason already names the readings
        legal = (
            [write_move(board, m, style) for m in judgement.legal_alternatives]
            if judgement.verdict is referee.Verdict.IMPOSSIBLE
            else []
        )
        last = len(g.moves)
        self._send(
            ctx,
            template="move-rejected",
            language=language_for(mover),
            context={
                "recipient": mover.name,
                "verdict": verdict,
                "reason": referee.explain(judgement, language_for(mover)),
                "written": judgement.written,
                "legal": legal,
                "penalty": penalty,
                "white_total": sums.white,
                "black_total": sums.black,
                "last_line": move_line(g, last, style, tz) if last else None,
            },
            to=[mover.email],
            event="move-rejected",
            g=g,
            reply=True,
            board=board,
            orientation=color,
            # the header names days added; a garbled message adds none
            extra={"X-Mailbot-Penalty": f"{color_name(color)}={penalty}"} if penalty else None,
        )

    def _play(
        self,
        ctx: _Context,
        g: Game,
        mover: Player,
        color: chess.Color,
        judgement: referee.Judgement,
        words: Words,
    ) -> None:
        """Apply a legal move, and what a conditional line plays after it."""
        assert judgement.move is not None
        t = g.tournament
        p = profile_of(t)
        tz = ZoneInfo(t.timezone)
        opponent = g.black if color == chess.WHITE else g.white
        board = board_of(g)
        sent = ctx.inbound.internaldate
        forwarded = max(ctx.now, sent)
        days, counted = days_for(g, p, tz, mover, sent)
        self._cancel_leave_if_on_leave(g, mover, local_date(sent, tz))
        first_ply = len(g.moves) + 1
        # the opponent's standing offer lapses with this move (a move declines it)
        if g.draw_offer_by == color_name(not color):
            g.draw_offer_by = None
            g.draw_offer_ply = None

        own: list[Move] = []
        automatic: list[Move] = []
        mine = [judgement.move, *judgement.conditional]
        theirs: list[str] = (
            list(g.pending_conditional or [])
            if g.pending_conditional_by != color_name(color)
            else []
        )
        end: game.GameEnd | None = None
        move = mine.pop(0)
        while True:
            row = self._push(ctx, g, board, move, judgement.written or "", sent, forwarded, counted)
            own.append(row)
            end = game.end_after_move(board)
            if end is not None:
                theirs, mine = [], []
                break
            # the opponent's conditional line answers this move?
            if not theirs or theirs[0] != move.uci() or len(theirs) < 2:
                theirs = []
                break
            answer = chess.Move.from_uci(theirs[1])
            if answer not in board.legal_moves:
                theirs = []
                break
            auto = self._push(ctx, g, board, answer, "", sent, forwarded, counted, automatic=True)
            automatic.append(auto)
            theirs = theirs[2:]
            end = game.end_after_move(board)
            if end is not None:
                theirs, mine = [], []
                break
            # the mover's own line continues after that reply?
            if len(mine) >= 2 and mine[0] == answer and mine[1] in board.legal_moves:
                move = mine[1]
                mine = mine[2:]
                continue
            mine = []
            break
        if judgement.verdict is referee.Verdict.INCOMPLETE:
            self._note_incomplete(ctx, g, mover, own[0])
        # 003 p1 6g: the days go to the last move the player actually played
        own[-1].days = days
        own[-1].received_counted_on = counted
        for row in own[:-1]:
            row.days = 0
        g.last_forwarded_at = forwarded
        if theirs:
            g.pending_conditional, g.pending_conditional_by = theirs, color_name(not color)
        elif mine and t.conditional_moves:
            g.pending_conditional = [m.uci() for m in mine]
            g.pending_conditional_by = color_name(color)
        else:
            g.pending_conditional, g.pending_conditional_by = None, None
        if words.has(Word.DRAW) and end is None:
            g.draw_offer_by = color_name(color)
            g.draw_offer_ply = len(g.moves)

        if end is not None:
            self._finish(ctx, g, end, reply_to=mover)
            return
        overstep_on_move(self._mailer(ctx), g, mover, sent, ctx.now)
        if g.result is not None:  # auto_forfeit decided it
            return
        last = len(g.moves)
        for recipient, reply in ((opponent, False), (mover, True)):
            style = notation_for(recipient)
            line = move_line(g, last, style, tz, first_ply=max(1, first_ply - 1))
            moved = write_pair_from(g, first_ply, style)
            context: dict[str, Any] = {
                "recipient": recipient.name,
                "opponent": (mover if recipient is opponent else opponent).name,
                "moved": moved,
                "line": line,
                "draw_offer": g.draw_offer_by == color_name(color),
                "control": None,
                "example": "",
            }
            if board.turn == color_of(g, recipient):
                state = control_of(g, board.turn)
                context["control"] = {
                    "used": state.used_days,
                    "limit": state.limit_days,
                    "control_move": state.next_control_move,
                    "left": state.days_left,
                }
            if recipient is opponent:
                context["example"] = self._example(board, opponent) if board.turn != color else ""
                template, event = "move", "move"
            else:
                template, event = "move-accepted", "move-accepted"
                context["automatic"] = ", ".join(
                    write_pair_from(g, a.ply, style, upto=a.ply) for a in automatic
                )
                context["conditional"] = (
                    " ".join(g.pending_conditional or [])
                    if g.pending_conditional_by == color_name(color)
                    else ""
                )
                context["reminders"] = [
                    referee.explain_reminder(r, language_for(mover)) for r in judgement.reminders
                ]
            self._send(
                ctx,
                template=template,
                language=language_for(recipient),
                context=context,
                to=[recipient.email],
                event=event,
                g=g,
                reply=reply,
                board=board,
                orientation=color_of(g, recipient),
            )

    def _note_incomplete(self, ctx: _Context, g: Game, mover: Player, row: Move) -> None:
        """Art. 7 note 2: incomplete notation is played with a reminder; the second
        time in a game the director hears of it, without stopping play."""
        row.incomplete = True
        count = sum(1 for m in g.moves if m.incomplete and m.ply % 2 == row.ply % 2)
        if count != 2:
            return
        t = g.tournament
        self._send(
            ctx,
            template="notice",
            language=t.language,
            context={
                "kind": "incomplete-reported",
                "player": mover.name,
                "count": count,
                "game": game_summary(g),
            },
            to=[t.director_email],
            event="notice",
            g=g,
        )

    def _push(
        self,
        ctx: _Context,
        g: Game,
        board: chess.Board,
        move: chess.Move,
        written: str,
        sent: datetime.datetime,
        forwarded: datetime.datetime,
        counted: datetime.date,
        *,
        automatic: bool = False,
    ) -> Move:
        row = Move(
            ply=len(g.moves) + 1,
            uci=move.uci(),
            san=board.san(move),
            text=written[:500],
            sent_at=sent,
            forwarded_at=forwarded,
            received_counted_on=counted,
            days=0,
            automatic=automatic,
            incomplete=False,
            inbound_id=ctx.inbound.id,
        )
        g.moves.append(row)
        board.push(move)
        return row

    def _cancel_leave_if_on_leave(self, g: Game, player: Player, day: datetime.date) -> None:
        """Art. 46: a move sent during leave cancels the leave in that game from that day."""
        for lv in player.leaves:
            if lv.start <= day <= lv.end and not any(c.game_id == g.id for c in lv.cancellations):
                from mailbot.store import LeaveCancellation

                lv.cancellations.append(LeaveCancellation(game_id=g.id, from_date=day))

    def _finish(
        self, ctx: _Context, g: Game, end: game.GameEnd, *, reply_to: Player | None
    ) -> None:
        finish_game(
            Mailer(ctx.session, self.policy.sender, self.renderer),
            g,
            end,
            ctx.now,
            reply_to=reply_to,
            reply_id=ctx.letter.message_id,
            references=ctx.letter.references,
            inbound_id=ctx.inbound.id,
        )


def _subject_move(letter: Letter, g: Game) -> str:
    """The text after the game tag of a subject, when a move may be written there.

    Only for a message whose body is empty, and never the bot's own subject
    (``[X/3] White – Black: ...``, which a reply keeps and which may name the
    opponent's move).
    """
    if letter.body.strip() or not letter.game_tag:
        return ""
    core = letter.subject_core
    _, bracket, after = core.partition("]")
    ours = f"{g.white.name} – {g.black.name}" in after or (" – " in after and ": " in after)
    if not bracket or ours:
        return ""
    return after.strip()


def one_index(tournaments: Sequence[Tournament]) -> str | None:
    """The index for the subject of a message about no single game: the
    tournament's, when the sender plays (or directs) in exactly one."""
    indexes = {t.index for t in tournaments}
    return indexes.pop() if len(indexes) == 1 else None
