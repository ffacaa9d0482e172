"""Malformed start lists, players CSV files and configurations, through the real
commands: every mistake is one line naming the file (and the key or line), the exit
status is 2 (3 for ``health``), and never a traceback.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from fuzzing import budget
from harness import mailbot
from hypothesis import given
from hypothesis import strategies as st
from migrated import migrated

CONFIG = """\
database: sqlite:///{database}
timezone: Europe/Sofia
imap: {{host: 127.0.0.1, port: 993, security: ssl, username: bot, password: pw,
       folder: INBOX, done_folder: Processed}}
smtp: {{host: 127.0.0.1, port: 9, security: none, username: bot, password: pw,
       sender: "CC <bot@federation.example>", timeout: 1}}
"""

START = """\
index: {index}
name: {name}
profile: {profile}
start: {start}
end: {end}
language: {language}
director:
  name: {director_name}
  email: {director_email}
players:
{players}
rules:
  days_per_control: {days}
  warn_end_days: {warn}
games: {games}
"""

PLAYERS = """\
  - id: {id0}
    name: {name0}
    email: {email0}
    rating: {rating0}
  - id: {id1}
    name: {name1}
    email: {email1}
    board: {board1}
    country: {country1}
"""

VALID = {
    "index": "CUP-1",
    "name": "Cup",
    "profile": "bg-email",
    "start": "2026-03-01",
    "end": "2027-06-30",
    "language": "bg",
    "director_name": "Georgi Georgiev",
    "director_email": "td@federation.example",
    "id0": "ivanov",
    "name0": "Ivan Ivanov",
    "email0": "ivanov@example.org",
    "rating0": "2100",
    "id1": "petrov",
    "name1": "Petar Petrov",
    "email1": "petrov@example.org",
    "board1": "1",
    "country1": "BGR",
    "days": "50",
    "warn": "[10, 3]",
    "games": "round-robin",
}


def start_list(**changes: str) -> str:
    fields = {**VALID, **changes}
    return START.format(players=PLAYERS.format(**fields), **fields)


def run(*argv: str) -> tuple[int, list[str]]:
    """The exit status and what went to stderr, line by line."""
    done = mailbot(*argv)
    return done.returncode, done.stderr.splitlines()


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("inputs")
    path = folder / "config.yaml"
    path.write_text(CONFIG.format(database=folder / "mailbot.db"), encoding="utf-8")
    migrated(f"sqlite:///{folder / 'mailbot.db'}")  # init finds the schema made
    assert run("-c", str(path), "init")[0] == 0
    return path


_files = itertools.count()


def import_file(config: Path, text: str | bytes, csv: bytes | None = None) -> tuple[int, list[str]]:
    folder = config.parent / f"start-{next(_files)}"
    folder.mkdir()
    path = folder / "start.yaml"
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    if csv is not None:
        (folder / "players.csv").write_bytes(csv)
    return run("-c", str(config), "tournament", "import", str(path))


def assert_refused(status: int, lines: list[str], names: str = "", code: int = 2) -> None:
    """Refused with ``code``: one line a mistake, each naming the file ``names``."""
    assert status == code, lines
    assert lines, "no line said what is wrong"
    for line in lines:
        assert line.startswith(f"mailbot: {names}"), lines
        assert "Traceback" not in line and not line.startswith("mailbot:  ")


# -- the start list ------------------------------------------------------------------


@pytest.mark.parametrize(
    "changes, key",
    [
        ({"start": "2026-02-30"}, "line 4, column 8: start: must be a date"),
        ({"start": "2026-13-45"}, "line 4, column 8: start: must be a date"),
        ({"start": "0000-01-01"}, "line 4, column 8: start: must be a date"),
        ({"end": "2027-06-30 10:00:00+99:99"}, "line 5, column 6: end: must be a date"),
        ({"start": "!!timestamp soon"}, "line 4, column 8: start: must be a date"),
        ({"rating0": "'²'"}, "players[0].rating: must be a whole number from 0 to 4000"),
        ({"board1": "'²'"}, "players[1].board: must be a whole number from 1 to 99"),
        ({"rating0": "'٣'"}, "players[0].rating: must be a whole number from 0 to 4000"),
        ({"name": "9" * 5000}, "line 2, column 7: not valid YAML: a whole number too large"),
        ({"days": "0b" + "1" * 20000}, "line 22, column 21: not valid YAML: a whole number"),
        ({"days": "9" * 18}, "rules.days_per_control: must be at most 10000"),
        ({"warn": "[10, 99999]"}, "rules.warn_end_days: must be a list of whole numbers"),
        ({"name": "!!float abc"}, "line 2, column 7: not valid YAML: could not convert"),
        ({"name": "!!bool maybe"}, "line 2, column 7: not valid YAML: a boolean is one of"),
        ({"name": "[" * 5000}, "not valid YAML: nested more than 50 deep"),
        ({"warn": "\n" + "    - " * 3000 + "1"}, "not valid YAML: nested more than 50 deep"),
        ({"name": '"a\\0b"'}, "line 2, column 7: not valid YAML: a NUL character is not allowed"),
        ({"name": '"\\ud800"'}, "line 2, column 7: not valid YAML: an unpaired surrogate"),
    ],
    ids=lambda v: "" if isinstance(v, str) else ",".join(v)[:20],
)
@pytest.mark.slow
def test_a_malformed_start_list_is_one_line_and_exit_2(
    config: Path, changes: dict[str, str], key: str
) -> None:
    status, lines = import_file(config, start_list(**changes))
    assert_refused(status, lines, config.parent.as_posix())
    assert len(lines) == 1, lines
    assert key in lines[0], lines


def test_players_naming_a_nul_or_an_overlong_file_is_one_line(config: Path) -> None:
    nul = START.format(players="", **VALID).replace("players:\n", 'players: "\\0"\n')
    status, lines = import_file(config, nul)
    assert_refused(status, lines, config.parent.as_posix())
    assert "line 10, column 10: not valid YAML: a NUL character" in lines[0]
    long = START.format(players="", **VALID).replace("players:\n", f"players: {'x' * 300}.csv\n")
    status, lines = import_file(config, long)
    assert_refused(status, lines, config.parent.as_posix())
    assert "cannot read the file" in lines[0] and "File name too long" in lines[0]


def test_a_start_list_too_long_to_read_is_one_line(config: Path) -> None:
    status, lines = import_file(config, start_list(name="x" * 4_000_000))
    assert_refused(status, lines, config.parent.as_posix())
    assert lines[0].endswith("start.yaml: not valid YAML: longer than 4,000,000 characters")


def test_every_mistake_of_a_start_list_is_its_own_line(config: Path) -> None:
    text = start_list(start="2026-02-30", rating0="'²'", board1="'³'", language="xx")
    status, lines = import_file(config, text)
    assert_refused(status, lines, config.parent.as_posix())
    assert [line.rpartition(": ")[0].rpartition(": ")[2] for line in lines] == [
        "start",
        "language",
        "players[0].rating",
        "players[1].board",
    ]


def test_every_mistake_of_the_rules_overrides_is_its_own_line(config: Path) -> None:
    text = start_list(days="-3", warn="[0]").replace(
        "rules:\n", "rules:\n  auto_forfeit: maybe\n  colour: red\n"
    )
    status, lines = import_file(config, text)
    assert_refused(status, lines, config.parent.as_posix())
    assert [line.partition("rules.")[2] for line in lines] == [
        "days_per_control: must not be negative",
        "auto_forfeit: must be true or false",
        "warn_end_days: must be a list of whole numbers of days, each from 1 to 10000",
        "colour: unknown rule parameter",
    ]


CSV_START = START.format(players="", **VALID).replace("players:\n", "players: players.csv\n")
CSV_HEADER = "id,name,email,rating,board\n"


@pytest.mark.parametrize(
    "csv, found",
    [
        (CSV_HEADER + "a,A,a@example.org,²,\nb,B,b@example.org,,\n", "players[0].rating"),
        (CSV_HEADER + "a,A\0,a@example.org,,\nb,B,b@example.org,,\n", "line 2"),
        (CSV_HEADER + "a," + "A" * 200_000 + ",a@example.org,,\n", "line 2"),
    ],
    ids=["unicode digit", "NUL", "huge field"],
)
def test_a_malformed_players_csv_is_one_line_and_exit_2(config: Path, csv: str, found: str) -> None:
    status, lines = import_file(config, CSV_START, csv.encode("utf-8"))
    assert_refused(status, lines, config.parent.as_posix())
    assert len(lines) == 1 and "players.csv" in lines[0] and found in lines[0], lines


def test_a_players_csv_in_another_encoding_is_one_line(config: Path) -> None:
    csv = (CSV_HEADER + "a,Ана,a@example.org,,\nb,B,b@example.org,,\n").encode("utf-16")
    status, lines = import_file(config, CSV_START, csv)
    assert_refused(status, lines, config.parent.as_posix())
    assert len(lines) == 1 and "players.csv: cannot read the file" in lines[0], lines


# -- the configuration ---------------------------------------------------------------


def config_with(base: Path, extra: str) -> Path:
    path = base.parent / f"config-{next(_files)}.yaml"
    path.write_text(base.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "extra, found",
    [
        ("sweep: {hour: 2026-02-30}\n", "sweep.hour: must be a whole number"),
        ("sweep: {hour: 0000-01-01}\n", "sweep.hour: must be a whole number"),
        ("sweep: {hour: !!timestamp x}\n", "sweep.hour: must be a whole number"),
        ("health: {poll_minutes: " + "9" * 5000 + "}\n", "line 7, column 24: a whole number"),
        ("health: {poll_minutes: !!float x}\n", "line 7, column 24: could not convert"),
        ("policy: " + "[" * 3000 + "\n", "nested more than 50 deep"),
        ("policy: " + "- " * 3000 + "x\n", "not valid YAML"),
        ('log_file: "a\\0b"\n', "line 7, column 11: a NUL character is not allowed"),
        (f"tablebases: {'x' * 300}\n", "tablebases: is too long a path"),
        (f"site_folder: {'x' * 300}\n", "site_folder: is too long a path"),
        ("metrics: {listen: '127.0.0.1:²'}\n", "metrics.listen: must be host:port"),
    ],
    ids=lambda v: v.split(":")[0][:20],
)
@pytest.mark.parametrize("command, code", [("init", 2), ("health", 3)])
def test_a_malformed_configuration_is_one_line_and_exit_2_or_3_for_health(
    config: Path, extra: str, found: str, command: str, code: int
) -> None:
    path = config_with(config, extra)
    status, lines = run("-c", str(path), command)
    assert_refused(status, lines, str(path), code)
    assert len(lines) == 1 and found in lines[0], lines


def test_every_mistake_of_a_configuration_is_its_own_line(config: Path) -> None:
    path = config_with(
        config, f"sweep: {{hour: 2026-02-30}}\ntablebases: {'x' * 300}\nlog_level: loud\n"
    )
    status, lines = run("-c", str(path), "health")
    assert_refused(status, lines, str(path), 3)
    assert [line.split(": ")[2] for line in lines] == ["sweep.hour", "log_level", "tablebases"]


def test_a_too_long_database_path_is_one_line(config: Path) -> None:
    text = config.read_text(encoding="utf-8").replace("sqlite:///", "sqlite:///" + "/x" * 3000)
    path = config.parent / "long-database.yaml"
    path.write_text(text, encoding="utf-8")
    for command, code in (("init", 2), ("health", 3)):
        status, lines = run("-c", str(path), command)
        assert_refused(status, lines, str(path), code)
        assert lines[0].endswith("database: is too long a path (File name too long)")


# -- fuzzing -------------------------------------------------------------------------

#: Values a hostile or careless hand writes after ``key:``.
HOSTILE = st.one_of(
    st.sampled_from(
        [
            "!!timestamp x",
            "!!timestamp 2026-02-30",
            "!!float x",
            "!!int x",
            "!!int 0x",
            "!!bool maybe",
            "!!binary AAAA",
            "!!binary ???",
            "!!set {a: 1}",
            "!!omap [a, b]",
            "!!pairs {a: b}",
            "!!str [a]",
            "!!null x",
            "!!map x",
            "!!seq x",
            "!!python/object:os.system x",
            "!custom x",
            "&a [*a, *a]",
            "*nowhere",
            "<<: 1",
            "{[1]: 2}",
            "? [a]\n  : b",
            '"\\0"',
            '"\\ud800"',
            '"\\x00a"',
            "'²'",
            "²",
            "٣",
            "1e400",
            ".nan",
            "-.inf",
            "0b" + "1" * 300,
            "0o" + "7" * 200,
            "0x" + "f" * 100,
            "1:" * 200 + "0",
            "~",
            "''",
            "[]",
            "{}",
            "\t",
            "|\n  text",
            "- - - x",
        ]
    ),
    st.integers(min_value=0, max_value=6000).map(lambda n: "[" * n),
    st.integers(min_value=0, max_value=3000).map(lambda n: "\n" + "  - " * n + "x"),
    st.integers(min_value=1, max_value=6000).map(lambda n: "9" * n),
    st.integers(min_value=1, max_value=2000).map(lambda n: "x" * n),
    st.tuples(
        st.integers(min_value=0, max_value=99999),
        st.integers(min_value=0, max_value=99),
        st.integers(min_value=0, max_value=99),
    ).map(lambda d: f"{d[0]:04d}-{d[1]:02d}-{d[2]:02d}"),
    st.tuples(
        st.integers(min_value=0, max_value=99),
        st.integers(min_value=0, max_value=99),
        st.sampled_from(["+", "-"]),
    ).map(lambda t: f"2026-03-01 {t[0]:02d}:{t[1]:02d}:00{t[2]}{t[0]:02d}:{t[1]:02d}"),
    st.text(st.characters(categories=["Nd", "No"]), min_size=1, max_size=8),
    st.text(max_size=40).map(lambda t: '"' + t.encode("unicode_escape").decode("ascii") + '"'),
    st.text(max_size=40),
)


@pytest.mark.fuzz
@budget(300)
@given(changes=st.dictionaries(st.sampled_from(sorted(VALID)), HOSTILE, max_size=4))
def test_a_mutated_start_list_never_ends_in_a_traceback(
    config: Path, changes: dict[str, str]
) -> None:
    status, lines = import_file(config, start_list(**{"index": "FUZZ", **changes}))
    assert status in (0, 2), lines
    if status == 2:
        assert_refused(status, lines)


CSV_FIELD = st.one_of(
    st.sampled_from(["", "²", "٣", "\0", '"', '""', "a\nb", "1e9", "-1", "9" * 5000, ",", ";"]),
    st.integers(min_value=1, max_value=200_000).map(lambda n: "A" * n),
    st.text(max_size=20),
)


@st.composite
def players_csv(draw: st.DrawFn) -> bytes:
    rows = [["id", "name", "email", "rating", "board", "country"]]
    for i in range(draw(st.integers(min_value=0, max_value=4))):
        rows.append([f"p{i}", f"Player {i}", f"p{i}@example.org", "2000", str(i + 1), "BGR"])
    for _ in range(draw(st.integers(min_value=0, max_value=4))):
        row = draw(st.integers(min_value=0, max_value=len(rows) - 1))
        column = draw(st.integers(min_value=0, max_value=5))
        rows[row][column] = draw(CSV_FIELD)
    text = "\n".join(",".join(row) for row in rows) + "\n"
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "cp1251", "latin-1"]))
    return text.encode(encoding, errors="replace")


@pytest.mark.fuzz
@budget(200)
@given(csv=players_csv())
def test_a_mutated_players_csv_never_ends_in_a_traceback(config: Path, csv: bytes) -> None:
    status, lines = import_file(config, CSV_START.replace("CUP-1", "FUZZ-CSV"), csv)
    assert status in (0, 2), lines
    if status == 2:
        assert_refused(status, lines)


CONFIG_KEYS = [
    "imap.port",
    "imap.security",
    "imap.idle_seconds",
    "imap.folder",
    "smtp.timeout",
    "smtp.auth",
    "policy.require_dmarc",
    "policy.replies_per_sender_per_day",
    "sweep.hour",
    "health.poll_minutes",
    "metrics.listen",
    "timezone",
    "log_level",
    "log_file",
    "log_format",
    "site_folder",
    "tablebases",
    "bounce_address",
]


def mutated_config(database: Path, changes: dict[str, str]) -> str:
    sections: dict[str, list[str]] = {}
    top = [f"database: sqlite:///{database}"]
    for key, value in changes.items():
        section, _, name = key.rpartition(".")
        if section:
            sections.setdefault(section, []).append(f"  {name}: {value}")
        else:
            top.append(f"{name}: {value}")
    imap = {"host": "127.0.0.1", "port": "993", "security": "ssl", "username": "bot",
            "password": "pw", "folder": "INBOX", "done_folder": "Processed"}  # fmt: skip
    smtp = {"host": "127.0.0.1", "port": "465", "security": "ssl", "username": "bot",
            "password": "pw", "sender": "bot@federation.example"}  # fmt: skip
    if "timezone" not in changes:
        top.append("timezone: Europe/Sofia")
    for name, defaults in (("imap", imap), ("smtp", smtp)):
        given = {line.split(":")[0].strip() for line in sections.get(name, [])}
        sections.setdefault(name, []).extend(
            f"  {k}: {v}" for k, v in defaults.items() if k not in given
        )
    body = [f"{name}:\n" + "\n".join(lines) for name, lines in sections.items()]
    return "\n".join(top + body) + "\n"


@contextlib.contextmanager
def written(path: Path, text: str) -> Iterator[Path]:
    path.write_text(text, encoding="utf-8")
    yield path


@pytest.mark.fuzz
@budget(300)
@given(changes=st.dictionaries(st.sampled_from(CONFIG_KEYS), HOSTILE, min_size=1, max_size=4))
def test_a_mutated_configuration_never_ends_in_a_traceback(
    config: Path, changes: dict[str, str]
) -> None:
    database = config.parent / "mailbot.db"
    # A relative log_file is opened from the working directory: keep it in the test's folder.
    with (
        contextlib.chdir(config.parent),
        written(config.parent / "fuzzed.yaml", mutated_config(database, changes)) as path,
    ):
        status, lines = run("-c", str(path), "init")
        assert status in (0, 2), lines
        if status == 2:
            assert_refused(status, lines, str(path))
        health, health_lines = run("-c", str(path), "health")
        if status == 2:
            assert (health, health_lines) == (3, lines)
        else:
            assert health in (0, 1, 2), health_lines
            assert not any("Traceback" in line for line in health_lines)
