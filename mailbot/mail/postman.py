"""Sending mail over SMTP (ssl, starttls or plain), one message at a time.

The durable queue is the ``outbox`` table (:mod:`mailbot.store.outbox`); this
module only talks to the server and says precisely whether it accepted, and
whether a failure is the message's (:attr:`SendFailure.PERMANENT`) or the
server's (:attr:`SendFailure.UNREACHABLE`: the connection could not be made, so
the other messages had better wait too).

A server that stops answering costs at most ``timeout`` seconds (connect and
every read); after it failed, :meth:`Postman.available` says no for a while
(60 s, doubling up to 15 minutes), so a hung relay does not hold up the
bot's reading of its mail.

>>> compose_address("Federation CC <bot@federation.example>")
'bot@federation.example'
"""

from __future__ import annotations

import contextlib
import email.utils
import enum
import logging
import smtplib
import ssl
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

from mailbot.mail.oauth import OAuthProblem, TokenRevoked, TokenSource, token_source
from mailbot.mail.settings import Security
from mailbot.rules.errors import MailError

log = logging.getLogger(__name__)

#: The default connect and read timeout, in seconds.
TIMEOUT = 15.0
#: A kept connection used again within this many seconds of a clean transaction is
#: not reset first (RSET); an older one is, which also finds one the server closed.
FRESH = 5.0
_PAUSE_FIRST = 60.0
_PAUSE_MAX = 900.0


class SmtpSettings(Protocol):
    """The ``smtp:`` section of the configuration."""

    @property
    def host(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def security(self) -> Security: ...
    @property
    def username(self) -> str | None: ...
    @property
    def password(self) -> str | None: ...
    @property
    def sender(self) -> str: ...


class SendFailure(enum.Enum):
    """How a send failed, which says what to do with the message (and the others)."""

    #: A temporary refusal of this message (a 4xx answer): it is tried again later.
    TEMPORARY = "temporary"
    #: Retrying this message is useless (a 5xx answer to its recipients or its data,
    #: an address the path cannot carry).
    PERMANENT = "permanent"
    #: The server could not be reached, would not greet or log in, or refused the bot
    #: as a sender: no message can go now, and none is to blame.
    UNREACHABLE = "unreachable"
    #: The connection broke or timed out while this message was being sent: it may be
    #: this message's doing (its size, its content) or the server's.
    MIDWAY = "midway"


class SendError(MailError, RuntimeError):
    """The server did not take the message; ``failure`` says how.

    >>> SendError("SMTP relay:25: connection lost", SendFailure.MIDWAY).failure.value
    'midway'
    """

    def __init__(self, message: str, failure: SendFailure = SendFailure.TEMPORARY) -> None:
        super().__init__(message)
        self.failure = failure


def compose_address(sender: str) -> str:
    """The bare address of a ``Name <address>`` sender."""
    return email.utils.parseaddr(sender)[1]


def _quit(server: smtplib.SMTP) -> None:
    try:
        server.quit()
    except (OSError, smtplib.SMTPException):
        server.close()


class Postman:
    """Sends messages through the configured SMTP server.

    ``clock`` (monotonic seconds) is only for the pause after a failure.
    """

    def __init__(
        self,
        settings: SmtpSettings,
        *,
        timeout: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        configured = getattr(settings, "timeout", None)
        self.timeout = float(timeout or configured or TIMEOUT)
        self._kept: smtplib.SMTP | None = None
        #: When the kept connection last ended a transaction cleanly (monotonic), or None.
        self._clean_at: float | None = None
        self._batching = False
        self._clock = clock
        self._paused_until = 0.0
        self._pause = 0.0
        #: With ``auth: oauth2``: where the access tokens come from.
        self.tokens: TokenSource | None = token_source(settings, "smtp")

    @property
    def where(self) -> str:
        return f"SMTP {self.settings.host}:{self.settings.port}"

    def available(self) -> bool:
        """False for a while after the server could not be reached, and while the OAuth2
        refresh token the token file holds is one the provider refused."""
        if self.tokens is not None and self.tokens.blocked():
            return False
        return self._clock() >= self._paused_until

    def pause(self) -> None:
        """Try no more for a while (60 s, doubling to 15 minutes while it fails)."""
        self._pause = min(self._pause * 2, _PAUSE_MAX) if self._pause else _PAUSE_FIRST
        self._paused_until = self._clock() + self._pause

    def _unreachable(self, reason: str) -> SendError:
        self.pause()
        return SendError(f"{self.where}: {reason}", SendFailure.UNREACHABLE)

    def _reached(self) -> None:
        self._pause = 0.0
        self._paused_until = 0.0

    @contextlib.contextmanager
    def batch(self) -> Iterator[Postman]:
        """Keep one connection open for the sends inside the ``with`` block."""
        self._batching = True
        try:
            yield self
        finally:
            self._batching = False
            server, self._kept = self._kept, None
            if server is not None:
                _quit(server)

    def _connect(self) -> smtplib.SMTP:
        s = self.settings
        server: smtplib.SMTP
        if s.security is Security.SSL:
            context = ssl.create_default_context()
            server = smtplib.SMTP_SSL(s.host, s.port, timeout=self.timeout, context=context)
        else:
            server = smtplib.SMTP(s.host, s.port, timeout=self.timeout)
            if s.security is Security.STARTTLS:
                server.starttls(context=ssl.create_default_context())
        try:
            server.ehlo_or_helo_if_needed()
            if self.tokens is not None:
                self._oauth_login(server, self.tokens.token())
            elif s.username:
                server.login(s.username, s.password or "")
        except BaseException:
            server.close()
            raise
        return server

    def _oauth_login(self, server: smtplib.SMTP, token: str) -> None:
        """SASL XOAUTH2 or OAUTHBEARER with ``token`` as the initial response."""
        assert self.tokens is not None
        response = self.tokens.sasl(token)
        mechanism = self.tokens.mechanism.value.upper()
        # a refusal may come as a 334 challenge (the error in JSON): answered empty
        answers = iter([response])
        server.auth(mechanism, lambda challenge=None: next(answers, ""), initial_response_ok=True)

    def _connect_refreshing(self) -> smtplib.SMTP:
        """:meth:`_connect`; with OAuth2, once more with a refreshed token when the server
        refused the access token."""
        try:
            return self._connect()
        except smtplib.SMTPAuthenticationError:
            if self.tokens is None:
                raise
            refused = self.tokens.token()
            log.info("%s refused the access token; refreshing it", self.where)
            self.tokens.refresh(refused)
            return self._connect()

    def login(self) -> None:
        """Connect and log in as a send would, then QUIT: no mail is sent. Raises
        :class:`SendError` naming the keys to check."""
        _quit(self._server())

    def _server(self) -> smtplib.SMTP:
        server, clean_at = self._kept, self._clean_at
        self._kept = self._clean_at = None
        if server is not None and clean_at is not None and time.monotonic() - clean_at < FRESH:
            return server  # its last transaction ended cleanly a moment ago: no RSET needed
        if server is not None:
            try:
                server.rset()
                return server
            except (OSError, smtplib.SMTPException):
                server.close()
        try:
            return self._connect_refreshing()
        except OAuthProblem as problem:
            if not isinstance(problem, TokenRevoked):
                self.pause()
            raise SendError(f"{self.where}: {problem}", SendFailure.UNREACHABLE) from problem
        except smtplib.SMTPAuthenticationError as exc:
            checked = "smtp.username and smtp.password"
            if self.tokens is not None:
                checked = "smtp.username and the scopes the token was granted"
            raise SendError(
                f"{self.where}: login refused ({exc.smtp_code}); check {checked}",
                SendFailure.UNREACHABLE,
            ) from exc
        except (OSError, smtplib.SMTPException) as exc:
            raise self._unreachable(str(exc) or type(exc).__name__) from exc

    def send(
        self,
        compose: Callable[[bool], bytes],
        recipients: Callable[[bool], Sequence[str]],
        *,
        envelope_from: str | None = None,
    ) -> dict[str, str]:
        """Send one message; raises :class:`SendError`.

        ``compose(smtputf8)`` gives the message's bytes and ``recipients(smtputf8)``
        the envelope recipients, in the forms the server can carry (it may raise
        :class:`SendError` itself, :attr:`SendFailure.PERMANENT`, for an address it cannot).
        Returns the recipients the server refused while accepting the others.
        Inside :meth:`batch` the connection is kept for the next message.
        ``envelope_from`` is the return path (MAIL FROM); by default the sender's
        own address.
        """
        envelope_from = envelope_from or compose_address(self.settings.sender)
        server = self._server()
        keep = self._batching
        polite = True  # False: the server is not to be waited for (gone, hung, or a stop)
        clean_at: float | None = None
        try:
            refused = _transmit(server, compose, recipients, envelope_from)
            clean_at = time.monotonic()
        except BaseException as exc:
            error, broken = self._failure(exc)
            if broken:
                keep = polite = False
            if error is None:
                raise
            raise error from exc
        finally:
            if keep:
                self._kept, self._clean_at = server, clean_at
            elif polite:
                _quit(server)
            else:
                server.close()
        self._reached()
        return {addr: f"{code} {_text(reply)}" for addr, (code, reply) in refused.items()}

    def _failure(self, exc: BaseException) -> tuple[SendError | None, bool]:
        """What a failed send raises (None: the exception as it is), and whether it
        broke the connection (then the server is not to be waited for)."""
        if isinstance(exc, SendError):
            return None, False
        if isinstance(exc, smtplib.SMTPRecipientsRefused):
            answers = {a: f"{code} {_text(reply)}" for a, (code, reply) in exc.recipients.items()}
            for_good = all(code >= 500 for code, _ in exc.recipients.values())
            failure = SendFailure.PERMANENT if for_good else SendFailure.TEMPORARY
            return SendError(f"every recipient refused: {answers}", failure), False
        if isinstance(exc, smtplib.SMTPSenderRefused):
            # the relay will not take mail from the bot at all (not authenticated,
            # blacklisted, over a quota): no message can go, and none is to blame
            return self._unreachable(
                f"refused the sender {exc.sender} ({exc.smtp_code} {_text(exc.smtp_error)}); "
                "check smtp.sender, smtp.username and the relay's rules"
            ), False
        if isinstance(exc, smtplib.SMTPServerDisconnected):
            return SendError(f"{self.where}: connection lost: {exc}", SendFailure.MIDWAY), True
        if isinstance(exc, smtplib.SMTPResponseException):
            permanent = 500 <= exc.smtp_code < 600
            return SendError(
                f"{self.where} answered {exc.smtp_code}: {_text(exc.smtp_error)}",
                SendFailure.PERMANENT if permanent else SendFailure.TEMPORARY,
            ), False
        if isinstance(exc, (OSError, smtplib.SMTPException)):
            reason = str(exc) or type(exc).__name__
            return SendError(f"{self.where}: {reason}", SendFailure.MIDWAY), True
        # composing failed: the message's fault, the connection is fine; anything
        # else (a stop) leaves the server unwaited for
        return None, not isinstance(exc, Exception)


def _transmit(
    server: smtplib.SMTP,
    compose: Callable[[bool], bytes],
    recipients: Callable[[bool], Sequence[str]],
    envelope_from: str,
) -> dict[str, tuple[int, bytes]]:
    """Hand one message to the server; the recipients it refused while taking the others."""
    smtputf8 = server.has_extn("smtputf8")
    data = compose(smtputf8)
    to = list(recipients(smtputf8))
    options: list[str] = []
    if smtputf8 and not (envelope_from + "".join(to)).isascii():
        options = ["SMTPUTF8", "BODY=8BITMIME"]
    if server.has_extn("dsn"):
        # a report of a mail that did not arrive returns its headers, not its words:
        # the return path and the Message-ID name the row, and the text (an Xfcc
        # password, say) comes back to be kept as evidence no more (RFC 3461)
        options.append("RET=HDRS")
    return server.sendmail(envelope_from, to, data, mail_options=options)


def _text(reply: bytes | str) -> str:
    if isinstance(reply, bytes):
        return reply.decode("utf-8", "replace")
    return str(reply)
