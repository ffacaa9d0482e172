"""OAuth2 for the bot's IMAP and SMTP logins: presets, the token file, the flows.

An account with ``auth: oauth2`` logs in with SASL XOAUTH2 or OAUTHBEARER and an
access token that a :class:`TokenSource` keeps fresh from the account's token
file (JSON: ``refresh_token``, ``access_token``, ``expires_at`` in Unix
seconds). The refresh-token grant, the authorization code with PKCE and the
device code go through Authlib's ``OAuth2Session`` (requests underneath, so
the system's certificates, ``SSL_CERT_FILE`` and ``REQUESTS_CA_BUNDLE`` are
trusted as requests trusts them).

The token file is read and written under an exclusive ``flock`` on
``TOKEN_FILE.lock``, so the daemon, ``poll`` and a courier process sharing one
file never refresh at once nor lose a rotated refresh token; it is replaced
atomically (a temporary file, fsync, ``os.replace``) with mode 0600. A refresh
token the provider refused is marked in the file (by its SHA-256, never the
token), so the next attempts fail at once without asking the provider again,
until ``mailbot oauth authorize`` writes a new one, which is taken at once.
Nothing here logs a token, a code or a secret, nor puts one into an exception.

>>> preset = endpoints(OAuth2Config(Provider.MICROSOFT, "id", "t.json", tenant="contoso"))
>>> preset.token_url
'https://login.microsoftonline.com/contoso/oauth2/v2.0/token'
>>> preset.flow, preset.mechanism
(<Flow.DEVICE: 'device'>, <Mechanism.XOAUTH2: 'xoauth2'>)
>>> xoauth2("bot@example.org", "t0k")
'user=bot@example.org\\x01auth=Bearer t0k\\x01\\x01'
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import fcntl
import hashlib
import http.server
import json
import logging
import os
import secrets
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mailbot.mail.files import replaced_privately
from mailbot.mail.settings import Mechanism, OAuth2Config, Provider
from mailbot.rules.errors import MailError

if TYPE_CHECKING:
    from authlib.integrations.requests_client import (  # type: ignore[import-untyped,unused-ignore]
        OAuth2Session,
    )

# Authlib and requests are imported where they are used: a bot that logs in with
# passwords (and every courier process) does not load them.

log = logging.getLogger(__name__)

#: An access token is refreshed when it has fewer seconds left than this.
LEEWAY = 60.0
#: How long a request to the provider may take, in seconds.
TIMEOUT = 15.0
#: The grant type of the device code (RFC 8628).
DEVICE_CODE = "urn:ietf:params:oauth:grant-type:device_code"

#: Token-endpoint errors that mean the refresh token is no good any more (RFC 6749 5.2).
_REVOKED = frozenset({"invalid_grant"})
#: Those that mean the client (its id, its secret, its scopes) is refused.
_CLIENT = frozenset({"invalid_client", "unauthorized_client", "invalid_scope"})


class Flow(enum.Enum):
    """How ``oauth authorize`` obtains the first refresh token."""

    CODE = "code"  # authorization code with PKCE and a loopback redirect (RFC 8252)
    DEVICE = "device"  # device authorization grant (RFC 8628)


@dataclasses.dataclass(frozen=True)
class Endpoints:
    """What a provider preset (or the generic configuration) gives."""

    token_url: str
    authorize_url: str | None
    device_url: str | None
    scopes: tuple[str, ...]
    mechanism: Mechanism
    flow: Flow
    #: Whether the refresh-token grant names the scopes again (optional in RFC 6749 6;
    #: Microsoft's v2.0 endpoint wants them, Google's refresh request takes none).
    scope_on_refresh: bool = True


#: Google: https://developers.google.com/identity/protocols/oauth2/native-app and
#: https://developers.google.com/gmail/imap/xoauth2-protocol (scope https://mail.google.com/).
GOOGLE_TOKEN = "https://oauth2.googleapis.com/token"
GOOGLE_AUTHORIZE = "https://accounts.google.com/o/oauth2/v2/auth"
#: Microsoft: https://learn.microsoft.com/en-us/exchange/client-developer/legacy-protocols/
#: how-to-authenticate-an-imap-pop-smtp-application-by-using-oauth
MICROSOFT = "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/"
MICROSOFT_SCOPES = (
    "https://outlook.office.com/IMAP.AccessAsUser.All",
    "https://outlook.office.com/SMTP.Send",
    "offline_access",
)


def endpoints(settings: OAuth2Config) -> Endpoints:
    """The endpoints, scopes, mechanism and flow of ``settings``.

    Microsoft's access token is asked for both scopes at once (one resource), so
    IMAP and SMTP may share one token file.

    >>> g = endpoints(OAuth2Config(Provider.GOOGLE, "id", "t.json"))
    >>> g.scopes, g.flow
    (('https://mail.google.com/',), <Flow.CODE: 'code'>)
    >>> endpoints(OAuth2Config(Provider.GENERIC, "id", "t.json", token_url="https://i/t",
    ...                        device_url="https://i/d")).flow
    <Flow.DEVICE: 'device'>
    """
    if settings.provider is Provider.GOOGLE:
        return Endpoints(
            GOOGLE_TOKEN, GOOGLE_AUTHORIZE, None, ("https://mail.google.com/",),
            Mechanism.XOAUTH2, Flow.CODE, scope_on_refresh=False,
        )  # fmt: skip
    if settings.provider is Provider.MICROSOFT:
        base = MICROSOFT.format(tenant=settings.tenant)
        return Endpoints(
            base + "token", None, base + "devicecode", MICROSOFT_SCOPES, Mechanism.XOAUTH2,
            Flow.DEVICE,
        )  # fmt: skip
    if settings.token_url is None:
        raise ValueError("the generic provider needs token_url")
    flow = Flow.DEVICE if settings.device_url else Flow.CODE
    return Endpoints(
        settings.token_url, settings.authorize_url, settings.device_url, settings.scopes,
        settings.mechanism, flow,
    )  # fmt: skip


def xoauth2(username: str, token: str) -> str:
    """The initial client response of SASL XOAUTH2 (Google's and Microsoft's)."""
    return f"user={username}\x01auth=Bearer {token}\x01\x01"


def oauthbearer(username: str, token: str) -> str:
    r"""The initial client response of SASL OAUTHBEARER (RFC 7628).

    >>> oauthbearer("a,b=c", "t")
    'n,a=a=2Cb=3Dc,\x01auth=Bearer t\x01\x01'
    """
    identity = username.replace("=", "=3D").replace(",", "=2C")
    return f"n,a={identity},\x01auth=Bearer {token}\x01\x01"


def fingerprint(token: str) -> str:
    """A refresh token's mark in the file and in the notice ledger (not the token).

    >>> fingerprint("x")
    '2d711642b726b044'
    """
    return hashlib.sha256(token.encode()).hexdigest()[:16]


# -- problems -------------------------------------------------------------------------


class OAuthProblem(MailError, RuntimeError):
    """An account could not get an access token: what, which account, what fixes it."""

    def __init__(self, account: str, username: str, what: str, fix: str) -> None:
        super().__init__(f"OAuth2 for {account} {username}: {what}; {fix}")
        self.account = account
        self.username = username
        self.what = what
        self.fix = fix


class TokenRevoked(OAuthProblem):
    """The refresh token is refused (revoked, expired) or there is none: only
    ``mailbot oauth authorize`` helps. ``key`` names this refusal once (the
    account and the refused token's fingerprint)."""

    def __init__(self, account: str, username: str, what: str, fix: str, key: str) -> None:
        super().__init__(account, username, what, fix)
        self.key = key


class ClientRefused(OAuthProblem):
    """The provider refused the client itself (its id, secret or scopes): the
    configuration is to be fixed."""


class ProviderUnavailable(OAuthProblem):
    """The token endpoint could not be reached or failed; trying later may help."""


def authorize_command(settings: OAuth2Config, account: str) -> str:
    """The command that obtains a new refresh token.

    >>> authorize_command(OAuth2Config(Provider.GOOGLE, "i", "t", config_file="/etc/m.yaml"),
    ...                   "smtp")
    'mailbot -c /etc/m.yaml oauth authorize smtp'
    """
    return f"mailbot -c {settings.config_file} oauth authorize {account}"


# -- the token file ---------------------------------------------------------------------


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the exclusive lock of the token file ``path`` (``path.lock``), across processes."""
    lock = path.with_name(path.name + ".lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def read_tokens(path: Path) -> dict[str, Any]:
    """The token file's object; ``{}`` when there is no file. Raises OSError or ValueError
    (never with the file's content in it)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise ValueError(f"{path} is not JSON") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a JSON object")
    return data


def write_tokens(path: Path, data: Mapping[str, Any]) -> None:
    """Replace the token file atomically, mode 0600 (a temporary file, fsync, rename)."""
    with replaced_privately(path) as out:
        out.write(json.dumps(dict(data), indent=1, sort_keys=True).encode("utf-8"))


def store_grant(path: Path, token: Mapping[str, Any], previous: Mapping[str, Any]) -> None:
    """Write what the token endpoint granted (keeping a refresh token it did not rotate),
    under the file's lock."""
    data: dict[str, Any] = {
        "refresh_token": token.get("refresh_token") or previous.get("refresh_token"),
        "access_token": token.get("access_token"),
        "expires_at": int(token["expires_at"]) if token.get("expires_at") else None,
        "token_type": token.get("token_type", "Bearer"),
    }
    write_tokens(path, {k: v for k, v in data.items() if v is not None})


@dataclasses.dataclass(frozen=True)
class TokenState:
    """What the token file says, for ``mailbot health`` (no token in it)."""

    readable: bool
    has_refresh_token: bool
    #: The provider's error for the refresh token the file holds, or None.
    refused: str | None
    #: The access token's expiry (Unix seconds), if known.
    expires_at: float | None
    problem: str = ""


def token_state(path: Path) -> TokenState:
    """Read the token file's state without the lock (the file is always whole).

    >>> token_state(Path("/nonexistent/t.json")).problem
    'no token file /nonexistent/t.json'
    """
    try:
        data = read_tokens(path)
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else str(exc)
        return TokenState(False, False, None, None, f"cannot read {path}: {reason}")
    if not data:
        return TokenState(False, False, None, None, f"no token file {path}")
    token = data.get("refresh_token")
    refused = data.get("refused")
    error = None
    if (
        isinstance(refused, dict)
        and isinstance(token, str)
        and refused.get("sha256") == fingerprint(token)
    ):
        error = str(refused.get("error") or "refused")
    expires = data.get("expires_at")
    return TokenState(
        True, isinstance(token, str) and bool(token), error,
        float(expires) if isinstance(expires, int | float) else None,
    )  # fmt: skip


# -- the token source -------------------------------------------------------------------


def _session(
    settings: OAuth2Config, ends: Endpoints, *, scoped: bool = True, **kwargs: Any
) -> OAuth2Session:
    """An Authlib session for the token endpoint: HTTP Basic client authentication with
    a secret (RFC 6749 2.3.1), the client id in the body without one (a public client)."""
    from authlib.integrations.requests_client import (  # type: ignore[import-untyped,unused-ignore]
        OAuth2Session,
    )

    return OAuth2Session(
        client_id=settings.client_id,
        client_secret=settings.client_secret,
        token_endpoint_auth_method="client_secret_basic" if settings.client_secret else "none",
        scope=(" ".join(ends.scopes) or None) if scoped else None,
        **kwargs,
    )


class TokenSource:
    """Access tokens for one account (``imap`` or ``smtp``) from its token file.

    ``clock`` is the real clock (token lifetimes do not follow ``--now``).
    """

    def __init__(
        self,
        settings: OAuth2Config,
        account: str,
        username: str,
        *,
        timeout: float = TIMEOUT,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.account = account
        self.username = username
        self.endpoints = endpoints(settings)
        self.path = Path(settings.token_file)
        self.timeout = timeout
        self._clock = clock

    @property
    def mechanism(self) -> Mechanism:
        return self.endpoints.mechanism

    def sasl(self, token: str) -> str:
        """The initial client response carrying ``token``."""
        if self.mechanism is Mechanism.OAUTHBEARER:
            return oauthbearer(self.username, token)
        return xoauth2(self.username, token)

    @property
    def fix(self) -> str:
        return "run: " + authorize_command(self.settings, self.account)

    def _revoked(self, what: str, token: str | None) -> TokenRevoked:
        key = f"{self.account}:{fingerprint(token) if token else 'none'}"
        return TokenRevoked(self.account, self.username, what, self.fix, key)

    def _read(self) -> dict[str, Any]:
        try:
            return read_tokens(self.path)
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else str(exc)
            raise self._revoked(f"the token file cannot be read ({reason})", None) from None

    def blocked(self) -> bool:
        """Whether the refresh token the file holds now was refused already (so trying
        again is useless until a new one is written). Never raises."""
        state = token_state(self.path)
        return state.refused is not None and state.refused in _REVOKED

    def token(self) -> str:
        """A valid access token, refreshed first if it expires within :data:`LEEWAY`."""
        with self._locked():
            data = self._read()
            if self._fresh(data):
                return str(data["access_token"])
            return self._refresh(data)

    def refresh(self, refused: str) -> str:
        """A new access token after a server refused ``refused`` (unless another process
        refreshed meanwhile: then the file's)."""
        with self._locked():
            data = self._read()
            if data.get("access_token") != refused and self._fresh(data):
                return str(data["access_token"])
            return self._refresh(data)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            with locked(self.path):
                yield
        except OSError as exc:
            what = f"the token file's lock {self.path}.lock cannot be taken ({exc.strerror})"
            raise self._revoked(what, None) from None

    def _fresh(self, data: Mapping[str, Any]) -> bool:
        expires = data.get("expires_at")
        return (
            isinstance(data.get("access_token"), str)
            and isinstance(expires, int | float)
            and expires - self._clock() > LEEWAY
        )

    def _refresh(self, data: dict[str, Any]) -> str:
        """The refresh-token grant, under the lock; a refused token is marked in the file."""
        import requests
        from authlib.integrations.requests_client import (  # type: ignore[import-untyped,unused-ignore]
            OAuthError,
        )

        token = self._refresh_token(data)
        try:
            granted = self._grant(token)
        except OAuthError as exc:
            return self._after_refusal(data, token, exc)
        except (requests.RequestException, ValueError) as exc:
            raise ProviderUnavailable(
                self.account, self.username,
                f"the token endpoint cannot be reached ({type(exc).__name__})",
                f"check the network and the provider's endpoint {self.endpoints.token_url}",
            ) from None  # fmt: skip
        access = granted.get("access_token")
        if not isinstance(access, str) or not access:
            raise ProviderUnavailable(
                self.account, self.username, "the token endpoint granted no access token",
                "trying again later",
            )  # fmt: skip
        rotated = granted.get("refresh_token") not in (None, token)
        store_grant(self.path, granted, data)
        log.info(
            "OAuth2 for %s %s: access token refreshed%s",
            self.account, self.username, "; the new refresh token is stored" if rotated else "",
        )  # fmt: skip
        return access

    def _refresh_token(self, data: Mapping[str, Any]) -> str:
        """The file's refresh token; raises when there is none, or the provider refused it."""
        token = data.get("refresh_token")
        if not isinstance(token, str) or not token:
            what = f"the token file {self.path} holds no refresh token"
            raise self._revoked(what, None)
        refused = data.get("refused")
        if (
            isinstance(refused, dict)
            and refused.get("sha256") == fingerprint(token)
            and refused.get("error") in _REVOKED
        ):
            said = refused.get("said") or refused.get("error")
            raise self._revoked(f"the provider refused the refresh token ({said})", token)
        return token

    def _after_refusal(self, data: dict[str, Any], token: str, exc: Any) -> str:
        """The token endpoint refused ``token`` (``exc``, an authlib ``OAuthError``).

        A new token written into the file meanwhile is tried; else the refusal
        is marked in the file and raised as what it means.
        """
        error = str(exc.error or "refused")
        # an operator may have written a new token by hand meanwhile: take it
        again = self._read()
        other = again.get("refresh_token")
        if isinstance(other, str) and other and other != token:
            return self._refresh(again)
        said = f"{error}: {exc.description}" if exc.description else error
        self._mark(data, token, error, said)
        if error in _CLIENT:
            raise ClientRefused(
                self.account, self.username, f"the provider refused the client ({said})",
                f"check {self.account}.oauth2.client_id and client_secret in "
                f"{self.settings.config_file}",
            ) from None  # fmt: skip
        if error in _REVOKED:
            what = f"the provider refused the refresh token ({said})"
            raise self._revoked(what, token) from None
        raise ProviderUnavailable(
            self.account, self.username, f"the token endpoint answered {said}",
            "trying again later",
        ) from None  # fmt: skip

    def _grant(self, token: str) -> Mapping[str, Any]:
        ends = self.endpoints
        with _session(self.settings, ends, scoped=ends.scope_on_refresh) as session:
            granted: Mapping[str, Any] = session.refresh_token(
                self.endpoints.token_url, refresh_token=token, timeout=self.timeout
            )
        return granted

    def _mark(self, data: dict[str, Any], token: str, error: str, said: str) -> None:
        """Note in the file that the provider refused ``token`` (health reads it)."""
        mark = {"sha256": fingerprint(token), "error": error, "said": said[:300],
                "account": self.account, "at": int(self._clock())}  # fmt: skip
        try:
            write_tokens(self.path, {**data, "refused": mark})
        except OSError as exc:
            log.warning("OAuth2: cannot note the refusal in %s: %s", self.path, exc.strerror)


def token_source(settings: object, account: str) -> TokenSource | None:
    """The token source of an account's settings, or None when it logs in otherwise."""
    oauth2 = getattr(settings, "oauth2", None)
    if not isinstance(oauth2, OAuth2Config):
        return None
    timeout = float(getattr(settings, "timeout", None) or TIMEOUT)
    return TokenSource(oauth2, account, str(getattr(settings, "username", "")), timeout=timeout)


# -- oauth authorize ----------------------------------------------------------------------


class AuthorizeError(MailError, RuntimeError):
    """``oauth authorize`` could not obtain a token (one line, what to do)."""


@dataclasses.dataclass(frozen=True)
class Redirect:
    """What the browser brought back to the loopback listener."""

    code: str | None = dataclasses.field(repr=False)
    state: str | None = dataclasses.field(repr=False)
    error: str | None


class _Catcher(http.server.BaseHTTPRequestHandler):
    """The loopback redirect URI: takes one ``GET /?code=...&state=...``."""

    server: _Listener

    def do_GET(self) -> None:
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)

        def one(name: str) -> str | None:
            values = query.get(name)
            return values[0] if values else None

        if one("code") is None and one("error") is None:
            self.send_error(404)
            return
        self.server.got = Redirect(one("code"), one("state"), one("error"))
        body = b"The bot has the authorization; you may close this page.\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.server.arrived.set()

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: the request line carries the authorization code."""


class _Listener(http.server.HTTPServer):
    got: Redirect | None = None

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Catcher)
        self.arrived = threading.Event()


def authorize_with_code(
    settings: OAuth2Config,
    say: Callable[[str], None],
    *,
    wait: float = 300.0,
    timeout: float = TIMEOUT,
) -> Mapping[str, Any]:
    """The authorization code grant with PKCE (S256) and a loopback redirect (RFC 8252):
    prints the URL to open, waits up to ``wait`` seconds for the redirect, checks its
    state and exchanges the code. Returns the token (never printed)."""
    ends = endpoints(settings)
    if ends.authorize_url is None:
        raise AuthorizeError("the provider has no authorize_url: set oauth2.authorize_url")
    listener = _Listener()
    redirect = f"http://127.0.0.1:{listener.server_address[1]}/"
    thread = threading.Thread(target=listener.serve_forever, daemon=True)
    thread.start()
    verifier = secrets.token_urlsafe(48)  # 64 characters (RFC 7636 4.1: 43 to 128)
    state = secrets.token_urlsafe(24)
    try:
        with _session(
            settings, ends, redirect_uri=redirect, code_challenge_method="S256"
        ) as session:
            url, _ = session.create_authorization_url(
                ends.authorize_url, state=state, code_verifier=verifier,
                access_type="offline", prompt="consent",
            )  # fmt: skip
            say("Open this address in a browser on this machine and allow the access:")
            say(url)
            say(f"Waiting for the provider's redirect to {redirect} ...")
            if not listener.arrived.wait(wait):
                raise AuthorizeError(f"no redirect came within {wait:.0f} s; run the command again")
            got = listener.got
            assert got is not None
            if got.error is not None:
                raise AuthorizeError(f"the provider refused the authorization ({got.error})")
            if got.state is None or not secrets.compare_digest(got.state, state):
                raise AuthorizeError("the redirect's state is not this request's; try again")
            token: Mapping[str, Any] = _fetch(
                session, ends.token_url, code=got.code, code_verifier=verifier,
                redirect_uri=redirect, grant_type="authorization_code", timeout=timeout,
            )  # fmt: skip
    finally:
        listener.shutdown()
        listener.server_close()
    return token


def authorize_with_device(
    settings: OAuth2Config,
    say: Callable[[str], None],
    *,
    timeout: float = TIMEOUT,
    sleep: Callable[[float], None] = time.sleep,
) -> Mapping[str, Any]:
    """The device authorization grant (RFC 8628): prints the verification URI and the
    user code, then polls the token endpoint at the interval the provider gives."""
    import requests

    ends = endpoints(settings)
    if ends.device_url is None:
        raise AuthorizeError("the provider has no device_url: set oauth2.device_url")
    with _session(settings, ends) as session:
        body = {"scope": " ".join(ends.scopes)}
        try:
            # the client identifies itself as at the token endpoint (RFC 8628 3.1): its
            # client_id in the body (a public client) or HTTP Basic with the secret
            auth = session.client_auth(session.token_endpoint_auth_method)
            answer = session.post(ends.device_url, data=body, timeout=timeout, auth=auth,
                                  withhold_token=True)  # fmt: skip
            grant = answer.json()
        except (requests.RequestException, ValueError) as exc:
            raise AuthorizeError(
                f"the device endpoint {ends.device_url} cannot be used ({type(exc).__name__})"
            ) from None
        if not isinstance(grant, dict) or "device_code" not in grant:
            said = grant if isinstance(grant, dict) else {}
            error = str(said.get("error") or f"HTTP {answer.status_code}")
            raise _refusal("the device endpoint", error, said.get("error_description"))
        uri = grant.get("verification_uri_complete") or grant.get("verification_uri")
        say(f"Open {uri} in any browser and enter the code {grant.get('user_code')}")
        interval = float(grant.get("interval") or 5)
        deadline = time.monotonic() + float(grant.get("expires_in") or 900)
        while time.monotonic() < deadline:
            sleep(interval)
            try:
                token: Mapping[str, Any] = _fetch(
                    session, ends.token_url, grant_type=DEVICE_CODE,
                    device_code=grant["device_code"], timeout=timeout,
                )  # fmt: skip
                return token
            except _Pending as pending:
                if pending.error == "slow_down":
                    interval += 5
    raise AuthorizeError("the code was not entered in time; run the command again")


class _Pending(MailError):
    def __init__(self, error: str) -> None:
        super().__init__(error)
        self.error = error


def _fetch(session: OAuth2Session, url: str, **kwargs: Any) -> Mapping[str, Any]:
    """``fetch_token``; the provider's refusals as :class:`AuthorizeError` (one line),
    ``authorization_pending`` and ``slow_down`` as :class:`_Pending`."""
    import requests
    from authlib.integrations.requests_client import (  # type: ignore[import-untyped,unused-ignore]
        OAuthError,
    )

    try:
        token: Mapping[str, Any] = session.fetch_token(url, **kwargs)
    except OAuthError as exc:
        error = str(exc.error or "refused")
        if error in ("authorization_pending", "slow_down"):
            raise _Pending(error) from None
        raise _refusal("the token request", error, exc.description) from None
    except (requests.RequestException, ValueError) as exc:
        raise AuthorizeError(
            f"the token endpoint {url} cannot be used ({type(exc).__name__})"
        ) from None
    if not token.get("refresh_token"):
        raise AuthorizeError(
            "the provider granted no refresh token (for Microsoft the scope offline_access, "
            "for Google access_type=offline is needed)"
        )
    return token


def _refusal(what: str, error: str, description: object) -> AuthorizeError:
    """The provider's refusal in one line, with what to check.

    >>> print(_refusal("the token request", "invalid_grant", "code used"))
    the provider refused the token request (invalid_grant: code used)
    """
    said = f"{error}: {description}" if description else error
    if error in _CLIENT:
        return AuthorizeError(
            f"the provider refused the client ({said}); check oauth2.client_id and client_secret"
        )
    return AuthorizeError(f"the provider refused {what} ({said})")


def authorize(
    settings: OAuth2Config,
    say: Callable[[str], None],
    *,
    device: bool | None = None,
    wait: float = 300.0,
) -> Flow:
    """``mailbot oauth authorize``: run the provider's flow (or the one ``device`` asks
    for) and write the token file under its lock; returns the flow used."""
    ends = endpoints(settings)
    flow = ends.flow if device is None else Flow.DEVICE if device else Flow.CODE
    if flow is Flow.DEVICE:
        token = authorize_with_device(settings, say)
    else:
        token = authorize_with_code(settings, say, wait=wait)
    path = Path(settings.token_file)
    try:
        with locked(path):
            store_grant(path, token, {})
    except OSError as exc:
        raise AuthorizeError(f"cannot write the token file {path}: {exc.strerror}") from None
    return flow
