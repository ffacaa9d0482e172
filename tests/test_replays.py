"""What counts as the same message: a reused place in the mailbox does not, and old
mail sent again is answered without being played again.

The desk is fed as the inbox feeds it (folder, UIDVALIDITY, UID, arrival time),
on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import datetime
import email.policy
import email.utils
import itertools
from collections.abc import Iterator
from email.message import EmailMessage

import pytest
from deskbench import BLACK, BOT, WHITE, Bench
from sqlalchemy import select

from mailbot.compose.notifier import Notifier
from mailbot.desk.pipeline import Outcome
from mailbot.mail.inbox import Fetched
from mailbot.rules.events import TournamentStarted
from mailbot.store.models import Tournament
from mailbot.store.startlist import parse_start_list

UTC = datetime.UTC
GAME = "[PX-1/1]"
_ids = itertools.count(1)


def day(n: int, hour: int = 9) -> datetime.datetime:
    return datetime.datetime(2026, 3, n, hour, tzinfo=UTC)


def letter(
    sender: str, body: str, written: datetime.datetime, message_id: str | None = None
) -> bytes:
    """A message as a mail client writes it, ``Date:`` the moment it was written."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = BOT
    msg["Subject"] = f"{GAME} move"
    msg["Date"] = email.utils.format_datetime(written)
    msg["Message-ID"] = message_id or f"<r{next(_ids)}@players.example>"
    msg.set_content(body)
    return msg.as_bytes(policy=email.policy.SMTPUTF8)


@pytest.fixture
def bench(db_url: str) -> Iterator[Bench]:
    b = Bench(db_url)
    yield b
    b.close()


def arrive(
    bench: Bench, raw: bytes, when: datetime.datetime, uid: int, validity: int = 1
) -> Outcome:
    return bench.desk.receive(Fetched("INBOX", validity, uid, raw, when), when)


def answers(bench: Bench, to: str) -> list[str]:
    return [r.subject for r in bench.outbox(to=to)]


def test_a_mailbox_made_anew_that_numbers_new_mail_as_old_loses_nothing(bench: Bench) -> None:
    """The mailbox is made anew and its server hands out the old UIDVALIDITY again:
    new messages get UIDs already seen. They are new all the same."""
    assert arrive(bench, letter(WHITE, "1. e2-e4", day(2)), day(2), uid=1) is Outcome.HANDLED
    assert arrive(bench, letter(BLACK, "1... e7-e5", day(3)), day(3), uid=2) is Outcome.HANDLED
    # the same UIDVALIDITY, UIDs 1 and 2 again, other messages
    assert arrive(bench, letter(WHITE, "2. Ng1-f3", day(4)), day(4), uid=1) is Outcome.HANDLED
    assert arrive(bench, letter(BLACK, "2... Nb8-c6", day(5)), day(5), uid=2) is Outcome.HANDLED
    assert bench.plies(1) == ["e2e4", "e7e5", "g1f3", "b8c6"]
    assert len(bench.outbox(to=BLACK, event="move")) == 2
    # the very same bytes delivered twice are one message, wherever they lie
    late = letter(BLACK, "Thank you for the game so far.", day(6))
    assert arrive(bench, late, day(6), uid=3) is Outcome.HANDLED
    answered = len(bench.outbox(to=BLACK))
    assert arrive(bench, late, day(6), uid=7) is Outcome.DUPLICATE
    assert arrive(bench, late, day(6), uid=3, validity=2) is Outcome.DUPLICATE
    assert len(bench.outbox(to=BLACK)) == answered


def play_three_moves(bench: Bench) -> tuple[bytes, bytes]:
    """1. Ng1-f3 e7-e5 2. e2-e4 Nb8-c6; the first messages of White and Black."""
    white_first = letter(WHITE, "1. Ng1-f3", day(2, 8))
    black_first = letter(BLACK, "1... e7-e5", day(3, 8))
    for uid, (raw, when) in enumerate(
        [
            (white_first, day(2)),
            (black_first, day(3)),
            (letter(WHITE, "2. e2-e4", day(4, 8)), day(4)),
            (letter(BLACK, "2... Nb8-c6", day(5, 8)), day(5)),
        ],
        start=1,
    ):
        assert arrive(bench, raw, when, uid) is Outcome.HANDLED
    return white_first, black_first


def with_new_id(raw: bytes) -> bytes:
    """The same message as a phone's outbox sends it again: a new Message-ID, nothing else."""
    msg = email.message_from_bytes(raw, policy=email.policy.SMTPUTF8)
    msg.replace_header("Message-ID", f"<again{next(_ids)}@players.example>")
    return msg.as_bytes(policy=email.policy.SMTPUTF8)


@pytest.mark.slow
def test_old_mail_sent_again_weeks_later_is_answered_and_plays_nothing(bench: Bench) -> None:
    white_first, black_first = play_three_moves(bench)
    penalties_before = bench.game(1)
    arrive(bench, with_new_id(white_first), day(26), uid=10)
    arrive(bench, with_new_id(black_first), day(27), uid=11)
    # no move played (1. Ng1-f3 would be legal again as 3. Ng1-f3), no penalty
    # (1... e7-e5 is impossible now: the pawn stands on e5)
    assert bench.plies(1) == ["g1f3", "e7e5", "e2e4", "b8c6"]
    assert bench.game(1) == penalties_before == (None, 0)
    (to_white,) = [r for r in bench.outbox(to=WHITE) if "again" in r.subject]
    assert to_white.subject == "[PX-1/1] Walter White – Bella Black: Your message of 2.3.2026 again"
    assert "repeats, word for word, your message received on 2.3.2026" in to_white.text_body
    assert "nothing was done" in to_white.text_body
    (to_black,) = [r for r in bench.outbox(to=BLACK) if "again" in r.subject]
    assert "received on 3.3.2026" in to_black.text_body
    assert "X-Mailbot-Penalty" not in to_black.headers
    # the opponents heard nothing of it
    assert not [r for r in bench.outbox(to=BLACK) if r.event == "move" and r.created_at > day(26)]


@pytest.mark.slow
def test_old_mail_sent_again_in_one_batch_with_new_moves_is_told_apart(bench: Bench) -> None:
    """A pass that reads the old mail in one batch with new moves, and the same words
    written anew in that batch, judges each as it judges them one at a time."""
    white_first, _black_first = play_three_moves(bench)
    when = day(26)
    batch = [
        with_new_id(white_first),  # old mail: nothing played
        letter(WHITE, "Ke1-e2", when - datetime.timedelta(minutes=9)),
        letter(BLACK, "Ke8-e7", when - datetime.timedelta(minutes=8)),
        letter(WHITE, "Ke2-e1", when - datetime.timedelta(minutes=7)),
        letter(BLACK, "Ke7-e8", when - datetime.timedelta(minutes=6)),
        letter(WHITE, "Ke1-e2", when - datetime.timedelta(minutes=5)),  # written anew
    ]
    fetched = [Fetched("INBOX", 1, uid, raw, when) for uid, raw in enumerate(batch, start=10)]
    assert bench.desk.receive_all(fetched, when) == [Outcome.HANDLED] * len(batch)
    assert bench.plies(1) == [
        "g1f3", "e7e5", "e2e4", "b8c6", "e1e2", "e8e7", "e2e1", "e7e8", "e1e2"
    ]  # fmt: skip
    (again,) = [r for r in bench.outbox(to=WHITE) if "again" in r.subject]
    assert "repeats, word for word, your message received on 2.3.2026" in again.text_body


@pytest.mark.parametrize("gap", [datetime.timedelta(days=1), datetime.timedelta(minutes=3)])
@pytest.mark.slow
def test_the_same_words_written_anew_are_a_new_move(bench: Bench, gap: datetime.timedelta) -> None:
    """Kings that shuttle: White writes "Ke1-e2" twice in one game, each when it is
    written (a day apart, or minutes apart when both players sit at their mail),
    and both times it is played."""
    moves = ["e2-e4", "e7-e5", "Ke1-e2", "Ke8-e7", "Ke2-e1", "Ke7-e8", "Ke1-e2", "Ke8-e7"]
    for uid, text in enumerate(moves, start=1):
        sender = WHITE if uid % 2 else BLACK
        when = day(2) + uid * gap
        raw = letter(sender, text, when - datetime.timedelta(seconds=30))
        assert arrive(bench, raw, when, uid) is Outcome.HANDLED
    assert bench.plies(1) == [
        "e2e4", "e7e5", "e1e2", "e8e7", "e2e1", "e7e8", "e1e2", "e8e7"
    ]  # fmt: skip
    assert not [r for r in bench.outbox() if "again" in r.subject]


def test_a_line_break_in_a_name_is_one_space() -> None:
    start = parse_start_list(
        """
index: NL-1
name: "National\\ne-mail championship"
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: en
notation: en
director: {name: "Tom\\nDirector", email: td@federation.example}
players:
  - {id: a, name: "Ann\\r\\nAdams", email: a@example.org}
  - {id: b, name: Bob Brown, email: b@example.org}
games: round-robin
"""
    )
    assert start.name == "National e-mail championship"
    assert start.director.name == "Tom Director"
    assert [p.name for p in start.players] == ["Ann Adams", "Bob Brown"]


def test_the_start_mail_of_an_event_named_on_two_lines_has_one_subject_line(db_url: str) -> None:
    text = """
index: NL-2
name: "National\\n  e-mail\\nchampionship"
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: en
notation: en
director: {name: Tom Director, email: td@federation.example}
players:
  - {id: a, name: "Ann\\nAdams", email: a@example.org}
  - {id: b, name: Bob Brown, email: b@example.org}
games: round-robin
"""
    bench = Bench(db_url, text)
    try:
        with bench.sessions.begin() as session:
            t = session.scalars(select(Tournament)).one()
            assert t.name == "National e-mail championship"
            Notifier(session, f"Federation CC <{BOT}>", day(1)).tell(TournamentStarted(t.id))
        (start,) = bench.outbox(to="a@example.org")
        assert "\n" not in start.subject
        assert "National e-mail championship" in start.text_body
        assert not start.text_body.lstrip().startswith("e-mail")
    finally:
        bench.close()
