"""The director's orders through single-use reply addresses, on SQLite and PostgreSQL.

Every message the bot sends to the director alone has ``Reply-To:
bot+o-KEY@…``; the director's mail client answers there, and the orders of
that answer are carried out at once, once. A Message-ID proves nothing: the
same message sent again, a forgery that copies the address from a Cc, one
that only names the bot's mail in ``In-Reply-To``, and an answer after 30
days are held, and the question to the director says when orders through the
same address were carried out.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator

import pytest
from deskbench import AUTHSERV, BOT, START_LIST, TD, WHITE, Bench, at
from sqlalchemy import select

from mailbot.compose.notifier import Notifier
from mailbot.desk.pipeline import Outcome
from mailbot.mail.wire import compose
from mailbot.rules import events as ev
from mailbot.store.models import HeldOrder, Outbox, Tournament
from mailbot.store.outbox import outgoing

GAME = "[PX-1/1] move"
VOUCHED = [("Authentication-Results", f"{AUTHSERV}; dmarc=pass header.from=federation.example")]
KEYED = re.compile(r'"Federation CC" <bot\+o-[a-z2-7]{26}@federation\.example>')
TEAMS = """
index: TM-1
name: Team cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: en
notation: en
director: {name: Tom Director, email: td@federation.example}
players:
  - {id: a1, name: Ann One, email: a1@example.org}
  - {id: a2, name: Ann Two, email: a2@example.org}
  - {id: b1, name: Bob One, email: b1@example.org}
  - {id: b2, name: Bob Two, email: b2@example.org}
boards: 2
teams:
  - {id: a, name: Alpha, captain: {name: Cap Alpha, email: cap-a@example.org}, players: [a1, a2]}
  - {id: b, name: Beta, players: [b1, b2]}
games: team-round-robin
"""


@pytest.fixture
def bench(db_url: str) -> Iterator[Bench]:
    b = Bench(db_url)
    try:
        yield b
    finally:
        b.close()


def start(bench: Bench) -> Outbox:
    """The tournament starts on 1 March: the director's "event is set up" mail."""
    with bench.sessions.begin() as session:
        t = session.scalars(select(Tournament)).one()
        Notifier(session, bench.desk.policy.sender, at(1, 8)).tell(ev.TournamentStarted(t.id))
    (setup,) = bench.outbox(to=TD, event="start")
    return setup


def held(bench: Bench) -> list[str]:
    with bench.sessions() as session:
        return [h.status for h in session.scalars(select(HeldOrder).order_by(HeldOrder.id))]


def question(bench: Bench) -> Outbox:
    """The latest message to the director, which must ask to confirm held orders."""
    row = bench.outbox(to=TD)[-1]
    assert "X-Mailbot-Held" in row.headers, row.subject
    return row


@pytest.mark.slow
def test_only_mail_to_the_director_alone_has_a_reply_address_of_its_own(db_url: str) -> None:
    bench = Bench(db_url, TEAMS)
    try:
        start(bench)
        bench.send("stranger@example.net", "What a game!", at(2), subject="[TM-1/1] kibitz")
        bench.send(TD, "penalty TM-1/1 white 5", at(3))  # held: the question goes to the TD
        rows = bench.outbox()
        alone = [r for r in rows if r.to_addrs == [TD] and not r.cc_addrs]
        assert [r.event for r in alone] == ["start", "notice"]
        replies = [r.headers.get("Reply-To", "") for r in alone]
        assert all(KEYED.fullmatch(r) for r in replies) and len(set(replies)) == 2
        # the mail as sent names the address: the director's client answers there
        sent = compose(outgoing(alone[0]), bench.desk.policy.sender).decode()
        assert f"Reply-To: {replies[0]}\r\n".replace('"', "") in sent.replace('"', "")
        # the notice about the stranger goes to the TD with a copy to the captain: no key
        (copied,) = [r for r in rows if r.cc_addrs]
        assert copied.to_addrs == [TD] and copied.cc_addrs == ["cap-a@example.org"]
        # no player's mail carries one, nor names any
        others = [r for r in rows if r not in alone]
        assert others and all("Reply-To" not in r.headers for r in others)
        assert not [r for r in rows if "+o-" in r.text_body]
    finally:
        bench.close()


CARRIED_OUT = {
    "en": ("Please confirm your orders", "confirm",
           "These orders were already carried out on 02.03.2026"),
    "bg": ("Моля, потвърдете разпорежданията си", "потвърждавам",
           "Тези разпореждания вече бяха изпълнени на 02.03.2026"),
    "ru": ("Пожалуйста, подтвердите ваши распоряжения", "подтверждаю",
           "Эти распоряжения уже были выполнены 02.03.2026"),
}  # fmt: skip


@pytest.mark.parametrize("language", CARRIED_OUT)
@pytest.mark.slow
def test_the_same_order_sent_again_waits_and_the_question_says_when_it_was_carried_out(
    db_url: str, language: str
) -> None:
    subject, confirm, words = CARRIED_OUT[language]
    bench = Bench(db_url, START_LIST.replace("language: en\n", f"language: {language}\n", 1))
    try:
        setup = start(bench)
        # the director answers the bot's mail, with a copy to White: carried out
        order = bench.message(
            TD,
            "penalty PX-1/1 white 5",
            reply_to=setup,
            headers=[("Cc", WHITE)],
            message_id="<penalty@td.example>",
        )
        assert bench.receive(order, at(2, 10)) is Outcome.HANDLED
        assert bench.game(1) == (None, 5)
        assert held(bench) == []
        # the very same message again, a week later, with another Message-ID
        again = order.replace(b"<penalty@td.example>", b"<penalty.2@td.example>")
        assert bench.receive(again, at(9)) is Outcome.HANDLED
        assert bench.game(1) == (None, 5)
        asked = question(bench)
        assert asked.subject == f"[PX-1] {subject}" and asked.to_addrs == [TD]
        assert "penalty PX-1/1 white 5" in asked.text_body
        assert words in asked.text_body, asked.text_body
        # the director did mean it twice: confirmed through the question's own address
        bench.send(TD, confirm, at(9, 12), reply_to=asked)
        assert bench.game(1) == (None, 10)
        assert held(bench) == ["confirmed"]
    finally:
        bench.close()


@pytest.mark.slow
def test_forgeries_in_the_directors_name_wait_whether_they_copy_the_key_or_the_thread(
    bench: Bench,
) -> None:
    setup = start(bench)
    bench.send(WHITE, "1. e2-e4", at(2), subject=GAME)
    bench.send(TD, "penalty PX-1/1 black 5", at(2, 10), reply_to=setup, headers=[("Cc", WHITE)])
    assert bench.game(1) == (None, 5)
    # White had the copy: the same To (the reply address), the same In-Reply-To
    bench.send(TD, "forfeit PX-1/1 white", at(3), reply_to=setup)
    assert bench.game(1) == (None, 5)
    copied = question(bench)
    assert "forfeit PX-1/1 white" in copied.text_body
    assert (
        "Orders given in answer to the same message from the arbiter were already carried out "
        "on 02.03.2026" in copied.text_body
    )
    # the thread alone (To the bot's own address, In-Reply-To the director's mail)
    bench.send(TD, "forfeit PX-1/1 white", at(3, 11), reply_to=setup, to=BOT)
    assert bench.game(1) == (None, 5)
    threaded = question(bench)
    assert threaded.id != copied.id and "already carried out" not in threaded.text_body
    assert held(bench) == ["held", "held"]
    assert bench.outbox(to=WHITE, event="game-over") == []
    # the director cancels both through their questions
    bench.send(TD, "reject", at(3, 12), reply_to=copied)
    bench.send(TD, "reject", at(3, 13), reply_to=threaded)
    assert held(bench) == ["cancelled", "cancelled"]
    assert bench.game(1) == (None, 5)


def test_a_reply_address_the_director_showed_to_others_carries_no_orders(bench: Bench) -> None:
    """The director answers the bot's mail without an order but with a copy to White:
    the address is no longer the director's secret. A copy to the director's own
    address shows it to nobody else."""
    setup = start(bench)
    bench.send(TD, "Good luck to you all.", at(2), reply_to=setup, headers=[("Cc", WHITE)])
    bench.send(TD, "forfeit PX-1/1 black", at(3), reply_to=setup)
    assert bench.game(1) == (None, 0)
    asked = question(bench)
    assert "forfeit PX-1/1 black" in asked.text_body
    assert "already carried out" not in asked.text_body
    bench.send(TD, "Noted, thank you.", at(3, 11), reply_to=asked, headers=[("Cc", TD)])
    bench.send(TD, "confirm", at(3, 12), reply_to=asked)
    assert bench.game(1) == ("1-0", 0)


@pytest.mark.parametrize(("days", "penalty"), [(29, 5), (30, 0)])
def test_a_reply_address_lapses_after_30_days(bench: Bench, days: int, penalty: int) -> None:
    setup = start(bench)  # mailed on 1 March at 08:00
    late = at(1, 8) + datetime.timedelta(days=days)
    bench.send(TD, "penalty PX-1/1 white 5", late, reply_to=setup)
    assert bench.game(1) == (None, penalty)
    if penalty:
        assert bench.outbox(to=TD)[-1].subject.endswith("Your orders")
        return
    asked = question(bench)
    assert "already carried out" not in asked.text_body
    bench.send(TD, "confirm", late + datetime.timedelta(hours=1), reply_to=asked)
    assert bench.game(1) == (None, 5)


@pytest.mark.slow
def test_a_held_order_confirmed_through_its_question_is_carried_out_once(bench: Bench) -> None:
    bench.send(TD, "penalty PX-1/1 white 5", at(2), to=BOT)
    asked = question(bench)
    # an answer with neither word changes nothing and leaves the address good
    bench.send(TD, "I am travelling until Monday.", at(2, 11), reply_to=asked)
    assert bench.game(1) == (None, 0) and held(bench) == ["held"]
    confirm = bench.message(TD, "Confirm.", reply_to=asked, message_id="<yes@td.example>")
    bench.receive(confirm, at(2, 12))
    assert bench.game(1) == (None, 5) and held(bench) == ["confirmed"]
    assert bench.outbox(to=TD)[-1].subject.endswith("Your orders")
    # the same confirmation again: nothing more is carried out, and the director hears why
    bench.receive(confirm.replace(b"<yes@td.example>", b"<yes.2@td.example>"), at(3))
    assert bench.game(1) == (None, 5)
    assert "These orders were already carried out on 02.03.2026" in question(bench).text_body


@pytest.mark.slow
def test_with_dmarc_the_text_of_orders_carried_out_before_waits(db_url: str) -> None:
    bench = Bench(db_url, authserv_id=AUTHSERV)
    try:
        bench.send(TD, "penalty PX-1/1 white 5", at(2), headers=VOUCHED)
        assert bench.game(1) == (None, 5)
        bench.send(TD, "penalty PX-1/1 white 5", at(9), headers=VOUCHED)
        assert bench.game(1) == (None, 5)
        asked = question(bench)
        assert "These orders were already carried out on 02.03.2026" in asked.text_body
        # another order goes at once; the repeated one when the director confirms it
        bench.send(TD, "penalty PX-1/1 black 5", at(9, 11), headers=VOUCHED)
        assert bench.game(1) == (None, 10)
        bench.send(TD, "confirm", at(9, 12), reply_to=asked)
        assert bench.game(1) == (None, 15)
    finally:
        bench.close()
