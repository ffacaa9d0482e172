"""Held orders keep their thread, on SQLite and PostgreSQL (``MAILBOT_TEST_STORE``).

The director's mail client may answer a claim's packet at the bot's plain
address instead of the packet's own reply address, and a packet copied to the
team captains has no reply address of its own: the orders are then held and
the bot asks the director to confirm them. Confirmed, they are carried out as
if they had come through the packet's key: ``confirm`` and ``reject`` decide
the claim of the packet they answered, and ``penalty``, ``forfeit``,
``overstep`` and ``result`` without ``INDEX/N`` act on its game.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator

import pytest
from deskbench import BLACK, BOT, START_LIST, TD, WHITE, Bench
from sqlalchemy import select
from test_order_keys import TEAMS

from mailbot.desk.sweep import sweep
from mailbot.store.models import Game, HeldOrder, Outbox

UTC = datetime.UTC


def start_list(profile: str) -> str:
    return START_LIST.replace("profile: bg-email", f"profile: {profile}", 1)


def on(month: int, day: int, hour: int = 9) -> datetime.datetime:
    return datetime.datetime(2026, month, day, hour, tzinfo=UTC)


#: 51 half-moves to king and queen against the bare king, Black to move: a position
#: of the tablebases (003 part 1 art. 11b).
TO_KQK = (
    "1. a2-a4 b7-b5 2. a4xb5 d7-d5 3. Ra1xa7 Ra8xa7 4. f2-f4 Bc8-b7 5. e2-e4 d5xe4 "
    "6. b5-b6 Qd8-d2 7. Qd1xd2 c7xb6 8. b2-b4 Ra7-a2 9. Qd2-e2 Ra2xc2 10. Qe2xe4 Rc2-c1 "
    "11. Ke1-d2 Rc1-b1 12. Qe4xh7 Rb1xb4 13. Qh7xg7 Bb7xg2 14. Qg7-f7 Ke8-d7 "
    "15. Bf1xg2 Rh8-h2 16. Qf7-f8 Rh2-h1 17. Qf8-g8 Rh1-g1 18. Qg8-b8 Rb4xf4 "
    "19. Qb8xf4 Rg1xg2 20. Kd2-c3 e7-e6 21. Kc3-b4 Rg2-f2 22. Qf4xf2 b6-b5 "
    "23. Kb4xb5 Kd7-c8 24. Qf2-d4 Kc8-b8 25. Qd4-g4 Kb8-a7 26. Qg4xe6"
)


def play(bench: Bench, moves: str, first: datetime.datetime) -> None:
    """The moves, White's and Black's in turn, an hour apart, each by its player."""
    number, colour, when = "", 0, first
    for word in moves.split():
        if word.endswith("."):
            number = word
            continue
        text = f"{number} {word}" if colour == 0 else f"{number[:-1]}... {word}"
        bench.send((WHITE, BLACK)[colour], text, when, subject="[PX-1/1] move")
        colour, when = 1 - colour, when + datetime.timedelta(hours=1)


def packet_to_td(bench: Bench, event: str) -> Outbox:
    (packet,) = bench.outbox(to=TD, event=event)
    assert packet.headers.get("X-Mailbot-Claim"), packet.subject
    return packet


def overstep(store_url: str) -> tuple[Bench, Outbox]:
    """bg-email: White's first move on the 52nd day oversteps; the packet asks."""
    bench = Bench(store_url, start_list("bg-email"))
    bench.send(WHITE, "1. e2-e4", on(4, 21), subject="[PX-1/1] move")
    return bench, packet_to_td(bench, "overstep")


def silence(store_url: str) -> tuple[Bench, Outbox]:
    """bg-email: Black is silent for 40 days after White's first move."""
    bench = Bench(store_url, start_list("bg-email"))
    bench.send(WHITE, "1. e2-e4", on(3, 3), subject="[PX-1/1] move")
    for month, day in ((3, 17), (3, 30), (4, 14)):
        sweep(bench.sessions, bench.desk.policy.sender, on(month, day))
    return bench, packet_to_td(bench, "silence")


@pytest.fixture(scope="module")
def kqk(session_store_urls: Callable[[], str]) -> Iterator[Bench]:
    """iccf-postal: the 51 half-moves of :data:`TO_KQK` played, once per test process."""
    bench = Bench(session_store_urls(), start_list("iccf-postal"))
    play(bench, TO_KQK, on(3, 2, 0))
    yield bench
    bench.close()


def draw(store_url: str, kqk: Bench) -> tuple[Bench, Outbox]:
    """iccf-postal: Black, to move in a position of the tablebases, claims a draw."""
    bench = kqk.copy(store_url)
    bench.send(BLACK, "claim", on(3, 6), subject="[PX-1/1] claim")
    (packet,) = [r for r in bench.outbox(to=TD) if r.headers.get("X-Mailbot-Claim")]
    return bench, packet


def tablebase(store_url: str, kqk: Bench) -> tuple[Bench, Outbox]:
    """iccf-postal: White claims a win by the tablebases."""
    bench = kqk.copy(store_url)
    bench.send(WHITE, "claim win", on(3, 6), subject="[PX-1/1] claim")
    (packet,) = [r for r in bench.outbox(to=TD) if r.headers.get("X-Mailbot-Claim")]
    return bench, packet


def complaint(store_url: str) -> tuple[Bench, Outbox]:
    """bg-email: White complains about Black's first move."""
    bench = Bench(store_url, start_list("bg-email"))
    play(bench, "1. e2-e4 e7-e5", on(3, 2))
    bench.send(WHITE, "complaint 1", on(3, 3), subject="[PX-1/1] complaint")
    (packet,) = [r for r in bench.outbox(to=TD) if r.headers.get("X-Mailbot-Claim")]
    return bench, packet


def team(store_url: str) -> tuple[Bench, Outbox]:
    """A team event: the overstep packet goes to the director with a copy to the
    captain, so it has no reply address of its own."""
    bench = Bench(store_url, TEAMS)
    for player in ("a1", "a2", "b1", "b2"):  # the one who has White in TM-1/1 moves
        bench.send(f"{player}@example.org", "1. e2-e4", on(4, 21), subject="[TM-1/1] move")
    packet = packet_to_td(bench, "overstep")
    assert packet.cc_addrs == ["cap-a@example.org"] and "Reply-To" not in packet.headers
    return bench, packet


#: The packets of a game of their own, each made in the test's database
PACKETS: dict[str, Callable[[str], tuple[Bench, Outbox]]] = {
    "overstep": overstep,
    "silence": silence,
    "complaint": complaint,
    "team": team,
}
#: The packets of the game :func:`kqk` played, each made in a copy of it
PLAYED: dict[str, Callable[[str, Bench], tuple[Bench, Outbox]]] = {
    "draw": draw,
    "tablebase": tablebase,
}
#: Every packet's name
NAMES = (*PACKETS, *PLAYED)
#: Every packet; the played game's go to one test process, which plays it once
KINDS = [
    pytest.param(kind, marks=pytest.mark.xdist_group("held-kqk")) if kind in PLAYED else kind
    for kind in NAMES
]


def ending(bench: Bench, packet: Outbox) -> tuple[str | None, int]:
    """The result and penalty days of the packet's game."""
    number = int(packet.headers["X-Mailbot-Game"].rpartition("/")[2])
    return bench.game(number)


def players_of(bench: Bench, packet: Outbox) -> tuple[str, str]:
    """The addresses of the packet's players."""
    with bench.sessions() as session:
        g = session.get(Game, packet.game_id)
        assert g is not None
        return g.white.email, g.black.email


#: What each word does to the game of each packet: (result, penalty days).
WORDS: dict[str, tuple[str, dict[str, tuple[str | None, int]]]] = {
    "confirm": ("confirm", {
        "overstep": ("0-1", 0), "silence": ("1-0", 0), "draw": ("1/2-1/2", 0),
        "tablebase": ("1-0", 0), "complaint": (None, 10), "team": ("0-1", 0),
    }),
    "reject": ("reject", {
        "overstep": (None, 0), "silence": (None, 0), "draw": (None, 0),
        "tablebase": (None, 0), "complaint": (None, 5), "team": (None, 0),
    }),
    "penalty": ("penalty black 5", {kind: (None, 5) for kind in NAMES}),
    "forfeit": ("forfeit black", {kind: ("1-0", 0) for kind in NAMES}),
    # e-mail play has one overstep (it loses); postal play a first one that does not
    "overstep": ("overstep black", {
        "overstep": ("1-0", 0), "silence": ("1-0", 0), "draw": (None, 0),
        "tablebase": (None, 0), "complaint": ("1-0", 0), "team": ("1-0", 0),
    }),
    "result": ("result 1/2-1/2", {kind: ("1/2-1/2", 0) for kind in NAMES}),
}  # fmt: skip


@pytest.fixture
def made() -> Iterator[list[Bench]]:
    benches: list[Bench] = []
    yield benches
    for bench in benches:
        bench.close()


def held_question(bench: Bench) -> Outbox:
    asked = bench.outbox(to=TD)[-1]
    assert "X-Mailbot-Held" in asked.headers, asked.subject
    return asked


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("word", WORDS)
@pytest.mark.slow
def test_a_held_answer_to_a_packet_is_carried_out_on_its_game_when_confirmed(
    store_url: str, made: list[Bench], kind: str, word: str, request: pytest.FixtureRequest
) -> None:
    if kind in PLAYED:
        bench, packet = PLAYED[kind](store_url, request.getfixturevalue("kqk"))
    else:
        bench, packet = PACKETS[kind](store_url)
    made.append(bench)
    order, effects = WORDS[word]
    before = ending(bench, packet)
    told = {address: len(bench.outbox(to=address)) for address in players_of(bench, packet)}
    # the director's client answers the packet at the bot's plain address: held
    bench.send(TD, f"{order}\n\nTom", on(5, 1), reply_to=packet, to=BOT)
    asked = held_question(bench)
    assert order in asked.text_body
    assert ending(bench, packet) == before
    bench.send(TD, "Confirm.", on(5, 1, 12), reply_to=asked)
    answer = bench.outbox(to=TD)[-1]
    assert answer.subject.endswith("Your orders")
    assert "not done" not in answer.text_body, answer.text_body
    assert packet.headers["X-Mailbot-Game"] in answer.text_body
    assert ending(bench, packet) == effects[kind]
    # the players hear of it
    for address, count in told.items():
        assert len(bench.outbox(to=address)) > count, address
    with bench.sessions() as session:
        (kept,) = session.scalars(select(HeldOrder)).all()
        assert (kept.status, kept.answered_id) == ("confirmed", packet.id)


def test_a_confirm_to_an_overstep_packet_held_and_confirmed_ends_the_game(
    store_url: str, made: list[Bench]
) -> None:
    """The director answers ``confirm`` at the bot's plain address: the bot holds it and
    asks; the director confirms; the overstep is recorded, as through the packet's key."""
    bench, packet = overstep(store_url)
    made.append(bench)
    bench.send(TD, "confirm", on(4, 22), reply_to=packet, to=BOT)
    asked = held_question(bench)
    assert f'They answer the arbiter\'s message "{packet.subject}"' in asked.text_body
    bench.send(TD, "confirm", on(4, 22, 12), reply_to=asked)
    answer = bench.outbox(to=TD)[-1]
    assert "- PX-1/1: White lost on time, 0-1" in answer.text_body, answer.text_body
    assert "not done" not in answer.text_body
    assert bench.game(1) == ("0-1", 0)
    for address in (WHITE, BLACK):
        (over,) = bench.outbox(to=address, event="game-over")
        assert over.headers["X-Mailbot-Result"] == "0-1"


def test_the_postal_second_overstep_held_and_confirmed_ends_the_game(
    store_url: str, made: list[Bench]
) -> None:
    """bg-post: a first overstep (31 days on move 1) lets play go on; the second (32 days
    of the new count) goes to the director, whose held ``confirm`` ends the game."""
    bench = Bench(store_url, start_list("bg-post"))
    made.append(bench)
    bench.send(WHITE, "1. e2-e4", on(4, 2), subject="[PX-1/1] move")
    bench.send(BLACK, "1... e7-e5", on(4, 3), subject="[PX-1/1] move")
    assert bench.game(1) == (None, 0)
    bench.send(WHITE, "2. Ng1-f3", on(5, 5), subject="[PX-1/1] move")
    first, second = bench.outbox(to=TD, event="overstep")
    assert "First" in first.subject and "First" not in second.subject
    bench.send(TD, "confirm", on(5, 6), reply_to=second, to=BOT)
    asked = held_question(bench)
    bench.send(TD, "confirm", on(5, 6, 12), reply_to=asked)
    assert "not done" not in bench.outbox(to=TD)[-1].text_body
    assert bench.game(1) == ("0-1", 0)
    for address in (WHITE, BLACK):
        (over,) = bench.outbox(to=address, event="game-over")
        assert over.headers["X-Mailbot-Result"] == "0-1"


@pytest.mark.parametrize("word", ["penalty", "forfeit", "overstep", "result"])
def test_an_order_through_the_packets_key_takes_its_game_from_the_packet(
    store_url: str, made: list[Bench], word: str
) -> None:
    bench, packet = silence(store_url)
    made.append(bench)
    order, effects = WORDS[word]
    assert "Reply-To" in packet.headers
    bench.send(TD, order, on(4, 15), reply_to=packet)
    answer = bench.outbox(to=TD)[-1]
    assert answer.subject.endswith("Your orders")
    assert "not done" not in answer.text_body, answer.text_body
    assert bench.game(1) == effects["silence"]


ANSWERS = {
    "en": 'They answer the arbiter\'s message "{}"',
    "bg": "Те са отговор на писмото на арбитъра „{}“",
    "ru": "Они отвечают на письмо арбитра «{}»",
}


@pytest.mark.parametrize("language", ANSWERS)
def test_the_question_names_the_message_the_held_orders_answer(
    store_url: str, made: list[Bench], language: str
) -> None:
    text = start_list("bg-email").replace("language: en\n", f"language: {language}\n", 1)
    bench = Bench(store_url, text)
    made.append(bench)
    bench.send(WHITE, "1. e2-e4", on(4, 21), subject="[PX-1/1] move")
    packet = packet_to_td(bench, "overstep")
    bench.send(TD, "confirm", on(4, 22), reply_to=packet, to=BOT)
    assert ANSWERS[language].format(packet.subject) in held_question(bench).text_body
    # an order that answers nothing of the bot's says nothing of it
    bench.send(TD, "penalty PX-1/2 white 5", on(4, 23), to=BOT)
    assert ANSWERS[language].partition("{")[0] not in held_question(bench).text_body
