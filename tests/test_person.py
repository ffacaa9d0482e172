"""Mail a person would write, end to end through Dovecot and the SMTP listener.

A Bulgarian event where Maria Dimitrova (``gender: f``) plays Ivan Ivanov and
Petar Petrov (Russian, ``gender: m``): Maria is addressed as a woman, hears
about her own silence in the second person while Ivan hears of "your opponent
Maria, who has not answered" (in the feminine), and the TD gets the packet in
the TD's words. The mate that ends a game reaches the loser with its art. 8
line and ``X-Mailbot-Move``, like every other move.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import Federation, text_of
from mailservers import ImapAccount, SmtpSink

from mailbot.desk.sweep import sweep
from mailbot.mail.postman import Postman
from mailbot.shell.courier import deliver

#: every test here takes more than a second (pyproject.toml: markers)
pytestmark = pytest.mark.slow

UTC = datetime.UTC
TD = "td@federation.example"
MARIA, IVAN, PETAR = "maria@example.org", "ivan@example.org", "petar@example.org"
START_LIST = """
index: PS-1
name: Персонален турнир
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: bg
notation: bg-cyrillic
director: {name: Тодор Тодоров, email: td@federation.example}
players:
  - {id: ivan, name: Иван Иванов, email: ivan@example.org, gender: m}
  - {id: maria, name: Мария Димитрова, email: maria@example.org, gender: f}
  - {id: petar, name: Пётр Петров, email: petar@example.org, language: ru, gender: m}
games:
  - {white: ivan, black: maria}
  - {white: petar, black: ivan}
"""


def at(month: int, day: int, hour: int = 9) -> datetime.datetime:
    return datetime.datetime(2026, month, day, hour, tzinfo=UTC)


@pytest.fixture
def fed(
    store_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> Iterator[Federation]:
    federation = Federation(store_url, imap_account, smtp_sink, START_LIST, tmp_path)
    yield federation
    federation.close()


def send(fed: Federation, sender: str, body: str, when: datetime.datetime, game: str) -> None:
    fed.write(sender, body, when, subject=f"[{game}] ход")
    fed.poll(when + datetime.timedelta(minutes=5))


def swept(fed: Federation, when: datetime.datetime) -> None:
    sweep(fed.sessions, fed.config.smtp.sender, when)
    deliver(fed.config, fed.sessions, Postman(fed.config.smtp), when)


def last_of(fed: Federation, address: str, event: str) -> str:
    mails = [m for m in fed.received(address) if m.message["X-Mailbot-Event"] == event]
    assert mails, f"{address} got no {event}"
    return text_of(mails[-1])


def test_a_woman_is_addressed_as_one_and_each_reader_in_the_second_person(
    fed: Federation,
) -> None:
    send(fed, IVAN, "1. e2-e4", at(3, 2), "PS-1/1")
    moved = last_of(fed, MARIA, "move")
    assert moved.startswith("Уважаема Мария Димитрова,")
    assert last_of(fed, IVAN, "move-accepted").startswith("Уважаеми Иван Иванов,")
    # Maria stays silent: the repeat, then 40 days and the claim
    for day in range(0, 60):
        swept(fed, at(3, 3) + datetime.timedelta(days=day))
    to_maria = last_of(fed, MARIA, "silence")
    assert to_maria.startswith("Уважаема Мария Димитрова,")
    assert "не сте отговорили на хода в продължение на 40 дни време за размисъл" in to_maria
    to_ivan = last_of(fed, IVAN, "silence")
    assert (
        "противничката Ви Мария Димитрова не е отговорила на хода в продължение на 40 дни"
        in to_ivan
    )
    packet = last_of(fed, TD, "silence")
    assert packet.startswith("Уважаеми Тодор Тодоров,")
    assert "Мария Димитрова (черните) не е отговорила на хода в продължение на 40 дни" in packet
    # the repeat's copy is the director's own
    assert "Мария Димитрова не е отговорил(а) на хода" not in last_of(fed, TD, "repeat")
    assert last_of(fed, TD, "repeat").startswith("Уважаеми Тодор Тодоров,")


def test_the_mate_reaches_the_loser_like_every_move(fed: Federation) -> None:
    """Fool's mate: Ivan (Black) mates Petar, who reads Russian; the game-over mail he
    gets carries the mating move's art. 8 line and headers."""
    moves = [(PETAR, "1. f2-f3"), (IVAN, "1... e7-e5"), (PETAR, "2. g2-g4"),
             (IVAN, "2... Дd8-h4#")]  # fmt: skip
    for n, (sender, move) in enumerate(moves):
        send(fed, sender, move, at(3, 2 + n), "PS-1/2")
    over = [m for m in fed.received(PETAR) if m.message["X-Mailbot-Event"] == "game-over"]
    assert len(over) == 1
    mail = over[0].message
    assert mail["X-Mailbot-Move"] == "d8h4"
    assert mail["X-Mailbot-Ply"] == "4"
    assert mail["X-Mailbot-Result"] == "0-1"
    text = text_of(over[0])
    assert text.startswith("Уважаемый Пётр Петров,")
    assert "2. g2-g4 Дd8-h4#; 4.3. – 5.3. – 5.3. = 0 дней" in text  # the game's notation
    mover = [m for m in fed.received(IVAN) if m.message["X-Mailbot-Event"] == "game-over"]
    assert "2. g2-g4 Дd8-h4#" in text_of(mover[0])
    # the PGN's comments in each reader's words (the dates stay in [%ccsnt])
    assert '[CorrespondenceTime "50 дней/10 ходов"]' in text
    assert "0 дней" in text.partition("[Event ")[2] and " дни" not in text
    assert '[CorrespondenceTime "50 дни/10 хода"]' in text_of(mover[0])
