"""One mail per reader per pass: what a sweep, or the messages of one poll, tell one
reader about several games goes as one message with a part per game, in the
reader's language; move mails, claims, held orders and answers to the reader's
own message keep a message per game.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator

import pytest
from deskbench import TD, Bench

from mailbot.desk.sweep import sweep
from mailbot.mail.inbox import Fetched
from mailbot.store.models import Outbox

SAM, ANN, BOB, CY = (
    "sam@example.org",
    "ann@example.org",
    "bob@example.org",
    "cy@example.org",
)
BOT = "Federation CC <bot@federation.example>"
UTC = datetime.UTC


def start_list(language: str) -> str:
    return f"""
index: OM-1
name: One mail cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: {language}
notation: en
director: {{name: Tom Director, email: {TD}}}
players:
  - {{id: sam, name: Sam Silent, email: {SAM}, language: {language}, gender: m}}
  - {{id: ann, name: Ann Able, email: {ANN}}}
  - {{id: bob, name: Bob Brisk, email: {BOB}}}
  - {{id: cy, name: Cy Quick, email: {CY}}}
games:
  - {{white: ann, black: sam}}
  - {{white: bob, black: sam}}
  - {{white: cy, black: sam}}
"""


def at(day: int, hour: int = 9) -> datetime.datetime:
    return datetime.datetime(2026, 3, day, hour, tzinfo=UTC)


#: How each language greets the director and names three games.
GREETING = {"en": "Dear Tom Director,", "bg": "Уважаеми Tom Director,", "ru": "Уважаем"}
THREE = {"en": "3 games", "bg": "3 партии", "ru": "3 партии"}


@pytest.fixture(params=["en", "bg", "ru"])
def bench(request: pytest.FixtureRequest, store_url: str) -> Iterator[Bench]:
    b = Bench(store_url, start_list(request.param))
    b.language = request.param  # type: ignore[attr-defined]
    yield b
    b.close()


def three_moves(b: Bench) -> None:
    """Sam's three opponents move on 2 March, in one poll (one batch of messages)."""
    raws = [
        b.message(ANN, "1. e2-e4", subject="[OM-1/1] move"),
        b.message(BOB, "1. d2-d4", subject="[OM-1/2] move"),
        b.message(CY, "1. c2-c4", subject="[OM-1/3] move"),
    ]
    fetched = [Fetched("INBOX", 1, uid, raw, at(2)) for uid, raw in enumerate(raws, 1)]
    b.desk.receive_all(fetched, at(2, 10))


def tags(row: Outbox) -> list[str]:
    return [tag for tag in ("OM-1/1", "OM-1/2", "OM-1/3") if f"[{tag}]" in row.text_body]


def test_move_mails_stay_one_per_game(bench: Bench) -> None:
    three_moves(bench)
    moves = bench.outbox(SAM, "move")
    assert [r.headers["X-Mailbot-Game"] for r in moves] == ["OM-1/1", "OM-1/2", "OM-1/3"]
    assert [r.game_id is not None for r in moves] == [True] * 3
    assert all(r.subject.startswith(f"[{r.headers['X-Mailbot-Game']}] ") for r in moves)


def test_three_repeats_of_one_sweep_go_as_one_mail_and_one_copy(bench: Bench) -> None:
    language = bench.language  # type: ignore[attr-defined]
    three_moves(bench)
    for day in (10, 20, 25):
        sweep(bench.sessions, BOT, at(day))
    (repeat,) = bench.outbox(SAM, "repeat")
    assert repeat.to_addrs == [SAM]
    assert tags(repeat) == ["OM-1/1", "OM-1/2", "OM-1/3"]
    # a part per game, each with its own move and board
    assert [line for line in repeat.text_body.splitlines() if line.startswith("== ")] == [
        "== [OM-1/1] Ann Able – Sam Silent ==",
        "== [OM-1/2] Bob Brisk – Sam Silent ==",
        "== [OM-1/3] Cy Quick – Sam Silent ==",
    ]
    for move in ("e2-e4", "d2-d4", "c2-c4"):
        assert move in repeat.text_body
    assert repeat.subject.startswith("[OM-1] ") and THREE[language] in repeat.subject
    assert "X-Mailbot-Game" not in repeat.headers and repeat.game_id is None
    assert repeat.text_body.count("Sam Silent,") == 1  # the greeting once
    (copy,) = bench.outbox(TD, "repeat")
    assert copy.to_addrs == [TD]
    assert tags(copy) == ["OM-1/1", "OM-1/2", "OM-1/3"]
    assert copy.text_body.startswith(GREETING[language])
    assert "Tom Director" in copy.text_body.splitlines()[0]
    # the sweep sends each repeat once
    sweep(bench.sessions, BOT, at(26))
    assert len(bench.outbox(SAM, "repeat")) == len(bench.outbox(TD, "repeat")) == 1


def test_a_leave_over_two_games_is_confirmed_once_naming_both(bench: Bench) -> None:
    language = bench.language  # type: ignore[attr-defined]
    bench.send(SAM, "resign", at(2), subject="[OM-1/3] resign")  # the leave stops two games
    assert bench.game(3)[0] is not None
    bench.send(SAM, "leave 2026-03-10 2026-03-20", at(3), subject="[OM-1/1] leave")
    (confirmation,) = bench.outbox(SAM, "leave")
    assert tags(confirmation) == ["OM-1/1", "OM-1/2"]
    assert confirmation.headers["In-Reply-To"]  # the answer to the request, in its thread
    (copy,) = bench.outbox(TD, "leave")
    assert tags(copy) == ["OM-1/1", "OM-1/2"]
    assert copy.text_body.startswith(GREETING[language])
    assert "Tom Director" in copy.text_body.splitlines()[0]
    # each opponent hears of it once, in the game's own mail
    for opponent, tag in ((ANN, "OM-1/1"), (BOB, "OM-1/2")):
        (told,) = bench.outbox(opponent, "leave")
        assert told.headers["X-Mailbot-Game"] == tag
    assert bench.outbox(CY, "leave") == []


STRANGERS = ("eve@example.net", "mallory@example.net", "trent@example.net")


def strangers_write(b: Bench, together: bool) -> None:
    """Three strangers write about the three games: in one poll (one batch of
    messages), or each in a poll of its own."""
    raws = [
        b.message(who, f"1. e2-e4 ({n})", subject=f"[OM-1/{n}] move")
        for n, who in enumerate(STRANGERS, 1)
    ]
    fetched = [Fetched("INBOX", 1, uid, raw, at(2)) for uid, raw in enumerate(raws, 1)]
    if together:
        b.desk.receive_all(fetched, at(2, 10))
    else:
        for f in fetched:
            b.desk.receive(f, at(2, 10))


def test_the_notices_of_one_poll_reach_the_director_as_one_mail(bench: Bench) -> None:
    language = bench.language  # type: ignore[attr-defined]
    strangers_write(bench, together=True)
    (copy,) = bench.outbox(TD, "notice")
    assert copy.to_addrs == [TD]
    assert tags(copy) == ["OM-1/1", "OM-1/2", "OM-1/3"]
    assert copy.subject.startswith("[OM-1] ") and THREE[language] in copy.subject
    assert copy.text_body.startswith(GREETING[language])
    assert copy.text_body.count("Tom Director,") == 1
    for who in STRANGERS:
        assert who in copy.text_body
    # each stranger still has an answer of their own
    for who in STRANGERS:
        assert len(bench.outbox(who, "notice")) == 1


def test_the_notices_of_separate_polls_stay_separate(bench: Bench) -> None:
    strangers_write(bench, together=False)
    copies = bench.outbox(TD, "notice")
    assert [r.headers.get("X-Mailbot-Game") for r in copies] == ["OM-1/1", "OM-1/2", "OM-1/3"]
