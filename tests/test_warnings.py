"""Warnings before deadlines (docs/contract.md, "Warnings before deadlines"), through
the real mail path: before the overstep, the silence notice and the end of the event,
each once on its day, in the reader's language, not after ``warnings off``.

bg-email: Walter's first move reaches Bella on 3 March; unanswered, the silence
notice falls due on 14 April (warned 5 days before, on 9 April) and the overstep
on 24 April (warned 10 and 3 days before, on 14 and 21 April). The event ends on
30 April: its notice falls due on 1 May, and both players are warned 30 days
before, on 1 April.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import Federation, text_of
from mailservers import ImapAccount, Received, SmtpSink

from mailbot.desk.sweep import sweep
from mailbot.mail.postman import Postman
from mailbot.shell.delivery import deliver_due

#: every test here takes more than a second (pyproject.toml: markers)
pytestmark = pytest.mark.slow

SOFIA = datetime.timezone(datetime.timedelta(hours=3))
START_LIST = """
index: WN-1
name: Warning test
profile: bg-email
start: 2026-03-01
end: 2026-04-30
language: en
notation: en
director: {{name: Tom Director, email: td@federation.example}}
players:
  - {{id: white, name: Walter White, email: white@example.org}}
  - {{id: black, name: Bella Black, email: black@example.org, language: {language}, gender: f}}
games: [{{white: white, black: black}}]
"""
WHITE, BLACK, TD = "white@example.org", "black@example.org", "td@federation.example"

#: What the warning before the overstep says in each language, and the subject.
OVERSTEP = {
    "en": ("you overstep the time limit", "Your time limit in 10 days"),
    "bg": ("ще просрочите времето си", "Контролата на времето Ви след 10 дни"),
    "ru": ("вы превысите лимит времени", "Ваш контроль времени через 10 дней"),
}


def at(month: int, day: int, hour: int = 10) -> datetime.datetime:
    return datetime.datetime(2026, month, day, hour, tzinfo=SOFIA)


def make(store_url: str, imap: ImapAccount, smtp: SmtpSink, tmp: Path, lang: str) -> Federation:
    return Federation(store_url, imap, smtp, START_LIST.format(language=lang), tmp)


@pytest.fixture
def federation(
    store_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> Iterator[Federation]:
    fed = make(store_url, imap_account, smtp_sink, tmp_path, "bg")
    yield fed
    fed.close()


def run_sweep(fed: Federation, now: datetime.datetime) -> None:
    sweep(fed.sessions, fed.config.smtp.sender, now)
    deliver_due(fed.sessions, Postman(fed.config.smtp), now)


def warnings_to(fed: Federation, address: str) -> list[tuple[str, str]]:
    """The warnings ``address`` received: (``X-Mailbot-Warning``, ``X-Mailbot-Due``)."""
    return [
        (str(m.message["X-Mailbot-Warning"]), str(m.message["X-Mailbot-Due"]))
        for m in warnings_mail(fed, address)
    ]


def warnings_mail(fed: Federation, address: str) -> list[Received]:
    return [m for m in fed.received(address) if m.message["X-Mailbot-Event"] == "warning"]


def white_moves_on_march_3(fed: Federation) -> None:
    fed.write(WHITE, "1. e2-e4", at(3, 3), subject="[WN-1/1] my move")
    fed.poll(at(3, 3, 11))
    assert fed.last(BLACK).message["X-Mailbot-Event"] == "move"


def on_its_day(fed: Federation, month: int, day: int) -> None:
    """Sweep the day before, twice on the day (just after midnight and in the evening)
    and the day after."""
    before = datetime.datetime(2026, month, day, 10, tzinfo=SOFIA) - datetime.timedelta(days=1)
    run_sweep(fed, before)
    start = datetime.datetime(2026, month, day, 0, 5, tzinfo=SOFIA)
    run_sweep(fed, start)
    run_sweep(fed, at(month, day, 20))
    run_sweep(fed, before + datetime.timedelta(days=2))


@pytest.mark.parametrize("language", ["en", "bg", "ru"])
def test_each_warning_goes_once_on_its_day_in_the_readers_language(
    store_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path, language: str
) -> None:
    fed = make(store_url, imap_account, smtp_sink, tmp_path, language)
    try:
        white_moves_on_march_3(fed)
        run_sweep(fed, at(3, 31))  # the day before the first warning: none yet
        assert warnings_to(fed, BLACK) == warnings_to(fed, WHITE) == []
        on_its_day(fed, 4, 1)
        end = [("end", "2026-05-01")]
        assert warnings_to(fed, BLACK) == warnings_to(fed, WHITE) == end
        run_sweep(fed, at(4, 8))
        assert warnings_to(fed, BLACK) == end
        on_its_day(fed, 4, 9)
        assert warnings_to(fed, BLACK) == [*end, ("silence", "2026-04-14")]
        run_sweep(fed, at(4, 13))
        on_its_day(fed, 4, 14)
        run_sweep(fed, at(4, 20))
        assert len(warnings_to(fed, BLACK)) == 3
        on_its_day(fed, 4, 21)
        run_sweep(fed, at(4, 21, 22))  # a re-run sends nothing
        assert warnings_to(fed, BLACK) == [
            *end,
            ("silence", "2026-04-14"),
            ("control", "2026-04-24"),
            ("control", "2026-04-24"),
        ]
        # the player not to move is warned of the end of the event only
        assert warnings_to(fed, WHITE) == end
        assert [m for m in fed.received(TD) if m.message["X-Mailbot-Event"] == "warning"] == []
        control = warnings_mail(fed, BLACK)[2]
        words, subject = OVERSTEP[language]
        assert words in text_of(control)
        assert str(control.message["Subject"]).startswith("[WN-1/1] Walter White – Bella Black: ")
        assert subject in str(control.message["Subject"])
        three = warnings_mail(fed, BLACK)[3]
        assert ("3 дни" if language == "bg" else "3 дня" if language == "ru" else "3 days") in str(
            three.message["Subject"]
        )
        if language != "en":  # wholly in the reader's language
            assert "warning" not in text_of(control).replace("warnings", "")
    finally:
        fed.close()


def test_no_warnings_after_warnings_off_and_again_after_warnings_on(
    federation: Federation,
) -> None:
    white_moves_on_march_3(federation)
    federation.write(BLACK, "предупреждения изкл", at(3, 5), subject="[WN-1/1] настройка")
    federation.poll(at(3, 5, 11))
    answer = federation.last(BLACK)
    assert "Предупрежденията са изключени" in str(answer.message["Subject"])
    on_its_day(federation, 4, 1)
    on_its_day(federation, 4, 9)
    assert warnings_to(federation, BLACK) == []
    assert warnings_to(federation, WHITE) == [("end", "2026-05-01")]  # Walter still wants them
    federation.write(BLACK, "предупреждения вкл", at(4, 10), subject="[WN-1/1] настройка")
    federation.poll(at(4, 10, 11))
    assert "Предупрежденията са включени" in str(federation.last(BLACK).message["Subject"])
    on_its_day(federation, 4, 14)
    assert warnings_to(federation, BLACK) == [("control", "2026-04-24")]


def test_a_digest_reader_finds_the_warning_in_the_days_digest(federation: Federation) -> None:
    federation.write(BLACK, "обобщение вкл", at(3, 2), subject="[WN-1/1] настройка")
    federation.poll(at(3, 2, 11))
    federation.write(WHITE, "1. e2-e4", at(3, 3), subject="[WN-1/1] my move")
    federation.poll(at(3, 3, 11))  # the move waits for Bella's digest
    run_sweep(federation, at(4, 8))
    before = len(federation.received(BLACK))
    run_sweep(federation, datetime.datetime(2026, 4, 9, 0, 5, tzinfo=SOFIA))
    run_sweep(federation, at(4, 9, 20))
    new = federation.received(BLACK)[before:]
    assert [m.message["X-Mailbot-Event"] for m in new] == ["digest"]
    text = text_of(new[0])
    assert "мълчанието Ви отива при съдията" in text
    assert "14.4.2026" in text or "14 април 2026" in text, text
