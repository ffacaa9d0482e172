"""Order keys: the reply address that proves a director wrote a message.

Every message the bot sends to a tournament director alone (one recipient,
no copy) carries ``Reply-To: bot+o-KEY@domain``, where ``bot@domain`` is the
bot's own address and ``KEY`` a fresh secret (:func:`new_key`). The
director's mail client answers to that address, so the answer shows the key;
nobody else received it. A key carries out the orders of one message, once,
within :data:`KEY_DAYS` days (:class:`mailbot.store.models.OrderKey`): a copy of the
answer sent again, or a forgery that copies the address from a Cc, finds the
key spent.

>>> key = "abcdefghijklmnopqrstuvwxyz"
>>> reply_to("Federation CC <bot@federation.example>", key)
'"Federation CC" <bot+o-abcdefghijklmnopqrstuvwxyz@federation.example>'
>>> key_in(["bot+o-abcdefghijklmnopqrstuvwxyz@federation.example"], "bot@federation.example")
'abcdefghijklmnopqrstuvwxyz'
"""

from __future__ import annotations

import email.utils
import re
import secrets
from collections.abc import Iterable

from mailbot.mail.addresses import normal_address

__all__ = ["KEY_DAYS", "KEY_LENGTH", "key_in", "new_key", "own_address", "reply_to"]

#: How long a key carries out orders.
KEY_DAYS = 30
#: Characters of a key: 26 of base32, 130 bits.
KEY_LENGTH = 26
_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
_TAG = "+o-"
_RE_KEYED = re.compile(rf"^(?P<local>.+)\+o-(?P<key>[a-z2-7]{{{KEY_LENGTH}}})@(?P<domain>[^@]+)$")


def new_key() -> str:
    """A fresh key: 26 lower-case base32 characters from :mod:`secrets`.

    >>> len(new_key()), new_key() == new_key()
    (26, False)
    """
    return "".join(secrets.choice(_ALPHABET) for _ in range(KEY_LENGTH))


def own_address(sender: str) -> str:
    """The bot's bare address in normal form, from the configured ``Name <address>``.

    >>> own_address("Federation CC <Bot@Federation.example>")
    'bot@federation.example'
    """
    return normal_address(email.utils.parseaddr(sender)[1])


def reply_to(sender: str, key: str) -> str:
    """The ``Reply-To`` that carries ``key``: the sender's address with ``+o-KEY`` in its
    local part, under the sender's display name.

    >>> reply_to("bot@federation.example", "k" * 26)
    'bot+o-kkkkkkkkkkkkkkkkkkkkkkkkkk@federation.example'
    >>> reply_to("Федерация <bot@federation.example>", "k" * 26)
    '"Федерация" <bot+o-kkkkkkkkkkkkkkkkkkkkkkkkkk@federation.example>'
    """
    name, address = email.utils.parseaddr(sender)
    local, _, domain = address.rpartition("@")
    keyed = f"{local}{_TAG}{key}@{domain}"
    if not name:
        return keyed
    quoted = name.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{quoted}" <{keyed}>'


def key_in(addresses: Iterable[str], own: str) -> str | None:
    """The first key in ``addresses`` (normal form) given to the bot's address ``own``.

    >>> key_in(["bot+o-" + "k" * 26 + "@evil.example"], "bot@federation.example") is None
    True
    """
    for address in addresses:
        found = _RE_KEYED.match(address)
        if found is not None and f"{found['local']}@{found['domain']}" == own:
            return found["key"]
    return None
