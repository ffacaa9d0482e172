"""The deadline pass: repeats, silence, oversteps, leave ends, the end of the event.

Deadlines are data, not timers (docs/architecture.md, invariant 6): the sweep computes
from the stored games and ``now`` what has fallen due, and records every
notice it sends in the ``notices`` ledger, keyed by what makes it unique (the
game, the player, the kind, the ply of the unanswered move). Running it twice,
or once after two weeks of downtime, sends each notice once; each notice
states the day it fell due, not the day it was sent.

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

import chess
from sqlalchemy import Select, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from mailbot.compose import digests as digest
from mailbot.compose.notices import Renderer
from mailbot.compose.notifier import Notifier
from mailbot.desk.work import Work
from mailbot.rules import clock, game
from mailbot.rules import events as ev
from mailbot.rules.profile import Profile
from mailbot.store.endings import (
    claim_end,
    end_game,
    settle_adjudication_claims,
    withdrawal_adjudication,
)
from mailbot.store.models import Claim, Game, Leave, Notice, Player, Tournament
from mailbot.store.queries import GAME_STATE
from mailbot.store.record import (
    awarded_oversteps,
    color_name,
    color_of,
    control_of,
    history,
    profile_of,
    waiting,
)

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class SweepReport:
    """How many notices of each kind one sweep sent."""

    sent: dict[str, int]

    def line(self) -> str:
        if not self.sent:
            return "sweep: nothing due"
        return "sweep: " + " ".join(f"{k}={v}" for k, v in sorted(self.sent.items()))


def record_notice(
    session: Session,
    g: Game,
    player: Player | None,
    kind: str,
    key: str,
    due: datetime.datetime | None,
    now: datetime.datetime,
) -> Notice | None:
    """Enter a notice in the ledger; None if it was entered before."""
    found = session.scalars(
        select(Notice).where(
            Notice.game_id == g.id,
            Notice.player_id == player.id if player else Notice.player_id.is_(None),
            Notice.kind == kind,
            Notice.key == key,
        )
    ).first()
    if found is not None:
        return None
    notice = Notice(
        tournament_id=g.tournament_id,
        game_id=g.id,
        player_id=player.id if player else None,
        kind=kind,
        key=key,
        due_at=due,
        created_at=now,
    )
    session.add(notice)
    session.flush()
    return notice


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
    indexed query, however many games are playing. They are swept
    :data:`CHUNK` to a transaction; when one of them collides with another
    worker sweeping it too, that chunk is swept again one game at a time.
    With ``every_game``, every unfinished game is read, due or not (what the
    sweep would do without stored deadlines; it sends nothing more).
    """
    renderer = renderer or Renderer()
    counts: Counter[str] = Counter()
    due = _unfinished() if every_game else due_games(now)
    with sessions() as session:
        ids: Sequence[int] = session.scalars(due.order_by(Game.id)).all()
        tournaments = session.scalars(select(Tournament.id).order_by(Tournament.id)).all()
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
    for tournament_id in tournaments:
        counts.update(_sweep_calendar(sessions, sender, now, renderer, tournament_id, due))
    with sessions() as session, session.begin():
        work = Work(session, now)
        counts.update(_sweep_digests(work))
        Notifier(session, sender, now, renderer=renderer).tell(*work.events)
    return SweepReport(dict(counts))


def _sweep_calendar(
    sessions: sessionmaker[Session],
    sender: str,
    now: datetime.datetime,
    renderer: Renderer,
    tournament_id: int,
    due: Select[Any],
) -> Counter[str]:
    """The tournament pass over ``due`` games of one tournament, :data:`CHUNK` games to a
    transaction (the end of a big event makes every game due at once); the director's
    digest goes with the first. A chunk another worker swept first is skipped."""
    counts: Counter[str] = Counter()
    with sessions() as session:
        ids: Sequence[int] = session.scalars(
            select(Game.id)
            .where(Game.tournament_id == tournament_id, Game.id.in_(due))
            .order_by(Game.number)
        ).all()
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
    """Sweep the games ``ids`` in one transaction; each keeps its next deadline."""
    counts: Counter[str] = Counter()
    with sessions() as session, session.begin():
        games = session.scalars(
            select(Game).where(Game.id.in_(ids)).options(*GAME_STATE).order_by(Game.id)
        ).all()
        for g in games:
            if g.result is not None:
                continue
            work = Work(session, now)
            found = _sweep_game(work, g)
            Notifier(session, sender, now, renderer=renderer).tell(*work.events)
            counts.update(found)
            session.flush()
            if not found:  # what fell due changed the game: it stays due for the next pass
                session.execute(
                    update(Game)
                    .where(Game.id == g.id)
                    .values(due_at=next_due(g, now))
                    .execution_options(synchronize_session=False)
                )
    return counts


def next_due(g: Game, now: datetime.datetime) -> datetime.datetime | None:
    """When the sweep must look at ``g`` again, as ``g`` stands after a sweep at ``now``.

    That is the earliest of its deadlines after ``now`` (repeat, overstep,
    silence, a leave's end, the end of the event), or a leave's end or the
    end of the event already passed but not yet announced (the tournament
    pass announces it). None when nothing can fall due before something
    changes; any change makes the game due again (:func:`mailbot.store.changes.mark_changed_games`).
    """
    if g.result is not None:
        return None
    stop = play_stops_at(g)
    found = [due for due in _clock_deadlines(g) if now < due < stop]
    for item in _calendar(g):
        if item.at > now or not _has_notice(g, item.player, item.kind, item.key):
            found.append(item.at)
    return min(found, default=None)


def _clock_deadlines(g: Game) -> list[datetime.datetime]:
    """The instants at which the player to move in ``g`` may be repeated, overstep
    or fall silent (whether it then happens is :func:`_sweep_game`'s to decide)."""
    w = waiting(g)
    thinking, penalties, awarded = _thinking(g, w.color)
    found = [
        *clock.overstep_times(w.profile, thinking, w.since, penalties, w.leaves, w.tz, awarded),
        clock.silence_due(w.profile, w.since, w.leaves, w.tz),
        clock.silence_report_due(w.profile, w.since, w.leaves, w.tz),
    ]
    if g.moves:
        found.append(clock.repeat_due(w.profile, w.since, w.leaves, w.tz))
    return [due for due in found if due is not None]


def _thinking(
    g: Game, color: chess.Color
) -> tuple[list[clock.MoveTime], list[clock.Penalty], list[int]]:
    """The moves the clock of ``color`` counts, its penalty days and awarded oversteps.

    003 p1 6g, art. 32: a player answering the opponent's conditional line may
    accept it and charge the time to the last move the line lets them play.
    """
    moves, penalties = history(g, color)
    thinking = [*moves, *_accepted_moves(g, color, len(moves))]
    return thinking, penalties, awarded_oversteps(g, color)


@dataclasses.dataclass(frozen=True)
class _CalendarDue:
    """A date of the calendar that concerns a game: a leave's end, the end of the event."""

    kind: str
    key: str
    at: datetime.datetime
    player: Player | None = None
    leave: Leave | None = None


def _calendar(g: Game) -> list[_CalendarDue]:
    """The calendar deadlines of ``g``, due at the start of the day after the date.

    A player's leave ends (the opponent is told the clocks run again); a
    withdrawn player's game goes to the arbiter (art. 48); the event ends
    (art. 52-53: the call for adjudication claims, then the packet).
    """
    t = g.tournament
    tz = ZoneInfo(t.timezone)
    p = profile_of(t)
    day = datetime.timedelta(days=1)
    found = [
        _CalendarDue("leave-end", str(lv.id), clock.day_start(lv.end + day, tz), player, lv)
        for player in (g.white, g.black)
        for lv in player.leaves
    ]
    withdrawal = withdrawal_adjudication(g)
    if withdrawal is not None:
        opened = withdrawal.opened_at.astimezone(tz).date()
        due = game.adjudication_claims_due(opened, p) + day
        found.append(
            _CalendarDue(
                "adjudication-packet", f"withdrawal-{withdrawal.id}", clock.day_start(due, tz)
            )
        )
    else:
        end = t.extended_to or t.end
        claims_due = game.adjudication_claims_due(end, p) + day
        found.append(
            _CalendarDue("adjudication-call", end.isoformat(), clock.day_start(end + day, tz))
        )
        found.append(
            _CalendarDue("adjudication-packet", end.isoformat(), clock.day_start(claims_due, tz))
        )
    return found


def _sweep_digests(work: Work) -> list[str]:
    """The players' daily digests that are due (one per address and local day)."""
    found: list[str] = []
    for players, event in digest.due_digests(work.session, work.now):
        for p in players:
            p.digest_sent_at = work.now
        work.tell(event)
        found.append("digest")
    return found


def play_stops_at(g: Game) -> datetime.datetime:
    """The instant from which no clock runs in ``g``: it waits for the arbiter.

    That is the end of the event's last day (art. 52-53), or the moment a
    withdrawn player's game went to the arbiter (art. 48; 003 part 1 art. 9).
    A deadline that fell due before it is still reported, even by a late sweep.
    """
    t = g.tournament
    stops = [clock.day_start((t.extended_to or t.end) + datetime.timedelta(days=1),
                             ZoneInfo(t.timezone))]  # fmt: skip
    withdrawal = withdrawal_adjudication(g)
    if withdrawal is not None:
        stops.append(withdrawal.opened_at)
    return min(stops)


def _sweep_game(work: Work, g: Game) -> list[str]:
    """Repeats, oversteps and silence in one game, as far as they fell due in play.

    Tells ``work`` what fell due; returns the kinds, for the report.
    """
    session, now = work.session, work.now
    stop = play_stops_at(g)

    def fell_due(due: datetime.datetime) -> bool:
        return due <= now and due < stop

    ply = len(g.moves)
    w = waiting(g)
    silent, color, since, leaves, p, tz = w.player, w.color, w.since, w.leaves, w.profile, w.tz
    found: list[str] = []

    def add(kind: str, events: list[ev.Event]) -> None:
        found.append(kind)
        work.tell(*events)

    # art. 26: repeat the unanswered move, with a copy to the TD
    due = clock.repeat_due(p, since, leaves, tz)
    if (
        due is not None
        and fell_due(due)
        and ply > 0
        and record_notice(session, g, silent, "repeat", str(ply), due, now)
    ):
        add("repeat", [ev.Repeated(g.id, silent.id, due)])

    # art. 35-36 / docs/rules.md 2.2: an overstep while the player is silent
    thinking, penalties, awarded = _thinking(g, color)
    state = control_of(g, color)
    number = len(thinking) + 1
    # penalty days alone put the move being thought about over the limit
    reached = clock.control_state(p, thinking, penalties, 0, awarded)
    last = reached.oversteps[-1] if reached.oversteps else None
    if last is not None and last.move_number == number and not last.awarded:
        when = max((x.created_at for x in g.penalties if x.color == color_name(color)), default=now)
        if fell_due(when) and record_notice(
            session, g, silent, "overstep", f"move-{number}", when, now
        ):
            add("overstep", overstep(session, g, silent, when, now, reached))

    # 003 p1 7e: a player silent past a first overstep oversteps again (postal play)
    for due in clock.overstep_times(p, thinking, since, penalties, leaves, tz, awarded):
        if not fell_due(due) or state.lost:
            break
        running = clock.move_days(p, since, due, leaves, tz)
        reached = clock.control_state(p, thinking, penalties, running, awarded)
        key = overstep_key(number, reached)
        if record_notice(session, g, silent, "overstep", key, due, now):
            add("overstep", overstep(session, g, silent, due, now, reached))
        if reached.lost:
            break

    # art. 31: silence without a delay notice
    protected = any(
        d.color == ("white" if color else "black") and d.ply_at == ply for d in g.delays
    )
    repeated = ply > 0 and _has_notice(g, silent, "repeat", str(ply))
    for kind, deadline in (
        ("silence", clock.silence_due(p, since, leaves, tz)),
        ("silence-report", clock.silence_report_due(p, since, leaves, tz)),
    ):
        if deadline is None or not fell_due(deadline) or protected:
            continue
        if kind == "silence" and p.silence_requires_repeat and not repeated:
            continue
        if record_notice(session, g, silent, kind, str(ply), deadline, now):
            add(kind, silence(session, g, silent, deadline, now, decisive=kind == "silence"))
    return found


def _accepted_moves(g: Game, color: chess.Color, played: int) -> list[clock.MoveTime]:
    """The silent player's moves the opponent's pending conditional line would play
    at no cost if accepted (each answered by the line), before the charged move."""
    line = g.pending_conditional or []
    if not line or g.pending_conditional_by == color_name(color):
        return []
    return [clock.MoveTime(played + 1 + i, 0) for i in range(len(line) // 2)]


#: The notices about one wait for a move, keyed by the number of plies played
#: while it lasts (:func:`_sweep_game`).
WAIT_NOTICES = ("repeat", "silence", "silence-report")


def void_wait_notices(session: Session, g: Game, ply: int, why: str) -> list[list[str]]:
    """Set aside the notices of the waits at ``ply`` plies and later, which moves now
    void ended (art. 20): the new waits are notified afresh.

    Each notice stays in the ledger, its key marked ``void by`` ``why``; returns
    the kinds and keys it had.
    """
    voided: list[list[str]] = []
    ledger = select(Notice).where(Notice.game_id == g.id, Notice.kind.in_(WAIT_NOTICES))
    for notice in session.scalars(ledger.order_by(Notice.id)):
        if notice.key.isdigit() and int(notice.key) >= ply:
            voided.append([notice.kind, notice.key])
            notice.key = f"{notice.key} void by {why}"
    return voided


def _has_notice(g: Game, player: Player | None, kind: str, key: str) -> bool:
    session = Session.object_session(g)
    assert session is not None
    return (
        session.scalars(
            select(Notice.id).where(
                Notice.game_id == g.id,
                Notice.player_id == player.id if player else Notice.player_id.is_(None),
                Notice.kind == kind,
                Notice.key == key,
            )
        ).first()
        is not None
    )


def open_claim(
    session: Session,
    g: Game,
    kind: str,
    against: Player,
    due: datetime.datetime,
    now: datetime.datetime,
    details: dict[str, Any],
    *,
    decisive: bool,
) -> list[ev.Event]:
    """Open a claim against ``against``; with ``auto_forfeit`` it is decided at once."""

    p = profile_of(g.tournament)
    claim = Claim(
        kind=kind,
        by_color=None,
        against="white" if against.id == g.white_id else "black",
        opened_at=now,
        status="open",
        details={**details, "due": due.isoformat()},
    )
    g.claims.append(claim)
    session.flush()
    auto = decisive and p.auto_forfeit
    if auto:
        claim.status = "confirmed"
        claim.decided_at = now
        claim.decided_by = "auto"
    events: list[ev.Event] = [ev.ClaimOpened(g.id, claim.id, against.id, due, details)]
    if auto:
        events.append(end_game(g, claim_end(g, claim), now))
    return events


def silence(
    session: Session,
    g: Game,
    silent: Player,
    due: datetime.datetime,
    now: datetime.datetime,
    *,
    decisive: bool,
) -> list[ev.Event]:
    """Art. 31 (or the postal report to the TD): the claim packet goes to the TD."""

    p = profile_of(g.tournament)
    days = p.silence_days if decisive else p.silence_report_days
    return open_claim(
        session,
        g,
        "silence",
        silent,
        due,
        now,
        {"days": days, "decisive": decisive, "loses": decisive, "ply": len(g.moves)},
        decisive=decisive,
    )


def overstep(
    session: Session,
    g: Game,
    player: Player,
    at: datetime.datetime,
    now: datetime.datetime,
    state: clock.ControlState,
) -> list[ev.Event]:
    """Rules.md 2.2: the bot finds the overstep itself and sends the packet."""

    p = profile_of(g.tournament)
    first = len(state.oversteps) < p.oversteps_to_lose
    used, limit, control_move = _exceeded(p, state)
    return open_claim(
        session,
        g,
        "overstep",
        player,
        at,
        now,
        {
            "used": used,
            "limit": limit,
            "control_move": control_move,
            "number": len(state.oversteps),
            "loses": state.lost,
            "decisive": state.lost,
            "first": first and not state.lost,
        },
        decisive=state.lost,
    )


def _exceeded(p: Profile, state: clock.ControlState) -> tuple[int, int, int]:
    """The days used, the limit and the control move of the player's last overstep.

    After a first overstep the state already shows the new count (0 days of
    30 by move 19); the packet names the control that was exceeded.
    """
    if not state.oversteps:
        return state.used_days, state.limit_days, state.next_control_move
    last = state.oversteps[-1]
    count_start = state.oversteps[-2].move_number + 1 if len(state.oversteps) > 1 else 1
    controls = max(1, last.limit // p.days_per_control)
    return last.used, last.limit, count_start - 1 + controls * p.moves_per_control


def _sweep_tournament(
    work: Work, t: Tournament, ids: Sequence[int], *, digest: bool = True
) -> list[str]:
    """The calendar of ``t``'s games ``ids``: leave ends (opponents told the clocks run
    again), withdrawn players' games and the end of the event; with ``digest``, the
    director's weekly digest."""

    session, now = work.session, work.now
    games = session.scalars(
        select(Game).where(Game.id.in_(ids)).options(*GAME_STATE).order_by(Game.number)
    ).all()
    passed = [(g, item) for g in games for item in _calendar(g) if item.at <= now]
    found: list[str] = []

    def add(kind: str, events: list[ev.Event]) -> None:
        found.append(kind)
        work.tell(*events)

    leave_ends = sorted(
        ((g, item) for g, item in passed if item.kind == "leave-end"),
        key=lambda gi: (
            gi[1].player.id if gi[1].player else 0,
            gi[1].leave.id if gi[1].leave else 0,
            gi[0].number,
        ),
    )
    for g, item in leave_ends:
        player, lv = item.player, item.leave
        assert player is not None and lv is not None
        if g.result is None and record_notice(session, g, player, item.kind, item.key, None, now):
            add("leave-end", [ev.LeaveEnded(g.id, player.id, lv.start, lv.end)])
    if digest and t.director_digest:
        found.extend(_director_digest(work, t))
    # art. 48, 52 note 1: a withdrawn player's game went to the arbiter before the end
    for g, item in passed:
        withdrawn = item.kind == "adjudication-packet" and item.key.startswith("withdrawal-")
        if (
            withdrawn
            and g.result is None
            and record_notice(session, g, None, item.kind, item.key, None, now)
        ):
            add("adjudication-packet", settle_adjudication_claims(session, g, now))
    end = t.extended_to or t.end
    for g, item in passed:
        if item.key != end.isoformat() or g.result is not None or withdrawal_adjudication(g):
            continue
        if item.kind == "adjudication-call" and record_notice(
            session, g, None, item.kind, item.key, None, now
        ):
            claims_due = game.adjudication_claims_due(end, profile_of(t))
            add("adjudication-call", [ev.AdjudicationCalled(g.id, end, claims_due)])
        if item.kind == "adjudication-packet" and record_notice(
            session, g, None, item.kind, item.key, None, now
        ):
            add("adjudication-packet", settle_adjudication_claims(session, g, now))
    return found


def _director_digest(work: Work, t: Tournament) -> list[str]:
    """The director's weekly digest: once an ISO week, from the event's start to its end."""
    tz = ZoneInfo(t.timezone)
    today = work.now.astimezone(tz).date()
    if today < t.start or today > (t.extended_to or t.end) + datetime.timedelta(days=7):
        return []
    year, week, _ = today.isocalendar()
    kind = "director-digest"
    ledger = select(Notice).where(Notice.tournament_id == t.id, Notice.kind == kind)
    last = work.session.scalars(ledger.order_by(Notice.created_at.desc())).first()
    key = f"{t.index} {year}-W{week:02d}"  # the ledger is unique across tournaments
    if last is not None and last.key == key:
        return []
    since = last.created_at if last is not None else clock.day_start(t.start, tz)
    work.session.add(Notice(tournament_id=t.id, kind=kind, key=key, created_at=work.now))
    work.tell(ev.DirectorDigest(t.id, since))
    return [kind]


def overstep_key(number: int, state: clock.ControlState) -> str:
    """The notice key of the last overstep in ``state``, at the player's move ``number``:
    ``move-9``, and ``move-9/2`` for a second overstep on the same move (003 p1 7e)."""
    on_move = sum(1 for o in state.oversteps if o.move_number == number)
    return f"move-{number}" if on_move <= 1 else f"move-{number}/{on_move}"


def overstep_on_move(
    session: Session, g: Game, mover: Player, sent: datetime.datetime, now: datetime.datetime
) -> list[ev.Event]:
    """Rules.md 2.2: a move whose days overstep the limit; the packet goes out once.

    The notice is keyed by the move number, like the sweep's for a silent
    player, so the overstep is reported once whichever finds it first.
    """
    color = color_of(g, mover)
    state = control_of(g, color)
    if not state.oversteps:
        return []
    last = state.oversteps[-1]
    own = sum(1 for m in g.moves if m.ply % 2 == (1 if color == chess.WHITE else 0))
    if last.move_number != own or last.awarded:
        return []
    if not record_notice(session, g, mover, "overstep", overstep_key(own, state), sent, now):
        return []
    return overstep(session, g, mover, sent, now, state)
