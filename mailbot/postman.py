"""Sending mail over SMTP (ssl, starttls or plain), one message at a time.

The durable queue is the ``outbox`` table (:mod:`mailbot.outbox`); this
module only talks to the server and says precisely whether it accepted.

>>> compose_address("Federation CC <bot@federation.example>")
'bot@federation.example'
"""

from __future__ import annotations

import email.utils
import smtplib
import ssl
from collections.abc import Sequence
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


class Postman:
    """Sends messages through the configured SMTP server."""

    def __init__(self, settings: SmtpSettings, *, timeout: float = 30.0) -> None:
        self.settings = settings
        self.timeout = timeout

    def _connect(self) -> smtplib.SMTP:
        s = self.settings
        context = ssl.create_default_context()
        server: smtplib.SMTP
        if security_mode(s.security) == "ssl":
            server = smtplib.SMTP_SSL(s.host, s.port, timeout=self.timeout, context=context)
        else:
            server = smtplib.SMTP(s.host, s.port, timeout=self.timeout)
            if security_mode(s.security) == "starttls":
                server.starttls(context=context)
        if s.username and s.password:
            server.login(s.username, s.password)
        return server

    def send(self, message: Message, recipients: Sequence[str]) -> dict[str, str]:
        """Hand ``message`` to the server for ``recipients``; raises :class:`SendError`.

        Returns the recipients the server refused while accepting the others.
        """
        envelope_from = compose_address(self.settings.sender)
        try:
            server = self._connect()
        except (OSError, smtplib.SMTPException) as exc:
            raise SendError(f"SMTP {self.settings.host}:{self.settings.port}: {exc}") from exc
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
            raise SendError(f"SMTP: {exc}") from exc
        finally:
            try:
                server.quit()
            except (OSError, smtplib.SMTPException):
                server.close()
        return {addr: f"{code} {reply!r}" for addr, (code, reply) in refused.items()}
