from __future__ import annotations

import collections
import dataclasses
import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from mailbot.rules.profile import DayCounting
from mailbot.store.startfields import StartListError
from mailbot.store.startlist import (
    load_start_list,
    parse_start_list,
    start_list_from_mapping,
)

# The example of the stable surface, verbatim.
CONTRACT_EXAMPLE = """\
index: BG-2026-E1            # appears in every subject; games are INDEX/N
name: National e-mail championship
profile: bg-email            # bg-email | bg-post | iccf-postal | iccf-server
start: 2026-03-01            # clocks start here (docs/rules.md 2.1)
end: 2027-06-30
language: bg                 # en | bg | ru: the bot's language for this event
notation: bg-cyrillic        # en | bg-cyrillic | bg-latin | ru | de | iccf-numeric | figurine
conditional_moves: true
director: {name: Georgi Georgiev, email: td@federation.example}
players:
  - {id: ivanov, name: Ivan Ivanov, email: ivanov@example.org}
  - {id: petrov, name: Petar Petrov, email: petrov@example.org, language: en, notation: en}
games: round-robin           # round-robin | double-round-robin | a list of {white: ID, black: ID}
"""


def example(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(CONTRACT_EXAMPLE)
    data.update(changes)
    return data


def players(n: int) -> list[dict[str, str]]:
    return [{"id": f"p{i}", "name": f"Player {i}", "email": f"p{i}@example.org"} for i in range(n)]


def test_contract_example() -> None:
    s = parse_start_list(CONTRACT_EXAMPLE)
    assert s.index == "BG-2026-E1"
    assert s.name == "National e-mail championship"
    assert s.profile.name == "bg-email"
    assert s.profile.day_counting is DayCounting.CALENDAR_AFTER_RECEIPT
    assert s.rules == {}
    assert (s.start, s.end) == (datetime.date(2026, 3, 1), datetime.date(2027, 6, 30))
    assert (s.language, s.notation, s.conditional_moves) == ("bg", "bg-cyrillic", True)
    assert s.timezone == "Europe/Sofia"
    assert (s.director.name, s.director.email) == ("Georgi Georgiev", "td@federation.example")
    assert [(p.id, p.email, p.language, p.notation) for p in s.players] == [
        ("ivanov", "ivanov@example.org", None, None),
        ("petrov", "petrov@example.org", "en", "en"),
    ]
    assert [(g.number, g.white, g.black, g.round, g.board) for g in s.games] == [
        (1, "ivanov", "petrov", 1, 1)
    ]
    assert s.player("petrov").name == "Petar Petrov"
    assert s.director.gender is None  # the name tells it


def test_the_director_may_carry_a_gender_as_a_player_does() -> None:
    """``director: {name, email, gender: f}``: the start list's gender, for a name
    that tells none (or another)."""
    director = {"name": "Kim Lee", "email": "td@federation.example", "gender": "f"}
    s = start_list_from_mapping(example(director=director))
    assert (s.director.name, s.director.gender) == ("Kim Lee", "f")


def test_result_is_immutable() -> None:
    s = parse_start_list(CONTRACT_EXAMPLE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.index = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        s.rules["days_per_control"] = 1  # type: ignore[index]


@pytest.mark.parametrize("n", range(2, 11))
def test_round_robin_counts(n: int) -> None:
    single = start_list_from_mapping(example(players=players(n)))
    double = start_list_from_mapping(example(players=players(n), games="double-round-robin"))
    assert len(single.games) == n * (n - 1) // 2
    assert len(double.games) == n * (n - 1)
    for s in (single, double):
        assert [g.number for g in s.games] == list(range(1, len(s.games) + 1))
        # Numbered by round, then board.
        keys = [(g.round, g.board) for g in s.games]
        assert keys == sorted(keys)
    pairs = collections.Counter((g.white, g.black) for g in double.games)
    assert all(pairs[(b, w)] == 1 for w, b in pairs)


def test_round_robin_follows_the_berger_table() -> None:
    s = start_list_from_mapping(example(players=players(4)))
    assert [(g.number, g.round, g.board, g.white, g.black) for g in s.games] == [
        (1, 1, 1, "p0", "p3"),
        (2, 1, 2, "p1", "p2"),
        (3, 2, 1, "p3", "p2"),
        (4, 2, 2, "p0", "p1"),
        (5, 3, 1, "p1", "p3"),
        (6, 3, 2, "p2", "p0"),
    ]


def test_explicit_games_keep_their_order() -> None:
    games = [
        {"white": "p2", "black": "p0"},
        {"white": "p0", "black": "p1"},
        {"white": "p1", "black": "p2"},
        {"white": "p0", "black": "p2"},
    ]
    s = start_list_from_mapping(example(players=players(3), games=games))
    assert [(g.number, g.white, g.black, g.round) for g in s.games] == [
        (1, "p2", "p0", None),
        (2, "p0", "p1", None),
        (3, "p1", "p2", None),
        (4, "p0", "p2", None),
    ]


def test_rules_override_the_profile() -> None:
    s = start_list_from_mapping(example(profile="bg-post", rules={"days_per_control": 40}))
    assert s.profile.name == "bg-post"
    assert s.profile.days_per_control == 40
    assert s.profile.oversteps_to_lose == 2
    assert dict(s.rules) == {"days_per_control": 40}


def test_every_mistake_of_the_rules_overrides_is_its_own_line() -> None:
    rules = {"days_per_control": "forty", "auto_forfeit": "yes", "colour": "red"}
    with pytest.raises(StartListError) as caught:
        start_list_from_mapping(example(rules=rules, end="soon"))
    assert str(caught.value).splitlines() == [
        "rules.days_per_control: must be a whole number",
        "rules.auto_forfeit: must be true or false",
        "rules.colour: unknown rule parameter",
        "end: must be a date like 2026-03-01",
    ]


def test_timezone_defaults_to_the_profile_and_can_be_set() -> None:
    assert start_list_from_mapping(example(profile="iccf-server")).timezone == "UTC"
    assert start_list_from_mapping(example(timezone="Europe/Moscow")).timezone == "Europe/Moscow"


def test_optional_keys_default() -> None:
    data = example()
    for key in ("language", "notation", "conditional_moves"):
        del data[key]
    s = start_list_from_mapping(data)
    assert (s.language, s.notation, s.conditional_moves) == ("en", "en", False)


def test_emails_are_normalised_and_numbers_are_ids() -> None:
    data = example(
        players=[
            {"id": 1, "name": "A", "email": " Ivan.Ivanov@Example.ORG "},
            {"id": 2, "name": "B", "email": "b@example.org"},
        ],
        games=[{"white": 2, "black": 1}],
    )
    s = start_list_from_mapping(data)
    assert s.players[0].email == "ivan.ivanov@example.org"
    assert (s.games[0].white, s.games[0].black) == ("2", "1")


def test_dates_may_be_quoted() -> None:
    s = start_list_from_mapping(example(start="2026-03-01", end="2026-12-31"))
    assert s.end == datetime.date(2026, 12, 31)


def test_load_from_file(tmp_path: Path) -> None:
    path = tmp_path / "start.yaml"
    path.write_text(CONTRACT_EXAMPLE, encoding="utf-8")
    assert load_start_list(path).index == "BG-2026-E1"
    with pytest.raises(StartListError, match="file not found"):
        load_start_list(tmp_path / "missing.yaml")


def _without(key: str) -> dict[str, Any]:
    data = example()
    del data[key]
    return data


def _player(i: int, **changes: Any) -> dict[str, Any]:
    ps: list[dict[str, Any]] = players(3)
    ps[i] = {**ps[i], **changes}
    return example(players=ps)


def _player_without(i: int, key: str) -> dict[str, Any]:
    ps: list[dict[str, Any]] = players(3)
    del ps[i][key]
    return example(players=ps)


ERRORS: list[tuple[str, Any, str, str]] = [
    ("unknown key", example(rounds=3), "rounds", "unknown key"),
    ("index missing", _without("index"), "index", "is required"),
    ("index with a slash", example(index="BG/1"), "index", "letters, digits"),
    ("name not text", example(name=["x"]), "name", "must be text"),
    ("name empty", example(name="  "), "name", "must not be empty"),
    ("unknown profile", example(profile="fide"), "profile", "must be one of bg-email"),
    ("unknown rule", example(rules={"days": 3}), "rules.days", "unknown rule parameter"),
    ("bad rule type", example(rules={"penalty_days": "5"}), "rules.penalty_days", "whole number"),
    ("rules not a mapping", example(rules=[1]), "rules", "mapping"),
    ("start missing", _without("start"), "start", "is required"),
    ("start with time", example(start=datetime.datetime(2026, 3, 1, 9)), "start", "without"),
    ("end not a date", example(end="soon"), "end", "must be a date"),
    ("end before start", example(end=datetime.date(2026, 2, 1)), "end", "after start"),
    ("end on start", example(end=datetime.date(2026, 3, 1)), "end", "after start"),
    ("timezone unknown", example(timezone="Mars/Olympus"), "timezone", "unknown time zone"),
    ("language unknown", example(language="de"), "language", "one of en, bg, ru"),
    ("notation unknown", example(notation="fr"), "notation", "must be one of"),
    ("conditional not bool", example(conditional_moves="yes"), "conditional_moves", "true or"),
    ("director missing", _without("director"), "director", "is required"),
    ("director email", example(director={"name": "T", "email": "td"}), "director.email", "valid"),
    (
        "director extra",
        example(director={"name": "T", "email": "t@x.org", "p": 1}),
        "director.p",
        "unknown",
    ),
    (
        "director gender",
        example(director={"name": "T", "email": "t@x.org", "gender": "w"}),
        "director.gender",
        "one of f, m",
    ),
    ("players missing", _without("players"), "players", "is required"),
    ("one player", example(players=players(1)), "players", "at least two"),
    ("player not a mapping", example(players=["ivanov", "petrov"]), "players[0]", "must be {id"),
    ("player id missing", _player_without(1, "id"), "players[1].id", "is required"),
    ("player id bad", _player(1, id="a b"), "players[1].id", "letters, digits"),
    ("player id twice", _player(2, id="p0"), "players[2].id", "already players[0]"),
    ("player name missing", _player_without(2, "name"), "players[2].name", "is required"),
    ("player email missing", _player_without(2, "email"), "players[2].email", "is required"),
    ("player email bad", _player(2, email="p2@"), "players[2].email", "not a valid e-mail"),
    ("player email twice", _player(2, email="P0@example.org"), "players[2].email", "players[0]"),
    ("player language", _player(1, language="fr"), "players[1].language", "one of en, bg, ru"),
    ("player notation", _player(0, notation="xx"), "players[0].notation", "must be one of"),
    ("player extra key", _player(0, club="Levski"), "players[0].club", "unknown key"),
    ("player rating", _player(0, rating="high"), "players[0].rating", "whole number"),
    ("player country", _player(0, country="Bulgaria"), "players[0].country", "three letters"),
    ("games missing", _without("games"), "games", "is required"),
    ("games unknown word", example(games="swiss"), "games", "round-robin, double"),
    ("games empty", example(games=[]), "games", "at least one game"),
    ("game not a mapping", example(games=["ivanov-petrov"]), "games[0]", "white: ID"),
    ("game white missing", example(games=[{"black": "ivanov"}]), "games[0].white", "required"),
    (
        "game unknown player",
        example(games=[{"white": "ivanov", "black": "petrov"}, {"white": "x", "black": "ivanov"}]),
        "games[1].white",
        "x is not in players",
    ),
    (
        "self game",
        example(games=[{"white": "ivanov", "black": "ivanov"}]),
        "games[0]",
        "themselves",
    ),
    (
        "game extra key",
        example(games=[{"white": "ivanov", "black": "petrov", "round": 1}]),
        "games[0].round",
        "unknown",
    ),
]


@pytest.mark.parametrize(
    ("data", "path", "message"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS]
)
def test_errors_name_the_key(data: Any, path: str, message: str) -> None:
    with pytest.raises(StartListError) as caught:
        start_list_from_mapping(data)
    assert caught.value.path == path
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("- a\n- b\n", "mapping"),
        ("index: [unclosed\n", "line 2, column 1: not valid YAML"),
    ],
)
def test_file_level_errors(text: str, message: str) -> None:
    with pytest.raises(StartListError, match=message):
        parse_start_list(text)


def test_every_mistake_is_reported_in_one_reading_with_its_line(tmp_path: Path) -> None:
    """A TD who made four mistakes learns of all four at once, each where it is."""
    text = CONTRACT_EXAMPLE.replace("index: BG-2026-E1", "index: BG/2026") + ("rounds: 3\n")
    text = text.replace("email: petrov@example.org", "email: petrov@")
    text = text.replace(
        "  - {id: petrov,",
        "  - {id: ivanov, name: Ivan Again, email: again@example.org}\n  - {id: petrov,",
    )
    path = tmp_path / "start.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(StartListError) as caught:
        load_start_list(path)
    lines = str(caught.value).splitlines()
    assert [m.path for m in caught.value.mistakes] == [
        "rounds",
        "index",
        "players[1].id",
        "players[2].email",
    ]
    assert len(lines) == 4
    assert lines[0].startswith(f"{path}, line 15, column 9: rounds: unknown key")
    assert lines[1].startswith(f"{path}, line 1, column 8: index: must be letters")
    assert lines[2].startswith(f"{path}, line 12, column 10: players[1].id: ivanov is already")
    assert lines[3].startswith(f"{path}, line 13, column ")
    assert "players[2].email" in lines[3]


def test_every_bad_row_of_a_players_csv_is_named_by_its_line(tmp_path: Path) -> None:
    (tmp_path / "players.csv").write_text(
        "id,name,email\n"
        "ivanov,Ivan Ivanov,ivanov@example.org\n"
        "petrov,,petrov@example.org\n"
        "popov,Pavel Popov,popov@example.org\n"
        "popov,Pavel Again,not-an-address\n",
        encoding="utf-8",
    )
    text = CONTRACT_EXAMPLE.replace(
        "players:\n"
        "  - {id: ivanov, name: Ivan Ivanov, email: ivanov@example.org}\n"
        "  - {id: petrov, name: Petar Petrov, email: petrov@example.org, language: en, "
        "notation: en}\n",
        "players: players.csv\n",
    )
    path = tmp_path / "start.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(StartListError) as caught:
        load_start_list(path)
    lines = str(caught.value).splitlines()
    csv_name = str(tmp_path / "players.csv")
    assert lines[0].startswith(f"{csv_name}, line 3")
    assert "players[1].name" in lines[0]
    assert lines[1].startswith(f"{csv_name}, line 5, column 1 (id): players[3].id: popov is")
    assert len(lines) == 2
