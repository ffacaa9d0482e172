"""The WSDL of the bot's Xfcc service (``GET /xfcc?WSDL``), pure.

It describes what :mod:`mailbot.xfcc.soap` reads and writes: the two
operations of ``XfccBasic``, their document/literal messages, and the
``XfccGame`` in the order the service writes its fields.

>>> text = wsdl("https://cc.example.org/xfcc")
>>> 'location="https://cc.example.org/xfcc"' in text, "MakeAMoveResult" in text
(True, True)
"""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

from mailbot.xfcc.soap import NAMESPACE, GameResult, MoveResult

_STRING, _INT, _BOOL, _DATE = "s:string", "s:int", "s:boolean", "s:date"
#: ``XfccGame``'s fields, in order: name, type, may be missing.
GAME_FIELDS = (
    ("id", _INT, False),
    ("event", _STRING, False),
    ("site", _STRING, False),
    ("eventDate", _DATE, True),
    ("round", _STRING, False),
    ("white", _STRING, False),
    ("black", _STRING, False),
    ("whiteElo", _INT, True),
    ("blackElo", _INT, True),
    ("timeControl", _STRING, False),
    ("moves", _STRING, False),
    ("myTurn", _BOOL, False),
    ("hasWhite", _BOOL, False),
    ("drawOffered", _BOOL, False),
    ("daysPlayer", _INT, False),
    ("hoursPlayer", _INT, False),
    ("minutesPlayer", _INT, False),
    ("daysOpponent", _INT, False),
    ("hoursOpponent", _INT, False),
    ("minutesOpponent", _INT, False),
    ("result", "tns:Result", False),
    ("message", _STRING, False),
    ("gameLink", _STRING, False),
)
#: ``MakeAMove``'s parameters, in order.
MOVE_FIELDS = (
    ("username", _STRING),
    ("password", _STRING),
    ("gameId", _INT),
    ("resign", _BOOL),
    ("acceptDraw", _BOOL),
    ("movecount", _INT),
    ("myMove", _STRING),
    ("offerDraw", _BOOL),
    ("claimDraw", _BOOL),
    ("myMessage", _STRING),
)


def _element(name: str, kind: str, optional: bool = False) -> str:
    least = 0 if optional or kind == _STRING else 1
    return f'<s:element minOccurs="{least}" maxOccurs="1" name="{name}" type="{kind}"/>'


def _sequence(name: str, fields: str) -> str:
    return (
        f'<s:element name="{name}"><s:complexType><s:sequence>{fields}'
        "</s:sequence></s:complexType></s:element>"
    )


def _enumeration(name: str, values: list[str]) -> str:
    listed = "".join(f'<s:enumeration value="{v}"/>' for v in values)
    return (
        f'<s:simpleType name="{name}"><s:restriction base="s:string">{listed}'
        "</s:restriction></s:simpleType>"
    )


def _types() -> str:
    game = "".join(_element(n, k, o) for n, k, o in GAME_FIELDS)
    move = "".join(_element(n, k) for n, k in MOVE_FIELDS)
    credentials = _element("username", _STRING) + _element("password", _STRING)
    games = (
        '<s:complexType name="ArrayOfXfccGame"><s:sequence><s:element minOccurs="0"'
        ' maxOccurs="unbounded" name="XfccGame" type="tns:XfccGame"/></s:sequence></s:complexType>'
    )
    return (
        f'<s:schema elementFormDefault="qualified" targetNamespace="{NAMESPACE}">'
        + _sequence("GetMyGames", credentials)
        + _sequence(
            "GetMyGamesResponse",
            '<s:element minOccurs="0" maxOccurs="1" name="GetMyGamesResult"'
            ' type="tns:ArrayOfXfccGame"/>',
        )
        + games
        + f'<s:complexType name="XfccGame"><s:sequence>{game}</s:sequence></s:complexType>'
        + _enumeration("Result", [r.value for r in GameResult])
        + _sequence("MakeAMove", move)
        + _sequence("MakeAMoveResponse", _element("MakeAMoveResult", "tns:MakeAMoveResult"))
        + _enumeration("MakeAMoveResult", [r.value for r in MoveResult])
        + "</s:schema>"
    )


def _operation(name: str, location: str = "") -> str:
    action = f' soapAction="{NAMESPACE}/{name}"' if location else ""
    body = '<soap:body use="literal"/>' if location else ""
    if not location:
        return (
            f'<wsdl:operation name="{name}"><wsdl:input message="tns:{name}SoapIn"/>'
            f'<wsdl:output message="tns:{name}SoapOut"/></wsdl:operation>'
        )
    return (
        f'<wsdl:operation name="{name}"><soap:operation{action} style="document"/>'
        f"<wsdl:input>{body}</wsdl:input><wsdl:output>{body}</wsdl:output></wsdl:operation>"
    )


def wsdl(location: str) -> str:
    """The WSDL, with the service at ``location`` (the public URL players are told)."""
    messages = "".join(
        f'<wsdl:message name="{op}SoapIn"><wsdl:part name="parameters" element="tns:{op}"/>'
        f'</wsdl:message><wsdl:message name="{op}SoapOut"><wsdl:part name="parameters"'
        f' element="tns:{op}Response"/></wsdl:message>'
        for op in ("GetMyGames", "MakeAMove")
    )
    operations = "".join(_operation(op) for op in ("GetMyGames", "MakeAMove"))
    bound = "".join(_operation(op, location) for op in ("GetMyGames", "MakeAMove"))
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<wsdl:definitions xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"'
        ' xmlns:s="http://www.w3.org/2001/XMLSchema"'
        ' xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/"'
        f' xmlns:tns="{NAMESPACE}" targetNamespace="{NAMESPACE}">'
        f"<wsdl:types>{_types()}</wsdl:types>{messages}"
        f'<wsdl:portType name="XfccBasicSoap">{operations}</wsdl:portType>'
        '<wsdl:binding name="XfccBasicSoap" type="tns:XfccBasicSoap">'
        '<soap:binding transport="http://schemas.xmlsoap.org/soap/http"/>'
        f"{bound}</wsdl:binding>"
        '<wsdl:service name="XfccBasic">'
        '<wsdl:port name="XfccBasicSoap" binding="tns:XfccBasicSoap">'
        f"<soap:address location={quoteattr(location)}/></wsdl:port></wsdl:service>"
        "</wsdl:definitions>"
    )
