"""The players of a start list: the ``players:`` list, or a CSV file of them."""

from __future__ import annotations

import csv
import dataclasses
import functools
import io
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from mailbot.mail.addresses import normal_address, without_tag
from mailbot.rules.languages import CODES
from mailbot.store.startfields import (
    NOTATIONS,
    Director,
    Mistakes,
    StartListError,
    normalise_email,
    read_choice,
    read_id,
    read_name,
    read_number,
    read_text,
)

PLAYER_KEYS = (
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
CSV_COLUMNS = tuple(k for k in PLAYER_KEYS if k != "secret")


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
    mailbot.store.startfields.StartListError: players.csv, line 1: players: the header must name the columns id, name, email
    """  # noqa: E501
    nul = text.find("\0")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        raise StartListError("players", "a NUL character is not allowed", f"{name}, line {line}")
    sample = text[:4096]
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(sample, delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text), dialect)
    header = _csv_header(reader, name)
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


def _csv_header(reader: Iterator[list[str]], name: str) -> list[str]:
    """The columns the first line of a players CSV names, each known and named once."""
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
    return header


def check_roles(
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


def read_players(data: Any, special_use: bool) -> list[PlayerEntry]:
    if data is None:
        raise StartListError("players", "is required")
    if not isinstance(data, list):
        raise StartListError("players", "must be a list of players")
    if len(data) < 2:
        raise StartListError("players", "must list at least two players")
    players: list[PlayerEntry] = []
    ids: dict[str, int] = {}
    emails: dict[str, int] = {}
    mistakes = Mistakes()
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
        if key not in PLAYER_KEYS:
            raise StartListError(f"{path}.{key}", "unknown key")
    if "id" not in item:
        raise StartListError(f"{path}.id", "is required")
    key = read_id(item["id"], f"{path}.id")
    if key in ids:
        raise StartListError(f"{path}.id", f"{key} is already players[{ids[key]}]")
    ids[key] = i
    name = read_name(item, f"{path}.name")
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
        language = read_choice(item, "language", f"{path}.language", CODES)
    if item.get("notation") is not None:
        notation = read_choice(item, "notation", f"{path}.notation", NOTATIONS)
    secret = None
    if item.get("secret") is not None:
        secret = read_text(item, "secret", f"{path}.secret")
        if not re.fullmatch(r"[A-Za-z0-9_-]{6,64}", secret):
            raise StartListError(f"{path}.secret", "must be 6 to 64 letters, digits, '-' or '_'")
    gender = None
    if item.get("gender") is not None:
        gender = read_choice(item, "gender", f"{path}.gender", ("f", "m"))
    return PlayerEntry(
        key,
        name,
        email,
        language,
        notation,
        secret,
        gender,
        country=_country(item.get("country"), f"{path}.country"),
        rating=read_number(item.get("rating"), f"{path}.rating", 0, 4000),
        addresses=tuple(addresses[1:]),
        team=_team_key(item.get("team"), f"{path}.team"),
        board=read_number(item.get("board"), f"{path}.board", 1, 99),
    )


def _country(value: Any, path: str) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z]{3}", value.strip()):
        raise StartListError(path, "must be a country code of three letters (ISO 3166), e.g. BGR")
    return value.strip().upper()


def _team_key(value: Any, path: str) -> str | None:
    if value is None or value == "":
        return None
    return read_id(value, path)
