"""The deadline rules: what falls due in a game, and when.

Deadlines are data, not timers (docs/architecture.md, invariant 6): from the
stored game and ``now`` these rules compute what has fallen due (a repeat at
the profile's days, an overstep, silence, a leave's end, the end of the
event) and when the game must be looked at again (:func:`next_due`). Every
notice is entered in the ``notices`` ledger (:func:`record_notice`), keyed by
what makes it unique (the game, the player, the kind, the ply of the
unanswered move), so it is sent once however often the rules run; each
notice states the day it fell due, not the day it was sent. The sweep
(:mod:`mailbot.desk.sweep`) selects the due games and calls these rules; a
move calls :func:`overstep_on_move`.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Sequence
from typing import Any
from zoneinfo import ZoneInfo

import chess
from sqlalchemy import select
from sqlalchemy.orm import Session

from mailbot.desk.work import Work
from mailbot.rules import clock, game
from mailbot.rules import events as ev
from mailbot.rules.profile import Profile
from mailbot.store import decisions
from mailbot.store.endings import (
    claim_end,
    end_game,
    settle_adjudication_claims,
    withdrawal_adjudication,
)
from mailbot.store.kinds import ClaimDecider, ClaimKind, ClaimState
from mailbot.store.ledger import record_notice
from mailbot.store.models import Game, Leave, Notice, Player, Tournament
from mailbot.store.record import (
    Waiting,
    awarded_oversteps,
    color_name,
    color_of,
    control_of,
    history,
    profile_of,
    waiting,
)


def next_due(g: Game, now: datetime.datetime) -> datetime.datetime | None:
    """When the sweep must look at ``g`` again, as ``g`` stands after a sweep at ``now``.

    That is the earliest of its deadlines after ``now`` (repeat, overstep,
    silence, a leave's end, the end of the event, a warning's day), or a leave's end or the
    end of the event already passed but not yet announced (the tournament
    pass announces it). None when nothing can fall due before something
    changes; any change makes the game due again (:func:`mailbot.store.changes.mark_changed_games`).
    """
    if g.result is not None:
        return None
    stop = play_stops_at(g)
    found = [due for due in _clock_deadlines(g) if now < due < stop]
    found.extend(item.at for item in warnings(g) if item.at > now)
    for item in calendar(g):
        if item.at > now or not has_notice(g, item.player, item.kind, item.key):
            found.append(item.at)
    return min(found, default=None)


def _clock_deadlines(g: Game) -> list[datetime.datetime]:
    """The instants at which the player to move in ``g`` may be repeated, overstep
    or fall silent (whether it then happens is :func:`fall_due`'s to decide)."""
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
) -> tuple[list[clock.MoveTime], list[clock.ClockPenalty], list[int]]:
    """The moves the clock of ``color`` counts, its penalty days and awarded oversteps.

    003 p1 6g, art. 32: a player answering the opponent's conditional line may
    accept it and charge the time to the last move the line lets them play.
    """
    moves, penalties = history(g, color)
    thinking = [*moves, *_accepted_moves(g, color, len(moves))]
    return thinking, penalties, awarded_oversteps(g, color)


@dataclasses.dataclass(frozen=True)
class CalendarDue:
    """A date of the calendar that concerns a game: a leave's end, the end of the event."""

    kind: str
    key: str
    at: datetime.datetime
    player: Player | None = None
    leave: Leave | None = None


def calendar(g: Game) -> list[CalendarDue]:
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
        CalendarDue("leave-end", str(lv.id), clock.day_start(lv.end + day, tz), player, lv)
        for player in (g.white, g.black)
        for lv in player.leaves
    ]
    withdrawal = withdrawal_adjudication(g)
    if withdrawal is not None:
        opened = withdrawal.opened_at.astimezone(tz).date()
        due = game.adjudication_claims_due(opened, p) + day
        found.append(
            CalendarDue(
                "adjudication-packet", f"withdrawal-{withdrawal.id}", clock.day_start(due, tz)
            )
        )
    else:
        end = t.extended_to or t.end
        claims_due = game.adjudication_claims_due(end, p) + day
        found.append(
            CalendarDue("adjudication-call", end.isoformat(), clock.day_start(end + day, tz))
        )
        found.append(
            CalendarDue("adjudication-packet", end.isoformat(), clock.day_start(claims_due, tz))
        )
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


@dataclasses.dataclass
class _Pass:
    """One pass over a game's clock deadlines: what fell due in play is told to ``work``
    and its kind noted in ``found``."""

    work: Work
    g: Game
    wait: Waiting
    stop: datetime.datetime
    found: list[str] = dataclasses.field(default_factory=list)

    def fell_due(self, due: datetime.datetime) -> bool:
        return due <= self.work.now and due < self.stop

    def notice(self, kind: str, key: str, due: datetime.datetime) -> bool:
        """Whether the notice is new in the ledger (entered now)."""
        work = self.work
        notice = record_notice(work.session, self.g, self.wait.player, kind, key, due, work.now)
        return notice is not None

    def add(self, kind: str, events: list[ev.Event]) -> None:
        self.found.append(kind)
        self.work.tell(*events)


def fall_due(work: Work, g: Game) -> list[str]:
    """Repeats, oversteps and silence in one game, as far as they fell due in play.

    Tells ``work`` what fell due; returns the kinds, for the report.
    """
    due = _Pass(work, g, waiting(g), play_stops_at(g))
    _repeat(due)
    _oversteps(due)
    _silence(due)
    _warnings(due)
    return due.found


def _repeat(due: _Pass) -> None:
    """Art. 26: repeat the unanswered move, with a copy to the TD."""
    g, w = due.g, due.wait
    ply = len(g.moves)
    at = clock.repeat_due(w.profile, w.since, w.leaves, w.tz)
    if at is not None and due.fell_due(at) and ply > 0 and due.notice("repeat", str(ply), at):
        due.add("repeat", [ev.Repeated(g.id, w.player.id, at)])


def _oversteps(due: _Pass) -> None:
    """Art. 35-36 / docs/rules.md 2.2: an overstep while the player is silent."""
    session, now = due.work.session, due.work.now
    g, w = due.g, due.wait
    p, color, silent = w.profile, w.color, w.player
    thinking, penalties, awarded = _thinking(g, color)
    state = control_of(g, color)
    number = len(thinking) + 1
    # penalty days alone put the move being thought about over the limit
    reached = clock.control_state(p, thinking, penalties, 0, awarded)
    last = reached.oversteps[-1] if reached.oversteps else None
    if last is not None and last.move_number == number and not last.awarded:
        when = max((x.created_at for x in g.penalties if x.color == color_name(color)), default=now)
        if due.fell_due(when) and due.notice("overstep", f"move-{number}", when):
            due.add("overstep", overstep(session, g, silent, when, now, reached))

    # 003 p1 7e: a player silent past a first overstep oversteps again (postal play)
    for at in clock.overstep_times(p, thinking, w.since, penalties, w.leaves, w.tz, awarded):
        if not due.fell_due(at) or state.lost:
            break
        running = clock.move_days(p, w.since, at, w.leaves, w.tz)
        reached = clock.control_state(p, thinking, penalties, running, awarded)
        if due.notice("overstep", overstep_key(number, reached), at):
            due.add("overstep", overstep(session, g, silent, at, now, reached))
        if reached.lost:
            break


def _silence(due: _Pass) -> None:
    """Art. 31: silence without a delay notice."""
    session, now = due.work.session, due.work.now
    g, w = due.g, due.wait
    p, silent, ply = w.profile, w.player, len(g.moves)
    protected = _delay_noted(g, w)
    repeated = ply > 0 and has_notice(g, silent, "repeat", str(ply))
    for kind, deadline in (
        ("silence", clock.silence_due(p, w.since, w.leaves, w.tz)),
        ("silence-report", clock.silence_report_due(p, w.since, w.leaves, w.tz)),
    ):
        if deadline is None or not due.fell_due(deadline) or protected:
            continue
        if kind == "silence" and p.silence_requires_repeat and not repeated:
            continue
        if due.notice(kind, str(ply), deadline):
            due.add(kind, silence(session, g, silent, deadline, now, decisive=kind == "silence"))


@dataclasses.dataclass(frozen=True)
class WarningDay:
    """A warning of a deadline (docs/contract.md, "Warnings before deadlines"): ``days``
    days before ``due``, the day the ``deadline``'s own notice falls due (``control``,
    ``silence`` or ``end``), ``player`` is warned on the day that starts ``at``."""

    deadline: str
    days: int
    due: datetime.date
    at: datetime.datetime
    player: Player

    @property
    def key(self) -> str:
        """The warning's key in the notices ledger: ``control/10/2026-04-20``."""
        return f"{self.deadline}/{self.days}/{self.due.isoformat()}"


def warnings(g: Game) -> list[WarningDay]:
    """The warnings of ``g``'s deadlines, sent or not, as the game stands.

    Before each overstep and the silence notice of the player to move that
    would fall due in play, and before the end of the event to both players.
    """
    if g.result is not None:
        return []
    w = waiting(g)
    p, tz = w.profile, w.tz
    found: list[tuple[str, datetime.date, tuple[int, ...], tuple[Player, ...]]] = []
    stop = play_stops_at(g)
    thinking, penalties, awarded = _thinking(g, w.color)
    for at in clock.overstep_times(p, thinking, w.since, penalties, w.leaves, w.tz, awarded):
        if at < stop:
            found.append(("control", clock.local_date(at, tz), p.warn_control_days, (w.player,)))
    silent = clock.silence_due(p, w.since, w.leaves, w.tz)
    if silent is not None and silent < stop and not _delay_noted(g, w):
        found.append(("silence", clock.local_date(silent, tz), p.warn_silence_days, (w.player,)))
    if withdrawal_adjudication(g) is None:
        end = (g.tournament.extended_to or g.tournament.end) + datetime.timedelta(days=1)
        found.append(("end", end, p.warn_end_days, (g.white, g.black)))
    return [
        WarningDay(deadline, n, due, clock.day_start(due - datetime.timedelta(days=n), tz), who)
        for deadline, due, before, players in found
        for n in before
        for who in players
    ]


def _delay_noted(g: Game, w: Waiting) -> bool:
    """Whether the player to move noted a delay on this move (art. 25: no silence)."""
    colour = "white" if w.color else "black"
    return any(d.color == colour and d.ply_at == len(g.moves) for d in g.delays)


def _warnings(due: _Pass) -> None:
    """The warnings whose day is today: each once, never for a day already past,
    not to a player who wrote ``warnings off``."""
    work, g = due.work, due.g
    today = clock.local_date(work.now, due.wait.tz)
    for item in warnings(g):
        if item.at > work.now or clock.local_date(item.at, due.wait.tz) != today:
            continue
        if not item.player.warnings:
            continue
        if record_notice(work.session, g, item.player, "warning", item.key, item.at, work.now):
            event = ev.WarningDue(g.id, item.player.id, item.deadline, item.days, item.due)
            due.add("warning", [event])


def _accepted_moves(g: Game, color: chess.Color, played: int) -> list[clock.MoveTime]:
    """The silent player's moves the opponent's pending conditional line would play
    at no cost if accepted (each answered by the line), before the charged move."""
    line = g.pending_conditional or []
    if not line or g.pending_conditional_by == color_name(color):
        return []
    return [clock.MoveTime(played + 1 + i, 0) for i in range(len(line) // 2)]


#: The notices about one wait for a move, keyed by the number of plies played
#: while it lasts (:func:`fall_due`).
WAIT_NOTICES = ("repeat", "silence", "silence-report")


def void_wait_notices(session: Session, g: Game, ply: int, why: str) -> list[list[str]]:
    """Set aside the notices of the waits at ``ply`` plies and later, which moves now
    void ended (art. 20): the new waits are notified afresh.

    Each notice stays in the ledger, its key marked ``void by`` ``why``; returns
    the kinds and keys it had.
    """
    return decisions.void_notices(session, g, WAIT_NOTICES, ply, why)


def has_notice(g: Game, player: Player | None, kind: str, key: str) -> bool:
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


def claim_against(
    session: Session,
    g: Game,
    kind: ClaimKind,
    against: Player,
    due: datetime.datetime,
    now: datetime.datetime,
    details: dict[str, Any],
    *,
    decisive: bool,
) -> list[ev.Event]:
    """Open a claim against ``against``; with ``auto_forfeit`` it is decided at once."""

    p = profile_of(g.tournament)
    colour = "white" if against.id == g.white_id else "black"
    claim = decisions.open_claim(
        session, g, kind, now, {**details, "due": due.isoformat()}, against=colour
    )
    auto = decisive and p.auto_forfeit
    if auto:
        decisions.decide_claim(claim, ClaimState.CONFIRMED, now, ClaimDecider.AUTO)
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
    return claim_against(
        session,
        g,
        ClaimKind.SILENCE,
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
    return claim_against(
        session,
        g,
        ClaimKind.OVERSTEP,
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


#: The calendar dates of games that have come (:func:`passed`).
Passed = list[tuple[Game, CalendarDue]]


def passed(games: Sequence[Game], now: datetime.datetime) -> Passed:
    """The calendar dates of ``games`` that have come by ``now``, game by game."""
    return [(g, item) for g in games for item in calendar(g) if item.at <= now]


def leave_ends(work: Work, dates: Passed) -> list[str]:
    """Leave ends in unfinished games: each opponent is told the clocks run again.

    Tells ``work``; returns the kinds, for the report.
    """
    found: list[str] = []
    ends = sorted(
        ((g, item) for g, item in dates if item.kind == "leave-end"),
        key=lambda gi: (
            gi[1].player.id if gi[1].player else 0,
            gi[1].leave.id if gi[1].leave else 0,
            gi[0].number,
        ),
    )
    for g, item in ends:
        player, lv = item.player, item.leave
        assert player is not None and lv is not None
        if g.result is None and _calendar_notice(work, g, player, item):
            found.append("leave-end")
            work.tell(ev.LeaveEnded(g.id, player.id, lv.start, lv.end))
    return found


def adjudications(work: Work, t: Tournament, dates: Passed) -> list[str]:
    """Withdrawn players' games (art. 48, 52 note 1: they went to the arbiter before the
    end), then the end of the event (art. 52-53: the call for adjudication claims, then
    the packet). Tells ``work``; returns the kinds, for the report."""
    session, now = work.session, work.now
    found: list[str] = []

    def add(kind: str, events: list[ev.Event]) -> None:
        found.append(kind)
        work.tell(*events)

    for g, item in dates:
        withdrawn = item.kind == "adjudication-packet" and item.key.startswith("withdrawal-")
        if withdrawn and g.result is None and _calendar_notice(work, g, None, item):
            add("adjudication-packet", settle_adjudication_claims(session, g, now))
    end = t.extended_to or t.end
    for g, item in dates:
        if item.key != end.isoformat() or g.result is not None or withdrawal_adjudication(g):
            continue
        if item.kind == "adjudication-call" and _calendar_notice(work, g, None, item):
            claims_due = game.adjudication_claims_due(end, profile_of(t))
            add("adjudication-call", [ev.AdjudicationCalled(g.id, end, claims_due)])
        if item.kind == "adjudication-packet" and _calendar_notice(work, g, None, item):
            add("adjudication-packet", settle_adjudication_claims(session, g, now))
    return found


def _calendar_notice(work: Work, g: Game, player: Player | None, item: CalendarDue) -> bool:
    """Whether the notice of a calendar date is new in the ledger (entered now)."""
    return record_notice(work.session, g, player, item.kind, item.key, None, work.now) is not None
