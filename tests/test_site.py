"""The published web pages: what a reader of ``index.html`` and a game's page sees.

A small tournament is played through the desk (deskbench: the real desk on
SQLite, no mail servers): a resignation after an impossible move (+5 days), a
draw by agreement, a checkmate and a game still being played. The pages are
read back as a reader would read them (their tables, their links), and a real
headless Chromium loads them from disk.
"""

from __future__ import annotations

import base64
import collections
import contextlib
import datetime
import fcntl
import hashlib
import html.parser
import io
import json
import os
import re
import select
import shutil
import struct
import subprocess
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
import yaml
from deskbench import Bench
from sqlalchemy import select as select_rows
from sqlalchemy.orm import Session

from mailbot.compose.catalogue import template_dir
from mailbot.publish.report import UnknownGameError
from mailbot.publish.site import BOARD_COLOURS, write_site
from mailbot.store.engine import make_engine, session_factory
from mailbot.store.models import Base, Player, Team
from mailbot.store.startlist import parse_start_list
from mailbot.store.tournaments import import_start_list

pytestmark = pytest.mark.xdist_group("site")

UTC = datetime.UTC
START_LIST = """
index: WEB-1
name: Web cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: {language}
notation: en
director: {{name: Tom Director, email: td@federation.example}}
players:
  - {{id: ann, name: Ann Able, email: ann@example.org}}
  - {{id: bob, name: "{bob}", email: bob@example.org}}
  - {{id: cid, name: Cid Cole, email: cid@example.org}}
  - {{id: dan, name: Dan Dale, email: dan@example.org}}
games:
  - {{white: ann, black: bob}}
  - {{white: bob, black: cid}}
  - {{white: cid, black: ann}}
  - {{white: dan, black: ann}}
"""
ANN, BOB, CID, DAN = (f"{k}@example.org" for k in ("ann", "bob", "cid", "dan"))
HOSTILE = "<script>alert(1)</script>"


def at(day: int, hour: int = 9) -> datetime.datetime:
    return datetime.datetime(2026, 3, day, hour, tzinfo=UTC)


NOW = at(12)


def play_web_cup(db_url: str, language: str = "en", bob: str = "Bob Bold") -> None:
    """Game 1 Ann–Bob: Bob tries an impossible move (+5 days), then resigns;
    game 2 Bob–Cid: a draw offered with the first move and accepted; game 3
    Cid–Ann: the fool's mate; game 4 Dan–Ann: 1. c4, Ann to move."""
    bench = Bench(db_url, START_LIST.format(language=language, bob=bob))
    try:
        for sender, text, when, number in [
            (CID, "1. f2-f3", at(2), 3),
            (ANN, "1. e2-e4", at(3), 1),
            (ANN, "1... e7-e5", at(3, 10), 3),
            (BOB, "1. d2-d4 draw", at(4), 2),
            (CID, "2. g2-g4", at(4, 10), 3),
            (BOB, "1... Ke8-e7", at(5), 1),
            (CID, "accept", at(5), 2),
            (BOB, "1... e7-e5", at(6), 1),
            (ANN, "2... Qd8-h4", at(6, 10), 3),
            (DAN, "1. c2-c4", at(7), 4),
            (ANN, "2. Ng1-f3", at(8), 1),
            (BOB, "resign", at(10), 1),
        ]:
            bench.send(sender, text, when, subject=f"[WEB-1/{number}] move")
    finally:
        bench.close()


def publish(
    db_url: str, folder: Path, index: str = "WEB-1", now: datetime.datetime = NOW
) -> list[Path]:
    engine = make_engine(db_url)
    try:
        with session_factory(engine)() as session:
            return write_site(session, index, folder, now)
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def web_cup(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """The English tournament played and published: (database URL, site folder)."""
    root = tmp_path_factory.mktemp("web-cup")
    url = f"sqlite:///{root / 'mailbot.db'}"
    play_web_cup(url)
    publish(url, root / "site")
    return url, root / "site"


@pytest.fixture(scope="module")
def site(web_cup: tuple[str, Path]) -> Path:
    return web_cup[1]


@pytest.fixture(scope="module")
def bulgarian_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same tournament in Bulgarian, Bob called ``<script>...``, countries and ratings."""
    root = tmp_path_factory.mktemp("bg-cup")
    url = f"sqlite:///{root / 'mailbot.db'}"
    play_web_cup(url, "bg", HOSTILE)
    engine = make_engine(url)
    try:
        with session_factory(engine).begin() as session:
            for player in session.scalars(select_rows(Player)):
                player.country, player.rating = {
                    "ann": ("BUL", 2210),
                    "bob": ("ROU", None),
                    "cid": (None, 1985),
                }.get(player.key, (None, None))
    finally:
        engine.dispose()
    publish(url, root / "site")
    return root / "site"


# ---------------------------------------------------------------------------
# Reading a page as a reader does


class Page(html.parser.HTMLParser):
    """A page's tables (by class: rows of cell texts), links and visible text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[tuple[str, list[list[str]]]] = []
        self.links: list[str] = []
        self.headings: list[str] = []
        #: The text of each ``<pre>``, as it is.
        self.pre: list[str] = []
        self._words: list[str] = []
        self._cell: list[str] | None = None
        self._heading: list[str] | None = None
        self._hidden = 0
        self._in_pre = False
        self.feed(text)
        self.close()
        self.text = " ".join(" ".join(self._words).split())

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "table":
            self.tables.append((attributes.get("class") or "", []))
        elif tag == "tr":
            self.tables[-1][1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag in ("h1", "h2", "h3"):
            self._heading = []
        elif tag == "pre" and not self._hidden:
            self.pre.append("")
            self._in_pre = True
        elif tag == "a" and attributes.get("href"):
            self.links.append(str(attributes["href"]))
        elif tag in ("style", "svg", "title"):
            self._hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][1][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag in ("h1", "h2", "h3") and self._heading is not None:
            self.headings.append(" ".join("".join(self._heading).split()))
            self._heading = None
        elif tag in ("style", "svg", "title"):
            self._hidden -= 1
        elif tag == "pre":
            self._in_pre = False

    def handle_data(self, data: str) -> None:
        if self._hidden:
            return
        self._words.append(data)
        if self._in_pre:
            self.pre[-1] += data
        if self._cell is not None:
            self._cell.append(data)
        if self._heading is not None:
            self._heading.append(data)

    def table(self, kind: str) -> list[list[str]]:
        (rows,) = [rows for cls, rows in self.tables if cls == kind]
        return rows


def read(path: Path) -> Page:
    return Page(path.read_text(encoding="utf-8"))


def pgn_games(path: Path) -> list[chess.pgn.Game]:
    games = []
    with path.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            assert game.errors == []
            games.append(game)
    return games


# ---------------------------------------------------------------------------
# The tournament page


def test_the_files_of_the_site(site: Path) -> None:
    names = sorted(p.name for p in site.iterdir())
    assert names == sorted(
        ["index.html", "game-1.html", "game-2.html", "game-3.html", "game-4.html", "WEB-1.pgn"]
    )


def test_the_crosstable_has_points_sonneborn_berger_and_games_left(site: Path) -> None:
    page = read(site / "index.html")
    assert page.headings[:2] == ["Web cup", "Crosstable"]
    head, *rows = page.table("cross")
    assert head == ["Place", "No.", "Player", "1", "2", "3", "4",
                    "Points", "Played", "Left", "+", "=", "−", "SB"]  # fmt: skip
    assert rows == [
        ["1", "1", "Ann Able", "×", "1", "1", "·", "2", "2", "1", "2", "0", "0", "1"],
        ["2-3", "2", "Bob Bold", "0", "×", "½", "", "½", "2", "0", "0", "1", "1", "¼"],
        ["2-3", "3", "Cid Cole", "0", "½", "×", "", "½", "2", "0", "0", "1", "1", "¼"],
        ["4", "4", "Dan Dale", "·", "", "", "×", "0", "0", "1", "0", "0", "0", "0"],
    ]
    # each result in the table leads to its game
    assert page.links.count("game-1.html") == 3  # two marks and the games list
    assert "3 of 4 games finished" in page.text
    assert "Updated 12.3.2026 11:00 (Europe/Sofia)" in page.text


def test_the_index_gives_every_game_s_state(site: Path) -> None:
    head, *rows = read(site / "index.html").table("games")
    assert head == ["Game", "White", "Black", "Moves", "Result", "State"]
    assert rows == [
        ["WEB-1/1", "Ann Able", "Bob Bold", "2", "1-0", "Black resigned"],
        ["WEB-1/2", "Bob Bold", "Cid Cole", "1", "½-½", "Draw agreed"],
        ["WEB-1/3", "Cid Cole", "Ann Able", "2", "0-1", "Black won by checkmate"],
        ["WEB-1/4", "Dan Dale", "Ann Able", "1", "", "Black to move, 4 days on this move"],
    ]


def test_an_unknown_tournament_is_refused(web_cup: tuple[str, Path], tmp_path: Path) -> None:
    with pytest.raises(UnknownGameError, match="no tournament NOPE"):
        publish(web_cup[0], tmp_path / "site", "NOPE")
    assert not (tmp_path / "site").exists()


# ---------------------------------------------------------------------------
# A game's page


def test_a_finished_game_shows_its_players_result_and_how_it_ended(site: Path) -> None:
    page = read(site / "game-1.html")
    assert page.headings[0] == "WEB-1/1: Ann Able – Bob Bold"
    assert page.table("players") == [["", "Player"], ["White", "Ann Able"], ["Black", "Bob Bold"]]
    assert "Result: 1-0 — Black resigned (ended 10.3.2026)." in page.text
    assert (
        "Result: 0-1 — Black won by checkmate (ended 6.3.2026)." in read(site / "game-3.html").text
    )
    assert "Result: ½-½ — Draw agreed (ended 5.3.2026)." in read(site / "game-2.html").text
    assert "index.html" in page.links


def test_the_moves_carry_their_received_and_sent_dates_and_days(site: Path) -> None:
    assert read(site / "game-1.html").table("moves") == [
        ["No.", "White", "Received", "Sent", "Days", "Black", "Received", "Sent", "Days"],
        ["1.", "e2-e4", "1.3.2026", "3.3.2026", "2", "e7-e5", "4.3.2026", "6.3.2026", "2"],
        ["2.", "Ng1-f3", "7.3.2026", "8.3.2026", "1", "", "", "", ""],
    ]


def test_both_clocks_with_the_penalties(site: Path) -> None:
    page = read(site / "game-1.html")
    assert page.table("clocks") == [
        ["", "White", "Black"],
        ["Days used (penalties included)", "3", "7"],
        ["Penalty days", "0", "5"],
    ]
    assert page.table("penalties") == [
        ["Colour", "Days", "Reason", "After half-move", "Date"],
        ["Black", "+5 days", "impossible move", "1", "5.3.2026"],
    ]
    running = read(site / "game-4.html")
    assert "Black to move, 4 days on this move." in running.text
    assert running.table("clocks") == [
        ["", "White", "Black"],
        ["Days used (penalties included)", "6", "0"],
        ["Penalty days", "0", "0"],
        ["Days on the current move", "–", "4 days"],
        ["Next time control", "move 10: 6 of 50 days used, 44 left",
         "move 10: 4 of 50 days used, 46 left"],
    ]  # fmt: skip


def test_a_game_page_counts_the_oversteps(tmp_path: Path) -> None:
    """ICCF postal: 30 days for 10 moves, the second overstep loses. Ann's first
    move after 35 days is one overstep, and so is Bob's silence of 36 days in
    game 2; each page says so beside the clocks."""
    url = f"sqlite:///{tmp_path / 'mailbot.db'}"
    text = START_LIST.replace("profile: bg-email", "profile: iccf-postal")
    bench = Bench(url, text.format(language="en", bob="Bob Bold"))
    try:
        bench.send(ANN, "1. e2-e4", at(1) + datetime.timedelta(days=35), subject="[WEB-1/1] move")
    finally:
        bench.close()
    publish(url, tmp_path / "site", now=at(1) + datetime.timedelta(days=36))
    assert ["Oversteps", "1", "0"] in read(tmp_path / "site" / "game-1.html").table("clocks")
    silent = read(tmp_path / "site" / "game-2.html").table("clocks")
    assert ["Oversteps", "1", "0"] in silent
    assert ["Days on the current move", "36 days", "–"] in silent


def test_orders_held_in_answer_to_the_mail_about_a_game_wait_on_its_page(
    store_url: str, tmp_path: Path
) -> None:
    """The director answers the bot's notice about WEB-1/2 at its plain address with an
    order that names no game: held, it waits for the director on that game's page."""
    bench = Bench(store_url, START_LIST.format(language="en", bob="Bob Bold"))
    try:
        bench.send("fan@example.net", "What a game!", at(2), subject="[WEB-1/2] kibitz")
        notice = bench.outbox(to="td@federation.example")[-1]
        assert notice.headers["X-Mailbot-Game"] == "WEB-1/2"
        bench.send("td@federation.example", "forfeit black", at(3), reply_to=notice,
                   to="bot@federation.example")  # fmt: skip
    finally:
        bench.close()
    publish(store_url, tmp_path / "site")
    waiting = "the director's orders of 3.3.2026 about this game, held until"
    assert waiting in read(tmp_path / "site" / "game-2.html").text
    assert waiting not in read(tmp_path / "site" / "game-1.html").text


def test_the_board_is_inline_svg_with_the_last_move_marked(site: Path) -> None:
    text = (site / "game-3.html").read_text(encoding="utf-8")
    # the final position, and one board for each of the 4 half-moves (``#ply-N``)
    assert text.count("<svg") == 1 + 4 and "<img" not in text
    final = text.index('<figure class="final"')
    svg = text[text.index("<svg", final) : text.index("</svg>", final)]
    for name in ("square light", "square dark", "square dark lastmove"):
        assert f'fill="{BOARD_COLOURS[name]}"' in svg
    # the mate: d8-h4 marked (two dark squares), White's king in check
    assert 'class="square dark lastmove d8"' in svg and 'class="square dark lastmove h4"' in svg
    assert 'class="check"' in svg

    # White at the bottom: rank 1 is drawn below rank 8
    def top(square: str) -> int:
        found = re.search(rf'<rect x="\d+" y="(\d+)"[^>]*class="square [a-z ]*{square}"', svg)
        assert found is not None, square
        return int(found.group(1))

    assert top("a1") > top("a8")
    assert "Position after 2... Qd8-h4#" in read(site / "game-3.html").text
    assert "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3" in text


def test_the_pgn_link_leads_to_the_games(site: Path) -> None:
    page = read(site / "game-1.html")
    (link,) = {href for href in page.links if href.endswith(".pgn")}
    games = pgn_games(site / link)
    assert [g.headers["Result"] for g in games] == ["1-0", "1/2-1/2", "0-1", "*"]
    first = games[0]
    assert (first.headers["White"], first.headers["Black"]) == ("Able, Ann", "Bold, Bob")
    assert [m.uci() for m in first.mainline_moves()] == ["e2e4", "e7e5", "g1f3"]
    assert first.headers["BlackDays"] == "7"
    # the game's own PGN is on its page too
    (text,) = page.pre
    own = chess.pgn.read_game(io.StringIO(text))
    assert own is not None and own.headers["Result"] == "1-0"
    assert link in read(site / "index.html").links


# ---------------------------------------------------------------------------
# Languages, names, safety


def test_a_bulgarian_tournament_has_bulgarian_pages(bulgarian_site: Path) -> None:
    index = read(bulgarian_site / "index.html")
    assert index.headings[1] == "Кръстосана таблица"
    assert index.table("cross")[0][:5] == ["Място", "№", "Състезател", "Държава", "Рейтинг"]
    assert index.table("cross")[1][:5] == ["1", "1", "Ann Able", "BUL", "2210"]
    assert "Черните са на ход, 4 дни на този ход" in index.text
    assert "Завършени партии: 3 от 4" in index.text
    game = read(bulgarian_site / "game-1.html")
    assert "Резултат: 1-0 — Черните се предадоха" in game.text
    assert game.table("moves")[0][:5] == ["№", "Бели", "Получен", "Изпратен", "Дни"]
    assert game.table("penalties")[1] == ["Черни", "+5 дни", "невъзможен ход", "1", "5.3.2026"]
    assert game.table("players")[1:] == [
        ["Бели", "Ann Able", "BUL", "2210"],
        ["Черни", HOSTILE, "ROU", "–"],
    ]
    assert '<html lang="bg">' in (bulgarian_site / "game-1.html").read_text(encoding="utf-8")


def test_a_hostile_name_is_text_on_every_page(bulgarian_site: Path) -> None:
    pages = sorted(bulgarian_site.glob("*.html"))
    for path in pages:
        text = path.read_text(encoding="utf-8")
        assert "<script" not in text.lower(), path.name
    for name in ("index.html", "game-1.html", "game-2.html"):
        text = (bulgarian_site / name).read_text(encoding="utf-8")
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
        assert HOSTILE in read(bulgarian_site / name).text
    # the PGN keeps the name as it is: it is text, not a page
    assert pgn_games(bulgarian_site / "WEB-1.pgn")[0].headers["Black"] == HOSTILE


def test_an_address_in_a_name_stops_neither_the_pages_nor_the_pgn(tmp_path: Path) -> None:
    """A name written with its address used to stop the PGN export, and with it
    the whole site (and the daemon's publishing at every pass): the pages show
    the name as written, the PGN leaves the address out and keeps the rest."""
    url = f"sqlite:///{tmp_path / 'mailbot.db'}"
    written = "Bob Bold <bob.bold@example.net>"
    play_web_cup(url, bob=written)
    files = publish(url, tmp_path / "site")
    assert [f.name for f in files][-1] == "WEB-1.pgn"
    assert written in read(tmp_path / "site" / "index.html").text
    games = pgn_games(tmp_path / "site" / "WEB-1.pgn")
    assert games[0].headers["Black"] == "Bold, Bob"
    assert "@" not in (tmp_path / "site" / "WEB-1.pgn").read_text(encoding="utf-8")


def test_no_url_no_script_and_no_address_in_any_file(site: Path, bulgarian_site: Path) -> None:
    for folder in (site, bulgarian_site):
        for path in folder.iterdir():
            text = path.read_text(encoding="utf-8")
            assert "http://" not in text and "https://" not in text, path
            assert "@example.org" not in text and "td@federation" not in text, path
            if folder is site:
                assert "<script" not in text.lower(), path
            if path.suffix == ".html":
                assert "javascript:" not in text.lower(), path
                assert not re.search(r"<[^>]*\son[a-z]+\s*=", text), path  # no handlers
                # every link is to a file of the site or to a place on the page
                for href in read(path).links:
                    assert href.startswith("#") or (folder / href).is_file(), (path, href)


def test_every_language_has_the_same_labels() -> None:
    labels = yaml.safe_load((template_dir() / "site" / "labels.yaml").read_text("utf-8"))

    def shape(node: Any) -> Any:
        if isinstance(node, dict):
            return {key: shape(value) for key, value in node.items()}
        return len(node) if isinstance(node, list) else "text"

    assert set(labels) == {"en", "bg", "ru"}
    assert shape(labels["en"]) == shape(labels["bg"]) == shape(labels["ru"])


def test_writing_reads_the_store_only_and_gives_the_same_pages(
    web_cup: tuple[str, Path], tmp_path: Path
) -> None:
    url, site = web_cup
    database = Path(url.removeprefix("sqlite:///"))
    before = hashlib.sha256(database.read_bytes()).hexdigest()
    engine = make_engine(url)
    try:
        with session_factory(engine)() as session:
            first = write_site(session, "WEB-1", tmp_path / "a", NOW)
            second = write_site(session, "WEB-1", tmp_path / "b", NOW)
            assert not (session.new or session.dirty or session.deleted)
    finally:
        engine.dispose()
    assert hashlib.sha256(database.read_bytes()).hexdigest() == before
    assert [p.name for p in first] == [p.name for p in second]
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes()
        assert a.read_bytes() == (site / a.name).read_bytes()
    # a day later the days running on Ann's move have grown by one, and the pages
    # written again replace the old ones whole
    publish(url, tmp_path / "a", now=NOW + datetime.timedelta(days=1))
    assert "Black to move, 5 days on this move" in read(tmp_path / "a" / "index.html").text
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == sorted(p.name for p in first)


# ---------------------------------------------------------------------------
# A team event

TEAM_START_LIST = """
index: TEAM-1
name: Team cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: en
notation: en
director: {name: Tom Director, email: td@federation.example}
players:
  - {id: ann, name: Ann Able, email: ann@example.org}
  - {id: bob, name: Bob Bold, email: bob@example.org}
  - {id: cid, name: Cid Cole, email: cid@example.org}
  - {id: dan, name: Dan Dale, email: dan@example.org}
games:
  - {white: ann, black: cid}
  - {white: dan, black: bob}
"""


def build_team_event(session: Session) -> None:
    """Sofia (Ann, Bob) against Varna (Cid, Dan) on two boards: Sofia has White on
    board 1 (004 art. 20). Ann beats Cid, Dan and Bob draw: 1½-½ for Sofia."""
    t = import_start_list(session, parse_start_list(TEAM_START_LIST), at(1))
    sofia, varna = Team(key="sofia", name="Sofia"), Team(key="varna", name="Varna")
    t.teams.extend([sofia, varna])
    session.flush()
    players = {p.key: p for p in t.players}
    for key, team, board in (("ann", sofia, 1), ("bob", sofia, 2),
                             ("cid", varna, 1), ("dan", varna, 2)):  # fmt: skip
        players[key].team_id, players[key].board = team.id, board
    games = {g.number: g for g in t.games}
    for number, board, result, termination in (
        (1, 1, "1-0", "resignation"),
        (2, 2, "1/2-1/2", "draw-agreed"),
    ):
        g = games[number]
        g.round, g.board, g.result, g.termination, g.ended_at = (
            1, board, result, termination, at(20)
        )  # fmt: skip
    session.flush()


def test_a_team_event_shows_the_team_table_and_its_matches(store_url: str, tmp_path: Path) -> None:
    engine = make_engine(store_url)
    Base.metadata.create_all(engine)
    try:
        with session_factory(engine).begin() as session:
            build_team_event(session)
        with session_factory(engine)() as session:
            write_site(session, "TEAM-1", tmp_path, NOW)
    finally:
        engine.dispose()
    page = read(tmp_path / "index.html")
    assert page.headings[1] == "Team standings"
    assert page.table("cross") == [
        ["Place", "No.", "Team", "1", "2", "MP", "GP", "Matches"],
        ["1", "1", "Sofia", "×", "1½", "2", "1½", "1"],
        ["2", "2", "Varna", "½", "×", "0", "½", "1"],
    ]
    assert "Round 1: Sofia – Varna 1½ : ½" in page.headings
    assert page.table("games") == [
        ["Game", "Board", "White", "Black", "Moves", "Result", "State"],
        ["TEAM-1/1", "1", "Ann Able", "Cid Cole", "0", "1-0", "Black resigned"],
        ["TEAM-1/2", "2", "Dan Dale", "Bob Bold", "0", "½-½", "Draw agreed"],
    ]
    assert "#match-1" in page.links
    game = read(tmp_path / "game-2.html")
    assert game.table("players") == [
        ["", "Player", "Team"],
        ["White", "Dan Dale", "Varna"],
        ["Black", "Bob Bold", "Sofia"],
    ]


# ---------------------------------------------------------------------------
# A real browser


def chromium_binary() -> str:
    """Chromium's path; under CI a missing Chromium fails the run, elsewhere it skips."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is not installed: CI must install chromium")
        pytest.skip("Chromium is not installed here (apt-get install chromium)")
    return found


def _above(fd: int, lowest: int) -> int:
    """``fd`` moved to a descriptor number of at least ``lowest``."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, lowest)
    os.close(fd)
    return moved


class DevTools:
    """Headless Chromium driven over the DevTools protocol on a pipe.

    With ``--remote-debugging-pipe`` Chromium reads commands from its file
    descriptor 3 and writes answers and events to 4, each a JSON text ended by
    a NUL byte; nothing but the standard library is needed.
    """

    def __init__(self, binary: str, profile: Path, log: Path) -> None:
        commands_in, self._commands = os.pipe()
        self._answers, answers_out = os.pipe()
        # the child's ends above 4, so that giving it 3 and 4 overwrites neither
        commands_in, answers_out = (_above(fd, 5) for fd in (commands_in, answers_out))
        args = [
            binary,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--remote-debugging-pipe",
            f"--user-data-dir={profile}",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--force-color-profile=srgb",
            "--hide-scrollbars",
            "--mute-audio",
            "about:blank",
        ]
        with log.open("wb") as stderr:
            self.process = subprocess.Popen(
                ["bash", "-c", f'exec "$0" "$@" 3<&{commands_in} 4>&{answers_out}', *args],
                pass_fds=(commands_in, answers_out),
                stdin=subprocess.DEVNULL,
                stdout=stderr,
                stderr=stderr,
            )
        os.close(commands_in)
        os.close(answers_out)
        self._buffer = b""
        self._ids = 0
        self.events: list[dict[str, Any]] = []

    def close(self) -> None:
        with contextlib.suppress(OSError, RuntimeError, TimeoutError):
            self.call("Browser.close", timeout=5)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        os.close(self._commands)
        os.close(self._answers)

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self._answers], [], [], left)
            if ready:
                chunk = os.read(self._answers, 1 << 20)
                if not chunk:
                    raise RuntimeError(f"Chromium closed the pipe (exit {self.process.poll()})")
                self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        parsed: dict[str, Any] = json.loads(message)
        return parsed

    def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session: str | None = None,
        timeout: float = 30.0,
    ) -> dict[str, Any]:
        self._ids += 1
        command: dict[str, Any] = {"id": self._ids, "method": method, "params": params or {}}
        if session is not None:
            command["sessionId"] = session
        os.write(self._commands, json.dumps(command).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            message = self._receive(deadline)
            if message.get("id") != self._ids:
                self.events.append(message)
                continue
            if "error" in message:
                raise RuntimeError(f"{method}: {message['error']}")
            result: dict[str, Any] = message.get("result", {})
            return result

    def wait_for(self, method: str, session: str, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        seen = 0
        while True:
            for event in self.events[seen:]:
                if event.get("method") == method and event.get("sessionId") == session:
                    return event
            seen = len(self.events)
            self.events.append(self._receive(deadline))

    def open(self, url: str) -> str:
        """A new tab showing ``url``, loaded; returns its session."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = str(
            self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        )
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=session)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1200, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
            session,
        )
        self.call("Page.navigate", {"url": url}, session)
        self.wait_for("Page.loadEventFired", session)
        return session

    def evaluate(self, session: str, expression: str) -> Any:
        result = self.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session
        )
        assert "exceptionDetails" not in result, result
        return result["result"].get("value")

    def errors(self, session: str) -> list[str]:
        """What the page reported as errors: console errors, uncaught exceptions, and the
        browser's own log entries at level error (a blocked or missing resource, a
        Content-Security-Policy violation)."""
        self.evaluate(session, "0")  # whatever the page still had to say has arrived
        out = []
        for event in self.events:
            if event.get("sessionId") != session:
                continue
            params = event.get("params", {})
            method = event.get("method")
            if method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
                out.append(" ".join(str(a.get("value", a)) for a in params["args"]))
            elif method == "Runtime.exceptionThrown":
                out.append(str(params["exceptionDetails"]))
            elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
                out.append(f"{params['entry'].get('url', '')}: {params['entry']['text']}")
        return out

    def screenshot(self, session: str, box: list[float]) -> bytes:
        x, y, width, height = box
        clip = {"x": x, "y": y, "width": width, "height": height, "scale": 1}
        shot = self.call("Page.captureScreenshot", {"format": "png", "clip": clip}, session)
        return base64.b64decode(shot["data"])


def png_colours(data: bytes) -> collections.Counter[str]:
    """How many pixels of each colour (``#rrggbb``) an 8-bit RGB(A) PNG has."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks: dict[bytes, bytes] = collections.defaultdict(bytes)
    pos = 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        chunks[kind] += data[pos + 8 : pos + 8 + length]
        pos += 12 + length
    width, height, depth, kind, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert depth == 8 and kind in (2, 6) and interlace == 0, (depth, kind, interlace)
    size = 3 if kind == 2 else 4
    stride = width * size
    raw = zlib.decompress(chunks[b"IDAT"])
    previous = bytearray(stride)
    counts: collections.Counter[str] = collections.Counter()
    for row in range(height):
        start = row * (stride + 1)
        method, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - size] if i >= size else 0
            up, corner = previous[i], previous[i - size] if i >= size else 0
            if method == 1:
                line[i] = (line[i] + left) & 0xFF
            elif method == 2:
                line[i] = (line[i] + up) & 0xFF
            elif method == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif method == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                guess = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + guess) & 0xFF
        counts.update(line[i : i + 3].hex() for i in range(0, stride, size))
        previous = line
    return collections.Counter({f"#{colour}": n for colour, n in counts.items()})


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[DevTools]:
    chrome = DevTools(chromium_binary(), tmp_path / "profile", tmp_path / "chromium.log")
    try:
        yield chrome
    finally:
        chrome.close()


@pytest.mark.slow
def test_chromium_shows_the_pages_without_errors_and_draws_the_board(
    browser: DevTools, site: Path
) -> None:
    # the error watch works: a page that writes to the console is caught
    probe = browser.open("data:text/html,<script>console.error('probe ' + 6 * 7)</script>")
    assert browser.errors(probe) == ["probe 42"]

    index = browser.open((site / "index.html").as_uri())
    assert browser.errors(index) == []
    assert browser.evaluate(index, "document.title") == "Web cup (WEB-1)"
    assert browser.evaluate(index, "document.scripts.length") == 0
    assert browser.evaluate(index, "document.querySelector('table.cross').rows.length") == 5
    links = browser.evaluate(
        index, "[...document.links].map(a => a.protocol + a.pathname.split('/').pop())"
    )
    assert "file:game-4.html" in links and all(link.startswith("file:") for link in links)

    game = browser.open((site / "game-1.html").as_uri())
    assert browser.errors(game) == []
    box = browser.evaluate(
        game,
        "(() => { const r = document.querySelector('figure svg').getBoundingClientRect();"
        " return [r.x, r.y, r.width, r.height]; })()",
    )
    assert box[2] >= 300 and box[3] >= 300  # drawn at its size, not collapsed
    # 32 pieces on the board, each drawn from the board's own definitions
    assert browser.evaluate(game, "document.querySelectorAll('figure svg use').length") == 32
    colours = png_colours(browser.screenshot(game, box))
    pixels = sum(colours.values())
    light, dark = colours[BOARD_COLOURS["square light"]], colours[BOARD_COLOURS["square dark"]]
    assert light > pixels / 5 and dark > pixels / 5, colours.most_common(6)
    # g1-f3: the empty dark g1 and the light f3 (under the knight) in the last move's colours
    for name, part in (("square dark lastmove", 100), ("square light lastmove", 200)):
        assert colours[BOARD_COLOURS[name]] > pixels / part, (name, colours.most_common(6))
