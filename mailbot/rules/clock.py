"""The clock: days per move, time controls, oversteps and deadlines (docs/rules.md 2.1-2.3).

Every function here is pure: instants are timezone-aware ``datetime`` values
passed in by the caller (the bot's own date stamps; "now" for a move still
being thought about), and calendar arithmetic is done in the tournament's
time zone (by default the profile's).

Days on one move (docs/rules.md 2.1). ``received`` is the instant the bot
forwarded the opponent's move to the player, ``sent`` the instant the
player's reply arrived::

    >>> from datetime import datetime
    >>> from zoneinfo import ZoneInfo
    >>> from mailbot.rules.profile import profile
    >>> sofia = ZoneInfo("Europe/Sofia")
    >>> move_days(profile("bg-email"), datetime(2026, 3, 11, 9, 0, tzinfo=sofia),
    ...           datetime(2026, 3, 13, 18, 0, tzinfo=sofia))
    1

The same functions with ``sent=now`` give the days running on the move the
player is thinking about.

Time control (docs/rules.md 2.2): a player's history is a sequence of
:class:`MoveTime` values and :class:`Penalty` values; :func:`control_state`
says how much time is used, where the next control is and whether the player
overstepped::

    >>> history = [MoveTime(n, 5) for n in range(1, 10)]
    >>> state = control_state(profile("bg-email"), history, running_days=6)
    >>> state.used_days, state.limit_days, state.lost
    (51, 50, True)
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from zoneinfo import ZoneInfo

from mailbot.rules.errors import RulesError
from mailbot.rules.leave import LeavePeriod
from mailbot.rules.profile import DayCounting, Profile, ProfileError

_ONE_DAY = timedelta(days=1)


class NaiveDatetimeError(RulesError, ValueError):
    """An instant without a time zone where the clock needs one."""


class MoveHistoryError(RulesError, ValueError):
    """Move times or penalties that do not form a player's history."""


# -- calendar helpers ------------------------------------------------------


def zone(profile: Profile, tz: tzinfo | None = None) -> tzinfo:
    """The time zone the clock counts in: ``tz`` when given, else the profile's.

    >>> from mailbot.rules.profile import profile
    >>> zone(profile("bg-email"))
    zoneinfo.ZoneInfo(key='Europe/Sofia')
    """
    return tz if tz is not None else ZoneInfo(profile.timezone)


def local_date(instant: datetime, tz: tzinfo) -> date:
    """The calendar day of ``instant`` in ``tz``.

    >>> local_date(datetime(2026, 3, 28, 22, 30, tzinfo=UTC), ZoneInfo("Europe/Sofia"))
    datetime.date(2026, 3, 29)
    """
    _require_aware("instant", instant)
    return instant.astimezone(tz).date()


def day_start(day: date, tz: tzinfo) -> datetime:
    """The first instant of the calendar ``day`` in ``tz`` (local midnight).

    >>> day_start(date(2026, 3, 29), ZoneInfo("Europe/Sofia")).isoformat()
    '2026-03-29T00:00:00+02:00'
    """
    # Through UTC, so that a midnight skipped by a clock change becomes a real instant.
    return datetime.combine(day, time(), tzinfo=tz).astimezone(UTC).astimezone(tz)


def _require_aware(name: str, instant: datetime) -> None:
    if instant.tzinfo is None or instant.utcoffset() is None:
        raise NaiveDatetimeError(f"{name} must carry a time zone, got {instant.isoformat()}")


def _leave_runs(leave: Iterable[LeavePeriod], first: date | None = None) -> list[tuple[date, date]]:
    """The leave days as sorted, disjoint runs ``(start, end)``, from ``first`` on."""
    spans = sorted(
        (item.start if first is None else max(item.start, first), item.end)
        for item in leave
        if first is None or item.end >= first
    )
    runs: list[tuple[date, date]] = []
    for start, end in spans:
        if runs and start <= runs[-1][1] + _ONE_DAY:
            if end > runs[-1][1]:
                runs[-1] = (runs[-1][0], end)
        else:
            runs.append((start, end))
    return runs


def _counted_dates(first: date, stop: date, leave: Iterable[LeavePeriod]) -> int:
    """How many days ``d`` with ``first <= d < stop`` are not leave days."""
    if stop <= first:
        return 0
    last = stop - _ONE_DAY
    on_leave = sum(
        (min(end, last) - start).days + 1
        for start, end in _leave_runs(leave, first)
        if start <= last
    )
    return (stop - first).days - on_leave


def _nth_counted_date(first: date, n: int, leave: Iterable[LeavePeriod]) -> date:
    """The ``n``-th day (``n >= 1``) from ``first`` on that is not a leave day."""
    cursor = first
    for start, end in _leave_runs(leave, first):
        gap = (start - cursor).days
        if gap >= n:
            break
        n -= max(0, gap)
        cursor = max(cursor, end + _ONE_DAY)
    return cursor + timedelta(days=n - 1)


def _leave_intervals(leave: Iterable[LeavePeriod], tz: tzinfo) -> list[tuple[datetime, datetime]]:
    """The leave as real-time intervals, local midnight to local midnight, in UTC."""
    return [
        (day_start(start, tz).astimezone(UTC), day_start(end + _ONE_DAY, tz).astimezone(UTC))
        for start, end in _leave_runs(leave)
    ]


def _elapsed_off_leave(
    start: datetime, stop: datetime, leave: Iterable[LeavePeriod], tz: tzinfo
) -> timedelta:
    """Real time from ``start`` to ``stop`` that is not on leave (zero if ``stop`` is earlier)."""
    start, stop = start.astimezone(UTC), stop.astimezone(UTC)
    if stop <= start:
        return timedelta(0)
    elapsed = stop - start
    for begin, end in _leave_intervals(leave, tz):
        overlap = min(end, stop) - max(begin, start)
        if overlap > timedelta(0):
            elapsed -= overlap
    return elapsed


# -- days on one move (docs/rules.md 2.1) ----------------------------------------


def _raw_days(
    profile: Profile, received: datetime, sent: datetime, leave: Iterable[LeavePeriod], tz: tzinfo
) -> int:
    """The days of one move before days over the doubling threshold count twice."""
    if profile.day_counting is DayCounting.ELAPSED_HOURS:
        return _elapsed_off_leave(received, sent, leave, tz) // _ONE_DAY
    first = local_date(received, tz)
    if profile.day_counting is DayCounting.CALENDAR_AFTER_RECEIPT:
        first += _ONE_DAY
    return _counted_dates(first, local_date(sent, tz), leave)


def _doubled(profile: Profile, raw: int) -> int:
    threshold = profile.double_after_days
    if threshold is None or raw <= threshold:
        return raw
    return threshold + 2 * (raw - threshold)


def _undoubled(profile: Profile, days: int) -> int:
    """The fewest raw days that count as at least ``days``."""
    threshold = profile.double_after_days
    if threshold is None or days <= threshold:
        return days
    return threshold + -(-(days - threshold) // 2)


def move_days(
    profile: Profile,
    received: datetime,
    sent: datetime,
    leave: Iterable[LeavePeriod] = (),
    tz: tzinfo | None = None,
) -> int:
    """The days a player used on one move (docs/rules.md 2.1).

    ``received``: the instant the bot forwarded the opponent's move to the
    player; ``sent``: the instant the player's reply arrived (with
    ``sent=now``: the days running on the move). ``leave``: the player's own
    leave in this game (the opponent's leave does not stop this clock:
    003 part 1 art. 8a). Counting, with ``r`` and ``s`` the local dates:

    - calendar, receipt day not counted (Bulgarian, art. 8 D): the days
      ``r+1 <= d < s`` that are not leave days;
    - calendar, receipt day counted (ICCF postal): ``r <= d < s``;
    - elapsed hours (ICCF server, 003 part 2 art. 6b): whole 24-hour units of
      real elapsed time, less the hours of leave days (local midnight to
      midnight, so a day of a clock change has 23 or 25 hours).

    Then, when the profile sets ``double_after_days`` (20 on the server),
    every day above it counts twice. Never negative.

    >>> from mailbot.rules.profile import profile
    >>> utc = ZoneInfo("UTC")
    >>> move_days(profile("iccf-server"), datetime(2026, 3, 1, 12, tzinfo=utc),
    ...           datetime(2026, 3, 22, 17, tzinfo=utc))
    22
    >>> july = [LeavePeriod(date(2026, 7, 7), date(2026, 7, 13))]
    >>> move_days(profile("iccf-postal"), datetime(2026, 7, 6, 10, tzinfo=utc),
    ...           datetime(2026, 7, 14, 10, tzinfo=utc), july)
    1
    """
    _require_aware("received", received)
    _require_aware("sent", sent)
    return _doubled(profile, _raw_days(profile, received, sent, tuple(leave), zone(profile, tz)))


def first_move_receipt(profile: Profile, start: date, tz: tzinfo | None = None) -> datetime:
    """The instant that plays the part of the receipt for a game's first move (art. 24).

    The first mover's clock runs from the start date on the start list, which
    counts as the first counted day: ``r+1`` of the Bulgarian counting (so the
    "receipt" is the day before), ``r`` of ICCF postal counting, and 00:00
    local of the start date on the server.

    >>> from mailbot.rules.profile import profile
    >>> first_move_receipt(profile("bg-email"), date(2026, 3, 1)).isoformat()
    '2026-02-28T00:00:00+02:00'
    >>> first_move_receipt(profile("iccf-server"), date(2026, 3, 1)).isoformat()
    '2026-03-01T00:00:00+00:00'
    """
    tz = zone(profile, tz)
    if profile.day_counting is DayCounting.CALENDAR_AFTER_RECEIPT:
        return day_start(start - _ONE_DAY, tz)
    return day_start(start, tz)


def first_move_days(
    profile: Profile,
    start: date,
    sent: datetime,
    leave: Iterable[LeavePeriod] = (),
    tz: tzinfo | None = None,
) -> int:
    """The days used on the first move of a game that started on ``start`` (art. 24).

    >>> from mailbot.rules.profile import profile
    >>> sofia = ZoneInfo("Europe/Sofia")
    >>> sent = datetime(2026, 3, 5, 8, tzinfo=sofia)
    >>> first_move_days(profile("bg-email"), date(2026, 3, 1), sent)
    4
    """
    return move_days(profile, first_move_receipt(profile, start, tz), sent, leave, tz)


def _raw_days_reached_at(
    profile: Profile, received: datetime, raw: int, leave: Iterable[LeavePeriod], tz: tzinfo
) -> datetime:
    """The first instant at which a move's raw days reach ``raw``."""
    if raw <= 0:
        return received
    if profile.day_counting is DayCounting.ELAPSED_HOURS:
        cursor, need = received.astimezone(UTC), raw * _ONE_DAY
        for begin, end in _leave_intervals(leave, tz):
            if end <= cursor:
                continue
            if begin > cursor:
                if begin - cursor >= need:
                    break
                need -= begin - cursor
            cursor = max(cursor, end)
        return (cursor + need).astimezone(tz)
    first = local_date(received, tz)
    if profile.day_counting is DayCounting.CALENDAR_AFTER_RECEIPT:
        first += _ONE_DAY
    return day_start(_nth_counted_date(first, raw, leave) + _ONE_DAY, tz)


def days_reached_at(
    profile: Profile,
    received: datetime,
    days: int,
    leave: Iterable[LeavePeriod] = (),
    tz: tzinfo | None = None,
) -> datetime:
    """The first instant at which the days running on a move reach ``days``.

        The inverse of :func:`move_days`: ``move_days(p, received, t) >= days``
        exactly when ``t >= days_reached_at(p, received, days)``. Calendar
        counting turns a day at local midnight; elapsed hours at the exact instant.

        >>> from mailbot.rules.profile import profile
        >>> sofia = ZoneInfo("Europe/Sofia")
        >>> received = datetime(2026, 3, 11, 15, 30, tzinfo=sofia)
        >>> days_reached_at(profile("bg-email"), received, 3).isoformat()
        '2026-03-15T00:00:00+02:00'
        >>> days_reached_at(profile("iccf-server"), received, 22, tz=sofia).isoformat()
        '2026-04-01T16:30:00+03:00'

    (21 real days of 24 hours: local time moved an hour on 29 March.)
    """
    _require_aware("received", received)
    tz = zone(profile, tz)
    return _raw_days_reached_at(profile, received, _undoubled(profile, days), tuple(leave), tz)


# -- time control and oversteps (docs/rules.md 2.2) ----------------------------


@dataclasses.dataclass(frozen=True)
class MoveTime:
    """The days a player used on one of their moves (0 for a conditional move played for them)."""

    move_number: int
    days: int


@dataclasses.dataclass(frozen=True)
class ClockPenalty:
    """Days added to a player's time (art. 17, 22, 40, 56).

    ``move_number`` is the player's move at which it was imposed (the move
    they were trying to make, or the move they are to make next): the
    penalty belongs to the count that move belongs to.
    """

    days: int
    move_number: int


@dataclasses.dataclass(frozen=True)
class Overstep:
    """A time-control overstep: at ``move_number`` the used time exceeded the limit."""

    move_number: int
    #: Days used in the count when the overstep was found (penalties included).
    used: int
    #: The limit of the control that was exceeded.
    limit: int
    #: Awarded by the tournament director (art. 56) rather than found on the clock.
    awarded: bool = False


@dataclasses.dataclass(frozen=True)
class ControlState:
    """A player's time-control position after their history."""

    #: The player's next move: the one being thought about, or the one to come.
    move_number: int
    #: The move at which the current count began (1, or the move after an overstep).
    count_start: int
    #: Days used in the current count, penalties included.
    used_days: int
    #: Days used in the whole game, penalties included.
    total_days: int
    #: The move by which ``used_days`` must not exceed ``limit_days`` (once the
    #: game is lost: the control that was exceeded).
    next_control_move: int
    limit_days: int
    oversteps: tuple[Overstep, ...]
    #: The overstep that loses the game has happened (the loss stands when the
    #: director confirms it, or at once with ``auto_forfeit``).
    lost: bool

    @property
    def days_left(self) -> int:
        """Days that may still be used before the next control (negative once lost)."""
        return self.limit_days - self.used_days


def _control(profile: Profile, count_start: int, move_number: int) -> tuple[int, int]:
    """The next control move and its limit for ``move_number`` in a count from ``count_start``."""
    per = profile.moves_per_control
    k = max(1, -(-(move_number - count_start + 1) // per))
    return count_start - 1 + k * per, k * profile.days_per_control


def control_state(
    profile: Profile,
    moves: Sequence[MoveTime],
    penalties: Sequence[ClockPenalty] = (),
    running_days: int | None = None,
    awarded: Collection[int] = (),
) -> ControlState:
    """Used time, the next control and the oversteps of one player (docs/rules.md 2.2).

    ``moves``: the player's completed moves in order, consecutive numbers;
    ``running_days``: the days running on the move being thought about (None
    when it is the opponent's turn); ``penalties``: days added, each at the
    move it belongs to; ``awarded``: move numbers at which the director
    awarded an overstep (art. 56).

    With ``N`` days per ``M`` moves, a player oversteps when the used time of
    the current count exceeds ``N * k``, where the move is at most the
    ``k * M``-th of the count (art. 27; 003 part 1 art. 6a). An overstep
    that does not lose (the first of two, art. 28) restarts the count from
    zero at the next move, with controls ``M``, ``2M``, ... moves after it
    (art. 30; 003 part 1 art. 6b); the overstepping move belongs entirely to
    the old count. The ``oversteps_to_lose``-th overstep loses (0: none does).

    003 part 1 art. 6b: 31 days on 9 moves under 30 days per 10 moves is the
    first overstep; the new controls are moves 19, 29, ...

    >>> from mailbot.rules.profile import profile
    >>> history = [MoveTime(n, 3) for n in range(1, 9)] + [MoveTime(9, 7)]
    >>> state = control_state(profile("bg-post"), history)
    >>> state.oversteps
    (Overstep(move_number=9, used=31, limit=30, awarded=False),)
    >>> state.count_start, state.next_control_move, state.days_left, state.lost
    (10, 19, 30, False)
    >>> history += [MoveTime(n, 3) for n in range(10, 19)]
    >>> control_state(profile("bg-post"), history, running_days=4).lost
    True
    """
    first = _first_move(profile, moves, running_days)
    upcoming = moves[-1].move_number + 1 if moves else first
    penalty_days = _penalty_days(penalties, first, upcoming)
    _check_awarded(awarded, first, upcoming)
    days_by_move = {move.move_number: move.days for move in moves}
    days_by_move[upcoming] = running_days or 0
    walk = _walk_counts(profile, first, upcoming, days_by_move, penalty_days, awarded)
    if walk.losing_control is not None:
        next_control, limit = walk.losing_control
    else:
        next_control, limit = _control(profile, walk.count_start, upcoming)
    return ControlState(
        move_number=upcoming,
        count_start=walk.count_start,
        used_days=walk.used,
        total_days=walk.total,
        next_control_move=next_control,
        limit_days=limit,
        oversteps=tuple(walk.oversteps),
        lost=walk.losing_control is not None,
    )


def _first_move(profile: Profile, moves: Sequence[MoveTime], running_days: int | None) -> int:
    """The first move's number, once the profile and the history are fit to count."""
    if profile.moves_per_control < 1:
        raise ProfileError("rules.moves_per_control", "must be at least 1")
    first = moves[0].move_number if moves else 1
    if first < 1:
        raise MoveHistoryError(f"move numbers start at 1, got {first}")
    for before, after in itertools.pairwise(moves):
        if after.move_number != before.move_number + 1:
            raise MoveHistoryError(
                f"move {after.move_number} follows move {before.move_number}; "
                "the history must have consecutive move numbers"
            )
    for move in moves:
        if move.days < 0:
            raise MoveHistoryError(f"move {move.move_number}: days must not be negative")
    if running_days is not None and running_days < 0:
        raise MoveHistoryError("running days must not be negative")
    return first


def _penalty_days(penalties: Sequence[ClockPenalty], first: int, upcoming: int) -> dict[int, int]:
    """The penalty days added at each move number (moves ``first`` to ``upcoming``)."""
    penalty_days: dict[int, int] = {}
    for penalty in penalties:
        if penalty.days < 0:
            raise MoveHistoryError(f"penalty at move {penalty.move_number} must not be negative")
        if not first <= penalty.move_number <= upcoming:
            raise MoveHistoryError(
                f"penalty at move {penalty.move_number} is outside moves {first}-{upcoming}"
            )
        penalty_days[penalty.move_number] = penalty_days.get(penalty.move_number, 0) + penalty.days
    return penalty_days


def _check_awarded(awarded: Collection[int], first: int, upcoming: int) -> None:
    for move_number in awarded:
        if not first <= move_number <= upcoming:
            raise MoveHistoryError(
                f"overstep awarded at move {move_number} is outside moves {first}-{upcoming}"
            )


@dataclasses.dataclass
class _Walk:
    """The counts walked through a player's moves: where the last began, its days, oversteps."""

    count_start: int
    used: int = 0
    total: int = 0
    oversteps: list[Overstep] = dataclasses.field(default_factory=list)
    #: The control that was overstepped for the loss, None while not lost.
    losing_control: tuple[int, int] | None = None


def _walk_counts(
    profile: Profile,
    first: int,
    upcoming: int,
    days_by_move: Mapping[int, int],
    penalty_days: Mapping[int, int],
    awarded: Collection[int],
) -> _Walk:
    """Add up each move's days, restarting the count after each overstep that does not lose."""
    walk = _Walk(first)
    for move_number in range(first, upcoming + 1):
        added = days_by_move[move_number] + penalty_days.get(move_number, 0)
        walk.used += added
        walk.total += added
        if walk.losing_control is not None:
            continue
        control = _control(profile, walk.count_start, move_number)
        limit = control[1]
        if walk.used > limit or move_number in awarded:
            walk.oversteps.append(
                Overstep(move_number, walk.used, limit, awarded=walk.used <= limit)
            )
            # 003 part 1 art. 7e: the days of this move after the overstep was found
            # (the day the limit was passed) belong to the new count
            carry = 0
            if profile.count_runs_from_overstep and walk.used > limit:
                carry = min(days_by_move[move_number], walk.used - limit - 1)
            _after_overstep(profile, walk, move_number, carry, control)
    return walk


def _after_overstep(
    profile: Profile, walk: _Walk, move_number: int, carry: int, control: tuple[int, int]
) -> None:
    """Lose on the ``oversteps_to_lose``-th overstep, else start a new count after the move."""
    while True:
        if 0 < profile.oversteps_to_lose <= len(walk.oversteps):
            walk.losing_control = control
            return
        walk.count_start, walk.used = move_number + 1, carry
        control = _control(profile, walk.count_start, walk.count_start)
        if walk.used <= control[1]:
            return
        # silent past the new count's first control too: a second overstep
        walk.oversteps.append(Overstep(move_number, walk.used, control[1]))
        carry = walk.used - control[1] - 1


def overstep_at(
    profile: Profile,
    moves: Sequence[MoveTime],
    received: datetime,
    penalties: Sequence[ClockPenalty] = (),
    leave: Iterable[LeavePeriod] = (),
    tz: tzinfo | None = None,
    awarded: Collection[int] = (),
) -> datetime | None:
    """The instant at which a player thinking about their next move oversteps.

    ``received``: the instant the move they answer was forwarded to them
    (:func:`first_move_receipt` for a game's first move). A sweep that runs
    late still dates the overstep on the right day. None when the days
    running on this move cannot cause an overstep: the game is lost already,
    or the move overstepped already through a penalty.

    >>> from mailbot.rules.profile import profile
    >>> sofia = ZoneInfo("Europe/Sofia")
    >>> history = [MoveTime(n, 3) for n in range(1, 9)]  # 24 of 30 days used
    >>> overstep_at(profile("bg-post"), history, datetime(2026, 3, 1, 10, tzinfo=sofia)).isoformat()
    '2026-03-09T00:00:00+02:00'
    """
    _require_aware("received", received)
    state = control_state(profile, moves, penalties, running_days=0, awarded=awarded)
    if state.lost or state.count_start > state.move_number:
        return None
    return days_reached_at(profile, received, state.days_left + 1, leave, tz)


def overstep_times(
    profile: Profile,
    moves: Sequence[MoveTime],
    received: datetime,
    penalties: Sequence[ClockPenalty] = (),
    leave: Iterable[LeavePeriod] = (),
    tz: tzinfo | None = None,
    awarded: Collection[int] = (),
) -> list[datetime]:
    """The instants at which a silent player oversteps on the move being thought about.

    The first overstep; and where the new count runs from it (postal play,
    003 part 1 art. 7e: a player who knows of his overstep cannot drag the
    game out to avoid a second), the second, one control's days later.

    003 part 1 art. 6b under iccf-postal (30 days per 10 moves, the day of
    receipt counted): 24 days used by move 8; the move received on 1 March
    oversteps once its 7th day (7 March) is over, and the silent player
    oversteps again 31 days later, which loses:

    >>> from mailbot.rules.profile import profile
    >>> history = [MoveTime(n, 3) for n in range(1, 9)]
    >>> moment = datetime(2026, 3, 1, 10, tzinfo=ZoneInfo("UTC"))
    >>> [t.date().isoformat() for t in overstep_times(profile("iccf-postal"), history, moment)]
    ['2026-03-08', '2026-04-08']
    """
    _require_aware("received", received)
    state = control_state(profile, moves, penalties, running_days=0, awarded=awarded)
    if state.count_start > state.move_number and not profile.count_runs_from_overstep:
        return []  # penalty days alone overstepped on this move; the days run in no count
    found: list[datetime] = []
    running = 0
    # one overstep, or where the count runs on from it, as many as lose the game
    most = max(profile.oversteps_to_lose, 1) if profile.count_runs_from_overstep else 1
    while not state.lost and len(found) < most:
        running += state.days_left + 1
        found.append(days_reached_at(profile, received, running, leave, tz))
        state = control_state(profile, moves, penalties, running_days=running, awarded=awarded)
    return found


# -- totals and conditional moves (art. 8, 10, 32; 003 part 1 art. 6g) -----


@dataclasses.dataclass(frozen=True)
class Totals:
    """Both players' total days (moves plus penalties), as on the move line (art. 8 З)."""

    white: int
    black: int


def total_days(moves: Iterable[MoveTime], penalties: Iterable[ClockPenalty] = ()) -> int:
    """A player's total days in the whole game, penalties included.

    After a first overstep the Bulgarian move line shows the time since the
    new count began (art. 7 З note): that is :attr:`ControlState.used_days`.

    >>> total_days([MoveTime(1, 3), MoveTime(2, 4)], [ClockPenalty(5, 2)])
    12
    """
    return sum(move.days for move in moves) + sum(penalty.days for penalty in penalties)


def totals(
    white_moves: Iterable[MoveTime],
    black_moves: Iterable[MoveTime],
    white_penalties: Iterable[ClockPenalty] = (),
    black_penalties: Iterable[ClockPenalty] = (),
) -> Totals:
    """Both players' totals for the move line.

    >>> totals([MoveTime(1, 15)], [MoveTime(1, 16)], black_penalties=[ClockPenalty(5, 1)])
    Totals(white=15, black=21)
    """
    return Totals(
        total_days(white_moves, white_penalties), total_days(black_moves, black_penalties)
    )


# -- deadlines for the sweep (art. 25, 26, 31; 003 part 1 art. 3a, 3b) -----


def repeat_due(
    profile: Profile,
    forwarded: datetime,
    leave: Iterable[LeavePeriod] = (),
    tz: tzinfo | None = None,
) -> datetime | None:
    """When an unanswered move falls due for repetition (art. 26; 003 part 1 art. 3a).

    ``repeat_after_days + repeat_transit_days`` calendar days after the day
    the move was forwarded, the player's leave days not counted (003 part 1
    art. 3a); due at local midnight. None when the profile never repeats.

    >>> from mailbot.rules.profile import profile
    >>> sofia = ZoneInfo("Europe/Sofia")
    >>> repeat_due(profile("bg-email"), datetime(2026, 3, 1, 10, tzinfo=sofia)).isoformat()
    '2026-03-15T00:00:00+02:00'
    """
    if profile.repeat_after_days is None:
        return None
    _require_aware("forwarded", forwarded)
    tz = zone(profile, tz)
    days = profile.repeat_after_days + profile.repeat_transit_days
    if days <= 0:
        return forwarded
    first = local_date(forwarded, tz) + _ONE_DAY
    return day_start(_nth_counted_date(first, days, tuple(leave)), tz)


def _exceeded_at(
    profile: Profile,
    forwarded: datetime,
    days: int,
    leave: Iterable[LeavePeriod],
    tz: tzinfo | None,
) -> datetime:
    _require_aware("forwarded", forwarded)
    return _raw_days_reached_at(profile, forwarded, days + 1, tuple(leave), zone(profile, tz))


def silence_due(
    profile: Profile,
    forwarded: datetime,
    leave: Iterable[LeavePeriod] = (),
    tz: tzinfo | None = None,
) -> datetime | None:
    """When silence on a move loses (art. 31; 003 part 2 art. 3b), or None if it never does.

    The days running on the move (leave excluded, not doubled) exceed
    ``silence_days``. Whether the move had to be repeated first
    (``silence_requires_repeat``) and whether a delay notice protects the
    player is the caller's to check.

    >>> from mailbot.rules.profile import profile
    >>> utc = ZoneInfo("UTC")
    >>> silence_due(profile("iccf-server"), datetime(2026, 3, 1, 10, tzinfo=utc)).isoformat()
    '2026-04-11T10:00:00+00:00'
    """
    if profile.silence_days is None:
        return None
    return _exceeded_at(profile, forwarded, profile.silence_days, leave, tz)


def notice_limit(
    profile: Profile,
    forwarded: datetime,
    leave: Iterable[LeavePeriod] = (),
    tz: tzinfo | None = None,
) -> datetime:
    """The instant from which a delay notice on a move comes too late (art. 25: the
    opponent is told beforehand; 003 part 1 art. 3a).

    The days running on the move (leave excluded, not doubled) exceed
    ``notice_after_days``; a notice that reached the bot before this instant
    covers the move (docs/rules.md 2.4). In ``bg-email`` and ``iccf-server`` the
    limit is the silence loss's own instant.

    >>> from mailbot.rules.profile import profile
    >>> sofia, utc = ZoneInfo("Europe/Sofia"), ZoneInfo("UTC")
    >>> # received 1 March, that day counted: a notice of 15 March (14 days run) is in time
    >>> notice_limit(profile("iccf-postal"), datetime(2026, 3, 1, 10, tzinfo=utc)).isoformat()
    '2026-03-16T00:00:00+00:00'
    >>> p, since = profile("bg-email"), datetime(2026, 3, 3, 11, tzinfo=sofia)
    >>> notice_limit(p, since) == silence_due(p, since)
    True
    """
    return _exceeded_at(profile, forwarded, profile.notice_after_days, leave, tz)


def silence_report_due(
    profile: Profile,
    forwarded: datetime,
    leave: Iterable[LeavePeriod] = (),
    tz: tzinfo | None = None,
) -> datetime | None:
    """When silence on a move goes to the director for a decision (003 part 1 art. 3b).

    Counted like :func:`silence_due`, with ``silence_report_days``.

    >>> from mailbot.rules.profile import profile
    >>> utc = ZoneInfo("UTC")
    >>> silence_report_due(profile("iccf-postal"), datetime(2026, 3, 1, 10, tzinfo=utc)).date()
    datetime.date(2026, 6, 30)
    """
    if profile.silence_report_days is None:
        return None
    return _exceeded_at(profile, forwarded, profile.silence_report_days, leave, tz)
