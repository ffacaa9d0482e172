"""What falls due in a game, and when: one reading of every deadline (docs/rules.md 2.4).

From a game's state (:class:`GameState`: plain values, the profile among them)
:func:`schedule` gives every deadline that will fall as the game stands, each
on its instant: the repeat (art. 26), the oversteps (docs/rules.md 2.2), the
silence loss (art. 31) and the silence report (003 part 1 art. 3b), which a
delay notice in time takes away (:func:`notice_covers`), the end
of a leave, the end of the event and the adjudication (art. 48, 52-53), and
the warnings before them (docs/contract.md, "Warnings before deadlines").
:func:`sweep` says what of it has fallen due at ``now``. The desk's sweep
sends what this says has fallen due and the warnings announce what this
says will fall: a warning never announces a notice the sweep would not send.

bg-email, White silent from the start: no repeat before the first move, so
no silence loss (art. 31 needs a repeat) and no warning of one; the overstep
at 50 days is warned of 10 and 3 days before, the end of the event to both
players::

    >>> from datetime import date, datetime
    >>> from zoneinfo import ZoneInfo
    >>> from mailbot.rules.profile import profile
    >>> p, sofia = profile("bg-email"), ZoneInfo("Europe/Sofia")
    >>> state = GameState(p, sofia, end=date(2026, 12, 31), ply=0,
    ...                   since=clock.first_move_receipt(p, date(2026, 3, 1), sofia))
    >>> for d in schedule(state):
    ...     print(d.kind.value, d.key, d.at.date(), *[d.whom or "the director"])
    warning control/10/2026-04-21 2026-04-11 white
    warning control/3/2026-04-21 2026-04-18 white
    overstep move-1 2026-04-21 white
    warning end/30/2027-01-01 2026-12-02 white
    warning end/30/2027-01-01 2026-12-02 black
    adjudication-call 2026-12-31 2027-01-01 the director
    adjudication-packet 2026-12-31 2027-01-16 the director
    >>> sweep(state, datetime(2026, 4, 5, 9, tzinfo=sofia))
    ()
    >>> [d.key for d in sweep(state, datetime(2026, 4, 11, 9, tzinfo=sofia))]
    ['control/10/2026-04-21']
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta, tzinfo

from mailbot.rules import clock, game
from mailbot.rules.leave import LeavePeriod
from mailbot.rules.profile import Profile
from mailbot.rules.result import Colour

__all__ = [
    "Deadline",
    "DueKind",
    "GameState",
    "LeaveEnd",
    "calendar",
    "fallen",
    "notice_covers",
    "notice_spares_repeat",
    "overstep_key",
    "play_stops_at",
    "schedule",
    "sweep",
]

_ONE_DAY = timedelta(days=1)


class DueKind(enum.StrEnum):
    """What falls due: each kind is a notice of its own in the ledger."""

    REPEAT = "repeat"
    OVERSTEP = "overstep"
    SILENCE = "silence"
    SILENCE_REPORT = "silence-report"
    LEAVE_END = "leave-end"
    ADJUDICATION_CALL = "adjudication-call"
    ADJUDICATION_PACKET = "adjudication-packet"
    WARNING = "warning"

    @property
    def on_the_clock(self) -> bool:
        """Whether it falls due while the game is played (the clock of the player to
        move, and the warnings); else it is a date of the calendar."""
        return self in _ON_THE_CLOCK


_ON_THE_CLOCK = frozenset(
    {DueKind.REPEAT, DueKind.OVERSTEP, DueKind.SILENCE, DueKind.SILENCE_REPORT, DueKind.WARNING}
)

#: The word a warning names its deadline by (``X-Mailbot-Warning``), by the kind it announces.
ANNOUNCED = {DueKind.OVERSTEP: "control", DueKind.SILENCE: "silence",
             DueKind.ADJUDICATION_CALL: "end"}  # fmt: skip


@dataclasses.dataclass(frozen=True)
class LeaveEnd:
    """A leave of one of the game's players: its end is told to the opponent."""

    colour: Colour
    #: The leave's number in the store (the notice's key).
    leave: int
    start: date
    end: date


@dataclasses.dataclass(frozen=True)
class GameState:
    """An unfinished game as the deadlines see it: plain values, read from the store.

    ``since``, ``leaves``, ``moves``, ``penalties``, ``awarded`` and
    ``penalised_at`` are the player to move's: the instant they received the
    move to answer, the leave that stops their clock, their moves as the clock
    counts them (a conditional line they may accept included), their penalty
    days, the oversteps the director awarded them and when their last penalty
    was imposed.
    """

    profile: Profile
    tz: tzinfo
    #: The event's last day, an extension included.
    end: date
    #: Half-moves played.
    ply: int
    since: datetime
    leaves: tuple[LeavePeriod, ...] = ()
    moves: tuple[clock.MoveTime, ...] = ()
    penalties: tuple[clock.ClockPenalty, ...] = ()
    awarded: tuple[int, ...] = ()
    penalised_at: datetime | None = None
    #: When the player to move's delay notice on this move reached the bot (art. 25),
    #: or None: a notice in time (:func:`notice_covers`) spares them the silence.
    noticed: datetime | None = None
    #: The withdrawn player's game went to the arbiter (art. 48): the claim's number, when.
    withdrawal: tuple[int, datetime] | None = None
    leave_ends: tuple[LeaveEnd, ...] = ()

    @property
    def to_move(self) -> Colour:
        return Colour.WHITE if self.ply % 2 == 0 else Colour.BLACK


@dataclasses.dataclass(frozen=True)
class Deadline:
    """One deadline: its notice's ``kind`` and ``key`` in the ledger and the instant ``at``.

    ``whom`` is the player it concerns (None: the game, for the director);
    an overstep carries the clock as it stands then (``control``), a leave's
    end its leave; a warning the deadline it ``announces``, ``days`` before the
    day ``due`` on which that one's notice falls.
    """

    kind: DueKind
    key: str
    at: datetime
    whom: Colour | None = None
    decisive: bool = False
    control: clock.ControlState | None = None
    leave: LeaveEnd | None = None
    announces: Deadline | None = None
    days: int = 0
    due: date | None = None
    #: Known before it falls, so a warning may announce it (not an overstep that
    #: penalty days caused on the day they were imposed).
    foreseen: bool = True

    @property
    def about(self) -> str:
        """A warning's word for the deadline it announces: ``control``, ``silence``, ``end``."""
        return ANNOUNCED[self.announces.kind] if self.announces else ""


def play_stops_at(end: date, tz: tzinfo, withdrawn: datetime | None = None) -> datetime:
    """The instant from which no clock runs: the game waits for the arbiter.

    That is the end of the event's last day ``end`` (art. 52-53), or the
    moment a withdrawn player's game went to the arbiter (art. 48; 003 part 1
    art. 9).

    >>> from zoneinfo import ZoneInfo
    >>> play_stops_at(date(2026, 4, 30), ZoneInfo("Europe/Sofia")).isoformat()
    '2026-05-01T00:00:00+03:00'
    """
    stop = clock.day_start(end + _ONE_DAY, tz)
    return stop if withdrawn is None else min(stop, withdrawn)


def schedule(state: GameState) -> tuple[Deadline, ...]:
    """Every deadline of the game as it stands, the warnings among them, earliest first.

    A deadline of the clock falls only while play goes on (before
    :func:`play_stops_at`), and none after one that ends the game by itself
    (a decisive notice where the profile forfeits without the director).
    """
    found = [*_clock(state), *calendar(state)]
    found.extend(_warnings(state, found))
    return tuple(sorted(found, key=lambda d: d.at))


def sweep(state: GameState, now: datetime) -> tuple[Deadline, ...]:
    """What has fallen due by ``now``: every deadline whose instant has come, and the
    warnings whose day is today (never one of a day already past)."""
    return fallen(schedule(state), now, state.tz)


def fallen(planned: Iterable[Deadline], now: datetime, tz: tzinfo) -> tuple[Deadline, ...]:
    """:func:`sweep` of a game whose :func:`schedule` is ``planned`` (its time zone ``tz``)."""
    today = clock.local_date(now, tz)
    return tuple(
        d
        for d in planned
        if d.at <= now and (d.kind is not DueKind.WARNING or clock.local_date(d.at, tz) == today)
    )


def _clock(state: GameState) -> list[Deadline]:
    """The repeat, the oversteps, the silence and its report of the player to move."""
    p, tz, who, ply = state.profile, state.tz, state.to_move, state.ply
    found: list[Deadline] = []
    covered = state.noticed is not None and notice_covers(state, state.noticed)
    repeat = clock.repeat_due(p, state.since, state.leaves, tz) if ply > 0 else None
    spared = covered and notice_spares_repeat(p)
    if repeat is not None and not (spared and state.noticed is not None and state.noticed < repeat):
        found.append(Deadline(DueKind.REPEAT, str(ply), repeat, who))
    found.extend(_oversteps(state))
    if not covered:
        silence = clock.silence_due(p, state.since, state.leaves, tz)
        # art. 31: the silence loss follows a repeat, so none before the first move
        if silence is not None and (
            not p.silence_requires_repeat or (repeat is not None and repeat <= silence)
        ):
            found.append(Deadline(DueKind.SILENCE, str(ply), silence, who, decisive=True))
        report = clock.silence_report_due(p, state.since, state.leaves, tz)
        if report is not None:
            found.append(Deadline(DueKind.SILENCE_REPORT, str(ply), report, who))
    stop = play_stops_at(state.end, tz, state.withdrawal[1] if state.withdrawal else None)
    if p.auto_forfeit:
        stop = min([stop, *(d.at + timedelta.resolution for d in found if d.decisive)])
    return [d for d in found if d.at < stop]


def notice_covers(state: GameState, at: datetime) -> bool:
    """Whether a delay notice that reached the bot at ``at`` covers the move awaited in
    ``state``: it came before ``notice_after_days`` days had run on it (art. 25: the
    opponent is told beforehand; :func:`clock.notice_limit`). A notice sent before the
    move came is in time. A notice in time spares the player the silence loss
    (art. 31; 003 part 2 art. 3b) and the silence report (003 part 1 art. 3b) on
    that move; a later one is kept for the director and spares nothing.

    >>> from zoneinfo import ZoneInfo
    >>> from mailbot.rules.profile import profile
    >>> utc = ZoneInfo("UTC")
    >>> since = datetime(2026, 3, 1, 10, tzinfo=utc)
    >>> state = GameState(profile("iccf-postal"), utc, end=date(2026, 12, 31), ply=1,
    ...                   since=since)
    >>> notice_covers(state, datetime(2026, 3, 15, 23, tzinfo=utc))
    True
    >>> notice_covers(state, datetime(2026, 3, 16, 1, tzinfo=utc))
    False
    """
    return at < clock.notice_limit(state.profile, state.since, state.leaves, state.tz)


def notice_spares_repeat(p: Profile) -> bool:
    """Whether a notice in time spares the player the repeat of the move (art. 26).

    It does where the notice is due no later than the repeat, so the partner knows
    of the delay before the repeat falls: ``iccf-postal`` (14 days against 14 plus
    the transit; 003 part 1 art. 3a: the notice is there "to avoid needless
    repeats"). Where the rules ask for the notice only after the repeat (art. 25:
    28 and 40 days; art. 26: the repeat at 14), the repeat goes as art. 26 says.

    >>> from mailbot.rules.profile import PROFILES
    >>> [name for name, p in PROFILES.items() if notice_spares_repeat(p)]
    ['iccf-postal']
    """
    if p.repeat_after_days is None:
        return False
    return p.notice_after_days <= p.repeat_after_days + p.repeat_transit_days


def _oversteps(state: GameState) -> list[Deadline]:
    """Docs/rules.md 2.2: penalty days alone put the move being thought about over the
    limit (on the day of the penalty), and the days running on it do (003 part 1 art. 7e:
    a player silent past a first overstep oversteps again in postal play)."""
    p, who = state.profile, state.to_move
    moves, penalties, awarded = state.moves, state.penalties, state.awarded
    number = len(moves) + 1
    found: list[Deadline] = []
    reached = clock.control_state(p, moves, penalties, 0, awarded)
    last = reached.oversteps[-1] if reached.oversteps else None
    if last and last.move_number == number and not last.awarded and state.penalised_at:
        found.append(
            dataclasses.replace(_overstep(state.penalised_at, number, reached, who), foreseen=False)
        )
    for at in clock.overstep_times(p, moves, state.since, penalties, state.leaves, state.tz,
                                   awarded):  # fmt: skip
        running = clock.move_days(p, state.since, at, state.leaves, state.tz)
        reached = clock.control_state(p, moves, penalties, running, awarded)
        found.append(_overstep(at, number, reached, who))
    return found


def _overstep(at: datetime, number: int, state: clock.ControlState, who: Colour) -> Deadline:
    return Deadline(DueKind.OVERSTEP, overstep_key(number, state), at, who, state.lost, state)


def overstep_key(number: int, state: clock.ControlState) -> str:
    """The notice key of the last overstep in ``state``, at the player's move ``number``:
    ``move-9``, and ``move-9/2`` for a second overstep on the same move (003 p1 7e).

    >>> o = clock.Overstep(9, 31, 30)
    >>> s = clock.ControlState(9, 10, 0, 31, 19, 30, (o, o), False)
    >>> overstep_key(9, s)
    'move-9/2'
    """
    on_move = sum(1 for o in state.oversteps if o.move_number == number)
    return f"move-{number}" if on_move <= 1 else f"move-{number}/{on_move}"


def calendar(state: GameState) -> list[Deadline]:
    """The calendar's dates, due at the start of the day after each: a player's leave
    ends (the opponent is told the clocks run again); a withdrawn player's game goes to
    the arbiter (art. 48); the event ends (art. 52-53: the call for adjudication claims,
    then the packet: the call carries the claims' last day in ``due``)."""
    tz, p = state.tz, state.profile

    def after(day: date) -> datetime:
        return clock.day_start(day + _ONE_DAY, tz)

    found = [
        Deadline(DueKind.LEAVE_END, str(lv.leave), after(lv.end), lv.colour, leave=lv)
        for lv in state.leave_ends
    ]
    if state.withdrawal is not None:
        claim, opened = state.withdrawal
        due = game.adjudication_claims_due(clock.local_date(opened, tz), p)
        found.append(Deadline(DueKind.ADJUDICATION_PACKET, f"withdrawal-{claim}", after(due)))
        return found
    end, claims_due = state.end, game.adjudication_claims_due(state.end, p)
    found.append(Deadline(DueKind.ADJUDICATION_CALL, end.isoformat(), after(end), due=claims_due))
    found.append(Deadline(DueKind.ADJUDICATION_PACKET, end.isoformat(), after(claims_due)))
    return found


def _warnings(state: GameState, deadlines: Iterable[Deadline]) -> list[Deadline]:
    """The warnings of the deadlines that would cost a player: each overstep the days
    running on the move reach, the silence loss, the end of the event (to both)."""
    p, tz = state.profile, state.tz
    before = {DueKind.OVERSTEP: p.warn_control_days, DueKind.SILENCE: p.warn_silence_days,
              DueKind.ADJUDICATION_CALL: p.warn_end_days}  # fmt: skip
    found: list[Deadline] = []
    for d in deadlines:
        if d.kind not in before or not d.foreseen:
            continue
        due = clock.local_date(d.at, tz)
        whom: Sequence[Colour | None] = (d.whom,) if d.whom else (Colour.WHITE, Colour.BLACK)
        for n in before[d.kind]:
            at = clock.day_start(due - timedelta(days=n), tz)
            key = f"{ANNOUNCED[d.kind]}/{n}/{due.isoformat()}"
            found.extend(
                Deadline(DueKind.WARNING, key, at, who, announces=d, days=n, due=due)
                for who in whom
            )
    return found
