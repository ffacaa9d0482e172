"""``mailbot check``: the configuration tried against the real servers, changing nothing.

Before the daemon runs: whether the database answers and ``init`` has made it,
whether the IMAP server takes the login, which folders the bot will use as the
server names them (and whether it can have them), whether the server has IDLE,
whether the SMTP server takes the login (no mail is sent), and the OAuth2 token
files. One :class:`~mailbot.shell.health.Check` a line, naming the key to fix; the exit
status is the worst level found (0 all OK, 1 a warning, 2 a critical finding).

>>> print(_idle(frozenset({b"IMAP4REV1"}), 60).line())
WARNING imap idle: the server has no IDLE, so the bot asks every 60 s (imap.poll_seconds)
"""

from __future__ import annotations

import socket
import urllib.request
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from mailbot.config import Config, ImapConfig, parse_listen
from mailbot.mail.inbox import FolderKey, Folders, Mailbox, MailboxError
from mailbot.mail.postman import Postman, SendError
from mailbot.shell.health import Check, Level, oauth_accounts, oauth_tokens
from mailbot.store.engine import make_engine, session_factory
from mailbot.store.outage import probe
from mailbot.store.schema import migrations_head, schema_revision


def checks(config: Config) -> list[Check]:
    """Every check, in order."""
    return [
        *database(config.database),
        *imap(config.imap),
        smtp(config),
        *oauth_tokens(oauth_accounts(config)),
        *xfcc_listener(config),
    ]


def xfcc_listener(config: Config) -> list[Check]:
    """The Xfcc listener's address: free to take, or taken by a daemon serving Xfcc
    there; and a public URL the players reach by TLS."""
    listen, url = config.xfcc.listen, config.xfcc.url
    if listen is None or url is None:
        return []
    host, port = parse_listen(listen)
    found: list[Check] = []
    try:
        with socket.create_server((host, port)):
            found.append(Check(Level.OK, "xfcc", f"{listen} is free for the daemon to serve"))
    except OSError as exc:
        try:
            url = f"http://{host if ':' not in host else f'[{host}]'}:{port}/xfcc?WSDL"
            with urllib.request.urlopen(url, timeout=5) as answer:
                serving = b"XfccBasic" in answer.read(200_000)
        except OSError:
            serving = False
        if serving:
            found.append(Check(Level.OK, "xfcc", f"the daemon serves Xfcc at {listen}"))
        else:
            said = f"cannot listen on {listen} ({exc.strerror or exc}); check xfcc.listen"
            found.append(Check(Level.CRITICAL, "xfcc", said))
    if not url.startswith("https://"):
        said = "xfcc.public_url is not https: passwords would cross the network in clear"
        found.append(Check(Level.WARNING, "xfcc", said))
    return found


def database(url: str) -> list[Check]:
    """Reachable and made by ``init``, at the code's migration; read only.

    >>> print(database("sqlite:////nonexistent/mailbot.db")[0].line())
    CRITICAL database: no file /nonexistent/mailbot.db: run mailbot init (or fix database)
    """
    parsed = make_url(url)
    file = parsed.database
    local = parsed.get_backend_name() == "sqlite" and file and file != ":memory:"
    if local and not Path(str(file)).exists():  # connecting would make an empty file
        said = f"no file {file}: run mailbot init (or fix database)"
        return [Check(Level.CRITICAL, "database", said)]
    engine = make_engine(url)
    try:
        sessions: sessionmaker[Session] = session_factory(engine)
        fault = probe(sessions, write=False)
        if fault is not None:
            return [Check(Level.CRITICAL, "database", f"{fault.line()}; check database")]
        at, want = schema_revision(engine), migrations_head()
    finally:
        engine.dispose()
    if at is None:
        return [Check(Level.CRITICAL, "database", "has no tables of the bot: run mailbot init")]
    if at != want:
        said = f"at revision {at}, the code wants {want}: run mailbot init"
        return [Check(Level.CRITICAL, "database", said)]
    return [Check(Level.OK, "database", f"reachable, at revision {at}")]


def imap(settings: ImapConfig) -> list[Check]:
    """The login, each folder as the server names it, and IDLE."""
    mailbox = Mailbox(settings)
    try:
        mailbox.connect(prepare=False)
    except MailboxError as exc:
        return [Check(Level.CRITICAL, "imap login", str(exc))]
    where = f"{settings.username} at {settings.host}:{settings.port}"
    found = [Check(Level.OK, "imap login", where)]
    try:
        found += _folders(mailbox.folders, mailbox.existing())
        found.append(_idle(mailbox.capabilities, settings.poll_seconds))
        return found
    except MailboxError as exc:
        return [*found, Check(Level.CRITICAL, "imap", str(exc))]
    finally:
        mailbox.close()


def _folders(folders: Folders, existing: set[str]) -> list[Check]:
    """One line for each folder: there, to be made at the first poll, or not to be had.

    >>> from mailbot.mail.inbox import Namespace
    >>> cyrus = Folders(Namespace("INBOX.", ".", ("user.",)), "INBOX", "INBOX.Done", "user.a.Q")
    >>> for check in _folders(cyrus, {"INBOX"}):
    ...     print(check.line().replace("; ", "\\n"))
    OK imap.folder: INBOX
    OK imap.done_folder: INBOX.Done (made at the first poll)
    CRITICAL imap.quarantine_folder: "user.a.Q" is not this account's to make
    "user." holds folders of other accounts: this one's lie under "INBOX."
    """
    namespace = folders.namespace
    found = []
    for key, name in folders.named():
        if name in existing:
            found.append(Check(Level.OK, key.key, name))
        elif key is FolderKey.FOLDER:
            found.append(Check(Level.CRITICAL, key.key, f'the server has no folder "{name}"'))
        elif namespace.outside(name):
            said = f'"{name}" is not this account\'s to make{namespace.hint(name)}'
            found.append(Check(Level.CRITICAL, key.key, said))
        else:
            found.append(Check(Level.OK, key.key, f"{name} (made at the first poll)"))
    return found


def _idle(capabilities: frozenset[bytes], poll_seconds: int) -> Check:
    if b"IDLE" in capabilities:
        return Check(Level.OK, "imap idle", "the server has IDLE")
    said = f"the server has no IDLE, so the bot asks every {poll_seconds} s (imap.poll_seconds)"
    return Check(Level.WARNING, "imap idle", said)


def smtp(config: Config) -> Check:
    """The login, as a send would make it, with no mail sent."""
    settings = config.smtp
    try:
        Postman(settings).login()
    except SendError as exc:
        said = str(exc)
        if "check smtp." not in said:
            said += "; check smtp.host, smtp.port and smtp.security"
        return Check(Level.CRITICAL, "smtp login", said)
    who = f"{settings.username} at " if settings.username else "no login needed at "
    return Check(Level.OK, "smtp login", f"{who}{settings.host}:{settings.port}")
