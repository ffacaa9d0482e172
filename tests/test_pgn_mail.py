"""The game as PGN with every move mail (docs/contract.md, "Players' chess programs"),
through the real mail path: each ``move`` and ``move-accepted`` mail carries
``INDEX-N.pgn`` that a chess program reads back with the record's moves, the tags
of ``mailbot pgn``, the bot's own address as ``WhiteNA``/``BlackNA``, ``Mode "EM"``
and ``CmailGameName``, comments in the reader's language; a digest carries one file
per game that moved; ``pgn off`` stops the file for that player and ``pgn on``
brings it back, in every language.
"""

from __future__ import annotations

import datetime
import io
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import chess.pgn
import pytest
from harness import BOT, Federation, text_of
from mailservers import ImapAccount, Received, SmtpSink

from mailbot.desk.sweep import sweep
from mailbot.mail.postman import Postman
from mailbot.shell.delivery import deliver_due
from mailbot.store.models import Game

#: every test here takes more than a second (pyproject.toml: markers)
pytestmark = pytest.mark.slow

SOFIA = datetime.timezone(datetime.timedelta(hours=3))
START_LIST = """
index: PG-1
name: PGN cup
profile: {profile}
start: 2026-03-01
end: 2026-12-31
language: en
notation: en
director: {{name: Tom Director, email: td@federation.example}}
players:
  - {{id: white, name: Walter White, email: white@example.org}}
  - {{id: black, name: Bella Black, email: black@example.org, language: {language}, gender: f}}
  - {{id: third, name: Theo Third, email: third@example.org}}
games:
  - {{white: white, black: black}}
  - {{white: third, black: black}}
"""
WHITE, BLACK, THIRD = "white@example.org", "black@example.org", "third@example.org"
#: The receipt word of a PGN comment in each language.
RECEIVED = {"en": "received", "bg": "получен", "ru": "получен"}


def at(month: int, day: int, hour: int = 10) -> datetime.datetime:
    return datetime.datetime(2026, month, day, hour, tzinfo=SOFIA)


def make(
    store_url: str, imap: ImapAccount, smtp: SmtpSink, tmp: Path, lang: str, profile: str
) -> Federation:
    return Federation(store_url, imap, smtp, START_LIST.format(language=lang, profile=profile), tmp)


@pytest.fixture
def federation(
    store_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> Iterator[Federation]:
    fed = make(store_url, imap_account, smtp_sink, tmp_path, "bg", "bg-email")
    yield fed
    fed.close()


def files_of(mail: Received) -> list[EmailMessage]:
    """The attachments of a received mail."""
    return list(mail.message.iter_attachments())  # type: ignore[attr-defined]


def game_in(mail: Received) -> tuple[chess.pgn.Game, str]:
    """The one PGN file a mail carries, read back by python-chess, and its text."""
    (part,) = files_of(mail)
    assert part.get_content_type() == "application/vnd.chess-pgn"
    text = part.get_payload(decode=True).decode("utf-8")  # type: ignore[union-attr]
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors
    return game, text


def record_of(fed: Federation, number: int) -> list[str]:
    with fed.sessions() as session:
        g = session.query(Game).filter(Game.number == number).one()
        return [m.uci for m in g.moves]


def moves_of(game: chess.pgn.Game) -> list[str]:
    return [m.uci() for m in game.mainline_moves()]


def by_event(fed: Federation, address: str, event: str) -> list[Received]:
    return [m for m in fed.received(address) if m.message["X-Mailbot-Event"] == event]


def play(fed: Federation, sender: str, text: str, when: datetime.datetime, number: int = 1) -> None:
    fed.write(sender, text, when, subject=f"[PG-1/{number}] move")
    fed.poll(when + datetime.timedelta(minutes=30))


@pytest.mark.parametrize(("language", "profile"), [("bg", "bg-post"), ("ru", "iccf-server")])
def test_every_move_mail_carries_the_game_as_pgn_that_reads_back_with_the_records_moves(
    store_url: str,
    imap_account: ImapAccount,
    smtp_sink: SmtpSink,
    tmp_path: Path,
    language: str,
    profile: str,
) -> None:
    fed = make(store_url, imap_account, smtp_sink, tmp_path, language, profile)
    try:
        play(fed, WHITE, "1. e2-e4", at(3, 3))
        play(fed, BLACK, "1... e7-e5", at(3, 5))
        play(fed, WHITE, "2. Ng1-f3", at(3, 6))
        for address, event, reader in (
            (BLACK, "move", language),
            (WHITE, "move-accepted", "en"),
        ):
            mails = by_event(fed, address, event)
            assert len(mails) == 2
            for mail in mails:
                game, text = game_in(mail)
                plies = int(str(mail.message["X-Mailbot-Ply"]))
                assert moves_of(game) == record_of(fed, 1)[:plies]
                (part,) = files_of(mail)
                assert part.get_filename() == "PG-1-1.pgn"
                tags = game.headers
                assert (tags["Event"], tags["Site"], tags["GameId"]) == (
                    "PGN cup",
                    "PG-1",
                    "PG-1/1",
                )
                assert (tags["White"], tags["Black"]) == ("White, Walter", "Black, Bella")
                assert tags["Mode"] == "EM"  # whatever the profile: Scid's e-mail mode checks it
                assert tags["CmailGameName"] == "PG-1-1"
                assert tags["WhiteNA"] == tags["BlackNA"] == BOT
                # the bot's is the only address the file carries
                assert "@" not in text.replace(BOT, "")
                if plies >= 2:  # the comments in the reader's language
                    assert RECEIVED[reader] in text
                    other = RECEIVED["bg"] if reader == "en" else RECEIVED["en"]
                    assert other not in text
                # the text of the mail is still there, first, with the move
                first = mail.message.get_payload()[0]  # type: ignore[index]
                assert first.get_content_type() in ("text/plain", "multipart/alternative")
                assert ("Ng1-f3" if plies == 3 else "e7-e5" if plies == 2 else "e2-e4") in (
                    text_of(mail)
                )
        assert by_event(fed, WHITE, "move")[-1].message.get_content_type() == "multipart/mixed"
    finally:
        fed.close()


def test_pgn_off_stops_the_file_for_that_player_and_pgn_on_brings_it_back(
    federation: Federation,
) -> None:
    play(federation, WHITE, "1. e2-e4", at(3, 3))
    federation.write(BLACK, "pgn изкл", at(3, 4), subject="[PG-1/1] настройка")
    federation.poll(at(3, 4, 11))
    answer = federation.last(BLACK)
    assert "PGN файлът е изключен" in str(answer.message["Subject"])
    assert "pgn вкл" in text_of(answer)
    play(federation, BLACK, "1... e7-e5", at(3, 5))
    play(federation, WHITE, "2. Ng1-f3", at(3, 6))
    accepted, move = by_event(federation, BLACK, "move-accepted")[-1], federation.last(BLACK)
    assert move.message["X-Mailbot-Event"] == "move"
    assert files_of(accepted) == files_of(move) == []
    assert move.message.get_content_type() != "multipart/mixed"
    # Walter still wants his file
    assert len(files_of(by_event(federation, WHITE, "move")[-1])) == 1
    assert len(files_of(by_event(federation, WHITE, "move-accepted")[-1])) == 1
    federation.write(BLACK, "pgn вкл", at(3, 7), subject="[PG-1/1] настройка")
    federation.poll(at(3, 7, 11))
    assert "PGN файлът е включен" in str(federation.last(BLACK).message["Subject"])
    play(federation, BLACK, "2... Nb8-c6", at(3, 8))
    game, _ = game_in(by_event(federation, BLACK, "move-accepted")[-1])
    assert moves_of(game) == record_of(federation, 1)


@pytest.mark.parametrize(
    ("language", "off", "on", "said_off"),
    [("en", "pgn off", "pgn on", "PGN off"), ("ru", "pgn выкл", "pgn вкл", "PGN-файл выключен")],
)
def test_the_pgn_word_in_english_and_russian(
    store_url: str,
    imap_account: ImapAccount,
    smtp_sink: SmtpSink,
    tmp_path: Path,
    language: str,
    off: str,
    on: str,
    said_off: str,
) -> None:
    fed = make(store_url, imap_account, smtp_sink, tmp_path, language, "bg-email")
    try:
        fed.write(BLACK, off, at(3, 2), subject="[PG-1/1] pgn")
        fed.poll(at(3, 2, 11))
        assert said_off in str(fed.last(BLACK).message["Subject"])
        play(fed, WHITE, "1. e2-e4", at(3, 3))
        assert files_of(fed.last(BLACK)) == []
        fed.write(BLACK, on, at(3, 4), subject="[PG-1/1] pgn")
        fed.poll(at(3, 4, 11))
        assert said_off not in str(fed.last(BLACK).message["Subject"])
        play(fed, THIRD, "1. d2-d4", at(3, 5), number=2)
        game, _ = game_in(fed.last(BLACK))
        assert moves_of(game) == ["d2d4"]
    finally:
        fed.close()


def run_sweep(fed: Federation, now: datetime.datetime) -> None:
    sweep(fed.sessions, fed.config.smtp.sender, now)
    deliver_due(fed.sessions, Postman(fed.config.smtp), now)


def test_a_digest_carries_one_file_per_game_that_moved(federation: Federation) -> None:
    federation.write(BLACK, "обобщение вкл", at(3, 2), subject="[PG-1/1] настройка")
    federation.poll(at(3, 2, 11))
    play(federation, WHITE, "1. e2-e4", at(3, 3))
    play(federation, THIRD, "1. d2-d4", at(3, 3, 12), number=2)
    run_sweep(federation, at(3, 3, 20))
    run_sweep(federation, at(3, 4, 9))
    (digest,) = by_event(federation, BLACK, "digest")
    files = {p.get_filename(): p for p in files_of(digest)}
    assert sorted(files) == ["PG-1-1.pgn", "PG-1-2.pgn"]
    for name, moves in (("PG-1-1.pgn", ["e2e4"]), ("PG-1-2.pgn", ["d2d4"])):
        raw = files[name].get_payload(decode=True).decode()  # type: ignore[union-attr]
        game = chess.pgn.read_game(io.StringIO(raw))
        assert game is not None and moves_of(game) == moves
        assert game.headers["CmailGameName"] == name.removesuffix(".pgn")
    # the next day only game 2 moved: one file
    play(federation, BLACK, "1... d7-d5", at(3, 4, 12), number=2)
    play(federation, THIRD, "2. c2-c4", at(3, 4, 14), number=2)
    run_sweep(federation, at(3, 5, 9))
    digest = by_event(federation, BLACK, "digest")[-1]
    assert [p.get_filename() for p in files_of(digest)] == ["PG-1-2.pgn"]


def test_a_penalty_s_reason_is_written_in_the_reader_s_language_in_the_pgn(
    federation: Federation,
) -> None:
    """A groundless complaint costs the complainer days (art. 22); the PGN's comment on
    the move they come with names the reason in each reader's language, never the
    store's English code."""
    play(federation, WHITE, "1. e2-e4", at(3, 3))
    play(federation, BLACK, "1... e7-e5", at(3, 4))
    federation.write(WHITE, "complaint 1", at(3, 5), subject="[PG-1/1] complaint")
    federation.poll(at(3, 5, 11))
    notice = federation.last("td@federation.example")
    assert notice.message["X-Mailbot-Claim"]
    federation.write("td@federation.example", "Reject.\n\nTom", at(3, 6), reply_to=notice)
    federation.poll(at(3, 6, 11))
    play(federation, WHITE, "2. Ng1-f3", at(3, 7))
    _, bulgarian = game_in(by_event(federation, BLACK, "move")[-1])
    _, english = game_in(by_event(federation, WHITE, "move-accepted")[-1])
    # PGN lines are wrapped at 80 characters
    assert "неоснователна рекламация (чл. 22)" in " ".join(bulgarian.split())
    assert "groundless" not in bulgarian
    assert "a groundless complaint (art. 22)" in " ".join(english.split())
