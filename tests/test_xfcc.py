"""Xfcc through its WSDL, with zeep as a player's program: retrieving games, moves
that reach the opponent as ordinary move mail, the refusals (none of which costs
anything), draws and resignation, and the lockout (docs/contract.md, "Players'
chess programs")."""

from __future__ import annotations

import concurrent.futures
import datetime
import logging
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import yaml
import zeep
import zeep.exceptions
from faults import wait_until
from harness import Federation, mailbot, text_of
from mailservers import ImapAccount, SmtpSink, free_port
from sqlalchemy import func, select

from mailbot.cli import main
from mailbot.desk.pipeline import Desk
from mailbot.rules.profile import profile
from mailbot.shell.passes import policy_of
from mailbot.shell.xfcclistener import Listener, start
from mailbot.store.engine import make_engine, session_factory
from mailbot.store.models import Claim, Game, Move, Outbox, Penalty, XfccPassword
from mailbot.store.xfccpasswords import set_password
from mailbot.xfcc import soap
from mailbot.xfcc.gamelist import games_of

SOFIA = ZoneInfo("Europe/Sofia")
NS = soap.NAMESPACE.encode()

#: A document type in UTF-16, where a pattern on the bytes would not see it.
UTF16 = '<?xml version="1.0" encoding="utf-16"?><!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>'


def envelope(inner: bytes) -> bytes:
    return (b'<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Body>'
            + inner + b"</e:Body></e:Envelope>")  # fmt: skip


IVANOV = "ivanov@example.org"
SMITH = "smith@example.org"
PETROV = "petrov@example.org"
START_LIST = """\
index: BG-2026-X1
name: Xfcc cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: bg
notation: bg-cyrillic
director: {name: Georgi Georgiev, email: td@federation.example}
players:
  - {id: ivanov, name: Ivan Ivanov, email: ivanov@example.org, rating: 2100}
  - {id: smith, name: John Smith, email: smith@example.org, language: en, notation: en}
  - {id: petrov, name: Pyotr Petrov, email: petrov@example.org, language: ru, notation: ru}
games:
  - {white: ivanov, black: smith}
  - {white: smith, black: petrov}
  - {white: ivanov, black: petrov}
"""


class Scene:
    """A federation whose daemon serves Xfcc on a free port, at a clock the test sets."""

    def __init__(self, fed: Federation, listener: Listener, clock: list[datetime.datetime]):
        self.fed = fed
        self.listener = listener
        self.clock = clock
        self.client = zeep.Client(f"http://127.0.0.1:{listener.port}/xfcc?WSDL")

    def games(self, who: str, password: str) -> list[Any]:
        return list(self.client.service.GetMyGames(username=who, password=password) or [])

    def move(self, who: str, password: str, game: int, count: int, move: str, *,
             message: str = "", **flags: bool) -> str:  # fmt: skip
        fields = {"resign": False, "acceptDraw": False, "offerDraw": False, "claimDraw": False}
        fields.update(flags)
        return str(
            self.client.service.MakeAMove(
                username=who, password=password, gameId=game, movecount=count, myMove=move,
                myMessage=message, **fields,
            )
        )  # fmt: skip

    def sent(self, seconds: float = 10.0) -> None:
        """Wait until the outbox has sent all it holds: a move's mail goes once the
        program has its answer."""

        def unsent() -> int:
            with self.fed.sessions() as session:
                query = select(func.count()).select_from(Outbox).where(Outbox.status != "sent")
                return int(session.scalar(query) or 0)

        assert wait_until(lambda: unsent() == 0, seconds, 0.05), (
            f"the outbox still holds {unsent()} unsent mails"
        )

    def game_id(self, number: int) -> int:
        with self.fed.sessions() as session:
            return int(session.scalar(select(Game.id).where(Game.number == number)) or 0)


@pytest.fixture
def scene(
    store_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> Iterator[Scene]:
    port = free_port()
    xfcc = {"listen": f"127.0.0.1:{port}", "public_url": f"http://127.0.0.1:{port}/xfcc",
            "site_url": "https://cc.federation.example/games"}  # fmt: skip
    fed = Federation(store_url, imap_account, smtp_sink, START_LIST, tmp_path,
                     settings={"xfcc": xfcc})  # fmt: skip
    clock = [datetime.datetime(2026, 3, 3, 10, tzinfo=SOFIA)]
    with fed.sessions() as session, session.begin():
        for who in (IVANOV, SMITH):
            set_password(session, who, f"pw-{who}", clock[0])
    listener = start(fed.config, fed.sessions, Desk(fed.sessions, policy_of(fed.config)),
                     lambda: clock[0])  # fmt: skip
    assert listener is not None
    try:
        yield Scene(fed, listener, clock)
    finally:
        listener.close()
        fed.close()


def test_a_program_lists_its_games_with_every_field(scene: Scene) -> None:
    games = scene.games(IVANOV, f"pw-{IVANOV}")
    assert [g.id for g in games] == [scene.game_id(1), scene.game_id(3)]
    first = games[0]
    assert (first.white, first.black, first.event, first.site) == (
        "Ivanov, Ivan", "Smith, John", "Xfcc cup", "BG-2026-X1"
    )  # fmt: skip
    assert (first.whiteElo, first.myTurn, first.hasWhite, first.result) == (2100, True, True,
                                                                           "Ongoing")  # fmt: skip
    assert first.eventDate == datetime.date(2026, 3, 1)
    bg = profile("bg-email")
    assert first.timeControl == f"{bg.moves_per_control}/{bg.days_per_control * 86400}"
    assert first.daysPlayer > 0 and first.daysOpponent > 0
    # the player to move: to the minute before the overstep, which falls at a local midnight
    left = datetime.timedelta(days=first.daysPlayer, hours=first.hoursPlayer,
                              minutes=first.minutesPlayer)  # fmt: skip
    overstep = (scene.clock[0] + left).astimezone(SOFIA)
    assert (overstep.hour, overstep.minute) == (0, 0) and first.hoursPlayer == 14
    # the other's clock stands: whole days, all of the first control
    assert (first.daysOpponent, first.hoursOpponent, first.minutesOpponent) == (
        bg.days_per_control, 0, 0)  # fmt: skip
    assert first.gameLink == "https://cc.federation.example/games/BG-2026-X1/game-1.html"


def test_a_move_reaches_the_opponent_as_an_ordinary_move_mail(scene: Scene) -> None:
    one = scene.game_id(1)
    assert scene.move(IVANOV, f"pw-{IVANOV}", one, 1, "e4", message="Have fun") == "Success"
    scene.sent()
    mail = [m for m in scene.fed.received(SMITH) if m.message["X-Mailbot-Event"] == "move"]
    assert len(mail) == 1
    assert "e2-e4" in text_of(mail[0]) and "Have fun" in text_of(mail[0])
    # sent again after a timeout: never a second move
    assert scene.move(IVANOV, f"pw-{IVANOV}", one, 1, "e4") == "NotYourTurn"
    listed = scene.games(SMITH, f"pw-{SMITH}")[0]
    assert (listed.moves, listed.myTurn, listed.message) == ("1. e4", True, "Have fun")


def test_a_program_has_its_answer_before_a_slow_mail_server_takes_the_move_mail(
    scene: Scene,
) -> None:
    """The reply to ``MakeAMove`` does not wait for the SMTP server: a chess program
    waiting on a slow relay would time out and send the move again."""
    scene.fed.smtp.delay = 3.0
    one = scene.game_id(1)
    started = time.monotonic()
    assert scene.move(IVANOV, f"pw-{IVANOV}", one, 1, "e4") == "Success"
    assert time.monotonic() - started < 3.0
    assert scene.fed.received(SMITH) == []  # the relay has not taken it yet
    scene.sent(30)
    assert [m.message["X-Mailbot-Event"] for m in scene.fed.received(SMITH)] == ["move"]


def test_refusals_cost_nothing_and_draws_and_resignation_end_games(scene: Scene) -> None:
    one, two, three = scene.game_id(1), scene.game_id(2), scene.game_id(3)
    iv, sm = (IVANOV, f"pw-{IVANOV}"), (SMITH, f"pw-{SMITH}")
    assert scene.move(*sm, one, 1, "e5") == "NotYourTurn"
    assert scene.move(*iv, one, 1, "e5") == "InvalidMove"
    assert scene.move(*iv, one, 2, "e4") == "InvalidMoveNumber"
    assert scene.move(*sm, three, 1, "e4") == "NotYourGame"
    assert scene.move(*sm, 999999, 1, "e4") == "InvalidGameID"
    assert scene.move(*iv, one, 1, "e4", acceptDraw=True) == "NoDrawWasOffered"
    assert scene.move(IVANOV, "wrong", one, 1, "e4") == "AuthenticationFailed"
    with scene.fed.sessions() as session:
        assert session.scalar(select(func.count()).select_from(Penalty)) == 0
    assert scene.move(*iv, one, 1, "e4", offerDraw=True) == "Success"
    assert scene.games(*sm)[0].drawOffered is True
    scene.clock[0] += datetime.timedelta(days=1)
    assert scene.move(*sm, one, 1, "e4", acceptDraw=True) == "Success"
    assert scene.move(*iv, three, 1, "d4") == "Success"
    assert scene.move(*iv, three, 1, "d4", resign=True) == "Success"
    results = {g.id: g.result for g in scene.games(*iv)}
    assert results == {one: "Draw", three: "BlackWins"}
    assert two not in results


def test_a_mistyped_password_is_refused_and_ten_pause_the_address(scene: Scene) -> None:
    with pytest.raises(zeep.exceptions.Fault, match="AuthenticationFailed"):
        scene.games(SMITH, "pw-typo")
    for _ in range(9):
        with pytest.raises(zeep.exceptions.Fault):
            scene.games(SMITH, "pw-typo")
    scene.clock[0] += datetime.timedelta(minutes=5)
    with pytest.raises(zeep.exceptions.Fault, match="AuthenticationFailed"):
        scene.games(SMITH, f"pw-{SMITH}")  # paused: even the right one
    scene.clock[0] += datetime.timedelta(minutes=11)
    assert len(scene.games(SMITH, f"pw-{SMITH}")) == 2


def _password_in(text: str) -> str:
    found = re.search(r"^(?:Password|Парола|Пароль): (\S+)\s*$", text, re.MULTILINE)
    assert found, text
    return found.group(1)


def test_the_word_xfcc_mails_a_new_password_in_the_players_language(scene: Scene) -> None:
    fed = scene.fed
    fed.write(IVANOV, "xfcc", scene.clock[0])
    fed.poll(scene.clock[0])
    mail = fed.last(IVANOV)
    text = text_of(mail)
    assert "Парола:" in text and f"http://127.0.0.1:{scene.listener.port}/xfcc" in text
    assert "Password" not in text  # a Bulgarian mail, all Bulgarian
    password = _password_in(text)
    # once the mail has gone, the bot's copy of it shows the password no more
    with fed.sessions() as session:
        stored = session.scalars(select(XfccPassword.hashed)).all()
        kept = session.scalars(select(Outbox.text_body)).all()
        kept_html = session.scalars(select(Outbox.html_body)).all()
    assert stored and not any(password in h for h in stored)
    assert not any(password in text for text in kept)
    assert not any(password in html for html in kept_html if html is not None)
    assert any("Парола: ********" in text for text in kept)
    assert len(scene.games(IVANOV, password)) == 2
    with pytest.raises(zeep.exceptions.Fault, match="AuthenticationFailed"):
        scene.games(IVANOV, f"pw-{IVANOV}")  # the previous one stops working


def test_asked_twice_in_a_pass_the_player_is_mailed_only_the_password_that_works(
    scene: Scene,
) -> None:
    """Two ``xfcc`` mails read in one pass: the first answer is still unsent when the
    second password replaces its own, so it goes without it, and no copy keeps a
    password in clear."""
    fed = scene.fed
    for minute in (0, 1):
        fed.write(IVANOV, "xfcc", scene.clock[0] + datetime.timedelta(minutes=minute))
    fed.poll(scene.clock[0] + datetime.timedelta(minutes=2))
    first, second = (text_of(m) for m in fed.received(IVANOV)[-2:])
    assert _password_in(first) == "********"
    password = _password_in(second)
    assert len(scene.games(IVANOV, password)) == 2
    with fed.sessions() as session:
        kept = session.scalars(select(Outbox.text_body)).all()
    assert not any(password in text for text in kept)
    assert len([text for text in kept if "Парола: ********" in text]) == 2


def test_a_copy_an_earlier_version_left_with_the_password_is_cleared_at_the_first_login(
    scene: Scene,
) -> None:
    """A federation upgrades with an answer sent before the store hid the password in
    its copy (the copy still shows the password, its row still names the answer):
    the first login with that password hides it there."""
    fed = scene.fed
    fed.write(IVANOV, "xfcc", scene.clock[0])
    fed.poll(scene.clock[0])
    password = _password_in(text_of(fed.last(IVANOV)))
    with fed.sessions() as session, session.begin():
        (copy,) = session.scalars(select(Outbox).where(Outbox.text_body.contains("********")))
        copy.text_body = copy.text_body.replace("********", password)  # as it was left
        row = session.scalars(select(XfccPassword).where(XfccPassword.address == IVANOV)).one()
        row.mailed_for = copy.inbound_id
    assert len(scene.games(IVANOV, password)) == 2
    with fed.sessions() as session:
        kept = session.scalars(select(Outbox.text_body)).all()
        left = session.scalars(select(XfccPassword.mailed_for)).all()
    assert not any(password in text for text in kept)
    assert any("Парола: ********" in text for text in kept)
    assert left and all(m is None for m in left)


def test_check_reports_the_listener_and_health_the_last_request(scene: Scene) -> None:
    assert scene.fed.config_path is not None
    scene.games(IVANOV, f"pw-{IVANOV}")
    config = str(scene.fed.config_path)
    checked = mailbot("-c", config, "check")
    port = scene.listener.port
    assert f"OK xfcc: the daemon serves Xfcc at 127.0.0.1:{port}" in checked.stdout
    assert "WARNING xfcc: xfcc.public_url is not https" in checked.stdout
    health = mailbot("-c", config, "health")
    assert "OK xfcc: last request" in health.stdout
    assert f"GetMyGames {IVANOV}: 2 games" in health.stdout
    assert f"pw-{IVANOV}" not in health.stdout + checked.stdout + checked.stderr


def test_the_same_move_sent_twice_at_once_is_played_once(scene: Scene) -> None:
    one = scene.game_id(1)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda _: scene.move(IVANOV, f"pw-{IVANOV}", one, 1, "e4"), [0, 1]))
    assert sorted(answers) == ["NotYourTurn", "Success"]
    with scene.fed.sessions() as session:
        assert session.scalar(select(func.count()).select_from(Move)) == 1
    scene.sent()
    assert (
        len([m for m in scene.fed.received(SMITH) if m.message["X-Mailbot-Event"] == "move"]) == 1
    )


def test_no_password_reaches_the_log(scene: Scene, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with pytest.raises(zeep.exceptions.Fault):
        scene.games(IVANOV, "secret-typo")
    scene.move(IVANOV, f"pw-{IVANOV}", scene.game_id(1), 1, "e4")
    logged = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("mailbot"))
    assert "MakeAMove ivanov@example.org" in logged
    assert "secret-typo" not in logged and f"pw-{IVANOV}" not in logged


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b'<!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>', "document type"),
        (UTF16.encode("utf-16"), "document type"),
        (b"<soap:Envelope" + b" " * soap.MAX_REQUEST + b"/>", "over"),
        (b"<not xml", "not XML"),
        (envelope(b"<Resign/>"), "unknown operation"),
        (envelope(b"<MakeAMove><gameId>x</gameId></MakeAMove>"), "gameId"),
    ],
)
def test_a_request_that_is_no_xfcc_is_refused_before_anything(body: bytes, problem: str) -> None:
    with pytest.raises(soap.RequestError, match=problem):
        soap.read_request(body)


def test_flags_arrive_as_words_or_digits_and_the_password_stays_out_of_repr() -> None:
    fields = (b"<username>a@x.org</username><password>sesame</password>"
              b"<gameId>7</gameId><movecount>3</movecount><myMove>Nf3</myMove>"
              b"<resign>0</resign><acceptDraw>false</acceptDraw><offerDraw>1</offerDraw>"
              b"<claimDraw>true</claimDraw>")  # fmt: skip
    request = soap.read_request(envelope(b"<MakeAMove xmlns='" + NS + b"'>" + fields
                                                + b"</MakeAMove>"))  # fmt: skip
    assert isinstance(request, soap.MakeAMove)
    assert (request.game_id, request.movecount, request.move) == (7, 3, "Nf3")
    assert (request.resign, request.offer_draw, request.claim_draw) == (False, True, True)
    assert "sesame" not in repr(request)
    reply = soap.move_reply(soap.MoveResult.SUCCESS)
    assert re.search(r'<MakeAMoveResponse xmlns="[^"]+"><MakeAMoveResult>', reply)


def test_leave_a_lost_game_and_a_claim_are_answered_as_xfcc_names_them(scene: Scene) -> None:
    one, three = scene.game_id(1), scene.game_id(3)
    iv = (IVANOV, f"pw-{IVANOV}")
    config = str(scene.fed.config_path)
    # an overstep awarded by the director (art. 56) loses the game on time
    assert main(["-c", config, "td", "overstep", "BG-2026-X1/3", "white", "--now",
                 "2026-03-03"]) == 0  # fmt: skip
    assert scene.move(*iv, three, 1, "d4") == "LostOnTime"
    assert scene.move(*iv, one, 1, "Nf3", claimDraw=True) == "Success"  # a move with a claim
    with scene.fed.sessions() as session, session.begin():
        assert session.scalar(select(func.count()).select_from(Claim)) == 1
    scene.fed.write(IVANOV, "leave 2026-03-10 2026-03-20", scene.clock[0])
    scene.fed.poll(scene.clock[0])
    scene.clock[0] = datetime.datetime(2026, 3, 12, 10, tzinfo=SOFIA)
    assert scene.move(*iv, one, 2, "d4") == "YouAreOnLeave"


def test_a_games_xfcc_id_is_the_same_after_a_backup_and_restore(
    scene: Scene, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The id a program keeps for a game still names it once the store moved. The
    tournament's games are first made to stand past others deleted since, as in a
    long-used store, so a restore that numbered them afresh would change their ids."""
    assert scene.fed.config_path is not None
    config = str(scene.fed.config_path)
    start_list = tmp_path / "cup.yaml"
    start_list.write_text(START_LIST)
    other = tmp_path / "other.yaml"
    other.write_text(START_LIST.replace("BG-2026-X1", "BG-2026-X0"))
    assert main(["-c", config, "tournament", "delete", "BG-2026-X1"]) == 0
    assert main(["-c", config, "tournament", "import", str(other)]) == 0
    assert main(["-c", config, "tournament", "import", str(start_list)]) == 0
    assert main(["-c", config, "tournament", "delete", "BG-2026-X0"]) == 0
    with scene.fed.sessions() as session, session.begin():
        set_password(session, IVANOV, "pw", scene.clock[0])
    before = [(g.id, g.white, g.black) for g in scene.games(IVANOV, "pw")]
    assert [i for i, _, _ in before] == [scene.game_id(1), scene.game_id(3)]
    assert min(i for i, _, _ in before) > 3
    backup = tmp_path / "store.mailbot-backup"
    assert main(["-c", config, "backup", str(backup)]) == 0
    moved = moved_config(scene, tmp_path / "moved.db")
    assert main(["-c", str(moved), "restore", str(backup)]) == 0
    capsys.readouterr()
    engine = make_engine(f"sqlite:///{tmp_path / 'moved.db'}")
    try:
        with session_factory(engine)() as session:
            after = [(g.id, g.white, g.black) for g in games_of(session, IVANOV, scene.clock[0])]
    finally:
        engine.dispose()
    assert after == before


def moved_config(scene: Scene, database: Path) -> Path:
    """The federation's configuration with its store moved to the SQLite file ``database``."""
    mapping = dict(scene.fed.mapping)
    mapping["database"] = f"sqlite:///{database}"
    path = database.with_suffix(".yaml")
    path.write_text(yaml.safe_dump(mapping))
    return path


@pytest.mark.parametrize(
    ("length", "status"),
    [("abc", 400), ("-5", 400), ("9" * 5000, 413), (str(soap.MAX_REQUEST + 1), 413)],
)
def test_a_request_with_a_false_length_is_refused_and_the_listener_serves_on(
    scene: Scene, length: str, status: int
) -> None:
    """A Content-Length that is no number, or over the bound, is answered at once with a
    SOAP fault (no traceback, no thread left waiting), and the next request is served."""
    with socket.create_connection(("127.0.0.1", scene.listener.port), timeout=10) as conn:
        conn.sendall(f"POST /xfcc HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\n".encode())
        answer = b"".join(iter(lambda: conn.recv(4096), b"")).decode("latin-1")
    assert answer.startswith(f"HTTP/1.0 {status} ") and "<soap:Fault>" in answer
    served = [g.id for g in scene.games(IVANOV, f"pw-{IVANOV}")]
    assert served == [scene.game_id(1), scene.game_id(3)]
