"""The whole mail path: players write to the bot's Dovecot mailbox, the bot
answers through SMTP, and the tests read what each player and the director
received, as they would."""

from __future__ import annotations

import dataclasses
import datetime
import email.utils
import io
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import chess.pgn
import pytest
from harness import Federation, mailbot, text_of
from mailservers import ImapAccount, Received, SmtpSink, free_port
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from mailbot.cli import main
from mailbot.compose.catalogue import say_kept
from mailbot.mail.inbox import MailboxError
from mailbot.rules import referee
from mailbot.shell.passes import fixed_clock, poll_once
from mailbot.store.models import Game, InboundMessage, Outbox

SOFIA = ZoneInfo("Europe/Sofia")
START = datetime.date(2026, 3, 1)
DAY = datetime.timedelta(days=1)
TD = "td@federation.example"
IVANOV = "ivanov@example.org"
SMITH = "smith@example.org"
PETROV = "petrov@example.org"

#: Ivanov takes the event's Bulgarian and Cyrillic notation; Smith writes and
#: reads English; Petrov Russian.
START_LIST = """\
index: BG-2026-E1
name: National e-mail championship
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: bg
notation: bg-cyrillic
director: {name: Georgi Georgiev, email: td@federation.example}
players:
  - {id: ivanov, name: Ivan Ivanov, email: ivanov@example.org}
  - {id: smith, name: John Smith, email: smith@example.org, language: en, notation: en}
  - {id: petrov, name: Pyotr Petrov, email: petrov@example.org, language: ru, notation: ru}
games:
  - {white: ivanov, black: smith}
  - {white: smith, black: petrov}
  - {white: ivanov, black: petrov}
"""


def at(day: int, hour: int = 9, month: int = 3) -> datetime.datetime:
    """A moment of 2026 in the tournament's time zone."""
    return datetime.datetime(2026, month, day, hour, tzinfo=SOFIA)


def counted_days(received: datetime.date, answered: datetime.date) -> int:
    """bg-email (art. 8 D): the days after the day of receipt, before the day of the answer."""
    return max(0, (answered - received).days - 1)


def first_move_days(answered: datetime.date) -> int:
    """Art. 24: the first move's clock runs from the start date, which counts."""
    return max(0, (answered - START).days)


def short(day: datetime.date) -> str:
    return f"{day.day}.{day.month}."


def days_word(n: int, language: str) -> str:
    if language == "en":
        return f"{n} day" if n == 1 else f"{n} days"
    if language == "bg":
        return f"{n} ден" if n == 1 else f"{n} дни"
    if n % 10 == 1 and n % 100 != 11:
        return f"{n} день"
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return f"{n} дня"
    return f"{n} дней"


def art8_line(
    language: str,
    moves: str,
    dates: tuple[datetime.date | None, datetime.date, datetime.date],
    days: int,
    white: int,
    black: int,
) -> str:
    """The art. 8 move line as the rules write it, in one of the bot's languages."""
    prev, received, sent = dates
    head = f"{moves}; {short(prev) if prev else '–'} – {short(received)} – {short(sent)}"
    head += f" = {days_word(days, language)}"
    w, b = days_word(white, language), days_word(black, language)
    total = {
        "en": f"total time: White {w}, Black {b}",
        "bg": f"общо време: белите {w}, черните {b}",
        "ru": f"общее время: белые {w}, чёрные {b}",
    }[language]
    return f"{head}; {total}"


Make = Callable[..., Federation]


@pytest.fixture
def federation_of(
    imap_account: ImapAccount,
    smtp_sink: SmtpSink,
    tmp_path: Path,
) -> Iterator[Make]:
    """Builds the federation of a test: ``make(db_url, start_list, **policy)``."""
    made: list[Federation] = []

    def make(db_url: str, start_list: str = START_LIST, **policy: object) -> Federation:
        fed = Federation(
            db_url, imap_account, smtp_sink, start_list, tmp_path, policy=policy or None
        )
        made.append(fed)
        return fed

    yield make
    for fed in made:
        fed.close()


def header(item: Received, name: str) -> str:
    value = item.message[name]
    assert value is not None, f"no {name} in {item.message['Subject']!r}"
    return str(value)


def events(items: list[Received]) -> list[str]:
    return [str(i.message["X-Mailbot-Event"]) for i in items]


def mails(fed: Federation, address: str, event: str, game: str | None = None) -> list[Received]:
    """What ``address`` received with ``X-Mailbot-Event: event`` (about ``game``)."""
    return [
        i
        for i in fed.received(address)
        if i.message["X-Mailbot-Event"] == event
        and (game is None or i.message["X-Mailbot-Game"] == game)
    ]


def html_of(item: Received) -> str:
    part = item.message.get_body(("html",))
    assert part is not None, "no HTML alternative"
    return str(part.get_content())


def subject(item: Received) -> str:
    return str(item.message["Subject"])


# ---------------------------------------------------------------------------
# 1. Moves go back and forth


def check_move_mail(
    item: Received,
    *,
    event: str,
    game: str,
    ply: int,
    uci: str,
    white: int,
    black: int,
    what: str,
    line: str,
) -> None:
    """One move mail as the player sees it: subject, headers, the art. 8 line, the board."""
    assert subject(item) == f"[{game}] {what}", subject(item)
    assert header(item, "X-Mailbot-Event") == event
    assert header(item, "X-Mailbot-Game") == game
    assert header(item, "X-Mailbot-Ply") == str(ply)
    assert header(item, "X-Mailbot-Move") == uci
    assert header(item, "X-Mailbot-Time") == f"white={white}; black={black}"
    assert header(item, "Auto-Submitted") in ("auto-generated", "auto-replied")
    assert line in text_of(item), text_of(item)
    html = html_of(item)
    assert "<table" in html and "♔" in html and "♚" in html
    # the squares of the last move are marked
    assert html.count("outline:2px solid") == 2


@pytest.mark.slow
def test_moves_are_forwarded_and_confirmed_with_the_art8_line(
    db_url: str, federation_of: Make
) -> None:
    fed = federation_of(db_url)
    names = "Ivan Ivanov – John Smith"
    game1, game2 = "BG-2026-E1/1", "BG-2026-E1/2"

    # E10: the first move's clock runs from the start date (1 March)
    sent1 = at(5)
    own = fed.write(IVANOV, "1. e2-e4", sent1, subject=f"[{game1}] ход")
    fed.poll(at(5, 10))
    w1 = first_move_days(sent1.date())
    assert w1 == 4
    move = fed.last(SMITH)
    check_move_mail(
        move,
        event="move",
        game=game1,
        ply=1,
        uci="e2e4",
        white=w1,
        black=0,
        what=f"{names}: 1. e2-e4",
        line=art8_line("en", "1. e2-e4", (None, START, sent1.date()), w1, w1, 0),
    )
    assert header(move, "Auto-Submitted") == "auto-generated"
    confirmed = fed.last(IVANOV)
    check_move_mail(
        confirmed,
        event="move-accepted",
        game=game1,
        ply=1,
        uci="e2e4",
        white=w1,
        black=0,
        what=f"{names}: 1. e2-e4 приет",
        line=art8_line("bg", "1. e2-e4", (None, START, sent1.date()), w1, w1, 0),
    )
    assert header(confirmed, "Auto-Submitted") == "auto-replied"
    assert header(confirmed, "In-Reply-To") == own["Message-ID"]
    assert own["Message-ID"] in header(confirmed, "References")

    # Smith answers in the thread of the forwarded move, six days later
    sent2 = at(11)
    answer = fed.write(SMITH, "1... e7-e5", sent2, reply_to=move)
    # the same day Smith opens game 2 (E10 again: ten days from the start)
    sent_g2 = at(11, 9)
    fed.write(SMITH, "1. e2-e4", sent_g2, subject=f"[{game2}] first move")
    fed.poll(at(11, 10))
    b1 = counted_days(sent1.date(), sent2.date())
    assert b1 == 5
    to_ivanov = fed.last(IVANOV)
    check_move_mail(
        to_ivanov,
        event="move",
        game=game1,
        ply=2,
        uci="e7e5",
        white=w1,
        black=b1,
        what=f"{names}: 1... e7-e5",
        line=art8_line(
            "bg",
            "1. e2-e4 e7-e5",
            (sent1.date(), sent1.date() + DAY, sent2.date()),
            b1,
            w1,
            b1,
        ),
    )
    smith_got = fed.received(SMITH)
    accepted = next(i for i in smith_got if i.message["In-Reply-To"] == answer["Message-ID"])
    assert header(accepted, "X-Mailbot-Event") == "move-accepted"
    assert header(accepted, "X-Mailbot-Game") == game1
    assert subject(accepted) == f"[{game1}] {names}: 1... e7-e5 accepted"

    # E1: received 11 March, answered 13 March: one day
    sent3 = at(13)
    fed.write(IVANOV, "2. Кg1-f3", sent3, reply_to=to_ivanov)
    fed.poll(at(13, 10))
    w2 = counted_days(sent2.date(), sent3.date())
    assert w2 == 1
    line_en = art8_line(
        "en",
        "1... e7-e5 2. Ng1-f3",
        (sent2.date(), sent2.date() + DAY, sent3.date()),
        w2,
        w1 + w2,
        b1,
    )
    assert "11.3. – 12.3. – 13.3. = 1 day;" in line_en
    # the time-control state follows the line, as its own paragraph (docs/rules.md 2.2: 50 days)
    assert (
        f"It is your move.\n\nTime control: {b1} days used of 50 by move 10 ({50 - b1} days left)."
        in text_of(fed.last(SMITH)).replace("\r\n", "\n")
    )
    check_move_mail(
        fed.last(SMITH),
        event="move",
        game=game1,
        ply=3,
        uci="g1f3",
        white=w1 + w2,
        black=b1,
        what=f"{names}: 2. Ng1-f3",
        line=line_en,
    )
    check_move_mail(
        fed.last(IVANOV),
        event="move-accepted",
        game=game1,
        ply=3,
        uci="g1f3",
        white=w1 + w2,
        black=b1,
        what=f"{names}: 2. Кg1-f3 приет",
        line=art8_line(
            "bg",
            "1... e7-e5 2. Кg1-f3",
            (sent2.date(), sent2.date() + DAY, sent3.date()),
            w2,
            w1 + w2,
            b1,
        ),
    )

    # game 2 in English and Russian. E2: received 11 March, answered 15 March: three days
    names2 = "John Smith – Pyotr Petrov"
    w_g2 = first_move_days(sent_g2.date())
    to_petrov = fed.last(PETROV)
    check_move_mail(
        to_petrov,
        event="move",
        game=game2,
        ply=1,
        uci="e2e4",
        white=w_g2,
        black=0,
        what=f"{names2}: 1. e2-e4",
        line=art8_line("ru", "1. e2-e4", (None, START, sent_g2.date()), w_g2, w_g2, 0),
    )
    sent_b = at(15)
    fed.write(PETROV, "1... e7-e5", sent_b, reply_to=to_petrov)
    fed.poll(at(15, 10))
    b_g2 = counted_days(sent_g2.date(), sent_b.date())
    assert b_g2 == 3
    dates = (sent_g2.date(), sent_g2.date() + DAY, sent_b.date())
    check_move_mail(
        fed.last(SMITH),
        event="move",
        game=game2,
        ply=2,
        uci="e7e5",
        white=w_g2,
        black=b_g2,
        what=f"{names2}: 1... e7-e5",
        line=art8_line("en", "1. e2-e4 e7-e5", dates, b_g2, w_g2, b_g2),
    )
    check_move_mail(
        fed.last(PETROV),
        event="move-accepted",
        game=game2,
        ply=2,
        uci="e7e5",
        white=w_g2,
        black=b_g2,
        what=f"{names2}: 1... e7-e5 принят",
        line=art8_line("ru", "1. e2-e4 e7-e5", dates, b_g2, w_g2, b_g2),
    )
    # a bishop move in Russian notation (С) reaches Petrov
    sent_w = at(16)
    fed.write(SMITH, "2. Bf1-c4", sent_w, reply_to=fed.last(SMITH))
    fed.poll(at(16, 10))
    w_g2b = counted_days(sent_b.date(), sent_w.date())
    check_move_mail(
        fed.last(PETROV),
        event="move",
        game=game2,
        ply=3,
        uci="f1c4",
        white=w_g2 + w_g2b,
        black=b_g2,
        what=f"{names2}: 2. Сf1-c4",
        line=art8_line(
            "ru",
            "1... e7-e5 2. Сf1-c4",
            (sent_b.date(), sent_b.date() + DAY, sent_w.date()),
            w_g2b,
            w_g2 + w_g2b,
            b_g2,
        ),
    )
    assert fed.pending_in_inbox() == 0


# ---------------------------------------------------------------------------
# 2. Moves that cannot be played


def reply_to_message(fed: Federation, address: str, sent: object) -> Received:
    """What ``address`` received in answer to the message ``sent``."""
    mid = sent["Message-ID"]  # type: ignore[index]
    found = [i for i in fed.received(address) if i.message["In-Reply-To"] == mid]
    assert len(found) == 1, f"{len(found)} answers to {mid}"
    return found[0]


def garbled_message(sender: str, subject_text: str, body: bytes, when: datetime.datetime) -> bytes:
    """A message in a charset nobody knows: the post, not the player, garbled it."""
    return (
        (
            f"From: {sender}\r\nTo: bot@federation.example\r\nSubject: {subject_text}\r\n"
            f"Date: {when.strftime('%a, %d %b %Y %H:%M:%S %z')}\r\n"
            f"Message-ID: <garbled.{when.timestamp():.0f}@players.example>\r\n"
            'MIME-Version: 1.0\r\nContent-Type: text/plain; charset="x-bulgarian-mik-2000"\r\n'
            "Content-Transfer-Encoding: 8bit\r\n\r\n"
        ).encode()
        + body
        + b"\r\n"
    )


@pytest.mark.slow
def test_impossible_incorrect_and_unclear_moves_cost_five_days(
    db_url: str, federation_of: Make
) -> None:
    fed = federation_of(db_url)
    game = "BG-2026-E1/1"
    tag = f"[{game}] ход"

    # art. 14's own example: 1.Кg1-e3 is impossible
    wrong = fed.write(IVANOV, "1. Кg1-e3", at(4), subject=tag)
    fed.poll(at(4, 10))
    rejected = reply_to_message(fed, IVANOV, wrong)
    assert header(rejected, "X-Mailbot-Event") == "move-rejected"
    assert header(rejected, "X-Mailbot-Penalty") == "white=5"
    assert header(rejected, "X-Mailbot-Time") == "white=5; black=0"
    assert subject(rejected).startswith(f"[{game}] Ivan Ivanov – John Smith: ")
    legal_line = next(line for line in text_of(rejected).splitlines() if "Кg1-f3" in line)
    assert "Кg1-h3" in legal_line
    assert fed.received(SMITH) == []

    sent_w = at(5)
    fed.write(IVANOV, "1. e2-e4", sent_w, subject=tag)
    fed.poll(at(5, 10))
    w = first_move_days(sent_w.date())
    assert f"total time: White {days_word(w + 5, 'en')}, Black 0 days" in text_of(fed.last(SMITH))
    move = fed.last(SMITH)

    impossible = fed.write(SMITH, "1... Ng8-e7", at(6), reply_to=move)
    incorrect = fed.write(SMITH, "1. d2-d4 e7-e5", at(7), reply_to=move)
    unclear = fed.write(SMITH, "1... e7-e5\n1... d7-d5", at(8), reply_to=move)
    garbled_at = at(9)
    fed.deliver(
        garbled_message(SMITH, f"Re: [{game}] move", b"1... e7-e5 \xab\xbb d7-d5", garbled_at),
        garbled_at,
    )
    sent_b = at(10)
    fed.write(SMITH, "1... e7-e5", sent_b, reply_to=move)
    fed.poll(at(10, 10))

    expected = [
        (impossible, "impossible", 5),
        (incorrect, "incorrect", 10),
        (unclear, "unclear", 15),
    ]
    for sent, verdict, total in expected:
        got = reply_to_message(fed, SMITH, sent)
        assert header(got, "X-Mailbot-Event") == "move-rejected", verdict
        assert header(got, "X-Mailbot-Penalty") == "black=5", verdict
        assert header(got, "X-Mailbot-Time") == f"white={w + 5}; black={total}", verdict
        assert f"{verdict.capitalize()} move: +5 days" in subject(got)
        assert "5 days are added to your time" in text_of(got), verdict
    legal_line = next(
        line
        for line in text_of(reply_to_message(fed, SMITH, impossible)).splitlines()
        if line.startswith("Legal moves")
    )
    assert "Ng8-f6" in legal_line and "Ng8-h6" in legal_line
    assert "the opponent's last move was e2-e4, not d2-d4" in text_of(
        reply_to_message(fed, SMITH, incorrect)
    )
    unclear_text = text_of(reply_to_message(fed, SMITH, unclear))
    assert "two different moves: e7-e5 and d7-d5" in unclear_text
    assert "Legal moves" not in unclear_text

    garbled = next(
        i
        for i in fed.received(SMITH)
        if i.message["In-Reply-To"] == f"<garbled.{garbled_at.timestamp():.0f}@players.example>"
    )
    assert header(garbled, "X-Mailbot-Event") == "move-rejected"
    assert garbled.message["X-Mailbot-Penalty"] is None
    assert header(garbled, "X-Mailbot-Time") == f"white={w + 5}; black=15"
    assert "No days are added" in text_of(garbled)

    # the next move line carries the penalties in Black's total
    b = counted_days(sent_w.date(), sent_b.date())
    forwarded = fed.last(IVANOV)
    assert header(forwarded, "X-Mailbot-Event") == "move"
    assert header(forwarded, "X-Mailbot-Time") == f"white={w + 5}; black={b + 15}"
    assert art8_line(
        "bg",
        "1. e2-e4 e7-e5",
        (sent_w.date(), sent_w.date() + DAY, sent_b.date()),
        b,
        w + 5,
        b + 15,
    ) in text_of(forwarded)


# ---------------------------------------------------------------------------
# 3. Which game a message is about


@pytest.mark.slow
def test_the_game_is_found_by_tag_thread_or_turn(store_url: str, federation_of: Make) -> None:
    fed = federation_of(store_url)
    # Ivanov has the first move in games 1 and 3: without a tag the bot asks which
    which = fed.write(IVANOV, "1. e2-e4", at(5, 8), subject="ход")
    unknown = fed.write(IVANOV, "1. e2-e4", at(5, 8), subject="[BG-2026-E1/9] ход")
    # Smith has the move in game 2 only, so no tag is needed
    fed.write(SMITH, "1. e2-e4", at(5, 9), subject="my move")
    # a tag decides
    fed.write(IVANOV, "1. d2-d4", at(5, 9), subject="Re: [BG-2026-E1/3] ход")
    fed.poll(at(5, 10))

    asked = reply_to_message(fed, IVANOV, which)
    assert header(asked, "X-Mailbot-Event") == "notice"
    assert asked.message["X-Mailbot-Game"] is None
    assert subject(asked) == "[BG-2026-E1] За коя партия?"
    listed = [line.strip() for line in text_of(asked).splitlines() if line.strip().startswith("[")]
    assert listed == [
        "[BG-2026-E1/1] Ivan Ivanov – John Smith (Ваш ход)",
        "[BG-2026-E1/3] Ivan Ivanov – Pyotr Petrov (Ваш ход)",
    ]
    nowhere = reply_to_message(fed, IVANOV, unknown)
    assert header(nowhere, "X-Mailbot-Event") == "notice"
    assert subject(nowhere) == "[BG-2026-E1] Няма партия BG-2026-E1/9"
    assert "[BG-2026-E1/1]" in text_of(nowhere)

    to_petrov = fed.received(PETROV)
    assert [(header(i, "X-Mailbot-Game"), header(i, "X-Mailbot-Move")) for i in to_petrov] == [
        ("BG-2026-E1/2", "e2e4"),
        ("BG-2026-E1/3", "d2d4"),
    ]
    assert [header(i, "X-Mailbot-Event") for i in fed.received(SMITH)] == ["move-accepted"]

    # Petrov now has the move in games 2 and 3; his reply in game 3's thread,
    # with a subject of his own, is about game 3
    fed.write(PETROV, "1... d7-d5", at(6), subject="Re: ход", reply_to=to_petrov[1])
    fed.poll(at(6, 10))
    move = fed.last(IVANOV)
    assert header(move, "X-Mailbot-Event") == "move"
    assert header(move, "X-Mailbot-Game") == "BG-2026-E1/3"
    assert header(move, "X-Mailbot-Move") == "d7d5"
    assert len(fed.received(SMITH)) == 1
    assert fed.pending_in_inbox() == 0


def test_repeated_incomplete_notation_is_played_and_reported(
    store_url: str, federation_of: Make
) -> None:
    fed = federation_of(store_url)
    fed.write(SMITH, "e4", at(5), subject="[BG-2026-E1/2] move")
    fed.poll(at(5, 10))
    first = fed.last(SMITH)
    assert header(first, "X-Mailbot-Event") == "move-accepted"
    assert "Note: e4 is incomplete notation; please write the full move, as e2-e4" in text_of(first)
    assert fed.received(TD) == []
    fed.write(PETROV, "1... e7-e5", at(6), reply_to=fed.last(PETROV))
    fed.poll(at(6, 10))
    fed.write(SMITH, "Nf3", at(7), reply_to=fed.last(SMITH))
    fed.poll(at(7, 10))
    assert header(fed.last(PETROV), "X-Mailbot-Move") == "g1f3"
    # the second time the director hears of it (art. 7 note 2), in the event's language
    [report] = fed.received(TD)
    assert header(report, "X-Mailbot-Game") == "BG-2026-E1/2"
    assert "John Smith е писал ходове с непълна нотация 2 пъти в партия BG-2026-E1/2" in (
        text_of(report)
    )


# ---------------------------------------------------------------------------
# 4. Who sent it

STRANGER = "someone@elsewhere.example"
AUTHSERV = "mx.federation.example"


def inbound_status(fed: Federation, sent: object) -> tuple[str, str | None]:
    """The bot's record of a message it received: (status, reason in English)."""
    mid = str(sent["Message-ID"]).strip("<>")  # type: ignore[index]
    with fed.sessions() as session:
        row = session.scalars(select(InboundMessage).where(InboundMessage.message_id == mid)).one()
        return row.status, say_kept("en", row.reason_phrase, row.reason)


def plies(fed: Federation, number: int) -> list[str]:
    """The moves of game ``number`` as the bot stored them."""
    with fed.sessions() as session:
        g = session.scalars(select(Game).where(Game.number == number)).one()
        return [m.uci for m in g.moves]


def test_strangers_players_of_other_games_and_dmarc_failures_move_nothing(
    store_url: str, federation_of: Make
) -> None:
    fed = federation_of(store_url, authserv_id=AUTHSERV)
    game = "BG-2026-E1/1"
    stranger = fed.write(STRANGER, "1. e2-e4\nGood luck!", at(5, 8), subject=f"[{game}] move")
    other = fed.write(PETROV, "1. e2-e4", at(5, 8), subject=f"[{game}] ход")
    spoofed = fed.write(
        IVANOV,
        "1. e2-e4",
        at(5, 9),
        subject=f"[{game}] ход",
        headers=[
            (
                "Authentication-Results",
                f"{AUTHSERV}; spf=fail smtp.mailfrom=example.org;"
                " dmarc=fail (p=reject) header.from=example.org",
            ),
            # below the receiving server's own header: written by the forger
            ("Authentication-Results", f"{AUTHSERV}; dmarc=pass header.from=example.org"),
        ],
    )
    fed.poll(at(5, 10))

    polite = reply_to_message(fed, STRANGER, stranger)
    assert header(polite, "X-Mailbot-Event") == "notice"
    # in the tournament's language, the only one the bot can know for a stranger
    assert subject(polite) == "[BG-2026-E1] Писмото Ви не може да бъде отнесено към партия"
    assert "не е регистриран" in text_of(polite)
    refused = reply_to_message(fed, PETROV, other)
    assert header(refused, "X-Mailbot-Event") == "notice"
    assert subject(refused) == "[BG-2026-E1] Вы не играете в этой партии"
    assert "вы не участник партии BG-2026-E1/1" in text_of(refused)

    copies = fed.received(TD)
    assert len(copies) == 2
    for copy, sender in zip(copies, (STRANGER, PETROV), strict=True):
        assert header(copy, "X-Mailbot-Event") == "notice"
        assert header(copy, "X-Mailbot-Game") == game
        assert subject(copy) == f"[{game}] Ivan Ivanov – John Smith: Писмо от нерегистриран адрес"
        assert sender in text_of(copy)
    assert "Good luck!" in text_of(copies[0])

    # the forged message is neither applied nor answered
    assert [i for i in fed.received(IVANOV)] == []
    assert fed.received(SMITH) == []
    assert plies(fed, 1) == []
    assert inbound_status(fed, spoofed) == ("ignored", "DMARC failed")
    assert inbound_status(fed, stranger)[0] == "rejected"
    assert fed.pending_in_inbox() == 0

    # the same verdict from a server the bot does not trust proves nothing
    fed.write(
        IVANOV,
        "1. e2-e4",
        at(6, 9),
        subject=f"[{game}] ход",
        headers=[("Authentication-Results", "mx.elsewhere.example; dmarc=fail header.from=x")],
    )
    fed.poll(at(6, 10))
    assert plies(fed, 1) == ["e2e4"]
    assert header(fed.last(SMITH), "X-Mailbot-Event") == "move"
    assert header(fed.last(IVANOV), "X-Mailbot-Event") == "move-accepted"


# ---------------------------------------------------------------------------
# 5. Never talk to machines


def bounce(when: datetime.datetime) -> bytes:
    """A delivery status notification, as Postfix sends it."""
    date = email.utils.format_datetime(when)
    return (
        "From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\r\n"
        "To: bot@federation.example\r\n"
        "Subject: Undelivered Mail Returned to Sender\r\n"
        f"Date: {date}\r\n"
        "Message-ID: <bounce.1@mx.example.org>\r\n"
        "Auto-Submitted: auto-replied\r\n"
        "MIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"\r\n'
        "\r\n"
        "--b1\r\n"
        "Content-Type: text/plain; charset=us-ascii\r\n\r\n"
        "I'm sorry to have to inform you that your message could not be delivered.\r\n"
        "1. e2-e4\r\n"
        "--b1\r\n"
        "Content-Type: message/delivery-status\r\n\r\n"
        "Reporting-MTA: dns; mx.example.org\r\n\r\n"
        "Final-Recipient: rfc822; ivanov@example.org\r\n"
        "Action: failed\r\n"
        "Status: 5.1.1\r\n"
        "--b1--\r\n"
    ).encode()


def test_machine_mail_is_filed_unanswered_and_the_reply_cap_holds(
    store_url: str, federation_of: Make
) -> None:
    fed = federation_of(store_url, replies_per_sender_per_day=3)
    tag = "[BG-2026-E1/1] ход"
    machines = [
        fed.write(
            IVANOV,
            "I am out of the office until 20 March.\n1. e2-e4",
            at(5, 8),
            subject=f"Automatic reply: {tag}",
            headers=[("Auto-Submitted", "auto-replied")],
        ),
        fed.write(
            IVANOV, "1. e2-e4", at(5, 8), subject=tag, headers=[("List-Id", "<chess.example.org>")]
        ),
        fed.write("Federation CC <bot@federation.example>", "1. e2-e4", at(5, 8), subject=tag),
    ]
    fed.deliver(bounce(at(5, 8)), at(5, 8))
    report = fed.poll(at(5, 10))
    assert report.outcomes == {"ignored": 4}
    assert fed.smtp.messages == []
    assert plies(fed, 1) == []
    assert fed.pending_in_inbox() == 0
    assert fed.in_folder("Processed") == 4
    with fed.sessions() as session:
        rows = session.scalars(select(InboundMessage).order_by(InboundMessage.id)).all()
        assert [r.status for r in rows] == ["ignored"] * 4
        assert all(r.reason for r in rows)
    assert [inbound_status(fed, m)[0] for m in machines] == ["ignored"] * 3

    # three answers a day per sender; the fourth message is told, in the player's
    # language, that the answers stop until the next day, and the fifth gets nothing
    asked = [fed.write(IVANOV, "status", at(6, 8 + i), subject="status") for i in range(3)]
    fourth = fed.write(IVANOV, "1. e2-e4", at(6, 12), subject=tag)
    fifth = fed.write(IVANOV, "status", at(6, 13), subject="status")
    fed.poll(at(6, 14))
    for sent in asked:
        assert header(reply_to_message(fed, IVANOV, sent), "X-Mailbot-Event") == "status"
    last = reply_to_message(fed, IVANOV, fourth)
    assert len(fed.received(IVANOV)) == 4
    assert header(last, "Subject") == "Днес няма да получите повече отговори"
    assert header(last, "Auto-Submitted") == "auto-replied"
    said = " ".join(text_of(last).split())
    assert "Уважаеми Ivan Ivanov," in said
    assert "днес ботът отговори на 3 Ваши писма" in said
    assert "ще Ви отговаря отново от 7.3.2026" in said
    assert "ходовете Ви се изиграват и се изпращат на противниците" in said
    for sent in (fourth, fifth):
        assert inbound_status(fed, sent) == ("processed", "reply cap reached for the day")
    # the cap silences the bot towards the sender; it loses no move
    assert plies(fed, 1) == ["e2e4"]
    assert header(fed.last(SMITH), "X-Mailbot-Event") == "move"
    # the next day, the sender is answered again
    again = fed.write(IVANOV, "status", at(7, 8), subject="status")
    fed.poll(at(7, 9))
    assert header(reply_to_message(fed, IVANOV, again), "X-Mailbot-Event") == "status"
    assert len(fed.received(IVANOV)) == 5


# ---------------------------------------------------------------------------
# 6. Exactly once


@pytest.mark.slow
def test_a_message_is_applied_once_and_poison_is_quarantined(
    db_url: str, federation_of: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    fed = federation_of(db_url)
    own = fed.compose(IVANOV, "1. e2-e4", at(5, 9), subject="[BG-2026-E1/1] ход")
    raw = own.as_bytes()
    # the same message twice, as two mail servers delivering it would stamp it
    for hop in ("mx1", "mx2"):
        received = f"Received: from {hop}.example.org by mx.federation.example; Thu, 5 Mar 2026"
        fed.deliver(f"{received} 09:00:0{len(hop)} +0200\r\n".encode() + raw, at(5, 9))
    report = fed.poll(at(5, 10))
    assert report.outcomes == {"handled": 1, "duplicate": 1}
    assert plies(fed, 1) == ["e2e4"]
    assert events(fed.received(SMITH)) == ["move"]
    assert events(fed.received(IVANOV)) == ["move-accepted"]
    assert fed.in_folder("Processed") == 2

    # a later delivery of the same message, and a pass with nothing new
    fed.deliver(b"Received: from mx3.example.org; Fri, 6 Mar 2026 08:00 +0200\r\n" + raw, at(6, 8))
    assert fed.poll(at(6, 9)).outcomes == {"duplicate": 1}
    assert fed.poll(at(6, 9)).outcomes == {}
    assert len(fed.smtp.messages) == 2
    assert plies(fed, 1) == ["e2e4"]

    # Fault injection: no real part fails on demand, so the referee is made to
    # raise for one message's text.
    real_judge = referee.judge

    def failing_judge(text: str, *args: Any, **kwargs: Any) -> referee.Judgement:
        if "poison" in text:
            raise RuntimeError("the referee broke down")
        if "clash" in text:
            # a database conflict that is not about the message itself
            raise IntegrityError("INSERT INTO penalties ...", {}, Exception("conflict"))
        return real_judge(text, *args, **kwargs)

    monkeypatch.setattr(referee, "judge", failing_judge)
    poison = fed.write(SMITH, "1... e7-e5\npoison", at(6, 10), reply_to=fed.last(SMITH))
    fed.write(SMITH, "1. d2-d4", at(6, 10), subject="[BG-2026-E1/2] first move")
    clash = fed.write(SMITH, "1... e7-e5\nclash", at(6, 10), reply_to=fed.last(SMITH))
    assert fed.poll(at(6, 11)).outcomes == {"failed": 2, "handled": 1}
    assert header(fed.last(PETROV), "X-Mailbot-Move") == "d2d4"
    assert fed.pending_in_inbox() == 2
    assert fed.poll(at(6, 12)).outcomes == {"failed": 2}
    assert fed.pending_in_inbox() == 2
    assert fed.poll(at(6, 13)).outcomes == {"quarantined": 2}
    assert fed.pending_in_inbox() == 0
    assert fed.in_folder("Quarantine") == 2
    assert fed.in_folder("Processed") == 4
    assert fed.poll(at(6, 14)).outcomes == {}

    errors = fed.received(TD)
    assert events(errors) == ["error", "error"]
    for error, sent in zip(errors, (poison, clash), strict=True):
        assert sent["Subject"] in text_of(error)
        assert SMITH in text_of(error)
        assert "3 пъти и е преместено в папка „Quarantine“" in text_of(error)
        assert subject(error).startswith("[BG-2026-E1] ")
    # the poison neither moved nor got an answer
    assert plies(fed, 1) == ["e2e4"]
    assert not [i for i in fed.received(SMITH) if i.message["In-Reply-To"] == poison["Message-ID"]]
    assert inbound_status(fed, poison)[0] == "quarantined"
    # delivered again, it joins the first copy without another attempt
    fed.deliver(b"Received: from mx9.example.org; Sat, 7 Mar 2026\r\n" + poison.as_bytes(), at(7))
    assert fed.poll(at(7, 10)).outcomes == {"quarantined": 1}
    assert fed.in_folder("Quarantine") == 3
    assert len(fed.received(TD)) == 2


# ---------------------------------------------------------------------------
# 7. The outbox outlives a refusing server


def outbox_ids(fed: Federation) -> dict[str, tuple[str, str]]:
    """Message-ID of each queued message: (recipient, status)."""
    with fed.sessions() as session:
        rows = session.scalars(select(Outbox).order_by(Outbox.id)).all()
        return {f"<{r.message_id}>": (r.to_addrs[0], r.status) for r in rows}


@pytest.mark.slow
def test_refused_mail_stays_queued_and_is_sent_once_later(
    store_url: str, federation_of: Make
) -> None:
    fed = federation_of(store_url)
    fed.smtp.refuse_next = 3
    fed.write(IVANOV, "1. e2-e4", at(5, 9), subject="[BG-2026-E1/1] ход")
    first = fed.poll(at(5, 10))
    assert (first.delivery.sent, first.delivery.deferred) == (0, 2)
    assert fed.smtp.messages == []
    queued = outbox_ids(fed)
    assert sorted(queued.values()) == [(IVANOV, "pending"), (SMITH, "pending")]

    # not due yet: the back-off after one failure is a minute
    again = fed.poll(at(5, 10) + datetime.timedelta(seconds=30))
    assert (again.delivery.sent, again.delivery.deferred) == (0, 0)
    # a minute later one more refusal; the other goes through
    later = fed.poll(at(5, 10) + datetime.timedelta(minutes=2))
    assert (later.delivery.sent, later.delivery.deferred) == (1, 1)
    # the second refusal backs off five minutes
    assert fed.poll(at(5, 10) + datetime.timedelta(minutes=4)).delivery.sent == 0
    last = fed.poll(at(5, 10) + datetime.timedelta(minutes=8))
    assert (last.delivery.sent, last.delivery.deferred) == (1, 0)
    assert fed.poll(at(6, 10)).delivery.sent == 0

    got = fed.smtp.messages
    assert sorted(str(i.message["Message-ID"]) for i in got) == sorted(queued)
    for item in got:
        recipient, _ = queued[str(item.message["Message-ID"])]
        assert item.recipients == (recipient,)
    assert {v for v in outbox_ids(fed).values()} == {(IVANOV, "sent"), (SMITH, "sent")}
    assert events(fed.received(SMITH)) == ["move"]
    assert events(fed.received(IVANOV)) == ["move-accepted"]

    # a pass whose mailbox cannot be reached still sends what is due
    fed.smtp.refuse_next = 2
    fed.write(SMITH, "1... e7-e5", at(6, 9), reply_to=fed.last(SMITH))
    assert fed.poll(at(6, 10)).delivery.deferred == 2
    closed = dataclasses.replace(fed.config.imap, port=free_port())
    with pytest.raises(MailboxError):
        poll_once(
            dataclasses.replace(fed.config, imap=closed),
            fed.sessions,
            fixed_clock(at(6, 11)),
        )
    assert events(fed.received(IVANOV)) == ["move-accepted", "move"]
    assert events(fed.received(SMITH)) == ["move", "move-accepted"]


# ---------------------------------------------------------------------------
# 8. Words


def pgn_in(item: Received) -> chess.pgn.Game:
    """The game record a game-over mail carries, read as PGN."""
    text = text_of(item)
    start = text.index("[Event ")
    game = chess.pgn.read_game(io.StringIO(text[start:]))
    assert game is not None
    return game


@pytest.mark.slow
def test_draw_offers_resignation_status_help_and_mate(store_url: str, federation_of: Make) -> None:
    fed = federation_of(store_url)
    g1, g2, g3 = "[BG-2026-E1/1] ход", "[BG-2026-E1/2] move", "[BG-2026-E1/3] ход"
    # a draw offer with a move, in Bulgarian
    fed.write(IVANOV, "1. e2-e4 реми", at(5, 9), subject=g1)
    fed.write(SMITH, "1. e2-e4", at(5, 9), subject=g2)
    fed.write(IVANOV, "1. f2-f3", at(5, 9), subject=g3)
    fed.poll(at(5, 10))
    [offer] = mails(fed, SMITH, "move", "BG-2026-E1/1")
    assert "Ivan Ivanov offers a draw" in text_of(offer)

    fed.write(SMITH, "decline", at(6, 9), reply_to=offer)
    fed.write(PETROV, "сдаюсь", at(6, 9), subject=g2)
    fed.write(PETROV, "1... e7-e5", at(6, 9), subject=g3)
    helped = fed.write(PETROV, "помощь", at(6, 9), subject="вопрос")
    fed.poll(at(6, 10))

    [declined] = mails(fed, IVANOV, "notice", "BG-2026-E1/1")
    assert subject(declined) == "[BG-2026-E1/1] Ivan Ivanov – John Smith: Ремито е отказано"
    assert "John Smith отказа" in text_of(declined)
    # the one who declined hears that it was done
    [done] = mails(fed, SMITH, "notice", "BG-2026-E1/1")
    assert subject(done) == "[BG-2026-E1/1] Ivan Ivanov – John Smith: Draw offer declined"

    # resignation: the game is over for both players and the director, each in their language
    # the resigner reads of it in the second person, the opponent and the TD by colour
    endings = {SMITH: "has ended: 1-0 (Black resigns)", PETROV: "окончена: 1-0 (вы сдались)"}
    endings[TD] = "завърши: 1-0 (черните се предават)"
    for address in (SMITH, PETROV, TD):
        [over] = mails(fed, address, "game-over", "BG-2026-E1/2")
        assert header(over, "X-Mailbot-Result") == "1-0"
        assert endings[address] in text_of(over)
        record = pgn_in(over)
        assert record.headers["Result"] == "1-0"
        assert [m.uci() for m in record.mainline_moves()] == ["e2e4"]

    help_mail = reply_to_message(fed, PETROV, helped)
    assert header(help_mail, "X-Mailbot-Event") == "notice"
    assert subject(help_mail) == "[BG-2026-E1] Как писать арбитру"
    assert "ничья" in text_of(help_mail)

    # the draw offer now comes from Smith with his move; Ivanov asks for the status
    fed.write(SMITH, "1... e7-e5\ndraw", at(7, 9), reply_to=offer)
    asked = fed.write(IVANOV, "status", at(7, 9), subject=g3)
    fed.write(IVANOV, "2. g2-g4", at(7, 9), subject=g3)
    fed.poll(at(7, 10))
    status = reply_to_message(fed, IVANOV, asked)
    assert header(status, "X-Mailbot-Event") == "status"
    assert header(status, "X-Mailbot-Game") == "BG-2026-E1/3"
    text = text_of(status)
    # the game in hand first: whose move, the days used and left, then the other games
    assert text.index("[BG-2026-E1/3]") < text.index("[BG-2026-E1/1]")
    assert "[BG-2026-E1/3] Ivan Ivanov – Pyotr Petrov: Вие сте на ход (2-и ход)." in text
    assert "Последен ход: e7-e5." in text
    assert "Използвали сте 4 дни от 50 до 10-и ход: остават 46 дни." in text
    assert "<table" in html_of(status)
    [offered] = mails(fed, IVANOV, "move", "BG-2026-E1/1")
    assert "John Smith предлага реми" in text_of(offered)

    fed.write(IVANOV, "приемам", at(8, 9), reply_to=offered)
    fed.write(PETROV, "2... Фd8-h4", at(8, 9), subject=g3)
    fed.poll(at(8, 10))
    for address in (IVANOV, SMITH, TD):
        [agreed] = mails(fed, address, "game-over", "BG-2026-E1/1")
        assert header(agreed, "X-Mailbot-Result") == "1/2-1/2"
        assert pgn_in(agreed).headers["Result"] == "1/2-1/2"
        assert [m.uci() for m in pgn_in(agreed).mainline_moves()] == ["e2e4", "e7e5"]
    # mate ends game 3
    mated = {IVANOV: "(черните печелят с мат)", PETROV: "(мат, выиграли чёрные)"}
    mated[TD] = mated[IVANOV]
    for address in (IVANOV, PETROV, TD):
        [mate] = mails(fed, address, "game-over", "BG-2026-E1/3")
        assert header(mate, "X-Mailbot-Result") == "0-1"
        assert mated[address] in text_of(mate)
        record = pgn_in(mate)
        assert record.headers["Result"] == "0-1"
        assert record.end().board().is_checkmate()


# ---------------------------------------------------------------------------
# 9. The command line of the contract


def run_cli(fed: Federation, *args: str) -> tuple[int, str]:
    """``mailbot -c CONFIG ARGS...`` in this process: (exit status, stdout)."""
    assert fed.config_path is not None
    out = io.StringIO()
    code = main(["-c", str(fed.config_path), *args], stdout=out)
    return code, out.getvalue()


@pytest.mark.slow
def test_the_command_line_polls_and_reports(
    store_url: str, federation_of: Make, capsys: pytest.CaptureFixture[str]
) -> None:
    fed = federation_of(store_url)
    assert fed.config_path is not None
    fed.write(IVANOV, "1. e2-e4", at(5, 9), subject="[BG-2026-E1/1] ход")
    code, out = run_cli(fed, "poll", "--once", "--now", "2026-03-05T10:00")
    assert code == 0
    assert "handled=1" in out and "sent=2" in out
    move = fed.last(SMITH)
    assert header(move, "X-Mailbot-Event") == "move"
    # --now without an offset is the tournament's time: 10:00 in Sofia is 08:00 UTC
    assert email.utils.parsedate_to_datetime(header(move, "Date")) == datetime.datetime(
        2026, 3, 5, 8, tzinfo=datetime.UTC
    )

    fed.write(SMITH, "1... e7-e5", at(7, 9), reply_to=move)
    done = mailbot("-c", str(fed.config_path), "poll", "--once", "--now", "2026-03-07T10:00")
    assert done.returncode == 0, done.stderr
    assert "handled=1" in done.stdout
    b = counted_days(datetime.date(2026, 3, 5), datetime.date(2026, 3, 7))
    assert art8_line(
        "bg",
        "1. e2-e4 e7-e5",
        (datetime.date(2026, 3, 5), datetime.date(2026, 3, 6), datetime.date(2026, 3, 7)),
        b,
        first_move_days(datetime.date(2026, 3, 5)),
        b,
    ) in text_of(fed.last(IVANOV))

    code, out = run_cli(fed, "status")
    assert code == 0
    overview = next(line for line in out.splitlines() if "BG-2026-E1/1" in line)
    assert "Ivan Ivanov – John Smith: полуход 2, на ход са белите" in overview  # the event's
    code, out = run_cli(fed, "status", "--language", "en")
    assert code == 0
    overview = next(line for line in out.splitlines() if "BG-2026-E1/1" in line)
    assert "Ivan Ivanov – John Smith: ply 2, White to move" in overview

    code, out = run_cli(fed, "status", "BG-2026-E1/1")
    assert code == 0
    rows = [line.split() for line in out.splitlines() if line.strip()[:1].isdigit()]
    assert ["1", "e4", "2026-03-01", "2026-03-05", "4"] in rows
    assert ["2", "e5", "2026-03-06", "2026-03-07", str(b)] in rows

    code, out = run_cli(fed, "pgn", "BG-2026-E1/1")
    assert code == 0
    record = chess.pgn.read_game(io.StringIO(out))
    assert record is not None
    assert record.headers["White"] == "Ivanov, Ivan"  # Last, First as Scid and ChessBase sort
    assert [m.uci() for m in record.mainline_moves()] == ["e2e4", "e7e5"]

    capsys.readouterr()
    for args in (("status", "BG-2026-E1/9"), ("pgn", "BG-2026-E1/9")):
        code, out = run_cli(fed, *args)
        err = capsys.readouterr().err
        assert code == 2, args
        assert err.count("\n") == 1 and "BG-2026-E1/9" in err, err
        assert out == ""


def test_the_command_line_prints_standings(
    store_url: str, federation_of: Make, capsys: pytest.CaptureFixture[str]
) -> None:
    fed = federation_of(store_url)
    fed.write(PETROV, "сдаюсь", at(5, 9), subject="[BG-2026-E1/3] ход")
    assert fed.poll(at(5, 10)).outcomes == {"handled": 1}
    code, out = run_cli(fed, "standings", "BG-2026-E1")
    assert code == 0, capsys.readouterr().err
    assert "Ivan Ivanov" in out and "Pyotr Petrov" in out
    # wholly in the event's language, or in the one the operator names
    assert "завършени партии: 1 от 3" in out and "Място" in out and "games" not in out
    code, out = run_cli(fed, "standings", "BG-2026-E1", "--language", "en")
    assert code == 0, capsys.readouterr().err
    assert "1 of 3 games finished" in out and "Place" in out and "Място" not in out
