"""How the bot reaches its mail servers: the connection's protection, the login, and
OAuth2's provider and mechanism. The configuration (:mod:`mailbot.config`) reads
these from YAML; the mail layer only receives them::

    >>> OAuth2Config(Provider.GOOGLE, "id", "token.json").mechanism
    <Mechanism.XOAUTH2: 'xoauth2'>
"""

from __future__ import annotations

import dataclasses
import enum


class Security(enum.Enum):
    """How the connection to a mail server is protected."""

    SSL = "ssl"
    STARTTLS = "starttls"
    NONE = "none"


class Auth(enum.Enum):
    """How the bot logs in to a mail server."""

    PASSWORD = "password"
    OAUTH2 = "oauth2"


class Provider(enum.Enum):
    """Whose OAuth2 endpoints, scopes and SASL mechanism (:mod:`mailbot.mail.oauth`)."""

    GOOGLE = "google"
    MICROSOFT = "microsoft"
    GENERIC = "generic"


class Mechanism(enum.Enum):
    """The SASL mechanism that carries the access token."""

    XOAUTH2 = "xoauth2"
    OAUTHBEARER = "oauthbearer"


@dataclasses.dataclass(frozen=True)
class OAuth2Config:
    """The ``oauth2:`` section of an account that logs in with ``auth: oauth2``."""

    provider: Provider
    client_id: str
    #: The token file: JSON with ``refresh_token``, ``access_token``, ``expires_at``.
    token_file: str
    #: Public clients (installed applications) have none.
    client_secret: str | None = dataclasses.field(default=None, repr=False)
    #: Microsoft only: the directory (``common``, ``organizations`` or the tenant's id).
    tenant: str = "common"
    #: Generic only: the provider's endpoints, scopes and mechanism.
    token_url: str | None = None
    authorize_url: str | None = None
    device_url: str | None = None
    scopes: tuple[str, ...] = ()
    mechanism: Mechanism = Mechanism.XOAUTH2
    #: The configuration file it was read from, for the command that fixes a refused
    #: token (``mailbot -c CONFIG oauth authorize imap``).
    config_file: str = "CONFIG"
