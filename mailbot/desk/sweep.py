"""The deadline pass: the games whose next deadline has come, swept in transactions.

The sweep selects the due games (``Game.due_at``, an indexed read), asks the
deadline rules (:mod:`mailbot.desk.deadlines`) what fell due in each and
when it must look again, and hands what they tell to the notifier; per
tournament it runs the calendar (leave ends, the end of the event) and the
director's digest, and then the players' daily digests. Running it twice,
or once after two weeks of downtime, sends each notice once (the rules keep
the ``notices`` ledger).

>>> SweepReport({"repeat": 2}).line()
'sweep: repeat=2'
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
from collections import Counter
from collections.abc import Sequence
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Select, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from mailbot.compose import digests as digest
from mailbot.compose.notices import Renderer
from mailbot.compose.notifier import Notifier
from mailbot.desk import deadlines
from mailbot.desk.work import Work
from mailbot.rules import clock
from mailbot.rules import events as ev
from mailbot.store.kinds import NoticeKind
from mailbot.store.ledger import note
from mailbot.store.models import Game, Notice, Tournament
from mailbot.store.queries import GAME_STATE
from mailbot.store.roster import stamp_digests
from mailbot.store.schedule import store_due

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class SweepReport:
    """How many notices of each kind one sweep sent."""

    sent: dict[str, int]

    def line(self) -> str:
        if not self.sent:
            return "sweep: nothing due"
        return "sweep: " + " ".join(f"{k}={v}" for k, v in sorted(self.sent.items()))


#: Games swept in one transaction: one commit (one disk flush) for them all.
CHUNK = 200


def due_games(now: datetime.datetime) -> Select[Any]:
    """The unfinished games whose next deadline has come by ``now`` (an indexed read)."""
    return _unfinished().where(Game.due_at <= now)


def _unfinished() -> Select[Any]:
    return select(Game.id).where(Game.result.is_(None))


def sweep(
    sessions: sessionmaker[Session],
    sender: str,
    now: datetime.datetime,
    renderer: Renderer | None = None,
    *,
    every_game: bool = False,
) -> SweepReport:
    """One deadline pass over the games whose next deadline has come (``Game.due_at``).

    Only those games are read: a day on which nothing falls due costs one
    indexed query and the list of tournaments, however many games are
    playing and however many tournaments the bot runs (and a transaction for
    each tournament whose director has the weekly digest). They are swept
    :data:`CHUNK` to a transaction; when one of them collides with another
    worker sweeping it too, that chunk is swept again one game at a time.
    The calendar then runs for each tournament with a game still due or a
    director's digest to look at; a tournament with neither has nothing it
    could send, and no transaction is opened for it.
    With ``every_game``, every unfinished game is read, due or not (what the
    sweep would do without stored deadlines; it sends nothing more).
    """
    renderer = renderer or Renderer()
    counts: Counter[str] = Counter()
    due = _unfinished() if every_game else due_games(now)
    with sessions() as session:
        ids: Sequence[int] = session.scalars(due.order_by(Game.id)).all()
        tournaments = session.execute(
            select(Tournament.id, Tournament.director_digest).order_by(Tournament.id)
        ).all()
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        try:
            counts.update(_sweep_games(sessions, sender, now, renderer, chunk))
        except IntegrityError:
            for game_id in chunk:
                try:
                    counts.update(_sweep_games(sessions, sender, now, renderer, [game_id]))
                except IntegrityError:
                    log.info("game %s swept concurrently; skipped", game_id)
    # the games swept may have changed what is due; none due, none swept
    calendar = _due_by_tournament(sessions, due) if ids else {}
    for tournament_id, director_digest in tournaments:
        waiting = calendar.get(tournament_id, [])
        if waiting or director_digest:
            counts.update(_sweep_calendar(sessions, sender, now, renderer, tournament_id, waiting))
    with sessions() as session, session.begin():
        work = Work(session, now)
        counts.update(_sweep_digests(work))
        Notifier(session, sender, now, renderer=renderer).tell(*work.events)
    return SweepReport(dict(counts))


def _due_by_tournament(sessions: sessionmaker[Session], due: Select[Any]) -> dict[int, list[int]]:
    """The ``due`` games as they stand once the games are swept, by tournament, each
    tournament's in the order of their numbers: one read for every tournament."""
    found: dict[int, list[int]] = {}
    with sessions() as session:
        rows = session.execute(
            select(Game.tournament_id, Game.id)
            .where(Game.id.in_(due))
            .order_by(Game.tournament_id, Game.number)
        )
        for tournament_id, game_id in rows:
            found.setdefault(tournament_id, []).append(game_id)
    return found


def _sweep_calendar(
    sessions: sessionmaker[Session],
    sender: str,
    now: datetime.datetime,
    renderer: Renderer,
    tournament_id: int,
    ids: Sequence[int],
) -> Counter[str]:
    """The tournament pass over its due games ``ids``, :data:`CHUNK` games to a
    transaction (the end of a big event makes every game due at once); the director's
    digest goes with the first. A chunk another worker swept first is skipped."""
    counts: Counter[str] = Counter()
    for start in range(0, max(len(ids), 1), CHUNK):
        try:
            with sessions() as session, session.begin():
                t = session.get(Tournament, tournament_id)
                if t is None:
                    break
                work = Work(session, now)
                chunk = ids[start : start + CHUNK]
                counts.update(_sweep_tournament(work, t, chunk, digest=start == 0))
                Notifier(session, sender, now, renderer=renderer).tell(*work.events)
        except IntegrityError:
            log.info("tournament %s swept concurrently; skipped", tournament_id)
    return counts


def _sweep_games(
    sessions: sessionmaker[Session],
    sender: str,
    now: datetime.datetime,
    renderer: Renderer,
    ids: Sequence[int],
) -> Counter[str]:
    """Sweep the games ``ids`` in one transaction; each keeps its next deadline.

    What fell due is told once per tournament, at the end: the notices of the pass
    to one reader about several games go as one message, a part per game (those
    answered in their own thread, a claim's or a held order's, keep theirs). The
    chunk's transaction holds the notices and the ledger together, as before.
    """
    counts: Counter[str] = Counter()
    with sessions() as session, session.begin():
        games = session.scalars(
            select(Game).where(Game.id.in_(ids)).options(*GAME_STATE).order_by(Game.id)
        ).all()
        works: dict[int, Work] = {}
        for g in games:
            if g.result is not None:
                continue
            work = works.setdefault(g.tournament_id, Work(session, now))
            planned = deadlines.plan(g)
            found = deadlines.fall_due(work, g, planned)
            counts.update(found)
            session.flush()
            if not found:  # what fell due changed the game: it stays due for the next pass
                store_due(session, g.id, deadlines.next_due(g, now, planned))
        for work in works.values():
            Notifier(session, sender, now, renderer=renderer).tell(*work.events)
    return counts


def _sweep_digests(work: Work) -> list[str]:
    """The players' daily digests that are due (one per address and local day)."""
    found: list[str] = []
    for players, event in digest.due_digests(work.session, work.now):
        stamp_digests(players, work.now)
        work.tell(event)
        found.append("digest")
    return found


def _sweep_tournament(
    work: Work, t: Tournament, ids: Sequence[int], *, digest: bool = True
) -> list[str]:
    """The calendar of ``t``'s games ``ids``: leave ends (opponents told the clocks run
    again), withdrawn players' games and the end of the event; with ``digest``, the
    director's weekly digest."""
    games = work.session.scalars(
        select(Game).where(Game.id.in_(ids)).options(*GAME_STATE).order_by(Game.number)
    ).all()
    dates = deadlines.passed(games, work.now)
    found = deadlines.leave_ends(work, dates)
    if digest and t.director_digest:
        found.extend(_director_digest(work, t))
    found.extend(deadlines.adjudications(work, dates))
    return found


def _director_digest(work: Work, t: Tournament) -> list[str]:
    """The director's weekly digest: once an ISO week, from the event's start to its end."""
    tz = ZoneInfo(t.timezone)
    today = work.now.astimezone(tz).date()
    if today < t.start or today > (t.extended_to or t.end) + datetime.timedelta(days=7):
        return []
    year, week, _ = today.isocalendar()
    kind = NoticeKind.DIRECTOR_DIGEST
    ledger = select(Notice).where(Notice.tournament_id == t.id, Notice.kind == kind)
    last = work.session.scalars(ledger.order_by(Notice.created_at.desc())).first()
    key = f"{t.index} {year}-W{week:02d}"  # the ledger is unique across tournaments
    if last is not None and last.key == key:
        return []
    since = last.created_at if last is not None else clock.day_start(t.start, tz)
    note(work.session, t.id, kind, key, work.now)
    work.tell(ev.DirectorDigest(t.id, since))
    return [kind]
