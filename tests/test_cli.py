from __future__ import annotations

import io
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml
from migrated import migrated
from sqlalchemy import func, select
from sqlalchemy.engine import make_url

from mailbot import __version__
from mailbot.cli import main
from mailbot.store.engine import make_engine, session_factory
from mailbot.store.models import Game, Player, Tournament
from mailbot.store.schema import schema_revision

START_LIST = """\
index: BG-2026-E1
name: National e-mail championship
profile: bg-email
start: 2026-03-01
end: 2027-06-30
director: {name: Georgi Georgiev, email: td@federation.example}
players:
  - {id: ivanov, name: Ivan Ivanov, email: ivanov@example.org}
  - {id: petrov, name: Petar Petrov, email: petrov@example.org}
  - {id: popov, name: Pavel Popov, email: popov@example.org}
  - {id: kolev, name: Kolyo Kolev, email: kolev@example.org}
  - {id: dimov, name: Dimo Dimov, email: dimov@example.org}
games: round-robin
"""


def write_config(folder: Path, database: str, **changes: object) -> Path:
    data: dict[str, object] = {
        "database": database,
        "timezone": "Europe/Sofia",
        "imap": {
            "host": "127.0.0.1",
            "port": 993,
            "security": "ssl",
            "username": "bot@federation.example",
            "password": "${MAILBOT_TEST_PASSWORD}",
            "folder": "INBOX",
            "done_folder": "Processed",
        },
        "smtp": {
            "host": "127.0.0.1",
            "port": 465,
            "security": "ssl",
            "username": "bot@federation.example",
            "password": "secret",
            "sender": "Federation CC <bot@federation.example>",
        },
    }
    data.update(changes)
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAILBOT_TEST_PASSWORD", "imap-s3cret")
    monkeypatch.delenv("MAILBOT_CONFIG", raising=False)


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    status = main(list(argv), stdout=out)
    return status, out.getvalue()


def test_init_is_idempotent(db_url: str, tmp_path: Path) -> None:
    config = str(write_config(tmp_path, db_url))
    # the whole place: an SQLite file's absolute path, a server's URL without its password
    place = (
        str(tmp_path / "mailbot.db")
        if db_url.startswith("sqlite")
        else make_url(db_url).render_as_string(hide_password=True)
    )
    status, out = run("-c", config, "init")
    assert status == 0
    assert f"database {place}: created at revision 0018" in out
    status, out = run("-c", config, "init")
    assert status == 0
    assert f"database {place}: up to date at revision 0018" in out
    assert schema_revision(db_url) == "0018"


def test_init_names_a_relative_sqlite_file_by_its_whole_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = str(write_config(tmp_path, "sqlite:///mailbot.db"))
    status, out = run("-c", config, "init")
    assert status == 0
    assert out.strip() == f"database {tmp_path / 'mailbot.db'}: created at revision 0018"
    assert (tmp_path / "mailbot.db").is_file()


@pytest.mark.slow
def test_tournament_import_then_again(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(write_config(tmp_path, db_url))
    start_list = tmp_path / "start.yaml"
    start_list.write_text(START_LIST, encoding="utf-8")
    migrated(db_url)  # init finds the schema made: a copy of the template
    assert run("-c", config, "init")[0] == 0

    status, out = run("-c", config, "tournament", "import", str(start_list))
    assert status == 0
    assert "BG-2026-E1" in out
    assert "5 players, 10 games" in out
    capsys.readouterr()

    status, out = run("-c", config, "tournament", "import", str(start_list))
    assert status == 2
    assert out == ""
    err = capsys.readouterr().err
    assert err == (
        "mailbot: tournament BG-2026-E1 already exists; give the new one another index\n"
    )

    engine = make_engine(db_url)
    try:
        with session_factory(engine)() as session:
            assert session.scalar(select(func.count()).select_from(Tournament)) == 1
            assert session.scalar(select(func.count()).select_from(Player)) == 5
            assert session.scalar(select(func.count()).select_from(Game)) == 10
    finally:
        engine.dispose()


def test_broken_config_names_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path, f"sqlite:///{tmp_path / 'm.db'}")
    config.write_text(config.read_text().replace("port: 993", "port: nine"), encoding="utf-8")
    assert run("-c", str(config), "init")[0] == 2
    err = capsys.readouterr().err
    assert err == f"mailbot: {config}: imap.port: must be a whole number\n"
    assert not (tmp_path / "m.db").exists()


def test_missing_variable_in_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path, "sqlite://")
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("MAILBOT_TEST_PASSWORD")
        assert run("-c", str(config), "poll")[0] == 2
    err = capsys.readouterr().err
    assert "imap.password: environment variable MAILBOT_TEST_PASSWORD is not set" in err
    assert err.count("\n") == 1


@pytest.mark.slow
def test_commands_that_talk_to_no_server_need_no_server_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the passwords live in a root-only environment file: the bot's user has neither
    config = write_config(tmp_path, f"sqlite:///{tmp_path / 'm.db'}")
    data = yaml.safe_load(config.read_text())
    data["smtp"].update(username="bot", password="${MAILBOT_TEST_SMTP}")
    config.write_text(yaml.safe_dump(data), encoding="utf-8")
    monkeypatch.delenv("MAILBOT_TEST_PASSWORD")
    monkeypatch.delenv("MAILBOT_TEST_SMTP", raising=False)
    c = str(config)
    for argv in (
        ["init"],
        ["status"],
        ["outbox"],
        ["backup", str(tmp_path / "copy.db")],
        ["standings", "NONE"],
    ):
        status, _ = run("-c", c, *argv)
        err = capsys.readouterr().err
        assert "is not set" not in err, (argv, err)
        assert status != 2 or argv == ["standings", "NONE"], (argv, err)
    assert run("-c", c, "health")[0] != 3
    assert "is not set" not in capsys.readouterr().err
    # a command that talks to a server needs that server's secret, named by its key
    assert run("-c", c, "poll")[0] == 2
    assert capsys.readouterr().err.splitlines() == [
        f"mailbot: {config}: imap.password: environment variable MAILBOT_TEST_PASSWORD is not set",
        f"mailbot: {config}: smtp.password: environment variable MAILBOT_TEST_SMTP is not set",
    ]
    start_list = tmp_path / "start.yaml"
    start_list.write_text("index: X\n", encoding="utf-8")
    assert run("-c", c, "tournament", "import", str(start_list))[0] == 2
    assert capsys.readouterr().err.splitlines() == [
        f"mailbot: {config}: smtp.password: environment variable MAILBOT_TEST_SMTP is not set"
    ]


@pytest.mark.slow
def test_config_from_environment_then_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    config = write_config(elsewhere, f"sqlite:///{elsewhere / 'env.db'}")
    monkeypatch.chdir(tmp_path)
    assert run("init")[0] == 2
    assert capsys.readouterr().err == (
        "mailbot: config.yaml: file not found (give one with -c or MAILBOT_CONFIG)\n"
    )
    monkeypatch.setenv("MAILBOT_CONFIG", str(config))
    assert run("init")[0] == 0
    assert (elsewhere / "env.db").exists()
    write_config(tmp_path, f"sqlite:///{tmp_path / 'here.db'}")
    monkeypatch.delenv("MAILBOT_CONFIG")
    assert run("init")[0] == 0
    assert (tmp_path / "here.db").exists()


def test_bad_start_list_names_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    database = f"sqlite:///{tmp_path / 'm.db'}"
    config = str(write_config(tmp_path, database))
    migrated(database)  # init finds the schema made: a copy of the template
    assert run("-c", config, "init")[0] == 0
    start_list = tmp_path / "start.yaml"
    start_list.write_text(START_LIST.replace("popov@example.org", "popov@"), encoding="utf-8")
    capsys.readouterr()
    assert run("-c", config, "tournament", "import", str(start_list))[0] == 2
    err = capsys.readouterr().err
    assert err.startswith(
        f"mailbot: {start_list}, line 10, column 43: players[2].email: 'popov@' is not a valid"
    )
    assert err.count("\n") == 1
    assert run("-c", config, "tournament", "import", str(tmp_path / "none.yaml"))[0] == 2
    assert "none.yaml: file not found" in capsys.readouterr().err


def test_a_database_without_tables_is_one_line_that_says_init(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # No `init`: the tables do not exist.
    config = str(write_config(tmp_path, f"sqlite:///{tmp_path / 'm.db'}"))
    start_list = tmp_path / "start.yaml"
    start_list.write_text(START_LIST, encoding="utf-8")
    assert run("-c", config, "tournament", "import", str(start_list))[0] == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "has no tables yet (no such table" in err
    assert f"run: mailbot -c {config} init" in err
    assert "Traceback" not in err


@pytest.mark.slow
def test_other_failures_exit_1_and_are_logged(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = str(write_config(tmp_path, db_url))
    migrated(db_url)  # init finds the schema made: a copy of the template
    assert run("-c", config, "init")[0] == 0

    def broken(*args: object) -> str:
        raise RuntimeError("a bug in the report")

    # A stand-in for a bug: no real part fails this way on purpose.
    monkeypatch.setattr("mailbot.publish.report.overview", broken)
    assert run("-c", config, "status")[0] == 1
    err = capsys.readouterr().err
    assert "ERROR mailbot: status failed" in err
    assert "RuntimeError: a bug in the report" in err


@pytest.mark.parametrize(
    "argv", [[], ["frobnicate"], ["tournament"], ["tournament", "import"], ["init", "extra"]]
)
def test_bad_usage_exits_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert "usage: mailbot" in capsys.readouterr().err


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "init" in out and "tournament" in out


def test_python_dash_m(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mailbot", "--version"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env={"PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
    )
    assert done.returncode == 0
    assert done.stdout.strip() == f"mailbot {__version__}"


def test_the_config_option_may_follow_the_command(db_url: str, tmp_path: Path) -> None:
    config = str(write_config(tmp_path, db_url))
    status, out = run("init", "-c", config)
    assert status == 0
    assert "created at revision" in out
    assert run("status", "--config", config)[0] == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("td@federation.example", "players[1].email: td@federation.example is the director's"),
        ("Bot@Federation.Example", "players[1].email: bot@federation.example is the bot's own"),
        ("bot+chess@federation.example", "is the bot's own address"),
        ("ivanov@example.org", "players[1].email: ivanov@example.org is already players[0]"),
        ("petrov@club.local", "is a special-use or reserved name"),
    ],
)
@pytest.mark.slow
def test_an_address_that_cannot_be_a_players_is_refused_at_import(
    store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], change: str, message: str
) -> None:
    config = str(write_config(tmp_path, store_url))
    migrated(store_url)  # init finds the schema made: a copy of the template
    assert run("-c", config, "init")[0] == 0
    start_list = tmp_path / "start.yaml"
    start_list.write_text(START_LIST.replace("petrov@example.org", change), encoding="utf-8")
    assert run("-c", config, "tournament", "import", str(start_list))[0] == 2
    assert message in capsys.readouterr().err
    with session_factory(make_engine(store_url))() as session:
        assert session.scalar(select(func.count()).select_from(Tournament)) == 0


@pytest.mark.slow
def test_a_club_may_allow_special_use_domains(store_url: str, tmp_path: Path) -> None:
    config = str(write_config(tmp_path, store_url, policy={"special_use_domains": True}))
    migrated(store_url)  # init finds the schema made: a copy of the template
    assert run("-c", config, "init")[0] == 0
    start_list = tmp_path / "start.yaml"
    text = START_LIST.replace("example.org", "club.local").replace("federation.example", "lan.test")
    start_list.write_text(text, encoding="utf-8")
    assert run("-c", config, "tournament", "import", str(start_list))[0] == 0
    with session_factory(make_engine(store_url))() as session:
        emails = session.scalars(select(Player.email).order_by(Player.id)).all()
    assert emails[0] == "ivanov@club.local"


def test_an_unreachable_server_is_one_line_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # nothing listens on port 9 of the loopback: a database and an IMAP server that are down
    down = "postgresql+psycopg://bot:s3cret@127.0.0.1:9/federation"
    config = str(write_config(tmp_path, down))
    assert run("-c", config, "status")[0] == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(
        "mailbot: the database postgresql+psycopg://bot:***@127.0.0.1:9/federation cannot be"
    )
    assert f"check that the server runs and `database` in {config}" in err
    assert "s3cret" not in err and "Traceback" not in err

    sqlite = f"sqlite:///{tmp_path / 'm.db'}"
    imap = {"host": "127.0.0.1", "port": 9, "security": "none", "username": "bot",
            "password": "x", "folder": "INBOX", "done_folder": "Processed"}  # fmt: skip
    config = str(write_config(tmp_path, sqlite, imap=imap))
    migrated(sqlite)  # init finds the schema made: a copy of the template
    assert run("-c", config, "init")[0] == 0
    capsys.readouterr()
    assert run("-c", config, "poll", "--once")[0] == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("mailbot: IMAP 127.0.0.1:9 cannot be reached (")
    assert f"check that the server runs and `imap` in {config}" in err


def test_a_server_that_turns_the_bot_away_is_not_taken_for_a_refused_login(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An IMAP server that says goodbye on connecting, whatever its words, is a server
    to check, not the account: the kind of failure decides the line, not its text."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def greet() -> None:
        with listener, listener.accept()[0] as client:
            client.sendall(b"* BYE maintenance: the server refused the login of everyone\r\n")

    server = threading.Thread(target=greet, daemon=True)
    server.start()
    sqlite = f"sqlite:///{tmp_path / 'm.db'}"
    imap = {"host": "127.0.0.1", "port": port, "security": "none", "username": "bot",
            "password": "x", "folder": "INBOX", "done_folder": "Processed"}  # fmt: skip
    config = str(write_config(tmp_path, sqlite, imap=imap))
    migrated(sqlite)  # init finds the schema made: a copy of the template
    assert run("-c", config, "init")[0] == 0
    capsys.readouterr()
    assert run("-c", config, "poll", "--once")[0] == 1
    server.join(10)
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(f"mailbot: IMAP 127.0.0.1:{port} cannot be reached (* BYE maint")
    assert err.endswith(f"; check that the server runs and `imap` in {config}\n")


def folders(root: Path, *names: str) -> list[Path]:
    """New folders ``names`` in ``root``."""
    made = [root / name for name in names]
    for folder in made:
        folder.mkdir()
    return made


@pytest.mark.slow
def test_relative_paths_are_taken_from_the_configuration_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    etc, elsewhere = folders(tmp_path, "etc", "elsewhere")
    (etc / "syzygy").mkdir()
    config = write_config(
        etc, "sqlite:///mailbot.db", log_file="mailbot.log", tablebases="syzygy", site_folder="www"
    )
    monkeypatch.chdir(elsewhere)
    status, out = run("-c", str(config), "init")
    assert status == 0, capsys.readouterr().err
    assert out.strip() == f"database {etc / 'mailbot.db'}: created at revision 0018"
    assert (etc / "mailbot.db").is_file() and (etc / "mailbot.log").is_file()
    assert list(elsewhere.iterdir()) == []


def test_a_database_at_the_working_folders_reading_is_named_beside_the_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # an earlier version read sqlite:///mailbot.db from the working folder
    etc, home = folders(tmp_path, "etc", "home")
    monkeypatch.chdir(home)
    assert run("-c", str(write_config(home, f"sqlite:///{home / 'mailbot.db'}")), "init")[0] == 0
    capsys.readouterr()
    config = write_config(etc, "sqlite:///mailbot.db")
    for command in ("init", "run"):
        assert run("-c", str(config), command)[0] == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        assert str(etc / "mailbot.db") in err and str(home / "mailbot.db") in err, err
    assert not (etc / "mailbot.db").exists()
