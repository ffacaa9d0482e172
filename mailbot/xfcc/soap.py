"""The SOAP of Xfcc, pure: a request's body read into a typed value, the replies
written as the reference server lays them out, and the WSDL.

Scid reads the replies with patterns, not with an XML parser, so their layout
is part of the contract (docs/contract.md, "Players' chess programs"): the
response element carries its namespace as its only attribute, and everything
inside it is unprefixed; a refused ``GetMyGames`` is a ``<soap:Fault>`` whose
``faultstring`` is ``AuthenticationFailed``. Clients may send no
``SOAPAction``: the operation is the body's first element. Booleans arrive as
``true``/``false`` or ``1``/``0``.

>>> body = (b'<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">'
...         b'<soap:Body><GetMyGames xmlns="http://www.bennedik.com/webservices/XfccBasic">'
...         b'<username>ann@example.org</username><password>pw</password>'
...         b'</GetMyGames></soap:Body></soap:Envelope>')
>>> read_request(body)
GetMyGames(username='ann@example.org')
>>> "<MakeAMoveResult>NotYourTurn</MakeAMoveResult>" in move_reply(MoveResult.NOT_YOUR_TURN)
True
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from xml.parsers import expat
from xml.sax.saxutils import escape

from mailbot.rules.errors import MailbotError

#: The namespace of XfccBasic.
NAMESPACE = "http://www.bennedik.com/webservices/XfccBasic"
ENVELOPE = "http://schemas.xmlsoap.org/soap/envelope/"
#: The largest request read (a move with a message fits in a few kilobytes).
MAX_REQUEST = 64 * 1024
#: The longest ``myMessage`` kept (longer is cut).
MAX_MESSAGE = 4000


class RequestError(MailbotError, ValueError):
    """A request that is no Xfcc request: answered with a ``soap:Client`` fault."""


class MoveResult(enum.Enum):
    """What became of a ``MakeAMove`` (the values are the wire's)."""

    SUCCESS = "Success"
    INVALID_MOVE = "InvalidMove"
    NOT_YOUR_TURN = "NotYourTurn"
    INVALID_MOVE_NUMBER = "InvalidMoveNumber"
    NOT_YOUR_GAME = "NotYourGame"
    INVALID_GAME_ID = "InvalidGameID"
    AUTHENTICATION_FAILED = "AuthenticationFailed"
    NO_DRAW_WAS_OFFERED = "NoDrawWasOffered"
    YOU_ARE_ON_LEAVE = "YouAreOnLeave"
    LOST_ON_TIME = "LostOnTime"
    SERVER_ERROR = "ServerError"


class GameResult(enum.Enum):
    """A game's result as Xfcc names it."""

    ONGOING = "Ongoing"
    WHITE_WINS = "WhiteWins"
    BLACK_WINS = "BlackWins"
    DRAW = "Draw"
    WHITE_DEFAULTED = "WhiteDefaulted"
    BLACK_DEFAULTED = "BlackDefaulted"
    BOTH_DEFAULTED = "BothDefaulted"
    CANCELLED = "Cancelled"


@dataclasses.dataclass(frozen=True)
class GetMyGames:
    """``GetMyGames(username, password)``; the password is left out of ``repr``."""

    username: str
    password: str = dataclasses.field(repr=False, default="")


@dataclasses.dataclass(frozen=True)
class MakeAMove:
    """``MakeAMove(...)``; the password is left out of ``repr``."""

    username: str
    password: str = dataclasses.field(repr=False)
    game_id: int
    movecount: int
    move: str
    message: str = ""
    resign: bool = False
    accept_draw: bool = False
    offer_draw: bool = False
    claim_draw: bool = False


Request = GetMyGames | MakeAMove


@dataclasses.dataclass(frozen=True)
class Clock:
    """Time left to the next control, as Xfcc counts it."""

    days: int
    hours: int
    minutes: int

    @classmethod
    def of(cls, left: datetime.timedelta) -> Clock:
        """The whole minutes of ``left`` (nought when it is past).

        >>> Clock.of(datetime.timedelta(days=3, hours=5, minutes=7, seconds=59))
        Clock(days=3, hours=5, minutes=7)
        """
        minutes = max(0, int(left.total_seconds()) // 60)
        return cls(minutes // 1440, minutes // 60 % 24, minutes % 60)


@dataclasses.dataclass(frozen=True)
class XfccGame:
    """One game of ``GetMyGames``, in the order of the WSDL's ``XfccGame``."""

    id: int
    event: str
    site: str
    event_date: datetime.date | None
    round: str
    white: str
    black: str
    white_elo: int | None
    black_elo: int | None
    time_control: str
    moves: str
    my_turn: bool
    has_white: bool
    draw_offered: bool
    player: Clock
    opponent: Clock
    result: GameResult
    message: str = ""
    game_link: str = ""


# ---------------------------------------------------------------------------
# Reading


def read_request(body: bytes) -> Request:
    """The request in a SOAP envelope's body; :class:`RequestError` when it is none.

    Hostile input is refused before it is parsed: more than :data:`MAX_REQUEST`
    bytes, or a document type (where entities would be declared).
    """
    if len(body) > MAX_REQUEST:
        raise RequestError(f"the request is over {MAX_REQUEST} bytes")
    _refuse_document_type(body)
    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        raise RequestError(f"not XML: {exc}") from None
    found = next((e for e in root.iter() if _local(e.tag) == "Body"), None)
    operation = next(iter(found), None) if found is not None else None
    if operation is None:
        raise RequestError("no SOAP body")
    fields = {_local(child.tag): (child.text or "").strip() for child in operation}
    name = _local(operation.tag)
    if name == "GetMyGames":
        return GetMyGames(fields.get("username", ""), fields.get("password", ""))
    if name == "MakeAMove":
        return MakeAMove(
            username=fields.get("username", ""),
            password=fields.get("password", ""),
            game_id=_number(fields, "gameId"),
            movecount=_number(fields, "movecount"),
            move=fields.get("myMove", ""),
            message=fields.get("myMessage", "")[:MAX_MESSAGE],
            resign=_flag(fields, "resign"),
            accept_draw=_flag(fields, "acceptDraw"),
            offer_draw=_flag(fields, "offerDraw"),
            claim_draw=_flag(fields, "claimDraw"),
        )
    raise RequestError(f"unknown operation {name[:40]!r}")


def _refuse_document_type(body: bytes) -> None:
    """:class:`RequestError` for a document type (where entities would be declared),
    read by the XML parser itself, in whatever encoding the body declares."""

    def refuse(*_: object) -> None:
        raise RequestError("a document type is not accepted")

    scan = expat.ParserCreate()
    scan.StartDoctypeDeclHandler = refuse
    scan.EntityDeclHandler = refuse
    try:
        scan.Parse(body, True)
    except expat.ExpatError as exc:
        raise RequestError(f"not XML: {exc}") from None


def _local(tag: str) -> str:
    """``{namespace}name`` without its namespace."""
    return tag.rpartition("}")[2]


def _number(fields: dict[str, str], name: str) -> int:
    value = fields.get(name, "")
    if not re.fullmatch(r"-?[0-9]{1,9}", value):
        raise RequestError(f"{name} must be a whole number")
    return int(value)


def _flag(fields: dict[str, str], name: str) -> bool:
    value = fields.get(name, "false").lower()
    if value not in {"true", "false", "1", "0", ""}:
        raise RequestError(f"{name} must be true or false")
    return value in {"true", "1"}


# ---------------------------------------------------------------------------
# Writing

_HEAD = (
    '<?xml version="1.0" encoding="utf-8"?>\n'
    '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"'
    ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    ' xmlns:xsd="http://www.w3.org/2001/XMLSchema">'
    "<soap:Body>"
)
_TAIL = "</soap:Body></soap:Envelope>"


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _game(game: XfccGame) -> str:
    fields: list[tuple[str, str | None]] = [
        ("id", str(game.id)),
        ("event", game.event),
        ("site", game.site),
        ("eventDate", game.event_date.isoformat() if game.event_date else None),
        ("round", game.round),
        ("white", game.white),
        ("black", game.black),
        ("whiteElo", None if game.white_elo is None else str(game.white_elo)),
        ("blackElo", None if game.black_elo is None else str(game.black_elo)),
        ("timeControl", game.time_control),
        ("moves", game.moves),
        ("myTurn", _bool(game.my_turn)),
        ("hasWhite", _bool(game.has_white)),
        ("drawOffered", _bool(game.draw_offered)),
        ("daysPlayer", str(game.player.days)),
        ("hoursPlayer", str(game.player.hours)),
        ("minutesPlayer", str(game.player.minutes)),
        ("daysOpponent", str(game.opponent.days)),
        ("hoursOpponent", str(game.opponent.hours)),
        ("minutesOpponent", str(game.opponent.minutes)),
        ("result", game.result.value),
        ("message", game.message),
        ("gameLink", game.game_link),
    ]
    inner = "".join(f"<{k}>{escape(v)}</{k}>" for k, v in fields if v is not None)
    return f"<XfccGame>{inner}</XfccGame>"


def games_reply(games: Sequence[XfccGame]) -> str:
    """The answer to ``GetMyGames``."""
    listed = "".join(_game(g) for g in games)
    return (
        f'{_HEAD}<GetMyGamesResponse xmlns="{NAMESPACE}">'
        f"<GetMyGamesResult>{listed}</GetMyGamesResult>"
        f"</GetMyGamesResponse>{_TAIL}"
    )


def move_reply(result: MoveResult) -> str:
    """The answer to ``MakeAMove``."""
    return (
        f'{_HEAD}<MakeAMoveResponse xmlns="{NAMESPACE}">'
        f"<MakeAMoveResult>{result.value}</MakeAMoveResult>"
        f"</MakeAMoveResponse>{_TAIL}"
    )


def fault(string: str, code: str = "soap:Server") -> str:
    """A SOAP fault (``AuthenticationFailed`` for a refused ``GetMyGames``)."""
    return (
        f"{_HEAD}<soap:Fault><faultcode>{escape(code)}</faultcode>"
        f"<faultstring>{escape(string)}</faultstring></soap:Fault>{_TAIL}"
    )
