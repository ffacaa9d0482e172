"""A crafted backup is refused, whole, before anything is written.

Each test writes a backup file of its own (a real backup with lines changed),
runs ``mailbot restore`` on it and checks what the user sees: exit 2, one line
on stderr for each mistake, no traceback, and the database as it was.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from deskbench import BLACK, WHITE, Bench, at
from fuzzing import budget
from hypothesis import given
from hypothesis import strategies as st
from migrated import migrated
from test_backup import GAME, rows_of
from test_cli import write_config

from mailbot.cli import main
from mailbot.desk.pipeline import Outcome
from mailbot.store.backup import backup
from mailbot.store.schema import schema_revision

Records = list[Any]


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAILBOT_TEST_PASSWORD", "imap-s3cret")
    monkeypatch.delenv("MAILBOT_CONFIG", raising=False)


@pytest.fixture(scope="module")
def valid(tmp_path_factory: pytest.TempPathFactory) -> Records:
    """The lines of a real backup: a tournament with a game under way."""
    folder = tmp_path_factory.mktemp("valid")
    url = f"sqlite:///{folder / 'source.db'}"
    bench = Bench(url)
    try:
        assert bench.send(WHITE, "1. e2-e4", at(2, 10), subject=GAME) is Outcome.HANDLED
        assert bench.send(BLACK, "1... e7-e5", at(3, 10), subject=GAME) is Outcome.HANDLED
    finally:
        bench.close()
    path = folder / "valid.gz"
    backup(url, path)
    return [json.loads(line) for line in gzip.decompress(path.read_bytes()).splitlines()]


def write(path: Path, records: Records) -> Path:
    """A backup file of ``records``: JSON values, or bytes written as they are."""
    body = b"".join(
        (r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n" for r in records
    )
    path.write_bytes(gzip.compress(body, compresslevel=1))
    return path


def table_at(records: Records, name: str) -> int:
    """The index of table ``name``'s line."""
    return next(i for i, r in enumerate(records) if isinstance(r, dict) and r.get("table") == name)


def changed(records: Records, table: str, column: str, value: Any, row: int = 0) -> Records:
    """``records`` with one value of the ``row``-th row of ``table`` changed."""
    copy = json.loads(json.dumps(records))
    line = table_at(copy, table)
    copy[line + 1 + row][copy[line]["columns"].index(column)] = value
    return copy


def replaced(records: Records, table: str, line: bytes) -> Records:
    """``records`` with the first row of ``table`` replaced by ``line`` as it is."""
    at_line = table_at(records, table) + 1
    return [*records[:at_line], line, *records[at_line + 1 :]]


class Target:
    """An empty database at the newest revision, as `mailbot init` leaves it (or, not
    ``made``, one without the bot's tables)."""

    def __init__(self, url: str, folder: Path, made: bool = True) -> None:
        self.url = url
        if made:
            migrated(url)
        self.config = write_config(folder, url)
        self.before = rows_of(url)
        self.revision = schema_revision(url)

    def restore(self, path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
        capsys.readouterr()
        status = main(["-c", str(self.config), "restore", str(path)])
        err = capsys.readouterr().err
        assert "Traceback" not in err
        return status, err.splitlines()

    def refused(self, path: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
        """The lines of a refusal; the database untouched."""
        status, err = self.restore(path, capsys)
        assert status == 2, err
        assert all(line.startswith("mailbot: ") for line in err), err
        assert rows_of(self.url) == self.before
        assert schema_revision(self.url) == self.revision
        return err


@pytest.fixture
def target(store_url: str, tmp_path: Path) -> Target:
    return Target(store_url, tmp_path)


def _first_table(records: Records, change: Callable[[dict[str, Any]], None]) -> Records:
    copy = json.loads(json.dumps(records))
    change(copy[table_at(copy, "tournaments")])
    return copy


# Each crafted backup and what the one line about it says.
CRAFTED: dict[str, tuple[Callable[[Records], Records], str]] = {
    "a table line without columns": (
        lambda r: _first_table(r, lambda t: t.pop("columns")),
        "table tournaments: its columns are not a list of names",
    ),
    "a list as a table name": (
        lambda r: _first_table(r, lambda t: t.update(table=["tournaments"])),
        'table ["tournaments"] is not in the schema',
    ),
    "columns: 5": (
        lambda r: _first_table(r, lambda t: t.update(columns=5)),
        "table tournaments: its columns are not a list of names",
    ),
    "an unknown column": (
        lambda r: _first_table(r, lambda t: t.update(columns=[*t["columns"], "evil"])),
        'table tournaments: no column "evil"',
    ),
    "deeply nested JSON": (
        lambda r: replaced(r, "tournaments", b"[" * 100_000 + b"]" * 100_000),
        "JSON nested deeper than 32",
    ),
    "two million small items": (
        lambda r: replaced(r, "tournaments", b"[" + b"[]," * 2_000_000 + b"[]]"),
        "more than 2,000,000 JSON items",
    ),
    "a string in a DateTime column": (
        lambda r: changed(r, "games", "created_at", "yesterday"),
        'column created_at: "yesterday" is not a datetime value',
    ),
    "NaN in a NOT NULL column": (
        lambda r: replaced(
            r, "games", json.dumps(r[table_at(r, "games") + 1]).replace("1,", "NaN,", 1).encode()
        ),
        "not JSON: NaN is not a number",
    ),
    "a tournament index ..": (
        lambda r: changed(r, "tournaments", "index", ".."),
        'column index: ".." is not a tournament index',
    ),
    "a game number 0": (
        lambda r: changed(r, "games", "number", 0),
        "column number: 0 is not a game number",
    ),
    "a game number as text": (
        lambda r: changed(r, "games", "number", "1"),
        'column number: "1" is not a whole number',
    ),
    "a game number too large": (
        lambda r: changed(r, "games", "number", 2**40),
        "column number: 1099511627776 is too large for the column",
    ),
    "a player id with a slash": (
        lambda r: changed(r, "players", "key", "../x"),
        'column key: "../x" is not an id',
    ),
    "a name too long": (
        lambda r: changed(r, "tournaments", "name", "x" * 201),
        "column name: 201 characters, more than its 200",
    ),
    "NUL in a text": (
        lambda r: changed(r, "players", "name", "a\u0000b"),
        "column name: text with a character no database stores",
    ),
    "a move of a game the backup does not hold": (
        lambda r: changed(r, "moves", "game_id", 999),
        "table moves, column game_id: 999 names no row of games",
    ),
    "a player's address twice": (
        lambda r: changed(r, "players", "email", r[table_at(r, "players") + 1][4], row=1),
        "table players: a second row with tournament_id 1, email",
    ),
    "a move's id twice": (
        lambda r: changed(r, "moves", "id", r[table_at(r, "moves") + 1][0], row=1),
        "table moves: a second row with id 1",
    ),
    "an empty value where one must be": (
        lambda r: changed(r, "tournaments", "name", None),
        "column name: empty, which it may not be",
    ),
    "lines after the end": (
        lambda r: [*r, r[-2]],
        "a line after the end line",
    ),
    "an end line that counts wrong": (
        lambda r: [*r[:-1], {"end": True, "rows": 3}],
        "does not count the",
    ),
}


@pytest.mark.parametrize("case", list(CRAFTED))
@pytest.mark.slow
def test_a_crafted_backup_is_refused_with_one_line_and_nothing_written(
    case: str, valid: Records, target: Target, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    craft, expected = CRAFTED[case]
    err = target.refused(write(tmp_path / "crafted.gz", craft(valid)), capsys)
    assert len(err) == 1, err
    assert expected in err[0], err
    assert str(tmp_path / "crafted.gz") in err[0]


def test_every_mistake_is_told_at_once_up_to_twenty(
    valid: Records, target: Target, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = changed(valid, "tournaments", "index", "..")
    records = changed(records, "games", "number", -1)
    records = changed(records, "moves", "game_id", 999)
    err = target.refused(write(tmp_path / "three.gz", records), capsys)
    assert len(err) == 3, err
    games, moves = table_at(records, "games") + 2, table_at(records, "moves") + 2
    assert [e.split(": ")[1] for e in err] == [
        f"{tmp_path / 'three.gz'}, line {table_at(records, 'tournaments') + 2}",
        f"{tmp_path / 'three.gz'}, line {games}",
        f"{tmp_path / 'three.gz'}, line {moves}",
    ]
    many = [*valid[:-1], *([["bad"]] * 30)]
    err = target.refused(write(tmp_path / "many.gz", many), capsys)
    assert len(err) == 21, err
    assert err[-1] == "mailbot: ... and 11 more mistakes"


def test_a_valid_crafted_file_still_restores(
    valid: Records, target: Target, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err = target.restore(write(tmp_path / "valid.gz", valid), capsys)
    assert status == 0, err
    assert sum(len(rows) for rows in rows_of(target.url).values()) == valid[-1]["rows"]


# ---------------------------------------------------------------------------
# A line of gigabytes


def huge_backup(path: Path, header: bool, gib: float = 3) -> Path:
    """A backup whose header (or first row) is one line of ``gib`` GiB: gzip members
    of one compressed piece each, a few megabytes on disk."""
    piece = 16 << 20
    member = gzip.compress(b"a" * piece)
    start = b'["' if header else b'{"format":"mailbot-backup","version":1,"revision":"0013"}\n['
    with path.open("wb") as out:
        out.write(gzip.compress(start))
        for _ in range(int(gib * (1 << 30)) // piece):
            out.write(member)
        out.write(gzip.compress(b'"]\n{"end":true,"rows":1}\n'))
    return path


#: Runs ``mailbot ARGS...`` and writes its peak resident size in KiB to the file PEAK:
#: ``python -c _PEAK_OF PEAK ARGS...``; exits with mailbot's status.
_PEAK_OF = """
import os, sys
pid = os.posix_spawn(sys.executable, [sys.executable, "-m", "mailbot", *sys.argv[2:]], os.environ)
_, status, usage = os.wait4(pid, 0)
open(sys.argv[1], "w").write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.parametrize("header", [True, False], ids=["header", "row"])
@pytest.mark.slow
def test_a_line_of_three_gibibytes_is_refused_in_bounded_memory(
    header: bool, sqlite_url: str, tmp_path: Path
) -> None:
    path = huge_backup(tmp_path / "huge.gz", header)
    assert path.stat().st_size < 4 << 20
    config = write_config(tmp_path, sqlite_url)
    started = time.monotonic()
    # the peak is measured by a small Python in between: a child forked from this test's
    # process counts the resident pages it shared with it before exec (Linux carries
    # the old image's high-water mark over exec), which is the test worker's size
    peak = tmp_path / "peak"
    with (tmp_path / "err").open("w+") as err:
        proc = subprocess.Popen(
            [sys.executable, "-c", _PEAK_OF, str(peak), "-c", str(config), "restore", str(path)],
            stdout=subprocess.DEVNULL,
            stderr=err,
            env={**os.environ, "MAILBOT_TEST_PASSWORD": "x"},
        )
        proc.wait()
        err.seek(0)
        told = err.read().splitlines()
    resident = int(peak.read_text())
    assert proc.returncode == 2, told
    assert len(told) == 1 and "Traceback" not in told[0], told
    assert ("not a mailbot backup" if header else "longer than 64 MiB") in told[0]
    print(f"restore of a 3 GiB line: {resident} KiB resident")
    assert resident < 200 * 1024, f"{resident} KiB resident"
    assert time.monotonic() - started < 30
    assert rows_of(sqlite_url) == {}


# ---------------------------------------------------------------------------
# Fuzz: mutated lines of a real backup

VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(["..", "", "2026-13-01", "\ud800", "a\x00"]),
    st.fixed_dictionaries({"$": st.sampled_from(["datetime", "date", "bytes", "json", "x"])}).map(
        lambda d: {**d, "v": "2026-03-01T09:30:00+00:00"}
    ),
    st.recursive(
        st.integers(), lambda inner: st.lists(inner, min_size=1, max_size=3), max_leaves=40
    ),
)


@st.composite
def mutated(draw: st.DrawFn, records: Records) -> Records:
    """``records`` with a few lines changed: a value, a key, a table or column name, a
    line dropped or nested deep, raw text in place of JSON."""
    copy = json.loads(json.dumps(records))
    for _ in range(draw(st.integers(1, 3))):
        at_line = draw(st.integers(1, len(copy) - 1))
        line = copy[at_line]
        how = draw(st.sampled_from(["value", "key", "drop", "deep", "raw", "table", "column"]))
        if how == "value" and isinstance(line, list) and line:
            line[draw(st.integers(0, len(line) - 1))] = draw(VALUES)
        elif how == "key" and isinstance(line, dict) and line:
            line.pop(draw(st.sampled_from(sorted(line))))
        elif how == "drop":
            copy.pop(at_line)
        elif how == "deep":
            copy[at_line] = b"[" * draw(st.integers(30, 5000)) + b"]" * 5000
        elif how == "raw":
            copy[at_line] = draw(st.sampled_from([b"NaN", b"[1e999]", b"{", b"\xff", b"[1,"]))
        elif how == "table" and isinstance(line, dict) and "table" in line:
            line["table"] = draw(st.one_of(VALUES, st.sampled_from(["games", "players"])))
        elif how == "column" and isinstance(line, dict) and "columns" in line:
            line["columns"] = draw(st.one_of(VALUES, st.lists(st.text(max_size=8), max_size=3)))
        if len(copy) < 2:
            break
    return copy


@pytest.mark.fuzz
@budget(120)
@given(data=st.data())
def test_fuzz_a_mutated_backup_is_refused_with_its_mistakes_or_restored(
    data: st.DataObject, valid: Records, tmp_path_factory: pytest.TempPathFactory
) -> None:
    records = data.draw(mutated(valid))
    folder = tmp_path_factory.mktemp("fuzz")
    target = Target(f"sqlite:///{folder / 'target.db'}", folder, made=False)
    path = write(folder / "mutated.gz", records)
    told = io.StringIO()
    with contextlib.redirect_stderr(told):
        status = main(["-c", str(target.config), "restore", str(path)], stdout=io.StringIO())
    lines = told.getvalue().splitlines()
    assert "Traceback" not in told.getvalue()
    after = rows_of(target.url)
    if status == 0:
        assert lines == []
        assert sum(len(rows) for rows in after.values()) == records[-1]["rows"]
    else:
        assert status == 2, lines
        assert 1 <= len(lines) <= 21 and all(line.startswith("mailbot: ") for line in lines)
        assert after == target.before


@pytest.mark.slow
def test_a_row_the_database_still_refuses_undoes_the_whole_load(
    valid: Records,
    target: Target,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Were a mistake to pass the checks, the rows go in one transaction: none stays."""
    from mailbot.store import backupcheck

    monkeypatch.setattr(backupcheck, "mistakes", lambda path, tables: [])
    records = changed(valid, "moves", "id", valid[table_at(valid, "moves") + 1][0], row=1)
    err = target.refused(write(tmp_path / "twice.gz", records), capsys)
    assert len(err) == 1 and "the database refused a row" in err[0], err
