"""The desk on a real database without the mail servers: messages go straight in.

For the behaviour of the desk itself (what it records, applies and answers),
the IMAP round trip adds nothing but time: a :class:`Bench` hands raw
messages to :meth:`mailbot.desk.Desk.receive` as the inbox would (with a
folder, UIDVALIDITY, UID and arrival time) and reads the outbox table for the
answers. The mail path itself is tested on Dovecot and aiosmtpd elsewhere.
"""

from __future__ import annotations

import datetime
import email.policy
import email.utils
import itertools
from collections.abc import Sequence
from email.message import EmailMessage

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from mailbot.desk import Desk, Outcome, Policy
from mailbot.inbox import Fetched
from mailbot.startlist import parse_start_list
from mailbot.store import (
    Game,
    InboundMessage,
    Outbox,
    Tournament,
    import_start_list,
    make_engine,
    session_factory,
    upgrade,
)

BOT = "bot@federation.example"
TD = "td@federation.example"
AUTHSERV = "mx.federation.example"
UTC = datetime.UTC

START_LIST = """
index: PX-1
name: Poison cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: en
notation: en
director: {name: Tom Director, email: td@federation.example}
players:
  - {id: white, name: Walter White, email: white@example.org}
  - {id: black, name: Bella Black, email: black@example.org}
  - {id: grey, name: Gary Grey, email: grey@example.org}
  - {id: ivan, name: Иван Иванов, email: ivan@пример.бг, language: bg, notation: bg-cyrillic}
games:
  - {white: white, black: black}
  - {white: grey, black: ivan}
"""
WHITE, BLACK, GREY, IVAN = (
    "white@example.org",
    "black@example.org",
    "grey@example.org",
    "ivan@пример.бг",
)


def at(day: int, hour: int = 9) -> datetime.datetime:
    return datetime.datetime(2026, 3, day, hour, tzinfo=UTC)


class Bench:
    """A database with one tournament and a desk that reads straight from bytes."""

    def __init__(
        self,
        db_url: str,
        start_list: str = START_LIST,
        *,
        authserv_id: str | None = None,
        require_dmarc: bool = False,
    ) -> None:
        upgrade(db_url)
        self.engine = make_engine(db_url)
        self.sessions: sessionmaker[Session] = session_factory(self.engine)
        with self.sessions.begin() as session:
            import_start_list(session, parse_start_list(start_list), at(1, 0))
        self.desk = Desk(
            self.sessions,
            Policy(
                sender=f"Federation CC <{BOT}>",
                authserv_id=authserv_id,
                require_dmarc=require_dmarc,
                timezone="Europe/Sofia",
            ),
        )
        self._uids = itertools.count(1)
        self._ids = itertools.count(1)

    def close(self) -> None:
        self.engine.dispose()

    def message(
        self,
        sender: str,
        body: str,
        *,
        subject: str = "move",
        headers: Sequence[tuple[str, str]] = (),
        reply_to: Outbox | None = None,
        message_id: str | None = None,
        to: str | None = None,
    ) -> bytes:
        """A plain message from ``sender``, as a mail client writes it: a reply goes to
        the replied message's ``Reply-To`` when it has one, else to the bot (unless
        ``to`` says otherwise)."""
        msg = EmailMessage()
        msg["From"] = sender
        answer_to = reply_to.headers.get("Reply-To") if reply_to is not None else None
        msg["To"] = to or answer_to or BOT
        msg["Subject"] = subject
        msg["Date"] = email.utils.format_datetime(at(2))
        msg["Message-ID"] = message_id or f"<b{next(self._ids)}@players.example>"
        if reply_to is not None:
            msg["In-Reply-To"] = f"<{reply_to.message_id}>"
            msg["References"] = f"<{reply_to.message_id}>"
        for name, value in headers:
            msg[name] = value
        msg.set_content(body)
        # raw UTF-8 where an address needs it, as SMTPUTF8 mail arrives (RFC 6532)
        return msg.as_bytes(policy=email.policy.SMTPUTF8)

    def receive(self, raw: bytes, when: datetime.datetime) -> Outcome:
        """The desk handles ``raw`` as arriving at ``when``, at a new UID."""
        return self.receive_at(raw, when, next(self._uids))

    def receive_at(self, raw: bytes, when: datetime.datetime, uid: int) -> Outcome:
        fetched = Fetched("INBOX", 1, uid, raw, when)
        return self.desk.receive(fetched, when + datetime.timedelta(minutes=1))

    def send(self, sender: str, body: str, when: datetime.datetime, **kwargs: object) -> Outcome:
        return self.receive(self.message(sender, body, **kwargs), when)  # type: ignore[arg-type]

    def outbox(self, to: str | None = None, event: str | None = None) -> list[Outbox]:
        """Queued mail (to ``to``, of ``event``), oldest first."""
        with self.sessions() as session:
            rows = session.scalars(select(Outbox).order_by(Outbox.id)).all()
        return [
            r
            for r in rows
            if (to is None or to in [*r.to_addrs, *r.cc_addrs])
            and (event is None or r.event == event)
        ]

    def inbound(self) -> list[InboundMessage]:
        with self.sessions() as session:
            return list(session.scalars(select(InboundMessage).order_by(InboundMessage.id)))

    def last_inbound(self) -> InboundMessage:
        return self.inbound()[-1]

    def plies(self, number: int) -> list[str]:
        """The moves of game ``number`` in UCI."""
        with self.sessions() as session:
            g = session.scalars(select(Game).join(Tournament).where(Game.number == number)).one()
            return [m.uci for m in g.moves]

    def game(self, number: int) -> tuple[str | None, int]:
        """Result and penalty days of game ``number``."""
        with self.sessions() as session:
            g = session.scalars(select(Game).where(Game.number == number)).one()
            return g.result, sum(p.days for p in g.penalties)
