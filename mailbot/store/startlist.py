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

import csv
import dataclasses
import datetime
import functools
import io
import os
import re
import types
import zoneinfo
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import yaml

from mailbot.mail.addresses import AddressError, check_address, normal_address, without_tag
from mailbot.rules.pairings import round_robin, team_round_robin
from mailbot.rules.profile import Profile, ProfileError, profile

#: The languages the bot writes in.
LANGUAGES = ("en", "bg", "ru")
#: The notations the bot writes moves in (docs/rules.md 3.1).
NOTATIONS = ("en", "bg-cyrillic", "bg-latin", "ru", "de", "iccf-numeric", "figurine")

T = TypeVar("T")

_INDEX = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}\Z")
_PLAYER_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
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
_PLAYER_KEYS = (
    "id",
    "name",
    "email",
    "language",
    "notation",
    "secret",
    "gender",
    "country",
    "rating",
    "team",
    "board",
)
#: The columns a CSV of players may have (``id,name,email`` are required).
CSV_COLUMNS = tuple(k for k in _PLAYER_KEYS if k != "secret")


class StartListError(ValueError):
    """The start list is not valid; ``path`` names the key (``players[2].email``).

    ``where`` names the file, line and column when they are known.
    """

    def __init__(self, path: str, message: str, where: str = "") -> None:
        text = f"{path}: {message}" if path else message
        super().__init__(f"{where}: {text}" if where else text)
        self.path = path
        self.message = message
        self.where = where

    def at(self, where: str) -> StartListError:
        """The same mistake, placed at ``where`` (``start.yaml, line 7, column 12``)."""
        return StartListError(self.path, self.message, where)

    @property
    def mistakes(self) -> tuple[StartListError, ...]:
        """Every mistake found, in the order of the file (this one alone, here)."""
        return (self,)


class StartListErrors(StartListError):
    """Several mistakes in one start list, all found in one reading; its text is one
    line a mistake, and its ``path``, ``message`` and ``where`` are the first one's.

    >>> errors = StartListErrors([StartListError("index", "is required"),
    ...                           StartListError("end", "must be after start")])
    >>> print(errors)
    index: is required
    end: must be after start
    """

    def __init__(self, mistakes: Sequence[StartListError]) -> None:
        found = tuple(m for mistake in mistakes for m in mistake.mistakes)
        first = found[0]
        super().__init__(first.path, first.message, first.where)
        self.args = ("\n".join(str(m) for m in found),)
        self._mistakes = found

    def __str__(self) -> str:
        return str(self.args[0])

    @property
    def mistakes(self) -> tuple[StartListError, ...]:
        return self._mistakes


class _Mistakes:
    """Mistakes gathered while the checks go on, raised together at the end."""

    def __init__(self) -> None:
        self.found: list[StartListError] = []

    def check(self, check: Callable[[], T], fallback: T) -> T:
        """What ``check()`` gives, or ``fallback`` after noting its mistake."""
        try:
            return check()
        except StartListError as mistake:
            self.found.append(mistake)
            return fallback

    def raise_any(self) -> None:
        if len(self.found) == 1:
            raise self.found[0]
        if self.found:
            raise StartListErrors(self.found)


@dataclasses.dataclass(frozen=True)
class Director:
    """The tournament director, who receives copies and claims."""

    name: str
    email: str


@dataclasses.dataclass(frozen=True)
class PlayerEntry:
    """One player: ``id`` is the start list's key, ``email`` is normalised (lower case)."""

    id: str
    name: str
    email: str
    #: Overrides the event's language for what this player receives.
    language: str | None = None
    #: Overrides the event's notation for what this player receives.
    notation: str | None = None
    #: A token the player's messages must carry (in the body or as ``bot+TOKEN@``),
    #: for federations whose mail has no DMARC.
    secret: str | None = dataclasses.field(default=None, repr=False)
    #: ``f`` or ``m``, for the Bulgarian and Russian forms of address.
    gender: str | None = None
    #: ISO 3166 alpha-3 (``BGR``), for the site and the PGN.
    country: str | None = None
    rating: int | None = None
    #: Other addresses the player writes from; mail goes to ``email``.
    addresses: tuple[str, ...] = ()
    #: The team's id and the place in its board order (CSV columns ``team``, ``board``).
    team: str | None = None
    board: int | None = None


@dataclasses.dataclass(frozen=True)
class TeamEntry:
    """A team: its players in board order, substitutes after the boards."""

    id: str
    name: str
    players: tuple[str, ...]
    captain: Director | None = None


@dataclasses.dataclass(frozen=True)
class Pairing:
    """One game of the start list: ``round`` and ``board`` are set for round robins."""

    number: int
    white: str
    black: str
    round: int | None = None
    board: int | None = None


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

    def team_of(self, player: str) -> TeamEntry | None:
        """The team ``player`` plays for, if any."""
        return next((t for t in self.teams if player in t.players), None)

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
    except (OSError, UnicodeDecodeError) as exc:
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
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        where = f"{name}, line {mark.line + 1}, column {mark.column + 1}" if mark else name
        raise StartListError("", f"not valid YAML: {problem}", where) from None
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


def players_from_csv(
    text: str, name: str = "players.csv"
) -> tuple[list[dict[str, str]], dict[int, tuple[int, dict[str, int]]]]:
    r"""The players of a CSV file, and for each the line and the column of each field.

    >>> rows, where = players_from_csv("id,name,email\nivanov,Ivan Ivanov,ivan@example.org\n")
    >>> rows, where
    ([{'id': 'ivanov', 'name': 'Ivan Ivanov', 'email': 'ivan@example.org'}], {0: (2, {'id': 1, 'name': 2, 'email': 3})})
    >>> players_from_csv("id;name\n")
    Traceback (most recent call last):
    ...
    mailbot.store.startlist.StartListError: players.csv, line 1: players: the header must name the columns id, name, email
    """  # noqa: E501
    sample = text[:4096]
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(sample, delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text), dialect)
    try:
        header = [h.strip().lower() for h in next(reader)]
    except StopIteration:
        raise StartListError("players", "the CSV file is empty", name) from None
    except csv.Error as exc:
        raise StartListError("players", f"not a CSV file: {exc}", f"{name}, line 1") from None
    for i, column in enumerate(header):
        if column not in CSV_COLUMNS:
            known = ", ".join(CSV_COLUMNS)
            raise StartListError(
                "players",
                f"unknown column {column!r} (known: {known})",
                f"{name}, line 1, column {i + 1}",
            )
        if header.index(column) != i:
            raise StartListError(
                "players", f"column {column!r} twice", f"{name}, line 1, column {i + 1}"
            )
    if not {"id", "name", "email"} <= set(header):
        raise StartListError(
            "players", "the header must name the columns id, name, email", f"{name}, line 1"
        )
    columns = {column: i + 1 for i, column in enumerate(header)}
    rows: list[dict[str, str]] = []
    where: dict[int, tuple[int, dict[str, int]]] = {}
    try:
        for fields in reader:
            if not any(f.strip() for f in fields):
                continue
            line = reader.line_num
            if len(fields) != len(header):
                raise StartListError(
                    f"players[{len(rows)}]",
                    f"{len(fields)} fields where the header has {len(header)}",
                    f"{name}, line {line}",
                )
            row = {h: f.strip() for h, f in zip(header, fields, strict=True) if f.strip()}
            where[len(rows)] = (line, columns)
            rows.append(row)
    except csv.Error as exc:
        raise StartListError(
            "players", f"not a CSV file: {exc}", f"{name}, line {reader.line_num}"
        ) from None
    return rows, where


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
    index: must be letters, digits, '.', '_' or '-' (at most 40)
    end: must be after start
    director: is required
    players: is required
    """
    if data is None:
        raise StartListError("", "the file is empty")
    if not isinstance(data, Mapping):
        raise StartListError("", "must be a mapping of keys to values")
    mistakes = _Mistakes()
    for key in data:
        if key not in _KEYS:
            mistakes.found.append(StartListError(str(key), "unknown key"))

    def checked_index() -> str:
        index = _text(data, "index", "index")
        if not _INDEX.match(index):
            raise StartListError("index", "must be letters, digits, '.', '_' or '-' (at most 40)")
        return index

    index = mistakes.check(checked_index, "")
    name = mistakes.check(lambda: _name(data, "name"), "")
    rules = data.get("rules")
    if rules is None:
        rules = {}
    if not isinstance(rules, Mapping):
        mistakes.found.append(
            StartListError("rules", "must be a mapping of rule parameters to values")
        )
        rules = {}
    rules = {str(key): value for key, value in rules.items()}
    rule_profile = mistakes.check(lambda: _profile(data, rules), None)

    start = mistakes.check(lambda: _date(data, "start"), None)
    end = mistakes.check(lambda: _date(data, "end"), None)
    if start is not None and end is not None and end <= start:
        mistakes.found.append(StartListError("end", "must be after start"))

    def checked_timezone() -> str:
        default = rule_profile.timezone if rule_profile is not None else "UTC"
        timezone = _text(data, "timezone", "timezone", default=default)
        try:
            zoneinfo.ZoneInfo(timezone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise StartListError("timezone", f"unknown time zone {timezone!r}") from None
        return timezone

    timezone = mistakes.check(checked_timezone, "UTC")
    language = mistakes.check(
        lambda: _choice(data, "language", "language", LANGUAGES, default="en"), "en"
    )
    notation = mistakes.check(
        lambda: _choice(data, "notation", "notation", NOTATIONS, default="en"), "en"
    )
    conditional_moves = mistakes.check(lambda: _flag(data, "conditional_moves", False), False)
    forward_messages = mistakes.check(lambda: _flag(data, "forward_messages", True), True)
    director_digest = mistakes.check(lambda: _flag(data, "director_digest", False), False)

    director = mistakes.check(lambda: _director(data.get("director"), special_use), None)
    no_players: list[PlayerEntry] = []
    players = mistakes.check(lambda: _players(data.get("players"), special_use), no_players)
    if director is not None and players:
        mistakes.check(lambda: _check_roles(director, players, bot_addresses), None)
    mistakes.raise_any()
    assert rule_profile is not None and start is not None and end is not None
    assert director is not None
    boards = _boards(data.get("boards"))
    teams = _teams(data.get("teams"), players, boards, special_use)
    if teams:
        players = [
            dataclasses.replace(p, team=t.id, board=t.players.index(p.id) + 1)
            if (t := next((t for t in teams if p.id in t.players), None))
            else p
            for p in players
        ]
    games = _games(data.get("games"), [p.id for p in players], teams, boards)
    return StartList(
        index=index,
        name=name,
        profile=rule_profile,
        rules=types.MappingProxyType(rules),
        start=start,
        end=end,
        timezone=timezone,
        language=language,
        notation=notation,
        conditional_moves=conditional_moves,
        forward_messages=forward_messages,
        director_digest=director_digest,
        director=director,
        players=tuple(players),
        games=tuple(games),
        teams=tuple(teams),
        boards=boards if teams else None,
    )


def _profile(data: Mapping[str, Any], rules: dict[str, Any]) -> Profile:
    profile_name = _text(data, "profile", "profile")
    try:
        return profile(profile_name, rules)
    except ProfileError as exc:
        raise StartListError(exc.path, str(exc)[len(exc.path) + 2 :]) from None


def _flag(data: Mapping[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise StartListError(key, "must be true or false")
    return value


def normalise_email(path: str, address: Any, special_use: bool = False) -> str:
    """The address in the form the bot compares: validated, in its normal form.

    >>> normalise_email("email", "Ivan.Ivanov@Example.ORG")
    'ivan.ivanov@example.org'
    >>> normalise_email("email", "ivan@xn--e1afmkfd.xn--90ae")
    'ivan@пример.бг'
    """
    if not isinstance(address, str) or not address.strip():
        raise StartListError(path, "must be an e-mail address")
    try:
        return check_address(address, special_use=special_use)
    except AddressError as exc:
        raise StartListError(path, str(exc)) from None


def _check_roles(
    director: Director, players: Sequence[PlayerEntry], bot_addresses: Sequence[str]
) -> None:
    """No player writes from the director's or the bot's address: mail from there
    would be read as orders, or as the bot's own (and never answered)."""
    bots = {without_tag(normal_address(a)) for a in bot_addresses if "@" in a}
    if without_tag(director.email) in bots:
        raise StartListError("director.email", f"{director.email} is the bot's own address")
    for i, player in enumerate(players):
        path = f"players[{i}].email"
        for address in (player.email, *player.addresses):
            if without_tag(address) in bots:
                raise StartListError(path, f"{address} is the bot's own address")
            if address == director.email:
                raise StartListError(path, f"{address} is the director's address")


_MISSING: Any = object()


def _text(data: Mapping[str, Any], key: str, path: str, default: Any = _MISSING) -> str:
    if key not in data or data[key] is None:
        if default is _MISSING:
            raise StartListError(path, "is required")
        return str(default)
    value = data[key]
    if not isinstance(value, str):
        raise StartListError(path, "must be text")
    value = value.strip()
    if not value:
        raise StartListError(path, "must not be empty")
    return value


def _name(data: Mapping[str, Any], path: str) -> str:
    """A name (of the tournament, a team, a player, the director or a captain) as
    one line: a line break inside it, and any run of white space, is one space;
    names go into subjects, headers and table cells.

    >>> _name({"name": "National\\n  e-mail\\r\\nchampionship "}, "name")
    'National e-mail championship'
    """
    return " ".join(_text(data, "name", path).split())


def _choice(
    data: Mapping[str, Any], key: str, path: str, choices: tuple[str, ...], default: Any = _MISSING
) -> str:
    value = _text(data, key, path, default)
    if value not in choices:
        raise StartListError(path, f"must be one of {', '.join(choices)}")
    return value


def _date(data: Mapping[str, Any], key: str) -> datetime.date:
    if key not in data or data[key] is None:
        raise StartListError(key, "is required")
    value = data[key]
    if isinstance(value, datetime.datetime):
        raise StartListError(key, "must be a date like 2026-03-01, without a time")
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise StartListError(key, "must be a date like 2026-03-01")


def _director(data: Any, special_use: bool) -> Director:
    if data is None:
        raise StartListError("director", "is required")
    if not isinstance(data, Mapping):
        raise StartListError("director", "must be {name: ..., email: ...}")
    for key in data:
        if key not in ("name", "email"):
            raise StartListError(f"director.{key}", "unknown key")
    name = _name(data, "director.name")
    if "email" not in data:
        raise StartListError("director.email", "is required")
    return Director(name, normalise_email("director.email", data["email"], special_use))


def _player_id(value: Any, path: str) -> str:
    # A number is taken as written (``id: 7``): start lists often number players.
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not _PLAYER_ID.match(value.strip()):
        raise StartListError(path, "must be letters, digits, '.', '_' or '-' (at most 64)")
    return value.strip()


def _players(data: Any, special_use: bool) -> list[PlayerEntry]:
    if data is None:
        raise StartListError("players", "is required")
    if not isinstance(data, list):
        raise StartListError("players", "must be a list of players")
    if len(data) < 2:
        raise StartListError("players", "must list at least two players")
    players: list[PlayerEntry] = []
    ids: dict[str, int] = {}
    emails: dict[str, int] = {}
    mistakes = _Mistakes()
    for i, item in enumerate(data):
        entry = mistakes.check(functools.partial(_player, i, item, ids, emails, special_use), None)
        if entry is not None:
            players.append(entry)
    mistakes.raise_any()
    return players


def _player(
    i: int, item: Any, ids: dict[str, int], emails: dict[str, int], special_use: bool
) -> PlayerEntry:
    """One row of ``players:``; ``ids`` and ``emails`` are the rows' so far (and this one's)."""
    path = f"players[{i}]"
    if not isinstance(item, Mapping):
        raise StartListError(path, "must be {id: ..., name: ..., email: ...}")
    for key in item:
        if key not in _PLAYER_KEYS:
            raise StartListError(f"{path}.{key}", "unknown key")
    if "id" not in item:
        raise StartListError(f"{path}.id", "is required")
    key = _player_id(item["id"], f"{path}.id")
    if key in ids:
        raise StartListError(f"{path}.id", f"{key} is already players[{ids[key]}]")
    ids[key] = i
    name = _name(item, f"{path}.name")
    if "email" not in item:
        raise StartListError(f"{path}.email", "is required")
    given = item["email"]
    if isinstance(given, str):
        given = [a for a in re.split(r"[\s;]+", given) if a]
    if not isinstance(given, list) or not given:
        raise StartListError(f"{path}.email", "must be an e-mail address or a list of them")
    addresses = [normalise_email(f"{path}.email", a, special_use) for a in given]
    for email in addresses:
        if email in emails:
            raise StartListError(f"{path}.email", f"{email} is already players[{emails[email]}]")
        emails[email] = i
    email = addresses[0]
    language = notation = None
    if item.get("language") is not None:
        language = _choice(item, "language", f"{path}.language", LANGUAGES)
    if item.get("notation") is not None:
        notation = _choice(item, "notation", f"{path}.notation", NOTATIONS)
    secret = None
    if item.get("secret") is not None:
        secret = _text(item, "secret", f"{path}.secret")
        if not re.fullmatch(r"[A-Za-z0-9_-]{6,64}", secret):
            raise StartListError(f"{path}.secret", "must be 6 to 64 letters, digits, '-' or '_'")
    gender = None
    if item.get("gender") is not None:
        gender = _choice(item, "gender", f"{path}.gender", ("f", "m"))
    return PlayerEntry(
        key,
        name,
        email,
        language,
        notation,
        secret,
        gender,
        country=_country(item.get("country"), f"{path}.country"),
        rating=_number(item.get("rating"), f"{path}.rating", 0, 4000),
        addresses=tuple(addresses[1:]),
        team=_team_key(item.get("team"), f"{path}.team"),
        board=_number(item.get("board"), f"{path}.board", 1, 99),
    )


def _country(value: Any, path: str) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z]{3}", value.strip()):
        raise StartListError(path, "must be a country code of three letters (ISO 3166), e.g. BGR")
    return value.strip().upper()


def _number(value: Any, path: str, low: int, high: int) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise StartListError(path, f"must be a whole number from {low} to {high}")
    return value


def _team_key(value: Any, path: str) -> str | None:
    if value is None or value == "":
        return None
    return _player_id(value, path)


def _boards(value: Any) -> int:
    if value is None:
        return 0
    number = _number(value, "boards", 1, 99)
    assert number is not None
    return number


def _teams(
    data: Any, players: Sequence[PlayerEntry], boards: int, special_use: bool
) -> list[TeamEntry]:
    """The ``teams:`` of a team event; a team's players come from its ``players`` list or,
    when it has none, from the players whose ``team`` column names it, by ``board``."""
    if data is None:
        if boards:
            raise StartListError("boards", "is for team events: add teams:")
        for i, p in enumerate(players):
            if p.team is not None:
                raise StartListError(f"players[{i}].team", "there is no teams: list")
        return []
    if not isinstance(data, list) or len(data) < 2:
        raise StartListError("teams", "must list at least two teams")
    if not boards:
        raise StartListError("boards", "is required for a team event")
    known = {p.id: i for i, p in enumerate(players)}
    taken: dict[str, str] = {}
    teams: list[TeamEntry] = []
    for i, item in enumerate(data):
        path = f"teams[{i}]"
        if not isinstance(item, Mapping):
            raise StartListError(path, "must be {id: ..., name: ..., players: [...]}")
        for key in item:
            if key not in ("id", "name", "captain", "players"):
                raise StartListError(f"{path}.{key}", "unknown key")
        if "id" not in item:
            raise StartListError(f"{path}.id", "is required")
        key = _player_id(item["id"], f"{path}.id")
        if any(t.id == key for t in teams):
            raise StartListError(f"{path}.id", f"team {key} is listed twice")
        name = _name(item, f"{path}.name")
        captain = None
        if item.get("captain") is not None:
            c = item["captain"]
            if not isinstance(c, Mapping) or set(c) - {"name", "email"}:
                raise StartListError(f"{path}.captain", "must be {name: ..., email: ...}")
            if "email" not in c:
                raise StartListError(f"{path}.captain.email", "is required")
            captain = Director(
                _name(c, f"{path}.captain.name"),
                normalise_email(f"{path}.captain.email", c["email"], special_use),
            )
        members = item.get("players")
        if members is None:
            column = sorted(
                (p for p in players if p.team == key), key=lambda p: (p.board or 999, known[p.id])
            )
            ids = [p.id for p in column]
            boards_seen: dict[int, str] = {}
            for entry in column:
                if entry.board is None:
                    continue
                if entry.board in boards_seen:
                    raise StartListError(
                        f"players[{known[entry.id]}].board",
                        f"team {key} has {boards_seen[entry.board]} on board {entry.board}",
                    )
                boards_seen[entry.board] = entry.id
        elif isinstance(members, list):
            ids = [_player_id(m, f"{path}.players[{j}]") for j, m in enumerate(members)]
            for j, member in enumerate(ids):
                if member not in known:
                    raise StartListError(f"{path}.players[{j}]", f"{member} is not in players")
        else:
            raise StartListError(f"{path}.players", "must be a list of player ids in board order")
        for j, member in enumerate(ids):
            said = players[known[member]].team
            if said is not None and said != key:
                raise StartListError(
                    f"players[{known[member]}].team", f"{member} is listed in team {key}"
                )
            if member in taken:
                raise StartListError(
                    f"{path}.players[{j}]", f"{member} already plays for team {taken[member]}"
                )
            taken[member] = key
        if len(ids) < boards:
            raise StartListError(
                f"{path}.players", f"team {key} has {len(ids)} players for {boards} boards"
            )
        teams.append(TeamEntry(key, name, tuple(ids), captain))
    for p in players:
        if p.team is not None and p.team not in {t.id for t in teams}:
            raise StartListError(f"players[{known[p.id]}].team", f"there is no team {p.team}")
    return teams


def _games(
    data: Any, ids: list[str], teams: Sequence[TeamEntry] = (), boards: int = 0
) -> list[Pairing]:
    if data is None:
        raise StartListError("games", "is required")
    if data == "team-round-robin":
        if not teams:
            raise StartListError("games", "team-round-robin needs teams:")
        return [
            Pairing(i + 1, g.white, g.black, g.round, g.board)
            for i, g in enumerate(
                team_round_robin({t.id: t.players[:boards] for t in teams}, boards)
            )
        ]
    if teams:
        raise StartListError("games", "a team event plays team-round-robin")
    if data in ("round-robin", "double-round-robin"):
        games: list[Pairing] = []
        for r in round_robin(ids, double=data == "double-round-robin"):
            for board in r.boards:
                games.append(
                    Pairing(len(games) + 1, board.white, board.black, r.number, board.number)
                )
        return games
    if not isinstance(data, list):
        raise StartListError(
            "games",
            "must be round-robin, double-round-robin, team-round-robin "
            "or a list of {white: ID, black: ID}",
        )
    if not data:
        raise StartListError("games", "must list at least one game")
    known = set(ids)
    games = []
    for i, item in enumerate(data):
        path = f"games[{i}]"
        if not isinstance(item, Mapping):
            raise StartListError(path, "must be {white: ID, black: ID}")
        for key in item:
            if key not in ("white", "black"):
                raise StartListError(f"{path}.{key}", "unknown key")
        colours = []
        for colour in ("white", "black"):
            if colour not in item:
                raise StartListError(f"{path}.{colour}", "is required")
            key = _player_id(item[colour], f"{path}.{colour}")
            if key not in known:
                raise StartListError(f"{path}.{colour}", f"{key} is not in players")
            colours.append(key)
        white, black = colours
        if white == black:
            raise StartListError(path, f"{white} cannot play against themselves")
        games.append(Pairing(i + 1, white, black))
    return games
