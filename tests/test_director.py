"""Reading the director's orders (the words of a TD's message or ``mailbot td``)."""

from __future__ import annotations

import datetime

import pytest

from mailbot.desk.director import OrderError, read_order, read_orders


@pytest.mark.parametrize(
    ("line", "verb"),
    [
        ("confirm", "confirm"),
        ("Confirmed.", "confirm"),
        ("потвърждавам", "confirm"),
        ("Подтверждаю", "confirm"),
        ("reject", "reject"),
        ("отхвърлям", "reject"),
        ("отвергаю", "reject"),
    ],
)
def test_decisions_in_three_languages(line: str, verb: str) -> None:
    order = read_order(line)
    assert order is not None and order.verb == verb


def test_penalty_names_game_colour_and_days() -> None:
    order = read_order("penalty [BG-2026-E1/3] черните 10")
    assert order is not None
    assert (order.game, order.color, order.days) == ("BG-2026-E1/3", "black", 10)


def test_penalty_other_than_5_or_10_days_is_refused() -> None:
    with pytest.raises(OrderError, match="5 or 10"):
        read_order("penalty BG-2026-E1/3 white 7")


def test_missing_arguments_are_named() -> None:
    with pytest.raises(OrderError, match="give color"):
        read_order("forfeit")


def test_leave_extend_result_withdraw() -> None:
    leave = read_order("leave ivanov 30 2027")
    assert leave is not None
    assert (leave.player, leave.days, leave.day) == ("ivanov", 30, datetime.date(2027, 1, 1))
    extend = read_order("extend BG-2026-E1 2027-12-31")
    assert extend is not None
    assert (extend.player, extend.day) == ("BG-2026-E1", datetime.date(2027, 12, 31))
    result = read_order("result BG-2026-E1/4 ½-½")
    assert result is not None and result.result == "1/2-1/2"
    withdraw = read_order("withdraw petrov valid")
    assert withdraw is not None and (withdraw.player, withdraw.valid) == ("petrov", True)


def test_prose_is_not_an_order() -> None:
    assert read_orders("Dear all,\nthe claim looks right to me.\n\nRegards") == []
    assert [o.verb for o in read_orders("Hello\nconfirm\nThanks")] == ["confirm"]
