"""Sending mail over SMTP (ssl, starttls or plain), one message at a time.

The durable queue is the ``outbox`` table (:mod:`mailbot.outbox`); this
module only talks to the server and says precisely whether it accepted.

>>> compose_address("Federation CC <bot@federation.example>")
'bot@federation.example'
"""

from __future__ import annotations

import contextlib
import email.utils
import smtplib
import ssl
from collections.abc import Iterator, Sequence
from email.message import Message
from typing import Protocol


class SmtpSettings(Protocol):
    """The ``smtp:`` section of the configuration."""

    @property
    def host(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def security(self) -> object: ...
    @property
    def username(self) -> str | None: ...
    @property
    def password(self) -> str | None: ...
    @property
    def sender(self) -> str: ...


class SendError(RuntimeError):
    """The server did not accept the message; ``permanent`` if retrying is useless."""

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent


def security_mode(security: object) -> str:
    """``ssl``, ``starttls`` or ``none``, from the config's enum or a plain string.

    >>> security_mode("starttls")
    'starttls'
    """
    return str(getattr(security, "value", security))


def compose_address(sender: str) -> str:
    """The bare address of a ``Name <address>`` sender."""
    return email.utils.parseaddr(sender)[1]


def _quit(server: smtplib.SMTP) -> None:
    try:
        server.quit()
    except (OSError, smtplib.SMTPException):
        server.close()


class Postman:
    """Sends messages through the configured SMTP server."""

    def __init__(self, settings: SmtpSettings, *, timeout: float = 30.0) -> None:
        self.settings = settings
        self.timeout = timeout
        self._kept: smtplib.SMTP | None = None
        self._batching = False

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
        mode = security_mode(s.security)
        server: smtplib.SMTP
        if mode == "ssl":
            context = ssl.create_default_context()
            server = smtplib.SMTP_SSL(s.host, s.port, timeout=self.timeout, context=context)
        else:
            server = smtplib.SMTP(s.host, s.port, timeout=self.timeout)
            if mode == "starttls":
                server.starttls(context=ssl.create_default_context())
        if s.username and s.password:
            server.login(s.username, s.password)
        return server

    def send(self, message: Message, recipients: Sequence[str]) -> dict[str, str]:
        """Hand ``message`` to the server for ``recipients``; raises :class:`SendError`.

        Returns the recipients the server refused while accepting the others.
        Inside :meth:`batch` the connection is kept for the next message.
        """
        envelope_from = compose_address(self.settings.sender)
        server = self._kept
        self._kept = None
        if server is not None:
            try:
                server.rset()
            except (OSError, smtplib.SMTPException):
                server.close()
                server = None
        if server is None:
            try:
                server = self._connect()
            except (OSError, smtplib.SMTPException) as exc:
                where = f"{self.settings.host}:{self.settings.port}"
                raise SendError(f"SMTP {where}: {exc}") from exc
        keep = self._batching
        try:
            refused = server.send_message(message, envelope_from, list(recipients))
        except smtplib.SMTPRecipientsRefused as exc:
            raise SendError(f"every recipient refused: {exc.recipients}", permanent=True) from exc
        except smtplib.SMTPResponseException as exc:
            permanent = 500 <= exc.smtp_code < 600
            raise SendError(
                f"SMTP {exc.smtp_code}: {exc.smtp_error!r}", permanent=permanent
            ) from exc
        except (OSError, smtplib.SMTPException) as exc:
            keep = False
            raise SendError(f"SMTP: {exc}") from exc
        finally:
            if keep:
                self._kept = server
            else:
                _quit(server)
        return {addr: f"{code} {reply!r}" for addr, (code, reply) in refused.items()}
