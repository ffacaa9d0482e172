"""The director's desk through the real mail path: claims decided by e-mail,
oversteps, leave, delay notices, orders from strangers refused."""

from __future__ import annotations

import datetime
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import chess.pgn
import pytest
from harness import Federation, text_of
from mailservers import ImapAccount, Received, SmtpSink

from mailbot.cli import main
from mailbot.desk.sweep import sweep
from mailbot.mail.postman import Postman
from mailbot.shell.delivery import deliver_due

SOFIA = datetime.timezone(datetime.timedelta(hours=3))
UTC = datetime.UTC
WHITE, BLACK, TD = "white@example.org", "black@example.org", "td@federation.example"


NOTATIONS = {"ru": "ru", "bg": "bg-cyrillic", "en": "en"}


def start_list(profile: str, start: str, rules: str = "", black: str = "ru") -> str:
    notation = NOTATIONS[black]
    return f"""
index: TD-1
name: Director's desk test
profile: {profile}
start: {start}
end: 2027-12-31
language: en
notation: en
director: {{name: Tom Director, email: {TD}}}
players:
  - {{id: white, name: Walter White, email: {WHITE}}}
  - {{id: black, name: Bella Black, email: {BLACK}, language: {black}, notation: {notation}}}
games: [{{white: white, black: black}}]
{rules}
"""


@pytest.fixture
def make(
    store_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> Iterator[object]:
    made: list[Federation] = []

    def build(text: str) -> Federation:
        fed = Federation(store_url, imap_account, smtp_sink, text, tmp_path)
        made.append(fed)
        return fed

    yield build
    for fed in made:
        fed.close()


def at(month: int, day: int, hour: int = 10, tz: datetime.tzinfo = SOFIA) -> datetime.datetime:
    return datetime.datetime(2026, month, day, hour, tzinfo=tz)


def run_sweep(fed: Federation, now: datetime.datetime) -> None:
    sweep(fed.sessions, fed.config.smtp.sender, now)
    deliver_due(fed.sessions, Postman(fed.config.smtp), now)


def of(fed: Federation, address: str, event: str) -> list[Received]:
    return [m for m in fed.received(address) if m.message["X-Mailbot-Event"] == event]


def silent_black(fed: Federation) -> Received:
    """White moves on 3 March, Black stays silent; the TD gets the 40-day packet."""
    fed.write(WHITE, "1. e2-e4", at(3, 3), subject="[TD-1/1] move")
    fed.poll(at(3, 3, 11))
    for month, day in ((3, 17), (3, 30), (4, 14)):
        run_sweep(fed, at(month, day))
    (packet,) = of(fed, TD, "silence")
    return packet


@pytest.mark.slow
def test_td_confirms_the_silence_claim_by_mail(make) -> None:  # type: ignore[no-untyped-def]
    fed = make(start_list("bg-email", "2026-03-01"))
    packet = silent_black(fed)
    fed.write(TD, "Confirm.\n\nTom", at(4, 15), reply_to=packet)
    fed.poll(at(4, 15, 11))
    over = of(fed, WHITE, "game-over")
    assert len(over) == 1 and over[0].message["X-Mailbot-Result"] == "1-0"
    assert len(of(fed, BLACK, "game-over")) == 1
    game = chess.pgn.read_game(__import__("io").StringIO(text_of(over[0]).split("\n\n", 3)[-1]))
    assert game is not None
    # the game is over: a late move from Black is not played
    fed.write(BLACK, "1... e7-e5", at(4, 16), subject="[TD-1/1] ход")
    fed.poll(at(4, 16, 11))
    assert fed.last(BLACK).message["X-Mailbot-Event"] == "notice"


@pytest.mark.slow
def test_td_rejects_the_claim_and_play_goes_on(make) -> None:  # type: ignore[no-untyped-def]
    fed = make(start_list("bg-email", "2026-03-01"))
    packet = silent_black(fed)
    fed.write(TD, "reject", at(4, 15), reply_to=packet)
    fed.poll(at(4, 15, 11))
    assert of(fed, WHITE, "game-over") == []
    fed.write(BLACK, "1... e7-e5", at(4, 16), subject="[TD-1/1] ход")
    fed.poll(at(4, 16, 11))
    assert fed.last(WHITE).message["X-Mailbot-Event"] == "move"


def test_delay_notice_prevents_the_silence_claim(make) -> None:  # type: ignore[no-untyped-def]
    fed = make(start_list("bg-email", "2026-03-01"))
    fed.write(WHITE, "1. e2-e4", at(3, 3), subject="[TD-1/1] move")
    fed.poll(at(3, 3, 11))
    fed.write(BLACK, "задержка", at(3, 10), subject="[TD-1/1] задержка")
    fed.poll(at(3, 10, 11))
    assert TD not in [r for m in fed.received(WHITE) for r in m.recipients]
    for month, day in ((3, 17), (4, 14), (4, 20)):
        run_sweep(fed, at(month, day))
    assert of(fed, TD, "silence") == []


def opening(fed: Federation, tz: datetime.tzinfo = SOFIA) -> None:
    """White's first move, sent on 3 March: Black is to move from then on."""
    fed.write(WHITE, "1. e2-e4", at(3, 3, tz=tz), subject="[TD-1/1] move")
    fed.poll(at(3, 3, 11, tz=tz))


def notice(fed: Federation, word: str, day: datetime.datetime) -> str:
    """Black sends the delay notice ``word`` (art. 25) on ``day``: the bot's answer, on
    one line."""
    fed.write(BLACK, word, day, subject=f"[TD-1/1] {word}")
    fed.poll(day + datetime.timedelta(hours=1))
    return " ".join(text_of(of(fed, BLACK, "notice")[-1]).split())


def postal_notice(make, day: int) -> tuple[Federation, str]:  # type: ignore[no-untyped-def]
    """iccf-postal (no overstep in sight): Black, to move from 3 March, sends a delay notice
    on ``day`` March; the game and the bot's answer, on one line."""
    fed = make(start_list("iccf-postal", "2026-03-01", "rules: {days_per_control: 300}"))
    opening(fed, UTC)
    return fed, notice(fed, "задержка", at(3, day, tz=UTC))


@pytest.mark.slow
def test_iccf_postal_notice_in_time_spares_the_repeat_and_the_report(make) -> None:  # type: ignore[no-untyped-def]
    # 003 p1 3a: a notice before 14 days avoids the repeat (due at 14 + 7 days); 3b: the
    # 4-month silence does not go to the TD when the partner was told
    fed, answer = postal_notice(make, 10)
    assert "позже срока уведомления (14 дней), записано" in answer, answer
    assert "сообщения судье турнира о вашем молчании (срок 120 дней) и от повтора" in answer
    assert "will answer later than usual" in text_of(of(fed, WHITE, "notice")[-1])
    for month, day in ((3, 25), (5, 1), (7, 10)):
        run_sweep(fed, at(month, day, tz=UTC))
    assert of(fed, BLACK, "repeat") == []
    assert of(fed, TD, "silence") == []


@pytest.mark.slow
def test_iccf_postal_late_notice_spares_nothing(make) -> None:  # type: ignore[no-untyped-def]
    # received 3 March, that day counted: on 20 March 17 days have run, more than 14
    fed, answer = postal_notice(make, 20)
    assert "срок уведомления на этот ход (14 дней) уже истёк" in answer, answer
    assert "не защищает вас от сообщения судье турнира" in answer
    run_sweep(fed, at(3, 25, tz=UTC))
    (repeat,) = of(fed, BLACK, "repeat")
    # the time for a notice has passed: the repeat asks for the move alone
    assert "Пожалуйста, пришлите свой ход." in text_of(repeat)
    assert "задержк" not in text_of(repeat)
    run_sweep(fed, at(7, 10, tz=UTC))
    (packet,) = of(fed, TD, "silence")
    assert "without a delay notice in time" in " ".join(text_of(packet).split())


def warned_of_silence(make, limit: int) -> tuple[Federation, str]:  # type: ignore[no-untyped-def]
    """bg-email with a notice limit of ``limit`` days, silence 40 (art. 31): Black, to move
    from 3 March, is silent; the move is repeated on 17 March and Black is warned of the
    silence on 9 April. The days count from 4 March: the silence's 41st day is 13 April,
    due on the 14th. Returns the warning's text on one line."""
    fed = make(start_list("bg-email", "2026-03-01", f"rules: {{notice_after_days: {limit}}}"))
    opening(fed)
    run_sweep(fed, at(3, 17))
    run_sweep(fed, at(4, 9))
    (warning,) = of(fed, BLACK, "warning")
    assert warning.message["X-Mailbot-Warning"] == "silence"
    return fed, " ".join(text_of(warning).split())


@pytest.mark.slow
def test_a_notice_after_the_limit_does_not_spare_the_silence_loss(make) -> None:  # type: ignore[no-untyped-def]
    # a notice must come before more than 30 days have run (art. 25): 30 have run at the
    # end of 2 April
    fed, warning = warned_of_silence(make, 30)
    assert "задержк" not in warning  # only the move spares the silence now
    (repeat,) = of(fed, BLACK, "repeat")
    assert "задержка" in text_of(repeat)  # a notice still came in time on 17 March
    answer = notice(fed, "задержка", at(4, 10))
    assert "срок уведомления на этот ход (30 дней) уже истёк" in answer, answer
    assert "не защищает вас от поражения за молчание (срок 40 дней)" in answer
    run_sweep(fed, at(4, 14))
    (packet,) = of(fed, TD, "silence")
    assert "without a delay notice in time" in " ".join(text_of(packet).split())


@pytest.mark.slow
def test_a_notice_before_the_limit_warns_of_its_own_day(make) -> None:  # type: ignore[no-untyped-def]
    # a limit of 37 days passes on 11 April, before the silence's 14 April: the warning
    # names both days
    fed, warning = warned_of_silence(make, 37)
    assert "до 14.4.2026 не придёт ваш ход (" in warning, warning
    until = "(уведомление о задержке, «задержка», защищает вас, только если придёт до 11.4.2026)"
    assert until in warning
    assert "записано" in notice(fed, "задержка", at(4, 10))
    run_sweep(fed, at(4, 14))
    assert of(fed, TD, "silence") == []


@pytest.mark.slow
def test_bg_post_notice_spares_the_report_not_the_repeat(make) -> None:  # type: ignore[no-untyped-def]
    # art. 25: a notice before 28 days; art. 26 А: the repeat goes all the same
    fed = make(start_list("bg-post", "2026-03-01", "rules: {days_per_control: 300}", "bg"))
    opening(fed)
    answer = notice(fed, "забавяне", at(3, 10))
    assert "по-късно от срока за уведомление (28 дни), е записано (чл. 25)" in answer, answer
    assert "пази от доклад до съдията на турнира за мълчанието Ви (срок 120 дни)." in answer
    run_sweep(fed, at(3, 18))
    (repeat,) = of(fed, BLACK, "repeat")
    assert "Моля, изпратете хода си." in text_of(repeat)  # the notice came already
    run_sweep(fed, at(7, 10))
    assert of(fed, TD, "silence") == []


@pytest.mark.slow
def test_a_notice_on_the_opponents_move_covers_the_next_one(make) -> None:  # type: ignore[no-untyped-def]
    fed = make(start_list("bg-email", "2026-03-01"))
    opening(fed)
    fed.write(WHITE, "delay", at(3, 4), subject="[TD-1/1] delay")
    fed.poll(at(3, 4, 11))
    answer = " ".join(text_of(of(fed, WHITE, "notice")[-1]).split())
    assert "later than 40 days is recorded (art. 25)." in answer, answer
    assert "For your next move it spares you the loss of the game for silence after 40 days." in (
        answer
    )
    fed.write(BLACK, "1... e7-e5", at(3, 5), subject="[TD-1/1] ход")
    fed.poll(at(3, 5, 11))
    for month, day in ((3, 20), (4, 20)):
        run_sweep(fed, at(month, day))
    assert of(fed, WHITE, "repeat")  # art. 26: the repeat goes in bg-email
    assert of(fed, TD, "silence") == []


def test_auto_forfeit_ends_the_game_at_the_deadline(make) -> None:  # type: ignore[no-untyped-def]
    fed = make(start_list("bg-email", "2026-03-01", "rules: {auto_forfeit: true}"))
    silent_black(fed)
    over = of(fed, WHITE, "game-over")
    assert len(over) == 1 and over[0].message["X-Mailbot-Result"] == "1-0"


def test_an_order_from_anyone_but_the_td_is_refused_and_logged(
    make,  # type: ignore[no-untyped-def]
    caplog: pytest.LogCaptureFixture,
) -> None:
    fed = make(start_list("bg-email", "2026-03-01"))
    packet = silent_black(fed)
    caplog.set_level(logging.WARNING)
    fed.write(WHITE, "confirm", at(4, 15), subject=f"Re: {packet.message['Subject']}")
    fed.write("mallory@example.net", "forfeit TD-1/1 black", at(4, 15, 12))
    fed.poll(at(4, 15, 13))
    assert of(fed, WHITE, "game-over") == []
    assert any("director" in r.getMessage() for r in caplog.records)
    assert fed.last(WHITE).message["X-Mailbot-Event"] == "notice"


def test_overstep_at_move_time_one_overstep_profile(make) -> None:  # type: ignore[no-untyped-def]
    # bg-email: 50 days for 10 moves; White's first move arrives on the 52nd day (51 counted)
    fed = make(start_list("bg-email", "2026-03-01"))
    fed.write(WHITE, "1. e2-e4", at(4, 21), subject="[TD-1/1] move")
    fed.poll(at(4, 21, 11))
    (packet,) = of(fed, TD, "overstep")
    assert "51 days" in text_of(packet) and "confirm" in text_of(packet)
    fed.write(TD, "confirm", at(4, 22), reply_to=packet)
    fed.poll(at(4, 22, 11))
    assert of(fed, BLACK, "game-over")[0].message["X-Mailbot-Result"] == "0-1"


@pytest.mark.slow
def test_first_overstep_in_a_postal_profile_does_not_lose(make) -> None:  # type: ignore[no-untyped-def]
    # bg-post: 30 days for 10 moves, two oversteps; 31 days on move 1 is the first
    fed = make(start_list("bg-post", "2026-03-01"))
    fed.write(WHITE, "1. e2-e4", at(4, 2), subject="[TD-1/1] move")
    fed.poll(at(4, 2, 11))
    (packet,) = of(fed, TD, "overstep")
    assert "First" in packet.message["Subject"]
    assert fed.last(BLACK).message["X-Mailbot-Event"] in ("move", "overstep")
    fed.write(BLACK, "1... e7-e5", at(4, 3), subject="[TD-1/1] ход")
    fed.poll(at(4, 3, 11))
    assert of(fed, WHITE, "move")


def test_leave_e3_through_mail(make) -> None:  # type: ignore[no-untyped-def]
    # art. 45: leave 1-30 June; received 20 May; answered 5 July: 15 days
    fed = make(start_list("bg-email", "2026-05-01"))
    fed.write(WHITE, "1. e2-e4", at(5, 20), subject="[TD-1/1] move")
    fed.poll(at(5, 20, 11))
    fed.write(BLACK, "отпуск 1.6.2026 30.6.2026", at(5, 25))
    fed.poll(at(5, 25, 11))
    granted = of(fed, BLACK, "leave")
    assert len(granted) == 1 and "30" in text_of(granted[0])
    assert of(fed, WHITE, "leave") and of(fed, TD, "leave")
    fed.write(BLACK, "1... e7-e5", at(7, 5), subject="[TD-1/1] ход")
    fed.poll(at(7, 5, 11))
    line = text_of(fed.last(WHITE))
    assert "= 15 days" in line, line


def test_leave_over_the_allowance_is_refused_with_the_days_left(make) -> None:  # type: ignore[no-untyped-def]
    fed = make(start_list("bg-email", "2026-05-01"))
    fed.write(BLACK, "отпуск 1.6.2026 20.6.2026", at(5, 25))
    fed.poll(at(5, 25, 11))
    fed.write(BLACK, "отпуск 1.8.2026 15.8.2026", at(5, 26))
    fed.poll(at(5, 26, 11))
    refused = of(fed, BLACK, "leave")[-1]
    text = text_of(refused)
    assert "10" in text  # 30 a year, 20 taken: 10 left
    assert "15" in text


@pytest.mark.parametrize(
    ("received", "answered", "days"),
    [(6, 14, 1), (6, 13, 1), (7, 14, 0)],
    ids=["E4", "E5", "E6"],
)
def test_leave_iccf_postal_examples_through_mail(
    make, received: int, answered: int, days: int
) -> None:  # type: ignore[no-untyped-def]
    # 003 part 1 art. 8a: leave 7-13 July, the receipt day counted
    fed = make(start_list("iccf-postal", "2026-07-01"))
    fed.write(BLACK, "leave 2026-07-07 2026-07-13", at(7, 2, tz=UTC))
    fed.poll(at(7, 2, 11, tz=UTC))
    fed.write(WHITE, "1. e2-e4", at(7, received, tz=UTC), subject="[TD-1/1] move")
    fed.poll(at(7, received, 11, tz=UTC))
    fed.write(BLACK, "1... e7-e5", at(7, answered, tz=UTC), subject="[TD-1/1] ход")
    fed.poll(at(7, answered, 11, tz=UTC))
    word = {0: "дней", 1: "день"}[days]
    assert f"= {days} {word}" in text_of(of(fed, BLACK, "move-accepted")[-1])


def test_td_orders_on_the_command_line(make, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    fed = make(start_list("bg-email", "2026-03-01"))
    fed.write(WHITE, "1. e2-e4", at(3, 3), subject="[TD-1/1] move")
    fed.poll(at(3, 3, 11))
    config = str(fed.config_path)
    assert main(["-c", config, "td", "penalty", "TD-1/1", "black", "5", "--now", "2026-03-04"]) == 0
    assert "5 penalty days" in capsys.readouterr().out
    fed.write(BLACK, "1... e7-e5", at(3, 5), subject="[TD-1/1] ход")
    fed.poll(at(3, 5, 11))
    assert fed.last(WHITE).message["X-Mailbot-Time"] == "white=2; black=6"  # 1 day + 5
    assert main(["-c", config, "td", "penalty", "TD-1/1", "black", "7"]) == 2
    assert main(["-c", config, "td", "result", "TD-1/1", "1/2-1/2"]) == 0
    assert of(fed, TD, "game-over")[0].message["X-Mailbot-Result"] == "1/2-1/2"


def test_a_player_with_a_secret_must_show_it(make) -> None:  # type: ignore[no-untyped-def]
    text = start_list("bg-email", "2026-03-01").replace(
        f"email: {WHITE}}}", f"email: {WHITE}, secret: k7Q-pawn42}}"
    )
    fed = make(text)
    fed.write(WHITE, "1. e2-e4", at(3, 3), subject="[TD-1/1] move")
    fed.poll(at(3, 3, 11))
    assert fed.last(WHITE).message["X-Mailbot-Event"] == "notice"
    assert of(fed, BLACK, "move") == []
    fed.write(WHITE, "1. e2-e4\nk7Q-pawn42", at(3, 4), subject="[TD-1/1] move")
    fed.poll(at(3, 4, 11))
    assert of(fed, BLACK, "move")[0].message["X-Mailbot-Move"] == "e2e4"
    msg = fed.compose(WHITE, "2. Ng1-f3", at(3, 6), subject="[TD-1/1] move")
    msg.replace_header("To", "bot+k7Q-pawn42@federation.example")
    fed.write(BLACK, "1... e7-e5", at(3, 5), subject="[TD-1/1] ход")
    fed.poll(at(3, 5, 11))
    fed.deliver(msg.as_bytes(), at(3, 6))
    fed.poll(at(3, 6, 11))
    assert of(fed, BLACK, "move")[-1].message["X-Mailbot-Move"] == "g1f3"


def test_no_moves_after_the_end_of_the_tournament(make) -> None:  # type: ignore[no-untyped-def]
    fed = make(start_list("bg-email", "2026-03-01").replace("end: 2027-12-31", "end: 2026-03-10"))
    fed.write(WHITE, "1. e2-e4", at(3, 3), subject="[TD-1/1] move")
    fed.poll(at(3, 3, 11))
    fed.write(BLACK, "1... e7-e5", at(3, 12), subject="[TD-1/1] ход")
    fed.poll(at(3, 12, 11))
    assert fed.last(BLACK).message["X-Mailbot-Event"] == "notice"
    assert "arbiter" in text_of(fed.last(BLACK)) or "арбитр" in text_of(fed.last(BLACK))
    assert fed.last(BLACK).message["X-Mailbot-Ply"] == "1"


def decisions(fed: Federation, address: str) -> list[Received]:
    """The notices of the director's decisions that ``address`` received."""
    return [m for m in of(fed, address, "notice") if "X-Mailbot-Time" in m.message]


@pytest.mark.slow
def test_orders_through_the_td_s_reply_address_go_once_copies_and_forgeries_wait(  # type: ignore[no-untyped-def]
    make,
) -> None:
    """Over IMAP and SMTP: the bot's mail to the TD alone has a reply address of its own
    (``bot+o-KEY@``); an answer through it is carried out once. The same answer sent
    again, and a forgery by the player who had a copy, wait for the TD's confirmation,
    and the question says when the orders were carried out."""
    fed = make(start_list("bg-email", "2026-03-01"))
    fed.write(WHITE, "1. e2-e4", at(3, 3), subject="[TD-1/1] move")
    fed.poll(at(3, 3, 11))
    # an order to the bot's own address proves nothing: the TD is asked
    fed.write(TD, "penalty TD-1/1 black 5", at(3, 4))
    fed.poll(at(3, 4, 11))
    asked = fed.last(TD)
    assert asked.message["X-Mailbot-Held"] and decisions(fed, WHITE) == []
    keyed = re.compile(r"Federation CC <bot\+o-[a-z2-7]{26}@federation\.example>")
    assert keyed.fullmatch(str(asked.message["Reply-To"]))
    fed.write(TD, "Confirm.\n\nTom", at(3, 4, 12), reply_to=asked)
    fed.poll(at(3, 4, 13))
    done = fed.last(TD)
    assert done.message["Subject"] == "[TD-1] Your orders"
    assert keyed.fullmatch(str(done.message["Reply-To"]))
    assert done.message["Reply-To"] != asked.message["Reply-To"]
    assert len(decisions(fed, WHITE)) == 1
    # the TD answers that mail with an order and a copy to Black: carried out at once
    order = fed.compose(TD, "penalty TD-1/1 white 5", at(3, 5), reply_to=done,
                        headers=[("Cc", BLACK)])  # fmt: skip
    assert order["To"] == done.message["Reply-To"]
    fed.deliver(order.as_bytes(), at(3, 5))
    fed.poll(at(3, 5, 11))
    assert fed.last(TD).message["Subject"] == "[TD-1] Your orders"
    assert len(decisions(fed, WHITE)) == 2
    assert decisions(fed, WHITE)[-1].message["X-Mailbot-Time"] == "white=7; black=5"
    # the very same message again, with another Message-ID: it waits
    order.replace_header("Message-ID", "<penalty.again@federation.example>")
    fed.deliver(order.as_bytes(), at(3, 12))
    fed.poll(at(3, 12, 11))
    again = fed.last(TD)
    assert again.message["X-Mailbot-Held"]
    assert "These orders were already carried out on 05.03.2026" in text_of(again)
    # Black, who had the copy, writes in the TD's name to the same address
    forged = fed.compose(TD, "forfeit TD-1/1 white", at(3, 13), reply_to=done)
    fed.deliver(forged.as_bytes(), at(3, 13))
    fed.poll(at(3, 13, 11))
    asked = fed.last(TD)
    assert asked.message["X-Mailbot-Held"] and "forfeit TD-1/1 white" in text_of(asked)
    assert "already carried out on 05.03.2026" in text_of(asked)
    assert of(fed, WHITE, "game-over") == [] and len(decisions(fed, WHITE)) == 2
    # the TD rejects the forgery through its question: still nothing happens
    fed.write(TD, "reject", at(3, 13, 12), reply_to=asked)
    fed.poll(at(3, 13, 13))
    assert fed.last(TD).message["Subject"] == "[TD-1] Orders cancelled"
    assert of(fed, WHITE, "game-over") == [] and len(decisions(fed, WHITE)) == 2
