from __future__ import annotations

import itertools
import unicodedata

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mailbot.rules.standings
from mailbot.rules.standings import (
    BoardCountError,
    DuplicateEntrantError,
    Match,
    SelfPairingError,
    UnknownEntrantError,
    UnknownLanguageError,
    UnreadableResultError,
    board_colours,
    crosstable,
    format_points,
    render_crosstable,
    render_team_table,
    team_table,
)
from mailbot.rules.tabletext import text_width

ABCD = [("a", "Ann"), ("b", "Bob"), ("c", "Cid"), ("d", "Dan")]


def summary(table: mailbot.rules.standings.Crosstable) -> list[tuple[str, str, float, float]]:
    return [(r.place, r.player, r.points, r.sonneborn_berger) for r in table.rows]


# -- Individual crosstable ---------------------------------------------------------


def test_four_player_round_robin_worked_by_hand() -> None:
    # Bob beats Ann and draws everyone else; Ann beats Cid and Dan; Cid - Dan drawn.
    #   Ann 2 (wins over Cid 1 and Dan 1: SB 1 + 1 = 2)
    #   Bob 2 (win over Ann 2, draws with Cid 1 and Dan 1: SB 2 + ½ + ½ = 3)
    #   Cid 1, Dan 1 (draw with Bob 2 and each other: SB 1 + ½ = 1½), no wins,
    #   their own game drawn: they share places 3-4, listed in start-list order.
    games = [
        ("b", "a", "1-0"),
        ("c", "a", "0-1"),
        ("a", "d", "1-0"),
        ("b", "c", "1/2-1/2"),
        ("d", "b", "1/2-1/2"),
        ("c", "d", "1/2-1/2"),
    ]
    table = crosstable(ABCD, games)
    assert summary(table) == [
        ("1", "b", 2.0, 3.0),
        ("2", "a", 2.0, 2.0),
        ("3-4", "c", 1.0, 1.5),
        ("3-4", "d", 1.0, 1.5),
    ]
    bob = table.row("b")
    assert (bob.played, bob.unfinished, bob.wins, bob.draws, bob.losses) == (3, 0, 1, 2, 0)
    assert [(c.opponent, c.marks) for c in bob.cells] == [
        ("a", ("1",)),
        ("c", ("½",)),
        ("d", ("½",)),
    ]
    assert table.row("a").against("b") == ("0",)
    assert [r.number for r in table.rows] == [1, 2, 3, 4]
    assert [r.start_number for r in table.rows] == [2, 1, 3, 4]

    # the start number beside the place, as the site shows it; the columns follow the places
    text = render_crosstable(table)
    assert text.splitlines()[:5] == [
        "Place  No  Player  2 1 3 4  Pts  Gms  Unf  +  =  -  SB",
        "1       2  Bob     X 1 ½ ½    2    3    0  1  2  0   3",
        "2       1  Ann     0 X 1 1    2    3    0  2  0  1   2",
        "3-4     3  Cid     ½ 0 X ½    1    3    0  0  2  1  1½",
        "3-4     4  Dan     ½ 0 ½ X    1    3    0  0  2  1  1½",
    ]


def test_the_order_of_the_games_does_not_matter() -> None:
    games = [
        ("b", "a", "1-0"),
        ("c", "a", "0-1"),
        ("a", "d", "1-0"),
        ("b", "c", "1/2-1/2"),
        ("d", "b", "1/2-1/2"),
        ("c", "d", "1/2-1/2"),
    ]
    first = crosstable(ABCD, games)
    for shuffled in itertools.islice(itertools.permutations(games), 0, 720, 97):
        assert crosstable(ABCD, shuffled) == first


def test_wins_come_before_head_to_head() -> None:
    # Ann beats Bob, Cid, Dan and loses to Eve: 3.
    # Bob beats Cid and Eve, draws Dan: 2½. Cid draws Dan: ½.
    # Dan: ½ (Bob) + ½ (Cid) + 1 (Eve) = 2, SB ½·2½ + ½·½ + 2 = 3½, one win.
    # Eve: 1 (Ann) + 1 (Cid) = 2, SB 3 + ½ = 3½, two wins.
    # Eve is ahead on wins although Dan beat her and is earlier on the list.
    players = [*ABCD, ("e", "Eve")]
    games = [
        ("a", "b", "1-0"),
        ("a", "c", "1-0"),
        ("a", "d", "1-0"),
        ("e", "a", "1-0"),
        ("b", "c", "1-0"),
        ("b", "d", "1/2-1/2"),
        ("b", "e", "1-0"),
        ("c", "d", "1/2-1/2"),
        ("e", "c", "1-0"),
        ("d", "e", "1-0"),
    ]
    table = crosstable(players, games)
    assert summary(table) == [
        ("1", "a", 3.0, 5.0),
        ("2", "b", 2.5, 3.5),
        ("3", "e", 2.0, 3.5),
        ("4", "d", 2.0, 3.5),
        ("5", "c", 0.5, 1.0),
    ]
    assert (table.row("e").wins, table.row("d").wins) == (2, 1)
    assert table.row("d").against("e") == ("1",)


def test_head_to_head_separates_exactly_two_players() -> None:
    # Ann beats Cid and Dan, draws Bob (2½). Dan draws Cid and beats Bob;
    # Bob beats Cid. Bob and Dan: 1½ each, SB 1¾ each, one win each;
    # Dan won their game, so Dan is ahead although Bob is earlier on the list.
    games = [
        ("a", "d", "1-0"),
        ("a", "c", "1-0"),
        ("a", "b", "1/2-1/2"),
        ("d", "c", "1/2-1/2"),
        ("d", "b", "1-0"),
        ("c", "b", "0-1"),
    ]
    table = crosstable(ABCD, games)
    bob, dan = table.row("b"), table.row("d")
    assert (bob.points, bob.sonneborn_berger, bob.wins) == (1.5, 1.75, 1)
    assert (dan.points, dan.sonneborn_berger, dan.wins) == (1.5, 1.75, 1)
    assert [(r.place, r.player) for r in table.rows] == [
        ("1", "a"),
        ("2", "d"),
        ("3", "b"),
        ("4", "c"),
    ]


def test_head_to_head_is_not_used_for_three_players_level() -> None:
    # A cycle: Ann beats Bob, Bob beats Cid, Cid beats Ann; all lose to Dan.
    # Ann, Bob, Cid: 1 point, SB 1, one win each: they share 2-4.
    games = [
        ("a", "b", "1-0"),
        ("b", "c", "1-0"),
        ("c", "a", "1-0"),
        ("d", "a", "1-0"),
        ("d", "b", "1-0"),
        ("d", "c", "1-0"),
    ]
    table = crosstable(ABCD, games)
    assert summary(table) == [
        ("1", "d", 3.0, 3.0),
        ("2-4", "a", 1.0, 1.0),
        ("2-4", "b", 1.0, 1.0),
        ("2-4", "c", 1.0, 1.0),
    ]


def test_drawn_head_to_head_shares_the_place() -> None:
    table = crosstable(ABCD[:2], [("a", "b", "1/2-1/2")])
    assert [(r.place, r.player) for r in table.rows] == [("1-2", "a"), ("1-2", "b")]


def test_double_round_robin() -> None:
    # Ann: 1 + ½ against Bob, ½ + 1 against Cid = 3.
    # Bob: ½ against Ann, 1 + 0 against Cid = 1½. Cid: ½ + 0 and 0 + 1 = 1½.
    # SB Ann = 1½ · (1 + ½ + ½ + 1) = 4½; Bob = ½·3 + 1·1½ = 3; Cid = ½·3 + 1·1½ = 3.
    # Bob and Cid: one win each, 1-1 against each other: shared 2-3.
    games = [
        ("a", "b", "1-0"),
        ("a", "c", "1/2-1/2"),
        ("b", "c", "1-0"),
        ("b", "a", "1/2-1/2"),
        ("c", "a", "0-1"),
        ("c", "b", "1-0"),
    ]
    table = crosstable(ABCD[:3], games)
    assert table.cycles == 2
    assert summary(table) == [
        ("1", "a", 3.0, 4.5),
        ("2-3", "b", 1.5, 3.0),
        ("2-3", "c", 1.5, 3.0),
    ]
    assert table.row("a").against("b") == ("1", "½")
    assert table.row("b").against("a") == ("0", "½")
    assert table.row("c").against("b") == ("0", "1")
    assert render_crosstable(table).splitlines()[:4] == [
        "Place  No  Player  1  2  3   Pts  Gms  Unf  +  =  -  SB",
        "1       1  Ann     XX 1½ ½1    3    4    0  2  2  0  4½",
        "2-3     2  Bob     0½ XX 10   1½    4    0  1  1  2   3",
        "2-3     3  Cid     ½0 01 XX   1½    4    0  1  1  2   3",
    ]


def test_annulled_and_unfinished_games() -> None:
    games = [
        ("a", "b", "annulled"),
        ("c", "a", None),
        ("b", "c", "1-0"),
        ("a", "d", "1-0"),
        ("d", "b", None),
        ("c", "d", "annulled"),
    ]
    table = crosstable(ABCD, games)
    ann = table.row("a")
    assert (ann.points, ann.played, ann.unfinished, ann.wins) == (1.0, 1, 1, 1)
    assert ann.against("b") == ("*",)
    assert ann.against("c") == (".",)
    assert table.row("b").against("a") == ("*",)
    dan = table.row("d")
    assert (dan.points, dan.played, dan.unfinished, dan.losses) == (0.0, 1, 1, 1)
    # The annulled game counts for nothing: the same as if it had never been paired.
    without = crosstable(ABCD, [g for g in games if g[2] != "annulled"])
    assert summary(without) == summary(table)
    row = render_crosstable(table).splitlines()[1]
    assert row.split()[3:7] == ["X", "*", ".", "1"]


finished_result = st.sampled_from(["1-0", "0-1", "1/2-1/2"])
any_result = st.sampled_from(["1-0", "0-1", "1/2-1/2", "annulled", None])


Event = tuple[list[tuple[str, str]], list[tuple[str, str, str | None]]]


@st.composite
def round_robins(draw: st.DrawFn, result: st.SearchStrategy[str | None] = any_result) -> Event:
    """A single round robin of 2 to 7 players, colours and results at random."""
    n = draw(st.integers(min_value=2, max_value=7))
    players = [(f"p{i}", f"Player {i}") for i in range(n)]
    games: list[tuple[str, str, str | None]] = []
    for i, j in itertools.combinations(range(n), 2):
        white, black = (i, j) if draw(st.booleans()) else (j, i)
        games.append((f"p{white}", f"p{black}", draw(result)))
    return players, games


@settings(max_examples=150, deadline=None)
@given(round_robins())
def test_table_invariants(event: Event) -> None:
    players, games = event
    table = crosstable(players, games)
    finished = sum(1 for g in games if g[2] in ("1-0", "0-1", "1/2-1/2"))
    assert sum(r.points for r in table.rows) == finished
    assert sum(r.played for r in table.rows) == 2 * finished
    assert sum(r.unfinished for r in table.rows) == 2 * sum(1 for g in games if g[2] is None)
    for r in table.rows:
        assert r.points == r.wins + r.draws / 2
        assert r.played == r.wins + r.draws + r.losses
    keys = [(r.points, r.sonneborn_berger, r.wins) for r in table.rows]
    assert keys == sorted(keys, reverse=True)
    # A place is shared only by players level on points, SB and wins, and
    # they are listed in start-list order.
    for _, group in itertools.groupby(table.rows, key=lambda r: r.place):
        rows = list(group)
        assert len({(r.points, r.sonneborn_berger, r.wins) for r in rows}) == 1
        assert [r.start_number for r in rows] == sorted(r.start_number for r in rows)
        first, _, last = rows[0].place.partition("-")
        assert int(last or first) - int(first) + 1 == len(rows)
    assert render_crosstable(table).count("\n") == len(table.rows) + 2


@settings(max_examples=100, deadline=None)
@given(round_robins(finished_result), st.data())
def test_annulling_a_game_is_the_same_as_not_playing_it(event: Event, data: st.DataObject) -> None:
    players, games = event
    k = data.draw(st.integers(min_value=0, max_value=len(games) - 1))
    annulled = [*games[:k], (games[k][0], games[k][1], "annulled"), *games[k + 1 :]]
    assert summary(crosstable(players, annulled)) == summary(
        crosstable(players, games[:k] + games[k + 1 :])
    )


def test_format_points() -> None:
    assert [format_points(x) for x in (0, 0.5, 1, 2.5, 10, 3.25, 3.75)] == [
        "0",
        "½",
        "1",
        "2½",
        "10",
        "3¼",
        "3¾",
    ]


def test_headings_in_each_language() -> None:
    table = crosstable(ABCD[:2], [("a", "b", "1-0")])
    heads = {lang: render_crosstable(table, lang).splitlines()[0] for lang in ("en", "bg", "ru")}
    assert "Pts" in heads["en"] and "SB" in heads["en"]
    assert "Точки" in heads["bg"] and "Състезател" in heads["bg"]
    assert "Очки" in heads["ru"] and "Участник" in heads["ru"]
    with pytest.raises(UnknownLanguageError):
        render_crosstable(table, "de")


def field_ends(line: str) -> list[int]:
    """The display columns where the space-separated fields of ``line`` end."""
    ends: list[int] = []
    for i, char in enumerate(line):
        if char != " " and line[i + 1 : i + 2] in ("", " "):
            ends.append(text_width(line[: i + 1]))
    return ends


def test_cyrillic_names_are_aligned() -> None:
    players = [
        ("iv", "Иван Иванов"),
        ("pe", "Петър Петров"),
        ("ge", "Георги Георгиев"),
        # "й" written as и + combining breve: one column, like the composed letter.
        ("yo", unicodedata.normalize("NFD", "Йордан Йорданов")),
    ]
    games = [
        ("iv", "pe", "1-0"),
        ("ge", "yo", "1/2-1/2"),
        ("yo", "iv", "0-1"),
        ("pe", "ge", None),
        ("iv", "ge", "1/2-1/2"),
        ("pe", "yo", "1-0"),
    ]
    table = crosstable(players, games)
    lines = render_crosstable(table, "bg").splitlines()[:5]
    assert len({text_width(line) for line in lines}) == 1
    # Each name starts under the heading "Състезател".
    name_column = lines[0].index("Състезател")
    for row, line in zip(table.rows, lines[1:], strict=True):
        name = unicodedata.normalize("NFC", row.name)
        assert text_width(line[: line.index(name)]) == name_column
    # The four result cells and the seven numbers end under their headings.
    ends = [field_ends(line)[-11:] for line in lines]
    assert all(e == ends[0] for e in ends)


def test_long_names_are_cut_and_still_aligned() -> None:
    players = [
        ("a", "Aleksandr Vladimirovich Konstantinopolsky"),
        ("b", "Bo Li"),
    ]
    text = render_crosstable(crosstable(players, [("a", "b", "1-0")]), name_width=16)
    lines = text.splitlines()
    assert "Aleksandr Vladi…" in lines[1]
    assert "Konstantinopolsky" not in text
    assert len({len(line) for line in lines[:3]}) == 1


def test_wide_characters_count_two_columns() -> None:
    text = render_crosstable(crosstable([("a", "王"), ("b", "Li")], [("a", "b", "1-0")]))
    lines = text.splitlines()[:3]
    assert len({text_width(line) for line in lines}) == 1


@pytest.mark.parametrize(
    ("games", "error"),
    [
        ([("a", "b", "1:0")], UnreadableResultError),
        ([("a", "b", "½-½")], UnreadableResultError),
        ([("a", "x", "1-0")], UnknownEntrantError),
        ([("a", "a", "1-0")], SelfPairingError),
    ],
)
def test_bad_games_are_refused(
    games: list[tuple[str, str, str | None]], error: type[Exception]
) -> None:
    with pytest.raises(error):
        crosstable(ABCD, games)
    assert issubclass(error, ValueError)


def test_a_player_listed_twice_is_refused() -> None:
    with pytest.raises(DuplicateEntrantError):
        crosstable([("a", "Ann"), ("a", "Ann again")], [])


# -- Teams ---------------------------------------------------------------------

_BOARD = {"1": "1-0", "0": "0-1", "½": "1/2-1/2", "*": "annulled", ".": None}


def match(home: str, away: str, boards: str, home_has_white: bool = True) -> Match:
    """``boards`` from the home team's side, e.g. ``"1 ½ 0 ."``."""
    return Match(home, away, tuple(_BOARD[b] for b in boards.split()), home_has_white)


def team_order(teams: list[tuple[str, str]], matches: list[Match]) -> list[tuple[str, str]]:
    return [(r.place, r.team) for r in team_table(teams, matches).rows]


def test_board_colours_follow_art_20() -> None:
    assert board_colours(True, 4) == [chess.WHITE, chess.BLACK, chess.WHITE, chess.BLACK]
    assert board_colours(False, 4) == [chess.BLACK, chess.WHITE, chess.BLACK, chess.WHITE]
    assert board_colours(True, 3) == [chess.WHITE, chess.BLACK, chess.WHITE]
    assert board_colours(True, 0) == []
    for n in range(1, 9):
        ours, theirs = board_colours(True, n), board_colours(False, n)
        assert all(a != b for a, b in zip(ours, theirs, strict=True))
    with pytest.raises(BoardCountError):
        board_colours(True, -1)


def test_match_from_game_results_with_colours() -> None:
    # Home has White: White on boards 1 and 3, Black on 2 and 4.
    # White wins everywhere: the home team wins boards 1 and 3, loses 2 and 4.
    m = Match.from_games("h", "a", ["1-0", "1-0", "1-0", "1/2-1/2"])
    assert m.boards == ("1-0", "0-1", "1-0", "1/2-1/2")
    assert m.score() == (2.5, 1.5)
    m = Match.from_games("h", "a", ["1-0", "0-1", None, "annulled"], home_has_white=False)
    assert m.boards == ("0-1", "0-1", None, "annulled")
    assert m.colours("h") == [chess.BLACK, chess.WHITE, chess.BLACK, chess.WHITE]
    assert m.colours("a") == [chess.WHITE, chess.BLACK, chess.WHITE, chess.BLACK]


def test_match_points_and_unfinished_matches() -> None:
    teams = [("x", "X"), ("y", "Y"), ("z", "Z")]
    matches = [
        match("x", "y", "1 ½ 0 1"),  # X wins 2½-1½
        match("y", "z", "½ ½ ½ ½"),  # drawn 2-2
        match("z", "x", "1 1 1 ."),  # Z leads 3-0, board 4 unfinished: no match points yet
    ]
    table = team_table(teams, matches)
    x, y, z = table.row("x"), table.row("y"), table.row("z")
    assert (x.match_points, x.game_points, x.played, x.unfinished) == (2, 2.5, 1, 1)
    assert (y.match_points, y.game_points, y.played, y.wins, y.draws, y.losses) == (
        1,
        3.5,
        2,
        0,
        1,
        1,
    )
    assert (z.match_points, z.game_points, z.played, z.unfinished) == (1, 5.0, 1, 1)
    assert [r.team for r in table.rows] == ["x", "z", "y"]
    assert x.board_points == (1.0, 0.5, 0.0, 1.0)
    text = render_team_table(table)
    assert text.splitlines()[:4] == [
        "Place  No  Team  1    2    3   MP  GP  Played",
        "1       1  X     X    (0)  2½   2  2½       1",
        "2       2  Z     (3)  X    2    1   5       1",
        "3       3  Y     1½   2    X    1  3½       2",
    ]
    assert "(1½) match not yet decided" in text


def test_game_points_before_head_to_head() -> None:
    # (2): A and B have 4 match points each; B beat A, but A has more game points.
    teams = [("b", "B"), ("a", "A"), ("c", "C"), ("d", "D")]
    matches = [
        match("a", "b", "0 ½"),  # B wins 1½-½
        match("a", "c", "1 1"),
        match("a", "d", "1 1"),
        match("b", "c", "1 ½"),
        match("b", "d", "½ 0"),  # D wins 1½-½
        match("c", "d", "½ ½"),
    ]
    table = team_table(teams, matches)
    assert [(r.team, r.match_points, r.game_points) for r in table.rows] == [
        ("a", 4, 4.5),
        ("b", 4, 3.5),
        ("d", 3, 2.5),
        ("c", 1, 1.5),
    ]


def test_head_to_head_before_board_wins() -> None:
    # (3): X and Y: 3 match points, 6 game points. X beat Y 2½-1½, although Y
    # won board 1 of that match (which criterion 4 would favour).
    teams = [("y", "Y"), ("x", "X"), ("z", "Z"), ("w", "W")]
    matches = [
        match("x", "y", "0 1 1 ½"),
        match("x", "z", "½ ½ ½ 0"),
        match("x", "w", "½ ½ ½ ½"),
        match("y", "z", "½ ½ ½ ½"),
        match("y", "w", "1 ½ ½ ½"),
        match("z", "w", "1 1 1 1"),
    ]
    table = team_table(teams, matches)
    x, y = table.row("x"), table.row("y")
    assert (x.match_points, x.game_points) == (y.match_points, y.game_points) == (3, 6.0)
    assert team_order(teams, matches) == [("1", "z"), ("2", "x"), ("3", "y"), ("4", "w")]


def test_board_wins_before_board_points() -> None:
    # (4): X - Y drawn 1-1, X won board 1. Y has more points on board 1 over
    # the event (criterion 5), and had Black on board 1 (criterion 6).
    teams = [("y", "Y"), ("x", "X"), ("z", "Z"), ("w", "W")]
    matches = [
        match("x", "y", "1 0"),
        match("x", "z", "½ 1"),
        match("x", "w", "0 ½"),
        match("y", "z", "1 0"),
        match("y", "w", "1 0"),
        match("z", "w", "0 0"),
    ]
    table = team_table(teams, matches)
    x, y = table.row("x"), table.row("y")
    assert (x.match_points, x.game_points) == (y.match_points, y.game_points) == (3, 3.0)
    assert (x.board_points, y.board_points) == ((1.5, 1.5), (2.0, 1.0))
    assert team_order(teams, matches) == [("1", "w"), ("2", "x"), ("3", "y"), ("4", "z")]


def test_board_wins_look_at_board_2_when_board_1_was_drawn() -> None:
    # 4 boards, X - Y 2-2: board 1 drawn, Y won board 2, X won board 3, board 4
    # drawn. Y's win is on the higher board.
    teams = [("x", "X"), ("y", "Y")]
    matches = [match("x", "y", "½ 0 1 ½")]
    assert team_order(teams, matches) == [("1", "y"), ("2", "x")]


def test_board_points_before_black_on_board_one() -> None:
    # (5): X - Y drawn on every board; X has 2½ points on board 1 over the
    # event, Y 1. Y had Black on board 1 against X (criterion 6).
    teams = [("y", "Y"), ("x", "X"), ("z", "Z"), ("w", "W")]
    matches = [
        match("x", "y", "½ ½"),
        match("x", "z", "1 0"),
        match("y", "z", "0 1"),
        match("x", "w", "1 ½"),
        match("y", "w", "½ 1"),
        match("z", "w", "½ ½"),
    ]
    table = team_table(teams, matches)
    x, y = table.row("x"), table.row("y")
    assert (x.match_points, x.game_points) == (y.match_points, y.game_points) == (4, 3.5)
    assert (x.board_points[0], y.board_points[0]) == (2.5, 1.0)
    assert team_order(teams, matches) == [("1", "x"), ("2", "y"), ("3", "z"), ("4", "w")]


@pytest.mark.parametrize(("home_has_white", "first"), [(True, "y"), (False, "x")])
def test_black_on_board_one_is_the_last_criterion(home_has_white: bool, first: str) -> None:
    # (6): X and Y have identical results everywhere; their match X - Y is
    # drawn on every board. The team with Black on board 1 in it is ahead.
    teams = [("x", "X"), ("y", "Y"), ("z", "Z"), ("w", "W")]
    matches = [
        match("x", "y", "½ ½", home_has_white),
        match("x", "z", "1 0"),
        match("y", "z", "1 0"),
        match("x", "w", "1 ½"),
        match("y", "w", "1 ½"),
        match("z", "w", "½ ½"),
    ]
    table = team_table(teams, matches)
    x, y = table.row("x"), table.row("y")
    assert (x.match_points, x.game_points, x.board_points) == (
        y.match_points,
        y.game_points,
        y.board_points,
    )
    order = team_order(teams, matches)
    assert order[:2] == [("1", first), ("2", "y" if first == "x" else "x")]


def test_teams_level_on_everything_share_the_place() -> None:
    # Two drawn matches with the colours swapped: each had Black on board 1 once.
    teams = [("x", "X"), ("y", "Y")]
    matches = [match("x", "y", "½ ½ ½ ½"), match("y", "x", "½ ½ ½ ½")]
    assert team_order(teams, matches) == [("1-2", "x"), ("1-2", "y")]
    text = render_team_table(team_table(teams, matches), "ru")
    assert text.splitlines()[0].split()[-3:] == ["КО", "Очки", "Матчи"]
    assert text.splitlines()[1].split()[3:5] == ["X", "2"]


def test_three_teams_level_use_their_matches_among_themselves() -> None:
    # X beat Y, Y beat Z, Z beat X, each 2-0; each beat W 1½-½ (X and Z on
    # board 1, Y on board 2). X, Y, Z: 4 match points, 3½ game points; among
    # themselves 2 match points and one board win on each board: level on (1)-(4).
    # Board 1 over the event: X 2, Z 2, Y 1½, so Y is third. X and Z are then
    # compared afresh from (3): Z beat X.
    teams = [("x", "X"), ("y", "Y"), ("z", "Z"), ("w", "W")]
    matches = [
        match("x", "y", "1 1"),
        match("y", "z", "1 1"),
        match("z", "x", "1 1"),
        match("w", "x", "0 ½"),
        match("w", "y", "½ 0"),
        match("w", "z", "0 ½"),
    ]
    table = team_table(teams, matches)
    assert [(r.team, r.match_points, r.game_points, r.board_points) for r in table.rows] == [
        ("z", 4, 3.5, (2.0, 1.5)),
        ("x", 4, 3.5, (2.0, 1.5)),
        ("y", 4, 3.5, (1.5, 2.0)),
        ("w", 0, 1.5, (0.5, 1.0)),
    ]
    assert [r.place for r in table.rows] == ["1", "2", "3", "4"]


def test_bad_matches_are_refused() -> None:
    teams = [("x", "X"), ("y", "Y")]
    with pytest.raises(BoardCountError):
        team_table(teams, [match("x", "y", "1 0"), match("y", "x", "1 0 1")])
    with pytest.raises(UnknownEntrantError):
        team_table(teams, [match("x", "q", "1 0")])
    with pytest.raises(SelfPairingError):
        match("x", "x", "1 0")
    with pytest.raises(BoardCountError):
        Match("x", "y", ())
    with pytest.raises(UnreadableResultError):
        Match("x", "y", ("2-0",))
    with pytest.raises(DuplicateEntrantError):
        team_table([("x", "X"), ("x", "X")], [])
    with pytest.raises(UnknownLanguageError):
        render_team_table(team_table(teams, []), "fr")
