"""The bot's mailbox, read over IMAP with imapclient.

Messages are fetched with ``BODY.PEEK[]`` (nothing is marked read), each
tagged with its folder, UIDVALIDITY and UID, and moved to the done folder
only after the caller has committed what it did with them (docs/architecture.md,
invariant 1). The received time of a message is its INTERNALDATE.

>>> Fetched("INBOX", 7, 42, b"", datetime.datetime(2026, 3, 5, tzinfo=datetime.UTC)).key
('INBOX', 7, 42)
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import datetime
import enum
import hashlib
import logging
import re
import ssl
import time
from collections.abc import Iterator
from typing import Any, Protocol

from imapclient import IMAPClient
from imapclient.exceptions import LoginError

from mailbot.mail.letters import read_letter
from mailbot.mail.oauth import OAuthProblem, TokenSource, token_source
from mailbot.mail.settings import Mechanism, Security
from mailbot.rules.errors import MailError

log = logging.getLogger(__name__)

#: How many messages one FETCH asks for at once.
BATCH = 50
#: The default connect and read timeout, in seconds.
TIMEOUT = 15.0


def _reason(exc: BaseException) -> str:
    """An error in a few words for the one line an operator reads: the server's own
    words, not a Python ``b'...'`` (imaplib keeps the server's answer as bytes).

    >>> _reason(LoginError(b"[AUTHENTICATIONFAILED] Authentication failed."))
    'Authentication failed. [AUTHENTICATIONFAILED]'
    >>> _reason(LoginError("b'[AUTHENTICATIONFAILED] Authentication failed.'"))
    'Authentication failed. [AUTHENTICATIONFAILED]'
    """
    first = exc.args[0] if len(exc.args) == 1 else None
    text = first.decode("utf-8", "replace") if isinstance(first, bytes) else str(exc)
    quoted = re.fullmatch(r"b(['\"])(.*)\1", text.strip(), re.DOTALL)
    if quoted:  # imapclient passes on str() of imaplib's bytes: "b'...'"
        text = ast.literal_eval(quoted.group(0)).decode("utf-8", "replace")
    text = text.strip() or type(exc).__name__
    code = re.match(r"\[([A-Z-]+)\]\s*(.*)", text)  # an RFC 5530 response code first
    if code and code.group(2):
        text = f"{code.group(2)} [{code.group(1)}]"
    return text.splitlines()[0][:300]


def _server_words(exc: BaseException) -> str:
    """What the server answered, without imapclient's name of the command.

    >>> _server_words(IMAPClient.Error("create failed: Permission denied"))
    'Permission denied'
    """
    return re.sub(r"^[a-z]+ failed: ", "", _reason(exc))


class ImapSettings(Protocol):
    """The ``imap:`` section of the configuration."""

    @property
    def host(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def security(self) -> Security: ...
    @property
    def username(self) -> str: ...
    @property
    def password(self) -> str: ...
    @property
    def folder(self) -> str: ...
    @property
    def done_folder(self) -> str: ...
    @property
    def quarantine_folder(self) -> str: ...


class MailboxError(MailError, RuntimeError):
    """The IMAP server could not be reached or refused a command."""


class LoginRefused(MailboxError):
    """The server refused the account's name and password: it runs, the account is the
    question."""


class FolderRefused(MailboxError):
    """The server refused to create or select a configured folder.

    >>> folders = Folders(Namespace("", "."), "INBOX", "Bad/", "Quarantine")
    >>> print(FolderRefused(FolderKey.DONE, "Bad/", "create", "Invalid name", folders))
    imap.done_folder: the server refused to create "Bad/": Invalid name
    """

    def __init__(self, key: FolderKey, name: str, verb: str, reason: str, folders: Folders) -> None:
        hint = folders.namespace.hint(name)
        super().__init__(f"{key.key}: the server refused to {verb} {_quoted(name)}: {reason}{hint}")
        self.key = key


class FolderKey(enum.Enum):
    """The keys of the ``imap:`` section that name a folder."""

    FOLDER = "folder"
    DONE = "done_folder"
    QUARANTINE = "quarantine_folder"

    @property
    def key(self) -> str:
        """The key as the configuration writes it: ``imap.done_folder``."""
        return f"imap.{self.value}"


@dataclasses.dataclass(frozen=True)
class Namespace:
    """Where the account's own folders lie (RFC 2342): the personal namespace's prefix
    and hierarchy separator, and the prefixes of the other namespaces (other users',
    shared) that a folder name may also be written under.

    A name is written as the user thinks of it; the server's name puts the prefix in
    front, unless the name is the inbox or already lies under a prefix:

    >>> cyrus = Namespace("INBOX.", ".", ("user.",))
    >>> cyrus.name("Processed"), cyrus.name("INBOX.Processed"), cyrus.name("inbox")
    ('INBOX.Processed', 'INBOX.Processed', 'inbox')
    >>> Namespace("", "/").name("Processed")
    'Processed'
    """

    prefix: str
    separator: str | None
    others: tuple[str, ...] = ()

    def name(self, folder: str) -> str:
        """The server's name for ``folder``."""
        if folder.upper() == "INBOX" or self.written_under(folder) is not None:
            return folder
        return self.prefix + folder

    def written_under(self, folder: str) -> str | None:
        """The non-empty namespace prefix ``folder`` is written under, if any.

        >>> Namespace("INBOX.", ".", ("user.",)).written_under("user.ann.Done")
        'user.'
        """
        for prefix in (self.prefix, *self.others):
            # the INBOX part of a prefix is case-insensitive (RFC 3501 5.1)
            if prefix and _inbox_upper(folder).startswith(_inbox_upper(prefix)):
                return prefix
        return None

    def outside(self, folder: str) -> bool:
        """Whether the server's name for ``folder`` lies in another namespace (another
        user's or a shared folder), where the account keeps none of its own."""
        under = self.written_under(folder)
        return under is not None and under != self.prefix

    def hint(self, folder: str) -> str:
        """Where this server keeps the account's folders, for a message about the
        server's name ``folder`` ("" with no prefix, or ``folder`` under it).

        >>> cyrus = Namespace("INBOX.", ".", ("user.",))
        >>> print(cyrus.hint("Processed").replace(" (", "\\n("))
        ; this server keeps folders under "INBOX."
        (write INBOX.Processed, or leave the prefix out and it is added)
        >>> print(cyrus.hint("user.ann.Done"))
        ; "user." holds folders of other accounts: this one's lie under "INBOX."
        """
        under = self.written_under(folder)
        if not self.prefix or under == self.prefix:
            return self._separator_hint(folder)
        if under is not None:
            return (
                f"; {_quoted(under)} holds folders of other accounts: "
                f"this one's lie under {_quoted(self.prefix)}"
            )
        return (
            f"; this server keeps folders under {_quoted(self.prefix)} "
            f"(write {self.prefix}{folder}, or leave the prefix out and it is added)"
        )

    def _separator_hint(self, folder: str) -> str:
        """A word on the hierarchy separator, where ``folder`` seems to nest with
        another one than the server's ("" otherwise).

        >>> print(Namespace("", ".").hint("Archive/2026"))
        ; this server separates nested folders with "." (Archive.2026)
        >>> Namespace("", "/").hint("Archive/2026")
        ''
        """
        if self.separator is None:
            return ""
        for other in "/.":
            if other != self.separator and other in folder.strip(other):
                written = self.separator.join(folder.split(other))
                return (
                    f"; this server separates nested folders with "
                    f"{_quoted(self.separator)} ({written})"
                )
        return ""


def _inbox_upper(name: str) -> str:
    """``name`` with a leading INBOX in capitals."""
    return "INBOX" + name[5:] if name[:5].upper() == "INBOX" else name


def _quoted(name: str) -> str:
    return f'"{name}"'


def namespace_of(client: IMAPClient) -> Namespace:
    """The account's namespace: NAMESPACE where the server has it, else no prefix and
    the separator LIST reports."""
    if b"NAMESPACE" in client.capabilities():
        personal, other, shared = client.namespace()
        if personal:
            prefix, separator = personal[0]
            others = tuple(str(p) for group in (other or (), shared or ()) for p, _sep in group)
            return Namespace(str(prefix), None if separator is None else str(separator), others)
    listed = client.list_folders("", "")
    separator = listed[0][1] if listed else None
    if isinstance(separator, bytes):
        separator = separator.decode("ascii", "replace")
    return Namespace("", separator)


@dataclasses.dataclass(frozen=True)
class Folders:
    """The three folders, as the server names them."""

    namespace: Namespace
    inbox: str
    done: str
    quarantine: str

    @classmethod
    def of(cls, settings: ImapSettings, namespace: Namespace) -> Folders:
        """The configured folders on a server with ``namespace``.

        >>> class S:
        ...     folder, done_folder, quarantine_folder = "INBOX", "Processed", "INBOX.Q"
        >>> Folders.of(S(), Namespace("INBOX/", "/")).done
        'INBOX/Processed'
        """
        return cls(
            namespace,
            namespace.name(settings.folder),
            namespace.name(settings.done_folder),
            namespace.name(settings.quarantine_folder),
        )

    def named(self) -> tuple[tuple[FolderKey, str], ...]:
        """Each folder's key and its name on the server."""
        return (
            (FolderKey.FOLDER, self.inbox),
            (FolderKey.DONE, self.done),
            (FolderKey.QUARANTINE, self.quarantine),
        )


class OAuthRefused(MailboxError):
    """No OAuth2 access token could be had for the login; ``problem`` says why."""

    def __init__(self, message: str, problem: OAuthProblem) -> None:
        super().__init__(message)
        self.problem = problem


@dataclasses.dataclass(frozen=True)
class Fetched:
    """One message as fetched: where it lies, its bytes and its arrival time."""

    folder: str
    uidvalidity: int
    uid: int
    raw: bytes = dataclasses.field(repr=False)
    internaldate: datetime.datetime

    @property
    def key(self) -> tuple[str, int, int]:
        """The message's place in the mailbox: (folder, UIDVALIDITY, UID)."""
        return (self.folder, self.uidvalidity, self.uid)


@dataclasses.dataclass(frozen=True)
class SetAside:
    """One message lying in the quarantine folder, as its header and bytes say."""

    uid: int
    #: The sender's address, read as the desk reads it ("" when there is none).
    from_addr: str
    subject: str
    #: Without its angle brackets, as the store keeps it.
    message_id: str | None
    internaldate: datetime.datetime
    #: The SHA-256 of its bytes (the store's ``raw_sha256``).
    sha256: str


def _aware_utc(value: Any) -> datetime.datetime:
    if not isinstance(value, datetime.datetime):
        raise MailboxError(f"the server sent no INTERNALDATE ({value!r})")
    if value.tzinfo is None:
        value = value.replace(tzinfo=datetime.UTC)
    aware: datetime.datetime = value.astimezone(datetime.UTC)
    return aware


def _buffered(client: IMAPClient) -> bool:
    """Whether the connection's reader holds bytes not yet parsed (imaplib's buffer)."""
    reader = getattr(getattr(client, "_imap", None), "file", None)
    if reader is None or not hasattr(reader, "peek"):
        return False
    sock = client.socket()
    timeout = sock.gettimeout()
    sock.setblocking(False)
    try:
        return bool(reader.peek(1))
    except (BlockingIOError, OSError, ValueError):
        return False
    finally:
        sock.settimeout(timeout)


class Mailbox:
    """A connection to the bot's IMAP account.

    Use as a context manager; every method may raise :class:`MailboxError`.
    """

    def __init__(self, settings: ImapSettings, *, timeout: float | None = None) -> None:
        self.settings = settings
        self.timeout = float(timeout or getattr(settings, "timeout", None) or TIMEOUT)
        self._client: IMAPClient | None = None
        self.uidvalidity = 0
        self.capabilities: frozenset[bytes] = frozenset()
        #: The folders as the server names them (known once connected).
        self.folders = Folders.of(settings, Namespace("", None))
        #: With ``auth: oauth2``: where the access tokens come from.
        self.tokens: TokenSource | None = token_source(settings, "imap")

    # connection -----------------------------------------------------------

    def __enter__(self) -> Mailbox:
        self.connect()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: object
    ) -> None:
        # leaving on a signal (not an error): drop the connection without a LOGOUT
        # that a hung server would keep waiting
        self.close(polite=exc is None or isinstance(exc, Exception))

    @property
    def client(self) -> IMAPClient:
        if self._client is None:
            raise MailboxError("not connected")
        return self._client

    def connect(self, *, prepare: bool = True) -> None:
        """Log in, make sure the folders exist and select the inbox folder (not
        ``prepare``: only log in and read the capabilities and the namespace).

        With OAuth2, an access token the server refuses is refreshed once and the
        login tried again on a new connection.
        """
        s = self.settings
        where = f"IMAP {s.host}:{s.port}"
        refused: str | None = None
        for _attempt in (1, 2):
            # the token first: a refresh may take a while, a server waits little for a login
            token = None if self.tokens is None else self._token(where, refused)
            client = self._open(where)
            try:
                if token is None:
                    self._password_login(client, where)
                else:
                    try:
                        self._oauth_login(client, token)
                    except LoginError as exc:
                        if refused is not None:
                            raise MailboxError(
                                f"{where} refused the OAuth2 login of {s.username} with a "
                                f"fresh access token ({_reason(exc)}); check imap.username "
                                "and the scopes the token was granted"
                            ) from exc
                        log.info("%s refused the access token; refreshing it", where)
                        refused = token
                        self.close(polite=False)
                        continue
                if prepare:
                    self._prepare(client)
                else:
                    self._look(client)
                return
            except MailboxError:
                self.close(polite=False)
                raise
            except Exception as exc:
                self.close(polite=False)
                raise MailboxError(f"{where}: {_reason(exc)}") from exc

    def _open(self, where: str) -> IMAPClient:
        """A connection, secured as configured, not yet logged in."""
        s = self.settings
        try:
            # a context loads the system's certificates: only when TLS is used
            secure = s.security is not Security.NONE
            context = ssl.create_default_context() if secure else None
            client = IMAPClient(
                s.host,
                port=s.port,
                ssl=s.security is Security.SSL,
                ssl_context=context,
                timeout=self.timeout,
            )
        except Exception as exc:
            raise MailboxError(f"{where} cannot be reached ({_reason(exc)})") from exc
        self._client = client
        try:
            if s.security is Security.STARTTLS:
                client.starttls(context)
        except Exception as exc:
            self.close(polite=False)
            raise MailboxError(f"{where}: {_reason(exc)}") from exc
        client.normalise_times = False
        return client

    def _password_login(self, client: IMAPClient, where: str) -> None:
        s = self.settings
        try:
            client.login(s.username, s.password)
        except LoginError as exc:
            raise LoginRefused(
                f"{where} refused the login ({_reason(exc)}); check imap.username and imap.password"
            ) from exc

    def _token(self, where: str, refused: str | None) -> str:
        """An access token: the file's, or a new one after ``refused`` was refused."""
        assert self.tokens is not None
        try:
            return self.tokens.token() if refused is None else self.tokens.refresh(refused)
        except OAuthProblem as problem:
            raise OAuthRefused(f"{where}: {problem}", problem) from problem

    def _oauth_login(self, client: IMAPClient, token: str) -> None:
        """SASL XOAUTH2 or OAUTHBEARER (imapclient builds the client response)."""
        assert self.tokens is not None
        username = self.settings.username
        if self.tokens.mechanism is Mechanism.OAUTHBEARER:
            client.oauthbearer_login(username, token)
        else:
            client.oauth2_login(username, token)

    def _prepare(self, client: IMAPClient) -> None:
        """The folders named as the server names them and made if missing, the
        capabilities read, the inbox selected."""
        folders = self._look(client)
        existing = self.existing()
        for key, folder in (
            (FolderKey.DONE, folders.done),
            (FolderKey.QUARANTINE, folders.quarantine),
        ):
            if folder not in existing:
                try:
                    client.create_folder(folder)
                except client.Error as exc:
                    raise FolderRefused(key, folder, "create", _server_words(exc), folders) from exc
        try:
            selected = client.select_folder(folders.inbox)
        except client.Error as exc:
            raise FolderRefused(
                FolderKey.FOLDER, folders.inbox, "select", _server_words(exc), folders
            ) from exc
        self.uidvalidity = int(selected[b"UIDVALIDITY"])

    def _look(self, client: IMAPClient) -> Folders:
        """The capabilities and the folders' names on the server read."""
        self.capabilities = frozenset(client.capabilities())
        self.folders = Folders.of(self.settings, namespace_of(client))
        return self.folders

    def existing(self) -> set[str]:
        """The names of the account's folders (LIST)."""
        return {name for _flags, _delim, name in self.client.list_folders()}

    def close(self, *, polite: bool = True) -> None:
        """Log out (or, not ``polite``, just drop the connection); never raises."""
        client, self._client = self._client, None
        if client is None:
            return
        try:
            if polite:
                client.logout()
                return
        except Exception:
            log.debug("IMAP logout failed", exc_info=True)
        try:
            client.shutdown()
        except Exception:
            log.debug("IMAP shutdown failed", exc_info=True)

    # reading --------------------------------------------------------------

    def pending_uids(self) -> list[int]:
        """UIDs of the messages waiting in the inbox folder, oldest first."""
        try:
            self.client.noop()  # lets the server report mail that came since the last command
            return sorted(int(u) for u in self.client.search(["UNDELETED"]))
        except Exception as exc:
            raise MailboxError(f"IMAP SEARCH: {_reason(exc)}") from exc

    def fetch(self, uids: list[int]) -> Iterator[Fetched]:
        """The messages ``uids`` (BODY.PEEK[] and INTERNALDATE), in batches."""
        folder = self.folders.inbox
        for start in range(0, len(uids), BATCH):
            chunk = uids[start : start + BATCH]
            try:
                data = self.client.fetch(chunk, ["BODY.PEEK[]", "INTERNALDATE"])
            except Exception as exc:
                raise MailboxError(f"IMAP FETCH: {_reason(exc)}") from exc
            for uid in chunk:
                item = data.get(uid)
                if item is None:  # expunged meanwhile by another client
                    continue
                raw = item.get(b"BODY[]") or b""
                yield Fetched(
                    folder, self.uidvalidity, uid, bytes(raw), _aware_utc(item.get(b"INTERNALDATE"))
                )

    # filing ---------------------------------------------------------------

    def file_done(self, *uids: int) -> None:
        """Move handled messages to the done folder (one ``UID MOVE`` for them all)."""
        self._move(list(uids), self.folders.done)

    def file_quarantine(self, *uids: int) -> None:
        """Move messages that failed too often to the quarantine folder."""
        self._move(list(uids), self.folders.quarantine)

    def _move(self, uids: list[int], folder: str) -> None:
        if not uids:
            return
        try:
            self._move_once(uids, folder)
        except Exception as exc:
            if "EXPUNGEISSUED" not in str(exc):
                raise MailboxError(f"IMAP move to {folder}: {_reason(exc)}") from exc
            # another session (a second worker, a person's mail client) moved some of
            # them away: once this session has heard of it, the rest move as asked
            try:
                self.client.noop()
                self._move_once(uids, folder)
            except Exception as again:
                raise MailboxError(f"IMAP move to {folder}: {_reason(again)}") from again

    def _move_once(self, uids: list[int], folder: str) -> None:
        """``UID MOVE`` where the server has it, else ``UID COPY``, ``\\Deleted`` and an
        expunge; a UID no longer in the folder is passed over (RFC 9051 6.4.9)."""
        if b"MOVE" in self.capabilities:
            self.client.move(uids, folder)
        else:
            self.client.copy(uids, folder)
            self.client.delete_messages(uids)
            if b"UIDPLUS" in self.capabilities:
                self.client.uid_expunge(uids)
            else:
                self.client.expunge()

    # the quarantine folder -------------------------------------------------

    @contextlib.contextmanager
    def _in_quarantine(self, *, readonly: bool) -> Iterator[IMAPClient]:
        """The quarantine folder selected for a while; the inbox folder again after."""
        client = self.client
        folder = self.folders.quarantine
        try:
            client.select_folder(folder, readonly=readonly)
        except Exception as exc:
            raise MailboxError(f"IMAP SELECT {folder}: {_reason(exc)}") from exc
        try:
            yield client
        finally:
            try:
                selected = client.select_folder(self.folders.inbox)
                self.uidvalidity = int(selected[b"UIDVALIDITY"])
            except Exception as exc:
                raise MailboxError(f"IMAP SELECT {self.folders.inbox}: {_reason(exc)}") from exc

    def set_aside(self) -> list[SetAside]:
        """The messages in the quarantine folder, by UID, with what identifies them."""
        found: list[SetAside] = []
        with self._in_quarantine(readonly=True) as client:
            try:
                uids = sorted(int(u) for u in client.search(["UNDELETED"]))
            except Exception as exc:
                raise MailboxError(f"IMAP SEARCH: {_reason(exc)}") from exc
            for start in range(0, len(uids), BATCH):
                chunk = uids[start : start + BATCH]
                try:
                    data = client.fetch(chunk, ["BODY.PEEK[]", "INTERNALDATE"])
                except Exception as exc:
                    raise MailboxError(f"IMAP FETCH: {_reason(exc)}") from exc
                for uid in chunk:
                    item = data.get(uid)
                    if item is None:  # expunged meanwhile by another client
                        continue
                    raw = bytes(item.get(b"BODY[]") or b"")
                    letter = read_letter(raw)
                    found.append(
                        SetAside(
                            uid=uid,
                            from_addr=letter.from_addr,
                            subject=letter.subject,
                            message_id=letter.message_id,
                            internaldate=_aware_utc(item.get(b"INTERNALDATE")),
                            sha256=hashlib.sha256(raw).hexdigest(),
                        )
                    )
        return found

    def release(self, *uids: int) -> None:
        """Move messages from the quarantine folder back to the inbox folder.

        ``UID MOVE`` keeps each message's bytes and INTERNALDATE, the arrival
        time its clock counts from.
        """
        if not uids:
            return
        with self._in_quarantine(readonly=False):
            self._move(list(uids), self.folders.inbox)

    def put_back(self, raw: bytes, internaldate: datetime.datetime) -> None:
        """APPEND ``raw`` to the inbox folder as having arrived at ``internaldate``."""
        folder = self.folders.inbox
        try:
            self.client.append(folder, raw, flags=(), msg_time=internaldate)
        except Exception as exc:
            raise MailboxError(f"IMAP APPEND to {folder}: {_reason(exc)}") from exc

    # waiting --------------------------------------------------------------

    def wait(self, seconds: float, poll_seconds: float | None = None) -> bool:
        """Wait for new mail; True if the server said some came (or after a poll interval).

        Uses IDLE for up to ``seconds`` where the server has it (the caller
        re-issues it every few minutes by calling again), else sleeps
        ``poll_seconds`` (default ``seconds``) and lets the caller poll.
        """
        if b"IDLE" not in self.capabilities:
            time.sleep(poll_seconds if poll_seconds is not None else seconds)
            return True
        if self.pending_uids():
            return True  # mail came while the last pass was finishing: no need to wait
        client = self.client
        try:
            client.idle()
            # Mail that arrived in the instant before IDLE started is reported in the
            # same packet as the server's "+ idling" and already sits in the reader's
            # buffer, where waiting on the socket would not see it. (A stop signal
            # leaves from here without the DONE a hung server would never answer.)
            responses = [] if _buffered(client) else client.idle_check(timeout=seconds)
            _text, more = client.idle_done()
        except Exception as exc:
            raise MailboxError(f"IMAP IDLE: {_reason(exc)}") from exc
        return any(
            isinstance(r, tuple) and len(r) > 1 and r[1] in (b"EXISTS", b"RECENT")
            for r in [*responses, *more]
        )
