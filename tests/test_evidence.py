"""What a director sees of a game and of a tournament: the dispute file of one game
(every message received and sent, raw, in time order, and the move table), and the
status lines of ``mailbot status`` and ``mailbot status INDEX``.

The game is played through the desk (:class:`deskbench.Bench`: the messages go
straight in, with their arrival instants) and the outbox is sent to a real
aiosmtpd listener, so the store holds what a real tournament holds.
"""

from __future__ import annotations

import datetime
import email
import email.message
import email.policy
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from deskbench import BOT, TD, Bench
from harness import config_mapping
from mailservers import ImapAccount, SmtpSink
from sqlalchemy import select

from mailbot.config import Config, config_from_mapping
from mailbot.desk.sweep import sweep
from mailbot.mail.postman import Postman
from mailbot.publish import report
from mailbot.publish.evidence import EvidenceFolderError, write_evidence
from mailbot.publish.evidencewords import words_for
from mailbot.publish.report import UnknownGameError, overview, tournament_status
from mailbot.shell.delivery import deliver_due
from mailbot.store.models import Claim, Game, InboundMessage, Outbox

START_LIST = f"""
index: EV-1
name: Evidence cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: en
notation: en
conditional_moves: true
director: {{name: Tom Director, email: {TD}}}
players:
  - {{id: white, name: Walter White, email: white@example.org}}
  - {{id: black, name: Bella Black, email: black@example.org}}
  - {{id: grey, name: Gary Grey, email: grey@example.org}}
games:
  - {{white: white, black: black}}
  - {{white: grey, black: white}}
"""
WHITE, BLACK, GREY = "white@example.org", "black@example.org", "grey@example.org"
UTC = datetime.UTC


def at(day: int, hour: int = 9) -> datetime.datetime:
    return datetime.datetime(2026, 3, day, hour, tzinfo=UTC)


class Played:
    """The tournament after a week of play, with the SMTP listener that got the mail."""

    def __init__(self, bench: Bench, sink: SmtpSink, config: Config) -> None:
        self.bench, self.sink, self.config = bench, sink, config

    @property
    def sender(self) -> str:
        return self.config.smtp.sender

    def deliver(self, now: datetime.datetime) -> None:
        deliver_due(self.bench.sessions, Postman(self.config.smtp), now)

    def evidence(self, tag: str, folder: Path) -> list[Path]:
        with self.bench.sessions() as session:
            return write_evidence(session, tag, folder, sender=self.sender)


@pytest.fixture
def played(store_url: str, smtp_sink: SmtpSink) -> Iterator[Played]:
    """EV-1/1: 1. e4 (3 March), an impossible move (+5 days for Black, 5 March), then
    1... e5 with a conditional line (6 March) that 2. Nf3 sets off: 2... Nc6 (8 March).
    White asks for a daily digest (7 March) and takes leave in June (9 March); the
    sweep of 10 March sends White's digest, which names both of White's games, as the
    leave's confirmation and the director's notice of it do. Mail
    went out on 4 and 6 March; what came after waits in the outbox. EV-1/2: 1. d4."""
    bench = Bench(store_url, START_LIST)
    unused = ImapAccount("127.0.0.1", 1, "unused", "unused")
    config = config_from_mapping(config_mapping(store_url, unused, smtp_sink), {})
    game = Played(bench, smtp_sink, config)
    bench.send(WHITE, "1. e2-e4", at(3), subject="[EV-1/1] move")
    bench.send(GREY, "1. d2-d4", at(4), subject="[EV-1/2] move")
    game.deliver(at(4, 12))
    bench.send(BLACK, "1... e7-e4", at(5), subject="[EV-1/1] move")
    bench.send(BLACK, "1... e7-e5 2. Ng1-f3 Nb8-c6", at(6), subject="[EV-1/1] move")
    game.deliver(at(6, 12))
    bench.send(WHITE, "digest on", at(7), subject="digest")
    bench.send(WHITE, "2. Ng1-f3", at(8), subject="[EV-1/1] move")
    bench.send(WHITE, "leave 2026-06-01 2026-06-10", at(9), subject="leave")
    sweep(bench.sessions, config.smtp.sender, at(10))
    try:
        yield game
    finally:
        bench.close()


def instant_of(path: Path) -> datetime.datetime:
    stamp = re.search(r"(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ)\.eml$", path.name)
    assert stamp is not None, path.name
    return datetime.datetime.strptime(stamp.group(1), "%Y-%m-%dT%H-%M-%SZ").replace(tzinfo=UTC)


def parsed(path: Path) -> email.message.EmailMessage:
    message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    assert isinstance(message, email.message.EmailMessage)
    return message


def plain(message: email.message.EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return str(part.get_content())


# ---------------------------------------------------------------------------
# The dispute file


def test_every_message_of_the_game_in_time_order(played: Played, tmp_path: Path) -> None:
    written = played.evidence("EV-1/1", tmp_path / "dispute")
    messages = [p for p in written if p.suffix == ".eml"]
    assert [p.name for p in written[-2:]] == ["index.txt", "moves.txt"]
    assert sorted(p.name for p in (tmp_path / "dispute").iterdir()) == sorted(
        p.name for p in written
    )
    # the names sort in time order, and the instants in them are the store's
    assert [p.name for p in messages] == sorted(p.name for p in messages)
    instants = [instant_of(p) for p in messages]
    assert instants == sorted(instants)
    kinds = [p.name.split("-", 1)[1].split("-2026")[0] for p in messages]
    assert kinds == [
        *("received", "sent", "sent", "received", "received", "sent", "sent", "sent"),
        *("received", "unsent-queued", "unsent-queued", "received"),
        *("unsent-queued",) * 4,
    ]

    # received: the bytes that reached the mailbox, at their arrival
    with played.bench.sessions() as session:
        inbound = session.scalars(select(InboundMessage).order_by(InboundMessage.id)).all()
        outbox = {row.message_id: row for row in session.scalars(select(Outbox))}
    received = [p for p in messages if "-received-" in p.name]
    leave_request = next(m for m in inbound if m.subject == "leave")
    about_game = [m for m in inbound if m.game_id == 1 or m is leave_request]
    assert [p.read_bytes() for p in received] == [m.raw for m in about_game]
    assert [instant_of(p) for p in received] == [m.internaldate for m in about_game]

    # sent: composed as the outbox sends them, at the instant the server took them
    about_both: list[str] = []
    for path in messages:
        message = parsed(path)
        if "-received-" in path.name:
            continue
        row = outbox[str(message["Message-ID"]).strip("<>")]
        assert message["From"] == played.sender
        if row.game_id is not None:
            assert message["X-Mailbot-Game"] == "EV-1/1"
            assert str(message["Subject"]).startswith("[EV-1/1] Walter White – Bella Black: ")
        else:  # White's digest, the leave's confirmation and the director's notice of it
            about_both.append(str(message["X-Mailbot-Event"]))
            assert "[EV-1/1] Walter White – Bella Black" in plain(message)
            assert "[EV-1/2] " in plain(message)
        if path.name.split("-")[1] == "sent":
            assert row.sent_at == instant_of(path)
            (got,) = [
                m for m in played.sink.messages if m.message["Message-ID"] == message["Message-ID"]
            ]
            for name in ("From", "To", "Subject", "Date", "X-Mailbot-Event", "X-Mailbot-Ply",
                         "X-Mailbot-Move", "X-Mailbot-Time", "X-Mailbot-Penalty"):  # fmt: skip
                assert message[name] == got.message[name], name
            assert plain(message) == plain(got.message)
        else:
            assert row.status == "pending" and row.created_at == instant_of(path)
    assert about_both == ["leave", "leave", "digest"]  # White's and the director's, the digest
    # nothing of the other game, but the mail that names both
    for path in messages:
        assert "[EV-1/2]" not in str(parsed(path)["Subject"])


def test_the_index_says_who_when_and_what(played: Played, tmp_path: Path) -> None:
    played.evidence("EV-1/1", tmp_path / "d")
    index = (tmp_path / "d" / "index.txt").read_text(encoding="utf-8")
    assert index.startswith("Dispute file of EV-1/1: Walter White – Bella Black\n")
    entries = re.split(r"\n(?=\d{3}-)", index.split("\n\n", 2)[2].strip())
    assert len(entries) == 16
    first, second = entries[0].splitlines(), entries[1].splitlines()
    assert first[0] == "001-received-2026-03-03T09-00-00Z.eml"
    assert first[1].strip() == "received 2026-03-03T09:00:00Z (arrival in the bot's mailbox)"
    assert first[2].strip() == f"from {WHITE}"
    assert first[3].strip() == f"to {BOT}"
    assert first[4].strip() == "subject: [EV-1/1] move"
    assert "handled: processed" in first[5]
    assert second[0] == "002-sent-2026-03-04T12-00-00Z.eml"
    assert second[1].strip() == "sent 2026-03-04T12:00:00Z (accepted by the SMTP server)"
    assert second[2].strip() == f"from {played.sender}"
    assert second[3].strip() == f"to {BLACK}"
    assert second[4].strip() == "subject: [EV-1/1] Walter White – Bella Black: 1. e2-e4"
    assert "event: move" in second[5]
    rejected = next(e for e in entries if "handled: rejected" in e)
    assert "impossible" in rejected
    waiting = [e for e in entries if "unsent-queued" in e.splitlines()[0]]
    assert len(waiting) == 6
    for entry in waiting:
        assert "not sent (waiting after 0 attempts); queued 2026-03-" in entry
        assert "\n    sent " not in entry
    assert "(a message about several games)" in waiting[-1]


def test_the_move_table_shows_dates_days_and_penalties(played: Played, tmp_path: Path) -> None:
    played.evidence("EV-1/1", tmp_path / "d")
    text = (tmp_path / "d" / "moves.txt").read_text(encoding="utf-8")
    rows = [line.split() for line in text.splitlines() if re.match(r"\s+\d+\s+\S", line)]
    # art. 24: the first move counts from the start (1 March, as the receipt): 1 and 2 March;
    # art. 8: received 3 March, counted from 4 March; sent 6 March: 4 and 5 March
    assert [row[:5] for row in rows] == [
        ["1", "e4", "2026-03-01", "2026-03-03", "2"],
        ["2", "e5", "2026-03-04", "2026-03-06", "2"],
        ["3", "Nf3", "2026-03-07", "2026-03-08", "1"],
        ["4", "Nc6", "2026-03-07", "2026-03-08", "0"],
    ]
    assert rows[0][5:] == ["2026-03-03T09:00:00Z", "2026-03-03T09:01:00Z"]
    assert rows[3][-1] == "conditional" and "conditional" not in rows[2]
    assert "  black +5 days (impossible) at ply 1, by the referee, 2026-03-05T09:01:00Z" in text
    assert "Time used (penalties included): White 3 days, Black 7 days" in text
    assert "White: 3 of 50 days used by move 10 (count from move 1)" in text
    assert "Black: 7 of 50 days used by move 10 (count from move 1)" in text
    assert "Walter White (White): 2026-06-01 to 2026-06-10, granted by the player" in text
    assert "in play: White to move after ply 4" in text


@pytest.mark.slow
def test_again_the_folder_is_brought_up_to_date_and_the_bytes_do_not_change(
    played: Played, tmp_path: Path
) -> None:
    first = played.evidence("EV-1/1", tmp_path / "a")
    twin = played.evidence("EV-1/1", tmp_path / "b")
    assert [p.name for p in first] == [p.name for p in twin]
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in twin]

    # the director's own notes stay; the waiting mail went out meanwhile
    (tmp_path / "a" / "notes.txt").write_text("asked Black for the postmark\n")
    played.deliver(at(10, 12))
    again = played.evidence("EV-1/1", tmp_path / "a")
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == sorted([*(p.name for p in again), "notes.txt"])
    assert not [n for n in names if "unsent" in n]
    assert sum("-sent-2026-03-10T12-00-00Z" in n for n in names) == 6
    assert len(again) == len(first)


@pytest.mark.slow
def test_a_folder_that_holds_something_else_is_refused(played: Played, tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "index.txt").write_text("my own index\n")
    with pytest.raises(EvidenceFolderError, match="holds no dispute file"):
        played.evidence("EV-1/1", tmp_path / "home")
    assert (tmp_path / "home" / "index.txt").read_text() == "my own index\n"

    played.evidence("EV-1/2", tmp_path / "other")
    with pytest.raises(EvidenceFolderError, match="dispute file of EV-1/2; give another folder"):
        played.evidence("EV-1/1", tmp_path / "other")

    (tmp_path / "file").write_text("")
    with pytest.raises(EvidenceFolderError, match="is a file"):
        played.evidence("EV-1/1", tmp_path / "file")
    with pytest.raises(UnknownGameError):
        played.evidence("EV-1/9", tmp_path / "none")
    assert not (tmp_path / "none").exists()


@pytest.mark.slow
def test_the_other_game_has_its_own_file(played: Played, tmp_path: Path) -> None:
    written = played.evidence("EV-1/2", tmp_path / "d")
    subjects = [str(parsed(p)["Subject"]) for p in written if p.suffix == ".eml"]
    assert subjects[0] == "[EV-1/2] move"
    assert all("[EV-1/1]" not in s for s in subjects)
    # the leave request pauses White's clock here too, and the digest names this game
    assert "leave" in subjects and "[EV-1] Your games on 10.3.2026" in subjects


# ---------------------------------------------------------------------------
# Status


def test_the_status_of_a_tournament_gives_every_game(played: Played) -> None:
    with played.bench.sessions() as session:
        text = tournament_status(session, "EV-1", at(10))
    lines = text.splitlines()
    assert lines[0] == (
        "EV-1  Evidence cup  (bg-email: 50 days per 10 moves; 2026-03-01 to 2027-06-30)"
    )
    # White received 2... Nc6 on 8 March: 9 March counts, 10 March is running
    assert lines[1] == (
        "  EV-1/1  Walter White – Bella Black: ply 4, White to move, 1 day running, "
        "46 of 50 days left to move 10; time White 3, Black 7"
    )
    assert lines[2] == (
        "  EV-1/2  Gary Grey – Walter White: ply 1, Black to move, 5 days running, "
        "45 of 50 days left to move 10; time White 3, Black 0"
    )
    assert lines[3] == (
        "2 games: 0 finished, 2 in play (1 White to move, 1 Black to move); 0 need the director"
    )
    with played.bench.sessions() as session, pytest.raises(UnknownGameError):
        tournament_status(session, "EV-9", at(10))


def test_the_status_names_the_deadlines_and_claims_the_director_must_see(
    played: Played,
) -> None:
    april = datetime.datetime(2026, 4, 10, 9, tzinfo=UTC)
    with played.bench.sessions() as session:
        text = tournament_status(session, "EV-1", april)
    # Walter White has had 1. d4 since 4 March: counted from 5 March, more than 40
    # days have run on 15 April (art. 31)
    (line,) = [x for x in text.splitlines() if "EV-1/2" in x]
    assert line.endswith(" — black's silence limit: due 2026-04-15"), line
    assert "1 needs the director" in text
    # a fortnight later both deadlines fell due, and the sweep has not run: the director sees it
    with played.bench.sessions() as session:
        late = tournament_status(session, "EV-1", april + datetime.timedelta(days=16))
    (line,) = [x for x in late.splitlines() if "EV-1/2" in x]
    assert "Black to move, 52 days running, overstepped: 52 of 50 days used by move 10" in line
    assert line.endswith(
        " — black's silence limit: fell due 2026-04-15; black's overstep: fell due 2026-04-25"
    ), line

    with played.bench.sessions.begin() as session:
        g = session.get(Game, 1)
        assert g is not None
        opened = datetime.datetime(2026, 4, 9, 12, tzinfo=UTC)
        g.claims.append(Claim(kind="draw", by_color="white", opened_at=opened, details={}))
    with played.bench.sessions() as session:
        text = tournament_status(session, "EV-1", april)
    (line,) = [x for x in text.splitlines() if "EV-1/1" in x]
    assert line.endswith(" — draw claim waiting since 2026-04-09"), line


def test_the_status_names_no_deadline_that_falls_after_play_stops(played: Played) -> None:
    """The status reads the deadlines as the sweep does (rules.due.schedule): an event
    that ends on 12 April stops the clocks then, so the silence limit of 15 April never
    falls, and the director is not sent looking for it."""
    with played.bench.sessions.begin() as session:
        g = session.get(Game, 2)
        assert g is not None
        g.tournament.end = datetime.date(2026, 4, 12)
    april = datetime.datetime(2026, 4, 10, 9, tzinfo=UTC)
    with played.bench.sessions() as session:
        text = tournament_status(session, "EV-1", april)
    (line,) = [x for x in text.splitlines() if "EV-1/2" in x]
    assert " — " not in line, line
    assert "0 need the director" in text


def test_plain_status_lists_a_small_event_and_sums_up_a_big_one(
    played: Played, monkeypatch: pytest.MonkeyPatch
) -> None:
    with played.bench.sessions() as session:
        small = overview(session, at(10))
    lines = small.splitlines()
    assert lines[0] == "EV-1  Evidence cup  (bg-email, 2026-03-01 to 2027-06-30)"
    assert lines[1].startswith("  2 games: 0 finished, 2 in play")
    assert "EV-1/1  Walter White – Bella Black: ply 4, White to move" in lines[2]
    assert "EV-1/2  Gary Grey – Walter White: ply 1, Black to move" in lines[3]

    # a big event: only the game waiting for the director, and the way to the others
    with played.bench.sessions.begin() as session:
        g = session.get(Game, 2)
        assert g is not None
        opened = datetime.datetime(2026, 3, 9, 12, tzinfo=UTC)
        g.claims.append(Claim(kind="overstep", against="black", opened_at=opened, details={}))
    monkeypatch.setattr(report, "OVERVIEW_GAMES", 1)
    with played.bench.sessions() as session:
        big = overview(session, at(10)).splitlines()
    assert big[1] == (
        "  2 games: 0 finished, 2 in play (1 White to move, 1 Black to move); 1 needs the director"
    )
    assert big[2].startswith("  EV-1/2  Gary Grey – Walter White: ply 1, Black to move")
    assert big[2].endswith(" — overstep claim against black waiting since 2026-03-09")
    assert big[3] == "  (1 other game in play; every game: mailbot status EV-1)"
    assert len(big) == 4


@pytest.mark.slow
def test_five_thousand_games_are_a_few_lines(store_url: str) -> None:
    players = "\n".join(
        f"  - {{id: p{i}, name: Player {i}, email: p{i}@example.org}}" for i in range(100)
    )
    text = START_LIST.split("players:")[0] + f"players:\n{players}\ngames: round-robin\n"
    bench = Bench(store_url, text.replace("EV-1", "BIG-1"))
    try:
        with bench.sessions() as session:
            out = overview(session, at(20)).splitlines()
    finally:
        bench.close()
    assert out == [
        "BIG-1  Evidence cup  (bg-email, 2026-03-01 to 2027-06-30)",
        "  4950 games: 0 finished, 4950 in play (4950 White to move, 0 Black to move); "
        "0 need the director",
        "  (4950 other games in play; every game: mailbot status BIG-1)",
    ]


def test_the_reports_only_read(played: Played, tmp_path: Path) -> None:
    with played.bench.sessions() as session:
        write_evidence(session, "EV-1/1", tmp_path / "d", sender=played.sender)
        overview(session, at(10))
        tournament_status(session, "EV-1", at(10))
        assert not session.dirty and not session.new and not session.deleted


# ---------------------------------------------------------------------------
# The dispute file in the event's language

#: The English headings and fixed words that a Bulgarian or Russian file must not carry.
ENGLISH = (
    "Dispute file of",
    "director ",
    "Every message the bot received",
    "Moves of",
    "Dates are calendar days",
    "Penalties",
    "Time used",
    "Claims",
    "Leave",
    "Delay notices",
    "in play",
    "received ",
    "subject:",
    "message-id",
    "handled",
    "from move",
    "days",
    "none",
    "event: ",
    "not the sender",
    "impossible",
    "cannot move",
    "move-accepted",
)
#: Headings each language's file must carry: (index.txt, moves.txt).
NATIVE = {
    "bg": (
        (
            "Досие на спора за партия LG-1/1: Walter White – Bella Black",
            "главен съдия",
            "обработка: отхвърлено: подателят не е на ход",
            "отхвърлено: невъзможен ход: пешката на e7 не може да отиде на e4",
            "събитие: ход до противника",
            "събитие: потвърждение на хода",
        ),
        (
            "Ходове в партия LG-1/1: Walter White (белите) – Bella Black (черните)",
            "Наказания",
            "  черните +5 дни (невъзможен ход) при полуход 1, от съдията бот",
            "Използвано време (с наказанията): белите 2 дни, черните 7 дни",
            "Искания",
            "Отпуск",
            "Известия за забавяне (чл. 25)",
            "играе се: белите са на ход след полуход 2",
        ),
    ),
    "ru": (
        (
            "Досье спора по партии LG-1/1: Walter White – Bella Black",
            "главный судья",
            "обработка: отклонено: ход не за отправителем",
            "отклонено: невозможный ход: пешка на e7 не может пойти на e4",
            "событие: ход сопернику",
            "событие: подтверждение хода",
        ),
        (
            "Ходы партии LG-1/1: Walter White (белые) – Bella Black (чёрные)",
            "Штрафы",
            "  чёрные +5 дн. (невозможный ход) на полуходе 1, решение: судья-бот",
            "Израсходовано времени (со штрафами): белые 2 дн., чёрные 7 дн.",
            "Заявления",
            "Отпуск",
            "Уведомления о задержке (ст. 25)",
            "идёт игра: ход белых после полухода 2",
        ),
    ),
}


@pytest.mark.parametrize("language", ["bg", "ru"])
def test_the_dispute_file_speaks_the_event_language(
    store_url: str, tmp_path: Path, language: str
) -> None:
    start = START_LIST.replace("EV-1", "LG-1").replace("language: en", f"language: {language}")
    bench = Bench(store_url, start)
    try:
        bench.send(WHITE, "1. e2-e4", at(3), subject="[LG-1/1]")
        bench.send(WHITE, "2. d2-d4", at(4), subject="[LG-1/1]")
        bench.send(BLACK, "1... e7-e4", at(5), subject="[LG-1/1]")
        bench.send(BLACK, "1... e7-e5", at(6), subject="[LG-1/1]")
        with bench.sessions() as session:
            write_evidence(session, "LG-1/1", tmp_path / "d", sender=BOT)
            again = write_evidence(session, "LG-1/1", tmp_path / "d", sender=BOT)
    finally:
        bench.close()
    assert [p.name for p in again[-2:]] == ["index.txt", "moves.txt"]
    for name, headings in zip(("index.txt", "moves.txt"), NATIVE[language], strict=True):
        text = (tmp_path / "d" / name).read_text(encoding="utf-8")
        for heading in headings:
            assert heading in text, (name, heading)
        for line in text.splitlines():
            if line.startswith("    subject: ") or line.endswith(".eml"):
                continue  # a subject is the sender's words
            for english in ENGLISH:
                assert english not in line, (name, english, line)


def test_every_event_of_the_contract_has_its_name_in_each_language() -> None:
    """The kinds of mail (``X-Mailbot-Event``, docs/contract.md) are named in the
    dispute file in its language."""
    contract = (Path(__file__).parent.parent / "docs" / "contract.md").read_text()
    row = next(line for line in contract.splitlines() if line.startswith("| `X-Mailbot-Event`"))
    events = set(re.findall(r"`([a-z-]+)`", row.split("|")[2]))
    assert {"move", "warning", "bounce"} <= events
    for language in ("bg", "ru"):
        names = words_for(language)["mail_event"]
        assert isinstance(names, dict)
        assert events <= set(names), (language, events - set(names))


def test_every_reason_the_desk_stores_is_written_in_each_language() -> None:
    """A reason the bot keeps for a message it did not act on has a phrase in every
    language: the dispute file writes it so (docs/directors.md, "Evidence for a dispute")."""
    from mailbot.compose import catalogue
    from mailbot.mail.automail import AutoKind
    from mailbot.mail.trust import SenderProblem
    from mailbot.rules.languages import CODES
    from mailbot.rules.verdicts import Verdict

    source = "\n".join(
        p.read_text(encoding="utf-8")
        for p in (Path(__file__).parent.parent / "mailbot").rglob("*.py")
    )
    codes = set(re.findall(r'"(reason\.[a-z-]+)"', source))
    assert {"reason.not-your-move", "reason.unknown-game", "reason.failed"} <= codes
    codes |= {f"reason.{p.code}" for p in SenderProblem}
    codes |= {f"auto-kind.{k.value}" for k in AutoKind} | {"auto-kind.report"}
    codes |= {f"verdict-word.{v.value}" for v in Verdict}
    for language in CODES:
        missing = codes - catalogue.codes(language)
        assert not missing, (language, sorted(missing))
