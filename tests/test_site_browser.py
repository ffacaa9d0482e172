"""The published pages on a phone and on a desk: what a player reads at 400 and at
1,200 pixels wide, in a real headless Chromium.

A small tournament (BRW-1) is played through the desk: in game 1 the second player
of the start list beats the first after five moves, so the crosstable's rows (by
rank) and its ``№`` column (the start number) differ; game 2 is lost on time after
47 days of silence; game 3 has a silence claim open and the director's orders held.
"""

from __future__ import annotations

import base64
import datetime
from collections.abc import Iterator
from pathlib import Path

import chess
import pytest
from deskbench import Bench
from test_site import DevTools, Page, chromium_binary, png_colours

from mailbot.publish.site import BOARD_COLOURS, write_site
from mailbot.store.engine import make_engine, session_factory
from mailbot.store.models import Claim, Game, HeldOrder

pytestmark = pytest.mark.xdist_group("site")

UTC = datetime.UTC
START_LIST = """
index: BRW-1
name: Browser cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: en
notation: en
director: {name: Tom Director, email: td@federation.example}
players:
  - {id: ann, name: Ann Able, email: ann@example.org, country: BGR, rating: 2080}
  - {id: bob, name: Bob Bold, email: bob@example.org}
  - {id: cid, name: Cid Cole, email: cid@example.org}
games:
  - {white: ann, black: bob}
  - {white: cid, black: ann}
  - {white: bob, black: cid}
"""
ANN, BOB, CID = (f"{k}@example.org" for k in ("ann", "bob", "cid"))
#: Game 1: five moves each, then White resigns.
GAME_1 = [
    "1. e2-e4", "1... e7-e5", "2. Ng1-f3", "2... Nb8-c6", "3. Bf1-c4", "3... Bf8-c5",
    "4. c2-c3", "4... Ng8-f6", "5. d2-d4", "5... d7-d6",
]  # fmt: skip
#: When game 2 ended on time: Black received 1. d4 on 2 March, and sent nothing.
TIME_OUT = datetime.datetime(2026, 4, 19, 9, tzinfo=UTC)
NOW = datetime.datetime(2026, 4, 20, 9, tzinfo=UTC)


def at(day: int, hour: int = 9) -> datetime.datetime:
    return datetime.datetime(2026, 3, day, hour, tzinfo=UTC)


@pytest.fixture(scope="module")
def browser_cup(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browser-cup")
    url = f"sqlite:///{root / 'mailbot.db'}"
    bench = Bench(url, START_LIST)
    try:
        bench.send(CID, "1. d2-d4", at(2), subject="[BRW-1/2] move")
        bench.send(BOB, "1. e2-e4", at(2, 10), subject="[BRW-1/3] move")
        for n, text in enumerate(GAME_1):
            sender = ANN if n % 2 == 0 else BOB
            bench.send(sender, text, at(3 + n), subject="[BRW-1/1] move")
        bench.send(ANN, "resign", at(14), subject="[BRW-1/1] move")
    finally:
        bench.close()
    engine = make_engine(url)
    try:
        with session_factory(engine).begin() as session:
            games = {g.number: g for g in session.query(Game)}
            lost = games[2]
            lost.result, lost.termination, lost.ended_at = "1-0", "time-forfeit", TIME_OUT
            session.add(
                Claim(
                    game=games[3],
                    kind="silence",
                    by_color="white",
                    against="black",
                    opened_at=at(20),
                    status="open",
                )
            )
            session.add(
                HeldOrder(
                    director_email="td@federation.example",
                    orders=["forfeit BRW-1/3 black"],
                    status="held",
                    created_at=at(21),
                    lapses_at=at(28),
                )
            )
        with session_factory(engine)() as session:
            write_site(session, "BRW-1", root / "site", NOW)
    finally:
        engine.dispose()
    return root / "site"


def read(path: Path) -> Page:
    return Page(path.read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------
# What the pages say


def test_the_number_column_is_the_start_number(browser_cup: Path) -> None:
    head, *rows = read(browser_cup / "index.html").table("cross")
    # best first; each column headed by the start number of the row it stands for
    assert head[:8] == ["Place", "No.", "Player", "Country", "Rating", "2", "3", "1"]
    assert [row[:3] for row in rows] == [
        ["1-2", "2", "Bob Bold"],
        ["1-2", "3", "Cid Cole"],
        ["3", "1", "Ann Able"],
    ]


def test_a_pending_claim_and_held_orders_show_on_the_game_and_in_the_crosstable(
    browser_cup: Path,
) -> None:
    index = read(browser_cup / "index.html")
    _, bob, cid, ann = index.table("cross")
    # the columns: Bob (2), Cid (3), Ann (1); game 3, Bob–Cid, waits for the director
    assert (bob[5:8], cid[5:8], ann[5:8]) == (["×", "·!", "1"], ["·!", "×", "1"], ["0", "0", "×"])
    assert "!: a claim or a decision about the game waits for the director" in index.text
    game = read(browser_cup / "game-3.html")
    assert "Waiting for the director" in game.headings
    assert "claim (silence) of 20.3.2026, not decided yet" in game.text
    assert "the director's orders of 21.3.2026 about this game, held until" in game.text
    assert "Waiting for the director" not in read(browser_cup / "game-1.html").headings


def test_a_game_lost_on_time_counts_the_loser_s_days(browser_cup: Path) -> None:
    clocks = read(browser_cup / "game-2.html").table("clocks")
    rows = {row[0]: row[1:] for row in clocks}
    _, black = rows["Days used (penalties included)"]
    last_white, last_black = rows["Days on the last move, to the end"]
    # 1. d4 reached Black on 2 March; the clock counts from 3 March to 19 April
    assert (last_white, last_black) == ("–", "47 days")
    assert int(black) == int(last_black.split()[0])  # no move sent: only the silence counts


def test_tags_and_ratings_do_not_wrap_and_moves_link_to_their_positions(
    browser_cup: Path,
) -> None:
    index = (browser_cup / "index.html").read_text(encoding="utf-8")
    assert '<a class="tag" href="game-1.html">BRW-1/1</a>' in index
    assert '<span class="meta nowrap">(BGR, 2080)</span>' in index
    page = (browser_cup / "game-1.html").read_text(encoding="utf-8")
    assert '<span class="tag">BRW-1/1</span>' in page
    assert [f"#ply-{n}" for n in range(1, 11)] == [
        link for link in read(browser_cup / "game-1.html").links if link.startswith("#ply-")
    ]
    assert "<script" not in page


# ---------------------------------------------------------------------------
# In a real browser


def fen_after(plies: int) -> str:
    board = chess.Board()
    for text in GAME_1[:plies]:
        move = text.split()[-1].replace("-", "")
        board.push_uci(move.lstrip("KQRBN"))
    return board.fen()


@pytest.fixture
def chrome(tmp_path: Path) -> Iterator[DevTools]:
    browser = DevTools(chromium_binary(), tmp_path / "profile", tmp_path / "chromium.log")
    try:
        yield browser
    finally:
        browser.close()


def resize(chrome: DevTools, session: str, width: int) -> None:
    chrome.call(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600},
        session,
    )
    chrome.evaluate(session, "new Promise(r => requestAnimationFrame(() => r(0)))")


def full_page(chrome: DevTools, session: str) -> bytes:
    """The whole page as a PNG, beyond the window's height too."""
    width, height = chrome.evaluate(
        session, "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
    )
    clip = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
    shot = chrome.call(
        "Page.captureScreenshot",
        {"format": "png", "clip": clip, "captureBeyondViewport": True},
        session,
    )
    return base64.b64decode(shot["data"])


#: What the page's widest things measure: the page, and each table's box against its own.
MEASURE = """(() => {
  const d = document.documentElement;
  const wide = [...document.querySelectorAll('.table')]
    .filter(t => t.scrollWidth > t.clientWidth + 1).map(t => t.firstElementChild.className);
  return [d.scrollWidth, d.clientWidth, wide];
})()"""
#: The board shown: the data-fen of the one board element that is displayed.
SHOWN = """[...document.querySelectorAll('.boards > [data-fen]')]
  .filter(e => getComputedStyle(e).display !== 'none').map(e => e.dataset.fen)"""
#: The height of a game tag's link and of a line of text: a tag that wraps is two lines.
TAG_LINES = """(() => {
  const tags = [...document.querySelectorAll('a.tag, .nowrap')];
  return tags.map(t => t.getClientRects().length);
})()"""


@pytest.mark.parametrize("width", [1200, 400])
@pytest.mark.slow
def test_nothing_scrolls_sideways_and_tags_keep_to_one_line(
    chrome: DevTools, browser_cup: Path, tmp_path: Path, width: int
) -> None:
    for name in ("index.html", "game-1.html", "game-2.html", "game-3.html"):
        session = chrome.open((browser_cup / name).as_uri())
        resize(chrome, session, width)
        assert chrome.errors(session) == []
        page, view, wide = chrome.evaluate(session, MEASURE)
        assert page <= view == width and wide == [], (name, width, page, view, wide)
        assert set(chrome.evaluate(session, TAG_LINES)) <= {1}, name
        shot = full_page(chrome, session)
        (tmp_path / f"{name}-{width}.png").write_bytes(shot)
        size = int.from_bytes(shot[16:20]), int.from_bytes(shot[20:24])
        print(f"screenshot {name} at {width} px: {size[0]}x{size[1]} px, {len(shot)} bytes")


@pytest.mark.slow
def test_stepping_to_move_5_shows_the_position_after_it(
    chrome: DevTools, browser_cup: Path, tmp_path: Path
) -> None:
    page = (browser_cup / "game-1.html").as_uri()
    session = chrome.open(page)
    resize(chrome, session, 400)
    final = chess.Board(fen_after(10))
    assert chrome.evaluate(session, SHOWN) == [final.fen()]
    chrome.call("Page.navigate", {"url": f"{page}#ply-9"}, session)
    assert chrome.evaluate(session, "location.hash") == "#ply-9"
    assert chrome.evaluate(session, SHOWN) == [fen_after(9)]
    # the board shown is drawn: its squares on screen, d2-d4 in the last move's colours
    box = chrome.evaluate(
        session,
        "(() => { const r = document.getElementById('ply-9').querySelector('svg')"
        ".getBoundingClientRect();"
        " return [r.x + scrollX, r.y + scrollY, r.width, r.height]; })()",
    )
    assert 300 <= box[2] <= 400, box
    shot = chrome.screenshot(session, box)
    (tmp_path / "ply-9.png").write_bytes(shot)
    colours = png_colours(shot)
    lastmove = colours[BOARD_COLOURS["square dark lastmove"]]  # d2 and d4 are dark squares
    assert lastmove > sum(colours.values()) / 100, colours.most_common(6)
    assert colours[BOARD_COLOURS["square light lastmove"]] == 0
    # a link in the move list leads there too: clicking 3... Bf8-c5 shows ply 6
    chrome.evaluate(session, "document.querySelector('a[href=\"#ply-6\"]').click()")
    assert chrome.evaluate(session, SHOWN) == [fen_after(6)]
