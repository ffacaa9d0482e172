"""What players and directors asked correspondence servers for.

Words written beside a move reach the opponent; ``digest on`` replaces a
mail per move by one a day; what happens to one reader in several games at
once is one message; a director may have a weekly digest of the event.
The desk and the sweep run on a real database; the mail they queue is read
from the outbox (the mail path itself is tested on Dovecot elsewhere).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator

import pytest
from deskbench import BOT, TD, Bench
from sqlalchemy import select

from mailbot.desk.sweep import sweep
from mailbot.store.models import Game, Outbox, Player

UTC = datetime.UTC
START_LIST = """
index: CV-1
name: Conversation cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: en
notation: en
{extra}
director: {{name: Tom Director, email: td@federation.example}}
players:
  - {{id: ann, name: Ann Able, email: ann@example.org}}
  - {{id: bob, name: Bob Bold, email: bob@example.org}}
  - {{id: ivan, name: Иван Иванов, email: ivan@example.org, language: bg,
      notation: bg-cyrillic}}
  - {{id: mira, name: Мира Петрова, email: mira@example.org, language: bg,
      notation: bg-cyrillic, gender: f}}
games:
  - {{white: ann, black: bob}}
  - {{white: ivan, black: ann}}
  - {{white: mira, black: ivan}}
  - {{white: bob, black: mira}}
"""
ANN, BOB, IVAN, MIRA = (f"{k}@example.org" for k in ("ann", "bob", "ivan", "mira"))


def at(day: int, hour: int = 9, month: int = 3) -> datetime.datetime:
    return datetime.datetime(2026, month, day, hour, tzinfo=UTC)


def bench_with(url: str, extra: str = "") -> Bench:
    return Bench(url, START_LIST.format(extra=extra))


@pytest.fixture
def bench(store_url: str) -> Iterator[Bench]:
    b = bench_with(store_url)
    try:
        yield b
    finally:
        b.close()


def run_sweep(b: Bench, now: datetime.datetime) -> None:
    sweep(b.sessions, f"Federation <{BOT}>", now)


def mails(b: Bench, to: str, event: str | None = None, since: int = 0) -> list[Outbox]:
    return [r for r in b.outbox(to, event) if r.id > since]


def last_id(b: Bench) -> int:
    rows = b.outbox()
    return rows[-1].id if rows else 0


# -- words beside the move ----------------------------------------------------


def test_a_greeting_written_with_a_move_reaches_the_opponent(bench: Bench) -> None:
    body = (
        "Hello Bob,\n\nthank you for the game. Here is my first move:\n\n1. e2-e4\n\n"
        "Best wishes from Sofia,\nAnn\n\n-- \nAnn Able, chess club Sofia\n"
    )
    bench.send(ANN, body, at(2), subject="[CV-1/1] move")
    (mail,) = bench.outbox(BOB, "move")
    text = mail.text_body
    assert "Ann Able writes:" in text
    assert "| Hello Bob," in text
    assert "| thank you for the game. Here is my first move:" in text
    assert "| Best wishes from Sofia," in text
    # the move is in the move line, not among the words; the signature stays home
    assert "| 1. e2-e4" not in text and "e2-e4" in text
    assert "chess club Sofia" not in text
    # the sender's own confirmation does not quote them back to themselves
    (accepted,) = bench.outbox(ANN, "move-accepted")
    assert "writes:" not in accepted.text_body


def test_quoted_text_and_the_words_themselves_are_not_forwarded(bench: Bench) -> None:
    bench.send(ANN, "1. e2-e4", at(2), subject="[CV-1/1] move")
    (first,) = bench.outbox(BOB, "move")
    body = "1... e7-e5 draw\n\nOn 2 March the arbiter wrote:\n> your opponent has played 1. e2-e4\n"
    bench.send(BOB, body, at(3), subject="[CV-1/1] Re: move", reply_to=first)
    (answer,) = bench.outbox(ANN, "move")
    assert "writes:" not in answer.text_body
    assert "offers a draw" in answer.text_body


def test_a_bulgarian_player_s_words_reach_a_bulgarian_woman_in_bulgarian(bench: Bench) -> None:
    bench.send(IVAN, "Здравейте,\n\n1. Кg1-f3\n\nПоздрави,\nИван", at(2), subject="[CV-1/2] ход")
    bench.send(ANN, "1... d7-d5", at(3), subject="[CV-1/2] move")
    (to_ivan,) = bench.outbox(IVAN, "move")
    assert "Ann Able" in to_ivan.text_body and "writes" not in to_ivan.text_body
    bench.send(MIRA, "Здравей, Иване!\n\n1. e2-e4", at(2), subject="[CV-1/3] ход")
    (mail,) = bench.outbox(IVAN, "move")[-1:]
    assert "Мира Петрова Ви пише:" in mail.text_body
    assert "| Здравей, Иване!" in mail.text_body


def test_forward_messages_false_keeps_the_words_home(store_url: str) -> None:
    b = bench_with(store_url, "forward_messages: false")
    try:
        b.send(ANN, "Hello Bob!\n\n1. e2-e4\n\nAnn", at(2), subject="[CV-1/1] move")
        (mail,) = b.outbox(BOB, "move")
        assert "Hello Bob" not in mail.text_body and "writes:" not in mail.text_body
    finally:
        b.close()


# -- digest on | off ----------------------------------------------------------


@pytest.mark.slow
def test_digest_on_replaces_the_mail_per_move_by_one_a_day(db_url: str) -> None:
    b = bench_with(db_url)
    try:
        b.send(BOB, "digest on", at(1, 12))
        (answer,) = b.outbox(BOB, "notice")
        assert answer.subject.startswith("[CV-1] Daily digest on")
        assert "one mail a day with all your games" in answer.text_body
        # Bob's opponents move in both his games (in game 4 after Bob's first move)
        b.send(ANN, "Good luck!\n\n1. e2-e4", at(2, 8), subject="[CV-1/1] move")
        b.send(BOB, "1. d2-d4", at(2, 9), subject="[CV-1/4] move")
        b.send(MIRA, "1... Кg8-f6", at(2, 10), subject="[CV-1/4] ход")
        assert b.outbox(BOB, "move") == []  # no mail per move
        assert len(b.outbox(ANN, "move-accepted")) == 1  # the mover hears as before
        before = last_id(b)
        run_sweep(b, at(3, 2))
        (digest,) = mails(b, BOB, "digest", before)
        text = digest.text_body
        assert digest.subject == "[CV-1] Your games on 3.3.2026"
        assert digest.headers["X-Mailbot-Event"] == "digest"
        assert "[CV-1/1] Ann Able – Bob Bold: your move (move 1)." in text
        assert "  1. e2-e4; – – 1.3. – 2.3. = 1 day;" in text  # the art. 8 line
        assert "| Good luck!" in text
        assert "[CV-1/4] Bob Bold – Мира Петрова: your move (move 2)." in text
        assert "  1. d2-d4 Ng8-f6; 2.3. – 3.3. – 2.3. = 0 days;" in text
        assert "left." in text  # the days left to the next control
        # once a day: a second sweep the same day sends nothing, even with news
        b.send(ANN, "2. Ng1-f3", at(3, 8), subject="[CV-1/1] move")  # not Ann's move
        b.send(BOB, "1... e7-e5", at(3, 9), subject="[CV-1/1] move")
        b.send(ANN, "2. Ng1-f3", at(3, 10), subject="[CV-1/1] move")
        before = last_id(b)
        run_sweep(b, at(3, 20))
        assert mails(b, BOB, "digest", before) == []
        run_sweep(b, at(4, 2))
        (second,) = mails(b, BOB, "digest", before)
        assert "  1... e7-e5 2. Ng1-f3; 3.3. – 4.3. – 3.3. = 0 days;" in second.text_body
        assert "Ng8-f6" not in second.text_body  # nothing new in game 4
        # nothing new, no digest
        before = last_id(b)
        run_sweep(b, at(5, 2))
        assert mails(b, BOB, "digest", before) == []
    finally:
        b.close()


def test_digest_off_sends_the_moves_waiting_and_mails_each_move_again(bench: Bench) -> None:
    bench.send(IVAN, "обобщение вкл", at(1, 12))
    (answer,) = bench.outbox(IVAN, "notice")
    assert "Дневното обобщение е включено" in answer.subject
    bench.send(MIRA, "1. e2-e4", at(2), subject="[CV-1/3] ход")
    assert bench.outbox(IVAN, "move") == []
    before = last_id(bench)
    bench.send(IVAN, "обобщение изкл", at(2, 12))
    (digest,) = mails(bench, IVAN, "digest", before)
    assert "[CV-1/3] Мира Петрова – Иван Иванов: Вие сте на ход" in digest.text_body
    assert "  1. e2-e4; – – 1.3. – 2.3. = 1 ден;" in digest.text_body
    (off,) = mails(bench, IVAN, "notice", before)
    assert "Дневното обобщение е изключено" in off.subject
    assert "всеки ход на противниците Ви ще пристига в отделно писмо" in off.text_body
    bench.send(ANN, "1... e7-e5", at(3), subject="[CV-1/2] move")  # not Ann's move
    bench.send(IVAN, "1. e2-e4", at(3, 10), subject="[CV-1/2] ход")
    bench.send(ANN, "1... e7-e5", at(3, 11), subject="[CV-1/2] move")
    assert len(bench.outbox(IVAN, "move")) == 1


def test_a_bare_digest_says_how_it_stands_and_an_ordinary_word_is_no_command(
    bench: Bench,
) -> None:
    bench.send(ANN, "digest", at(1, 12))
    (answer,) = bench.outbox(ANN, "notice")
    assert "Daily digest off" in answer.subject
    assert 'Write "digest on"' in answer.text_body
    with bench.sessions() as session:
        assert not session.scalars(select(Player).where(Player.key == "ann")).one().digest
    bench.send(ANN, "I need time to digest this.\n\n1. e2-e4", at(2), subject="[CV-1/1] move")
    assert len(bench.outbox(BOB, "move")) == 1


# -- one message for what happens together ------------------------------------


def test_a_leave_over_several_games_ends_in_one_mail_per_reader(bench: Bench) -> None:
    bench.send(IVAN, "отпуск 10.3.2026 12.3.2026", at(2))
    run_sweep(bench, at(9))
    before = last_id(bench)
    run_sweep(bench, at(13))
    # Ivan plays games 2 and 3: one message for both
    (ended,) = mails(bench, IVAN, "leave", before)
    assert ended.game_id is None and "X-Mailbot-Game" not in ended.headers
    assert ended.subject == "[CV-1] Отпускът на Иван Иванов приключи (2 партии)"
    assert ended.text_body.count("отпускът Ви от 10.3.2026 до 12.3.2026 приключи") == 1
    assert "== [CV-1/2] Иван Иванов – Ann Able ==" in ended.text_body
    assert "== [CV-1/3] Мира Петрова – Иван Иванов ==" in ended.text_body
    # each opponent has one game with Ivan: one message each, about that game
    for opponent, tag in ((ANN, "CV-1/2"), (MIRA, "CV-1/3")):
        (mail,) = mails(bench, opponent, "leave", before)
        assert mail.headers["X-Mailbot-Game"] == tag


def test_a_withdrawal_is_one_mail_to_the_withdrawn_player_and_one_to_the_director(
    store_url: str,
) -> None:
    b = Bench(store_url, START_LIST.format(extra=""), authserv_id="mx.federation.example")
    try:
        dmarc = [("Authentication-Results",
                  "mx.federation.example; dmarc=pass header.from=federation.example")]  # fmt: skip
        before = last_id(b)
        b.send(TD, "withdraw ivan", at(5), headers=dmarc)
        (to_ivan,) = mails(b, IVAN, "game-over", before)
        assert to_ivan.subject.startswith("[CV-1] ") and "(2 партии)" in to_ivan.subject
        (to_td,) = mails(b, TD, "game-over", before)
        assert to_td.text_body.count("[Event ") == 2
        for opponent in (ANN, MIRA):
            assert len(mails(b, opponent, "game-over", before)) == 1
        with b.sessions() as session:
            results = {g.number: g.result for g in session.scalars(select(Game))}
        assert results[2] is not None and results[3] is not None
    finally:
        b.close()


# -- the director's weekly digest ---------------------------------------------


@pytest.mark.slow
def test_the_director_gets_a_weekly_digest_when_the_tournament_asks(db_url: str) -> None:
    b = bench_with(db_url, "director_digest: true")
    try:
        b.send(ANN, "1. e2-e4", at(2), subject="[CV-1/1] move")
        b.send(IVAN, "отпуск 1.4.2026 10.4.2026", at(3))
        run_sweep(b, at(2, 10))
        (first,) = b.outbox(TD, "digest")
        assert first.subject == "[CV-1] The week in Conversation cup"
        assert "from 1.3.2026 to 2.3.2026: 1 move played, 0 games finished; 4 games in play." in (
            first.text_body
        )
        before = last_id(b)
        run_sweep(b, at(5, 10))  # the same ISO week
        assert mails(b, TD, "digest", before) == []
        # Bob has not answered since 2 March: on 6 April the 40 days are near
        run_sweep(b, at(6, 10, month=4))
        (weekly,) = mails(b, TD, "digest", before)
        text = weekly.text_body
        assert "Deadlines in the next seven days:" in text
        assert "[CV-1/1] Ann Able – Bob Bold: Bob Bold (Black) has not answered for" in text
        # the Whites who never sent a first move lose nothing on 11 April: art. 31's silence
        # needs a repeat, and a first move never sent is never repeated (docs/rules.md 2.4)
        assert text.count("has not answered") == 1, text
        assert "On leave:\n  Иван Иванов: 1.4.2026 – 10.4.2026" in text
        assert "the silence deadline is 13.4.2026" in text
        assert "0 moves played" in text
    finally:
        b.close()


def test_no_director_digest_unless_the_tournament_asks(bench: Bench) -> None:
    run_sweep(bench, at(2, 10))
    run_sweep(bench, at(10, 10))
    assert bench.outbox(TD, "digest") == []
