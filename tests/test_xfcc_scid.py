"""Scid's own Xfcc client against ``mailbot run``: Scid 4.7.4's correspondence.tcl,
sourced unmodified into tkscid under a virtual X display (tests/scid/xfcc.tcl),
retrieves a player's games, sends moves, draws and resigns, and is refused a
mistyped password (docs/contract.md, "Players' chess programs").

Without Scid the tests are skipped on a developer's machine and fail under CI
(tests/scidrun.py). The store is SQLite in every run: the Xfcc service on
PostgreSQL is tests/test_xfcc.py's.
"""

from __future__ import annotations

import datetime
import email.utils
import socket
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import chess.pgn
import pytest
from faults import DaemonProcess, start_daemon, within
from harness import Federation, text_of
from mailservers import ImapAccount, SmtpSink, free_port
from scidrun import require_scid, run_scid, scid_cup
from sqlalchemy import func, select

from mailbot.store.models import Game, Penalty
from mailbot.store.xfccpasswords import set_password

SOFIA = ZoneInfo("Europe/Sofia")
IVANOV = "ivanov@example.org"
SMITH = "smith@example.org"


@pytest.fixture(autouse=True)
def _needs_scid() -> None:
    require_scid()


class Scid:
    """One player's Scid: its folder with the xfccrc naming the bot's server."""

    def __init__(self, folder: Path, url: str, user: str, password: str) -> None:
        self.folder = folder
        folder.mkdir()
        self.login(url, user, password)

    def login(self, url: str, user: str, password: str) -> None:
        (self.folder / "xfccrc").write_text(
            f"<xfcc><server><name>Mailbot</name><uri>{url}</uri><user>{user}</user>"
            f"<pass>{password}</pass><rating>Elo</rating></server></xfcc>\n"
        )

    def run(self, *args: str) -> str:
        return run_scid("xfcc.tcl", str(self.folder), *args)

    def send(self, game: int, count: int, move: str, comment: str = "", *, resign: bool = False,
             accept: bool = False, offer: bool = False, claim: bool = False) -> str:  # fmt: skip
        flags = [str(int(f)) for f in (resign, accept, offer, claim)]
        return self.run("send", str(game), str(count), move, comment, *flags)

    def pgn(self, game: int) -> chess.pgn.Game:
        with (self.folder / "Inbox" / f"Mailbot-{game}.pgn").open() as f:
            found = chess.pgn.read_game(f)
        assert found is not None
        return found


class Scene:
    def __init__(self, fed: Federation, daemon: DaemonProcess, url: str, tmp: Path) -> None:
        self.fed, self.daemon = fed, daemon
        self.ivanov = Scid(tmp / "ivanov", url, IVANOV, "pw-ivanov")
        self.smith = Scid(tmp / "smith", url, SMITH, "pw-smith")
        with fed.sessions() as session:
            self.games = list(session.scalars(select(Game.id).order_by(Game.number)))

    def mails(self, address: str, event: str) -> list[str]:
        """The texts of the mails of ``event`` that ``address`` received."""
        return [text_of(m) for m in self.fed.received(address)
                if m.message["X-Mailbot-Event"] == event]  # fmt: skip


@pytest.fixture
def scene(
    sqlite_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> Iterator[Scene]:
    port = free_port()
    url = f"http://127.0.0.1:{port}/xfcc"
    today = datetime.datetime.now(SOFIA).date()
    xfcc = {"listen": f"127.0.0.1:{port}", "public_url": url}
    fed = Federation(sqlite_url, imap_account, smtp_sink, scid_cup(today), tmp_path,
                     settings={"xfcc": xfcc})  # fmt: skip
    now = datetime.datetime.now(datetime.UTC)
    with fed.sessions() as session, session.begin():
        set_password(session, IVANOV, "pw-ivanov", now)
        set_password(session, SMITH, "pw-smith", now)
    assert fed.config_path is not None
    daemon = start_daemon(fed.config_path)

    def listening() -> bool:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            return False
        return True

    try:
        within(daemon, listening, 60, "the daemon serves Xfcc")
        yield Scene(fed, daemon, url, tmp_path)
    finally:
        daemon.kill()
        fed.close()


def test_scid_plays_a_game_through_xfcc(scene: Scene) -> None:
    one, two = scene.games
    said = scene.ivanov.run("retrieve")
    assert "info Processing ivanov@example.org@Mailbot..." in said
    game = scene.ivanov.pgn(one)
    assert (game.headers["White"], game.headers["Black"]) == ("Ivanov, Ivan", "Smith, John")
    assert (game.headers["Event"], game.headers["GameId"]) == ("Scid cup", str(one))
    assert list(game.mainline_moves()) == []
    state = (scene.ivanov.folder / "xfccstate").read_text()
    assert f"Mailbot-{one}" in state and "clockW" in state and "clockB" in state

    said = scene.ivanov.send(one, 1, "e4", "Good luck")
    assert "info Processing successfull!" in said
    within(scene.daemon, lambda: scene.mails(SMITH, "move"), 30, "Smith's move mail")
    mail = scene.mails(SMITH, "move")[0]
    assert "e2-e4" in mail and "Good luck" in mail
    sent = next(m for m in scene.fed.received(SMITH) if m.message["X-Mailbot-Event"] == "move")
    dated = email.utils.parsedate_to_datetime(str(sent.message["Date"])).astimezone(SOFIA)
    assert dated.date() == datetime.datetime.now(SOFIA).date()

    assert "info Not your turn!" in scene.ivanov.send(one, 1, "e4")
    assert "info Invalid move!" in scene.smith.send(one, 1, "e6e3")
    with scene.fed.sessions() as session:
        assert session.scalar(select(func.count()).select_from(Penalty)) == 0

    scene.smith.run("retrieve")
    assert [m.uci() for m in scene.smith.pgn(one).mainline_moves()] == ["e2e4"]
    assert "info Processing successfull!" in scene.smith.send(one, 1, "e5", offer=True)
    # Scid sends the opponent's last move with an acceptance
    assert "info Processing successfull!" in scene.ivanov.send(one, 1, "e5", accept=True)
    assert "info Processing successfull!" in scene.smith.send(two, 1, "d4")
    assert "info Processing successfull!" in scene.ivanov.send(two, 1, "d4", resign=True)
    scene.ivanov.run("retrieve")
    assert scene.ivanov.pgn(one).headers["Result"] == "1/2-1/2"
    assert scene.ivanov.pgn(two).headers["Result"] == "1-0"

    url = (scene.ivanov.folder / "xfccrc").read_text().split("<uri>")[1].split("</uri>")[0]
    scene.smith.login(url, SMITH, "pw-typo")
    refused = scene.smith.run("retrieve")
    assert "info Authentication failed!" in refused
    assert "DIALOG Scid Authentication Failure!" in refused
