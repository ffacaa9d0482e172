"""Which function tells each kind of event: the families register their tellers here.

A family module (``moves``, ``claims``, ``leave``…) has one function per event
class it tells, marked with :func:`tells`; the
:class:`~mailbot.compose.notifier.Notifier` hands each event to its teller::

    @tells(ev.DrawOffered)
    def draw_offered(n: Notifier, e: ev.DrawOffered) -> None: ...

Adding an event is one such function in one family module, and its templates.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from mailbot.rules import events as ev

if TYPE_CHECKING:
    from mailbot.compose.notifier import Notifier

__all__ = ["TELLERS", "tells"]

E = TypeVar("E", bound=ev.Event)

#: The teller of each event class, filled as the family modules are imported.
TELLERS: dict[type[ev.Event], Callable[[Notifier, Any], None]] = {}


def tells(
    kind: type[E],
) -> Callable[[Callable[[Notifier, E], None]], Callable[[Notifier, E], None]]:
    """Register the decorated function as the teller of events of class ``kind``.

    >>> @tells(ev.Event)
    ... def nothing(n, e): pass
    >>> TELLERS.pop(ev.Event) is nothing
    True
    """

    def register(teller: Callable[[Notifier, E], None]) -> Callable[[Notifier, E], None]:
        if kind in TELLERS:
            raise ValueError(f"{kind.__name__} is told already by {TELLERS[kind].__name__}")
        TELLERS[kind] = teller
        return teller

    return register
