"""A PGN as the answer (docs/contract.md, "Players' chess programs"; docs/rules.md 2.4,
"The whole game copied"), through the real mail path: a PGN pasted in the body or
attached is matched against the record as a copy of the game and its new move
played; a mail of Scid's e-mail mode (a subject without a tag, not a reply, the PGN
both as body and as attachment) is found by the PGN's tags and played once; a PGN
that quotes the opponent's last move wrongly is incorrect (art. 15), one that
differs elsewhere plays nothing and costs nothing; the words of the comment after
the new move reach the opponent.
"""

from __future__ import annotations

import datetime
import email.utils
import io
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import chess
import chess.pgn
import pytest
from harness import BOT, Federation, text_of
from mailservers import ImapAccount, Received, SmtpSink
from sqlalchemy import select

from mailbot.store.models import Game

#: every test here takes more than a second (pyproject.toml: markers)
pytestmark = pytest.mark.slow

SOFIA = datetime.timezone(datetime.timedelta(hours=3))
START_LIST = """
index: PA-1
name: PGN answers
profile: bg-email
start: 2026-03-01
end: 2026-12-31
language: en
notation: en
director: {name: Tom Director, email: td@federation.example}
players:
  - {id: white, name: Walter White, email: white@example.org}
  - {id: black, name: Bella Black, email: black@example.org, language: bg, gender: f}
games: [{white: white, black: black}]
"""
WHITE, BLACK = "white@example.org", "black@example.org"


def at(day: int, hour: int = 10) -> datetime.datetime:
    return datetime.datetime(2026, 3, day, hour, tzinfo=SOFIA)


@pytest.fixture
def fed(
    store_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> Iterator[Federation]:
    federation = Federation(store_url, imap_account, smtp_sink, START_LIST, tmp_path)
    yield federation
    federation.close()


def record(fed: Federation) -> tuple[list[str], int]:
    """The game's moves in UCI and its penalty days."""
    with fed.sessions() as session:
        g = session.scalars(select(Game)).one()
        return [m.uci for m in g.moves], sum(p.days for p in g.penalties)


def pgn_of(mail: Received) -> chess.pgn.Game:
    """The game a move mail carries as its PGN file."""
    (part,) = list(mail.message.iter_attachments())  # type: ignore[attr-defined]
    game = chess.pgn.read_game(io.StringIO(part.get_payload(decode=True).decode()))
    assert game is not None
    return game


def with_move(game: chess.pgn.Game, uci: str, comment: str = "") -> str:
    """The game with ``uci`` added at its end (a comment after it), as a program exports it."""
    game.end().add_main_variation(chess.Move.from_uci(uci), comment=comment)
    return str(game) + "\n"


def pgn_mail(
    sender: str,
    when: datetime.datetime,
    *,
    subject: str,
    body: str = "",
    attached: str | None = None,
    reply_to: Received | None = None,
) -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, BOT, subject
    msg["Date"] = email.utils.format_datetime(when)
    msg["Message-ID"] = email.utils.make_msgid(domain="players.example")
    if reply_to is not None:
        msg["In-Reply-To"] = msg["References"] = str(reply_to.message["Message-ID"])
    msg.set_content(body)
    if attached is not None:
        msg.add_attachment(
            attached.encode(), maintype="application", subtype="vnd.chess-pgn",
            filename="game.pgn",
        )  # fmt: skip
    return msg


def send(fed: Federation, msg: EmailMessage, when: datetime.datetime) -> None:
    fed.deliver(msg.as_bytes(), when)
    fed.poll(when + datetime.timedelta(minutes=30))


def moves_to(fed: Federation, address: str) -> list[Received]:
    return [m for m in fed.received(address) if m.message["X-Mailbot-Event"] == "move"]


def opening(fed: Federation) -> None:
    """1. e4 by text; Bella answers 1... e5 with the PGN pasted, with a word for Walter."""
    fed.write(WHITE, "1. e2-e4", at(3), subject="[PA-1/1] move")
    fed.poll(at(3, 11))
    mail = moves_to(fed, BLACK)[-1]
    pasted = with_move(pgn_of(mail), "e7e5", "Good luck, Walter!")
    msg = pgn_mail(BLACK, at(4), subject="Re: my move", body=f"Здравейте,\n\n{pasted}",
                   reply_to=mail)  # fmt: skip
    send(fed, msg, at(4))


def test_a_pasted_pgn_is_played_and_its_comment_reaches_the_opponent(fed: Federation) -> None:
    opening(fed)
    assert record(fed) == (["e2e4", "e7e5"], 0)
    mail = moves_to(fed, WHITE)[-1]
    assert "e7-e5" in text_of(mail)
    assert "Good luck, Walter!" in text_of(mail)  # the comment after the new move
    assert "Здравейте" in text_of(mail)  # and the words beside the PGN
    assert "[Event" not in text_of(mail)  # the PGN itself is not words
    assert [m.uci() for m in pgn_of(mail).mainline_moves()] == ["e2e4", "e7e5"]


def test_an_attached_pgn_is_played(fed: Federation) -> None:
    opening(fed)
    mail = moves_to(fed, WHITE)[-1]
    answer = with_move(pgn_of(mail), "g1f3")
    send(fed, pgn_mail(WHITE, at(5), subject="Re: move", attached=answer, reply_to=mail), at(5))
    assert record(fed) == (["e2e4", "e7e5", "g1f3"], 0)
    assert "2. Ng1-f3" in text_of(moves_to(fed, BLACK)[-1])


def test_a_scid_mail_without_a_tag_is_found_by_its_pgn_and_played_once(fed: Federation) -> None:
    opening(fed)
    mail = moves_to(fed, WHITE)[-1]
    answer = with_move(pgn_of(mail), "g1f3")
    before = len(moves_to(fed, BLACK))
    # Scid's e-mail mode: a new message (no thread), its own subject, the PGN twice
    scid = pgn_mail(WHITE, at(5), subject="scid mail 1 game (PA-1-1)", body=answer,
                    attached=answer)  # fmt: skip
    send(fed, scid, at(5))
    assert record(fed) == (["e2e4", "e7e5", "g1f3"], 0)
    assert len(moves_to(fed, BLACK)) == before + 1
    accepted = fed.last(WHITE)
    assert accepted.message["X-Mailbot-Event"] == "move-accepted"
    assert str(accepted.message["X-Mailbot-Game"]) == "PA-1/1"


def test_a_pgn_naming_its_game_only_by_gameid_is_played(fed: Federation) -> None:
    opening(fed)
    game = pgn_of(moves_to(fed, WHITE)[-1])
    del game.headers["CmailGameName"]
    answer = with_move(game, "g1f3")
    send(fed, pgn_mail(WHITE, at(5), subject="my move", attached=answer), at(5))
    assert record(fed) == (["e2e4", "e7e5", "g1f3"], 0)


def test_a_pgn_that_differs_before_the_last_move_plays_nothing_and_costs_nothing(
    fed: Federation,
) -> None:
    opening(fed)
    stale = chess.pgn.Game()
    stale.headers["GameId"] = "PA-1/1"
    stale.add_line([chess.Move.from_uci(u) for u in ("d2d4", "e7e5")])
    answer = with_move(stale, "g1f3")
    before = len(fed.received(BLACK))
    send(fed, pgn_mail(WHITE, at(5), subject="[PA-1/1] move", attached=answer), at(5))
    assert record(fed) == (["e2e4", "e7e5"], 0)  # nothing played, no penalty
    assert len(fed.received(BLACK)) == before  # the opponent hears nothing
    said = text_of(fed.last(WHITE))
    assert "differs from the game's record at move 1: the game has 1. e2-e4" in said
    assert "your copy has 1. d2-d4" in said
    assert "no penalty is given" in said


def test_a_pgn_quoting_the_opponents_last_move_wrongly_is_incorrect(fed: Federation) -> None:
    opening(fed)
    wrong = chess.pgn.Game()
    wrong.headers["GameId"] = "PA-1/1"
    wrong.add_line([chess.Move.from_uci(u) for u in ("e2e4", "e7e6")])
    answer = with_move(wrong, "d2d4")
    send(fed, pgn_mail(WHITE, at(5), subject="[PA-1/1] move", attached=answer), at(5))
    moves, penalty = record(fed)
    assert moves == ["e2e4", "e7e5"]
    assert penalty == 5  # art. 15 and 17: an incorrect move costs 5 days
    assert fed.last(WHITE).message["X-Mailbot-Event"] == "move-rejected"


def test_a_pgn_written_in_bulgarian_long_notation_is_played(fed: Federation) -> None:
    """A PGN whose moves python-chess cannot read (Cyrillic long notation with ``:``
    for a capture, as a player types it) is read as the copy of the game it is."""
    fed.write(WHITE, "1. e2-e4", at(3), subject="[PA-1/1] move")
    fed.poll(at(3, 11))
    first = '[Event "PGN answers"]\n[GameId "PA-1/1"]\n\n1. e2-e4 d7-d5 *\n'
    send(fed, pgn_mail(BLACK, at(4), subject="my move", body=first), at(4))
    fed.write(WHITE, "2. e4:d5", at(5), subject="[PA-1/1] move")
    fed.poll(at(5, 11))
    second = '[Event "PGN answers"]\n[GameId "PA-1/1"]\n\n1. e2-e4 d7-d5 2. e4:d5 Дd8:d5 *\n'
    send(fed, pgn_mail(BLACK, at(6), subject="my move", body=second), at(6))
    assert record(fed) == (["e2e4", "d7d5", "e4d5", "d8d5"], 0)
    assert "2... Qd8xd5" in text_of(moves_to(fed, WHITE)[-1])  # in his notation
