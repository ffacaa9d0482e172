"""Bounces that come back later: a delivery report names the row it is about.

Every message goes out with its own return path (``bot+b-ROW-CHECK@``); a
delivery report (as Postfix and Exim write them) delivered to that address
makes the row ``bounced`` and tells, at once and in their own language, the
mover whose move did not reach the opponent, the TD (with the dates in
question; the clocks are the TD's to decide) and the opponent at any other
address. A forged report (to the plain address, to a made-up tag, with a wrong
check value, about an address the row was not sent to, quoting a real
Message-ID) changes nothing and is kept as evidence beside the game it names; a
delay, or the same report again, changes nothing (or nothing more). A report is
read whatever charset its parts claim.
"""

from __future__ import annotations

import dataclasses
import email
import email.policy
import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from deskbench import BOT, TD, Bench, Relay, at, deliver, dsn
from faults import wait_until
from fuzzing import budget
from harness import config_mapping
from hypothesis import given
from hypothesis import strategies as st
from mailservers import BOUNCE_REASON, BOUNCING, ImapAccount, PostfixRelay, Received, SmtpSink
from sqlalchemy import select

from mailbot.cli import main
from mailbot.compose.catalogue import say_kept
from mailbot.desk.pipeline import Outcome
from mailbot.mail import bounces
from mailbot.publish.evidence import write_evidence
from mailbot.shell.metrics import StoreCollector
from mailbot.store.models import InboundMessage, Outbox, Player

START_LIST = """
index: BX-1
name: Bounce cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: {language}
notation: {notation}
director: {{name: Tom Director, email: td@federation.example}}
players:
  - {{id: ann, name: Ann Able, email: ann@example.org, gender: f}}
  - {{id: bob, name: Bob Bold, email: [bob@example.org, bob@home.example]}}
  - {{id: cid, name: Cid Cole, email: cid@example.org}}
games:
  - {{white: ann, black: bob}}
  - {{white: cid, black: ann}}
"""
ANN, BOB, CID = "ann@example.org", "bob@example.org", "cid@example.org"
BOB_HOME = "bob@home.example"
REASON = "Recipient address rejected: User unknown in virtual mailbox table"
#: What each language's notices say, and the move 1. e2-e4 in its notation.
WORDS = {
    "en": ("en", "1. e2-e4", "did not reach", "art. 56", "Your move did not arrive"),
    "bg": ("bg-cyrillic", "1. e2-e4", "не е стигнал", "чл. 56", "Ходът Ви не е пристигнал"),
    "ru": ("ru", "1. e2-e4", "не дошёл", "ст. 56", "Ваш ход не дошёл"),
}


def reason_of(row: InboundMessage) -> str:
    """Why the bot did not act on a message, as the logs and the quarantine list say it."""
    return say_kept("en", row.reason_phrase, row.reason)


@pytest.fixture
def bench(store_url: str) -> Iterator[Bench]:
    b = Bench(store_url, START_LIST.format(language="en", notation="en"))
    try:
        yield b
    finally:
        b.close()


def played(bench: Bench, relay: Relay) -> Outbox:
    """Ann plays 1. e2-e4 and the bot sends the move line to Bob: its row."""
    assert bench.send(ANN, "1. e2-e4", at(2), subject="[BX-1/1] move") is Outcome.HANDLED
    assert deliver(bench, relay, at(2, 10)) >= 2
    (row,) = bench.outbox(to=BOB, event="move")
    return row


def status_of(bench: Bench, row: Outbox) -> tuple[str, str | None]:
    with bench.sessions() as session:
        found = session.get(Outbox, row.id)
        assert found is not None
        return found.status, found.last_error


def bounce_notices(bench: Bench) -> list[Outbox]:
    return bench.outbox(event="bounce")


def text(row: Outbox) -> str:
    return f"{row.subject}\n{row.text_body}"


@pytest.mark.parametrize("language", ["en", "bg", "ru"])
def test_a_move_line_that_bounces_reaches_the_mover_the_td_and_the_opponents_other_address(
    store_url: str, language: str
) -> None:
    notation, move, words, article, what = WORDS[language]
    bench = Bench(store_url, START_LIST.format(language=language, notation=notation))
    try:
        relay = Relay()
        row = played(bench, relay)
        path = relay.envelope_of(row)
        assert path.startswith(f"bot+b-{row.id}-") and path.endswith("@federation.example")

        report = dsn(to=path, recipient=BOB, returned=row)
        assert bench.receive(report, at(3, 8)) is Outcome.HANDLED

        assert status_of(bench, row) == ("bounced", f"{BOB}: 550 5.1.1 <{BOB}>: {REASON}")
        (mover,) = [r for r in bounce_notices(bench) if ANN in r.to_addrs]
        (director,) = [r for r in bounce_notices(bench) if TD in r.to_addrs]
        (opponent,) = [r for r in bounce_notices(bench) if BOB_HOME in r.to_addrs]
        assert not [r for r in bounce_notices(bench) if BOB in [*r.to_addrs, *r.cc_addrs]]
        for notice in (mover, director, opponent):
            assert notice.headers["X-Mailbot-Event"] == "bounce"
            assert "BX-1/1" in notice.subject
            for seen in (move, BOB, REASON, article, "2.3.2026"):
                assert seen in notice.text_body, (seen, notice.text_body)
        assert what in mover.subject
        assert words in mover.text_body and words in director.text_body
        # the clocks are the TD's: nothing was charged or changed
        assert bench.plies(1) == ["e2e4"]
        assert bench.game(1) == (None, 0)
    finally:
        bench.close()


def test_an_exim_report_through_bounce_address_acts_as_well(bench: Bench) -> None:
    relay = Relay()
    assert bench.send(ANN, "1. e2-e4", at(2), subject="[BX-1/1] move") is Outcome.HANDLED
    deliver(bench, relay, at(2, 10), bounce_address="bounces@lists.federation.example")
    (row,) = bench.outbox(to=BOB, event="move")
    path = relay.envelope_of(row)
    assert path.startswith(f"bounces+b-{row.id}-") and path.endswith("@lists.federation.example")

    bench.receive(dsn(to=path, recipient=BOB, returned=row, style="exim"), at(3))

    assert status_of(bench, row)[0] == "bounced"
    assert {a for r in bounce_notices(bench) for a in r.to_addrs} == {ANN, TD, BOB_HOME}


@dataclasses.dataclass(frozen=True)
class Forgery:
    name: str
    path: str
    recipient: str
    #: What the reason the bot keeps says, in English.
    said: str


def forgeries(row: Outbox, path: str) -> list[Forgery]:
    """Reports about ``row`` (sent to Bob with the return path ``path``) that prove
    nothing; each returns the row's headers, so quotes its real Message-ID."""
    tag = bounces.tag_in([path])
    assert tag is not None
    wrong = "a" * 16 if tag.check != "a" * 16 else "b" * 16
    return [
        Forgery("the plain address", BOT, BOB, f"quoting the Message-ID of outbox {row.id}"),
        Forgery("a made-up tag", "bot+bounces@federation.example", BOB,
                f"quoting the Message-ID of outbox {row.id}"),
        Forgery("wrong check value", bounces.return_path(BOT, row.id, wrong), BOB,
                f"to the return path of outbox {row.id} with a wrong check value"),
        Forgery("another recipient", path, CID,
                f"naming an address outbox {row.id} was not sent to"),
        Forgery("a row never sent", bounces.return_path(BOT, row.id + 1000, tag.check), BOB,
                "to a return path that names no message the bot sent"),
    ]  # fmt: skip


def test_a_forged_report_changes_nothing_tells_nobody_and_is_kept_as_evidence(
    bench: Bench, tmp_path: Path, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    relay = Relay()
    row = played(bench, relay)
    before = len(bench.outbox())
    made = forgeries(row, relay.envelope_of(row))
    for forgery in made:
        report = dsn(to=forgery.path, recipient=forgery.recipient, returned=row)
        assert bench.receive(report, at(3)) is Outcome.IGNORED, forgery.name
        reason = reason_of(bench.last_inbound())
        assert forgery.said in reason and reason.endswith("; nothing done)"), (forgery, reason)
    # no tag, and a Message-ID the bot never sent
    stranger = Outbox(message_id="mailbot.0000@federation.example", subject="x", event="move")
    assert bench.receive(dsn(to=BOT, recipient=BOB, returned=stranger), at(3)) is Outcome.IGNORED
    assert "did not come to the return path" in reason_of(bench.last_inbound())
    assert status_of(bench, row) == ("sent", None)
    assert len(bench.outbox()) == before  # nobody is told
    with bench.sessions() as session:
        assert session.scalars(select(Player.bounces).where(Player.email == BOB)).one() == 0
    assert main(["-c", str(configured(tmp_path, store_url)), "outbox", "--bounced"]) == 0
    assert capsys.readouterr().out == "no mail bounced\n"
    # each forgery is in the game's dispute file, with why it changed nothing
    with bench.sessions() as session:
        write_evidence(session, "BX-1/1", tmp_path / "d", sender=BOT)
    index = (tmp_path / "d" / "index.txt").read_text(encoding="utf-8")
    entries = re.split(r"\n(?=\d{3}-)", index)
    reports = [e for e in entries if "-received-" in e and "mailer-daemon@" in e.lower()]
    assert len(reports) == len(made)
    for forgery, entry in zip(made, reports, strict=True):
        assert "handled: ignored: automatic mail: delivery-report" in entry, entry
        assert forgery.said in " ".join(entry.split()), (forgery.name, entry)


def configured(tmp_path: Path, store_url: str) -> Path:
    """A configuration file for the command line on the bench's store."""
    account = ImapAccount("127.0.0.1", 1, "unused", "unused")
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(config_mapping(store_url, account, SmtpSink())))
    return config


def test_a_broken_report_is_ignored_and_stops_nothing(bench: Bench) -> None:
    relay = Relay()
    row = played(bench, relay)
    path = relay.envelope_of(row).encode()
    head = b"From: MAILER-DAEMON@mx.example.org\r\nTo: " + path + b"\r\nMessage-ID: <%d@x>\r\n"
    report = b"Content-Type: multipart/report; report-type=delivery-status; boundary=x\r\n\r\n"
    huge = bounces.return_path(BOT, 2**31, "a" * 16)  # past the store's ids
    broken = [
        head % 1 + report + b"--x\r\nContent-Type: message/delivery-status\r\n\r\n"
        b"Final-Recipient: rfc822; \xff\xfe@\x00\r\nAction: failed\r\nStatus: 5.1.1\r\n",
        head % 2 + report + b"--x\r\nContent-Type: message/delivery-status\r\n\r\n\x00\xff" * 50,
        head % 3 + report + b"--x\r\nContent-Type: multipart/report; boundary=x\r\n\r\n" * 500,
        dsn(to=huge, recipient=BOB),
        dsn(to=bounces.return_path(BOT, 2**31 - 1, "a" * 16), recipient=BOB),
        dsn(to=path.decode(), recipient="not an address", returned=row),
    ]
    for raw in broken:
        assert bench.receive(raw, at(3)) is Outcome.IGNORED
    assert bench.outbox(event="bounce") == []
    assert status_of(bench, row) == ("sent", None)
    # the genuine report still acts
    bench.receive(dsn(to=path.decode(), recipient=BOB, returned=row), at(4))
    assert status_of(bench, row)[0] == "bounced"


@pytest.mark.slow
def test_without_a_tag_the_returned_message_id_proves_nothing(bench: Bench) -> None:
    """A report to the plain address (a service that rewrote the envelope sender, or the
    opponent, who has the move mail's Message-ID) changes nothing; the same report
    through the return path acts."""
    relay = Relay()
    row = played(bench, relay)
    assert bench.receive(dsn(to=BOT, recipient=BOB, returned=row), at(3)) is Outcome.IGNORED
    assert status_of(bench, row) == ("sent", None)
    assert bounce_notices(bench) == []
    assert bench.receive(dsn(to=relay.envelope_of(row), recipient=BOB, returned=row), at(4)) is (
        Outcome.HANDLED
    )
    assert status_of(bench, row)[0] == "bounced"
    assert {a for r in bounce_notices(bench) for a in r.to_addrs} == {ANN, TD, BOB_HOME}


@pytest.mark.parametrize("charset", ["unknown-8bit", "x-unknown", "idna"])
def test_a_report_in_a_charset_nobody_knows_is_a_genuine_bounce(bench: Bench, charset: str) -> None:
    relay = Relay()
    row = played(bench, relay)
    report = dsn(to=relay.envelope_of(row), recipient=BOB, returned=row, charset=charset)
    assert f"charset={charset}".encode() in report and b"\xcf\xe8\xf1" in report
    assert bench.receive(report, at(3)) is Outcome.HANDLED
    assert status_of(bench, row) == ("bounced", f"{BOB}: 550 5.1.1 <{BOB}>: {REASON}")
    assert {a for r in bounce_notices(bench) for a in r.to_addrs} == {ANN, TD, BOB_HOME}


def test_a_delay_tells_nobody_until_the_failure_is_permanent(bench: Bench) -> None:
    relay = Relay()
    row = played(bench, relay)
    path = relay.envelope_of(row)
    delayed = dsn(to=path, recipient=BOB, returned=row, action="delayed", status="4.4.1",
                  reason="connect to mx.example.org: Connection timed out")  # fmt: skip
    assert bench.receive(delayed, at(2, 16)) is Outcome.HANDLED
    status, error = status_of(bench, row)
    assert status == "sent" and error is not None and error.startswith(f"delayed: {BOB}")
    assert "Connection timed out" in error
    assert bounce_notices(bench) == []

    bench.receive(dsn(to=path, recipient=BOB, returned=row), at(7))
    assert status_of(bench, row)[0] == "bounced"
    assert len(bounce_notices(bench)) == 3


def test_the_same_report_twice_acts_once(bench: Bench, tmp_path: Path) -> None:
    relay = Relay()
    row = played(bench, relay)
    report = dsn(to=relay.envelope_of(row), recipient=BOB, returned=row)
    assert bench.receive(report, at(3)) is Outcome.HANDLED
    assert bench.receive(report, at(3, 10)) is Outcome.DUPLICATE
    # another copy of it (the MTA's next report, with its own Message-ID)
    again = dsn(to=relay.envelope_of(row), recipient=BOB, returned=row)
    assert bench.receive(again, at(4)) is Outcome.IGNORED
    assert "bounced already" in reason_of(bench.last_inbound())
    assert len(bounce_notices(bench)) == 3
    with bench.sessions() as session:  # both copies are in the game's dispute file
        write_evidence(session, "BX-1/1", tmp_path / "d", sender=BOT)
    index = (tmp_path / "d" / "index.txt").read_text(encoding="utf-8")
    assert index.count("handled: processed: delivery report: outbox") == 1
    assert "which bounced already" in index
    with bench.sessions() as session:
        assert session.scalars(select(Player.bounces).where(Player.email == BOB)).one() == 1


def test_an_address_that_bounces_three_times_is_marked_and_the_td_asked_to_correct_it(
    bench: Bench,
) -> None:
    relay = Relay()
    asks = []
    notice = None
    for number, (sender, move) in enumerate([(ANN, "1. e2-e4"), (ANN, "2. d2-d4"),
                                             (ANN, "3. g1-f3")]):  # fmt: skip
        if number:  # Bob answers (from his other address), the bot forwards Ann's next move
            reply = ["1... e7-e5", "2... e5xd4"][number - 1]
            bench.send(BOB_HOME, reply, at(3 + 2 * number), subject="[BX-1/1] move")
        bench.send(sender, move, at(4 + 2 * number), subject="[BX-1/1] move")
        deliver(bench, relay, at(4 + 2 * number, 10))
        row = bench.outbox(to=BOB, event="move")[-1]
        report = dsn(to=relay.envelope_of(row), recipient=BOB, returned=row)
        bench.receive(report, at(5 + 2 * number))
        (notice,) = [r for r in bounce_notices(bench) if TD in r.to_addrs][number:]
        asks.append("address bob NEW-ADDRESS" in notice.text_body)
    assert asks == [False, False, True]
    with bench.sessions() as session:
        bob = session.scalars(select(Player).where(Player.email == BOB)).one()
        assert bob.bounces == 3 and bob.bounced_at is not None
    # the TD corrects it: the count starts again
    bench.send(TD, "address bob bob@new.example", at(12), reply_to=notice)
    with bench.sessions() as session:
        bob = session.scalars(select(Player).where(Player.key == "bob")).one()
        assert (bob.email, bob.bounces) == ("bob@new.example", 0)


def test_a_bounced_start_mail_tells_the_td_who_cannot_be_reached(bench: Bench) -> None:
    from mailbot.compose.notifier import Notifier
    from mailbot.rules import events as ev

    with bench.sessions.begin() as session:
        Notifier(session, f"Federation CC <{BOT}>", at(1)).tell(ev.TournamentStarted(1))
    relay = Relay()
    deliver(bench, relay, at(1, 10))
    (start,) = bench.outbox(to=ANN, event="start")
    bench.receive(dsn(to=relay.envelope_of(start), recipient=ANN, returned=start), at(1, 12))

    (notice,) = bounce_notices(bench)
    assert notice.to_addrs == [TD]
    body = notice.text_body
    for seen in ("start mail", ANN, "Ann Able cannot be reached", "1.3.2026", "BX-1/1 with White",
                 "where Ann Able has the first move", "BX-1/2 with Black", REASON):  # fmt: skip
        assert seen in body, (seen, body)


def test_an_answer_that_bounces_tells_the_td(bench: Bench) -> None:
    relay = Relay()
    bench.send(CID, "status", at(2))
    deliver(bench, relay, at(2, 10))
    (answer,) = bench.outbox(to=CID, event="status")
    bench.receive(dsn(to=relay.envelope_of(answer), recipient=CID, returned=answer), at(2, 12))
    (notice,) = bounce_notices(bench)
    assert notice.to_addrs == [TD]
    assert answer.subject in notice.text_body and CID in notice.text_body


def test_machine_mail_that_reports_no_failure_stays_unanswered(bench: Bench) -> None:
    relay = Relay()
    row = played(bench, relay)
    out_of_office = bench.message(
        BOB, "I am away until Monday.", subject="Automatic reply: move",
        headers=[("Auto-Submitted", "auto-replied")], to=relay.envelope_of(row),
    )  # fmt: skip
    before = len(bench.outbox())
    assert bench.receive(out_of_office, at(3)) is Outcome.IGNORED
    assert reason_of(bench.last_inbound()) == "automatic mail: auto-submitted"
    assert len(bench.outbox()) == before and status_of(bench, row) == ("sent", None)


def test_mailbot_outbox_bounced_lists_the_row_with_the_diagnostic(
    bench: Bench, tmp_path: Path, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    relay = Relay()
    row = played(bench, relay)
    bench.receive(dsn(to=relay.envelope_of(row), recipient=BOB, returned=row), at(3))
    config = configured(tmp_path, store_url)

    assert main(["-c", str(config), "outbox", "--bounced"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.split("\t")[1:] == [BOB, row.subject, "1", f"{BOB}: 550 5.1.1 <{BOB}>: {REASON}"]


def test_mailbot_status_of_the_game_marks_the_move_whose_mail_bounced(
    bench: Bench, tmp_path: Path, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    relay = Relay()
    row = played(bench, relay)
    bench.send(BOB_HOME, "1... e7-e5", at(4), subject="[BX-1/1] move")
    config = str(configured(tmp_path, store_url))
    mark = "(its mail came back undelivered on 2026-03-03)"

    def lines() -> list[str]:
        assert main(["-c", config, "status", "BX-1/1", "--now", "2026-03-05T12:00"]) == 0
        out = capsys.readouterr().out.splitlines()
        return [line for line in out if re.match(r" +\d+ \w+ +\d{4}-\d\d-\d\d ", line)]

    assert not any("undelivered" in line for line in lines())
    bench.receive(dsn(to=relay.envelope_of(row), recipient=BOB, returned=row), at(3))
    first, second = lines()
    assert first.split()[:2] == ["1", "e4"] and first.endswith(mark), first
    assert second.split()[:2] == ["2", "e5"] and "undelivered" not in second, second


# ---------------------------------------------------------------------------
# On the real servers: Dovecot's inbox and the aiosmtpd listener

E2E_START_LIST = """
index: BX-2
name: Bounce cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: bg
notation: bg-cyrillic
director: {name: Тодор Тодоров, email: td@federation.example}
players:
  - {id: ann, name: Ann Able, email: ann@example.org, language: en, notation: en, gender: f}
  - {id: petrov, name: Пётр Петров, email: petrov@example.org, language: ru, notation: ru,
     gender: m}
games:
  - {white: ann, black: petrov}
  - {white: petrov, black: ann}
"""
PETROV = "petrov@example.org"


def test_on_the_real_servers_a_dsn_reaches_the_mover_and_the_td_within_one_poll(
    store_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> None:
    from harness import Federation, text_of

    fed = Federation(store_url, imap_account, smtp_sink, E2E_START_LIST, tmp_path)
    try:
        moment = at(2, 8)
        fed.write(ANN, "1. e2-e4", moment, subject="[BX-2/1] move")
        fed.write(PETROV, "1. e2-e4", moment, subject="[BX-2/2] ход")
        fed.poll(at(2, 9))
        (to_petrov,) = [m for m in fed.received(PETROV) if m.message["X-Mailbot-Event"] == "move"]
        (to_ann,) = [m for m in fed.received(ANN) if m.message["X-Mailbot-Event"] == "move"]
        assert to_petrov.envelope_from.startswith("bot+b-")
        assert to_petrov.envelope_from != to_ann.envelope_from
        ann_before, td_before = len(fed.received(ANN)), len(fed.received(TD))

        # hours later both move lines come back: one poll tells the movers and the TD
        fed.bounce(to_petrov, PETROV, at(2, 14))
        fed.bounce(to_ann, ANN, at(2, 15))
        # and a forgery about Ann's confirmation: its row, the wrong check value
        (accepted,) = [
            m for m in fed.received(ANN) if m.message["X-Mailbot-Event"] == "move-accepted"
        ]
        tag = bounces.tag_in([accepted.envelope_from])
        assert tag is not None
        wrong = bounces.return_path(BOT, tag.row, "z" * 16 if tag.check != "z" * 16 else "y" * 16)
        fed.bounce(dataclasses.replace(accepted, envelope_from=wrong), ANN, at(2, 16))
        report = fed.poll(at(2, 17))
        assert fed.pending_in_inbox() == 0, report

        notices = [
            m for m in fed.received(ANN)[ann_before:] if m.message["X-Mailbot-Event"] == "bounce"
        ]
        (to_mover_en,) = notices
        body = text_of(to_mover_en)
        for seen in ("Your move did not arrive", "1. e2-e4", "BX-2/1", PETROV, REASON, "art. 56"):
            assert seen in f"{to_mover_en.message['Subject']}\n{body}", seen
        (to_mover_ru,) = [
            m for m in fed.received(PETROV) if m.message["X-Mailbot-Event"] == "bounce"
        ]
        body = text_of(to_mover_ru)
        for seen in ("Ваш ход не дошёл", "1. e2-e4", "BX-2/2", ANN, REASON, "ст. 56"):
            assert seen in f"{to_mover_ru.message['Subject']}\n{body}", seen
        director = [
            m for m in fed.received(TD)[td_before:] if m.message["X-Mailbot-Event"] == "bounce"
        ]
        # one message to the TD with a part for each game (a poll's notices to one reader)
        (mail,) = director
        assert "(2 партии)" in mail.message["Subject"]
        body = text_of(mail)
        parts = body.split("[BX-2/2]")
        assert len(parts) == 2 and "[BX-2/1]" in parts[0]
        for part, failed in ((parts[0], PETROV), (parts[1], ANN)):
            for seen in ("ходът 1. e2-e4", failed, REASON, "чл. 56"):
                assert seen in part, seen
        with fed.sessions() as session:
            rows = session.scalars(select(Outbox).where(Outbox.status == "bounced")).all()
            assert sorted(r.to_addrs[0] for r in rows) == [ANN, PETROV]
            forged_row = session.get(Outbox, tag.row)
            assert forged_row is not None and forged_row.status == "sent"
            reasons = [reason_of(r) for r in session.scalars(select(InboundMessage))]
            assert any("wrong check value" in r for r in reasons)
    finally:
        fed.close()


@pytest.mark.slow
def test_on_the_real_servers_forged_reports_change_nothing_and_are_kept_as_evidence(
    store_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> None:
    """Petrov, who has Ann's move mail (its Message-ID, its Return-Path), forges its
    bounce four ways; none is believed, and the dispute file (in Bulgarian, the event's
    language) keeps each with why."""
    from harness import Federation

    fed = Federation(store_url, imap_account, smtp_sink, E2E_START_LIST, tmp_path)
    try:
        fed.write(ANN, "1. e2-e4", at(2, 8), subject="[BX-2/1] move")
        fed.poll(at(2, 9))
        (move,) = [m for m in fed.received(PETROV) if m.message["X-Mailbot-Event"] == "move"]
        tag = bounces.tag_in([move.envelope_from])
        assert tag is not None
        wrong = bounces.return_path(BOT, tag.row, "z" * 16 if tag.check != "z" * 16 else "y" * 16)
        forged = [
            (BOT, PETROV, "цитира идентификатора на писмо"),
            ("bot+petrov@federation.example", PETROV, "цитира идентификатора на писмо"),
            (wrong, PETROV, "с грешна контролна стойност"),
            (move.envelope_from, TD, "назовава адрес, на който писмо"),
        ]
        before = {a: len(fed.received(a)) for a in (ANN, PETROV, TD)}
        for hour, (path, recipient, _) in enumerate(forged, start=12):
            fed.bounce(dataclasses.replace(move, envelope_from=path), recipient, at(2, hour))
        report = fed.poll(at(2, 17))
        assert fed.pending_in_inbox() == 0, report

        assert {a: len(fed.received(a)) for a in (ANN, PETROV, TD)} == before
        with fed.sessions() as session:
            assert session.scalars(select(Outbox.status).where(Outbox.id == tag.row)).one() == (
                "sent"
            )
            assert session.scalars(select(Player.bounces)).all() == [0, 0]
        out = io.StringIO()
        assert main(["-c", str(fed.config_path), "outbox", "--bounced"], stdout=out) == 0
        assert out.getvalue() == "no mail bounced\n"
        folder = tmp_path / "BX-2-1"
        assert main(["-c", str(fed.config_path), "evidence", "BX-2/1", str(folder)]) == 0
        index = (folder / "index.txt").read_text(encoding="utf-8")
        entries = re.split(r"\n(?=\d{3}-)", index)
        kept = [" ".join(e.split()) for e in entries if "mailer-daemon@" in e.lower()]
        assert len(kept) == len(forged)
        for entry, (_, _, said) in zip(kept, forged, strict=True):
            assert "нищо не е направено" in entry and said in entry, entry
            assert "delivery report" not in entry and "nothing done" not in entry
    finally:
        fed.close()


def test_on_the_real_servers_reports_in_charsets_nobody_knows_reach_the_mover_and_the_td(
    store_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> None:
    from harness import Federation

    fed = Federation(store_url, imap_account, smtp_sink, E2E_START_LIST, tmp_path)
    try:
        fed.write(ANN, "1. e2-e4", at(2, 8), subject="[BX-2/1] move")
        fed.write(PETROV, "1. e2-e4", at(2, 8), subject="[BX-2/2] ход")
        fed.poll(at(2, 9))
        (to_petrov,) = [m for m in fed.received(PETROV) if m.message["X-Mailbot-Event"] == "move"]
        (to_ann,) = [m for m in fed.received(ANN) if m.message["X-Mailbot-Event"] == "move"]
        fed.bounce(to_petrov, PETROV, at(2, 14), charset="unknown-8bit")
        fed.bounce(to_ann, ANN, at(2, 15), charset="x-unknown")
        fed.poll(at(2, 17))

        for mover in (ANN, PETROV):
            assert [m for m in fed.received(mover) if m.message["X-Mailbot-Event"] == "bounce"]
        assert [m for m in fed.received(TD) if m.message["X-Mailbot-Event"] == "bounce"]
        with fed.sessions() as session:
            rows = session.scalars(select(Outbox).where(Outbox.status == "bounced")).all()
            assert sorted(r.to_addrs[0] for r in rows) == [ANN, PETROV]
            assert all(REASON in (r.last_error or "") for r in rows)
    finally:
        fed.close()


def test_the_status_mail_and_the_game_page_show_that_the_move_mail_bounced(
    bench: Bench, tmp_path: Path
) -> None:
    from mailbot.publish.site import game_page, write_site

    relay = Relay()
    row = played(bench, relay)
    bench.send(ANN, "status", at(2, 12))
    (before,) = bench.outbox(to=ANN, event="status")
    assert "undelivered" not in before.text_body
    bench.receive(dsn(to=relay.envelope_of(row), recipient=BOB, returned=row), at(3))

    bench.send(ANN, "status", at(3, 12))
    after = bench.outbox(to=ANN, event="status")[-1]
    assert "The mail with 1. e2-e4 to Bob Bold came back undelivered on 3.3.2026" in after.text_body
    with bench.sessions() as session:
        write_site(session, "BX-1", tmp_path, at(4))
    page = (tmp_path / game_page(1)).read_text(encoding="utf-8")
    assert "the mail with this move came back undelivered on 3.3.2026" in page
    assert BOB not in page  # the public page names no address
    assert "undelivered" not in (tmp_path / game_page(2)).read_text(encoding="utf-8")


def test_a_14_day_repeat_that_bounces_is_told_as_the_move_line_is(bench: Bench) -> None:
    """The repeat carries the same move to the player to move (art. 26): its bounce tells
    the mover, the TD and the opponent's other address."""
    from mailbot.desk.sweep import sweep

    relay = Relay()
    played(bench, relay)
    sweep(bench.sessions, f"Federation CC <{BOT}>", at(17))
    (repeat,) = bench.outbox(to=BOB, event="repeat")
    deliver(bench, relay, at(17, 10))
    bench.receive(dsn(to=relay.envelope_of(repeat), recipient=BOB, returned=repeat), at(17, 12))
    told = {a for r in bounce_notices(bench) for a in r.to_addrs}
    assert told == {ANN, TD, BOB_HOME}


# ---------------------------------------------------------------------------
# Reading reports (the pure part)

CORPUS = Path(__file__).parent / "corpus"


def test_real_reports_give_the_failed_recipient_and_the_servers_reason() -> None:
    postfix = bounces.read_report((CORPUS / "35-bounce-delivery-status.eml").read_bytes())
    assert postfix.failures == (
        bounces.Failure(
            "nosuchplayer@example.com",
            True,
            "550 5.1.1 <nosuchplayer@example.com>: Recipient address rejected: "
            "User unknown in virtual mailbox table",
        ),
    )
    assert postfix.message_ids == ("20260305080004.11.21w@example.net",)
    # sendmail's plain-text report, no DSN part: flufl.bounce's heuristics find the address
    sendmail = bounces.read_report((CORPUS / "47-bounce-mailer-daemon-plain.eml").read_bytes())
    ((address, permanent, reason),) = [dataclasses.astuple(f) for f in sendmail.failures]
    assert (address, permanent) == ("old.player@example.com", True)
    assert "550 Mailbox disabled for this recipient" in reason


def test_a_delayed_report_is_a_temporary_failure() -> None:
    report = bounces.read_report(
        dsn(to="bot@federation.example", recipient=BOB, action="delayed", status="4.4.1")
    )
    assert [(f.address, f.permanent) for f in report.failures] == [(BOB, False)]
    assert report.permanent == ()


#: Charset labels a report's parts may claim: unknown ones, codecs that are no charset,
#: charsets the bytes are not in, and nonsense.
LABELS = [
    "unknown-8bit", "x-unknown", "idna", "punycode", "utf-7", "utf-16", "utf-32", "x-klingon",
    "", "8bit", "base64", "hex", "rot13", "zlib", "unicode-escape", "iso-2022-jp", "cp1251",
    "utf-8", "us-ascii", '"', "utf-8\x00", "windows-1251 ; format=flowed",
]  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Mutated:
    raw: bytes
    tag: bounces.Tag
    #: The failure the report still states in its delivery-status part (None: cut off).
    failure: tuple[str, bool] | None


@st.composite
def mutated_reports(draw: st.DrawFn) -> Mutated:
    """A real report (Postfix's or Exim's) to a tagged return path, with its body
    mutated: the charsets its parts claim, broken bytes, parts cut short."""
    tag = bounces.Tag(
        draw(st.integers(1, 2**31 - 1)), draw(st.text("abcdefgh234567", min_size=16, max_size=16))
    )
    permanent = draw(st.booleans())
    raw = dsn(
        to=bounces.return_path(BOT, tag.row, tag.check), recipient=BOB, returned=RETURNED,
        style=draw(st.sampled_from(["postfix", "exim"])),
        action="failed" if permanent else "delayed", status="5.1.1" if permanent else "4.4.1",
        charset=draw(st.sampled_from(["us-ascii", "unknown-8bit"])),
    )  # fmt: skip
    head, _, body = raw.partition(b"\r\n\r\n")
    # the human-readable part, up to the line that ends it
    status = body.rindex(b"\r\n--", 0, body.index(b"Content-Type: message/delivery-status"))
    text, rest = body[:status], body[status:]
    labels = draw(st.lists(st.sampled_from(LABELS) | st.text(max_size=12), max_size=3))
    for label in labels:  # the text part's, then the report's and the status part's
        text = text.replace(b"charset=us-ascii", b"charset=" + label.encode("utf-8", "replace"), 1)
        text = text.replace(b"charset=unknown-8bit", b"charset=" + label.encode(), 1)
    for _ in range(draw(st.integers(0, 4))):  # broken bytes in the human-readable part
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.binary(min_size=1, max_size=40)) + text[at:]
    if draw(st.booleans()):  # a transfer encoding the part does not hold
        kind = draw(st.sampled_from([b"base64", b"quoted-printable", b"x-uuencode", b"8bit"]))
        text = text.replace(b"Content-Type: text/plain", b"Content-Transfer-Encoding: " + kind +
                            b"\r\nContent-Type: text/plain", 1)  # fmt: skip
    failure: tuple[str, bool] | None = (BOB, permanent)
    if draw(st.booleans()):  # cut short: the status part, or what follows it
        cut = draw(st.integers(0, len(rest)))
        failure = failure if cut > rest.index(b"Diagnostic-Code") + 120 else None
        rest = rest[:cut]
    return Mutated(head + b"\r\n\r\n" + text + rest, tag, failure)


RETURNED = Outbox(message_id="mailbot.0001@federation.example", subject="[BX-1/1] x", event="move")


@pytest.mark.fuzz
@budget(300)
@given(mutated_reports())
def test_a_mutated_report_never_raises_and_never_loses_its_tag(mutated: Mutated) -> None:
    report = bounces.read_report(mutated.raw)
    assert bounces.tag_in(report.delivered_to) == mutated.tag
    if mutated.failure is not None:
        assert (BOB, mutated.failure[1]) in [(f.address, f.permanent) for f in report.failures]


def test_two_reports_about_one_row_in_one_batch_act_once(bench: Bench) -> None:
    from mailbot.mail.inbox import Fetched

    relay = Relay()
    row = played(bench, relay)
    path = relay.envelope_of(row)
    reports = [
        dsn(to=path, recipient=BOB, returned=row, style=style) for style in ("postfix", "exim")
    ]
    batch = [Fetched("INBOX", 1, 100 + n, raw, at(3)) for n, raw in enumerate(reports)]
    assert bench.desk.receive_all(batch, at(3, 1)) == [Outcome.HANDLED, Outcome.IGNORED]
    assert status_of(bench, row)[0] == "bounced"
    assert len(bounce_notices(bench)) == 3


@pytest.mark.slow
def test_a_dismissed_bounce_stops_warning_and_stays_listed_and_in_the_evidence(
    bench: Bench, tmp_path: Path, store_url: str
) -> None:
    relay = Relay()
    row = played(bench, relay)
    assert bench.receive(dsn(to=relay.envelope_of(row), recipient=BOB, returned=row),
                         at(3)) is Outcome.HANDLED  # fmt: skip
    config = tmp_path / "config.yaml"
    mapping = config_mapping(store_url, ImapAccount("127.0.0.1", 1, "unused", "unused"), SmtpSink())
    config.write_text(yaml.safe_dump(mapping), encoding="utf-8")

    def run(*argv: str) -> tuple[int, list[str]]:
        out = io.StringIO()
        return main(["-c", str(config), *argv], stdout=out), out.getvalue().splitlines()

    def bounced() -> str:
        return next(line for line in run("health")[1] if line.split(" ")[1] == "bounced:")

    def evidence(folder: str) -> dict[str, bytes]:
        with bench.sessions() as session:
            files = write_evidence(session, "BX-1/1", tmp_path / folder, sender=BOT)
        return {p.name: p.read_bytes() for p in files if p.is_file()}

    def gauge() -> float:
        families = StoreCollector(bench.sessions).collect()
        return next(s.value for f in families for s in f.samples
                    if s.name == "mailbot_outbox_bounced")  # fmt: skip

    before = evidence("before")
    assert gauge() == 1
    assert any(row.message_id.encode() in data for data in before.values())
    assert (
        bounced()
        == "WARNING bounced: 1 mail bounced after it was sent; see mailbot outbox --bounced"
    )
    status, said = run("outbox", "dismiss", "--all")
    assert status == 0 and [line.split("\t")[:2] for line in said] == [[f"dismissed {row.id}", BOB]]
    assert bounced() == "OK bounced: no mail bounced after it was sent (1 dismissed)"
    status, (line,) = run("outbox", "--bounced")
    assert line.split("\t")[0] == str(row.id) and line.endswith(f"{REASON}\tdismissed")
    assert evidence("after") == before
    assert gauge() == 0


POSTFIX_START_LIST = E2E_START_LIST.replace(PETROV, f"petrov@{BOUNCING}")


@pytest.mark.slow
def test_through_postfix_a_report_returns_the_headers_only_and_reaches_the_mover(
    store_url: str, imap_account: ImapAccount, postfix_relay: PostfixRelay, tmp_path: Path
) -> None:
    """The bot's mail goes out through a real Postfix, which cannot deliver Ann's move
    line to Petrov: the report Postfix writes returns the line's headers but not its
    text (the bot asks for headers only, ``RET=HDRS``: a mail's words, a password
    among them, do not come back to be kept as evidence), and once it arrives in the
    bot's inbox Ann hears that her move did not arrive."""
    from harness import Federation, text_of

    petrov = f"petrov@{BOUNCING}"
    fed = Federation(store_url, imap_account, postfix_relay, POSTFIX_START_LIST, tmp_path)
    try:
        fed.write(ANN, "1. e2-e4", at(2, 8), subject="[BX-2/1] move")
        fed.poll(at(2, 9))
        arrived = wait_until(lambda: postfix_relay.raw_reports, 30.0, interval=0.1)
        assert arrived, postfix_relay.log()
        (raw,) = postfix_relay.raw_reports
        report = email.message_from_bytes(raw, policy=email.policy.default)
        kinds = [part.get_content_type() for part in report.walk()]
        assert "text/rfc822-headers" in kinds and "message/rfc822" not in kinds, kinds
        assert BOUNCE_REASON in raw.decode("utf-8", "replace")
        with fed.sessions() as session:
            rows = session.scalars(select(Outbox)).all()
            (line,) = [r for r in rows if petrov in r.to_addrs]
        words = [w for w in line.text_body.split() if len(w) > 6 and w.isalpha()]
        assert words and not any(w.encode() in raw for w in words), "the text came back"
        assert line.message_id.encode() in raw  # the headers did

        fed.deliver(raw, at(2, 10))
        fed.poll(at(2, 11))

        def notices() -> list[Received]:  # Postfix relays them a moment later
            return [m for m in fed.received(ANN) if m.message["X-Mailbot-Event"] == "bounce"]

        assert wait_until(notices, 30.0, interval=0.1), postfix_relay.log()
        (notice,) = notices()
        body = text_of(notice)
        for seen in ("Your move did not arrive", "1. e2-e4", petrov, BOUNCE_REASON):
            assert seen in f"{notice.message['Subject']}\n{body}", seen
    finally:
        fed.close()
