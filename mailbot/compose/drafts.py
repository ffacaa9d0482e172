"""The mail of one ``tell``, composed but not queued yet, and the thread it continues.

The :class:`~mailbot.compose.notifier.Notifier` keeps a :class:`Draft` per
message while it tells the events of one call, then queues them: the drafts to
one reader about several games go as one message, a part per game, each part
headed by :func:`heading`; the headers that name one game (:data:`PER_GAME`)
leave such a message.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from mailbot.compose.notices import Rendered
from mailbot.mail.attachments import Attachment
from mailbot.store.engine import pending, recent
from mailbot.store.kinds import MailEvent
from mailbot.store.models import LATEST_MAIL, Game, Outbox, Tournament
from mailbot.store.outbox import UNDELIVERABLE
from mailbot.store.record import tag_of

__all__ = ["PER_GAME", "Draft", "heading", "last_mail_to", "one_index"]


@dataclasses.dataclass
class Draft:
    """A message composed but not queued yet: the mail of one ``tell`` to one recipient
    about several games is sent as one (see :meth:`~mailbot.compose.notifier.Notifier.tell`)."""

    to: list[str]
    subject: str
    rendered: Rendered
    language: str
    event: MailEvent
    headers: dict[str, str]
    cc: Sequence[str] = ()
    game: Game | None = None
    #: Called with the row once it is queued.
    queued: Callable[[Outbox], None] | None = None
    #: The files sent after the text (the game's PGN with a move).
    attachments: tuple[Attachment, ...] = ()

    @property
    def batchable(self) -> bool:
        """Mail about one game that the recipient does not answer in its own thread
        (a claim's or a held order's notice is decided by replying to it)."""
        return self.game is not None and not any(
            h in self.headers for h in ("X-Mailbot-Claim", "X-Mailbot-Held", UNDELIVERABLE)
        )


#: Headers that name one game: a message about several has none of them.
PER_GAME = frozenset(
    {"X-Mailbot-Game", "X-Mailbot-Ply", "X-Mailbot-Move", "X-Mailbot-Time", "X-Mailbot-Result",
     "X-Mailbot-Penalty", "X-Mailbot-Claim"}
)  # fmt: skip


def heading(d: Draft, *, with_what: bool) -> str:
    """A part's heading in a message about several games: the game (and what happened)."""
    g = d.game
    assert g is not None
    heading = f"[{tag_of(g)}] {g.white.name} – {g.black.name}"
    return f"{heading}: {d.rendered.what}" if with_what else heading


def last_mail_to(session: Session, g: Game, address: str) -> str | None:
    """The Message-ID of the bot's latest message about ``g`` to ``address`` (to keep
    the thread).

    Only the addresses and Message-IDs of the latest rows are read, not their texts;
    the rows queued in this transaction first, from memory. The new rows need not
    be written to be read; changed ones (a director's new address) are.
    """
    deleted = session.deleted
    for row in reversed(recent(session).mail.get(g.id, ())):
        if address in row.to_addrs and row not in deleted:
            return row.message_id
    rows: Sequence[tuple[str, list[str]]]
    changed = pending(session, Outbox, new=False)
    if changed:
        session.flush()
    if not changed and g.id in recent(session).threads:  # read with the game
        rows = recent(session).threads[g.id]
    else:
        with session.no_autoflush:  # the new rows are those above
            rows = [(m, to) for m, to in session.execute(_LAST_MAIL, {"game": g.id})]
    return next((message_id for message_id, to in rows if address in to), None)


_LAST_MAIL = (
    select(Outbox.message_id, Outbox.to_addrs)
    .where(Outbox.game_id == bindparam("game"))
    .order_by(Outbox.id.desc())
    .limit(LATEST_MAIL)
)


def one_index(tournaments: Sequence[Tournament]) -> str | None:
    """The index for the subject of a message about no single game: the
    tournament's, when the recipient plays (or directs) in exactly one.

    >>> from types import SimpleNamespace as T
    >>> one_index([T(index="BG-2026-E1"), T(index="BG-2026-E1")]), one_index([])
    ('BG-2026-E1', None)
    """
    indexes = {t.index for t in tournaments}
    return indexes.pop() if len(indexes) == 1 else None
