"""What one message can do to the bot: nothing but its own fate.

Every test feeds the desk as the inbox would (raw bytes, a UID, an arrival
time) on SQLite and on PostgreSQL, where the database itself refuses NUL
characters and over-long values, and reads what the desk recorded and queued.
"""

from __future__ import annotations

import dataclasses
import datetime
import time
from collections.abc import Iterator

import pytest
from deskbench import AUTHSERV, BLACK, BOT, GREY, IVAN, START_LIST, TD, WHITE, Bench, at
from sqlalchemy import select

from mailbot.compose.catalogue import say_kept
from mailbot.desk import pipeline
from mailbot.desk.pipeline import Desk, Outcome, StoreUnavailable
from mailbot.mail.inbox import Fetched
from mailbot.mail.letters import read_letter
from mailbot.store.engine import make_engine, session_factory
from mailbot.store.models import HeldOrder, InboundMessage

GAME = "[PX-1/1] move"


def reason_of(row: InboundMessage) -> str:
    """Why the bot did not act on a message, as the logs and the quarantine list say it."""
    return say_kept("en", row.reason_phrase, row.reason)


@pytest.fixture
def bench(db_url: str) -> Iterator[Bench]:
    b = Bench(db_url)
    try:
        yield b
    finally:
        b.close()


def raw(*lines: str, body: str = "1. e2-e4") -> bytes:
    return ("\r\n".join(lines) + "\r\n\r\n" + body + "\r\n").encode()


# ---------------------------------------------------------------------------
# Values the database refuses


def test_values_the_database_refuses_are_stored_tamed(bench: Bench) -> None:
    """NUL in encoded words, a 2,000-character Message-ID, a From of 400
    characters, a 100,000-character subject: each message is recorded and
    answered, and the move behind them is played."""
    poison = [
        raw(
            "From: =?utf-8?Q?Eve=00Null?= <eve@example.net>",
            "Subject: =?utf-8?Q?a=00b?=",
            "Message-ID: <=?utf-8?Q?x=00y?=@example.net>",
        ),
        raw("From: eve@example.net", "Subject: hi", f"Message-ID: <{'m' * 2000}@example.net>"),
        raw(f"From: {'E' * 300} <{'e' * 60}@{'x' * 60}.example.net>", "Subject: long"),
        raw("From: eve@example.net", f"Subject: {'ж' * 100_000}"),
        raw("From: eve@example.net", "Subject: nul", body="\x00\x00 1. e2-e4 \x00"),
        # punycode that decodes to a lone surrogate, which no database stores
        raw("From: eve@xn--ib9b.com", "Subject: surrogate"),
    ]
    for message in poison:
        assert bench.receive(message, at(2)) in (Outcome.HANDLED, Outcome.IGNORED)
    assert bench.send(WHITE, "1. e2-e4", at(2, 10), subject=GAME) is Outcome.HANDLED
    assert bench.plies(1) == ["e2e4"]
    rows = bench.inbound()
    assert len(rows) == len(poison) + 1
    assert all(r.status != "new" and r.attempts == 0 for r in rows)
    assert "\x00" not in (rows[0].subject or "")
    # the first stranger is answered once; the other strangers' mail too, each once
    assert len(bench.outbox(to="eve@example.net")) == 1


def test_a_failing_message_is_retried_then_quarantined_and_the_others_go_on(
    bench: Bench, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in for a bug (nothing real makes the desk raise on purpose): the
    message fails, is counted, is retried at the next pass, goes to quarantine
    after three failures with one notice to the director; the moves around it
    are played."""
    real = Desk._handle

    def handle(self: Desk, ctx: object, budget: object) -> None:
        if "boom" in ctx.letter.body:  # type: ignore[attr-defined]
            raise RuntimeError("boom in the handler")
        real(self, ctx, budget)  # type: ignore[arg-type]

    monkeypatch.setattr(Desk, "_handle", handle)
    bad = bench.message(GREY, "boom")
    outcomes = []
    for attempt, (mover, move) in enumerate([(WHITE, "1. e2-e4"), (BLACK, "1... e7-e5")]):
        outcomes.append(bench.receive_at(bad, at(2 + attempt), 1000))
        assert bench.send(mover, move, at(2 + attempt, 10), subject=GAME) is Outcome.HANDLED
    outcomes.append(bench.receive_at(bad, at(5), 1000))
    assert outcomes == [Outcome.FAILED, Outcome.FAILED, Outcome.QUARANTINED]
    assert bench.plies(1) == ["e2e4", "e7e5"]
    (poison,) = [r for r in bench.inbound() if r.uid == 1000]
    assert (poison.status, poison.attempts) == ("quarantined", 3)
    assert poison.last_error == "RuntimeError: boom in the handler"
    (notice,) = bench.outbox(to=TD, event="error")
    assert "failed 3 times" in notice.text_body
    # a copy of it that arrives again joins the quarantine, without a new notice
    assert bench.receive(bad, at(6)) is Outcome.QUARANTINED
    assert len(bench.outbox(to=TD, event="error")) == 1


@pytest.mark.slow
def test_a_message_over_its_time_budget_is_set_aside_at_once_and_the_batch_goes_on(
    bench: Bench, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in for slowness (reading is bounded by construction, so nothing real
    takes this long on purpose): a message whose handling runs past the budget is
    rolled back and quarantined at its first attempt, the director is told once,
    and the moves of the same batch are played.

    The slow message's budget is started a second past the budget ago, so no
    real wait decides the test: the moves around it keep the whole budget however
    loaded the machine is (a budget of 0.2 s once set aside a move on one)."""
    real = Desk._handle

    def handle(self: Desk, ctx: object, budget: pipeline._Budget) -> None:
        real(self, ctx, budget)  # type: ignore[arg-type]
        if "slow" in ctx.letter.body:  # type: ignore[attr-defined]
            budget.started = time.monotonic() - pipeline.BUDGET - 1.0

    monkeypatch.setattr(Desk, "_handle", handle)
    batch = [
        Fetched("INBOX", 1, 500, bench.message(WHITE, "1. e2-e4", subject=GAME), at(2)),
        Fetched("INBOX", 1, 501, bench.message(GREY, "slow: status"), at(2)),
        Fetched("INBOX", 1, 502, bench.message(BLACK, "1... e7-e5", subject=GAME), at(2)),
    ]
    outcomes = bench.desk.receive_all(batch, at(2, 10))
    assert outcomes == [Outcome.HANDLED, Outcome.QUARANTINED, Outcome.HANDLED]
    assert bench.plies(1) == ["e2e4", "e7e5"]
    (slow,) = [r for r in bench.inbound() if r.uid == 501]
    assert (slow.status, slow.attempts) == ("quarantined", 1)
    assert slow.last_error is not None and "over the budget" in slow.last_error
    assert len(bench.outbox(to=TD, event="error")) == 1
    # the same message again joins the quarantine, with no second notice
    assert bench.receive_at(batch[1].raw, at(3), 501) is Outcome.QUARANTINED
    assert len(bench.outbox(to=TD, event="error")) == 1


def test_an_unreachable_database_stops_the_pass_and_counts_no_attempt(bench: Bench) -> None:
    """The database, not the message: the desk says so instead of failing the message."""
    dead = make_engine("postgresql+psycopg://postgres@127.0.0.1:9/none")
    desk = Desk(session_factory(dead), bench.desk.policy)
    message = bench.message(WHITE, "1. e2-e4", subject=GAME)
    with pytest.raises(StoreUnavailable, match="cannot be reached"):
        desk.receive(Fetched("INBOX", 1, 1, message, at(2)), at(2))
    dead.dispose()
    assert bench.inbound() == []


# ---------------------------------------------------------------------------
# Nothing dropped silently


@pytest.mark.slow
def test_a_reused_message_id_is_new_mail_and_a_copy_is_not(bench: Bench) -> None:
    mid = "<same@players.example>"
    move = bench.message(WHITE, "1. e2-e4", subject=GAME, message_id=mid)
    assert bench.receive(move, at(2)) is Outcome.HANDLED
    # the same message again, delivered with another Received line: a duplicate
    copy = b"Received: from mx2.example.org by mx.federation.example\r\n" + move
    assert bench.receive(copy, at(2, 10)) is Outcome.DUPLICATE
    # someone else's message with that Message-ID is a message of its own
    other = bench.message("eve@example.net", "help", message_id=mid)
    assert bench.receive(other, at(2, 11)) is Outcome.HANDLED
    assert len(bench.outbox(to="eve@example.net")) == 1
    # and so is Black's answer under that Message-ID
    answer = bench.message(BLACK, "1... e7-e5", subject=GAME, message_id=mid)
    assert bench.receive(answer, at(2, 12)) is Outcome.HANDLED
    assert bench.plies(1) == ["e2e4", "e7e5"]


def nested(depth: int, sender: str) -> bytes:
    head = (
        f"From: {sender}\r\nSubject: {GAME}\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/mixed; boundary="b0"\r\n\r\n'
    )
    body = "".join(
        f'--b{i}\r\nContent-Type: multipart/mixed; boundary="b{i + 1}"\r\n\r\n'
        for i in range(depth)
    )
    body += f"--b{depth}\r\nContent-Type: text/plain\r\n\r\n1. e2-e4\r\n--b{depth}--\r\n"
    return (head + body).encode()


@pytest.mark.parametrize(
    "message",
    [
        pytest.param(nested(1000, WHITE), id="1000-levels"),
        pytest.param(
            raw(
                f"From: {WHITE}",
                f"Subject: {GAME}",
                "Content-Type: text/plain; charset=utf-8",
                "Content-Transfer-Encoding: base64",
                body="!!!!",
            ),
            id="broken-base64",
        ),
    ],
)
@pytest.mark.slow
def test_a_player_whose_message_cannot_be_read_is_told(bench: Bench, message: bytes) -> None:
    assert bench.receive(message, at(2)) is Outcome.HANDLED
    (answer,) = bench.outbox(to=WHITE)
    assert answer.subject == "[PX-1] Your message could not be read"
    assert "could not be read" in answer.text_body
    assert reason_of(bench.last_inbound()) == "the message could not be read"
    assert bench.plies(1) == []


def test_an_idna_charset_label_is_read_as_an_unknown_one(bench: Bench) -> None:
    message = raw(f"From: {WHITE}", f"Subject: {GAME}", 'Content-Type: text/plain; charset="idna"')
    assert bench.receive(message, at(2)) is Outcome.HANDLED
    assert bench.plies(1) == ["e2e4"]


def test_a_move_in_the_subject_alone_and_a_lower_case_piece_letter(bench: Bench) -> None:
    assert bench.send(GREY, "", at(2), subject="Re: [PX-1/2] 1. Ng1-f3") is Outcome.HANDLED
    assert bench.plies(2) == ["g1f3"]
    # a reply that keeps the bot's subject (naming the opponent's move) plays nothing
    (sent,) = bench.outbox(to=IVAN, event="move")
    assert bench.send(IVAN, "", at(3), subject=f"Re: {sent.subject}") is Outcome.HANDLED
    assert bench.plies(2) == ["g1f3"]
    assert bench.outbox(to=IVAN)[-1].subject.endswith("Не е намерен ход")
    # a phone writes the Bulgarian knight in lower case
    assert bench.send(IVAN, "1... кg8-f6", at(3, 10), subject="[PX-1/2] ход") is Outcome.HANDLED
    assert bench.plies(2) == ["g1f3", "g8f6"]


@pytest.mark.slow
def test_an_idn_address_is_one_player_in_either_form(bench: Bench) -> None:
    bench.send(GREY, "1. e2-e4", at(2), subject="[PX-1/2] move")
    assert bench.send("Ivan@XN--E1AFMKFD.XN--90AE", "1... e7-e5", at(3), subject="[PX-1/2] х")
    assert bench.plies(2) == ["e2e4", "e7e5"]
    assert [r.event for r in bench.outbox(to=IVAN)] == ["move", "move-accepted"]


# ---------------------------------------------------------------------------
# Machine mail, strangers


MACHINE = [
    raw(f"From: {WHITE}", f"Subject: {GAME}", "Auto-Submitted: auto-replied"),
    raw(f"From: {WHITE}", f"Subject: {GAME}", "X-Autorespond: yes"),
    raw(f"From: {WHITE}", f"Subject: {GAME}", "Precedence: auto_reply"),
    raw(f"From: {WHITE}", f"Subject: {GAME}", "Precedence: junk"),
    raw(f"From: {WHITE}", f"Subject: {GAME}", "List-Id: <chess.lists.example.org>"),
    raw(f"From: {WHITE}", f"Subject: {GAME}", "Return-Path: <>"),
    raw("From: MAILER_DAEMON@mx.example.org", f"Subject: {GAME}"),
    raw("From: Mailer-Daemon@mx.example.org", "Subject: failure"),
    raw("From: Mail Delivery System <bounce@mx.example.org>", "Subject: Undelivered"),
    raw("From: postmaster@example.org", "Subject: failure"),
    raw(f"From: {WHITE}", "Subject: Automatic reply: [PX-1/1] move"),
    raw(f"From: {WHITE}", "Subject: Out of Office: [PX-1/1] move"),
    raw(f"From: {WHITE}", "Subject: Автоматичен отговор: [PX-1/1] ход"),
    raw(f"From: {WHITE}", "Subject: Автоответ: [PX-1/1] ход"),
    raw("From: bot+tag@federation.example", f"Subject: {GAME}"),
    raw("From: Federation <BOT@Federation.Example>", f"Subject: {GAME}"),
]


@pytest.mark.parametrize("message", MACHINE, ids=range(len(MACHINE)))
def test_machine_mail_is_never_answered(bench: Bench, message: bytes) -> None:
    assert bench.receive(message, at(2)) is Outcome.IGNORED
    assert reason_of(bench.last_inbound()).startswith("automatic mail: ")
    assert bench.outbox() == []
    assert bench.plies(1) == []


def test_a_stranger_gets_one_answer_a_day(bench: Bench) -> None:
    for hour in range(9, 15):
        assert bench.send("eve@example.net", "help", at(2, hour)) is Outcome.HANDLED
    assert len(bench.outbox(to="eve@example.net")) == 1
    bench.send("eve@example.net", "help", at(3, 15))
    assert len(bench.outbox(to="eve@example.net")) == 2
    # a stranger writing about a game: one answer, one copy to the director, a day
    for hour in (10, 11, 12):
        bench.send("mallory@example.net", "1. e2-e4", at(3, hour), subject=GAME)
    assert len(bench.outbox(to="mallory@example.net")) == 1
    assert len(bench.outbox(to=TD)) == 1


def test_past_the_cap_a_director_is_told_once_that_the_answers_stop_for_the_day(
    store_url: str,
) -> None:
    """Like Mailman's last autoresponse of the day: the first message past the reply
    cap is answered with that, in the event's language and the director's gender,
    and the next ones get nothing until the next day."""
    start = START_LIST.replace("language: en", "language: ru").replace(
        "director: {name: Tom Director,", "director: {name: Анна Смирнова, gender: f,"
    )
    bench = Bench(store_url, start)
    try:
        bench.desk.policy = dataclasses.replace(bench.desk.policy, replies_per_sender_per_day=2)
        for hour in range(9, 14):
            bench.send(TD, "help", at(2, hour))
        told = bench.outbox(to=TD)
        assert [r.subject for r in told][2:] == ["Сегодня ответов больше не будет"]
        said = " ".join(told[2].text_body.split())
        assert said.startswith("Уважаемая Анна Смирнова, сегодня бот ответил на 2 ваших письма")
        assert "снова ответит вам только с 3.3.2026" in said
        assert "отправьте ещё раз всё, на что ждёте ответа" in said
        assert "ваши ходы" not in said  # she directs, she does not play
        assert [reason_of(r) for r in bench.inbound()][2:] == ["reply cap reached for the day"] * 3
        bench.send(TD, "help", at(3, 9))
        assert len(bench.outbox(to=TD)) == 4
    finally:
        bench.close()


# ---------------------------------------------------------------------------
# Forged senders and orders


@pytest.mark.parametrize(
    ("sender", "reason"),
    [
        (f"{WHITE} <eve@evil.example>", "the From field names several addresses"),
        (f'"{WHITE}" <eve@evil.example>', "the sender name holds another address"),
        (f"eve@evil.example, {WHITE}", "the From field names several addresses"),
        (f"{TD} <eve@evil.example>", "the From field names several addresses"),
    ],
)
def test_a_from_that_hides_another_address_is_refused(
    bench: Bench, sender: str, reason: str
) -> None:
    message = raw(f"From: {sender}", f"Subject: {GAME}", body="forfeit PX-1/1 black\n1. e2-e4")
    assert bench.receive(message, at(2)) is Outcome.IGNORED
    assert reason_of(bench.last_inbound()) == reason
    assert bench.outbox() == []
    assert bench.plies(1) == [] and bench.game(1) == (None, 0)


def test_two_from_fields_are_refused(bench: Bench) -> None:
    message = raw(f"From: {WHITE}", "From: eve@evil.example", f"Subject: {GAME}")
    assert bench.receive(message, at(2)) is Outcome.IGNORED
    assert reason_of(bench.last_inbound()) == "the message has several From fields"


def results(verdicts: list[str]) -> list[tuple[str, str]]:
    return [("Authentication-Results", v) for v in verdicts]


ESCAPED = '"x\\";dmarc=pass header.from=example.org;m=r\\"\\""@evil.example'
FORGED = {
    "pass-in-a-quoted-local-part": [
        f"{AUTHSERV}; spf=pass smtp.mailfrom={ESCAPED}; dmarc=fail header.from=example.org"
    ],
    "fail-after-a-long-header": [
        f"{AUTHSERV}; "
        + "dkim=pass header.d=example.org header.s=s1; " * 200
        + "dmarc=fail header.from=example.org"
    ],
    "pass-below": [f"{AUTHSERV}; spf=pass", f"{AUTHSERV}; dmarc=pass header.from=example.org"],
    "pass-in-property": [f"{AUTHSERV}; spf=pass smtp.mailfrom=dmarc=pass@evil.example"],
    "pass-in-comment": [f"{AUTHSERV}; dkim=none (dmarc=pass header.from=example.org)"],
    "pass-for-another-domain": [f"{AUTHSERV}; dmarc=pass header.from=evil.example"],
    "pass-from-another-server": ["mx.evil.example; dmarc=pass header.from=example.org"],
    "fail-on-top": [
        f"{AUTHSERV}; dmarc=fail header.from=example.org",
        f"{AUTHSERV}; dmarc=pass header.from=example.org",
    ],
}


@pytest.mark.parametrize("verdicts", FORGED.values(), ids=FORGED.keys())
def test_only_the_receiving_servers_own_dmarc_pass_counts(db_url: str, verdicts: list[str]) -> None:
    bench = Bench(db_url, authserv_id=AUTHSERV, require_dmarc=True)
    try:
        forged = bench.message(WHITE, "1. e2-e4", subject=GAME, headers=results(verdicts))
        assert bench.receive(forged, at(2)) is Outcome.IGNORED
        assert bench.plies(1) == [] and bench.outbox() == []
        genuine = [f"{AUTHSERV}; spf=pass; dmarc=pass (p=reject) header.from=example.org"]
        move = bench.message(WHITE, "1. e2-e4", subject=GAME, headers=results(genuine))
        assert bench.receive(move, at(3)) is Outcome.HANDLED
        assert bench.plies(1) == ["e2e4"]
    finally:
        bench.close()


def held(bench: Bench) -> list[HeldOrder]:
    with bench.sessions() as session:
        return list(session.scalars(select(HeldOrder).order_by(HeldOrder.id)))


def test_an_order_nobody_vouches_for_waits_for_the_directors_confirmation(bench: Bench) -> None:
    """No DMARC configured: the director's From alone issues nothing. The bot asks
    the registered address; only a reply to that question carries the order out."""
    bench.send(WHITE, "1. e2-e4", at(2), subject=GAME)
    assert bench.send(TD, "forfeit PX-1/1 black", at(3)) is Outcome.HANDLED
    assert bench.game(1) == (None, 0)
    (challenge,) = bench.outbox(to=TD)
    assert challenge.subject == "[PX-1] Please confirm your orders"
    assert challenge.to_addrs == [TD] and challenge.cc_addrs == []
    assert "forfeit PX-1/1 black" in challenge.text_body
    assert [(h.status, h.orders) for h in held(bench)] == [("held", ["forfeit PX-1/1 black"])]

    # a forger who has seen the bot's mail to a player cannot use it
    (to_white,) = bench.outbox(to=WHITE)
    bench.send(TD, "forfeit PX-1/1 white", at(3, 10), reply_to=to_white)
    assert bench.game(1) == (None, 0)
    assert len(held(bench)) == 2

    # an answer that says neither confirm nor reject (an out-of-office reply) does nothing
    bench.send(TD, "I am away until Monday.", at(3, 11), reply_to=challenge)
    assert bench.game(1) == (None, 0)
    assert [h.status for h in held(bench)] == ["held", "held"]
    # the director answers the question: the order (and only it) is carried out
    bench.send(TD, "Yes, that was me.\nConfirm.", at(3, 12), reply_to=challenge)
    assert bench.game(1)[0] == "1-0"  # black, named in the order, loses
    assert [h.status for h in held(bench)] == ["confirmed", "held"]
    assert bench.outbox(to=TD)[-1].subject.endswith("Your orders")
    # the other one the director rejects: cancelled, and the director is told
    second = next(r for r in bench.outbox(to=TD) if r.headers.get("X-Mailbot-Held") == "2")
    bench.send(TD, "Reject: I did not send this.", at(3, 13), reply_to=second)
    assert [h.status for h in held(bench)] == ["confirmed", "cancelled"]
    assert bench.outbox(to=TD)[-1].subject == "[PX-1] Orders cancelled"


def test_orders_through_the_directors_reply_address_or_with_dmarc_go_at_once(
    db_url: str,
) -> None:
    bench = Bench(db_url, authserv_id=AUTHSERV)
    try:
        vouched = results([f"{AUTHSERV}; dmarc=pass header.from=federation.example"])
        bench.send(TD, "penalty PX-1/1 white 5", at(2), headers=vouched)
        assert bench.game(1) == (None, 5)
        assert held(bench) == []
        # the answer went to the director alone, with a reply address only the director
        # has: a reply to it needs no DMARC
        answer = bench.outbox(to=TD)[-1]
        assert answer.headers["Reply-To"].startswith('"Federation CC" <bot+o-')
        bench.send(TD, "penalty PX-1/1 black 5", at(3), reply_to=answer)
        assert bench.game(1) == (None, 10)
        assert held(bench) == []
        # naming the bot's mail in In-Reply-To, written To the bot's own address, is not
        # enough: every copy of that mail has its Message-ID
        answer = bench.outbox(to=TD)[-1]
        bench.send(TD, "penalty PX-1/1 black 10", at(4), reply_to=answer, to=BOT)
        assert bench.game(1) == (None, 10)
        assert [h.orders for h in held(bench)] == [["penalty PX-1/1 black 10"]]
    finally:
        bench.close()


def test_held_orders_lapse_after_a_week_and_are_asked_again(bench: Bench) -> None:
    bench.send(TD, "penalty PX-1/1 white 5", at(2))
    (challenge,) = bench.outbox(to=TD)
    late = at(2) + datetime.timedelta(days=8)
    bench.send(TD, "confirm", late, reply_to=challenge)
    assert bench.game(1) == (None, 0)
    assert [h.status for h in held(bench)] == ["lapsed", "held"]
    again = bench.outbox(to=TD)[-1]
    assert again.subject.endswith("Please confirm your orders")
    bench.send(TD, "потвърждавам", late + datetime.timedelta(hours=1), reply_to=again)
    assert bench.game(1) == (None, 5)


def test_each_message_is_one_log_line_with_sender_game_ply_and_outcome(
    bench: Bench, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO", logger="mailbot.desk.pipeline")
    bench.send(WHITE, "1. e2-e4", at(2), subject=GAME, message_id="<m1@players.example>")
    bench.send(BLACK, "1... Ng8-e7", at(3), subject=GAME, message_id="<m2@players.example>")
    lines = [r.getMessage() for r in caplog.records if r.name == "mailbot.desk.pipeline"]
    assert lines == [
        "message m1@players.example from white@example.org: game PX-1/1 ply 1 e2e4 processed",
        "message m2@players.example from black@example.org: game PX-1/1 ply 1 e2e4 rejected "
        "(impossible: the knight on g8 cannot move to e7)",
    ]


def test_a_responder_that_answers_everything_gets_two_answers_a_day(bench: Bench) -> None:
    """A player's vacation responder without any header or subject saying so: it
    answers the bot's answer with the same text, which would go on all day."""
    text = "Thank you for your message. I will read it when I am back."
    for hour in range(9, 17):
        bench.send(WHITE, text, at(2, hour), subject=f"Re: {GAME}")
    assert len(bench.outbox(to=WHITE)) == 2
    assert (
        reason_of(bench.last_inbound()) == "the same text came three times in a day (a mail loop?)"
    )
    # a different text is answered at once
    bench.send(WHITE, "1. e2-e4", at(2, 18), subject=GAME)
    assert bench.plies(1) == ["e2e4"] and len(bench.outbox(to=WHITE)) == 3


@pytest.mark.slow
def test_a_quote_bomb_is_read_in_bounded_space(bench: Bench) -> None:
    """80,000 nested quotes in 1 MB of HTML: the text is cut, the quotes marked 20 deep."""
    body = "<div>1. e2-e4</div>" + "<blockquote>x" * 80_000
    message = raw(f"From: {WHITE}", f"Subject: {GAME}", "Content-Type: text/html", body=body)
    letter = read_letter(message)
    assert len(letter.full_text) <= 1 << 20
    assert max(len(line) - len(line.lstrip(">")) for line in letter.full_text.splitlines()) <= 20
    assert bench.receive(message, at(2)) is Outcome.HANDLED
    assert bench.plies(1) == ["e2e4"]


@pytest.mark.parametrize("bomb", ["<a b='", "<!--", "<a ", "<![CDATA[", "<div><b>"])
@pytest.mark.slow
def test_a_megabyte_of_unclosed_html_is_read_in_linear_time(bench: Bench, bomb: str) -> None:
    """1 MB of unclosed tags or comments after the move: the standard library's
    html.parser took 33 s on 120 kB of ``<a b='`` (and minutes on 1 MB); the
    move is played and the letter read in a second or so, like any other 1 MB mail."""
    body = "<div>1. e2-e4</div>" + bomb * ((1 << 20) // len(bomb))
    message = raw(f"From: {WHITE}", f"Subject: {GAME}", "Content-Type: text/html", body=body)
    started = time.perf_counter()
    letter = read_letter(message)
    # a bound on the complexity class, thirty times what it takes: not a benchmark
    assert time.perf_counter() - started < 30
    assert letter.body.splitlines()[0] == "1. e2-e4"
    assert bench.receive(message, at(2)) is Outcome.HANDLED
    assert bench.plies(1) == ["e2e4"]


@pytest.mark.slow
def test_a_megabyte_of_moves_is_read_from_its_first_twenty_thousand_characters(
    bench: Bench,
) -> None:
    """The words and the text forwarded beside a move are read from the same first
    20,000 characters as the move: 1 MB of ``e2-e4`` on one line took the text for
    the opponent alone 49 s, cutting one move out of the line at a time."""
    body = "e2-e4 " * 174_000
    message = raw(f"From: {WHITE}", f"Subject: {GAME}", body=body)
    started = time.perf_counter()
    assert bench.receive(message, at(2)) is Outcome.HANDLED
    # a bound on the complexity class, ten times what it takes: not a benchmark
    assert time.perf_counter() - started < 10
    assert bench.plies(1) == ["e2e4"]
    # nothing but moves was written, so nothing is forwarded beside the move
    assert bench.outbox(to=BLACK)[-1].text_body.count("e2-e4") < 5


@pytest.mark.slow
def test_strangers_poison_tells_the_director_once_a_day(
    bench: Bench, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in for a bug, as above: strangers' messages that fail are quarantined
    each, and the director hears of it once that day (a player's, each time)."""
    real = Desk._handle

    def handle(self: Desk, ctx: object, budget: object) -> None:
        if "boom" in ctx.letter.body:  # type: ignore[attr-defined]
            raise RuntimeError("boom")
        real(self, ctx, budget)  # type: ignore[arg-type]

    monkeypatch.setattr(Desk, "_handle", handle)
    for n, sender in enumerate(["eve@example.net", "mallory@example.net", GREY]):
        message = bench.message(sender, "boom")
        for attempt in range(3):
            bench.receive_at(message, at(2, 9 + attempt), 100 + n)
    assert [r.status for r in bench.inbound()] == ["quarantined"] * 3
    notices = bench.outbox(to=TD, event="error")
    assert len(notices) == 2
    assert "eve@example.net" in notices[0].text_body and GREY in notices[1].text_body
