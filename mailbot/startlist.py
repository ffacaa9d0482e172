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
    >>> parse_start_list(text.replace("Ivanov@Example.org", "petrov@example.org"))
    Traceback (most recent call last):
    ...
    mailbot.startlist.StartListError: players[1].email: petrov@example.org is already players[0]
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
from typing import Any

import yaml

from mailbot.addresses import AddressError, check_address, normal_address, without_tag
from mailbot.pairings import round_robin
from mailbot.profile import Profile, ProfileError, profile

#: The languages the bot writes in.
LANGUAGES = ("en", "bg", "ru")
#: The notations the bot writes moves in (rules.md 3.1).
NOTATIONS = ("en", "bg-cyrillic", "bg-latin", "ru", "de", "iccf-numeric", "figurine")

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
    "games",
}


class StartListError(ValueError):
    """The start list is not valid; ``path`` names the key (``players[2].email``)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


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
    #: The words a player writes beside a move reach the opponent (CONTRACT.md).
    forward_messages: bool = True
    #: The TD gets a weekly digest of the event.
    director_digest: bool = False

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
    """Read and validate the start-list file at ``path`` (see :func:`start_list_from_mapping`)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StartListError("", "file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise StartListError("", f"cannot read the file: {exc}") from None
    return parse_start_list(text, special_use=special_use, bot_addresses=bot_addresses)


def parse_start_list(
    text: str, *, special_use: bool = False, bot_addresses: Sequence[str] = ()
) -> StartList:
    """Validate the start list in the YAML ``text``."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise StartListError("", f"not valid YAML: {where}{problem}") from None
    return start_list_from_mapping(data, special_use=special_use, bot_addresses=bot_addresses)


def start_list_from_mapping(
    data: Any, *, special_use: bool = False, bot_addresses: Sequence[str] = ()
) -> StartList:
    """Validate an already parsed start list.

    ``special_use`` lets addresses on special-use domains (``.local``, ``.test``)
    through; ``bot_addresses`` are the bot's own, which no player or director
    may have.

    >>> start_list_from_mapping({"index": "A/1"})
    Traceback (most recent call last):
    ...
    mailbot.startlist.StartListError: index: must be letters, digits, '.', '_' or '-' (at most 40)
    """
    if data is None:
        raise StartListError("", "the file is empty")
    if not isinstance(data, Mapping):
        raise StartListError("", "must be a mapping of keys to values")
    for key in data:
        if key not in _KEYS:
            raise StartListError(str(key), "unknown key")

    index = _text(data, "index", "index")
    if not _INDEX.match(index):
        raise StartListError("index", "must be letters, digits, '.', '_' or '-' (at most 40)")
    name = _text(data, "name", "name")

    profile_name = _text(data, "profile", "profile")
    rules = data.get("rules")
    if rules is None:
        rules = {}
    if not isinstance(rules, Mapping):
        raise StartListError("rules", "must be a mapping of rule parameters to values")
    rules = {str(key): value for key, value in rules.items()}
    try:
        rule_profile = profile(profile_name, rules)
    except ProfileError as exc:
        raise StartListError(exc.path, str(exc)[len(exc.path) + 2 :]) from None

    start = _date(data, "start")
    end = _date(data, "end")
    if end <= start:
        raise StartListError("end", "must be after start")

    timezone = _text(data, "timezone", "timezone", default=rule_profile.timezone)
    try:
        zoneinfo.ZoneInfo(timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise StartListError("timezone", f"unknown time zone {timezone!r}") from None

    language = _choice(data, "language", "language", LANGUAGES, default="en")
    notation = _choice(data, "notation", "notation", NOTATIONS, default="en")
    conditional_moves = _flag(data, "conditional_moves", False)
    forward_messages = _flag(data, "forward_messages", True)
    director_digest = _flag(data, "director_digest", False)

    director = _director(data.get("director"), special_use)
    players = _players(data.get("players"), special_use)
    _check_roles(director, players, bot_addresses)
    games = _games(data.get("games"), [p.id for p in players])
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
    )


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
        if without_tag(player.email) in bots:
            raise StartListError(path, f"{player.email} is the bot's own address")
        if player.email == director.email:
            raise StartListError(path, f"{player.email} is the director's address")


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
    name = _text(data, "name", "director.name")
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
    for i, item in enumerate(data):
        path = f"players[{i}]"
        if not isinstance(item, Mapping):
            raise StartListError(path, "must be {id: ..., name: ..., email: ...}")
        for key in item:
            if key not in ("id", "name", "email", "language", "notation", "secret", "gender"):
                raise StartListError(f"{path}.{key}", "unknown key")
        if "id" not in item:
            raise StartListError(f"{path}.id", "is required")
        key = _player_id(item["id"], f"{path}.id")
        if key in ids:
            raise StartListError(f"{path}.id", f"{key} is already players[{ids[key]}]")
        ids[key] = i
        name = _text(item, "name", f"{path}.name")
        if "email" not in item:
            raise StartListError(f"{path}.email", "is required")
        email = normalise_email(f"{path}.email", item["email"], special_use)
        if email in emails:
            raise StartListError(f"{path}.email", f"{email} is already players[{emails[email]}]")
        emails[email] = i
        language = notation = None
        if item.get("language") is not None:
            language = _choice(item, "language", f"{path}.language", LANGUAGES)
        if item.get("notation") is not None:
            notation = _choice(item, "notation", f"{path}.notation", NOTATIONS)
        secret = None
        if item.get("secret") is not None:
            secret = _text(item, "secret", f"{path}.secret")
            if not re.fullmatch(r"[A-Za-z0-9_-]{6,64}", secret):
                raise StartListError(
                    f"{path}.secret", "must be 6 to 64 letters, digits, '-' or '_'"
                )
        gender = None
        if item.get("gender") is not None:
            gender = _choice(item, "gender", f"{path}.gender", ("f", "m"))
        players.append(PlayerEntry(key, name, email, language, notation, secret, gender))
    return players


def _games(data: Any, ids: list[str]) -> list[Pairing]:
    if data is None:
        raise StartListError("games", "is required")
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
            "games", "must be round-robin, double-round-robin or a list of {white: ID, black: ID}"
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
