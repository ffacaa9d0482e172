"""``mailbot quarantine``: the messages set aside after repeated failures, listed
and put back, through the command line as the operator runs it, on the real
Dovecot and SMTP listener, on SQLite and PostgreSQL.

What the operator notices: the lines of the list, the messages in the
folders and their arrival times, the moves the players receive and the clocks
`status` shows, the exit status and the one line on stderr.
"""

from __future__ import annotations

import datetime
import io
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import chess.pgn
import pytest
import yaml
from harness import Federation, text_of
from mailservers import ImapAccount, Received, SmtpSink, free_port
from sqlalchemy import select

from mailbot.cli import main
from mailbot.desk.pipeline import Desk
from mailbot.store.models import Game, InboundMessage

SOFIA = ZoneInfo("Europe/Sofia")
TD = "td@federation.example"
IVANOV = "ivanov@example.org"
SMITH = "smith@example.org"
PETROV = "petrov@example.org"

START_LIST = """\
index: QT-1
name: Quarantine cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: en
notation: en
director: {name: Georgi Georgiev, email: td@federation.example}
players:
  - {id: ivanov, name: Ivan Ivanov, email: ivanov@example.org}
  - {id: smith, name: John Smith, email: smith@example.org}
  - {id: petrov, name: Pyotr Petrov, email: petrov@example.org}
games:
  - {white: ivanov, black: smith}
  - {white: smith, black: petrov}
  - {white: ivanov, black: petrov}
"""

BROKEN = "RuntimeError: the handler broke down"


def at(day: int, hour: int = 9) -> datetime.datetime:
    """A moment of March 2026 in the tournament's time zone."""
    return datetime.datetime(2026, 3, day, hour, tzinfo=SOFIA)


@pytest.fixture
def fed(
    db_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> Iterator[Federation]:
    federation = Federation(db_url, imap_account, smtp_sink, START_LIST, tmp_path)
    try:
        yield federation
    finally:
        federation.close()


@pytest.fixture
def failing(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """The senders whose mail the desk fails on; clear it to fix the fault.

    Fault injection: nothing real makes the desk fail on demand, so (as in
    tests/test_poison.py) its handler is made to raise for these senders'
    mail, in this process, where the command line runs.
    """
    senders: set[str] = set()
    real = Desk._handle

    def handle(self: Desk, ctx: object, budget: object) -> None:
        if ctx.letter.from_addr in senders:  # type: ignore[attr-defined]
            raise RuntimeError("the handler broke down")
        real(self, ctx, budget)  # type: ignore[arg-type]

    monkeypatch.setattr(Desk, "_handle", handle)
    return senders


def run_cli(fed: Federation, *args: str, config: Path | None = None) -> tuple[int, str]:
    """``mailbot -c CONFIG ARGS...`` in this process: (exit status, stdout)."""
    path = config or fed.config_path
    assert path is not None
    out = io.StringIO()
    code = main(["-c", str(path), *args], stdout=out)
    return code, out.getvalue()


def poll(fed: Federation, now: datetime.datetime) -> dict[str, int]:
    """``mailbot poll --once --now NOW``: what became of the messages read, by outcome."""
    code, out = run_cli(fed, "poll", "--once", "--now", now.isoformat())
    assert code == 0, out
    words = out.split()
    assert words[0] == "poll:", out
    end = next(i for i, w in enumerate(words) if w.startswith("sent="))  # the delivery's
    return {k: int(v) for k, v in (w.split("=") for w in words[1:end])}


def listed(fed: Federation, *args: str) -> list[list[str]]:
    """The lines of ``mailbot quarantine`` (tab-separated fields)."""
    code, out = run_cli(fed, "quarantine", *args)
    assert code == 0, out
    if out == "no message in quarantine\n":
        return []
    return [row.split("\t") for row in out.splitlines()]


def quarantine(fed: Federation, first: datetime.datetime) -> None:
    """Three passes an hour apart from ``first``: the failing mail waiting is
    tried twice, then set aside."""
    outcomes = [poll(fed, first + datetime.timedelta(hours=h)) for h in range(3)]
    assert [set(o) for o in outcomes] == [{"failed"}, {"failed"}, {"quarantined"}], outcomes


def mails(fed: Federation, address: str, event: str) -> list[Received]:
    return [i for i in fed.received(address) if i.message["X-Mailbot-Event"] == event]


def arrivals(fed: Federation, folder: str) -> list[datetime.datetime]:
    """The INTERNALDATE of every message of ``folder``, oldest first."""
    client = fed.client
    client.normalise_times = False
    client.select_folder(folder, readonly=True)
    data = client.fetch(client.search(["UNDELETED"]), ["INTERNALDATE"])
    return sorted(item[b"INTERNALDATE"] for item in data.values())


def move_rows(fed: Federation, game: str) -> list[list[str]]:
    """The move rows of ``mailbot status GAME``: number, move, dates, days."""
    code, out = run_cli(fed, "status", game)
    assert code == 0, out
    return [line.split() for line in out.splitlines() if line.strip()[:1].isdigit()]


def pgn_moves(fed: Federation, game: str) -> list[str]:
    code, out = run_cli(fed, "pgn", game)
    assert code == 0, out
    record = chess.pgn.read_game(io.StringIO(out))
    assert record is not None
    return [m.uci() for m in record.mainline_moves()]


def sent_at(fed: Federation, number: int) -> list[datetime.datetime]:
    """When the bot counts each move of game ``number`` as received."""
    with fed.sessions() as session:
        g = session.scalars(select(Game).where(Game.number == number)).one()
        return [m.sent_at for m in g.moves]


def put_in_quarantine_by_hand(fed: Federation, raw: bytes, arrived: datetime.datetime) -> None:
    """The operator drops a message into the quarantine folder (as a mail client would)."""
    if not fed.client.folder_exists("Quarantine"):
        fed.client.create_folder("Quarantine")
    fed.client.append("Quarantine", raw, msg_time=arrived)


# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_a_quarantined_move_is_listed_released_and_played_once(
    fed: Federation, failing: set[str]
) -> None:
    """Ivanov's first move fails three times and is set aside; the director is
    told once. Once the fault is fixed, `release` puts it back and the next
    pass plays it once, counted from its original arrival."""
    failing.add(IVANOV)
    sent = fed.write(IVANOV, "1. e2-e4", at(5, 9), subject="[QT-1/1] move")
    quarantine(fed, at(5, 10))
    assert (fed.pending_in_inbox(), fed.in_folder("Quarantine")) == (0, 1)
    # a copy delivered again (another Received line) joins it without another notice
    fed.deliver(b"Received: from mx2.example.org; Thu, 5 Mar 2026\r\n" + sent.as_bytes(), at(5, 13))
    assert poll(fed, at(5, 14)) == {"quarantined": 1}
    assert (fed.pending_in_inbox(), fed.in_folder("Quarantine")) == (0, 2)
    assert [str(m.message["X-Mailbot-Event"]) for m in fed.received(TD)] == ["error"]
    assert mails(fed, SMITH, "move") == []

    ((ident, sender, subject, when, reason),) = listed(fed)
    assert ident.isdigit()
    assert (sender, subject, when) == (IVANOV, "[QT-1/1] move", "2026-03-05 12:00")
    assert reason == f"failed 3 times: {BROKEN}"
    assert listed(fed, "list") == [[ident, sender, subject, when, reason]]

    failing.clear()  # the fault is fixed
    code, out = run_cli(fed, "quarantine", "release", ident)
    assert code == 0
    assert out == f"released {ident} from {IVANOV} ([QT-1/1] move): moved back to INBOX\n"
    # both copies, each with its arrival time
    assert (fed.pending_in_inbox(), fed.in_folder("Quarantine")) == (2, 0)
    assert arrivals(fed, "INBOX") == [at(5, 9), at(5, 13)]
    assert listed(fed) == []

    assert poll(fed, at(7, 10)) == {"handled": 1, "duplicate": 1}
    assert pgn_moves(fed, "QT-1/1") == ["e2e4"]
    (move,) = mails(fed, SMITH, "move")
    assert move.message["X-Mailbot-Move"] == "e2e4"
    # the art. 8 line: from the start on 1 March to its arrival on 5 March
    assert "1. e2-e4; – – 1.3. – 5.3. = 4 days" in text_of(move), text_of(move)
    assert len(mails(fed, IVANOV, "move-accepted")) == 1
    # the clock counts the four days from the start to its arrival, not to the release
    assert ["1", "e4", "2026-03-01", "2026-03-05", "4"] in move_rows(fed, "QT-1/1")
    assert sent_at(fed, 1) == [at(5, 9)]
    assert arrivals(fed, "Processed") == [at(5, 9), at(5, 13)]

    # handled once: another pass finds nothing, nobody hears more
    count = len(fed.smtp.messages)
    assert poll(fed, at(7, 11)) == {}
    assert len(fed.smtp.messages) == count
    assert pgn_moves(fed, "QT-1/1") == ["e2e4"]
    assert len(fed.received(TD)) == 1


@pytest.mark.slow
def test_a_message_in_the_folder_that_nothing_records_is_listed_and_released(
    fed: Federation,
) -> None:
    """A message that could not be recorded lies in the quarantine folder alone
    (here put there by hand): it is listed as imap:UID, and released it is
    played as arriving when it first arrived."""
    raw = fed.compose(IVANOV, "1. d2-d4", at(4, 18), subject="[QT-1/3] move").as_bytes()
    put_in_quarantine_by_hand(fed, raw, at(4, 18))

    ((ident, sender, subject, when, reason),) = listed(fed)
    assert ident.startswith("imap:") and ident[5:].isdigit()
    assert (sender, subject, when, reason) == (
        IVANOV,
        "[QT-1/3] move",
        "2026-03-04 18:00",
        "not recorded",
    )
    code, out = run_cli(fed, "quarantine", "release", ident)
    assert code == 0
    assert out == f"released {ident} from {IVANOV} ([QT-1/3] move): moved back to INBOX\n"
    assert (fed.pending_in_inbox(), fed.in_folder("Quarantine")) == (1, 0)
    assert listed(fed) == []

    assert poll(fed, at(6, 10)) == {"handled": 1}
    assert pgn_moves(fed, "QT-1/3") == ["d2d4"]
    (move,) = mails(fed, PETROV, "move")
    assert "1. d2-d4; – – 1.3. – 4.3. = 3 days" in text_of(move), text_of(move)
    assert sent_at(fed, 3) == [at(4, 18)]
    assert arrivals(fed, "Processed") == [at(4, 18)]


@pytest.mark.slow
def test_release_all_puts_every_message_back_even_one_gone_from_the_folder(
    fed: Federation, failing: set[str]
) -> None:
    """Two players' moves are set aside, and the operator has deleted one of
    them from the folder; a third lies there unrecorded. `release --all` moves
    two back and appends the deleted one from the database with its arrival
    time; the next pass plays all three, each as arriving when it arrived."""
    failing.update({IVANOV, SMITH})
    fed.write(IVANOV, "1. e2-e4", at(5, 9), subject="[QT-1/1] move")
    fed.write(SMITH, "1. c2-c4", at(5, 10), subject="[QT-1/2] move")
    quarantine(fed, at(5, 11))
    assert fed.in_folder("Quarantine") == 2
    # each player's mail set aside is a notice of its own to the director
    assert len(mails(fed, TD, "error")) == 2
    raw = fed.compose(IVANOV, "1. d2-d4", at(4, 18), subject="[QT-1/3] move").as_bytes()
    put_in_quarantine_by_hand(fed, raw, at(4, 18))
    # the operator deletes Smith's message from the folder
    fed.client.select_folder("Quarantine")
    (deleted,) = fed.client.search(["FROM", SMITH])
    fed.client.delete_messages([deleted])
    fed.client.expunge()

    rows = listed(fed)
    assert [(r[1], r[2], r[4]) for r in rows] == [
        (IVANOV, "[QT-1/1] move", f"failed 3 times: {BROKEN}"),
        (SMITH, "[QT-1/2] move", f"failed 3 times: {BROKEN}"),
        (IVANOV, "[QT-1/3] move", "not recorded"),
    ]
    first, second, loose = (r[0] for r in rows)

    failing.clear()
    code, out = run_cli(fed, "quarantine", "release", "--all")
    assert code == 0
    assert out.splitlines() == [
        f"released {first} from {IVANOV} ([QT-1/1] move): moved back to INBOX",
        f"released {second} from {SMITH} ([QT-1/2] move): no copy in Quarantine; its stored "
        "bytes appended to INBOX as received 2026-03-05 10:00",
        f"released {loose} from {IVANOV} ([QT-1/3] move): moved back to INBOX",
    ]
    assert (fed.pending_in_inbox(), fed.in_folder("Quarantine")) == (3, 0)
    assert listed(fed) == []
    assert arrivals(fed, "INBOX") == [at(4, 18), at(5, 9), at(5, 10)]

    assert poll(fed, at(7, 10)) == {"handled": 3}
    assert (pgn_moves(fed, "QT-1/1"), pgn_moves(fed, "QT-1/2"), pgn_moves(fed, "QT-1/3")) == (
        ["e2e4"],
        ["c2c4"],
        ["d2d4"],
    )
    assert (sent_at(fed, 1), sent_at(fed, 2), sent_at(fed, 3)) == (
        [at(5, 9)],
        [at(5, 10)],
        [at(4, 18)],
    )
    (smiths,) = [m for m in mails(fed, PETROV, "move") if m.message["X-Mailbot-Game"] == "QT-1/2"]
    assert "1. c2-c4; – – 1.3. – 5.3. = 4 days" in text_of(smiths)
    assert len(mails(fed, SMITH, "move")) == 1 and len(mails(fed, PETROV, "move")) == 2
    assert arrivals(fed, "Processed") == [at(4, 18), at(5, 9), at(5, 10)]
    # the released rows were handled, not recorded again beside them
    with fed.sessions() as session:
        statuses = session.execute(select(InboundMessage.id, InboundMessage.status)).all()
    assert sorted(statuses) == [
        (int(first), "processed"),
        (int(second), "processed"),
        (3, "processed"),
    ]
    assert poll(fed, at(7, 11)) == {}
    assert len(mails(fed, TD, "error")) == 2
    code, out = run_cli(fed, "quarantine", "release", "--all")
    assert (code, out) == (0, "no message in quarantine\n")


@pytest.mark.slow
def test_an_id_that_names_no_message_in_quarantine_exits_2(
    fed: Federation, capsys: pytest.CaptureFixture[str]
) -> None:
    fed.write(IVANOV, "1. e2-e4", at(5, 9), subject="[QT-1/1] move")
    assert poll(fed, at(5, 10)) == {"handled": 1}
    with fed.sessions() as session:
        handled = session.scalars(select(InboundMessage.id)).one()
    capsys.readouterr()
    cases = {
        ("release", "999"): "mailbot: no message 999 in the store\n",
        ("release", str(handled)): f"mailbot: message {handled} is not in quarantine (processed)\n",
        ("release", "imap:999"): "mailbot: no message imap:999 in Quarantine\n",
        ("release", "twelve"): "mailbot: 'twelve': not a message id (a number, or imap:UID as the "
        "list shows)\n",
        ("release",): "mailbot: quarantine release takes an ID (as the list shows) or --all\n",
        ("release", "3", "--all"): "mailbot: quarantine release takes an ID (as the list shows) "
        "or --all\n",
        ("list", "3"): "mailbot: quarantine list takes no ID and no --all\n",
    }
    for args, said in cases.items():
        assert run_cli(fed, "quarantine", *args) == (2, ""), args
        assert capsys.readouterr().err == said
    # nothing was moved: the handled message lies where it was filed
    assert (fed.in_folder("Processed"), fed.in_folder("INBOX")) == (1, 0)
    assert run_cli(fed, "quarantine", "frobnicate")[0] == 2
    assert "usage: mailbot quarantine" in capsys.readouterr().err


@pytest.mark.slow
def test_with_imap_down_the_list_shows_the_databases_messages_and_exits_1(
    fed: Federation, failing: set[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    failing.add(IVANOV)
    fed.write(IVANOV, "1. e2-e4", at(5, 9), subject="[QT-1/1] move")
    quarantine(fed, at(5, 10))
    stored = listed(fed)
    (ident,) = (row[0] for row in stored)

    down = dict(fed.mapping)
    down["imap"] = {**fed.mapping["imap"], "port": free_port()}  # type: ignore[dict-item]
    config = tmp_path / "imap-down.yaml"
    config.write_text(yaml.safe_dump(down))
    capsys.readouterr()
    code, out = run_cli(fed, "quarantine", config=config)
    err = capsys.readouterr().err
    assert code == 1
    assert [row.split("\t") for row in out.splitlines()] == stored
    assert err.count("\n") == 1, err
    assert err.startswith(
        "mailbot: the folder Quarantine could not be read, so only the database's messages "
        "are listed: IMAP 127.0.0.1:"
    )
    assert "cannot be reached" in err and f"`imap` in {config}" in err

    # a release changes nothing while the mailbox is away
    code, out = run_cli(fed, "quarantine", "release", ident, config=config)
    err = capsys.readouterr().err
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "cannot be reached" in err, err
    assert listed(fed) == stored
    assert fed.in_folder("Quarantine") == 1

    # and with the database away, one line too
    gone = dict(fed.mapping, database="postgresql+psycopg://bot:s3cret@127.0.0.1:9/none")
    config.write_text(yaml.safe_dump(gone))
    capsys.readouterr()
    code, out = run_cli(fed, "quarantine", config=config)
    err = capsys.readouterr().err
    assert (code, out) == (1, "")
    assert err.count("\n") == 1, err
    assert err.startswith("mailbot: the database postgresql+psycopg://bot:***@127.0.0.1:9/none")
    assert "s3cret" not in err and "Traceback" not in err


def test_the_help_says_what_it_does_with_examples(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["quarantine", "--help"]) == 0
    out = capsys.readouterr().out
    assert "set aside after repeated failures" in out and "imap:UID" in out
    assert "mailbot -c config.yaml quarantine release 12" in out
    assert "quarantine release --all" in out
    assert main(["--help"]) == 0
    assert "quarantine" in capsys.readouterr().out
