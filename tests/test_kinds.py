"""The kinds the store keeps stay in step with what names them elsewhere: the mail's
``X-Mailbot-Event`` values with docs/contract.md, the ledger's notice kinds with the
deadlines of :mod:`mailbot.rules.due`."""

from __future__ import annotations

import re
from pathlib import Path

from mailbot.publish.evidencewords import words_for
from mailbot.rules.due import DueKind
from mailbot.store.kinds import MailEvent, NoticeKind

CONTRACT = Path(__file__).parent.parent / "docs" / "contract.md"


def contract_events(text: str) -> list[str]:
    """The ``X-Mailbot-Event`` values of the contract's header table, in its order.

    >>> contract_events("| `X-Mailbot-Event` | `start`, `move` (to the opponent) |")
    ['start', 'move']
    """
    row = next(line for line in text.splitlines() if line.startswith("| `X-Mailbot-Event`"))
    return re.findall(r"`([a-z-]+)`", row.split("|")[2])


def test_the_mail_events_are_the_contracts() -> None:
    """A kind of mail the contract names and the bot cannot write, or one the bot writes
    and the contract does not name, fails here: the two cannot drift apart."""
    assert [e.value for e in MailEvent] == contract_events(CONTRACT.read_text(encoding="utf-8"))


def test_every_deadline_is_a_kind_of_notice() -> None:
    """Each deadline the sweep finds is entered in the ledger as the notice of its name
    (``NoticeKind(due_kind)``); ``rules`` may not import the store, so the kinds are
    named twice and kept in step here."""
    for kind in DueKind:
        assert NoticeKind(kind).value == kind.value
        assert NoticeKind(kind).name == kind.name


def test_every_mail_event_is_named_in_the_dispute_file() -> None:
    for language in ("bg", "ru"):
        names = words_for(language)["mail_event"]
        assert isinstance(names, dict)
        assert set(names) == set(MailEvent), language
