"""Deadlines through the real mail path: repeats, silence, oversteps, downtime.

Dovecot and aiosmtpd are real; the bot's clock is moved with ``now`` as
``mailbot sweep --now`` would.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import Federation, text_of
from mailservers import ImapAccount, SmtpSink

from mailbot.cli import main
from mailbot.desk.sweep import sweep
from mailbot.mail.postman import Postman
from mailbot.shell.delivery import deliver_due

SOFIA = datetime.timezone(datetime.timedelta(hours=2))
START_LIST = """
index: DL-1
name: Deadline test
profile: bg-email
start: 2026-03-01
end: 2026-12-31
language: en
notation: en
director: {name: Tom Director, email: td@federation.example}
players:
  - {id: white, name: Walter White, email: white@example.org}
  - {id: black, name: Bella Black, email: black@example.org, language: bg, notation: bg-cyrillic}
games: [{white: white, black: black}]
"""
WHITE, BLACK, TD = "white@example.org", "black@example.org", "td@federation.example"


def at(month: int, day: int, hour: int = 10) -> datetime.datetime:
    return datetime.datetime(2026, month, day, hour, tzinfo=SOFIA)


@pytest.fixture
def federation(
    store_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> Iterator[Federation]:
    fed = Federation(store_url, imap_account, smtp_sink, START_LIST, tmp_path)
    yield fed
    fed.close()


def run_sweep(fed: Federation, now: datetime.datetime) -> None:
    sweep(fed.sessions, fed.config.smtp.sender, now)
    deliver_due(fed.sessions, Postman(fed.config.smtp), now)


def events(fed: Federation, address: str, event: str) -> list[object]:
    return [m for m in fed.received(address) if m.message["X-Mailbot-Event"] == event]


def white_moves_on_march_3(fed: Federation) -> None:
    fed.write(WHITE, "1. e2-e4", at(3, 3), subject="[DL-1/1] my move")
    fed.poll(at(3, 3, 11))
    assert fed.last(BLACK).message["X-Mailbot-Event"] == "move"


def test_repeat_at_14_days_once_with_copy_to_td(federation: Federation) -> None:
    white_moves_on_march_3(federation)
    # the move was forwarded on 3 March: the repeat falls due 14 days later, on 17 March
    for day in range(4, 17):
        run_sweep(federation, at(3, day))
    assert events(federation, BLACK, "repeat") == []
    run_sweep(federation, at(3, 17, 0) + datetime.timedelta(minutes=5))
    run_sweep(federation, at(3, 17, 18))  # twice on the due day
    for day in range(18, 31):
        run_sweep(federation, at(3, day))
    repeats = events(federation, BLACK, "repeat")
    assert len(repeats) == 1
    repeat = repeats[0]
    # art. 26 B: a copy to the TD, in the TD's own words
    (copy,) = events(federation, TD, "repeat")
    assert copy.recipients == (TD,)
    assert copy.message["X-Mailbot-Due"] == "2026-03-17"
    assert "Bella Black has not answered the move of Walter White" in text_of(copy)
    assert repeat.message["X-Mailbot-Due"] == "2026-03-17"
    assert repeat.message["Subject"].startswith("[DL-1/1] Walter White – Bella Black: ")
    assert "1. e2-e4" in text_of(repeat)
    assert "17.3.2026" in text_of(repeat)
    assert events(federation, TD, "silence") == []


def test_silence_at_40_days_sends_the_packet_once(federation: Federation) -> None:
    white_moves_on_march_3(federation)
    for day in range(4, 32):
        run_sweep(federation, at(3, day))
    for day in range(1, 14):
        run_sweep(federation, at(4, day))
    assert events(federation, TD, "silence") == []
    # days = |{d : 4.3 <= d < s}| exceeds 40 from 14 April on
    run_sweep(federation, at(4, 14, 9))
    run_sweep(federation, at(4, 14, 20))
    run_sweep(federation, at(4, 15))
    packets = events(federation, TD, "silence")
    assert len(packets) == 1
    text = text_of(packets[0])
    assert packets[0].message["X-Mailbot-Due"] == "2026-04-14"
    assert "confirm" in text and "1. e4" in text  # the packet: record and PGN
    assert "[%ccsnt 2026.03.03]" in text
    # both players are told
    assert len(events(federation, WHITE, "silence")) == 1
    assert len(events(federation, BLACK, "silence")) == 1


def test_two_weeks_of_downtime_then_one_sweep_sends_each_missed_notice_once(
    federation: Federation,
) -> None:
    white_moves_on_march_3(federation)
    run_sweep(federation, at(3, 10))
    # the bot is down from 10 March to 16 April; one sweep catches up
    run_sweep(federation, at(4, 16))
    run_sweep(federation, at(4, 16, 15))
    repeats = events(federation, BLACK, "repeat")
    packets = events(federation, TD, "silence")
    assert [r.message["X-Mailbot-Due"] for r in repeats] == ["2026-03-17"]
    assert [p.message["X-Mailbot-Due"] for p in packets] == ["2026-04-14"]


def test_no_silence_claim_when_the_move_was_answered(federation: Federation) -> None:
    white_moves_on_march_3(federation)
    federation.write(BLACK, "1... e7-e5", at(3, 20), subject="[DL-1/1] ход")
    federation.poll(at(3, 20, 11))
    for month, day in ((3, 25), (4, 14), (4, 20)):
        run_sweep(federation, at(month, day))
    assert events(federation, TD, "silence") == []
    # no sweep ran while Black was silent: an answered move is not repeated afterwards
    assert events(federation, BLACK, "repeat") == []
    # now White is silent since 20 March: White's move is repeated on 3 April
    assert [r.message["X-Mailbot-Due"] for r in events(federation, WHITE, "repeat")] == [
        "2026-04-03"
    ]


def test_sweep_command_line(federation: Federation, capsys: pytest.CaptureFixture[str]) -> None:
    white_moves_on_march_3(federation)
    assert federation.config_path is not None
    args = ["-c", str(federation.config_path), "sweep", "--now", "2026-03-18T08:00"]
    assert main(args) == 0
    assert "repeat=1" in capsys.readouterr().out
    assert main(args) == 0
    assert "nothing due" in capsys.readouterr().out
    assert len(events(federation, BLACK, "repeat")) == 1
