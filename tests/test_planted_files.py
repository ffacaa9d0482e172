"""Files never follow what a stranger planted, and no index or game tag names a path.

A stranger with a shell account beside the bot (or a restored backup from
somewhere else) may plant a symbolic link where the bot writes its site or a
dispute file, or give a tournament an index such as ``..``. The bot refuses
in one line and writes nothing through the link or outside the folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from migrated import migrated
from sqlalchemy import update
from test_cli import START_LIST, run, write_config

from mailbot.store.engine import make_engine, session_factory
from mailbot.store.models import Tournament


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAILBOT_TEST_PASSWORD", "imap-s3cret")
    monkeypatch.delenv("MAILBOT_CONFIG", raising=False)


@pytest.fixture
def config(store_url: str, tmp_path: Path) -> str:
    """A configuration with the championship imported (nothing played yet)."""
    path = str(write_config(tmp_path, store_url))
    start_list = tmp_path / "start.yaml"
    start_list.write_text(START_LIST, encoding="utf-8")
    migrated(store_url)  # init finds the schema made: a copy of the template
    assert run("-c", path, "init")[0] == 0
    assert run("-c", path, "tournament", "import", str(start_list))[0] == 0
    return path


@pytest.mark.slow
def test_a_link_planted_where_the_site_writes_its_part_file_is_never_followed(
    config: str, tmp_path: Path
) -> None:
    """The part file used to be ``DIR/.index.html.part``, written through any link
    there: ``ln -s VICTIM DIR/.index.html.part`` overwrote VICTIM with the page."""
    site = tmp_path / "site"
    site.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (site / ".index.html.part").symlink_to(victim)
    status, out = run("-c", config, "site", "BG-2026-E1", str(site))
    assert status == 0, out
    assert victim.read_text() == "precious\n"
    assert "<html" in (site / "index.html").read_text()
    assert (site / ".index.html.part").is_symlink()  # left as it was, never written through


@pytest.mark.parametrize("planted", ["index.html", "BG-2026-E1.pgn", "folder"])
@pytest.mark.slow
def test_a_symlinked_page_or_folder_is_refused_in_one_line(
    config: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], planted: str
) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("precious\n")
    site = tmp_path / "site"
    if planted == "folder":
        site.symlink_to(victim, target_is_directory=True)
    else:
        site.mkdir()
        (site / planted).symlink_to(victim / "keep.txt")
    capsys.readouterr()
    status, _ = run("-c", config, "site", "BG-2026-E1", str(site))
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and "symbolic link" in err, err
    assert "Traceback" not in err
    assert (victim / "keep.txt").read_text() == "precious\n"
    assert sorted(os.listdir(victim)) == ["keep.txt"]


@pytest.mark.slow
def test_a_symlinked_dispute_file_folder_is_refused(
    config: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    folder = tmp_path / "dispute"
    folder.symlink_to(victim, target_is_directory=True)
    capsys.readouterr()
    status, _ = run("-c", config, "evidence", "BG-2026-E1/1", str(folder))
    err = capsys.readouterr().err
    assert status == 2 and "symbolic link" in err and err.count("\n") == 1, err
    assert os.listdir(victim) == []


def test_a_restored_index_that_names_the_parent_writes_nothing_there(
    config: str, store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A backup from elsewhere may carry any index; ``..`` made ``site`` write
    ``index.html`` into the site folder's parent."""
    engine = make_engine(store_url)
    try:
        with session_factory(engine)() as session, session.begin():
            session.execute(update(Tournament).values(index=".."))
    finally:
        engine.dispose()
    site = tmp_path / "sites" / "inner"
    site.mkdir(parents=True)
    capsys.readouterr()
    status, _ = run("-c", config, "site", "..", str(site / ".."))
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "index" in err, err
    assert os.listdir(tmp_path / "sites") == ["inner"]
    assert os.listdir(site) == []


@pytest.mark.parametrize("command", ["status", "evidence"])
@pytest.mark.parametrize(
    "tag", ["BG-2026-E1/²", "BG-2026-E1/٣", "../x/1", "BG-2026-E1/99999999999"]
)
@pytest.mark.slow
def test_a_game_tag_that_is_no_plain_index_and_number_is_refused_in_one_line(
    config: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, tag: str
) -> None:
    """``mailbot status 'X/²'`` ended in a traceback: ``str.isdigit`` takes a
    superscript two, ``int`` does not."""
    extra = [str(tmp_path / "dispute")] if command == "evidence" else []
    capsys.readouterr()
    status, _ = run("-c", config, command, tag, *extra)
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert not (tmp_path / "dispute").exists()
