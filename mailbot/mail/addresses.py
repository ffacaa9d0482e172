"""E-mail addresses: one normal form to store and compare, and the forms SMTP needs.

A player may be registered as ``Ivan@Пример.БГ`` and write from
``ivan@xn--e1afmkfd.xn--90ae``: both are the same mailbox. The bot keeps every
address in one normal form (:func:`normal_address`: Unicode NFC, lower case,
the domain in Unicode) and turns it into what the SMTP path can carry only
when sending (:func:`smtp_address`)::

    >>> normal_address("Ivan@XN--E1AFMKFD.XN--90AE")
    'ivan@пример.бг'
    >>> normal_address("ivan@Пример.бг") == normal_address("ivan@xn--e1afmkfd.xn--90ae")
    True
    >>> smtp_address("ivan@пример.бг", smtputf8=False)
    'ivan@xn--e1afmkfd.xn--90ae'
    >>> smtp_address("иван@пример.бг", smtputf8=False)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mailbot.mail.addresses.AddressError: иван@пример.бг: the server cannot carry a non-ASCII ...
"""

from __future__ import annotations

import contextlib
import functools
import re
import unicodedata
from typing import TYPE_CHECKING

import idna

from mailbot.rules.errors import MailError

if TYPE_CHECKING:
    from email_validator import EmailNotValidError

__all__ = [
    "MAX_LENGTH",
    "AddressError",
    "ascii_domain",
    "check_address",
    "normal_address",
    "same_mailbox",
    "smtp_address",
    "without_tag",
]

#: The longest address SMTP carries (RFC 5321: a 64-octet local part, 255 for the path).
MAX_LENGTH = 254

_SPECIAL_USE = "special-use or reserved name"


class AddressError(MailError, ValueError):
    """An address the bot cannot use: not an address, or not carried by the path."""


@functools.lru_cache(maxsize=4096)
def _unicode_domain(domain: str) -> str:
    # a few domains recur in every message (the players', the bot's): IDNA decoding,
    # in pure Python, is worth remembering
    domain = domain.strip().rstrip(".")
    try:
        return str(idna.decode(domain))
    except (idna.IDNAError, UnicodeError, ValueError):
        pass
    labels = []
    for label in domain.split("."):
        if label.lower().startswith("xn--"):
            with contextlib.suppress(UnicodeError, ValueError):
                label = label[4:].encode("ascii").decode("punycode")
        labels.append(label)
    return ".".join(labels)


def normal_address(address: str) -> str:
    """The form in which the bot stores and compares an address (see the module).

    Not a validation: whatever is given comes back trimmed, in NFC and lower
    case, with a punycode domain in Unicode.

    >>> normal_address("  Petar.Petrov@Example.ORG ")
    'petar.petrov@example.org'
    """
    text = unicodedata.normalize("NFC", address.strip().strip("<>").strip())
    local, at, domain = text.rpartition("@")
    if not at:
        return text.lower()
    unicode = unicodedata.normalize("NFC", _unicode_domain(domain))
    if not unicode.isprintable():
        unicode = domain  # punycode that decodes to no text (a lone surrogate): keep it as sent
    return f"{local.lower()}@{unicode.lower()}"


def without_tag(address: str) -> str:
    """The address without a ``+tag`` in its local part.

    >>> without_tag("bot+3f9a@federation.example")
    'bot@federation.example'
    """
    local, at, domain = address.rpartition("@")
    return f"{local.partition('+')[0]}{at}{domain}" if at else address


def same_mailbox(a: str, b: str) -> bool:
    """Whether two addresses name one mailbox (normal form, ``+tags`` ignored).

    >>> same_mailbox("Bot+x@Federation.example", "bot@federation.example")
    True
    """
    return without_tag(normal_address(a)) == without_tag(normal_address(b))


def ascii_domain(domain: str) -> str:
    """The domain as SMTP without SMTPUTF8 carries it (IDNA, punycode).

    >>> ascii_domain("Bücher.de")
    'xn--bcher-kva.de'
    """
    if domain.isascii():
        return domain.lower()
    try:
        return idna.encode(domain, uts46=True).decode("ascii")
    except (idna.IDNAError, UnicodeError, ValueError) as exc:
        raise AddressError(f"{domain}: not a valid domain name ({exc})") from None


def smtp_address(address: str, *, smtputf8: bool) -> str:
    """``address`` as the SMTP path can carry it; :class:`AddressError` if it cannot.

    With SMTPUTF8 the address goes as it is; without it the domain goes in
    punycode, and a non-ASCII local part cannot go at all.

    >>> smtp_address("müller@bücher.de", smtputf8=True)
    'müller@bücher.de'
    """
    if len(address) > MAX_LENGTH or "\n" in address or "\r" in address:
        raise AddressError(f"{address[:60]}...: not an address the path can carry")
    if smtputf8 or address.isascii():
        return address
    local, _, domain = address.rpartition("@")
    if not local.isascii():
        raise AddressError(
            f"{address}: the server cannot carry a non-ASCII mailbox name (no SMTPUTF8)"
        )
    return f"{local}@{ascii_domain(domain)}"


_RE_LABEL = re.compile(r"[^.]+$")


def check_address(address: str, *, special_use: bool = False) -> str:
    """Validate an address and return its normal form; :class:`AddressError` if invalid.

    ``special_use`` lets domains such as ``.local``, ``.internal``, ``.test``
    or ``localhost`` through, for a club whose mail never leaves its network.

    >>> check_address("Ivan@Example.ORG")
    'ivan@example.org'
    >>> check_address("ivan@club.local", special_use=True)
    'ivan@club.local'
    >>> check_address("ivan@club.local")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mailbot.mail.addresses.AddressError: 'ivan@club.local' is not a valid e-mail address: ...
    """
    # loaded here, where an address is checked (a start list, a director's order): the
    # message path, which only reads and writes addresses, starts without its tables
    from email_validator import EmailNotValidError, validate_email

    text = address.strip()
    try:
        checked = validate_email(text, check_deliverability=False)
    except EmailNotValidError as exc:
        local, at, domain = text.rpartition("@")
        if not (special_use and at and (_SPECIAL_USE in str(exc) or "." not in domain)):
            raise AddressError(_explain(text, exc)) from None
        # the domain is a reserved one the club uses: check the rest against a stand-in
        stand_in = _RE_LABEL.sub("example", domain) if "." in domain else f"{domain}.example"
        try:
            validate_email(f"{local}@{stand_in}", check_deliverability=False)
        except EmailNotValidError as again:
            raise AddressError(_explain(text, again)) from None
        return normal_address(text)
    return normal_address(checked.normalized)


def _explain(text: str, exc: EmailNotValidError) -> str:
    reason = str(exc)
    if _SPECIAL_USE in reason:
        reason += " (set policy.special_use_domains: true to allow it)"
    return f"{text!r} is not a valid e-mail address: {reason}"
