"""The outbox cannot jam: each row goes on its own, to a real aiosmtpd listener.

A row the path cannot carry (a non-ASCII mailbox name without SMTPUTF8, a
recipient the server refuses for good) is given up with its reason, the
director hears of it once, and every other row goes out. Addresses travel in
the form the server can carry; no header line exceeds 998 characters.
"""

from __future__ import annotations

import asyncio
import datetime
import email
import email.policy
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from aiosmtpd.controller import Controller
from deskbench import BOT, TD, Bench, at
from harness import config_mapping
from mailservers import ImapAccount, SmtpSink
from sqlalchemy import select

from mailbot.cli import main
from mailbot.config import config_from_mapping
from mailbot.desk.pipeline import Desk, Policy
from mailbot.mail.postman import Postman
from mailbot.mail.wire import compose
from mailbot.shell.courier import deliver
from mailbot.shell.health import POLL, SWEEP, beat
from mailbot.shell.metrics import StoreCollector
from mailbot.store.models import Outbox, Player, XfccPassword
from mailbot.store.outbox import outgoing, queue
from mailbot.store.roster import change_address
from mailbot.store.xfccpasswords import matches, written

START_LIST = """
index: OB-1
name: Outbox cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: bg
notation: bg-cyrillic
director: {name: Тодор Тодоров, email: td@federation.example}
players:
  - {id: ivan, name: Иван Иванов, email: иван@пример.бг}
  - {id: petar, name: Петър Петров, email: petar@пример.бг}
  - {id: maria, name: Maria Smith, email: maria@example.org, language: en}
games:
  - {white: ivan, black: petar}
  - {white: maria, black: ivan}
"""
IVAN, PETAR, MARIA = "иван@пример.бг", "petar@пример.бг", "maria@example.org"


class Sink(SmtpSink):
    """The test SMTP listener, with or without SMTPUTF8; it may refuse some recipients
    (for good, or for now), refuse the bot as a sender, or take its time over a message."""

    def __init__(
        self,
        *,
        smtputf8: bool,
        refuse: tuple[str, ...] = (),
        later: tuple[str, ...] = (),
        slow: tuple[str, ...] = (),
        no_sender: bool = False,
    ) -> None:
        super().__init__()
        self.refuse, self.later, self.slow, self.no_sender = refuse, later, slow, no_sender
        self.raw: list[bytes] = []
        self.controller = Controller(
            self, hostname="127.0.0.1", port=self.port, enable_SMTPUTF8=smtputf8
        )

    async def handle_MAIL(
        self, server: object, session: object, envelope: object, address: str, options: object
    ) -> str:
        if self.no_sender:
            return "554 5.7.1 relay access denied"
        envelope.mail_from = address  # type: ignore[attr-defined]
        return "250 OK"

    async def handle_RCPT(
        self, server: object, session: object, envelope: object, address: str, options: object
    ) -> str:
        if address in self.refuse:
            return "550 5.1.1 no such mailbox here"
        if address in self.later:
            return "450 4.2.0 greylisted, try again later"
        envelope.rcpt_tos.append(address)  # type: ignore[attr-defined]
        return "250 OK"

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        if set(self.slow) & set(envelope.rcpt_tos):  # type: ignore[attr-defined]
            await asyncio.sleep(3)  # longer than the bot waits (smtp.timeout: 1)
        self.raw.append(envelope.original_content or envelope.content)  # type: ignore[attr-defined]
        return await super().handle_DATA(server, session, envelope)


@pytest.fixture
def bench(store_url: str) -> Iterator[Bench]:
    b = Bench(store_url, START_LIST)
    try:
        yield b
    finally:
        b.close()


def sink_of(smtputf8: bool, refuse: tuple[str, ...] = (), **options: object) -> Sink:
    sink = Sink(smtputf8=smtputf8, refuse=refuse, **options)  # type: ignore[arg-type]
    sink.controller.start()
    return sink


def deliver_to(
    bench: Bench, sink: Sink, now: datetime.datetime, **settings: object
) -> tuple[int, int, int]:
    account = ImapAccount("127.0.0.1", 1, "unused", "unused")
    mapping = config_mapping("sqlite://", account, sink)
    mapping["smtp"]["timeout"] = 1  # type: ignore[index]
    mapping.update(settings)
    config = config_from_mapping(mapping, {})
    done = deliver(config, bench.sessions, Postman(config.smtp), now)
    return done.sent, done.deferred, done.failed


def queue_to(bench: Bench, *addresses: str, **changes: object) -> None:
    with bench.sessions.begin() as session:
        for address in addresses:
            row = queue(
                session,
                sender=f"Federation CC <{BOT}>",
                to=[address],
                subject="[OB-1] Проба",
                text="Здравейте!",
                html=None,
                event="notice",
                now=at(2),
            )
            for name, value in changes.items():
                setattr(row, name, value)


def statuses(bench: Bench) -> dict[str, tuple[str, str | None]]:
    return {r.to_addrs[0]: (r.status, r.last_error) for r in bench.outbox() if r.event != "error"}


def test_without_smtputf8_an_idn_domain_goes_in_punycode_and_a_non_ascii_name_fails_alone(
    bench: Bench,
) -> None:
    queue_to(bench, IVAN, PETAR, MARIA)
    sink = sink_of(smtputf8=False)
    try:
        assert deliver_to(bench, sink, at(2)) == (3, 0, 1)  # two rows, then the notice
    finally:
        sink.controller.stop()
    got = {m.recipients: m for m in sink.messages}
    assert set(got) == {("petar@xn--e1afmkfd.xn--90ae",), (MARIA,), (TD,)}
    assert got[("petar@xn--e1afmkfd.xn--90ae",)].message["To"] == "petar@xn--e1afmkfd.xn--90ae"
    status, error = statuses(bench)[IVAN]
    assert status == "failed"
    assert "cannot carry a non-ASCII mailbox name" in (error or "")
    # the director hears of it once, in the tournament's language, by address and subject
    notice = got[(TD,)].message
    assert notice["Subject"] == "[OB-1] Писмо не можа да бъде доставено"
    text = notice.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert IVAN in text and "„[OB-1] Проба“" in text
    with bench.sessions() as session:
        assert session.query(Outbox).filter(Outbox.event == "error").count() == 1


def test_with_smtputf8_a_non_ascii_address_goes_as_it_is(bench: Bench) -> None:
    queue_to(bench, IVAN, MARIA)
    sink = sink_of(smtputf8=True)
    try:
        assert deliver_to(bench, sink, at(2)) == (2, 0, 0)
    finally:
        sink.controller.stop()
    (to_ivan,) = sink.to(IVAN)
    assert to_ivan.message["To"] == IVAN
    assert to_ivan.message["Subject"] == "[OB-1] Проба"


def test_a_recipient_refused_for_good_fails_its_row_and_the_rest_go(bench: Bench) -> None:
    queue_to(bench, MARIA, PETAR)
    sink = sink_of(smtputf8=True, refuse=(MARIA,))
    try:
        assert deliver_to(bench, sink, at(2)) == (2, 0, 1)
        # nothing is tried again: the row is given up, the notice went once
        assert deliver_to(bench, sink, at(3)) == (0, 0, 0)
    finally:
        sink.controller.stop()
    status, error = statuses(bench)[MARIA]
    assert status == "failed" and "550" in (error or "")
    assert [m.recipients for m in sink.messages] == [(PETAR,), (TD,)]


def test_no_line_exceeds_998_characters_whatever_the_player_sent(bench: Bench) -> None:
    long_id = "<" + "x" * 2000 + "@players.example>"
    references = " ".join(f"<r{i}@players.example>" for i in range(40))
    message = bench.message(
        IVAN,
        "1. e2-e4",
        subject="[OB-1/1] ход",
        message_id=long_id,
        headers=[("References", f"{references} {long_id}")],
    )
    bench.receive(message, at(2))
    sink = sink_of(smtputf8=True)
    try:
        assert deliver_to(bench, sink, at(3)) == (2, 0, 0)
    finally:
        sink.controller.stop()
    for raw in sink.raw:
        assert max(len(line) for line in raw.split(b"\r\n")) <= 998
    confirmation = next(m for m in sink.messages if m.recipients == (IVAN,)).message
    assert confirmation["In-Reply-To"] is None  # the player's Message-ID cannot fit
    refs = str(confirmation["References"]).split()
    assert refs == [f"<r{i}@players.example>" for i in range(30, 40)]


@pytest.mark.parametrize(
    "subject",
    [
        "[OB-1/1] Иван Иванов – Петър Петров: " + " ".join(["много дълъг предмет"] * 20),
        # a 1,500-character one-word tournament name gave a 1,502-character subject
        # line in every start mail: folding splits only between words, so a word
        # longer than a line is written as encoded words
        f"[{'W' * 1500}] start",
        f"[{'Ш' * 1500}] start",
    ],
    ids=["words", "latin-word", "cyrillic-word"],
)
def test_compose_folds_long_subjects_and_keeps_the_spaces(subject: str) -> None:
    row = Outbox(
        message_id="mailbot.1@federation.example",
        to_addrs=[IVAN],
        cc_addrs=[],
        subject=subject,
        headers={"X-Mailbot-Event": "notice"},
        text_body="Здравейте!",
        html_body=None,
        event="notice",
        created_at=at(2),
    )
    data = compose(outgoing(row), f"Федерация <{BOT}>", smtputf8=True)
    assert max(len(line) for line in data.split(b"\r\n")) <= 78
    parsed = email.message_from_binary_file(io.BytesIO(data), policy=email.policy.default)
    assert parsed["Subject"] == row.subject
    assert parsed["From"].addresses[0].display_name == "Федерация"


def test_mailbot_outbox_lists_waiting_and_given_up_mail(
    bench: Bench, tmp_path: Path, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    queue_to(bench, IVAN, MARIA)
    queue_to(bench, PETAR, status="failed", attempts=25, last_error="SMTP answered 452: full")
    account = ImapAccount("127.0.0.1", 1, "unused", "unused")
    mapping = config_mapping(store_url, account, SmtpSink())
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(mapping), encoding="utf-8")

    assert main(["outbox", "-c", str(config)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[1:4] for line in lines] == [
        [IVAN, "[OB-1] Проба", "0"],
        [MARIA, "[OB-1] Проба", "0"],
    ]
    assert main(["-c", str(config), "outbox", "--failed"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.split("\t")[1:] == [PETAR, "[OB-1] Проба", "25", "SMTP answered 452: full"]


def test_a_recipient_refused_for_now_is_tried_again_later(bench: Bench) -> None:
    queue_to(bench, MARIA, PETAR)
    sink = sink_of(smtputf8=True, later=(MARIA,))
    try:
        assert deliver_to(bench, sink, at(2)) == (1, 1, 0)
        sink.later = ()
        assert deliver_to(bench, sink, at(2, 10)) == (1, 0, 0)
    finally:
        sink.controller.stop()
    assert statuses(bench)[MARIA][0] == "sent"
    assert [m.recipients for m in sink.messages] == [(PETAR,), (MARIA,)]


@pytest.mark.parametrize(
    ("settings", "base"),
    [
        ({}, "bot@federation.example"),
        ({"bounce_address": "bounces@fed.example"}, "bounces@fed.example"),
    ],
)
def test_each_message_goes_with_a_return_path_that_names_its_row(
    bench: Bench, settings: dict[str, object], base: str
) -> None:
    """VERP: the server is told a return path of the row's own (the id and the check
    value stored on the row), on bounce_address when it is configured."""
    queue_to(bench, MARIA, PETAR)
    sink = sink_of(smtputf8=True)
    try:
        assert deliver_to(bench, sink, at(2), **settings) == (2, 0, 0)
    finally:
        sink.controller.stop()
    local, _, domain = base.partition("@")
    paths = {m.recipients[0]: m.envelope_from for m in sink.messages}
    for row in bench.outbox():
        assert row.verp_check is not None and len(row.verp_check) == 16
        assert paths[row.to_addrs[0]] == f"{local}+b-{row.id}-{row.verp_check}@{domain}"
    assert len(set(paths.values())) == 2


def test_a_relay_that_refuses_the_bot_gives_no_message_up(bench: Bench) -> None:
    queue_to(bench, MARIA, PETAR)
    sink = sink_of(smtputf8=True, no_sender=True)
    try:
        assert deliver_to(bench, sink, at(2)) == (0, 0, 0)
    finally:
        sink.controller.stop()
    assert {status for status, _ in statuses(bench).values()} == {"pending"}
    assert "554" in (statuses(bench)[MARIA][1] or "")
    assert bench.outbox(event="error") == []


def test_a_message_the_server_chokes_on_does_not_hold_up_the_others(bench: Bench) -> None:
    """The server takes longer over one message than the bot waits: that message waits
    its turn again later, and the messages behind it go now."""
    queue_to(bench, MARIA, PETAR, IVAN)
    sink = sink_of(smtputf8=True, slow=(MARIA,))
    try:
        assert deliver_to(bench, sink, at(2)) == (2, 1, 0)
        assert deliver_to(bench, sink, at(2) + datetime.timedelta(seconds=30)) == (0, 0, 0)
        sink.slow = ()
        assert deliver_to(bench, sink, at(2, 10)) == (1, 0, 0)
    finally:
        sink.controller.stop()
    assert {status for status, _ in statuses(bench).values()} == {"sent"}


def run(config: Path, *argv: str) -> tuple[int, list[str]]:
    """The exit status and the lines of ``mailbot -c config argv...``."""
    out = io.StringIO()
    status = main(["-c", str(config), *argv], stdout=out)
    return status, out.getvalue().splitlines()


def health_of(config: Path) -> tuple[int, str, str]:
    """The exit status of ``mailbot health``, and its lines about failed and bounced mail."""
    status, lines = run(config, "health")
    found = {line.split(" ")[1]: line for line in lines}
    return status, found["failed"], found["bounced:"]


def warned(bench: Bench) -> dict[str, float]:
    """The metrics' gauges of mail given up and bounced that still warn."""
    return {
        sample.name: sample.value
        for family in StoreCollector(bench.sessions).collect()
        for sample in family.samples
        if sample.name in ("mailbot_outbox_failed", "mailbot_outbox_bounced")
    }


@pytest.mark.slow
def test_a_refused_reply_to_a_stranger_warns_until_it_is_dismissed(
    bench: Bench, tmp_path: Path, store_url: str
) -> None:
    """Spam from a made-up address: the answer is refused for good (550), health warns;
    `outbox dismiss` acknowledges it, the row stays listed, and a new failure warns again."""
    strangers = ("nobody@spam.example", "noone@spam.example")
    config = tmp_path / "config.yaml"
    sink = sink_of(smtputf8=True, refuse=strangers)
    try:
        config.write_text(yaml.safe_dump(config_mapping(store_url, ImapAccount(
            "127.0.0.1", 1, "unused", "unused"), sink)), encoding="utf-8")  # fmt: skip
        beat(bench.sessions, POLL)
        beat(bench.sessions, SWEEP)
        assert health_of(config)[0] == 0
        bench.send(strangers[0], "Cheap watches", at(2), subject="Offer")
        assert deliver_to(bench, sink, at(2, 10)) == (0, 0, 1)
        (row,) = bench.outbox(to=strangers[0])
        assert health_of(config) == (
            1, "WARNING failed mail: 1 mail given up; see mailbot outbox --failed",
            "OK bounced: no mail bounced after it was sent",
        )  # fmt: skip
        assert warned(bench) == {"mailbot_outbox_failed": 1, "mailbot_outbox_bounced": 0}

        assert run(config, "outbox", "dismiss", str(row.id)) == (
            0, [f"dismissed {row.id}\t{strangers[0]}\t{row.subject}"],
        )  # fmt: skip
        assert health_of(config)[:2] == (0, "OK failed mail: no mail given up (1 dismissed)")
        assert warned(bench) == {"mailbot_outbox_failed": 0, "mailbot_outbox_bounced": 0}
        status, (line,) = run(config, "outbox", "--failed")
        assert status == 0
        assert line.split("\t")[0::5] == [str(row.id), "dismissed"]
        assert "550" in line.split("\t")[4]
        # dismissed again: nothing changes
        assert run(config, "outbox", "dismiss", str(row.id))[0] == 0
        assert health_of(config)[0] == 0

        # another stranger's answer fails: a warning again, for that one alone
        bench.send(strangers[1], "Cheap pills", at(3), subject="Offer")
        assert deliver_to(bench, sink, at(3, 10)) == (0, 0, 1)
        assert health_of(config)[:2] == (
            1, "WARNING failed mail: 1 mail given up; see mailbot outbox --failed",
        )  # fmt: skip
        assert warned(bench)["mailbot_outbox_failed"] == 1
        status, lines = run(config, "outbox", "--failed")
        assert [line.endswith("\tdismissed") for line in lines] == [True, False]
        status, lines = run(config, "outbox", "dismiss", "--all")
        assert status == 0 and [line.split("\t")[1] for line in lines] == [strangers[1]]
        assert health_of(config)[:2] == (0, "OK failed mail: no mail given up (2 dismissed)")
        assert run(config, "outbox", "dismiss", "--all") == (
            0, ["no mail given up or bounced to dismiss"],
        )  # fmt: skip
    finally:
        sink.controller.stop()


def test_only_a_row_given_up_or_bounced_is_dismissed(
    bench: Bench, tmp_path: Path, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    queue_to(bench, IVAN)
    (waiting,) = bench.outbox()
    config = tmp_path / "config.yaml"
    mapping = config_mapping(store_url, ImapAccount("127.0.0.1", 1, "unused", "unused"), SmtpSink())
    config.write_text(yaml.safe_dump(mapping), encoding="utf-8")
    for argv, said in [
        (
            ["dismiss", str(waiting.id)],
            f"mail {waiting.id} is pending, neither given up nor bounced",
        ),
        (["dismiss", "999"], "no mail 999 in the outbox"),
        (["dismiss", "x"], "not an id"),
        (["dismiss"], "takes an ID"),
        (["dismiss", "1", "--all"], "takes an ID"),
        (["--failed", "dismiss", "--all"], "takes an ID"),
        (["--all"], "go with outbox dismiss"),
    ]:
        assert main(["-c", str(config), "outbox", *argv]) == 2, argv
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1 and said in err, (argv, err)
    assert [r.dismissed_at for r in bench.outbox()] == [None]


def test_an_xfcc_password_is_hidden_in_the_copy_once_sent_and_kept_while_it_cannot_go(
    bench: Bench,
) -> None:
    """Maria asks for an Xfcc password from an address her server refuses for good: the
    answer is given up, and its copy keeps the password, for the director corrects her
    address and the answer goes again; once it has gone, she has the password and the
    bot's copy of the answer shows ``********`` in its place."""
    bench.desk = Desk(
        bench.sessions,
        Policy(sender=f"Federation CC <{BOT}>", xfcc_url="https://cc.federation.example/xfcc"),
    )
    bench.send(MARIA, "xfcc", at(2))

    def copy() -> tuple[str, str]:
        (row,) = [r for r in bench.outbox(event="notice") if TD not in r.to_addrs]
        with bench.sessions() as session:
            hashed = session.scalars(select(XfccPassword.hashed)).one()
        return row.text_body, hashed

    refusing = sink_of(smtputf8=True, refuse=(MARIA,))
    try:
        assert deliver_to(bench, refusing, at(2, 10)) == (1, 0, 1)  # the director's notice goes
    finally:
        refusing.controller.stop()
    text, hashed = copy()
    assert [w for w in written(text) if matches(hashed, w)], "the given-up copy lost it"

    with bench.sessions.begin() as session:
        maria = session.scalars(select(Player).where(Player.email == MARIA)).one()
        change_address(session, maria, "maria@mail.example", at(3))
    sink = sink_of(smtputf8=True)
    try:
        assert deliver_to(bench, sink, at(3, 10)) == (1, 0, 0)
    finally:
        sink.controller.stop()
    (got,) = sink.to("maria@mail.example")
    mailed = got.message.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    (password,) = [w for w in written(mailed) if matches(hashed, w)]
    text, _ = copy()
    assert password not in text and "Password: ********" in text
