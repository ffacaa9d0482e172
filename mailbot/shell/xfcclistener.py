"""The daemon's Xfcc listener: ``POST /xfcc`` (the SOAP operations) and
``GET /xfcc?WSDL``, on ``xfcc.listen``, in threads of its own.

Each request is logged in before anything else (:mod:`mailbot.store.xfccpasswords`:
a refused login counts toward the lockout; a paused address is refused like
a wrong password). Its outcome is a log line and the ``xfcc`` heartbeat that
``mailbot health`` reads; a password never reaches either. The service is
plain HTTP: the federation's TLS proxy stands in front of it (docs/operators.md).
"""

from __future__ import annotations

import datetime
import logging
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from sqlalchemy.orm import Session, sessionmaker

from mailbot.config import Config, parse_listen
from mailbot.desk.notes import short
from mailbot.desk.pipeline import Desk
from mailbot.mail.addresses import normal_address
from mailbot.mail.postman import Postman
from mailbot.shell.courier import deliver_unless_busy
from mailbot.shell.health import XFCC, beat
from mailbot.store.xfccpasswords import Login, log_in
from mailbot.xfcc import soap
from mailbot.xfcc.gamelist import games_of
from mailbot.xfcc.makemove import make_a_move
from mailbot.xfcc.wsdl import wsdl

log = logging.getLogger(__name__)

#: The service's path.
PATH = "/xfcc"
#: The heartbeat of the last request answered (``mailbot health`` reads it).
HEARTBEAT = XFCC


class XfccService:
    """What answers a request: the store, the desk, the clock and the public URL."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        desk: Desk,
        clock: Callable[[], datetime.datetime],
        public_url: str,
        site_url: str | None = None,
        send: Callable[[], None] = lambda: None,
    ) -> None:
        self.sessions = sessions
        self.desk = desk
        self.clock = clock
        self.public_url = public_url
        self.site_url = site_url
        #: Sends what a move put in the outbox.
        self.send = send

    def answer(self, body: bytes) -> tuple[int, str, bool]:
        """The HTTP status and the SOAP reply to the request ``body``, and whether a move
        put mail in the outbox: the caller sends it (:attr:`send`) once the client has
        its reply, so a slow mail server never holds a chess program's request."""
        try:
            request = soap.read_request(body)
        except soap.RequestError as exc:
            log.info("xfcc: a request refused: %s", short(str(exc), 120))
            return HTTPStatus.BAD_REQUEST, soap.fault(str(exc), "soap:Client"), False
        now = self.clock()
        address = normal_address(request.username)
        with self.sessions() as session, session.begin():
            login = log_in(session, address, request.password, now)
        if login is not Login.ACCEPTED:
            self._beat(f"{type(request).__name__} {address}: login {login.value}")
            log.warning("xfcc: %s from %s: login %s", type(request).__name__, short(address),
                        login.value)  # fmt: skip
            if isinstance(request, soap.MakeAMove):
                return HTTPStatus.OK, soap.move_reply(soap.MoveResult.AUTHENTICATION_FAILED), False
            return HTTPStatus.INTERNAL_SERVER_ERROR, soap.fault("AuthenticationFailed"), False
        if isinstance(request, soap.GetMyGames):
            with self.sessions() as session:
                games = games_of(session, address, now, self.site_url)
            said = f"GetMyGames {address}: {len(games)} games"
            reply = soap.games_reply(games)
            moved = False
        else:
            result = make_a_move(self.sessions, self.desk, address, request, now)
            said = (
                f"MakeAMove {address} game {request.game_id} {request.move[:20]!r}: {result.value}"
            )
            reply = soap.move_reply(result)
            moved = True
        self._beat(said)
        log.info("xfcc: %s", short(said, 200))
        return HTTPStatus.OK, reply, moved

    def _beat(self, said: str) -> None:
        """The heartbeat of this request, which ``mailbot health`` shows."""
        beat(self.sessions, HEARTBEAT, short(said, 200))


def _handler(service: XfccService) -> type[BaseHTTPRequestHandler]:
    class XfccHandler(BaseHTTPRequestHandler):
        server_version = "mailbot-xfcc"
        #: A client that sends less than it announced is dropped after this many
        #: seconds, not waited for by a thread of the listener's for ever.
        timeout = 30

        def log_message(self, format: str, *args: object) -> None:
            log.debug("xfcc http: " + format, *args)

        def _send(self, status: int, text: str, kind: str = "text/xml; charset=utf-8") -> None:
            data = text.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            path, _, query = self.path.partition("?")
            if path.rstrip("/") == PATH and query.lower() == "wsdl":
                self._send(HTTPStatus.OK, wsdl(service.public_url))
            else:
                self._send(HTTPStatus.NOT_FOUND, "not found\n", "text/plain")

        def do_POST(self) -> None:
            if self.path.partition("?")[0].rstrip("/") != PATH:
                self._send(HTTPStatus.NOT_FOUND, "not found\n", "text/plain")
                return
            announced = (self.headers.get("Content-Length") or "0").strip()
            if not (announced.isascii() and announced.isdigit()):
                self._send(HTTPStatus.BAD_REQUEST, soap.fault("no length", "soap:Client"))
                return
            if len(announced) > 9 or int(announced) > soap.MAX_REQUEST:
                self._send(
                    HTTPStatus.REQUEST_ENTITY_TOO_LARGE, soap.fault("too large", "soap:Client")
                )
                return
            moved = False
            try:
                status, reply, moved = service.answer(self.rfile.read(int(announced)))
            except Exception as exc:
                log.error("xfcc: %s: %s", type(exc).__name__, short(str(exc), 300))
                status, reply = HTTPStatus.INTERNAL_SERVER_ERROR, soap.fault("ServerError")
            self._send(status, reply)
            if moved:  # the client has its reply (its length told): now the mail
                self.wfile.flush()
                service.send()

    return XfccHandler


class Listener:
    """The running listener (:func:`listen`)."""

    def __init__(self, server: ThreadingHTTPServer, thread: threading.Thread) -> None:
        self.server = server
        self.thread = thread

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


def start(
    config: Config,
    sessions: sessionmaker[Session],
    desk: Desk,
    clock: Callable[[], datetime.datetime],
) -> Listener | None:
    """The daemon's listener, if ``xfcc:`` is configured; a port that cannot be had
    is one line, and the bot works on without Xfcc. The mail a move causes (the
    opponent's move mail) is sent at once, by a postman of the listener's own, or
    with the daemon's pass when one is sending (its courier is another process)."""
    url, listen_at = config.xfcc.url, config.xfcc.listen
    if url is None or listen_at is None:
        return None
    postman = Postman(config.smtp)

    def send() -> None:
        try:
            delivery = deliver_unless_busy(config, sessions, postman, clock())
        except Exception as exc:  # the daemon's next pass sends it
            log.warning("xfcc: outbox: %s: %s", type(exc).__name__, short(str(exc), 200))
            return
        if delivery is not None and delivery.sent:
            log.info("outbox: %s", delivery.line())

    service = XfccService(sessions, desk, clock, url, config.xfcc.site_url, send)
    try:
        return listen(listen_at, service)
    except OSError as exc:
        log.error("xfcc: cannot listen on %s (%s); no Xfcc served", listen_at, exc)
        return None


def listen(address: str, service: XfccService) -> Listener:
    """Serve Xfcc at ``address`` (``host:port``) in a thread of its own."""
    host, port = parse_listen(address)
    server = ThreadingHTTPServer((host, port), _handler(service))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="xfcc", daemon=True)
    thread.start()
    log.info("xfcc at http://%s:%s%s", host, server.server_address[1], PATH)
    return Listener(server, thread)
