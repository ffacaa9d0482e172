"""Leave arithmetic: spans, yearly allowance, cancellation, dates in text."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mailbot.rules.leave import (
    InvalidDateError,
    InvalidLeaveError,
    LeavePeriod,
    LeaveRefusal,
    cancel_from,
    check_request,
    parse_date,
)
from mailbot.rules.profile import profile
from mailbot.store.models import Game, Leave, LeaveCancellation, Player
from mailbot.store.record import player_leaves

BG = profile("bg-email")
ICCF = profile("iccf-postal")


def leave(start: str, end: str) -> LeavePeriod:
    return LeavePeriod(date.fromisoformat(start), date.fromisoformat(end))


# -- the span --------------------------------------------------------------


def test_both_ends_are_leave_days() -> None:
    # 003 part 1 art. 8a: leave from 7/07 to 13/07 lasts 7 days.
    july = leave("2026-07-07", "2026-07-13")
    assert july.days == 7
    days = list(july.dates())
    assert (days[0], days[-1]) == (date(2026, 7, 7), date(2026, 7, 13))
    assert july.contains(date(2026, 7, 7)) and july.contains(date(2026, 7, 13))
    assert not july.contains(date(2026, 7, 6)) and not july.contains(date(2026, 7, 14))
    assert date(2026, 7, 10) in july


def test_one_day_leave() -> None:
    assert leave("2026-07-07", "2026-07-07").days == 1


def test_end_before_start_is_refused_with_both_dates() -> None:
    with pytest.raises(InvalidLeaveError, match=r"2026-06-01.*2026-06-30"):
        leave("2026-06-30", "2026-06-01")
    assert issubclass(InvalidLeaveError, ValueError)


def test_overlap_is_symmetric_and_includes_touching_ends() -> None:
    a = leave("2026-07-01", "2026-07-10")
    b = leave("2026-07-10", "2026-07-15")
    c = leave("2026-07-11", "2026-07-15")
    inside = leave("2026-07-03", "2026-07-04")
    assert a.overlaps(b) and b.overlaps(a)
    assert not a.overlaps(c) and not c.overlaps(a)
    assert a.overlaps(inside) and inside.overlaps(a)


def test_leave_over_new_year_counts_in_each_year() -> None:
    winter = leave("2026-12-20", "2027-01-10")
    assert winter.days_in(2026) == 12
    assert winter.days_in(2027) == 10
    assert winter.days_in(2025) == 0
    assert list(winter.years()) == [2026, 2027]


@given(st.dates(date(2000, 1, 1), date(2100, 1, 1)), st.integers(0, 800))
@pytest.mark.slow
def test_days_agree_with_dates_and_years(start: date, length: int) -> None:
    span = LeavePeriod(start, start + timedelta(days=length))
    assert span.days == len(list(span.dates())) == length + 1
    assert sum(span.days_in(year) for year in span.years()) == span.days


# -- the yearly allowance --------------------------------------------------


def test_request_within_allowance_is_granted_and_uses_its_days() -> None:
    decision = check_request(BG, [], leave("2026-06-01", "2026-06-30"))
    assert decision.granted
    assert decision.refusal is None
    assert decision.remaining(2026) == 0


def test_request_over_allowance_is_refused_and_uses_nothing() -> None:
    taken = [leave("2026-03-01", "2026-03-20")]
    decision = check_request(BG, taken, leave("2026-07-01", "2026-07-11"))
    assert not decision.granted
    assert decision.refusal is LeaveRefusal.EXCEEDS_ALLOWANCE
    assert decision.remaining(2026) == 10
    (balance,) = decision.balances
    assert (balance.allowance, balance.taken, balance.requested) == (30, 20, 11)
    assert balance.short_by == 1


def test_allowance_follows_the_profile() -> None:
    request = leave("2026-07-01", "2026-08-14")  # 45 days
    assert not check_request(BG, [], request).granted
    assert check_request(ICCF, [], request).granted
    overridden = profile("bg-email", {"leave_days_per_year": 45})
    assert check_request(overridden, [], request).granted


def test_allowance_is_per_calendar_year() -> None:
    # art. 42 note 1: leave does not carry over; last year's days do not count.
    taken = [leave("2025-06-01", "2025-06-30")]
    decision = check_request(BG, taken, leave("2026-01-05", "2026-02-03"))
    assert decision.granted
    assert decision.remaining(2026) == 0


def test_request_over_new_year_needs_room_in_both_years() -> None:
    taken = [leave("2027-02-01", "2027-02-25")]  # 25 of 2027's 30 days
    ok = check_request(BG, taken, leave("2026-12-25", "2027-01-05"))  # 7 + 5 days
    assert ok.granted
    assert (ok.remaining(2026), ok.remaining(2027)) == (23, 0)
    too_long = check_request(BG, taken, leave("2026-12-25", "2027-01-06"))  # 7 + 6 days
    assert too_long.refusal is LeaveRefusal.EXCEEDS_ALLOWANCE
    assert [b.year for b in too_long.balances if b.short_by] == [2027]
    with pytest.raises(KeyError):
        ok.remaining(2028)


def test_director_extra_days_extend_one_year_only() -> None:
    # art. 43: the director may grant 30 extra days, even retroactively.
    taken = [leave("2026-03-01", "2026-03-30")]
    request = leave("2026-09-01", "2026-09-20")
    assert not check_request(BG, taken, request).granted
    decision = check_request(BG, taken, request, {2026: 30})
    assert decision.granted
    assert decision.remaining(2026) == 10
    assert not check_request(BG, taken, request, {2027: 30}).granted


def test_negative_extra_days_are_an_error() -> None:
    with pytest.raises(ValueError, match="2026"):
        check_request(BG, [], leave("2026-09-01", "2026-09-02"), {2026: -5})


def test_overlap_with_a_taken_leave_is_refused_naming_it() -> None:
    taken = [leave("2026-03-01", "2026-03-05"), leave("2026-07-01", "2026-07-10")]
    decision = check_request(BG, taken, leave("2026-07-10", "2026-07-12"))
    assert decision.refusal is LeaveRefusal.OVERLAPS
    assert decision.conflict == taken[1]
    # The same request sent twice does not take the days twice.
    again = check_request(BG, taken, taken[1])
    assert again.refusal is LeaveRefusal.OVERLAPS
    assert again.remaining(2026) == 15


def test_leave_starting_before_the_request_needs_the_director() -> None:
    request = leave("2026-07-01", "2026-07-05")
    late = check_request(BG, [], request, today=date(2026, 7, 2))
    assert late.refusal is LeaveRefusal.RETROACTIVE
    assert check_request(BG, [], request, today=date(2026, 7, 1)).granted
    assert check_request(BG, [], request).granted  # the director's path: no "today"


# -- cancellation by a move (art. 46) ----------------------------------------


def test_move_during_leave_ends_it_from_that_day() -> None:
    july = leave("2026-07-07", "2026-07-13")
    assert cancel_from(july, date(2026, 7, 10)) == leave("2026-07-07", "2026-07-09")
    assert cancel_from(july, date(2026, 7, 13)) == leave("2026-07-07", "2026-07-12")
    assert cancel_from(july, date(2026, 7, 7)) is None


def test_move_outside_leave_changes_nothing() -> None:
    july = leave("2026-07-07", "2026-07-13")
    assert cancel_from(july, date(2026, 7, 6)) == july
    assert cancel_from(july, date(2026, 7, 14)) == july


def taken(start: str, end: str, *cut: tuple[int, str]) -> Leave:
    """A leave as the store keeps it, cut short in game ``n`` from a day (art. 46)."""
    return Leave(
        start=date.fromisoformat(start),
        end=date.fromisoformat(end),
        cancellations=[
            LeaveCancellation(game_id=n, from_date=date.fromisoformat(d)) for n, d in cut
        ],
    )


def test_cancellation_in_one_game_keeps_later_leaves() -> None:
    # the player moved in game 1 on 8 July (during the first leave) and on 1 September
    # (the third leave's only day): the clock of game 1 keeps 7 July and all of August;
    # game 2 keeps every leave whole
    player = Player(leaves=[
        taken("2026-07-07", "2026-07-13", (1, "2026-07-08")),
        taken("2026-08-01", "2026-08-05"),
        taken("2026-09-01", "2026-09-01", (1, "2026-09-01")),
    ])  # fmt: skip
    assert player_leaves(player, Game(id=1)) == (
        leave("2026-07-07", "2026-07-07"),
        leave("2026-08-01", "2026-08-05"),
    )
    assert player_leaves(player, Game(id=2)) == (
        leave("2026-07-07", "2026-07-13"),
        leave("2026-08-01", "2026-08-05"),
        leave("2026-09-01", "2026-09-01"),
    )


# -- dates in text -----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["2026-06-01", "2026-6-1", "1.6.2026", "01.06.2026", "1.6.2026.", " 1.6.2026 г.", "1.6.2026г"],
)
def test_unambiguous_forms_are_read(text: str) -> None:
    assert parse_date(text) == date(2026, 6, 1)


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("1/6/2026", "ambiguous"),
        ("6/1/2026", "ambiguous"),
        ("2026/06/01", "ambiguous"),
        ("1.6.26", "two-digit year"),
        ("31.2.2026", "month 2 of 2026 has no day 31"),
        ("1.13.2026", "no month 13"),
        ("2026-02-30", "no day 30"),
        ("June 1", "not a date"),
        ("", "not a date"),
    ],
)
def test_other_forms_are_refused_saying_why(text: str, complaint: str) -> None:
    with pytest.raises(InvalidDateError, match=complaint):
        parse_date(text)
    assert issubclass(InvalidDateError, ValueError)


@given(st.dates(date(1000, 1, 1), date(9999, 12, 31)))
def test_both_written_forms_read_back(day: date) -> None:
    assert parse_date(day.isoformat()) == day
    assert parse_date(f"{day.day}.{day.month}.{day.year}") == day
    assert parse_date(f"{day.day:02}.{day.month:02}.{day.year}") == day
