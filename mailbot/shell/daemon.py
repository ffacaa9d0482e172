"""The long-running daemon: ``mailbot run``.

The daemon repeats passes (:mod:`mailbot.shell.passes`), waiting with IMAP
IDLE in between (re-issued every few minutes), and never exits on its own:
when the IMAP server, the database or the SMTP server goes away it logs one
line, waits with back-off and goes on. SIGTERM stops it within seconds, even
in the middle of a backlog or while SMTP hangs: the batch in hand is committed
and filed and the mail in hand finished and marked sent, so a restart reads
and sends nothing twice; work a server keeps from finishing within
:data:`FORCE_STOP_AFTER` seconds ends as after a crash (rolled back; a mail
sent again is the same message, with the same Message-ID and return path).
The rest waits for the next start.

An OAuth2 refresh token the provider refused (revoked, expired) is such an
outage too: one line says what, for which account, and the command that fixes
it; the tournament directors are told once by mail while SMTP works; the
daemon tries again with back-off, and at once when the token file changes, so
a token that ``mailbot oauth authorize`` writes in another process is taken
without a restart.
"""

from __future__ import annotations

import datetime
import logging
import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from zoneinfo import ZoneInfo

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from mailbot.compose.gamemail import director_reading
from mailbot.compose.notices import Renderer
from mailbot.config import Config
from mailbot.desk.pipeline import Desk
from mailbot.mail.inbox import Mailbox, MailboxError, OAuthRefused
from mailbot.mail.oauth import TokenRevoked
from mailbot.mail.postman import Postman
from mailbot.shell.courier import GRACE, deliver
from mailbot.shell.delivery import Delivery
from mailbot.shell.health import POLL, SWEEP, beat
from mailbot.shell.metrics import Served, serve
from mailbot.shell.passes import policy_of, read_backlog, wall_clock
from mailbot.shell.service import Service
from mailbot.shell.xfcclistener import Listener
from mailbot.shell.xfcclistener import start as start_xfcc
from mailbot.store.engine import describe_place
from mailbot.store.kinds import MailEvent, NoticeKind
from mailbot.store.ledger import note_once
from mailbot.store.models import Game, Move, Outbox, Tournament
from mailbot.store.outage import StoreUnavailable, diagnose
from mailbot.store.outbox import queue
from mailbot.store.schema import migrations_head, schema_revision

log = logging.getLogger(__name__)

#: The longest wait between two attempts to reach a server that is down.
MAX_BACKOFF = 300.0
#: How often (seconds) the daemon looks again at a database ``mailbot init`` has not made.
SCHEMA_RECHECK = 2.0
#: After a stop signal the daemon ends within this many seconds, cleanly if it can
#: (as long as a courier takes to end: :data:`mailbot.shell.courier.GRACE`).
FORCE_STOP_AFTER = GRACE


def publish_all(
    sessions: sessionmaker[Session],
    folder: Path,
    now: datetime.datetime,
    published: dict[str, tuple[object, ...]] | None = None,
) -> int:
    """Write every tournament's pages into ``folder/INDEX/``; returns the files written.

    With ``published`` (what each tournament's pages last showed), a tournament
    whose moves, mail and day have not changed since is left as it is. A
    tournament whose pages cannot be written is logged and the others go on.
    """
    from mailbot.publish.site import write_site

    written = 0
    with sessions() as session:
        marks = _site_marks(session, now)
        for index, mark in marks.items():
            if published is not None and published.get(index) == mark:
                continue
            try:
                written += len(write_site(session, index, folder / index, now))
            except Exception as exc:
                log.error("site: %s: %s: %s", index, type(exc).__name__, exc)
                log.debug("the failure in full", exc_info=True)
                continue
            if published is not None:
                published[index] = mark
    return written


def _site_marks(session: Session, now: datetime.datetime) -> dict[str, tuple[object, ...]]:
    """What a tournament's pages depend on: its last move, its last mail, and the day
    (the days running on a move change with it)."""
    moves: dict[int, int] = {
        tid: last
        for tid, last in session.execute(
            select(Game.tournament_id, func.max(Move.id)).join(Move).group_by(Game.tournament_id)
        ).all()
    }
    mail: dict[int, int] = {
        tid: last
        for tid, last in session.execute(
            select(Game.tournament_id, func.max(Outbox.id))
            .join(Outbox, Outbox.game_id == Game.id)
            .group_by(Game.tournament_id)
        ).all()
    }
    day = now.date()
    return {
        index: (moves.get(tid), mail.get(tid), day)
        for tid, index in session.execute(
            select(Tournament.id, Tournament.index).order_by(Tournament.index)
        ).all()
    }


#: The ledger kind (``notices``) of the directors' notice about a refused token.
OAUTH_REFUSED = NoticeKind.OAUTH_REFUSED


def tell_token_refused(
    session: Session,
    sender: str,
    problem: TokenRevoked,
    now: datetime.datetime,
    *,
    renderer: Renderer | None = None,
) -> list[Outbox]:
    """Queue, once for each refusal (``problem.key``), a notice to the director of every
    running tournament that the IMAP login's refresh token is refused: the account and
    the command that fixes it, in the tournament's language (in the caller's
    transaction; the ``notices`` ledger keeps it once). Returns the rows queued."""
    renderer = renderer or Renderer()
    today = now.date()
    queued: list[Outbox] = []
    told: set[str] = set()
    for t in session.scalars(select(Tournament).order_by(Tournament.id)):
        if (t.extended_to or t.end) < today:
            continue
        key = f"{t.id}:{problem.key}"
        if not note_once(session, t.id, OAUTH_REFUSED, key, now):
            continue
        if t.director_email in told:
            continue
        told.add(t.director_email)
        context = {
            **director_reading(t),
            "username": problem.username,
            "since": now.astimezone(ZoneInfo(t.timezone)).strftime("%Y-%m-%d %H:%M"),
            "command": problem.fix.removeprefix("run: "),
        }
        rendered = renderer.render(f"notice/{OAUTH_REFUSED}", t.language, context)
        queued.append(
            queue(
                session,
                sender=sender,
                to=[t.director_email],
                subject=f"[{t.index}] {rendered.what}",
                text=rendered.text,
                html=rendered.html,
                event=MailEvent.ERROR,
                now=now,
                headers={"Auto-Submitted": "auto-generated", "X-Mailbot-Event": "error"},
            )
        )
    return queued


class _Stop(BaseException):
    """Raised by the SIGTERM handler to leave a blocking wait or network call.

    A ``BaseException``, so that no ``except Exception`` on the way mistakes
    a stop for a failure.
    """


class Daemon:
    """``mailbot run``: passes, IDLE waits, the daily sweep, outages, clean stop."""

    def __init__(
        self,
        config: Config,
        sessions: sessionmaker[Session],
        *,
        sweep: Callable[[datetime.datetime], None] | None = None,
    ) -> None:
        self.config = config
        self.sessions = sessions
        self.desk = Desk(sessions, policy_of(config))
        self.postman = Postman(config.smtp)
        self.sweep = sweep
        self.stopping = threading.Event()
        #: While set, a stop signal waits for the work in hand (the desk, the sweep).
        self._holding = 0
        #: Set by the scheduler at the configured hour (and at start, to catch up).
        self.sweep_due = threading.Event()
        self._outage: str | None = None
        #: What each tournament's published pages last showed (see :func:`publish_all`).
        self._pages: dict[str, tuple[object, ...]] = {}
        #: systemd's side (sd_notify); does nothing outside a Type=notify unit.
        self.service = Service()
        self._ready = False
        #: The metrics endpoint and what this process measures, if configured.
        self.metrics: Served | None = None
        self.xfcc: Listener | None = None

    # -- signals ---------------------------------------------------------------

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if signum == signal.SIGALRM:
            # still here FORCE_STOP_AFTER seconds after the stop signal: a server that
            # does not answer holds the work in hand (or the goodbyes to it). What is
            # not committed is rolled back by the database, as after a crash.
            log.warning(
                "stopping at once: the work in hand did not end within %.0f s", FORCE_STOP_AFTER
            )
            os._exit(0)
        again = self.stopping.is_set()
        if not again:
            log.info("signal %s: stopping", signum)
            self.service.stopping()
            signal.setitimer(signal.ITIMER_REAL, FORCE_STOP_AFTER)
        self.stopping.set()
        if not self._holding or again:
            raise _Stop

    @contextmanager
    def _hold(self) -> Iterator[None]:
        """Finish the work in hand before a stop signal takes effect."""
        self._holding += 1
        try:
            yield
        finally:
            self._holding -= 1
        if self.stopping.is_set() and not self._holding:
            raise _Stop

    def _is_stopping(self) -> bool:
        return self.stopping.is_set()

    # -- outages ---------------------------------------------------------------

    def _down(self, problem: str, delay: float, *, backoff: bool = True) -> None:
        """One line when something goes away (and when it changes), not one per retry."""
        if problem != self._outage:
            then = ", then less and less often" if backoff else ""
            log.warning("%s; trying again in %.0f s%s", problem, delay, then)
        else:
            log.debug("%s; trying again in %.0f s", problem, delay)
        self._outage = problem
        self._be_ready(f"waiting to try again: {problem}"[:400])

    def _up(self) -> None:
        if self._outage is not None:
            log.info("working again after: %s", self._outage)
            self._outage = None
        self._be_ready("working: waiting for mail")

    def _be_ready(self, status: str) -> None:
        """READY=1 the first time the database answers (IMAP may be down: STATUS says so),
        then STATUS= whenever it changes."""
        if self._ready:
            self.service.status(status)
            return
        try:
            with self.sessions() as session:
                session.execute(select(1))
        except Exception:
            self.service.status(f"waiting for the database: {status}"[:400])
            return
        self._ready = True
        self.service.ready(status)

    def _token_refused(self, problem: TokenRevoked) -> None:
        """Tell the directors once, if SMTP works (its own token may be refused too)."""
        if not self.postman.available():
            return
        with self._hold(), self.sessions() as session, session.begin():
            queued = tell_token_refused(session, self.config.smtp.sender, problem, wall_clock())
        if queued:
            log.info("the directors are told that the IMAP login is refused (%d)", len(queued))

    def _sleep(self, seconds: float, watched: Path | None) -> None:
        """Wait ``seconds`` (telling systemd's watchdog the loop is alive); with a token
        file ``watched``, end as soon as it changes."""
        before = _stamp(watched) if watched is not None else None
        deadline = time.monotonic() + seconds
        while not self.stopping.is_set():
            self.service.alive()
            left = deadline - time.monotonic()
            if left <= 0 or (watched is not None and _stamp(watched) != before):
                return
            time.sleep(min(0.5 if watched is not None else self.service.wake_within(left), left))

    def _wait(self, mailbox: Mailbox) -> None:
        """Wait for mail up to ``imap.idle_seconds``, waking in time for the watchdog."""
        imap = self.config.imap
        deadline = time.monotonic() + imap.idle_seconds
        while not self.stopping.is_set():
            self.service.alive()
            left = deadline - time.monotonic()
            if left <= 0:
                return
            poll = min(imap.poll_seconds, self.service.wake_within(imap.poll_seconds))
            if mailbox.wait(self.service.wake_within(left), poll):
                return
            if self.sweep_due.is_set():
                return

    # -- the work ----------------------------------------------------------------

    def _maybe_sweep(self) -> bool:
        """Run the sweep when the scheduler said it is due (in this thread: one writer);
        whether it ran."""
        if self.sweep is None or not self.sweep_due.is_set():
            return False
        self.sweep_due.clear()
        try:
            started = time.monotonic()
            with self._hold():
                self.sweep(wall_clock())
                if self.metrics is not None:
                    self.metrics.process.sweep_seconds.observe(time.monotonic() - started)
                beat(self.sessions, SWEEP)
            return True
        except Exception as exc:
            self.sweep_due.set()  # try again after the next wait
            fault = diagnose(self.sessions, exc)
            if fault is not None:
                raise StoreUnavailable(fault) from exc
            log.error("sweep failed: %s: %s", type(exc).__name__, exc)
            log.debug("the failure in full", exc_info=True)
            self.sweep_due.clear()
            return False

    def _deliver(self) -> None:
        """Send what the outbox has due. A stop signal waits for the message in hand: a
        mail the server has taken is marked sent, in the same hold as the hand-over, and
        the marks are committed before the daemon ends (or, past :data:`FORCE_STOP_AFTER`,
        rolled back as after a crash: the mail goes again as the same message)."""
        with self._hold():
            try:
                delivery = deliver(
                    self.config, self.sessions, self.postman, wall_clock(), self._is_stopping
                )
            except Exception as exc:
                fault = diagnose(self.sessions, exc)
                if fault is not None:
                    raise StoreUnavailable(fault) from exc
                log.error("outbox: %s: %s", type(exc).__name__, exc)
                log.debug("the failure in full", exc_info=True)
                return
            self._count(delivery)
            if delivery.sent or delivery.deferred or delivery.failed:
                log.info("outbox: %s", delivery.line())

    def _count(self, delivery: Delivery) -> None:
        if self.metrics is not None and delivery.deferred:
            self.metrics.process.deferred.inc(delivery.deferred)

    def _pass(self, mailbox: Mailbox) -> None:
        started = time.monotonic()
        counts = self._read(mailbox)
        if self.metrics is not None:
            self.metrics.process.poll_seconds.observe(time.monotonic() - started)
            self.metrics.process.backlog.set(sum(counts.values()))
        if counts:
            log.info("read %s", ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
        with self._hold():
            beat(self.sessions, POLL, ", ".join(f"{k}={v}" for k, v in sorted(counts.items())))
        self._up()
        self.service.alive()
        swept = self._maybe_sweep()
        self._deliver()
        if counts or swept or not self._published:
            self._publish()

    def _read(self, mailbox: Mailbox) -> Counter[str]:
        """Read the inbox; with a backlog, a courier sends each batch's answers meanwhile."""
        counts, delivery = read_backlog(
            self.config,
            self.sessions,
            mailbox,
            self.desk,
            wall_clock,
            self._is_stopping,
            self._hold,
        )
        self._count(delivery)
        if delivery.sent or delivery.deferred or delivery.failed:
            log.info("outbox (while reading): %s", delivery.line())
        return counts

    _published = False

    def _publish(self) -> None:
        """Rewrite the published pages of every tournament (``site_folder``), if configured."""
        if self.config.site_folder is None:
            return
        self._published = True
        try:
            with self._hold():
                written = publish_all(
                    self.sessions, Path(self.config.site_folder), wall_clock(), self._pages
                )
        except Exception as exc:
            fault = diagnose(self.sessions, exc)
            if fault is not None:
                raise StoreUnavailable(fault) from exc
            log.error("site: %s: %s", type(exc).__name__, exc)
            return
        if written:
            log.info("site: %d files written", written)

    def _serve_metrics(self) -> None:
        """Serve /metrics at ``metrics.listen``; a port that cannot be had is one line,
        and the bot works on without metrics."""
        listen = self.config.metrics_listen
        if listen is None:
            return
        try:
            self.metrics = serve(listen, self.sessions)
        except OSError as exc:
            log.error("metrics: cannot listen on %s (%s); no metrics served", listen, exc)

    def _scheduler(self) -> BackgroundScheduler:
        """APScheduler marks the daily sweep due; the loop runs it between IDLE waits."""
        zone = ZoneInfo(self.config.timezone)
        scheduler = BackgroundScheduler(timezone=zone)
        scheduler.add_job(
            self.sweep_due.set,
            CronTrigger(hour=self.config.sweep.hour, timezone=zone),
            id="daily-sweep",
            coalesce=True,
            misfire_grace_time=3600,
        )
        return scheduler

    def run(self) -> int:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM):
            signal.signal(signum, self._on_signal)
        scheduler = self._scheduler()
        scheduler.start()
        self.sweep_due.set()  # catch up on whatever fell due while the bot was down
        self._serve_metrics()
        self.xfcc = start_xfcc(self.config, self.sessions, self.desk, wall_clock)
        self._be_ready("starting: connecting to IMAP")
        try:
            return self._loop()
        except _Stop:
            log.info("stopped")
            return 0
        finally:
            scheduler.shutdown(wait=False)
            if self.metrics is not None:
                self.metrics.close()
            if self.xfcc is not None:
                self.xfcc.close()
            # the work has ended: the stop timer must not outlive it, or it lands while
            # the interpreter exits, when the default action of SIGALRM kills the process
            signal.setitimer(signal.ITIMER_REAL, 0)

    def _unmade(self) -> str | None:
        """Why the database cannot be worked on until ``mailbot init`` runs, or None.

        A database that cannot be reached is left to the usual outage handling."""
        try:
            at = schema_revision(self.sessions.kw["bind"])
        except Exception:
            return None
        want = migrations_head()
        if at == want:
            return None
        where = describe_place(self.config.database)
        if at is None:
            return f"the database {where} has no tables yet: run mailbot init"
        return f"the database {where} is at revision {at}, the code wants {want}: run mailbot init"

    def _loop(self) -> int:
        delay = 1.0
        imap = self.config.imap
        while not self.stopping.is_set():
            watched: Path | None = None
            with self._hold():
                unmade = self._unmade()
            if unmade is not None:
                # waits for `mailbot init` without a restart: one line, looked at again soon
                self._down(unmade, SCHEMA_RECHECK, backoff=False)
                self._sleep(SCHEMA_RECHECK, None)
                continue
            try:
                with Mailbox(imap) as mailbox:
                    log.info("connected to IMAP %s:%s", imap.host, imap.port)
                    while not self.stopping.is_set():
                        self._pass(mailbox)
                        delay = 1.0
                        if self.stopping.is_set():
                            break
                        self._wait(mailbox)
                continue
            except MailboxError as exc:
                problem = str(exc)
                if isinstance(exc, OAuthRefused) and imap.oauth2 is not None:
                    watched = Path(imap.oauth2.token_file)
                if not self.stopping.is_set():
                    # deadlines and mail already written do not wait for the mailbox
                    try:
                        if isinstance(exc, OAuthRefused) and isinstance(exc.problem, TokenRevoked):
                            self._token_refused(exc.problem)
                        self._maybe_sweep()
                        self._deliver()
                    except StoreUnavailable as store:
                        problem = f"{problem}; {store}"
            except StoreUnavailable as exc:
                problem = str(exc)
            except Exception as exc:  # never exit on our own
                problem = f"unexpected {type(exc).__name__}: {exc}"
                log.debug("the failure in full", exc_info=True)
            if self.stopping.is_set():
                break
            self._down(problem, delay)
            self._sleep(delay, watched)
            delay = min(delay * 2, MAX_BACKOFF)
        log.info("stopped")
        return 0


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """What changes when a file is written anew (inode, size, mtime), or None."""
    try:
        status = path.stat()
    except OSError:
        return None
    return (status.st_ino, status.st_size, status.st_mtime_ns)
