"""The only composer of mail: events in, outbox rows out.

Whatever the desk, the sweep or the director's orders decided arrives here as
:mod:`~mailbot.rules.events`; the teller of each event's family (``moves``,
``deadlines``, ``claims``, ``leave``, ``digests``, ``answers``, ``tournament``,
``orders``, ``trouble``, ``bounces``; see :mod:`~mailbot.compose.tellers`)
decides who hears of it, in which language and with which template, and drafts
the messages (:mod:`~mailbot.compose.messages`, with the contract's subject and
headers); the notifier queues them in the caller's transaction. No other module
queues mail::

    notifier = Notifier(session, sender, now, origin=origin)
    notifier.tell(MovePlayed(game=g.id, mover=p.id, first_ply=15))

``origin`` is the message being answered, when there is one: answers to its
sender continue its thread and count against the sender's daily reply cap.
A message to a tournament director alone carries a single-use order key in
its ``Reply-To`` (:mod:`mailbot.mail.orderkeys`).
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Callable, Iterable, Sequence

from sqlalchemy.orm import Session

from mailbot.compose.catalogue import say
from mailbot.compose.drafts import PER_GAME, Draft, heading, one_index
from mailbot.compose.notices import Renderer
from mailbot.compose.tellers import TELLERS
from mailbot.mail.orderkeys import KEY_DAYS, new_key, reply_to
from mailbot.rules import events as ev
from mailbot.rules.phrase import Phrase
from mailbot.store.kinds import MailEvent
from mailbot.store.models import Game, Outbox, Player, Tournament
from mailbot.store.orderbook import issue_order_key
from mailbot.store.outbox import queue, recipients_tournaments
from mailbot.store.queries import is_director

__all__ = [
    "GATHERED",
    "Gathering",
    "Notifier",
    "Origin",
    "tell_director_undeliverable",
]


def counted(what: str, count: str) -> str:
    """A subject's ``what`` with the count of games, in the one pair of brackets.

    >>> counted("Повторение хода (нет ответа 14 дней)", "2 партии")
    'Повторение хода (нет ответа 14 дней, 2 партии)'
    >>> counted("Move rejected", "2 games")
    'Move rejected (2 games)'
    """
    if what.endswith(")"):
        return f"{what[:-1]}, {count})"
    return f"{what} ({count})"


@dataclasses.dataclass(frozen=True)
class Origin:
    """The message being answered: its sender, its thread, and the sender's reply cap."""

    address: str
    message_id: str | None = None
    references: tuple[str, ...] = ()
    inbound_id: int | None = None
    #: Whether the bot may still answer the sender today (asked once, when needed).
    may_answer: Callable[[], bool] = lambda: True


class Notifier:
    """Turns events into queued mail (see the module): hands each event to its teller
    (the table of :mod:`mailbot.compose.tellers`) and queues what they drafted.

    Every event has its teller:

    >>> sorted(k.__name__ for k in ev.Event.__subclasses__() if k not in TELLERS)
    []
    """

    def __init__(
        self,
        session: Session,
        sender: str,
        now: datetime.datetime,
        *,
        origin: Origin | None = None,
        renderer: Renderer | None = None,
    ) -> None:
        self.session = session
        self.sender = sender
        self.now = now
        self.origin = origin
        self.renderer = renderer or Renderer()
        #: The rows queued by this notifier, in order.
        self.queued: list[Outbox] = []
        #: Where the notices of a poll's messages wait to go as one (None: they go now).
        self.gathering: Gathering | None = None
        #: Hears how many of the messages of a long telling are drafted, of how many
        #: (the start mails of a big event); None: nobody follows.
        self.progress: Callable[[int, int], None] | None = None

    def tell(self, *events: ev.Event) -> None:
        """Queue the mail the events mean.

        What the events of one call say to one recipient about several games (a
        leave over eight games, a withdrawal, the end of the event) goes as one
        message with a part per game, not a message per game. With a
        :attr:`gathering`, the notices to a reader other than the sender wait for
        the other messages of the poll (:class:`Gathering`).
        """
        self._drafts = []
        for event in events:
            TELLERS[type(event)](self, event)
        drafts, self._drafts = self._drafts, []
        gathering = self.gathering
        if gathering is not None:
            kept = [d for d in drafts if self._gathered(d)]
            for d in kept:
                gathering.keep(d, self._inbound())
            drafts = [d for d in drafts if not any(d is k for k in kept)]
        self._send([(d, self._inbound()) for d in drafts])

    def _gathered(self, d: Draft) -> bool:
        """Whether ``d`` waits for the other messages of the poll: a notice about one
        game to a reader who did not write the message being handled."""
        origin = self.origin
        return (
            d.batchable and d.event in GATHERED and (origin is None or origin.address not in d.to)
        )

    def _send(self, drafts: Sequence[tuple[Draft, int | None]]) -> None:
        """Queue ``drafts`` (each with the message it answers): those to one reader about
        several games as one message."""
        groups: dict[tuple[object, ...], list[tuple[Draft, int | None]]] = {}
        for d, inbound in drafts:
            key: tuple[object, ...] = (
                (tuple(d.to), tuple(d.cc), d.event, d.language) if d.batchable else (id(d),)
            )
            groups.setdefault(key, []).append((d, inbound))
        for group in groups.values():
            if len({id(d.game) for d, _ in group}) > 1:
                inbounds = {inbound for _, inbound in group}
                one = inbounds.pop() if len(inbounds) == 1 else None
                self._queue(self._batch([d for d, _ in group]), one)
            else:
                for d, inbound in group:
                    self._queue(d, inbound)

    def _queue(self, d: Draft, inbound: int | None) -> None:
        row = queue(
            self.session,
            sender=self.sender,
            to=d.to,
            cc=d.cc,
            subject=d.subject,
            text=d.rendered.text,
            html=d.rendered.html,
            event=d.event,
            now=self.now,
            headers=d.headers,
            game_id=d.game.id if d.game is not None else None,
            inbound_id=inbound,
            attachments=d.attachments,
        )
        if self._to_director_alone(row):
            self._key(row)
        self.queued.append(row)
        if d.queued is not None:
            d.queued(row)

    def _to_director_alone(self, row: Outbox) -> bool:
        """Whether ``row`` goes to one recipient, a tournament director, and nobody else."""
        to, cc = row.to_addrs, row.cc_addrs
        return len(to) == 1 and not cc and is_director(self.session, to[0])

    def _key(self, row: Outbox) -> None:
        """A single-use order key for the mail ``row`` sends to a director alone: the
        director's reply goes to its ``Reply-To`` and carries the orders out once
        (:mod:`mailbot.mail.orderkeys`)."""
        key = new_key()
        issue_order_key(
            self.session,
            row,
            key,
            reply_to(self.sender, key),
            self.now,
            self.now + datetime.timedelta(days=KEY_DAYS),
        )

    def _batch(self, group: Sequence[Draft]) -> Draft:
        """One message for the drafts of ``group`` (one recipient, several games)."""
        first = group[0]
        language = first.language
        whats = {d.rendered.what for d in group}
        # the parts say what happened in each game when that differs
        parts = [(heading(d, with_what=len(whats) > 1), d.rendered) for d in group]
        count = say(language, Phrase("batch.games", {"n": len(group)}))
        what = counted(whats.pop(), count) if len(whats) == 1 else count
        tournaments = [d.game.tournament for d in group if d.game is not None]
        index = one_index(tournaments)
        # what every part says alike stays (the reply's thread, a due date); what
        # names one game (its tag, moves, times, result) goes with the parts
        headers = {
            k: v
            for k, v in first.headers.items()
            if k not in PER_GAME and all(d.headers.get(k) == v for d in group)
        }
        return Draft(
            to=first.to,
            cc=first.cc,
            subject=f"[{index}] {what}" if index else what,
            rendered=self.renderer.combine(language, what, parts),
            language=language,
            event=first.event,
            headers=headers,
            attachments=tuple(a for d in group for a in d.attachments),
        )

    _drafts: list[Draft]

    # -- what the families use ------------------------------------------------

    def game(self, game_id: int) -> Game:
        g = self.session.get(Game, game_id)
        if g is None:
            raise LookupError(f"no game {game_id}")
        return g

    def player(self, player_id: int) -> Player:
        p = self.session.get(Player, player_id)
        if p is None:
            raise LookupError(f"no player {player_id}")
        return p

    def tournaments(self, ids: Iterable[int]) -> list[Tournament]:
        return [t for t in (self.session.get(Tournament, i) for i in ids) if t is not None]

    def answerable(self, to: Sequence[str]) -> list[str]:
        """The recipients, without the origin's sender once the reply cap is reached."""
        origin = self.origin
        if origin is None or origin.address not in to or origin.may_answer():
            return list(to)
        return [a for a in to if a != origin.address]

    def _inbound(self) -> int | None:
        return self.origin.inbound_id if self.origin else None

    def draft(self, d: Draft) -> None:
        """Keep ``d`` to be queued at the end of :meth:`tell`."""
        self._drafts.append(d)


#: The kinds of mail the messages of one poll send a reader as one: notices, bounces.
#: Move mails, game endings, claims and held orders keep a message per game.
GATHERED = frozenset({MailEvent.NOTICE, MailEvent.BOUNCE})


class Gathering:
    """The notices the messages of one poll (a batch, one transaction) send to readers
    who did not write them: a director told of three strangers' mail, of two bounces
    and of incomplete notation gets one message with a part per game.

    Each message's notifier keeps its notices here (:attr:`Notifier.gathering`);
    :meth:`send` queues them once the batch is handled, in the same transaction.
    """

    def __init__(self, notifier: Notifier) -> None:
        self.notifier = notifier
        self.drafts: list[tuple[Draft, int | None]] = []

    def keep(self, d: Draft, inbound: int | None) -> None:
        self.drafts.append((d, inbound))

    def send(self) -> list[Outbox]:
        """Queue what was kept: to one reader about several games, one message."""
        drafts, self.drafts = self.drafts, []
        before = len(self.notifier.queued)
        self.notifier._send(drafts)
        return self.notifier.queued[before:]


def tell_director_undeliverable(
    sender: str, renderer: Renderer | None = None
) -> Callable[[Session, Outbox, datetime.datetime], None]:
    """What the outbox does when it gives a message up: the director hears of it once.

    The director of the message's game, or of the tournaments whose players it
    was for; never about mail that was for the director itself.
    """

    def tell(session: Session, row: Outbox, now: datetime.datetime) -> None:
        if row.game is not None:
            tournaments = [row.game.tournament_id]
        else:
            tournaments = recipients_tournaments(session, row)
        notifier = Notifier(session, sender, now, renderer=renderer)
        notifier.tell(ev.Undeliverable(row.id, tuple(tournaments)))

    return tell
