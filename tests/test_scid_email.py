"""Scid's own e-mail mode against the bot: the PGN a move mail carries is imported
into Scid's correspondence database, the answer is played on Scid's board, and
Scid 4.7.4's eMailMove (correspondence.tcl, unmodified, in tkscid: tests/scid/email.tcl)
mails it through s-nail into a sendmail that keeps the message. That message, as
Scid made it (a subject without a tag, not a reply, the PGN as body and as
attachment), is delivered to the bot's inbox and played (docs/contract.md,
"Players' chess programs").

Scid's options have a Bcc address for the player's own copy. Left empty, Scid's
command line gives s-nail ``-b -a FILE``: the ``-a`` is taken for the copy's address
and the file for a recipient, both refused, so the mail goes out with the PGN as
its body only; the bot plays that one too.

Without Scid or s-nail the tests are skipped on a developer's machine and fail under
CI (tests/scidrun.py). The store is SQLite in every run: a PGN answer by mail on
PostgreSQL is tests/test_pgn_answers.py's.
"""

from __future__ import annotations

import datetime
import email
import email.policy
import io
import time
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import chess
import chess.pgn
import pytest
from harness import BOT, Federation, text_of
from mailservers import ImapAccount, Received, SmtpSink
from scidrun import require_scid, run_scid, scid_cup
from sqlalchemy import select

from mailbot.store.models import Game

#: every test here takes more than a second (pyproject.toml: markers)
pytestmark = pytest.mark.slow

IVANOV = "ivanov@example.org"
SMITH = "smith@example.org"

#: a sendmail that keeps what it is given: its arguments, then the message
SENDMAIL = """\
#!/bin/sh
printf '%s\\n' "$*" > "{folder}/envelope"
cat > "{folder}/message.tmp" && mv "{folder}/message.tmp" "{folder}/message.eml"
"""


@pytest.fixture(autouse=True)
def _needs_scid() -> None:
    require_scid("s-nail")


@pytest.fixture
def fed(
    sqlite_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> Iterator[Federation]:
    today = datetime.datetime.now(datetime.UTC).date()
    federation = Federation(sqlite_url, imap_account, smtp_sink, scid_cup(today), tmp_path)
    yield federation
    federation.close()


class ScidMail:
    """Smith's Scid, set up for e-mail games as its options dialog saves it, mailing
    through s-nail, whose sendmail keeps the message in ``sent``."""

    def __init__(self, folder: Path, bcc: str) -> None:
        self.folder, self.sent = folder, folder / "sent"
        self.sent.mkdir(parents=True)
        sendmail = folder / "sendmail"
        sendmail.write_text(SENDMAIL.format(folder=self.sent))
        sendmail.chmod(0o755)
        (folder / "mailrc").write_text(
            f"set mta={sendmail}\nset from={SMITH}\nset DEAD={folder / 'dead.letter'}\n"
        )
        (folder / "correspondence").write_text(
            f"set ::CorrespondenceChess::Inbox {folder / 'Inbox'}\n"
            f"set ::CorrespondenceChess::Outbox {folder / 'Outbox'}\n"
            "set ::CorrespondenceChess::mailer /usr/bin/s-nail\n"
            f'set ::CorrespondenceChess::bccaddr "{bcc}"\n'
        )

    def answer(self, mail: Received, uci: str) -> str:
        """Save the PGN of ``mail`` into Scid's inbox, play ``uci`` and mail it;
        what Scid's console says."""
        (part,) = list(mail.message.iter_attachments())  # type: ignore[attr-defined]
        inbox = self.folder / "Inbox"
        inbox.mkdir(exist_ok=True)
        pgn = inbox / part.get_filename()
        pgn.write_bytes(part.get_payload(decode=True))
        game = chess.pgn.read_game(io.StringIO(pgn.read_text()))
        assert game is not None
        san = game.end().board().san(chess.Move.from_uci(uci))
        env = {"HOME": str(self.folder), "MAILRC": str(self.folder / "mailrc"),
               "MAILX_NO_SYSTEM_RC": "1"}  # fmt: skip
        return run_scid("email.tcl", str(self.folder), str(pgn), san, env=env)

    def message(self) -> bytes:
        """The message the sendmail got (s-nail may still be handing it over)."""
        kept = self.sent / "message.eml"
        deadline = time.monotonic() + 30
        while not kept.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        return kept.read_bytes()


def moves_to(fed: Federation, address: str) -> list[Received]:
    return [m for m in fed.received(address) if m.message["X-Mailbot-Event"] == "move"]


def test_a_move_mailed_by_scids_email_mode_is_played(fed: Federation, tmp_path: Path) -> None:
    scid = ScidMail(tmp_path / "smith", bcc=SMITH)
    raw = scids_answer(fed, scid)
    assert (scid.sent / "envelope").read_text().split()[2:] == [BOT, SMITH]  # Smith's copy
    sent = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(sent, EmailMessage)
    body, attached = sent.iter_parts()
    assert body.get_content_type() == "text/plain"
    assert attached.get_content_type() == "application/vnd.chess-pgn"
    assert attached.get_filename() == "BG-2026-S1-1.pgn"
    assert "1. e4 e5" in body.get_content() and "1. e4 e5" in attached.get_content().decode()
    is_played(fed, raw)


def test_scids_mail_without_a_copy_to_the_player_is_played(fed: Federation, tmp_path: Path) -> None:
    raw = scids_answer(fed, ScidMail(tmp_path / "smith", bcc=""))
    sent = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(sent, EmailMessage)
    assert not sent.is_multipart()  # no attachment: the PGN is the body
    assert "1. e4 e5" in sent.get_content()
    is_played(fed, raw)


def scids_answer(fed: Federation, scid: ScidMail) -> bytes:
    """Ivanov plays 1. e4 by text; Smith answers 1... e5 from Scid: the message Scid mailed."""
    now = datetime.datetime.now(datetime.UTC)
    fed.write(IVANOV, "1. e2-e4", now, subject="[BG-2026-S1/1] move")
    fed.poll(now)
    said = scid.answer(moves_to(fed, SMITH)[-1], "e7e5")
    assert "info Calling eMail program: /usr/bin/s-nail..." in said
    raw = scid.message()
    sent = email.message_from_bytes(raw, policy=email.policy.default)
    # Scid mails the side to move's address of the PGN: the bot's
    assert (sent["From"], sent["To"]) == (SMITH, BOT)
    assert (scid.sent / "envelope").read_text().split()[2] == BOT
    assert sent["Subject"] == "scid mail 1 game (BG-2026-S1-1)"
    assert sent["In-Reply-To"] is None and sent["References"] is None
    return raw


def is_played(fed: Federation, raw: bytes) -> None:
    """Delivered to the bot unchanged, Scid's message is played as Smith's move."""
    before = len(fed.received(SMITH))
    arrived = datetime.datetime.now(datetime.UTC)
    fed.deliver(raw, arrived)
    fed.poll(arrived + datetime.timedelta(minutes=1))
    with fed.sessions() as session:
        game = session.scalars(select(Game).order_by(Game.number)).first()
        assert game is not None
        assert [m.uci for m in game.moves] == ["e2e4", "e7e5"]
        assert game.penalties == []
    assert "e7-e5" in text_of(moves_to(fed, IVANOV)[-1])
    # Smith hears only that the move was taken, never "Which game?"
    answers = fed.received(SMITH)[before:]
    assert [str(m.message["X-Mailbot-Event"]) for m in answers] == ["move-accepted"]
