"""The clock: the worked examples of docs/rules.md 2.1-2.3 and the seed articles behind them."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mailbot.rules import due
from mailbot.rules.clock import (
    ClockPenalty,
    MoveHistoryError,
    MoveTime,
    NaiveDatetimeError,
    Overstep,
    Totals,
    control_state,
    day_start,
    days_reached_at,
    first_move_days,
    first_move_receipt,
    move_days,
    notice_limit,
    overstep_at,
    overstep_times,
    repeat_due,
    silence_due,
    silence_report_due,
    total_days,
    totals,
)
from mailbot.rules.leave import LeavePeriod, cancel_from
from mailbot.rules.profile import PROFILES, Profile, profile

SOFIA = ZoneInfo("Europe/Sofia")
BG_EMAIL = profile("bg-email")
BG_POST = profile("bg-post")
ICCF_POSTAL = profile("iccf-postal")
ICCF_SERVER = profile("iccf-server")
MICRO = timedelta(microseconds=1)


def sofia(month: int, day: int, hour: int = 12, minute: int = 0, year: int = 2026) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=SOFIA)


def utc(month: int, day: int, hour: int = 12, minute: int = 0, year: int = 2026) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def leave(start: str, end: str) -> LeavePeriod:
    return LeavePeriod(date.fromisoformat(start), date.fromisoformat(end))


def history(*days: int, first: int = 1) -> list[MoveTime]:
    return [MoveTime(first + i, d) for i, d in enumerate(days)]


# -- docs/rules.md 2.1: the worked examples ---------------------------------------


def test_e1_receipt_day_not_counted() -> None:
    # art. 8 D: received 11 March, written 12 March; answered 13 March: one day.
    assert move_days(BG_EMAIL, sofia(3, 11, 9), sofia(3, 13, 20)) == 1


def test_e2_sample_move_line() -> None:
    # art. 8 sample line "11.3. - 12.3. - 15.3. = 3 days".
    assert move_days(BG_EMAIL, sofia(3, 11, 23, 50), sofia(3, 15, 0, 10)) == 3


@pytest.mark.parametrize("name", ["bg-email", "bg-post"])
def test_e3_leave_inside_a_move(name: str) -> None:
    # art. 45: leave 1-30 June, move received 20 May, answered 5 July: 15 days.
    june = [leave("2026-06-01", "2026-06-30")]
    assert move_days(profile(name), sofia(5, 20), sofia(7, 5), june) == 15
    assert move_days(profile(name), sofia(5, 20), sofia(7, 5)) == 45


def test_e4_leave_covers_all_but_the_receipt_day() -> None:
    # 003 part 1 art. 8a: leave 7-13 July; received 6 July, sent 14 July: 1 day.
    july = [leave("2026-07-07", "2026-07-13")]
    assert move_days(ICCF_POSTAL, utc(7, 6), utc(7, 14), july) == 1


def test_e5_reply_on_the_last_leave_day() -> None:
    # 003 part 1 art. 8a: received 6 July, sent 13 July (a leave day): 1 day.
    july = [leave("2026-07-07", "2026-07-13")]
    assert move_days(ICCF_POSTAL, utc(7, 6), utc(7, 13), july) == 1
    # The move ends the leave in this game from 13 July (art. 46); same count.
    cancelled = cancel_from(july[0], date(2026, 7, 13))
    assert cancelled is not None
    assert move_days(ICCF_POSTAL, utc(7, 6), utc(7, 13), [cancelled]) == 1


def test_e6_received_on_the_first_leave_day() -> None:
    # 003 part 1 art. 8a: received 7 July, sent 14 July: 0 days.
    july = [leave("2026-07-07", "2026-07-13")]
    assert move_days(ICCF_POSTAL, utc(7, 7), utc(7, 14), july) == 0


def test_e7_less_than_24_hours_is_no_day() -> None:
    # 003 part 2 art. 6b.
    received = utc(3, 1, 10)
    assert move_days(ICCF_SERVER, received, received + timedelta(hours=23, minutes=59)) == 0
    assert move_days(ICCF_SERVER, received, received + timedelta(hours=24)) == 1


def test_e8_days_over_twenty_count_double() -> None:
    # 003 part 2 art. 6b: 21 days (and 5 hours) count as 22.
    received = utc(3, 1, 10)
    assert move_days(ICCF_SERVER, received, received + timedelta(days=21, hours=5)) == 22
    assert move_days(ICCF_SERVER, received, received + timedelta(days=20, hours=23)) == 20
    assert move_days(ICCF_SERVER, received, received + timedelta(days=25)) == 30


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_e9_reply_on_the_day_of_receipt_is_free_and_never_negative(name: str) -> None:
    p = profile(name)
    assert move_days(p, sofia(3, 11, 8), sofia(3, 11, 23, 59), tz=SOFIA) == 0
    # A reply stamped before the receipt (clocks out of step) is still 0, not negative.
    assert move_days(p, sofia(3, 11, 8), sofia(3, 9, 8), tz=SOFIA) == 0


def test_e10_first_move_counts_from_the_start_date() -> None:
    # art. 24: start 1 March, White's first move arrives 5 March: 4 days.
    assert first_move_days(BG_EMAIL, date(2026, 3, 1), sofia(3, 5, 9)) == 4
    assert first_move_days(BG_EMAIL, date(2026, 3, 1), sofia(3, 1, 23)) == 0


def test_e11_first_server_move_counts_from_local_midnight() -> None:
    # art. 24 on the server: start 1 March 00:00 local; first move 3 March 12:00: 2 days.
    assert first_move_days(ICCF_SERVER, date(2026, 3, 1), sofia(3, 3, 12), tz=SOFIA) == 2
    assert first_move_days(ICCF_SERVER, date(2026, 3, 1), utc(3, 3, 12)) == 2
    assert first_move_days(ICCF_SERVER, date(2026, 3, 1), sofia(3, 2, 23, 59), tz=SOFIA) == 1


def test_first_move_in_iccf_postal_counts_the_start_day() -> None:
    # The start date plays the part of the counted receipt day r.
    assert first_move_days(ICCF_POSTAL, date(2026, 3, 1), utc(3, 5)) == 4
    assert first_move_days(ICCF_POSTAL, date(2026, 3, 1), utc(3, 1, 20)) == 0


def test_first_move_receipt_reproduces_first_move_days() -> None:
    for p in PROFILES.values():
        receipt = first_move_receipt(p, date(2026, 3, 1), SOFIA)
        sent = sofia(3, 9, 15)
        assert move_days(p, receipt, sent, tz=SOFIA) == first_move_days(
            p, date(2026, 3, 1), sent, tz=SOFIA
        )


def test_receipt_day_counted_only_in_iccf_postal() -> None:
    received, sent = utc(3, 11, 9), utc(3, 13, 20)
    assert move_days(BG_POST, received, sent) == 1
    assert move_days(ICCF_POSTAL, received, sent) == 2


# -- calendar days in the tournament's time zone -----------------------------


def test_dates_are_taken_in_the_tournament_time_zone() -> None:
    # 23:30 in Sofia is still the previous day in UTC.
    received = sofia(3, 10, 23, 30)  # 21:30 UTC on 10 March
    sent = sofia(3, 12, 0, 30)  # 22:30 UTC on 11 March
    assert move_days(BG_EMAIL, received, sent) == 1
    assert move_days(BG_EMAIL, received, sent, tz=UTC) == 0


def test_calendar_days_across_the_spring_clock_change() -> None:
    # 29 March 2026 03:00 -> 04:00 in Sofia: still one calendar day.
    assert move_days(BG_EMAIL, sofia(3, 28, 23, 30), sofia(3, 30, 0, 30)) == 1
    assert move_days(ICCF_POSTAL, sofia(3, 28, 23, 30), sofia(3, 30, 0, 30), tz=SOFIA) == 2


def test_calendar_days_across_the_autumn_clock_change() -> None:
    # 25 October 2026 04:00 -> 03:00 in Sofia.
    assert move_days(BG_EMAIL, sofia(10, 24, 23, 30), sofia(10, 26, 0, 30)) == 1


def test_server_hours_are_real_hours_across_the_spring_change() -> None:
    # Noon to noon over 29 March is only 23 real hours: no day yet.
    assert move_days(ICCF_SERVER, sofia(3, 28, 12), sofia(3, 29, 12), tz=SOFIA) == 0
    assert move_days(ICCF_SERVER, sofia(3, 28, 12), sofia(3, 29, 13), tz=SOFIA) == 1


def test_server_hours_are_real_hours_across_the_autumn_change() -> None:
    # 24 October 12:00 to 25 October 11:30 is 24.5 real hours.
    assert move_days(ICCF_SERVER, sofia(10, 24, 12), sofia(10, 25, 11, 30), tz=SOFIA) == 1


def test_server_leave_day_of_the_clock_change_has_23_hours() -> None:
    received, sent = sofia(3, 28, 0), sofia(3, 31, 0)  # 71 real hours
    on_leave = [leave("2026-03-29", "2026-03-29")]  # 23 hours
    assert move_days(ICCF_SERVER, received, sent, on_leave, tz=SOFIA) == 2
    assert move_days(ICCF_SERVER, received, sent + timedelta(minutes=59), tz=SOFIA) == 2


def test_naive_instants_are_refused() -> None:
    with pytest.raises(NaiveDatetimeError, match="received"):
        move_days(BG_EMAIL, datetime(2026, 3, 1, 12), sofia(3, 2))
    with pytest.raises(NaiveDatetimeError, match="sent"):
        move_days(BG_EMAIL, sofia(3, 1), datetime(2026, 3, 2, 12))


# -- leave in the day count --------------------------------------------------


def test_leave_that_starts_during_the_move() -> None:
    # received 1 July, answered 11 July, leave 5-20 July: 2, 3, 4 July count.
    on_leave = [leave("2026-07-05", "2026-07-20")]
    assert move_days(BG_EMAIL, sofia(7, 1), sofia(7, 11), on_leave) == 3


def test_leave_that_ends_during_the_move() -> None:
    # leave 25 June - 3 July; received 1 July, answered 8 July: 4-7 July count.
    on_leave = [leave("2026-06-25", "2026-07-03")]
    assert move_days(BG_EMAIL, sofia(7, 1), sofia(7, 8), on_leave) == 4


def test_overlapping_leaves_count_each_day_once() -> None:
    on_leave = [leave("2026-07-03", "2026-07-06"), leave("2026-07-05", "2026-07-08")]
    assert move_days(BG_EMAIL, sofia(7, 1), sofia(7, 11), on_leave) == 3


def test_leave_over_new_year() -> None:
    # received 28 Dec, answered 5 Jan; leave 30 Dec - 2 Jan: 29 Dec, 3 and 4 Jan count.
    winter = [leave("2026-12-30", "2027-01-02")]
    assert move_days(BG_EMAIL, sofia(12, 28), sofia(1, 5, year=2027), winter) == 3


def test_server_leave_hours_are_taken_off() -> None:
    on_leave = [leave("2026-03-02", "2026-03-03")]
    assert move_days(ICCF_SERVER, utc(3, 1, 12), utc(3, 5, 12), on_leave) == 2
    # Leave before the receipt or after the reply changes nothing.
    elsewhere = [leave("2026-02-01", "2026-02-27"), leave("2026-03-06", "2026-03-09")]
    assert move_days(ICCF_SERVER, utc(3, 1, 12), utc(3, 5, 12), elsewhere) == 4


def test_days_before_doubling_exclude_leave() -> None:
    # 25 elapsed days with 4 of them on leave: 21 days, counted as 22.
    on_leave = [leave("2026-03-05", "2026-03-08")]
    assert move_days(ICCF_SERVER, utc(3, 1, 12), utc(3, 26, 12), on_leave) == 22


def test_moving_during_leave_cancels_it_for_the_next_move() -> None:
    # art. 46: after moving on 13 July the player's next move in the game
    # counts 13 July although the leave was to last until then.
    july = leave("2026-07-07", "2026-07-13")
    cancelled = cancel_from(july, date(2026, 7, 13))
    assert cancelled is not None
    assert move_days(ICCF_POSTAL, utc(7, 13, 8), utc(7, 14, 8), [july]) == 0
    assert move_days(ICCF_POSTAL, utc(7, 13, 8), utc(7, 14, 8), [cancelled]) == 1


# -- the inverse: when a number of days is reached ---------------------------


def test_calendar_day_turns_at_local_midnight() -> None:
    reached = days_reached_at(BG_EMAIL, sofia(3, 1, 10), 7)
    assert reached == sofia(3, 9, 0)
    assert move_days(BG_EMAIL, sofia(3, 1, 10), reached) == 7
    assert move_days(BG_EMAIL, sofia(3, 1, 10), reached - MICRO) == 6


def test_reaching_days_skips_leave() -> None:
    on_leave = [leave("2026-03-03", "2026-03-05")]
    assert days_reached_at(BG_EMAIL, sofia(3, 1, 10), 7, on_leave) == sofia(3, 12, 0)


def test_server_days_reached_at_exact_hours() -> None:
    received = utc(3, 1, 10, 30)
    assert days_reached_at(ICCF_SERVER, received, 2) == utc(3, 3, 10, 30)
    # 22 counted days are 21 real days.
    assert days_reached_at(ICCF_SERVER, received, 22) == utc(3, 22, 10, 30)
    assert days_reached_at(ICCF_SERVER, received, 0) == received


# -- docs/rules.md 2.2: controls and oversteps ------------------------------------


def test_exactly_the_limit_is_no_overstep() -> None:
    state = control_state(ICCF_POSTAL, history(*[3] * 10))
    assert state.oversteps == ()
    assert (state.used_days, state.next_control_move, state.limit_days) == (30, 20, 60)
    assert state.days_left == 30


def test_unused_time_carries_to_the_next_control() -> None:
    # art. 23 V: 10 days on 10 moves leaves 50 for the next ten.
    state = control_state(BG_POST, history(*[1] * 10))
    assert state.days_left == 50


def test_31_days_on_9_moves_is_the_first_overstep() -> None:
    # 003 part 1 art. 6b: new control moves 19, 29.
    state = control_state(ICCF_POSTAL, history(3, 3, 3, 3, 3, 3, 3, 3, 7))
    assert state.oversteps == (Overstep(9, 31, 30),)
    assert not state.lost
    assert (state.count_start, state.used_days, state.total_days) == (10, 0, 31)
    assert (state.move_number, state.next_control_move, state.limit_days) == (10, 19, 30)
    state = control_state(ICCF_POSTAL, history(3, 3, 3, 3, 3, 3, 3, 3, 7, *[3] * 10))
    assert (state.next_control_move, state.limit_days, state.used_days) == (29, 60, 30)


def test_second_overstep_loses() -> None:
    first = [3, 3, 3, 3, 3, 3, 3, 3, 7]  # overstep on move 9
    within = control_state(BG_POST, history(*first, *[3] * 10))
    assert not within.lost
    over = control_state(BG_POST, history(*first, *[3] * 9, 4))
    assert over.lost
    assert [o.move_number for o in over.oversteps] == [9, 19]
    assert over.oversteps[1] == Overstep(19, 31, 30)


def test_first_overstep_at_move_17_restarts_the_count_at_18() -> None:
    # art. 30: "first overstep on move 17; from move 18 a new count".
    moves = history(*[3] * 10, *[5] * 6, 1)  # 30 on ten moves, 61 after move 17
    state = control_state(BG_POST, moves)
    assert state.oversteps == (Overstep(17, 61, 60),)
    assert (state.count_start, state.next_control_move, state.used_days) == (18, 27, 0)
    later = control_state(BG_POST, [*moves, *history(*[2] * 10, first=18)])
    assert (later.next_control_move, later.limit_days, later.used_days) == (37, 60, 20)


@pytest.mark.parametrize("name", ["bg-email", "iccf-server"])
def test_one_overstep_profiles_lose_at_the_first(name: str) -> None:
    p = profile(name)
    state = control_state(p, history(*[5] * 9, 6))
    assert state.lost
    assert state.oversteps == (Overstep(10, 51, 50),)
    assert (state.next_control_move, state.limit_days, state.days_left) == (10, 50, -1)
    assert not control_state(p, history(*[5] * 10)).lost


def test_a_silent_player_oversteps_on_the_move_being_thought_about() -> None:
    moves = history(*[3] * 8)
    assert control_state(BG_POST, moves, running_days=6).oversteps == ()
    state = control_state(BG_POST, moves, running_days=7)
    assert state.oversteps == (Overstep(9, 31, 30),)
    assert state.move_number == 9
    assert (state.count_start, state.next_control_move) == (10, 19)


def test_running_days_on_the_first_move() -> None:
    state = control_state(BG_EMAIL, [], running_days=12)
    assert (state.move_number, state.used_days, state.days_left) == (1, 12, 38)


def test_penalty_counts_toward_the_control() -> None:
    moves = history(*[3] * 9)  # 27 days
    assert not control_state(ICCF_POSTAL, moves).oversteps
    state = control_state(ICCF_POSTAL, moves, [ClockPenalty(5, 9)])
    assert state.oversteps == (Overstep(9, 32, 30),)
    assert state.total_days == 32


def test_penalty_belongs_to_the_count_it_was_imposed_in() -> None:
    # 24 + 5 + 2 = 31 days at move 9: an overstep on the move's last day; 3 days on move 10
    old = control_state(BG_POST, history(3, 3, 3, 3, 3, 3, 3, 3, 2, 3), [ClockPenalty(5, 4)])
    assert (old.used_days, old.total_days) == (3, 34)
    assert old.oversteps == (Overstep(9, 31, 30),)
    # 24 + 7 = 31 days at move 9; the penalty on move 10 goes to the new count
    new = control_state(BG_POST, history(3, 3, 3, 3, 3, 3, 3, 3, 7, 3), [ClockPenalty(5, 10)])
    assert (new.used_days, new.total_days) == (8, 39)


def test_003_p1_7e_the_days_after_the_first_overstep_belong_to_the_new_count() -> None:
    # 24 days by move 8, 40 on move 9: the limit passed on its 7th day, 33 days after it
    state = control_state(ICCF_POSTAL, history(*[3] * 8, 40))
    assert state.oversteps == (Overstep(9, 64, 30), Overstep(9, 33, 30))
    assert state.lost
    state = control_state(ICCF_POSTAL, history(*[3] * 8, 37))  # 30 days after it
    assert state.oversteps == (Overstep(9, 61, 30),)
    assert (state.count_start, state.used_days, state.next_control_move) == (10, 30, 19)
    # bg-email loses at the first overstep; nothing carries
    assert control_state(BG_EMAIL, history(*[5] * 9, 40)).oversteps == (Overstep(10, 85, 50),)


def test_penalty_on_the_next_move_before_it_is_made() -> None:
    state = control_state(BG_EMAIL, history(4, 4), [ClockPenalty(5, 3)])
    assert (state.move_number, state.used_days) == (3, 13)


def test_director_can_award_a_first_overstep() -> None:
    # art. 56: the count restarts after the awarded move as after any overstep.
    state = control_state(BG_POST, history(*[1] * 5), awarded={4})
    assert state.oversteps == (Overstep(4, 4, 30, awarded=True),)
    assert (state.count_start, state.used_days, state.next_control_move) == (5, 1, 14)
    assert control_state(BG_POST, history(*[1] * 5), awarded={4, 5}).lost


def test_history_must_be_consecutive() -> None:
    with pytest.raises(MoveHistoryError, match="move 3 follows move 1"):
        control_state(BG_EMAIL, [MoveTime(1, 2), MoveTime(3, 2)])
    with pytest.raises(MoveHistoryError, match="negative"):
        control_state(BG_EMAIL, [MoveTime(1, -2)])
    with pytest.raises(MoveHistoryError, match="outside"):
        control_state(BG_EMAIL, history(1, 1), [ClockPenalty(5, 7)])
    with pytest.raises(MoveHistoryError, match="negative"):
        control_state(BG_EMAIL, history(1, 1), running_days=-1)


def test_moves_per_control_of_zero_is_a_profile_error() -> None:
    broken = profile("bg-email", {"moves_per_control": 0})
    with pytest.raises(ValueError, match="moves_per_control"):
        control_state(broken, history(1))


def test_no_overstep_may_lose_when_configured() -> None:
    lenient = profile("bg-post", {"oversteps_to_lose": 0})
    state = control_state(lenient, history(*[31] * 3))
    assert len(state.oversteps) == 3
    assert not state.lost


# -- when a silent player oversteps ------------------------------------------


def test_overstep_date_for_a_silent_player() -> None:
    moves = history(*[3] * 8)  # 24 of 30 days: the 7th running day oversteps
    received = sofia(3, 1, 10)
    at = overstep_at(BG_POST, moves, received)
    assert at == sofia(3, 9, 0)
    before = move_days(BG_POST, received, at - MICRO)
    assert control_state(BG_POST, moves, running_days=before).oversteps == ()
    assert control_state(
        BG_POST, moves, running_days=move_days(BG_POST, received, at)
    ).oversteps == (Overstep(9, 31, 30),)


def test_overstep_date_moves_with_leave() -> None:
    moves = history(*[3] * 8)
    on_leave = [leave("2026-03-04", "2026-03-10")]
    assert overstep_at(BG_POST, moves, sofia(3, 1, 10), leave=on_leave) == sofia(3, 16, 0)


def test_overstep_instant_on_the_server() -> None:
    moves = history(*[5] * 9)  # 45 of 50 days: 6 running days lose
    assert overstep_at(ICCF_SERVER, moves, utc(3, 1, 10, 15)) == utc(3, 7, 10, 15)


def test_overstep_date_of_the_first_move() -> None:
    start = date(2026, 3, 1)
    at = overstep_at(BG_EMAIL, [], first_move_receipt(BG_EMAIL, start))
    assert at == day_start(date(2026, 4, 21), SOFIA)  # 1 March .. 20 April = 51 days
    assert first_move_days(BG_EMAIL, start, at) == 51


def test_no_overstep_date_when_running_days_cannot_overstep() -> None:
    lost = history(*[5] * 9, 6)
    assert overstep_at(BG_EMAIL, lost, sofia(5, 1)) is None
    # The penalty has already pushed move 9 over the limit.
    assert overstep_at(BG_POST, history(*[3] * 8), sofia(5, 1), [ClockPenalty(10, 9)]) is None


# -- docs/rules.md 2.3: conditional moves (003 part 1 art. 6g) --------------------


def test_conditional_line_003_6g() -> None:
    """White oversteps at move 10, Black does not.

    After 9 moves both have used 28 days. White sends move 10 with the line
    ``10. 6141 5878 11. 3234`` after 3 days; Black accepts and answers
    ``11... 4534`` 5 days after receiving White's move. (The seed's table
    prints Black's sending date as "30/10"; the 5 days mean 03/10.)
    """
    p = ICCF_POSTAL
    white = history(3, 3, 3, 3, 3, 3, 3, 6)  # 27 days on moves 1-8
    black = history(3, 3, 3, 3, 3, 3, 3, 7)  # 28 days on moves 1-8
    # Move 9: White received 22/09, sent 23/09; Black received and sent 23/09.
    white.append(MoveTime(9, move_days(p, utc(9, 22), utc(9, 23))))
    black.append(MoveTime(9, move_days(p, utc(9, 23, 9), utc(9, 23, 18))))
    assert (total_days(white), total_days(black)) == (28, 28)

    # White's message plays move 10 only; the rest of the line is a proposal. Black's
    # message, 28/09 -> 03/10, plays 10... 5878 (accepting) and 11... 4534: its days go
    # to the last move it played, and the bot's 11. 3234 for White costs 0 (art. 32;
    # the store charges them so: tests/test_director_scenarios.py)
    white += [MoveTime(10, move_days(p, utc(9, 24), utc(9, 27))), MoveTime(11, 0)]
    black += [MoveTime(10, 0), MoveTime(11, move_days(p, utc(9, 28), utc(10, 3)))]

    assert white[-2:] == [MoveTime(10, 3), MoveTime(11, 0)]
    assert black[-2:] == [MoveTime(10, 0), MoveTime(11, 5)]
    assert totals(white, black) == Totals(white=31, black=33)

    white_state = control_state(p, white[:10])
    assert white_state.oversteps == (Overstep(10, 31, 30),)
    assert control_state(p, white).count_start == 11
    black_state = control_state(p, black)
    assert black_state.oversteps == ()
    assert (black_state.next_control_move, black_state.days_left) == (20, 27)
    # Charged to Black's move 10 instead, the same 33 days would overstep.
    assert control_state(p, [*black[:9], MoveTime(10, 5), MoveTime(11, 0)]).oversteps


def test_totals_include_penalties() -> None:
    assert total_days(history(3, 4), [ClockPenalty(5, 2), ClockPenalty(10, 3)]) == 22
    assert totals(history(1), history(2, 2), [ClockPenalty(5, 1)]) == Totals(6, 4)


# -- deadlines for the sweep -------------------------------------------------


def test_repeat_falls_due_fourteen_days_after_forwarding() -> None:
    # art. 26.
    assert repeat_due(BG_EMAIL, sofia(3, 1, 22)) == sofia(3, 15, 0)
    assert repeat_due(BG_POST, sofia(3, 1, 22)) == sofia(3, 15, 0)


def test_repeat_waits_for_the_players_leave_and_the_post() -> None:
    # 003 part 1 art. 3a: leave days are not counted; transit days are added.
    on_leave = [leave("2026-03-05", "2026-03-07")]
    assert repeat_due(BG_EMAIL, sofia(3, 1, 22), on_leave) == sofia(3, 18, 0)
    assert repeat_due(ICCF_POSTAL, utc(3, 1, 22)) == utc(3, 22, 0)


def test_server_play_has_no_repeats() -> None:
    assert repeat_due(ICCF_SERVER, utc(3, 1)) is None


def test_silence_falls_due_after_forty_counted_days() -> None:
    # art. 31: silence beyond 40 days loses.
    forwarded = sofia(3, 1, 10)
    due = silence_due(BG_EMAIL, forwarded)
    assert due == sofia(4, 12, 0)
    assert move_days(BG_EMAIL, forwarded, due) == 41
    assert move_days(BG_EMAIL, forwarded, due - MICRO) == 40


def test_silence_on_the_server_is_not_doubled() -> None:
    # 40 real days, not 30 days counted with doubling.
    forwarded = utc(3, 1, 10)
    assert silence_due(ICCF_SERVER, forwarded) == forwarded + timedelta(days=41)


def test_silence_waits_for_leave() -> None:
    on_leave = [leave("2026-03-10", "2026-03-19")]
    assert silence_due(BG_EMAIL, sofia(3, 1, 10), on_leave) == sofia(4, 22, 0)


def test_postal_silence_goes_to_the_director() -> None:
    assert silence_due(BG_POST, sofia(3, 1)) is None
    assert silence_due(ICCF_POSTAL, utc(3, 1)) is None
    report = silence_report_due(ICCF_POSTAL, utc(3, 1, 10))
    assert report is not None
    assert move_days(ICCF_POSTAL, utc(3, 1, 10), report) == 121
    assert silence_report_due(BG_EMAIL, sofia(3, 1)) is None


def test_a_delay_notice_comes_in_time_before_the_notice_limit() -> None:
    # art. 25: more than notice_after_days days may run on a move only after a notice;
    # in bg-email and iccf-server the limit is the silence's own instant (art. 31)
    forwarded = sofia(3, 1, 10)
    limit = notice_limit(BG_POST, forwarded)
    assert move_days(BG_POST, forwarded, limit - MICRO) == 28
    assert move_days(BG_POST, forwarded, limit) == 29
    assert notice_limit(BG_EMAIL, forwarded) == silence_due(BG_EMAIL, forwarded)
    assert notice_limit(ICCF_SERVER, utc(3, 1, 10)) == silence_due(ICCF_SERVER, utc(3, 1, 10))
    on_leave = [leave("2026-03-10", "2026-03-19")]
    assert notice_limit(BG_POST, forwarded, on_leave) == limit + timedelta(days=10)


def waiting_black(p: Profile, noticed: datetime | None) -> due.GameState:
    """Black to move in ``p`` since 3 March, 10:00, with a notice received at ``noticed``."""
    tz = ZoneInfo(p.timezone)
    since = datetime(2026, 3, 3, 10, tzinfo=tz)
    return due.GameState(p, tz, end=date(2027, 3, 1), ply=1, since=since, noticed=noticed)


def kinds(state: due.GameState) -> set[due.DueKind]:
    return {d.kind for d in due.schedule(state) if d.kind.on_the_clock}


@pytest.mark.parametrize(
    ("name", "in_time", "spared"),
    [
        # the silence loss only (art. 26: the repeat goes; art. 31)
        ("bg-email", 30, {due.DueKind.SILENCE}),
        # the 4-month report only (art. 25, 26 А; 003 p1 3b)
        ("bg-post", 20, {due.DueKind.SILENCE_REPORT}),
        # the report and the repeat (003 p1 3a: "to avoid needless repeats")
        ("iccf-postal", 10, {due.DueKind.SILENCE_REPORT, due.DueKind.REPEAT}),
        ("iccf-server", 30, {due.DueKind.SILENCE}),
    ],
)
def test_a_notice_in_time_spares_the_silence_and_a_late_one_nothing(
    name: str, in_time: int, spared: set[due.DueKind]
) -> None:
    p = profile(name, {"days_per_control": 500})
    silent = kinds(waiting_black(p, None))
    assert spared <= silent
    early = waiting_black(p, None).since + timedelta(days=in_time)
    assert kinds(waiting_black(p, early)) == silent - spared
    late = notice_limit(p, waiting_black(p, None).since)
    assert not due.notice_covers(waiting_black(p, None), late)
    assert kinds(waiting_black(p, late)) == silent
    # a notice sent before the move came (on the opponent's move) is in time
    assert due.notice_covers(waiting_black(p, None), datetime(2026, 3, 2, tzinfo=UTC))


def test_the_sweep_at_a_moment_sends_no_spared_repeat() -> None:
    p = ICCF_POSTAL
    state = waiting_black(p, utc(3, 10))
    repeat = repeat_due(p, state.since)
    assert repeat is not None
    swept = due.sweep(waiting_black(p, None), repeat)
    assert [d.at for d in swept if d.kind is due.DueKind.REPEAT] == [repeat]
    assert [d for d in due.sweep(state, repeat) if d.kind is due.DueKind.REPEAT] == []


# -- properties ------------------------------------------------------------

BASE = datetime(2026, 3, 1, tzinfo=UTC)  # spans the spring clock change
minutes = st.integers(0, 90 * 24 * 60)
profiles = st.sampled_from(sorted(PROFILES)).map(profile)
zones = st.sampled_from([SOFIA, ZoneInfo("UTC"), ZoneInfo("America/New_York")])
leaves = st.lists(
    st.tuples(st.integers(0, 95), st.integers(0, 20)).map(
        lambda t: LeavePeriod(
            BASE.date() + timedelta(days=t[0]), BASE.date() + timedelta(days=t[0] + t[1])
        )
    ),
    max_size=3,
)


def instant(offset: int) -> datetime:
    return BASE + timedelta(minutes=offset)


@settings(max_examples=200)
@given(profiles, zones, minutes, minutes, minutes, leaves)
@pytest.mark.slow
def test_days_grow_with_the_reply_and_shrink_with_leave(
    p: Profile, tz: ZoneInfo, r: int, s1: int, s2: int, on_leave: list[LeavePeriod]
) -> None:
    received, early, late = instant(r), instant(min(s1, s2)), instant(max(s1, s2))
    with_leave = move_days(p, received, late, on_leave, tz)
    assert 0 <= move_days(p, received, early, on_leave, tz) <= with_leave
    assert with_leave <= move_days(p, received, late, (), tz)


@settings(max_examples=200)
@given(profiles, zones, minutes, st.integers(0, 60), leaves)
def test_days_reached_at_is_the_inverse_of_move_days(
    p: Profile, tz: ZoneInfo, r: int, n: int, on_leave: list[LeavePeriod]
) -> None:
    received = instant(r)
    at = days_reached_at(p, received, n, on_leave, tz)
    assert at >= received
    assert move_days(p, received, at, on_leave, tz) >= n
    if n > 0:
        assert move_days(p, received, at - MICRO, on_leave, tz) < n


@settings(max_examples=200)
@given(profiles, st.lists(st.integers(0, 15), max_size=40), st.integers(0, 30))
def test_control_state_is_consistent(p: Profile, days: list[int], running: int) -> None:
    moves = history(*days)
    state = control_state(p, moves, running_days=running)
    assert state.total_days == sum(days) + running
    assert 0 <= state.used_days <= state.total_days
    numbers = [o.move_number for o in state.oversteps]
    assert numbers == sorted(set(numbers))
    assert state.lost == (len(state.oversteps) >= p.oversteps_to_lose)
    if not state.lost:
        assert state.count_start <= state.next_control_move
        assert state.next_control_move >= state.move_number
        assert state.days_left >= 0
    # More running days never undo an overstep.
    more = control_state(p, moves, running_days=running + 1)
    assert {o.move_number for o in state.oversteps} <= {o.move_number for o in more.oversteps}


def test_overstep_times_give_a_second_overstep_only_where_the_count_runs_on() -> None:
    history_ = history(*[3] * 8)
    received = datetime(2026, 3, 1, 10, tzinfo=ZoneInfo("UTC"))
    assert len(overstep_times(ICCF_POSTAL, history_, received)) == 2
    assert len(overstep_times(BG_POST, history_, received)) == 1  # art. 30: the next move
    assert len(overstep_times(BG_EMAIL, history(*[5] * 8), received)) == 1  # the first loses
    never = BG_POST.with_overrides({"oversteps_to_lose": 0})
    assert len(overstep_times(never, history_, received)) == 1
