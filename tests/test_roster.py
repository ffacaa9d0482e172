"""The roster after the start: a player's new address, a new name, a newcomer who
takes over a player's games (003 part 1 art. 9), players with several
addresses, and team captains copied on the director's notices.

By mail through the desk on SQLite (the mail path itself is tested on the
real servers elsewhere) and on the command line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from deskbench import TD, Bench, at
from sqlalchemy import select
from test_cli import _environment, run, write_config  # noqa: F401 (fixture)

from mailbot.publish.report import _running_days
from mailbot.store.engine import make_engine, session_factory
from mailbot.store.kinds import OutboxStatus
from mailbot.store.models import Game, Outbox, Player
from mailbot.store.outbox import dismiss

START = """
index: RO-1
name: Roster cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: en
notation: en
director: {name: Tom Director, email: td@federation.example}
players:
  - {id: white, name: Walter White, email: white@example.org}
  - {id: black, name: Bella Black, email: [black@example.org, bella@home.example], gender: f}
  - {id: grey, name: Gary Grey, email: grey@example.org}
  - {id: ivan, name: Иван Иванов, email: ivan@example.bg, language: bg, notation: bg-cyrillic}
games:
  - {white: white, black: black}
  - {white: grey, black: ivan}
  - {white: ivan, black: black}
"""
WHITE, BLACK, BELLA, GREY, IVAN = (
    "white@example.org",
    "black@example.org",
    "bella@home.example",
    "grey@example.org",
    "ivan@example.bg",
)
DMARC = [
    ("Authentication-Results", "mx.federation.example; dmarc=pass header.from=federation.example")
]


@pytest.fixture
def bench(store_url: str) -> Bench:
    b = Bench(store_url, START, authserv_id="mx.federation.example")
    yield b  # type: ignore[misc]
    b.close()


def since(b: Bench, to: str, first: int, event: str | None = None) -> list[Outbox]:
    return [r for r in b.outbox(to, event) if r.id > first]


def last(b: Bench) -> int:
    rows = b.outbox()
    return rows[-1].id if rows else 0


def test_a_player_writes_from_any_of_their_addresses_and_is_answered_at_the_first(
    bench: Bench,
) -> None:
    bench.send(WHITE, "1. e2-e4", at(2), subject="[RO-1/1] move")
    before = last(bench)

    bench.send(BELLA, "1... e7-e5", at(3), subject="[RO-1/1] move")

    assert bench.plies(1) == ["e2e4", "e7e5"]
    (accepted,) = since(bench, BLACK, before, "move-accepted")
    assert accepted.to_addrs == [BLACK]
    assert since(bench, BELLA, before) == []
    (forwarded,) = since(bench, WHITE, before, "move")
    assert "e7-e5" in forwarded.text_body


def test_a_newcomer_takes_over_the_games_with_their_positions_and_clocks(bench: Bench) -> None:
    bench.send(WHITE, "1. e2-e4", at(2), subject="[RO-1/1] move")
    bench.send(BLACK, "1... e7-e5", at(6), subject="[RO-1/1] move")
    bench.send(WHITE, "2. Ng1-f3", at(7), subject="[RO-1/1] move")
    bench.send(IVAN, "1. e2-e4", at(7), subject="[RO-1/3] ход")
    before = last(bench)

    bench.send(TD, 'replace black bruno "Bruno Brown" bruno@example.org', at(8), headers=DMARC)

    (answer,) = since(bench, TD, before)
    assert "Bruno Brown takes over 2 unfinished games from Bella Black" in answer.text_body
    (welcome,) = since(bench, "bruno@example.org", before, "start")
    assert "You take over the games of Bella Black (003 part 1 art. 9)" in welcome.text_body
    assert "[RO-1/1] Black against Walter White at move 2, your move" in welcome.text_body
    assert "[RO-1/3] Black against Иван Иванов at move 1, your move" in welcome.text_body
    (told,) = since(bench, WHITE, before, "notice")
    assert told.headers["X-Mailbot-Game"] == "RO-1/1"
    assert "Bruno Brown takes the place of Bella Black (003 part 1 art. 9)" in told.text_body
    assert "it is your new opponent's move" in told.text_body
    (told_ivan,) = since(bench, IVAN, before, "notice")
    assert "Bruno Brown заема мястото на Bella Black" in told_ivan.text_body
    (farewell,) = since(bench, BLACK, before, "notice")
    assert "Bruno Brown takes over your 2 unfinished games" in farewell.text_body

    # the game goes on with the newcomer, and Black's days go on counting
    before = last(bench)
    bench.send("bruno@example.org", "2... Nb8-c6", at(9), subject="[RO-1/1] move")
    assert bench.plies(1) == ["e2e4", "e7e5", "g1f3", "b8c6"]
    (forwarded,) = since(bench, WHITE, before, "move")
    assert forwarded.subject.startswith("[RO-1/1] Walter White – Bruno Brown: ")
    assert forwarded.headers["X-Mailbot-Time"] == "white=1; black=4"  # 3 + 1, as without
    # the player replaced no longer plays: a move from her is not taken
    before = last(bench)
    bench.send(BLACK, "3... Ng8-f6", at(10), subject="[RO-1/1] move")
    assert len(bench.plies(1)) == 4
    assert since(bench, WHITE, before, "move") == []


def test_a_replacement_before_the_first_move_is_a_plain_one(bench: Bench) -> None:
    before = last(bench)
    bench.send(TD, 'replace grey gold "Gina Gold" gina@example.org', at(2), headers=DMARC)

    (told,) = since(bench, IVAN, before, "notice")
    assert "Gina Gold заема мястото на Gary Grey." in told.text_body
    assert "чл. 9" not in told.text_body
    bench.send("gina@example.org", "1. d2-d4", at(3), subject="[RO-1/2] move")
    assert bench.plies(2) == ["d2d4"]


def test_a_new_name_reaches_the_player_and_the_opponents(bench: Bench) -> None:
    before = last(bench)
    bench.send(TD, "rename black Bella Black-White", at(2), headers=DMARC)

    (to_her,) = since(bench, BLACK, before, "notice")
    assert "your name in Roster cup from Bella Black to Bella Black-White" in to_her.text_body
    assert {r.headers.get("X-Mailbot-Game") for r in since(bench, WHITE, before)} == {"RO-1/1"}
    (to_ivan,) = since(bench, IVAN, before, "notice")
    assert "вече се казва Bella Black-White" in to_ivan.text_body
    bench.send(WHITE, "1. e2-e4", at(3), subject="[RO-1/1] move")
    (move,) = since(bench, BLACK, before, "move")
    assert move.subject.startswith("[RO-1/1] Walter White – Bella Black-White: ")


def test_bad_roster_orders_are_answered_and_change_nothing(bench: Bench) -> None:
    before = last(bench)
    bench.send(
        TD,
        'address white grey@example.org\nreplace white grey "Gary Two" g2@example.org\n'
        "address nobody x@example.org\naddress white not-an-address",
        at(2),
        headers=DMARC,
    )

    (answer,) = since(bench, TD, before)
    assert "grey@example.org is already the address of grey" in answer.text_body
    assert "grey: a player of that id exists already" in answer.text_body
    assert "nobody" in answer.text_body
    assert "address: give email" in answer.text_body or "not-an-address" in answer.text_body
    with bench.sessions() as session:
        white = session.scalars(select(Player).where(Player.key == "white")).one()
        assert white.email == WHITE
        assert session.scalars(select(Player)).all().__len__() == 4


def test_roster_orders_on_the_command_line(store_url: str, tmp_path: Path) -> None:
    config = str(write_config(tmp_path, store_url))
    Bench(store_url, START).close()

    status, out = run("-c", config, "td", "address", "white", "walter@new.example")
    assert status == 0, out
    assert "Walter White writes from walter@new.example from now on" in out
    status, out = run("-c", config, "td", "replace", "ivan", "petar", "Петър Петров", "p@ex.bg")
    assert status == 0, out
    assert "Петър Петров takes over 2 unfinished games from Иван Иванов" in out

    engine = make_engine(store_url)
    try:
        with session_factory(engine)() as session:
            games = {g.number: (g.white.key, g.black.key) for g in session.scalars(select(Game))}
            assert games == {1: ("white", "black"), 2: ("grey", "petar"), 3: ("petar", "black")}
            rows = session.scalars(select(Outbox)).all()
            addressed = {r.to_addrs[0] for r in rows}
            assert {"walter@new.example", "p@ex.bg", IVAN, GREY, BLACK} <= addressed
            assert WHITE not in addressed
    finally:
        engine.dispose()


TEAMS = """
index: TM-1
name: Team cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: en
notation: en
director: {name: Tom Director, email: td@federation.example}
players:
  - {id: a1, name: Ann One, email: a1@example.org}
  - {id: a2, name: Ann Two, email: a2@example.org}
  - {id: b1, name: Bob One, email: b1@example.org}
  - {id: b2, name: Bob Two, email: b2@example.org}
boards: 2
teams:
  - {id: a, name: Alpha, captain: {name: Cap Alpha, email: cap-a@example.org}, players: [a1, a2]}
  - {id: b, name: Beta, players: [b1, b2]}
games: team-round-robin
"""


def test_a_captain_has_a_copy_of_the_directors_notices_about_the_teams_games(
    store_url: str,
) -> None:
    b = Bench(store_url, TEAMS)
    try:
        b.send("stranger@example.net", "What a game!", at(2), subject="[TM-1/1] kibitz")
        (notice,) = b.outbox(TD, "notice")
        assert notice.headers["X-Mailbot-Game"] == "TM-1/1"
        assert notice.cc_addrs == ["cap-a@example.org"]
    finally:
        b.close()


def test_the_finished_games_of_a_replaced_player_count_for_the_newcomers_place(
    bench: Bench,
) -> None:
    from mailbot.publish.report import crosstable_of, standings_of

    bench.send(IVAN, "1. e2-e4", at(2), subject="[RO-1/3] ход")
    bench.send(BLACK, "resign", at(3), subject="[RO-1/3] move")
    assert bench.game(3)[0] == "1-0"
    bench.send(TD, 'replace black bruno "Bruno Brown" bruno@example.org', at(4), headers=DMARC)

    with bench.sessions() as session:
        g = session.scalars(select(Game).where(Game.number == 1)).one()
        assert g.black.key == "bruno"
        finished = session.scalars(select(Game).where(Game.number == 3)).one()
        assert finished.black.key == "black"  # the game she played stays hers in the PGN
        table = crosstable_of(g.tournament)
        rows = {row.player: row for row in table.rows}
        assert "black" not in rows
        assert (rows["bruno"].played, rows["bruno"].losses, rows["bruno"].unfinished) == (1, 1, 1)
        assert rows["ivan"].points == 1
        text = standings_of(session, "RO-1")
    assert "Bruno Brown" in text and "Bella Black" not in text


def test_a_conditional_reply_leaves_the_mover_to_move_and_both_mails_say_so(
    store_url: str,
) -> None:
    b = Bench(store_url, START.replace("notation: en\n", "notation: en\nconditional_moves: true\n"))
    try:
        b.send(IVAN, "1. e2-e4", at(2), subject="[RO-1/3] ход")
        b.send(BLACK, "1... e7-e5 2. Ng1-f3 Nb8-c6", at(3), subject="[RO-1/3] move")
        before = last(b)

        b.send(IVAN, "2. Кg1-f3", at(5), subject="[RO-1/3] ход")

        assert b.plies(3) == ["e2e4", "e7e5", "g1f3", "b8c6"]
        (to_ivan,) = since(b, IVAN, before, "move-accepted")
        assert "Вариантът на противника Ви отговори: 2... Кb8-c6. Отново е Ваш ред." in (
            to_ivan.text_body
        )
        assert "например „" in to_ivan.text_body
        (to_bella,) = since(b, BLACK, before, "move")
        text = to_bella.text_body
        said = "Your conditional line answered with 2... Nb8-c6: it is the move of Иван Иванов"
        assert said in text
        assert "It is your move" not in text and "Reply to this message with your move" not in text
    finally:
        b.close()


def test_a_newcomer_inherits_the_leave_the_offer_to_the_place_and_no_conditional_line(
    store_url: str,
) -> None:
    b = Bench(
        store_url,
        START.replace("notation: en\n", "notation: en\nconditional_moves: true\n"),
        authserv_id="mx.federation.example",
    )
    try:
        b.send(WHITE, "1. e2-e4 draw", at(2), subject="[RO-1/1] move")
        b.send(IVAN, "1. e2-e4", at(2), subject="[RO-1/3] ход")
        b.send(BLACK, "1... e7-e5 2. Ng1-f3 Nb8-c6", at(3), subject="[RO-1/3] move")
        b.send(BLACK, "leave 2026-03-10 2026-03-20", at(4), subject="[RO-1/1] leave")
        b.send(TD, 'replace black bruno "Bruno Brown" bruno@example.org', at(25), headers=DMARC)
        with b.sessions() as session:
            g1 = session.scalars(select(Game).where(Game.number == 1)).one()
            g3 = session.scalars(select(Game).where(Game.number == 3)).one()
            # White's offer to the place stands; Bella's own line is gone
            assert g1.draw_offer_by == "white"
            assert g3.pending_conditional is None
            bruno = g1.black
            assert [(lv.start.day, lv.end.day) for lv in bruno.leaves] == [(10, 20)]
            # Bella's leave still pauses the place's clock: 4 to 26 March less 11 days
            assert _running_days(g1, at(26)) == 12
        before = last(b)
        b.send("bruno@example.org", "accept", at(26), subject="[RO-1/1] draw")
        assert b.game(1)[0] == "1/2-1/2"
        # Ivan's 2. Nf3 is not answered by the line of the player who left
        b.send(IVAN, "2. Кg1-f3", at(26), subject="[RO-1/3] ход")
        assert b.plies(3) == ["e2e4", "e7e5", "g1f3"]
        assert since(b, "bruno@example.org", before, "move")  # Ivan's move reached Bruno
    finally:
        b.close()


def test_mail_given_up_and_dismissed_goes_to_the_new_address_and_may_warn_again(
    bench: Bench,
) -> None:
    """A TD corrects the address of mail given up and dismissed: it waits to go again,
    not marked dismissed, so that failing again it warns again."""
    bench.send(BLACK, "status", at(2), subject="[RO-1/1] status")
    with bench.sessions.begin() as session:
        row = session.scalars(select(Outbox).where(Outbox.status == "pending")).all()[-1]
        assert BLACK in row.to_addrs
        row.status = OutboxStatus.FAILED
        dismiss(session, row.id, at(2, 10))
        row_id = row.id
    bench.send(TD, "address black bella@home.example", at(3), headers=DMARC)
    with bench.sessions() as session:
        again = session.get(Outbox, row_id)
        assert again is not None
        assert (again.status, again.to_addrs, again.dismissed_at) == (
            "pending", ["bella@home.example"], None,
        )  # fmt: skip


def test_a_new_address_takes_the_mail_still_waiting(bench: Bench) -> None:
    bench.send(BLACK, "status", at(2), subject="[RO-1/1] status")
    with bench.sessions.begin() as session:
        waiting = session.scalars(select(Outbox).where(Outbox.to_addrs.is_not(None))).all()
        assert any(BLACK in r.to_addrs for r in waiting)
    bench.send(TD, "address black bella@home.example", at(3), headers=DMARC)

    with bench.sessions() as session:
        rows = session.scalars(select(Outbox).where(Outbox.status != "sent")).all()
        assert not any(BLACK in r.to_addrs for r in rows)
        assert any("bella@home.example" in r.to_addrs for r in rows)
        bella = session.scalars(select(Player).where(Player.key == "black")).one()
        # her other address became the main one; it is not listed twice
        assert bella.email == "bella@home.example" and bella.addresses == []
