"""The start list of a tournament (YAML): players, pairings, dates, profile.

Games are numbered from 1: a given list in its order, a round robin by round
and then board of its Berger table::

    >>> text = '''
    ... index: BG-2026-E1
    ... name: National e-mail championship
    ... profile: bg-email
    ... start: 2026-03-01
    ... end: 2027-06-30
    ... director: {name: Georgi Georgiev, email: td@federation.example}
    ... players:
    ...   - {id: ivanov, name: Ivan Ivanov, email: Ivanov@Example.org}
    ...   - {id: petrov, name: Petar Petrov, email: petrov@example.org, language: en}
    ...   - {id: popov, name: Pavel Popov, email: popov@example.org}
    ... games: round-robin
    ... '''
    >>> start_list = parse_start_list(text)
    >>> start_list.players[0].email, start_list.timezone
    ('ivanov@example.org', 'Europe/Sofia')
    >>> [(g.number, g.round, g.white, g.black) for g in start_list.games]
    [(1, 1, 'petrov', 'popov'), (2, 2, 'ivanov', 'petrov'), (3, 3, 'popov', 'ivanov')]
    >>> try:
    ...     parse_start_list(text.replace("Ivanov@Example.org", "petrov@example.org"))
    ... except StartListError as exc:
    ...     print(exc.where, "|", exc)  # doctest: +NORMALIZE_WHITESPACE
    start list, line 10, column 45 | start list, line 10, column 45: players[1].email:
    petrov@example.org is already players[0]
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import re
import types
import zoneinfo
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict

import yaml

from mailbot.rules.languages import CODES
from mailbot.rules.profile import Profile, ProfileError, profile
from mailbot.store.startfields import (
    INDEX_RULE,
    NOTATIONS,
    Director,
    Mistakes,
    StartListError,
    StartListErrors,
    is_index,
    read_choice,
    read_date,
    read_director,
    read_flag,
    read_name,
    read_text,
)
from mailbot.store.startgames import Pairing, read_games
from mailbot.store.startplayers import PlayerEntry, check_roles, players_from_csv, read_players
from mailbot.store.startteams import TeamEntry, in_teams, read_boards, read_teams
from mailbot.store.yamltext import YamlProblem, compose_yaml

_KEYS = {
    "index",
    "name",
    "profile",
    "rules",
    "start",
    "end",
    "timezone",
    "language",
    "notation",
    "conditional_moves",
    "forward_messages",
    "director_digest",
    "director",
    "players",
    "teams",
    "boards",
    "games",
}


@dataclasses.dataclass(frozen=True)
class StartList:
    """A validated start list, its games expanded and numbered."""

    index: str
    name: str
    #: The profile with the ``rules:`` overrides applied.
    profile: Profile
    #: The ``rules:`` overrides as given (already validated).
    rules: Mapping[str, Any]
    start: datetime.date
    end: datetime.date
    timezone: str
    language: str
    notation: str
    conditional_moves: bool
    director: Director
    players: tuple[PlayerEntry, ...]
    games: tuple[Pairing, ...]
    #: The words a player writes beside a move reach the opponent (docs/contract.md).
    forward_messages: bool = True
    #: The TD gets a weekly digest of the event.
    director_digest: bool = False
    #: Team events: the teams and the number of boards of a match.
    teams: tuple[TeamEntry, ...] = ()
    boards: int | None = None

    def player(self, id: str) -> PlayerEntry:
        """The player with the start-list key ``id`` (KeyError if there is none)."""
        for entry in self.players:
            if entry.id == id:
                return entry
        raise KeyError(id)


def load_start_list(
    path: str | os.PathLike[str],
    *,
    special_use: bool = False,
    bot_addresses: Sequence[str] = (),
) -> StartList:
    """Read and validate the start-list file at ``path`` (see :func:`start_list_from_mapping`).

    ``players:`` may name a CSV file relative to the start list. A mistake is
    reported with the file, line and column where it is.
    """
    file = Path(path)
    text = _read(file, str(file))
    return parse_start_list(
        text,
        special_use=special_use,
        bot_addresses=bot_addresses,
        folder=file.parent,
        name=str(file),
    )


def _read(file: Path, name: str) -> str:
    try:
        return file.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise StartListError("", "file not found", name) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise StartListError("", f"cannot read the file: {exc}", name) from None


def parse_start_list(
    text: str,
    *,
    special_use: bool = False,
    bot_addresses: Sequence[str] = (),
    folder: Path | None = None,
    name: str = "start list",
) -> StartList:
    r"""Validate the start list in the YAML ``text``; ``folder`` is where a players CSV is.

    >>> try:
    ...     parse_start_list("index: X\nname: [", name="x.yaml")
    ... except StartListError as exc:
    ...     print(exc.where, "|", exc.message)
    x.yaml, line 2, column 8 | not valid YAML: expected the node content, but found '<stream end>'

    """
    try:
        data, node = compose_yaml(text)
    except YamlProblem as exc:
        where = f"{name}, {exc.where}" if exc.line else name
        raise StartListError("", f"not valid YAML: {exc.problem}", where) from None
    csv_rows: dict[int, tuple[int, dict[str, int]]] = {}
    csv_name = ""
    if isinstance(data, Mapping) and isinstance(data.get("players"), str):
        if folder is None:
            raise StartListError("players", "a CSV file can only be named in a start-list file")
        csv_name = str(folder / data["players"].strip())
        csv_text = _read(Path(csv_name), csv_name)
        data = dict(data)
        data["players"], csv_rows = players_from_csv(csv_text, csv_name)
    try:
        return start_list_from_mapping(data, special_use=special_use, bot_addresses=bot_addresses)
    except StartListError as exc:
        located = [_placed(m, node, name, csv_rows, csv_name) for m in exc.mistakes]
        raise (located[0] if len(located) == 1 else StartListErrors(located)) from None


def _placed(
    mistake: StartListError,
    node: yaml.Node | None,
    name: str,
    csv_rows: dict[int, tuple[int, dict[str, int]]],
    csv_name: str,
) -> StartListError:
    """The mistake with the file, line and column where it is (a CSV row's, or the YAML's)."""
    if mistake.where:
        return mistake
    row = _row_of(mistake.path)
    if csv_rows and row is not None and row in csv_rows:
        line, columns = csv_rows[row]
        field = mistake.path.rpartition(".")[2]
        column = f", column {columns[field]} ({field})" if field in columns else ""
        return mistake.at(f"{csv_name}, line {line}{column}")
    mark = _locate(node, mistake.path)
    return mistake.at(f"{name}, line {mark.line + 1}, column {mark.column + 1}" if mark else name)


def _row_of(path: str) -> int | None:
    found = re.match(r"players\[(\d+)\]", path)
    return int(found.group(1)) if found else None


def _locate(node: yaml.Node | None, path: str) -> yaml.Mark | None:
    """Where in the YAML the key ``path`` (``players[2].email``) is, as near as it exists."""
    if node is None:
        return None
    mark: yaml.Mark | None = node.start_mark
    for token in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if token.startswith("[") and isinstance(node, yaml.SequenceNode):
            i = int(token[1:-1])
            if i >= len(node.value):
                break
            node = node.value[i]
            mark = node.start_mark
        elif isinstance(node, yaml.MappingNode):
            pair = next(((k, v) for k, v in node.value if str(k.value) == token), None)
            if pair is None:
                break
            mark = pair[1].start_mark if pair[1].value not in (None, "") else pair[0].start_mark
            node = pair[1]
        else:
            break
    return mark


def start_list_from_mapping(
    data: Any, *, special_use: bool = False, bot_addresses: Sequence[str] = ()
) -> StartList:
    """Validate an already parsed start list.

    ``special_use`` lets addresses on special-use domains (``.local``, ``.test``)
    through; ``bot_addresses`` are the bot's own, which no player or director
    may have.

    Every mistake that does not hide another is reported, one line each:

    >>> try:
    ...     start_list_from_mapping({"index": "A/1", "name": "Cup", "profile": "bg-email",
    ...                              "start": "2026-03-01", "end": "2026-01-01"})
    ... except StartListError as exc:
    ...     print(exc)
    index: must be letters, digits, '.', '_' or '-' (at most 40), e.g. BG-2026-E1
    end: must be after start
    director: is required
    players: is required
    """
    if data is None:
        raise StartListError("", "the file is empty")
    if not isinstance(data, Mapping):
        raise StartListError("", "must be a mapping of keys to values")
    mistakes = Mistakes()
    mistakes.found.extend(
        StartListError(str(key), "unknown key") for key in data if key not in _KEYS
    )
    index = mistakes.check(lambda: _index(data), "")
    name = mistakes.check(lambda: read_name(data, "name"), "")
    rules = _rules(data, mistakes)
    rule_profile = mistakes.check(lambda: _profile(data, rules), None)
    start, end = _dates(data, mistakes)
    settings = _settings(data, rule_profile, mistakes)
    director, players = _people(data, special_use, bot_addresses, mistakes)
    mistakes.raise_any()
    assert rule_profile is not None and start is not None and end is not None
    assert director is not None
    boards = read_boards(data.get("boards"))
    teams = read_teams(data.get("teams"), players, boards, special_use)
    if teams:
        players = in_teams(players, teams)
    games = read_games(data.get("games"), [p.id for p in players], teams, boards)
    return StartList(
        index=index,
        name=name,
        profile=rule_profile,
        rules=types.MappingProxyType(rules),
        start=start,
        end=end,
        director=director,
        players=tuple(players),
        games=tuple(games),
        teams=tuple(teams),
        boards=boards if teams else None,
        **settings,
    )


def _people(
    data: Mapping[str, Any], special_use: bool, bot_addresses: Sequence[str], mistakes: Mistakes
) -> tuple[Director | None, list[PlayerEntry]]:
    """The director and the players, no player with the director's or the bot's address."""
    director = mistakes.check(lambda: read_director(data.get("director"), special_use), None)
    no_players: list[PlayerEntry] = []
    players = mistakes.check(lambda: read_players(data.get("players"), special_use), no_players)
    if director is not None and players:
        mistakes.check(lambda: check_roles(director, players, bot_addresses), None)
    return director, players


class _Settings(TypedDict):
    """The event's settings that have a default."""

    timezone: str
    language: str
    notation: str
    conditional_moves: bool
    forward_messages: bool
    director_digest: bool


def _settings(
    data: Mapping[str, Any], rule_profile: Profile | None, mistakes: Mistakes
) -> _Settings:
    """The time zone (the profile's by default), languages, notation and flags, each
    checked; a mistake is noted in ``mistakes`` and the default taken meanwhile."""
    return _Settings(
        timezone=mistakes.check(lambda: _timezone(data, rule_profile), "UTC"),
        language=mistakes.check(
            lambda: read_choice(data, "language", "language", CODES, default="en"), "en"
        ),
        notation=mistakes.check(
            lambda: read_choice(data, "notation", "notation", NOTATIONS, default="en"), "en"
        ),
        conditional_moves=mistakes.check(
            lambda: read_flag(data, "conditional_moves", False), False
        ),
        forward_messages=mistakes.check(lambda: read_flag(data, "forward_messages", True), True),
        director_digest=mistakes.check(lambda: read_flag(data, "director_digest", False), False),
    )


def _dates(
    data: Mapping[str, Any], mistakes: Mistakes
) -> tuple[datetime.date | None, datetime.date | None]:
    """``start:`` and ``end:``, the end after the start (None: a mistake, noted)."""
    start = mistakes.check(lambda: read_date(data, "start"), None)
    end = mistakes.check(lambda: read_date(data, "end"), None)
    if start is not None and end is not None and end <= start:
        mistakes.found.append(StartListError("end", "must be after start"))
    return start, end


def _index(data: Mapping[str, Any]) -> str:
    index = read_text(data, "index", "index")
    if not is_index(index):
        raise StartListError("index", f"must be {INDEX_RULE}")
    return index


def _rules(data: Mapping[str, Any], mistakes: Mistakes) -> dict[str, Any]:
    """The ``rules:`` overrides of the profile (none when they are not a mapping)."""
    rules = data.get("rules")
    if rules is None:
        rules = {}
    if not isinstance(rules, Mapping):
        mistakes.found.append(
            StartListError("rules", "must be a mapping of rule parameters to values")
        )
        rules = {}
    return {str(key): value for key, value in rules.items()}


def _timezone(data: Mapping[str, Any], rule_profile: Profile | None) -> str:
    default = rule_profile.timezone if rule_profile is not None else "UTC"
    timezone = read_text(data, "timezone", "timezone", default=default)
    try:
        zoneinfo.ZoneInfo(timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise StartListError("timezone", f"unknown time zone {timezone!r}") from None
    return timezone


def _profile(data: Mapping[str, Any], rules: dict[str, Any]) -> Profile:
    profile_name = read_text(data, "profile", "profile")
    try:
        return profile(profile_name, rules)
    except ProfileError as exc:
        raise StartListErrors([StartListError(p, m) for p, m in exc.mistakes]) from None
