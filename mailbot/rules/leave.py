"""Leave: whole calendar days on which a player's games pause (docs/rules.md 4).

Sources: art. 42-46 of the Bulgarian rules, ICCF 003 part 1 art. 8a and
part 2 art. 7a. A leave is a span of calendar days, both ends included
(003 part 1 art. 8a: "the first and the last day of the leave count")::

    >>> summer = LeavePeriod(date(2026, 7, 7), date(2026, 7, 13))
    >>> summer.days
    7
    >>> summer.contains(date(2026, 7, 13)), summer.contains(date(2026, 7, 14))
    (True, False)

Each player has an allowance per calendar year (``Profile.leave_days_per_year``:
30 days in the Bulgarian rules, 45 under ICCF); unused days do not carry over
(art. 42 note 1). The tournament director may grant extra days, even
retroactively (art. 43, 56)::

    >>> from mailbot.rules.profile import profile
    >>> june = LeavePeriod(date(2026, 6, 1), date(2026, 6, 25))
    >>> decision = check_request(profile("bg-email"), [june], summer)
    >>> decision.granted, decision.refusal, decision.remaining(2026)
    (False, <LeaveRefusal.EXCEEDS_ALLOWANCE: 'exceeds-allowance'>, 5)
    >>> check_request(profile("bg-email"), [june], summer, {2026: 30}).remaining(2026)
    28

A move sent during a leave ends that leave in that one game from the day it
was sent (art. 46)::

    >>> cancel_from(summer, date(2026, 7, 10))
    LeavePeriod(start=datetime.date(2026, 7, 7), end=datetime.date(2026, 7, 9))
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Iterator, Mapping, Sequence
from datetime import date, timedelta

from mailbot.rules.errors import RulesError
from mailbot.rules.profile import Profile

_ONE_DAY = timedelta(days=1)


class InvalidLeaveError(RulesError, ValueError):
    """A leave whose dates do not form a span (the end before the start)."""


class InvalidDateError(RulesError, ValueError):
    """Text that is not a date in one of the accepted, unambiguous forms."""


@dataclasses.dataclass(frozen=True)
class LeavePeriod:
    """A leave from ``start`` to ``end``, both days included.

    >>> LeavePeriod(date(2026, 12, 28), date(2027, 1, 3)).days_in(2027)
    3
    >>> LeavePeriod(date(2026, 6, 30), date(2026, 6, 1))
    Traceback (most recent call last):
    ...
    mailbot.rules.leave.InvalidLeaveError: leave ends on 2026-06-01, before it starts on 2026-06-30
    """

    start: date
    end: date

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise InvalidLeaveError(
                f"leave ends on {self.end.isoformat()}, before it starts on "
                f"{self.start.isoformat()}"
            )

    @property
    def days(self) -> int:
        """The number of leave days, both ends included."""
        return (self.end - self.start).days + 1

    def dates(self) -> Iterator[date]:
        """Every day of the leave, in order.

        >>> [d.day for d in LeavePeriod(date(2026, 7, 7), date(2026, 7, 9)).dates()]
        [7, 8, 9]
        """
        day = self.start
        while day <= self.end:
            yield day
            day += _ONE_DAY

    def contains(self, day: date) -> bool:
        """Whether ``day`` is a day of this leave."""
        return self.start <= day <= self.end

    def __contains__(self, day: object) -> bool:
        return isinstance(day, date) and self.contains(day)

    def overlaps(self, other: LeavePeriod) -> bool:
        """Whether the two leaves share at least one day.

        >>> a = LeavePeriod(date(2026, 7, 1), date(2026, 7, 10))
        >>> a.overlaps(LeavePeriod(date(2026, 7, 10), date(2026, 7, 20)))
        True
        >>> a.overlaps(LeavePeriod(date(2026, 7, 11), date(2026, 7, 20)))
        False
        """
        return self.start <= other.end and other.start <= self.end

    def days_in(self, year: int) -> int:
        """The days of this leave that fall in the calendar ``year``."""
        first = max(self.start, date(year, 1, 1))
        last = min(self.end, date(year, 12, 31))
        return max(0, (last - first).days + 1)

    def years(self) -> range:
        """The calendar years this leave touches."""
        return range(self.start.year, self.end.year + 1)


class LeaveRefusal(enum.Enum):
    """Why a leave request was refused."""

    #: The leave would start before the day it was asked for; only the
    #: tournament director grants leave retroactively (art. 43, 44; 003 part 1 art. 8a).
    RETROACTIVE = "retroactive"
    #: The request shares days with a leave already taken; a day cannot be
    #: taken twice, so the request is refused rather than merged.
    OVERLAPS = "overlaps"
    #: The request needs more days than are left in one of its calendar years.
    EXCEEDS_ALLOWANCE = "exceeds-allowance"


@dataclasses.dataclass(frozen=True)
class YearBalance:
    """The leave account of one calendar year, as seen by one request."""

    year: int
    #: Days allowed this year: the profile's allowance plus the director's extra days.
    allowance: int
    #: Days already taken this year, before the request.
    taken: int
    #: Days of the request that fall in this year.
    requested: int

    @property
    def left_before(self) -> int:
        """Days left this year before the request."""
        return self.allowance - self.taken

    @property
    def short_by(self) -> int:
        """Days the request lacks this year (0 when it fits)."""
        return max(0, self.requested - self.left_before)


@dataclasses.dataclass(frozen=True)
class LeaveDecision:
    """The answer to a leave request."""

    requested: LeavePeriod
    #: None when granted.
    refusal: LeaveRefusal | None
    #: One balance per calendar year the request touches, in order.
    balances: tuple[YearBalance, ...]
    #: For :attr:`LeaveRefusal.OVERLAPS`: the leave already taken that it overlaps.
    conflict: LeavePeriod | None = None

    @property
    def granted(self) -> bool:
        return self.refusal is None

    def remaining(self, year: int) -> int:
        """Days the player still has in ``year`` after this decision.

        A granted request uses its days; a refused one uses none.
        """
        for balance in self.balances:
            if balance.year == year:
                used = balance.requested if self.granted else 0
                return balance.left_before - used
        raise KeyError(year)


def check_request(
    profile: Profile,
    taken: Sequence[LeavePeriod],
    requested: LeavePeriod,
    extra_days_by_year: Mapping[int, int] | None = None,
    today: date | None = None,
) -> LeaveDecision:
    """Decide a leave request against the yearly allowance (art. 42-44; 003 part 1 art. 8a).

    ``taken`` are the player's leaves already granted (all games: the
    allowance is the player's, and a leave cancelled in one game by art. 46
    still counts). A leave spanning New Year counts its days in each year.
    ``extra_days_by_year`` holds the director's extra days per year (art. 43).
    When ``today`` (the day the request arrived, in the tournament's time
    zone) is given, a leave starting before it is refused: a player must
    announce a leave before it begins (art. 44).

    >>> from mailbot.rules.profile import profile
    >>> december = LeavePeriod(date(2026, 12, 20), date(2027, 1, 10))
    >>> d = check_request(profile("iccf-postal"), [], december)
    >>> d.granted, d.remaining(2026), d.remaining(2027)
    (True, 33, 35)
    >>> january = LeavePeriod(date(2027, 1, 5), date(2027, 1, 6))
    >>> d = check_request(profile("iccf-postal"), [december], january)
    >>> d.refusal, d.conflict == december
    (<LeaveRefusal.OVERLAPS: 'overlaps'>, True)
    """
    extra = dict(extra_days_by_year or {})
    for year, days in extra.items():
        if days < 0:
            raise ValueError(f"extra leave days for {year} must not be negative, got {days}")
    balances = tuple(
        YearBalance(
            year=year,
            allowance=profile.leave_days_per_year + extra.get(year, 0),
            taken=sum(leave.days_in(year) for leave in taken),
            requested=requested.days_in(year),
        )
        for year in requested.years()
    )
    if today is not None and requested.start < today:
        return LeaveDecision(requested, LeaveRefusal.RETROACTIVE, balances)
    for leave in sorted(taken, key=lambda leave: leave.start):
        if leave.overlaps(requested):
            return LeaveDecision(requested, LeaveRefusal.OVERLAPS, balances, conflict=leave)
    if any(balance.short_by for balance in balances):
        return LeaveDecision(requested, LeaveRefusal.EXCEEDS_ALLOWANCE, balances)
    return LeaveDecision(requested, None, balances)


def cancel_from(leave: LeavePeriod, day: date) -> LeavePeriod | None:
    """What is left of ``leave`` in a game in which the player moved on ``day``.

    A move sent during a leave ends the leave in that game from the day it
    was sent (art. 46); the days before stay leave. A move outside the leave
    leaves it as it is. Returns None when nothing is left.

    >>> july = LeavePeriod(date(2026, 7, 7), date(2026, 7, 13))
    >>> cancel_from(july, date(2026, 7, 7)) is None
    True
    >>> cancel_from(july, date(2026, 7, 20)) == july
    True
    """
    if not leave.contains(day):
        return leave
    if day == leave.start:
        return None
    return LeavePeriod(leave.start, day - _ONE_DAY)


_ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})", re.ASCII)
_DOTTED = re.compile(r"(\d{1,2})\.(\d{1,2})\.(\d{4})\.?(?:\s*г\.?)?", re.ASCII | re.IGNORECASE)
_SHORT_YEAR = re.compile(r"\d{1,2}\.\d{1,2}\.\d{2}\.?", re.ASCII)
_SLASHED = re.compile(r"\d{1,4}\s*/\s*\d{1,2}\s*/\s*\d{1,4}", re.ASCII)
_FORMS = "write it as 2026-06-01 or 1.6.2026"


def parse_date(text: str) -> date:
    """Read a date written as ISO ``2026-06-01`` or day-first ``1.6.2026`` / ``01.06.2026``.

    Only forms that cannot be misread are accepted: slashes (``1/6/2026``) are
    read day-first in Europe and month-first elsewhere, and two-digit years
    are refused. A trailing ``г.`` (Bulgarian and Russian "year") is allowed.

    >>> parse_date("2026-06-01"), parse_date("1.6.2026"), parse_date("01.06.2026 г.")
    (datetime.date(2026, 6, 1), datetime.date(2026, 6, 1), datetime.date(2026, 6, 1))
    >>> try:
    ...     parse_date("1/6/2026")
    ... except InvalidDateError as exc:
    ...     print(exc)
    '1/6/2026' is ambiguous; write it as 2026-06-01 or 1.6.2026
    >>> parse_date("31.2.2026")
    Traceback (most recent call last):
    ...
    mailbot.rules.leave.InvalidDateError: '31.2.2026': month 2 of 2026 has no day 31
    """
    stripped = text.strip()
    iso = _ISO.fullmatch(stripped)
    dotted = _DOTTED.fullmatch(stripped)
    if iso:
        year, month, day = (int(group) for group in iso.groups())
    elif dotted:
        day, month, year = (int(group) for group in dotted.groups())
    elif _SLASHED.fullmatch(stripped):
        raise InvalidDateError(f"{text!r} is ambiguous; {_FORMS}")
    elif _SHORT_YEAR.fullmatch(stripped):
        raise InvalidDateError(f"{text!r} has a two-digit year; {_FORMS}")
    else:
        raise InvalidDateError(f"{text!r} is not a date; {_FORMS}")
    if not 1 <= month <= 12:
        raise InvalidDateError(f"{text!r}: there is no month {month}")
    try:
        return date(year, month, day)
    except ValueError:
        raise InvalidDateError(f"{text!r}: month {month} of {year} has no day {day}") from None
