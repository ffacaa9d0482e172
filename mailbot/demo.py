"""``mailbot demo``: a short game through the real pipeline, on loopback only.

An embedded IMAP server (pymap, in memory) holds the bot's inbox; an
embedded SMTP listener (aiosmtpd) takes what the bot sends; the database is
an SQLite file in a temporary folder. Two simulated players, one writing in
Bulgarian notation and one in English, play a short game with dates a few
days apart; one of them sends an impossible move first and gets "+5 days".
Every message is printed as it passes. The event is in English, as the
narration is, so the PGN printed at the end reads in English too; Ivan still
gets his mail in Bulgarian.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import email
import email.policy
import email.utils
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from pathlib import Path

from aiosmtpd.controller import Controller
from imapclient import IMAPClient

from mailbot.config import Config, parse_config
from mailbot.shell.passes import fixed_clock, poll_once
from mailbot.store.engine import make_engine, session_factory
from mailbot.store.schema import upgrade
from mailbot.store.startlist import parse_start_list
from mailbot.store.tournaments import import_start_list

BOT = "arbiter@demo.example"
PASSWORD = "demo-only"

START_LIST = """
index: DEMO-1
name: Demonstration game
profile: bg-email
start: 2026-03-01
end: 2026-12-31
language: en
notation: bg-cyrillic
conditional_moves: false
director: {name: Director Dimitrov, email: td@demo.example}
players:
  - {id: ivanov, name: Ivan Ivanov, email: ivanov@demo.example, language: bg}
  - {id: smith, name: John Smith, email: smith@demo.example, language: en, notation: en}
games: [{white: ivanov, black: smith}]
"""

#: (player, days after the previous message, text of the message)
SCRIPT: tuple[tuple[str, int, str], ...] = (
    ("ivanov", 2, "Здравейте!\n\n1. e2-e4\n\nПоздрави,\nИван"),
    ("smith", 1, "Hello Ivan,\n\n1... e7-e5\n\nJohn"),
    ("ivanov", 2, "2. Оf1-c4"),
    ("smith", 3, "2... Nb8-d6"),
    ("smith", 1, "Sorry. 2... Nb8-c6"),
    ("ivanov", 2, "3. Дd1-h5"),
    ("smith", 4, "3... Ng8-f6"),
    ("ivanov", 1, "4. Дh5:f7 мат"),
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for(port: int, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.1)
    raise RuntimeError(f"the embedded server did not start on port {port}")


@contextlib.contextmanager
def embedded_imap(user: str, password: str) -> Iterator[int]:
    """A pymap IMAP server (in memory) on a free loopback port, for one user."""
    port = _free_port()
    code = (
        "import sys; from pymap.main import main; "
        f"sys.argv = ['pymap', '--host', '127.0.0.1', '--port', '{port}', "
        f"'dict', '--demo-user', '{user}', '--demo-password', '{password}']; main()"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        _wait_for(port)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


class _Sink:
    """The SMTP listener: keeps what the bot sends."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        raw: bytes = envelope.original_content or envelope.content  # type: ignore[attr-defined]
        message = email.message_from_bytes(raw, policy=email.policy.default)
        with self.lock:
            self.messages.append(message)
        return "250 OK"


@dataclasses.dataclass(frozen=True)
class DemoResult:
    """What the demo saw: the bot's messages and the final PGN."""

    sent: tuple[EmailMessage, ...]
    result: str | None
    pgn: str


def _config(folder: Path, imap_port: int, smtp_port: int) -> Config:
    return parse_config(
        textwrap.dedent(
            f"""
            database: sqlite:///{folder / "demo.db"}
            timezone: Europe/Sofia
            imap: {{host: 127.0.0.1, port: {imap_port}, security: none, username: {BOT},
                    password: {PASSWORD}, folder: INBOX, done_folder: Processed}}
            smtp: {{host: 127.0.0.1, port: {smtp_port}, security: none, username: "",
                    password: "", sender: "Demo Arbiter <{BOT}>"}}
            """
        ),
        {},
    )


def _body(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    return str(part.get_content()) if part is not None else ""


def _letter(
    n: int,
    name: str,
    address: str,
    moment: datetime.datetime,
    text: str,
    last_from_bot: dict[str, str],
) -> EmailMessage:
    """The ``n``-th letter of the script, a reply to the bot's last mail to its writer."""
    msg = EmailMessage()
    msg["From"] = f"{name} <{address}>"
    msg["To"] = BOT
    msg["Subject"] = "Re: [DEMO-1/1] move" if n > 1 else "[DEMO-1/1] first move"
    msg["Date"] = email.utils.format_datetime(moment)
    msg["Message-ID"] = f"<demo-{n}@{address.split('@')[1]}>"
    if address in last_from_bot:
        msg["In-Reply-To"] = last_from_bot[address]
    msg.set_content(text)
    return msg


def _tell_reply(
    reply: EmailMessage, last_from_bot: dict[str, str], out: Callable[[str], None]
) -> None:
    """Show one of the bot's answers: to whom, its subject and headers, its move line."""
    to = email.utils.parseaddr(str(reply["To"]))[1]
    last_from_bot[to] = str(reply["Message-ID"])
    out(
        f"           arbiter -> {to}: {reply['Subject']}"
        f"  [{reply['X-Mailbot-Event']}; time {reply['X-Mailbot-Time']}"
        + (f"; penalty {reply['X-Mailbot-Penalty']}" if reply["X-Mailbot-Penalty"] else "")
        + "]"
    )
    for line in _body(reply).splitlines():
        if " = " in line and ";" in line:
            out(f"             {line.strip()}")
            break


def run_demo(out: Callable[[str], None] = print) -> DemoResult:
    """Play the demo game; ``out`` gets the conversation line by line."""
    from mailbot.store.models import Game
    from mailbot.store.record import export_pgn

    start = datetime.datetime(2026, 3, 1, 9, 0, tzinfo=datetime.UTC)
    with (
        tempfile.TemporaryDirectory(prefix="mailbot-demo-") as tmp,
        embedded_imap(BOT, PASSWORD) as imap_port,
    ):
        folder = Path(tmp)
        sink = _Sink()
        smtp_port = _free_port()
        controller = Controller(sink, hostname="127.0.0.1", port=smtp_port)
        controller.start()
        try:
            config = _config(folder, imap_port, smtp_port)
            upgrade(config.database)
            engine = make_engine(config.database)
            sessions = session_factory(engine)
            start_list = parse_start_list(START_LIST)
            with sessions() as session, session.begin():
                import_start_list(session, start_list, start)
            names = {p.id: p for p in start_list.players}
            out(f"Tournament {start_list.index}: {start_list.name}, starts {start_list.start}")
            out(f"White: {names['ivanov'].name} (Bulgarian notation)")
            out(f"Black: {names['smith'].name} (English notation)")
            out("")
            moment = start
            seen = 0
            last_from_bot: dict[str, str] = {}
            imap = IMAPClient("127.0.0.1", port=imap_port, ssl=False)
            imap.login(BOT, PASSWORD)
            for n, (who, days, text) in enumerate(SCRIPT, 1):
                moment += datetime.timedelta(days=days, hours=1)
                player = names[who]
                msg = _letter(n, player.name, player.email, moment, text, last_from_bot)
                imap.append("INBOX", msg.as_bytes(), msg_time=moment)
                first_line = " / ".join(line for line in text.splitlines() if line.strip())
                out(f"{moment:%d.%m.%Y} {player.name} -> arbiter: {first_line}")
                poll_once(config, sessions, fixed_clock(moment + datetime.timedelta(minutes=1)))
                with sink.lock:
                    fresh = sink.messages[seen:]
                    seen = len(sink.messages)
                for reply in fresh:
                    _tell_reply(reply, last_from_bot, out)
            imap.logout()
            with sessions() as session:
                game = session.query(Game).one()
                result, pgn_text = game.result, export_pgn(game)
            out("")
            out(f"Result: {result}")
            out(pgn_text)
            engine.dispose()
            return DemoResult(tuple(sink.messages), result, pgn_text)
        finally:
            controller.stop()
