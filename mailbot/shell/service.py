"""The daemon as a systemd service: the sd_notify protocol, through the sdnotify package.

When systemd starts the bot with ``Type=notify`` it sets ``NOTIFY_SOCKET``;
the daemon then says READY=1 once it can work, STATUS= with what it is
doing, WATCHDOG=1 from its main loop while the loop turns (at half the
interval ``WATCHDOG_USEC`` asks for, so a stuck loop is restarted), and
STOPPING=1 when it stops. Without ``NOTIFY_SOCKET`` every call does nothing.
The unit file is ``systemd/mailbot.service``.

>>> _watchdog({"WATCHDOG_USEC": "20000000"}), _watchdog({})
(20.0, None)
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping

import sdnotify

log = logging.getLogger(__name__)


class Service:
    """What the daemon tells systemd, as the process environment says (sdnotify reads
    ``NOTIFY_SOCKET`` there); ``clock`` is monotonic seconds."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        environ = os.environ
        self.enabled = bool(environ.get("NOTIFY_SOCKET"))
        self.watchdog_seconds = _watchdog(environ) if self.enabled else None
        self._clock = clock
        self._last_watchdog = float("-inf")
        self._status = ""
        self._notifier: sdnotify.SystemdNotifier | None = None

    def _say(self, state: str) -> None:
        if not self.enabled:
            return
        if self._notifier is None:
            # the socket's address is read from NOTIFY_SOCKET (an '@' is Linux's abstract
            # namespace); a socket that is gone makes every call do nothing
            self._notifier = sdnotify.SystemdNotifier()
        self._notifier.notify(state)

    def ready(self, status: str) -> None:
        """The daemon can work (its database answers); ``status`` says how it stands."""
        self._status = status
        self._say(f"READY=1\nSTATUS={status}")
        self._last_watchdog = self._clock()

    def status(self, status: str) -> None:
        """What the daemon is doing now (sent only when it changes)."""
        if status != self._status:
            self._status = status
            self._say(f"STATUS={status}")

    def alive(self) -> None:
        """The main loop turned: WATCHDOG=1, if half the watchdog's interval has passed."""
        if self.watchdog_seconds is None:
            return
        now = self._clock()
        if now - self._last_watchdog >= self.watchdog_seconds / 2:
            self._last_watchdog = now
            self._say("WATCHDOG=1")

    def stopping(self) -> None:
        """The daemon is stopping (a signal came)."""
        self._say("STOPPING=1\nSTATUS=stopping")

    def wake_within(self, seconds: float) -> float:
        """``seconds``, or less, so that the loop turns in time for the next WATCHDOG.

        >>> Service().wake_within(300)  # no watchdog asked for
        300
        """
        if self.watchdog_seconds is None:
            return seconds
        return min(seconds, self.watchdog_seconds / 4)


def _watchdog(environ: Mapping[str, str]) -> float | None:
    """The watchdog interval systemd asks this process for, in seconds, or None."""
    usec = environ.get("WATCHDOG_USEC", "")
    pid = environ.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    if pid and pid.isdigit() and int(pid) != os.getpid():
        return None  # meant for another process (a parent that started this one)
    return int(usec) / 1_000_000
