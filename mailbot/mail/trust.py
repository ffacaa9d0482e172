"""Whom a message may be taken to come from: the From field and the receiving server's verdict.

``From:`` proves nothing by itself. The bot believes it only as far as the
receiving server vouches for it in its own ``Authentication-Results`` header
(RFC 8601), which that server adds on top of the message. So only the
*topmost* header carrying the configured authserv-id is read; a DMARC pass
counts only as the ``dmarc`` method's own result, for a ``header.from`` that
is the From address's domain::

    >>> header = "mx.fed.example; spf=pass smtp.mailfrom=dmarc=pass@evil.example"
    >>> dmarc_verdict([header], "mx.fed.example", "fed.example")
    <Dmarc.NONE: 'none'>
    >>> header = "mx.fed.example; dkim=pass; dmarc=pass header.from=fed.example"
    >>> dmarc_verdict([header], "mx.fed.example", "fed.example")
    <Dmarc.PASS: 'pass'>
    >>> dmarc_verdict([header], "mx.fed.example", "evil.example")
    <Dmarc.NONE: 'none'>

A From field that names several addresses, or hides an address in its
display name, is refused outright (:func:`sender_problem`).
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Sequence

from mailbot.mail.addresses import normal_address

__all__ = ["Dmarc", "Resinfo", "SenderProblem", "dmarc_verdict", "read_results", "sender_problem"]


class Dmarc(enum.Enum):
    """The receiving server's DMARC verdict on the From domain."""

    PASS = "pass"
    FAIL = "fail"
    #: No verdict for this From domain from the trusted server.
    NONE = "none"


@dataclasses.dataclass(frozen=True)
class Resinfo:
    """One result of an ``Authentication-Results`` header: ``dmarc=pass header.from=x``."""

    method: str
    result: str
    properties: tuple[tuple[str, str], ...] = ()

    def prop(self, name: str) -> str | None:
        """The value of the property ``name`` (``header.from``), or None."""
        return next((v for k, v in self.properties if k == name), None)


def _without_comments(text: str) -> str:
    """The header text without RFC 5322 comments (nested parentheses), quotes kept."""
    out: list[str] = []
    depth = 0
    quoted = False
    escaped = False
    for char in text:
        if escaped:
            escaped = False
            if depth == 0:
                out.append(char)
            continue
        if char == "\\":
            escaped = True
            if depth == 0:
                out.append(char)
            continue
        if quoted:
            out.append(char)
            if char == '"':
                quoted = False
            continue
        if char == "(":
            depth += 1
            continue
        if char == ")" and depth:
            depth -= 1
            out.append(" ")
            continue
        if depth:
            continue
        if char == '"':
            quoted = True
        out.append(char)
    return "".join(out)


def _split(text: str, separator: str) -> list[str]:
    """Split on ``separator`` outside quoted strings (``\\"`` inside one is a quote).

    >>> _split('a; b="x\\\\";y"; c', ";")
    ['a', ' b="x\\\\";y"', ' c']
    """
    parts: list[str] = []
    current: list[str] = []
    quoted = False
    escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\" and quoted:
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char == separator and not quoted:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return parts


_RE_TOKEN = re.compile(r'\s*([^\s=]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s]*)')


def read_results(header: str) -> tuple[str, list[Resinfo]]:
    """The authserv-id of an ``Authentication-Results`` value and its results.

    >>> server, results = read_results(
    ...     "mx.example (v=1); dmarc=pass (p=reject) header.from=example.org; spf=none")
    >>> server, [(r.method, r.result, r.prop("header.from")) for r in results]
    ('mx.example', [('dmarc', 'pass', 'example.org'), ('spf', 'none', None)])
    """
    parts = _split(_without_comments(header), ";")
    head = parts[0].split()
    server = head[0].lower() if head else ""
    results: list[Resinfo] = []
    for part in parts[1:]:
        tokens = [(m.group(1).lower(), m.group(2).strip('"')) for m in _RE_TOKEN.finditer(part)]
        if not tokens:
            continue
        method, result = tokens[0]
        results.append(Resinfo(method.partition("/")[0], result.lower(), tuple(tokens[1:])))
    return server, results


def dmarc_verdict(headers: Sequence[str], authserv_id: str, from_domain: str) -> Dmarc:
    """The DMARC verdict of the trusted server on ``from_domain`` (see the module).

    ``headers`` are the ``Authentication-Results`` values in header order,
    the topmost first. A lower header is never read, even when the topmost one
    has no DMARC result: the sender may have written it.

    >>> forged = ["mx.f.example; spf=pass", "mx.f.example; dmarc=pass header.from=f.example"]
    >>> dmarc_verdict(forged, "mx.f.example", "f.example")
    <Dmarc.NONE: 'none'>
    """
    wanted = authserv_id.strip().lower()
    domain = normal_address(f"x@{from_domain}").partition("@")[2]
    for header in headers:
        server, results = read_results(header)
        if server != wanted:
            continue
        verdict = Dmarc.NONE
        for result in results:
            if result.method != "dmarc":
                continue
            checked = result.prop("header.from")
            if checked is None or normal_address(f"x@{checked}").partition("@")[2] != domain:
                continue
            if result.result == "pass":
                verdict = Dmarc.PASS
            elif result.result == "fail":
                return Dmarc.FAIL
        return verdict
    return Dmarc.NONE


_RE_ADDRESS_LIKE = re.compile(r"[^\s<>\"'()@,;:]+@[^\s<>\"'()@,;:]+\.[^\s<>\"'()@,;:]+")


class SenderProblem(enum.StrEnum):
    """Why a From names no sender (the value in English; the reason code is the name,
    ``reason.several-from-fields`` for :attr:`SEVERAL_FROM_FIELDS`)."""

    SEVERAL_FROM_FIELDS = "the message has several From fields"
    SEVERAL_ADDRESSES = "the From field names several addresses"
    NO_ADDRESS = "no sender address"
    NAME_HOLDS_ADDRESS = "the sender name holds another address"

    @property
    def code(self) -> str:
        """``several-from-fields``: the reason is the phrase ``reason.<code>``."""
        return self.name.lower().replace("_", "-")


def sender_problem(senders: Sequence[tuple[str, str]], fields: int) -> SenderProblem | None:
    """Why the From of a message cannot name its sender, or None.

    ``senders`` are the (decoded display name, address) pairs read from every
    ``From:`` field, of which the message has ``fields``.

    >>> sender_problem([("Ivan", "ivan@example.org")], 1) is None
    True
    >>> sender_problem([("ivan@example.org", "ivan@example.org")], 1) is None
    True
    >>> str(sender_problem([("", "td@fed.example"), ("", "eve@evil.example")], 1))
    'the From field names several addresses'
    >>> sender_problem([("td@fed.example", "eve@evil.example")], 1).code
    'name-holds-address'
    """
    if fields > 1:
        return SenderProblem.SEVERAL_FROM_FIELDS
    pairs = [(n, a) for n, a in senders if a or n.strip()]
    if len(pairs) > 1:
        return SenderProblem.SEVERAL_ADDRESSES
    if not pairs or not pairs[0][1]:
        return SenderProblem.NO_ADDRESS
    name, address = pairs[0]
    own = normal_address(address)
    for found in _RE_ADDRESS_LIKE.findall(name):
        if normal_address(found) != own:
            return SenderProblem.NAME_HOLDS_ADDRESS
    return None
