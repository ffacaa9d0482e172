"""Storable text: the bounds that keep every value of a letter fit for the database.

>>> storable("e2-e4\\x00", MAX_TEXT)
'e2-e4'
"""

from __future__ import annotations

import re

__all__ = [
    "MAX_ADDRESS",
    "MAX_HEADER",
    "MAX_MESSAGE_ID",
    "MAX_QUOTE",
    "MAX_READ",
    "MAX_REFERENCES",
    "MAX_SUBJECT",
    "MAX_TEXT",
    "storable",
]

_RE_UNSTORABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")

#: Bounds that keep every value of a letter storable.
MAX_TEXT = 1 << 20
MAX_SUBJECT = 2000
MAX_HEADER = 4000
MAX_ADDRESS = 254
MAX_MESSAGE_ID = 998
MAX_REFERENCES = 20
#: Quotes nested deeper than this are marked as this deep.
MAX_QUOTE = 20
#: Moves and command words are read from the first this-many characters of a
#: message's new text (a whole game copied in long notation with comments is
#: a few kilobytes), so reading a message is bounded whatever its size.
MAX_READ = 20_000


def storable(value: str, limit: int) -> str:
    """Text as the database can keep it: no NUL or other control characters, bounded.

    >>> storable("a\\x00b\\x07c", 10)
    'abc'
    """
    if _RE_UNSTORABLE.search(value):
        value = _RE_UNSTORABLE.sub("", value)
    return value[:limit]
