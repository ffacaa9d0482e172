"""The message in hand: what every stage and handler of the desk works with.

One :class:`Context` per inbound message, made by the desk inside the
message's transaction. A handler reads the letter, the sender's players and
the game, changes the store, and tells what happened as events
(:meth:`Context.tell`); :meth:`Context.refuse` does both for a message the
bot will not act on.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
from collections.abc import Sequence
from zoneinfo import ZoneInfo

from sqlalchemy import func, select

from mailbot.compose.catalogue import say
from mailbot.compose.notifier import Notifier
from mailbot.desk.work import Work
from mailbot.mail.intent import Words, read_words
from mailbot.mail.letters import Letter
from mailbot.mail.storable import MAX_READ
from mailbot.rules import events as ev
from mailbot.rules import referee
from mailbot.rules.notation import read_moves
from mailbot.rules.phrase import Phrase
from mailbot.store import received
from mailbot.store.engine import recent
from mailbot.store.kinds import InboundStatus
from mailbot.store.ledger import count_reply, open_reply_count
from mailbot.store.models import Game, InboundMessage, Player, ReplyCount, Tournament

log = logging.getLogger("mailbot.desk.pipeline")

#: The same text from the same sender is answered this many times a day at most.
ECHOES_ANSWERED = 2
#: A sender who is neither a player nor a director gets at most this many answers a day.
STRANGER_ANSWERS_PER_DAY = 1


@dataclasses.dataclass(frozen=True)
class Limits:
    """How much the bot answers one sender, and the day those answers are counted in."""

    replies_per_sender_per_day: int = 20
    timezone: str = "UTC"


@dataclasses.dataclass(kw_only=True)
class Context(Work):
    """One inbound message on its way through the desk (the work it causes)."""

    inbound: InboundMessage
    letter: Letter
    limits: Limits
    notifier: Notifier
    #: The receiving server vouched for the From (a DMARC pass).
    authenticated: bool = False
    #: The sender's rows as a player (in any tournament) and the tournaments they direct.
    players: Sequence[Player] = ()
    directed: Sequence[Tournament] = ()
    words: Words = dataclasses.field(default_factory=lambda: read_words(""))
    #: The game the message is about, and the sender's row in it.
    game: Game | None = None
    mover: Player | None = None
    #: The folder of the Syzygy tables, if installed (claims by the tables).
    tablebases: str | None = None
    #: The Xfcc service's public URL, if the daemon serves Xfcc.
    xfcc_url: str | None = None
    #: The referee's verdict on the message's move, once asked
    #: (:func:`~mailbot.desk.handlers.steps.judged`).
    judgement: referee.Judgement | None = None
    #: The day's last answer to the sender, when this message is the first past the
    #: reply cap (:meth:`may_answer`): told after the message's other events.
    last_answer: ev.Answer | None = None
    _answering: bool | None = None

    @property
    def known(self) -> bool:
        """The sender plays or directs (a stranger gets fewer answers)."""
        return bool(self.players or self.directed)

    @property
    def sender(self) -> str:
        return self.letter.from_addr

    def refuse(
        self, reason: Phrase, *events: ev.Event, status: InboundStatus = InboundStatus.REJECTED
    ) -> None:
        """The bot does not act on the message: say why, and tell the sender (if anything)."""
        received.reject(self.inbound, reason, status)
        self.tell(*events)

    def answer(self, kind: ev.AnswerKind, **details: object) -> ev.Answer:
        """An answer to the sender about the game in hand (if any)."""
        return ev.Answer(
            kind,
            game=self.game.id if self.game is not None else None,
            player=self.mover.id if self.mover is not None else None,
            details=details,
        )

    # -- the reply cap ----------------------------------------------------------

    def may_answer(self) -> bool:
        """The reply cap per sender per day (against mail loops).

        One message counts once however many replies it causes; the verdict is
        kept for the rest of the message's handling.
        """
        if self._answering is None:
            self._answering = not self._echo() and self._count_answer()
        return self._answering

    def _echo(self) -> bool:
        """The same text without a move or a word, from the same sender, a third time
        within a day: a responder that answers every message (with no header or
        subject saying so) is in a loop with the bot, and gets no more answers.
        A message with no text is always answered (it may be one nobody can read)."""
        row = self.inbound
        body = self.letter.body
        if row.text_sha256 is None or not body.strip():
            return False
        if read_moves(body[:MAX_READ]) or read_words(body).commands:
            return False  # a player may well ask for the status three times
        since = self.now - datetime.timedelta(days=1)
        earlier = self.session.scalar(
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
        echo = Phrase("reason.echo")
        received.give_reason(row, echo)
        log.warning("not answering %s: %s", self.sender, say("en", echo))
        return True

    def _count_answer(self) -> bool:
        address = self.sender
        day = self.now.astimezone(ZoneInfo(self.limits.timezone)).date()
        memo = recent(self.session)
        row = memo.counts.get((address, day))
        if row is None and (address, day) not in memo.counted:
            with self.session.no_autoflush:  # every count this transaction has is in memo
                row = self.session.scalars(
                    select(ReplyCount).where(ReplyCount.sender == address, ReplyCount.day == day)
                ).first()
        if row is None:
            row = open_reply_count(self.session, address, day, self.now)
        memo.counts[(address, day)] = row
        cap = self.limits.replies_per_sender_per_day if self.known else STRANGER_ANSWERS_PER_DAY
        if row.count >= cap:
            received.give_reason(self.inbound, Phrase("reason.reply-cap"))
            log.warning("not answering %s: daily reply cap (%d) reached", address, cap)
            if row.count == cap and self.known:
                count_reply(row, self.now)  # counted past the cap: said once a day
                self.last_answer = self._answers_paused(cap, day)
            return False
        count_reply(row, self.now)
        return True

    def _answers_paused(self, cap: int, day: datetime.date) -> ev.Answer:
        """The notice that the sender, a player or a director, gets no more answers
        on ``day``, having had ``cap`` (as Mailman's last autoresponse of the day).

        A stranger gets none: a stranger's one answer a day is all the bot sends
        to an address it does not know.
        """
        details: dict[str, object] = {
            "count": cap,
            "until": day + datetime.timedelta(days=1),
            "plays": bool(self.players),
        }
        kind = ev.AnswerKind.ANSWERS_PAUSED
        if self.players:
            return ev.Answer(kind, player=self.players[0].id, details=details)
        t = self.directed[0]
        details.update(recipient=t.director_name, gender=t.director_gender, language=t.language)
        return ev.Answer(kind, details=details)

    # -- the sender's games ------------------------------------------------------

    def games_of(self, player: Player) -> list[Game]:
        """``player``'s games, by number."""
        return list(
            self.session.scalars(
                select(Game)
                .where((Game.white_id == player.id) | (Game.black_id == player.id))
                .order_by(Game.id)
            ).all()
        )
