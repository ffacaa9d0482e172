"""The courier: a second process that sends the outbox while a pass reads a backlog.

A pass hands the inbox to the desk fifty messages to a transaction, and each
batch's answers are committed with it. Without a courier they wait in the
outbox until the pass has handled its last message; with one, they go out as
soon as their batch is committed, from a process of its own (on the
machine's other core), while the desk handles the next batch. The courier
sends as a pass does (:func:`deliver`: rows marked sent 25 to a transaction,
row locks on PostgreSQL), and the pass waits for it to finish before it
sends what is left, so no message goes twice.

A pass starts a courier only for a backlog of more than one batch, and only
on a database another process can open (not SQLite in memory):

>>> shareable("sqlite:////var/lib/mailbot/mailbot.db"), shareable("sqlite://")
(True, False)
>>> shareable("postgresql+psycopg://bot@db/cc")
True

A pass that runs alone in its process (``poll --once``: no thread beside the
main one) forks the courier, which then has every module it needs loaded
already; a pass with threads (the daemon's) spawns a new interpreter, since a
fork copies another thread's locks as they stand. Before a fork the pass
closes its idle database connections, so the child shares no connection
(SQLite's locks are kept per process, and a connection must not cross a fork):

>>> start_method(threads=1, platform="linux"), start_method(threads=3, platform="linux")
('fork', 'spawn')

If the pass dies, the courier sees its pipe close and stops after the
message in hand; if the courier dies, the pass sends what it left. A stop
signal (SIGTERM, which systemd sends to every process of the service) does
the same: the message in hand is finished and marked sent, the marks are
committed, and the courier ends; a server that keeps the message in hand
from finishing within :data:`GRACE` seconds ends it as a crash would (the
marks not committed are rolled back, and those messages go again, each the
same message as before: the same Message-ID and return path).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import logging
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Literal

from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.orm import Session, sessionmaker

from mailbot.config import Config
from mailbot.mail.postman import Postman
from mailbot.shell.delivery import Delivery, GiveUp, deliver_due
from mailbot.shell.logs import child_handler, set_level
from mailbot.store.engine import make_engine, session_factory
from mailbot.store.models import Outbox

log = logging.getLogger(__name__)

#: How long an idle courier waits for the next batch before it looks at the outbox
#: again. The pass says when a batch is committed, and the courier looks at once; until
#: then the outbox holds nothing new for it, so looking sooner would only ask the
#: database the same question again (a pass of many batches asked it every 50 ms).
IDLE = 1.0
#: How often an idle courier looks whether a stop signal came.
TICK = 0.05
#: Told to stop, the courier ends within this many seconds, cleanly if it can.
GRACE = 3.0
#: The signals a courier holds back until it has its handlers.
_STOPS = frozenset({signal.SIGINT, signal.SIGTERM})
#: One delivery at a time in a process: the daemon's loop and its Xfcc listener both
#: send, and on SQLite the outbox's row locks do not keep two senders apart.
_SENDING = threading.Lock()


def deliver(
    config: Config,
    sessions: sessionmaker[Session],
    postman: Postman,
    now: datetime.datetime,
    stopping: Callable[[], bool] = lambda: False,
) -> Delivery:
    """Send what the outbox has due; a message given up is reported to its director.

    Each message's return path names its row on ``bounce_address`` (when set; else on
    the sender's address), so a delivery report that comes back later is matched to it.
    """
    with _SENDING:
        return _deliver_due(config, sessions, postman, now, stopping)


def deliver_unless_busy(
    config: Config, sessions: sessionmaker[Session], postman: Postman, now: datetime.datetime
) -> Delivery | None:
    """:func:`deliver`, or None at once when this process already sends: another
    delivery, or a pass whose courier (another process, which no lock of SQLite's
    keeps apart from this one) is at work. What is due then goes with theirs: the
    pass delivers once its courier has ended."""
    if not _SENDING.acquire(blocking=False):
        return None
    try:
        return _deliver_due(config, sessions, postman, now, lambda: False)
    finally:
        _SENDING.release()


def alone_with_courier() -> threading.Lock:
    """Held by a pass while its courier lives, so that nothing else of this process
    sends meanwhile (:func:`deliver_unless_busy` stands aside).

    >>> with alone_with_courier():
    ...     pass
    """
    return _SENDING


def _deliver_due(
    config: Config,
    sessions: sessionmaker[Session],
    postman: Postman,
    now: datetime.datetime,
    stopping: Callable[[], bool],
) -> Delivery:
    return deliver_due(
        sessions,
        postman,
        now,
        on_give_up=_tell_director(config.smtp.sender),
        stopping=stopping,
        bounce_address=config.bounce_address,
    )


def _tell_director(sender: str) -> GiveUp:
    """:func:`~mailbot.compose.notifier.tell_director_undeliverable`, its module read
    when a message is given up: a courier's process starts without the composers
    and their templates, a third of what it read before its first message."""

    def tell(session: Session, row: Outbox, now: datetime.datetime) -> None:
        from mailbot.compose.notifier import tell_director_undeliverable

        tell_director_undeliverable(sender)(session, row, now)

    return tell


def shareable(url: str | URL) -> bool:
    """Whether a courier (another process) can open the database ``url``."""
    parsed = make_url(url)
    in_memory = parsed.get_backend_name() == "sqlite" and (
        parsed.database in (None, "", ":memory:") or parsed.query.get("mode") == "memory"
    )
    return not in_memory


def start_method(threads: int, platform: str = sys.platform) -> Literal["fork", "spawn"]:
    """How a courier's process starts (:mod:`multiprocessing`): ``fork`` from a pass
    with no thread beside its main one, on Linux; else ``spawn``."""
    return "fork" if threads == 1 and platform.startswith("linux") else "spawn"


@dataclasses.dataclass
class Courier:
    """A running courier, seen from the pass that started it."""

    process: BaseProcess
    conn: Connection

    @classmethod
    def start(cls, config: Config, engine: Engine, now: datetime.datetime) -> Courier:
        """Start a courier on the pass's database: the child opens it anew, from the
        engine's URL with its password; a fork first closes the engine's idle connections."""
        url = engine.url.render_as_string(hide_password=False)
        context: multiprocessing.context.ForkContext | multiprocessing.context.SpawnContext
        forked = start_method(threads=threading.active_count()) == "fork"
        if forked:
            engine.dispose()  # the child inherits no connection of the pass's
            context = multiprocessing.get_context("fork")
        else:
            context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        level = logging.getLogger().getEffectiveLevel()
        # a forked child has a copy of the pass's end too, and closes it first: while
        # any copy is open, the courier would never see the pipe close when the pass dies
        process = context.Process(
            target=_run,
            args=(config, url, now, theirs, level, ours if forked else None),
            name="mailbot-courier",
            daemon=True,
        )
        # the child starts with Ctrl-C and SIGTERM held back until it has handlers of
        # its own: before, they would reach the pass's (a forked child's) or Python's
        # (a KeyboardInterrupt's traceback on the terminal); the pass gets its own late
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
        try:
            process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        theirs.close()
        return cls(process, ours)

    def nudge(self, now: datetime.datetime) -> None:
        """A batch is committed: its answers are there to send."""
        self._say("go", now)

    def finish(self, now: datetime.datetime) -> Delivery:
        """Let the courier send what is due and stop; what it sent in all.

        Returns an empty delivery if it ended without a report (it crashed):
        the pass then sends what it left.
        """
        self._say("done", now)
        delivered = Delivery()
        try:
            if self.conn.poll(None):
                delivered = self.conn.recv()
        except (EOFError, OSError):
            log.warning("courier: ended without a report; the pass sends what it left")
        self.process.join(5.0)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join()
        self.conn.close()
        return delivered

    def abandon(self) -> None:
        """Stop the courier after the message in hand, sending nothing more (a stop signal).

        It sees the pipe close, as when the pass dies, and ends within :data:`GRACE`
        seconds; one that does not is killed.
        """
        self.conn.close()
        self.process.join(GRACE + 1.0)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(1.0)

    def _say(self, what: str, now: datetime.datetime) -> None:
        with contextlib.suppress(OSError, ValueError):  # gone: the pass sends after it
            self.conn.send((what, now))


@dataclasses.dataclass
class _Heard:
    """What the pass has said so far, and whether to stop after the message in hand
    (the pass is gone, or a stop signal came)."""

    now: datetime.datetime
    done: bool = False
    gone: bool = False
    #: The pass said something since the courier last began to look at the outbox.
    told: bool = False

    def stop(self, *_signal: object) -> None:
        """Stop after the message in hand, and within :data:`GRACE` seconds in any case."""
        if not self.gone:
            self.gone = True
            signal.setitimer(signal.ITIMER_REAL, GRACE)


def _crash(signum: int, frame: object) -> None:
    """The message in hand did not end within :data:`GRACE` seconds: end at once; what
    is not committed is rolled back by the database, as after a crash."""
    log.warning("courier: stopping at once: the message in hand did not end within %.0f s", GRACE)
    os._exit(0)


def _log_as_the_pass(config: Config, level: int) -> None:
    """Write log lines to the same place and in the same form as the pass (a log file,
    JSON); a forked courier first drops the handlers it inherited, which may be a
    test's or a terminal's."""
    root = logging.getLogger()
    for inherited in list(root.handlers):
        root.removeHandler(inherited)
    root.addHandler(child_handler(config.log_file, config.log_format))
    set_level(level)


def _run(
    config: Config,
    url: str,
    now: datetime.datetime,
    conn: Connection,
    level: int,
    passes_end: Connection | None,
) -> None:
    """The courier's process: send, wait for the next batch, send, until told to finish.

    ``passes_end`` is the pass's end of the pipe, which a forked courier holds a copy
    of: closed here, so that the pipe closes when the pass dies.
    """
    if passes_end is not None:
        passes_end.close()
    heard = _Heard(now)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the pass, which decides
    # a stop signal never cuts a send short: the message in hand is finished and marked
    signal.signal(signal.SIGTERM, heard.stop)
    signal.signal(signal.SIGALRM, _crash)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)  # held back since the start
    _log_as_the_pass(config, level)
    engine = make_engine(url)
    sessions = session_factory(engine)
    postman = Postman(config.smtp)

    def hear(wait: float) -> bool:
        """Read what the pass said (waiting up to ``wait`` s); True once it is gone."""
        try:
            while not heard.gone and conn.poll(wait):
                what, heard.now = conn.recv()
                heard.done = heard.done or what == "done"
                heard.told = True
                wait = 0.0
        except (EOFError, OSError):
            heard.stop()
        return heard.gone

    total = Delivery()
    try:
        while not heard.gone:
            last = heard.done  # told to finish: one more whole pass, then stop
            heard.told = False
            # the courier's process sends alone, so it takes no lock: a forked one has
            # a copy of the pass's lock, taken or not as it was at the fork
            total += _deliver_due(config, sessions, postman, heard.now, lambda: hear(0.0))
            if last or heard.gone:
                break
            for _tick in range(round(IDLE / TICK)):
                if heard.told or hear(TICK):  # a batch committed, or a stop: at once
                    break
        if not heard.gone:
            conn.send(total)
    except Exception as exc:
        log.error("courier: %s: %s; the pass sends the rest", type(exc).__name__, exc)
        log.debug("the failure in full", exc_info=True)
    finally:
        engine.dispose()
        conn.close()
