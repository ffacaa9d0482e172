"""A tournament from the start list to its first move: CSV players, the start
mail every player receives, the mistakes a start list is refused for, and
deleting an event before its first move.

The start mails go over real SMTP to the aiosmtpd listener.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from harness import text_of
from mailservers import SmtpSink
from migrated import migrated
from sqlalchemy import func, select
from test_cli import _environment, write_config  # noqa: F401 (fixture)
from test_cli import run as run_cli

from mailbot.store.engine import make_engine, session_factory
from mailbot.store.models import Game, Move, Outbox, Player, Team

HEAD = """\
index: CSV-2026
name: Club championship
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: bg
notation: bg-cyrillic
director: {name: Georgi Georgiev, email: td@federation.example}
players: players.csv
games: double-round-robin
"""


def run(*argv: str) -> tuple[int, str]:
    """The exit status and everything the command printed (errors go to stderr)."""
    capture = pytest.CaptureFixture  # for the type checker only
    del capture
    status, out = run_cli(*argv)
    return status, out + _stderr()


_captured: list[pytest.CaptureFixture[str]] = []


def _stderr() -> str:
    return _captured[-1].readouterr().err if _captured else ""


@pytest.fixture(autouse=True)
def _capture(capsys: pytest.CaptureFixture[str]) -> None:
    _captured[:] = [capsys]


def players_csv(n: int = 10) -> str:
    rows = ["id,name,email,country,rating,gender,language"]
    for i in range(1, n + 1):
        language = "en" if i == 2 else ""
        gender = "f" if i % 2 else "m"
        rows.append(f"p{i},Name{i} Family{i},p{i}@example.org,BGR,{2000 + i},{gender},{language}")
    return "\n".join(rows) + "\n"


def smtp_config(tmp_path: Path, db_url: str, smtp: SmtpSink) -> str:
    return str(
        write_config(
            tmp_path,
            db_url,
            smtp={
                "host": "127.0.0.1",
                "port": smtp.port,
                "security": "none",
                "username": "",
                "password": "",
                "sender": "Federation CC <bot@federation.example>",
            },
        )
    )


def counts(db_url: str) -> tuple[int, int, int]:
    engine = make_engine(db_url)
    try:
        with session_factory(engine)() as session:
            return (
                session.scalar(select(func.count(Player.id))) or 0,
                session.scalar(select(func.count(Game.id))) or 0,
                session.scalar(select(func.count(Outbox.id))) or 0,
            )
    finally:
        engine.dispose()


@pytest.mark.slow
def test_a_double_round_robin_from_csv_sends_each_player_one_start_mail(
    store_url: str, tmp_path: Path, smtp_sink: SmtpSink
) -> None:
    config = smtp_config(tmp_path, store_url, smtp_sink)
    (tmp_path / "players.csv").write_text(players_csv(), encoding="utf-8")
    (tmp_path / "start.yaml").write_text(HEAD, encoding="utf-8")
    migrated(store_url)  # init finds the schema made: a copy of the template
    assert run("-c", config, "init")[0] == 0

    status, out = run("-c", config, "tournament", "import", str(tmp_path / "start.yaml"))

    assert status == 0, out
    assert "10 players, 90 games" in out
    assert "11 start messages queued; sent=11" in out
    for i in range(1, 11):
        mails = smtp_sink.to(f"p{i}@example.org")
        assert len(mails) == 1, f"p{i} received {len(mails)} mails"
        mail = mails[0]
        assert mail.message["X-Mailbot-Event"] == "start"
        assert mail.message["X-Mailbot-Game"] is None
        assert mail.message["Subject"].startswith("[CSV-2026] ")
        text = text_of(mail)
        tags = re.findall(r"\[CSV-2026/(\d+)\]", text)
        # the 18 games, each once, plus the tag in the example of how to write a move
        assert len(set(tags)) == 18
        assert "Send your moves to bot@federation.example" in text or (
            "Изпращайте ходовете си на bot@federation.example" in text
        )
        if i == 2:  # writes in English
            assert "Dear Name2 Family2," in text
            assert text.count("White against") == 9 and text.count("Black against") == 9
            # the event's notation: the move is written as the opponent will read it
            assert '"1. Кg1-f3"' in text
        else:
            assert ("Уважаема" if i % 2 else "Уважаеми") + f" Name{i} Family{i}," in text
            assert text.count("с белите срещу") == 9 and text.count("с черните срещу") == 9
            assert "„1. Кg1-f3“" in text
            assert not re.search(r"\b(the|your|games|rules)\b", text)
    director = smtp_sink.to("td@federation.example")
    assert len(director) == 1
    summary = text_of(director[0])
    assert "10 участници, 90 партии в 18 кръга" in summary
    assert "p7: Name7 Family7 <p7@example.org>, 18 партии" in summary

    # the games follow the Berger table: every pair meets twice, with both colours
    engine = make_engine(store_url)
    try:
        with session_factory(engine)() as session:
            games = session.scalars(select(Game).order_by(Game.id)).all()
            pairs = [(g.white.key, g.black.key) for g in games]
            rated = session.scalars(select(Player).where(Player.key == "p3")).one()
            assert (rated.country, rated.rating, rated.gender) == ("BGR", 2003, "f")
    finally:
        engine.dispose()
    assert len(set(pairs)) == 90
    assert all((b, w) in pairs for w, b in pairs)
    assert pairs[:5] == [("p1", "p10"), ("p2", "p9"), ("p3", "p8"), ("p4", "p7"), ("p5", "p6")]

    # one tournament's status, and a game's evidence with the start mail in it
    status, out = run("-c", config, "status", "CSV-2026", "--now", "2026-03-05T12:00")
    assert status == 0, out
    assert len(re.findall(r"^\s*CSV-2026/\d+\b", out, flags=re.M)) == 90
    status, out = run("-c", config, "evidence", "CSV-2026/1", str(tmp_path / "dispute"))
    assert status == 0, out
    assert (tmp_path / "dispute" / "moves.txt").exists()
    assert (tmp_path / "dispute" / "index.txt").exists()


MISTAKES: list[tuple[str, str, str, str]] = [
    # (what, start-list change, csv change, where the message must point)
    ("a duplicate id", "", "p1,X Y,x@example.org,,,,\n", "players.csv, line 12, column 1 (id)"),
    (
        "a duplicate address",
        "",
        "p11,X Y,P3@example.org,,,,\n",
        "players.csv, line 12, column 3 (email)",
    ),
    ("a broken address", "", "p11,X Y,not-an-address,,,,\n", "players.csv, line 12, column 3"),
    ("an unknown language", "", "p11,X Y,x@example.org,,,,fr\n", "column 7 (language)"),
    ("a bad country code", "", "p11,X Y,x@example.org,Bulgaria,,,\n", "column 4 (country)"),
    ("a rating that is no number", "", "p11,X Y,x@example.org,,high,,\n", "column 5 (rating)"),
    ("a short row", "", "p11,X Y\n", "players.csv, line 12"),
    ("an unknown column", "HEADER", "", "players.csv, line 1, column 8"),
    ("an end before the start", "end: 2026-01-01", "", "start.yaml, line 5, column 6"),
    ("an unknown pairing system", "games: swiss", "", "start.yaml, line 10, column 8"),
    ("a missing CSV file", "players: nowhere.csv", "", "nowhere.csv: file not found"),
    ("an unknown profile", "profile: fide", "", "start.yaml, line 3, column 10"),
]


@pytest.mark.parametrize(("what", "yaml_change", "csv_change", "where"), MISTAKES)
@pytest.mark.slow
def test_a_mistake_is_named_with_file_line_and_column_and_nothing_is_created(
    store_url: str,
    tmp_path: Path,
    smtp_sink: SmtpSink,
    what: str,
    yaml_change: str,
    csv_change: str,
    where: str,
) -> None:
    config = smtp_config(tmp_path, store_url, smtp_sink)
    csv = players_csv() + csv_change
    if yaml_change == "HEADER":
        csv = csv.replace("language\n", "language,club\n", 1)
        yaml_change = ""
    (tmp_path / "players.csv").write_text(csv, encoding="utf-8")
    text = HEAD
    if yaml_change:
        key = yaml_change.split(":")[0]
        text = re.sub(rf"^{key}: .*$", yaml_change, text, count=1, flags=re.M)
    (tmp_path / "start.yaml").write_text(text, encoding="utf-8")
    migrated(store_url)  # init finds the schema made: a copy of the template
    assert run("-c", config, "init")[0] == 0

    status, out = run("-c", config, "tournament", "import", str(tmp_path / "start.yaml"))

    assert status == 2, what
    assert where in out, (what, out)
    assert counts(store_url) == (0, 0, 0), what
    assert smtp_sink.messages == []


@pytest.mark.slow
def test_deleting_before_the_first_move_withdraws_the_start_mail_and_allows_a_new_import(
    store_url: str, tmp_path: Path
) -> None:
    # no SMTP listener: the start mails wait in the outbox
    config = str(write_config(tmp_path, store_url))
    (tmp_path / "players.csv").write_text(players_csv(4), encoding="utf-8")
    (tmp_path / "start.yaml").write_text(HEAD, encoding="utf-8")
    migrated(store_url)  # init finds the schema made: a copy of the template
    assert run("-c", config, "init")[0] == 0
    assert run("-c", config, "tournament", "import", str(tmp_path / "start.yaml"))[0] == 0
    assert counts(store_url) == (4, 12, 5)

    status, out = run("-c", config, "tournament", "delete", "CSV-2026")

    assert status == 0
    assert "tournament CSV-2026 deleted; 5 messages not yet sent were withdrawn" in out
    assert counts(store_url) == (0, 0, 0)
    # the typo fixed, the same index imports again
    (tmp_path / "players.csv").write_text(
        players_csv(4).replace("p4@example.org", "p4@example.net"), encoding="utf-8"
    )
    assert run("-c", config, "tournament", "import", str(tmp_path / "start.yaml"))[0] == 0
    assert counts(store_url) == (4, 12, 5)
    status, out = run("-c", config, "tournament", "delete", "NOPE")
    assert status == 2 and "no tournament NOPE" in out


@pytest.mark.slow
def test_a_tournament_with_a_move_played_cannot_be_deleted(db_url: str, tmp_path: Path) -> None:
    config = str(write_config(tmp_path, db_url))
    (tmp_path / "players.csv").write_text(players_csv(4), encoding="utf-8")
    (tmp_path / "start.yaml").write_text(HEAD, encoding="utf-8")
    migrated(db_url)  # init finds the schema made: a copy of the template
    assert run("-c", config, "init")[0] == 0
    assert run("-c", config, "tournament", "import", str(tmp_path / "start.yaml"))[0] == 0
    engine = make_engine(db_url)
    try:
        with session_factory(engine).begin() as session:
            g = session.scalars(select(Game).where(Game.number == 1)).one()
            session.add(
                Move(game=g, ply=1, uci="e2e4", san="e4", text="1. e2-e4", sent_at=g.created_at)
            )
    finally:
        engine.dispose()

    status, out = run("-c", config, "tournament", "delete", "CSV-2026")

    assert status == 2
    assert "has 1 moves played: it can no longer be deleted" in out
    assert counts(db_url)[:2] == (4, 12)


TEAMS = """\
index: TEAM-2026
name: Team championship
profile: iccf-server
start: 2026-03-01
end: 2027-06-30
director: {name: Georgi Georgiev, email: td@federation.example}
players: players.csv
boards: 4
teams:
  - {id: a, name: Alpha, captain: {name: Cap A, email: capa@example.org}}
  - {id: b, name: Beta, players: [b1, b2, b3, b4]}
  - {id: c, name: Gamma, players: [c1, c2, c3, c4, c5]}
  - {id: d, name: Delta, players: [d1, d2, d3, d4]}
games: team-round-robin
"""


def team_csv() -> str:
    rows = ["id,name,email,team,board"]
    for team in "abcd":
        for k in range(1, 6 if team == "c" else 5):
            column = f"{team},{5 - k}" if team == "a" else ","
            rows.append(f"{team}{k},{team.upper()}{k} Player,{team}{k}@example.org,{column}")
    return "\n".join(rows) + "\n"


@pytest.mark.slow
def test_a_team_event_pairs_boards_with_the_colours_of_art_20(
    store_url: str, tmp_path: Path
) -> None:
    config = str(write_config(tmp_path, store_url))
    (tmp_path / "players.csv").write_text(team_csv(), encoding="utf-8")
    (tmp_path / "start.yaml").write_text(TEAMS, encoding="utf-8")
    migrated(store_url)  # init finds the schema made: a copy of the template
    assert run("-c", config, "init")[0] == 0

    status, out = run("-c", config, "tournament", "import", str(tmp_path / "start.yaml"))

    assert status == 0, out
    assert "17 players, 24 games" in out
    engine = make_engine(store_url)
    try:
        with session_factory(engine)() as session:
            games = session.scalars(select(Game).order_by(Game.number)).all()
            teams = {t.key: t for t in session.scalars(select(Team)).all()}
            # team a's board order comes from the CSV's board column (a4 is board 1)
            assert [p.key for p in teams["a"].players] == ["a4", "a3", "a2", "a1"]
            assert teams["a"].captain_email == "capa@example.org"
            # c5 is a substitute: on the team, after the boards, in no game
            assert [p.key for p in teams["c"].players][-1] == "c5"
            assert all("c5" not in (g.white.key, g.black.key) for g in games)
            by_match: dict[tuple[int | None, frozenset[str]], list[Game]] = {}
            for g in games:
                assert g.white.team is not None and g.black.team is not None
                key = frozenset((g.white.team.key, g.black.team.key))
                by_match.setdefault((g.round, key), []).append(g)
            assert len(by_match) == 6  # every team meets every other once
            for match in by_match.values():
                assert [g.board for g in match] == [1, 2, 3, 4]
                home = match[0].white.team
                for g in match:
                    # the team with White on board 1 has White on the odd boards
                    assert (g.white.team == home) == (g.board % 2 == 1)
                    assert g.white.board == g.board and g.black.board == g.board
    finally:
        engine.dispose()

    # the team table on the command line and on the published pages
    status, out = run("-c", config, "standings", "TEAM-2026")
    assert status == 0, out
    assert [name for name in ("Alpha", "Beta", "Gamma", "Delta") if name in out] == [
        "Alpha",
        "Beta",
        "Gamma",
        "Delta",
    ]
    status, out = run("-c", config, "site", "TEAM-2026", str(tmp_path / "site"))
    assert status == 0, out
    assert "26 files written" in out
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "Alpha" in index and "Delta" in index
    assert (tmp_path / "site" / "game-24.html").exists()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("boards: 5\n", "team a has 4 players for 5 boards"),
        ("games: round-robin\n", "a team event plays team-round-robin"),
        ("teams: []\n", "must list at least two teams"),
    ],
)
@pytest.mark.slow
def test_team_mistakes_are_refused(
    store_url: str, tmp_path: Path, change: str, message: str
) -> None:
    config = str(write_config(tmp_path, store_url))
    (tmp_path / "players.csv").write_text(team_csv(), encoding="utf-8")
    data = yaml.safe_load(TEAMS)
    data.update(yaml.safe_load(change))
    (tmp_path / "start.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    migrated(store_url)  # init finds the schema made: a copy of the template
    assert run("-c", config, "init")[0] == 0

    status, out = run("-c", config, "tournament", "import", str(tmp_path / "start.yaml"))

    assert status == 2
    assert message in out
    assert counts(store_url) == (0, 0, 0)


def test_the_daemon_publishes_every_tournament_into_the_site_folder(
    store_url: str, tmp_path: Path
) -> None:
    from deskbench import BLACK, WHITE, Bench, at

    from mailbot.config import parse_config
    from mailbot.shell.daemon import publish_all

    bench = Bench(store_url)
    try:
        bench.send(WHITE, "1. e2-e4", at(2), subject="[PX-1/1] move")
        pages: dict[str, tuple[object, ...]] = {}
        written = publish_all(bench.sessions, tmp_path / "www", at(3), pages)
        # nothing changed: nothing is written again; a move: the event's pages are
        again = publish_all(bench.sessions, tmp_path / "www", at(3), pages)
        bench.send(BLACK, "1... e7-e5", at(3), subject="[PX-1/1] move")
        after_move = publish_all(bench.sessions, tmp_path / "www", at(3), pages)
    finally:
        bench.close()
    assert (written, again, after_move) == (4, 0, 4)  # index.html, two game pages, PX-1.pgn
    page = (tmp_path / "www" / "PX-1" / "game-1.html").read_text(encoding="utf-8")
    assert "e4" in page
    config = write_config(tmp_path, store_url, site_folder=str(tmp_path / "www"))
    parsed = parse_config(config.read_text(), {"MAILBOT_TEST_PASSWORD": "x"})
    assert parsed.site_folder == str(tmp_path / "www")


def test_two_players_on_one_board_of_a_team_are_refused_with_the_line(tmp_path: Path) -> None:
    from mailbot.store.startfields import StartListError
    from mailbot.store.startlist import load_start_list

    (tmp_path / "players.csv").write_text(
        team_csv().replace("a3,A3 Player,a3@example.org,a,2", "a3,A3 Player,a3@example.org,a,3"),
        encoding="utf-8",
    )
    (tmp_path / "start.yaml").write_text(TEAMS, encoding="utf-8")
    with pytest.raises(StartListError) as caught:
        load_start_list(tmp_path / "start.yaml")
    assert "players.csv, line 4, column 5 (board): players[2].board: team a has a2 on board 3" in (
        str(caught.value)
    )


def test_no_address_of_a_player_may_be_the_directors_or_the_bots(tmp_path: Path) -> None:
    from mailbot.store.startfields import StartListError
    from mailbot.store.startlist import parse_start_list

    text = HEAD.replace(
        "players: players.csv",
        "players: [{id: a, name: A, email: a@example.org},"
        " {id: b, name: B, email: [b@example.org, td@federation.example]}]",
    )
    with pytest.raises(StartListError, match=r"players\[1\]\.email: td@federation\.example is"):
        parse_start_list(text)
    with pytest.raises(StartListError, match="the bot's own address"):
        parse_start_list(
            text.replace("td@federation.example]", "bot+x@federation.example]"),
            bot_addresses=["bot@federation.example"],
        )


def test_deleting_cancels_the_orders_held_for_the_event(store_url: str) -> None:
    from deskbench import BOT, TD, Bench, at

    from mailbot.store.models import HeldOrder
    from mailbot.store.tournaments import delete_tournament

    bench = Bench(store_url)
    try:
        bench.send(TD, "forfeit PX-1/1 black", at(2))  # no DMARC: held for confirmation
        # an order that names no game but answers the bot's notice about PX-1/1
        bench.send("stranger@example.net", "What a game!", at(2), subject="[PX-1/1] kibitz")
        notice = bench.outbox(to=TD)[-1]
        bench.send(TD, "forfeit white", at(3), reply_to=notice, to=BOT)
        with bench.sessions.begin() as session:
            assert delete_tournament(session, "PX-1") >= 1
        with bench.sessions() as session:
            statuses = [h.status for h in session.scalars(select(HeldOrder)).all()]
            assert statuses == ["cancelled", "cancelled"]
    finally:
        bench.close()
