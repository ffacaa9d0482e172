"""A small OAuth2 provider on loopback for the tests: the real HTTP exchanges, over
HTTPS with a self-signed certificate the tests trust through ``REQUESTS_CA_BUNDLE``.

Endpoints (RFC 6749, 7636, 8628, 7662, 7009):

- ``GET /authorize``: redirects to the client's ``redirect_uri`` with a code and the
  state, as a provider does once the user allowed the access (the test is the
  browser and follows the redirect itself);
- ``POST /device``: a device code and a user code; :meth:`Provider.approve` is the
  user entering it;
- ``POST /token``: the ``authorization_code`` grant (PKCE S256 verified), the
  device code grant (``authorization_pending`` until approved) and the
  ``refresh_token`` grant (rotating the refresh token when the client asks so);
  clients authenticate with HTTP Basic or in the body, a wrong secret is
  ``invalid_client``;
- ``POST /introspect``: ``{"active": ..., "username": ...}`` for Dovecot's oauth2 passdb
  and the SMTP listener;
- ``POST /revoke``.

Everything it ever issued (and every client secret) is in :attr:`Provider.secrets`, for
the test that greps the logs for them.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import hashlib
import http.server
import ipaddress
import json
import secrets
import ssl
import threading
import time
import urllib.parse
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 (and its key), valid for a day."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "provider.pem", folder / "provider.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@dataclasses.dataclass
class Client:
    client_id: str
    secret: str | None
    #: The mailbox user its grants are for.
    username: str
    #: Each refresh hands out a new refresh token and retires the old one.
    rotate: bool = False
    #: Access tokens live this many seconds.
    lifetime: int = 3600


@dataclasses.dataclass
class Grant:
    client_id: str
    username: str
    expires_at: float = float("inf")
    active: bool = True


class Provider:
    """The provider's state; ``url`` is its base (``https://127.0.0.1:PORT``)."""

    def __init__(self, folder: Path) -> None:
        self.cert, self.key = self_signed(folder)
        self.clients: dict[str, Client] = {}
        self.refresh_tokens: dict[str, Grant] = {}
        self.access_tokens: dict[str, Grant] = {}
        self.codes: dict[str, tuple[str, str, str]] = {}  # code: client, redirect, challenge
        self.devices: dict[str, dict[str, object]] = {}
        self.secrets: set[str] = set()
        #: (endpoint, grant type or "", client id, outcome) of each request.
        self.requests: list[tuple[str, str, str, str]] = []
        self.lock = threading.Lock()
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.server.provider = self  # type: ignore[attr-defined]
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cert, self.key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.url = f"https://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> Provider:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- what the test does ------------------------------------------------------------

    def register(
        self, username: str, *, secret: bool = True, rotate: bool = False, lifetime: int = 3600
    ) -> Client:
        """A new client whose grants are for ``username``."""
        client = Client(
            f"client-{secrets.token_hex(4)}",
            self._new("cs") if secret else None,
            username,
            rotate,
            lifetime,
        )
        with self.lock:
            self.clients[client.client_id] = client
        return client

    def grant(self, client: Client) -> str:
        """A refresh token for ``client`` as if it had been authorized before."""
        with self.lock:
            token = self._new("rt")
            self.refresh_tokens[token] = Grant(client.client_id, client.username)
        return token

    def expire_access_tokens(self, client: Client) -> int:
        """Every access token of ``client`` expires now; how many there were."""
        with self.lock:
            mine = [g for g in self.access_tokens.values() if g.client_id == client.client_id]
            for g in mine:
                g.expires_at = 0.0
        return len(mine)

    def revoke_all(self, client: Client) -> None:
        """The user withdrew the access: every token of ``client`` is dead."""
        with self.lock:
            for g in [*self.refresh_tokens.values(), *self.access_tokens.values()]:
                if g.client_id == client.client_id:
                    g.active = False

    def approve(self, user_code: str) -> None:
        """The user entered ``user_code`` at the verification URI."""
        with self.lock:
            for device in self.devices.values():
                if device["user_code"] == user_code:
                    device["approved"] = True

    def live(self, token: str, username: str | None = None) -> bool:
        """Whether ``token`` is an access token that works now (for ``username``)."""
        with self.lock:
            g = self.access_tokens.get(token)
            ok = g is not None and g.active and g.expires_at > time.time()
            return ok and (username is None or (g is not None and g.username == username))

    def refresh_token_works(self, token: str) -> bool:
        with self.lock:
            g = self.refresh_tokens.get(token)
            return g is not None and g.active

    def count(
        self, endpoint: str, grant_type: str = "", outcome: str = "ok", client: str = ""
    ) -> int:
        """How many requests to ``endpoint`` (of ``grant_type``, by ``client``) had
        ``outcome``."""
        with self.lock:
            return sum(
                1
                for e, g, c, o in self.requests
                if e == endpoint
                and (not grant_type or g == grant_type)
                and (not client or c == client)
                and o == outcome
            )

    # -- inside ------------------------------------------------------------------------

    def _new(self, kind: str) -> str:
        value = f"{kind}-{secrets.token_urlsafe(24)}"
        self.secrets.add(value)
        return value

    def _access(self, client: Client) -> dict[str, object]:
        token = self._new("at")
        self.access_tokens[token] = Grant(
            client.client_id, client.username, time.time() + client.lifetime
        )
        return {"access_token": token, "token_type": "Bearer", "expires_in": client.lifetime}


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    @property
    def provider(self) -> Provider:
        return self.server.provider  # type: ignore[attr-defined,no-any-return]

    def log_message(self, format: str, *args: object) -> None:
        """Quiet (the test's own output stays readable)."""

    def _reply(self, status: int, body: dict[str, object]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def _form(self) -> dict[str, str] | None:
        """The request's parameters; None when one is given twice (RFC 6749 3.1)."""
        length = int(self.headers.get("Content-Length") or 0)
        text = self.rfile.read(length).decode()
        pairs = urllib.parse.parse_qs(text)
        if any(len(v) > 1 for v in pairs.values()):
            return None
        return {k: v[0] for k, v in pairs.items()}

    def _client(self, form: dict[str, str]) -> Client | None:
        """The authenticated client (HTTP Basic or the body), or None."""
        client_id, secret = form.get("client_id"), form.get("client_secret")
        header = self.headers.get("Authorization", "")
        if header.startswith("Basic "):
            pair = base64.b64decode(header[6:]).decode()
            client_id, _, secret = pair.partition(":")
            client_id = urllib.parse.unquote_plus(client_id)
            secret = urllib.parse.unquote_plus(secret)
        client = self.provider.clients.get(client_id or "")
        if client is None:
            return None
        if client.secret is not None and not (
            secret and secrets.compare_digest(secret, client.secret)
        ):
            return None
        return client

    def do_GET(self) -> None:
        split = urllib.parse.urlsplit(self.path)
        if split.path != "/authorize":
            self._reply(404, {"error": "not_found"})
            return
        q = {k: v[0] for k, v in urllib.parse.parse_qs(split.query).items()}
        p = self.provider
        with p.lock:
            client = p.clients.get(q.get("client_id", ""))
            ok = (
                client is not None
                and q.get("response_type") == "code"
                and q.get("code_challenge_method") == "S256"
                and q.get("code_challenge")
                and q.get("redirect_uri", "").startswith("http://127.0.0.1:")
            )
            p.requests.append(("authorize", "", q.get("client_id", ""), "ok" if ok else "bad"))
            if not ok:
                self._reply(400, {"error": "invalid_request"})
                return
            code = p._new("code")
            p.codes[code] = (q["client_id"], q["redirect_uri"], q["code_challenge"])
        target = q["redirect_uri"] + "?" + urllib.parse.urlencode(
            {"code": code, "state": q.get("state", "")}
        )  # fmt: skip
        self.send_response(302)
        self.send_header("Location", target)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        form = self._form()
        path = urllib.parse.urlsplit(self.path).path
        p = self.provider
        if form is None:
            with p.lock:
                p.requests.append((path.strip("/"), "", "", "repeated-parameter"))
            self._reply(400, {"error": "invalid_request",
                              "error_description": "a parameter is repeated"})  # fmt: skip
            return
        with p.lock:
            if path == "/introspect":
                g = p.access_tokens.get(form.get("token", ""))
                active = g is not None and g.active and g.expires_at > time.time()
                p.requests.append(("introspect", "", "", "ok" if active else "inactive"))
                body: dict[str, object] = {"active": active}
                if active and g is not None:
                    body.update(username=g.username, client_id=g.client_id)
                self._reply(200, body)
                return
            client = self._client(form)
            grant_type = form.get("grant_type", "")
            endpoint = path.strip("/")
            if client is None:
                p.requests.append((endpoint, grant_type, form.get("client_id", ""), "bad-client"))
                self._reply(401, {"error": "invalid_client",
                                  "error_description": "client authentication failed"})  # fmt: skip
                return
            if path == "/revoke":
                for table in (p.refresh_tokens, p.access_tokens):
                    if form.get("token", "") in table:
                        table[form["token"]].active = False
                p.requests.append(("revoke", "", client.client_id, "ok"))
                self._reply(200, {})
                return
            if path == "/device":
                device, user = p._new("dc"), secrets.token_hex(3).upper()
                p.devices[device] = {"client": client.client_id, "user_code": user,
                                     "approved": False}  # fmt: skip
                p.requests.append(("device", "", client.client_id, "ok"))
                self._reply(200, {"device_code": device, "user_code": user,
                                  "verification_uri": f"{p.url}/verify", "interval": 1,
                                  "expires_in": 60})  # fmt: skip
                return
            if path != "/token":
                self._reply(404, {"error": "not_found"})
                return
            status, body = self._token(client, grant_type, form)
            outcome = "ok" if status == 200 else str(body.get("error"))
            p.requests.append(("token", grant_type, client.client_id, outcome))
        self._reply(status, body)

    def _token(
        self, client: Client, grant_type: str, form: dict[str, str]
    ) -> tuple[int, dict[str, object]]:
        p = self.provider
        if grant_type == "refresh_token":
            old = form.get("refresh_token", "")
            g = p.refresh_tokens.get(old)
            if g is None or not g.active or g.client_id != client.client_id:
                return 400, {"error": "invalid_grant", "error_description": "token revoked"}
            body = p._access(client)
            if client.rotate:
                g.active = False
                new = p._new("rt")
                p.refresh_tokens[new] = Grant(client.client_id, client.username)
                body["refresh_token"] = new
            return 200, body
        if grant_type == "authorization_code":
            found = p.codes.pop(form.get("code", ""), None)
            verifier = form.get("code_verifier", "")
            challenge = (
                base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
                .rstrip(b"=")
                .decode()
            )
            if (
                found is None
                or found[0] != client.client_id
                or found[1] != form.get("redirect_uri")
                or found[2] != challenge
            ):
                return 400, {"error": "invalid_grant", "error_description": "bad code"}
            return 200, self._first(client)
        if grant_type == "urn:ietf:params:oauth:grant-type:device_code":
            device = p.devices.get(form.get("device_code", ""))
            if device is None or device["client"] != client.client_id:
                return 400, {"error": "invalid_grant"}
            if not device["approved"]:
                return 400, {"error": "authorization_pending"}
            del p.devices[form["device_code"]]
            return 200, self._first(client)
        return 400, {"error": "unsupported_grant_type"}

    def _first(self, client: Client) -> dict[str, object]:
        p = self.provider
        body = p._access(client)
        token = p._new("rt")
        p.refresh_tokens[token] = Grant(client.client_id, client.username)
        body["refresh_token"] = token
        return body
