"""Director's scenarios through the real mail path (Dovecot in, aiosmtpd out, SQLite).

The bot's clock is moved with ``now`` as ``mailbot sweep --now`` and
``mailbot poll --once --now`` would; players' mail arrives with the
INTERNALDATE the scenario needs.
"""

from __future__ import annotations

import datetime
import io
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import chess.pgn
import pytest
from harness import Federation, text_of
from mailservers import ImapAccount, Received, SmtpSink

from mailbot.cli import main
from mailbot.desk.sweep import sweep
from mailbot.mail.postman import Postman
from mailbot.shell.delivery import deliver_due

TD = "td@federation.example"
SOFIA = ZoneInfo("Europe/Sofia")
UTC = ZoneInfo("UTC")

Make = Callable[..., Federation]


def start_list(
    index: str,
    profile: str,
    start: str,
    end: str,
    players: list[tuple[str, str]],
    games: str = "round-robin",
    extra: str = "",
) -> str:
    rows = "\n".join(
        f"  - {{id: {key}, name: {name}, email: {key}@example.org}}" for key, name in players
    )
    return f"""
index: {index}
name: Scenario {index}
profile: {profile}
start: {start}
end: {end}
language: en
notation: en
director: {{name: Tom Director, email: {TD}}}
players:
{rows}
games: {games}
{extra}
"""


@pytest.fixture
def make(
    store_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> Iterator[Make]:
    made: list[Federation] = []

    def build(text: str) -> Federation:
        fed = Federation(store_url, imap_account, smtp_sink, text, tmp_path)
        made.append(fed)
        return fed

    yield build
    for fed in made:
        fed.close()


def day(year: int, month: int, d: int, hour: int = 10, tz: ZoneInfo = SOFIA) -> datetime.datetime:
    return datetime.datetime(year, month, d, hour, tzinfo=tz)


def run_sweep(fed: Federation, now: datetime.datetime) -> None:
    sweep(fed.sessions, fed.config.smtp.sender, now)
    deliver_due(fed.sessions, Postman(fed.config.smtp), now)


def mail(fed: Federation, address: str, event: str, game: str | None = None) -> list[Received]:
    return [
        m
        for m in fed.received(address)
        if m.message["X-Mailbot-Event"] == event
        and (game is None or m.message["X-Mailbot-Game"] == game)
    ]


def results(fed: Federation, address: str) -> dict[str, str]:
    """Each game's result as the game-over mail to ``address`` gives it: one game's in
    the headers, those of several games (one message) in each part's PGN."""
    found: dict[str, str] = {}
    for m in mail(fed, address, "game-over"):
        if m.message["X-Mailbot-Game"]:
            found[m.message["X-Mailbot-Game"]] = m.message["X-Mailbot-Result"]
            continue
        for part in text_of(m).split("== [")[1:]:
            result = re.search(r'\[Result "([^"]+)"\]', part)
            assert result is not None, part
            found[part.partition("]")[0]] = result.group(1)
    return found


def send(fed: Federation, who: str, body: str, when: datetime.datetime, game: str) -> None:
    """``who`` writes ``body`` about ``game``; it arrives at ``when``, the bot polls at once."""
    fed.write(f"{who}@example.org", body, when, subject=f"[{game}] move")
    fed.poll(when + datetime.timedelta(minutes=5))


def order(fed: Federation, body: str, when: datetime.datetime) -> str:
    """The director writes ``body`` and confirms it when asked (the mail carries no
    DMARC verdict); returns the text of the bot's "orders" answer."""
    confirm_order(fed, body, when)
    answer = fed.last(TD)
    assert answer.message["Subject"].endswith("Your orders"), answer.message["Subject"]
    return text_of(answer)


def confirm_order(fed: Federation, body: str, when: datetime.datetime) -> None:
    """The director writes ``body``; the bot holds it and asks; the director confirms.

    Nothing of the order is done until the confirmation arrives.
    """
    before = [m.message["Message-ID"] for m in fed.received(TD)]
    fed.write(TD, body, when)
    fed.poll(when + datetime.timedelta(minutes=5))
    challenge = fed.last(TD)
    assert challenge.message["Message-ID"] not in before
    assert challenge.message["X-Mailbot-Held"], challenge.message["Subject"]
    fed.write(TD, "Confirm.\n\nTom", when + datetime.timedelta(minutes=10), reply_to=challenge)
    fed.poll(when + datetime.timedelta(minutes=15))


def pgn_of(item: Received) -> chess.pgn.Game:
    text = text_of(item)
    game = chess.pgn.read_game(io.StringIO(text[text.index("[Event ") :]))
    assert game is not None
    return game


#: A quiet opening whose 10th and 11th moves are the line of 003 part 1 art. 6g
#: (10. 6141 5878 11. 3234 4534: 10. Rf1-d1 O-O 11. c2-c4 d5:c4).
OPENING = [
    ("1. d2-d4", "1... d7-d5"),
    ("2. Ng1-f3", "2... Ng8-f6"),
    ("3. e2-e3", "3... e7-e6"),
    ("4. Bf1-d3", "4... Bf8-e7"),
    ("5. O-O", "5... Nb8-d7"),
    ("6. Nb1-d2", "6... c7-c5"),
    ("7. b2-b3", "7... b7-b6"),
    ("8. Bc1-b2", "8... Bc8-b7"),
    ("9. Qd1-e2", "9... a7-a6"),
    ("10. Rf1-d1", "10... O-O"),
    ("11. c2-c4", "11... d5:c4"),
    ("12. b3:c4", "12... Qd8-c7"),
]


# ---------------------------------------------------------------------------
# 1. 003 part 1 art. 6b: 31 days on 9 moves under 30 days per 10 moves (bg-post)


def eight_moves_of_three_days(fed: Federation, game: str) -> datetime.date:
    """White spends 3 days on each of moves 1-8, Black answers on the day of receipt.

    The game starts on 1 January; White's move k arrives on 4 January + 4(k-1)
    days. Returns the day Black's 8th move reached White.
    """
    when = day(2026, 1, 4)
    for white, black in OPENING[:8]:
        send(fed, "walter", white, when, game)
        send(fed, "bella", black, when + datetime.timedelta(hours=2), game)
        when += datetime.timedelta(days=4)
    return (when - datetime.timedelta(days=4)).date()


@pytest.mark.slow
def test_first_overstep_found_by_the_sweep_then_the_second_loses(make: Make) -> None:
    fed = make(
        start_list("OS-1", "bg-post", "2026-01-01", "2027-12-31",
                   [("walter", "Walter White"), ("bella", "Bella Black")])
    )  # fmt: skip
    game = "OS-1/1"
    last = eight_moves_of_three_days(fed, game)
    assert last == datetime.date(2026, 2, 1)
    assert fed.last("walter@example.org").message["X-Mailbot-Time"] == "white=24; black=0"
    # White is silent on move 9: 24 + 7 = 31 days > 30 from 9 February on
    for d in range(2, 9):
        run_sweep(fed, day(2026, 2, d, 0) + datetime.timedelta(minutes=5))
    assert mail(fed, TD, "overstep") == []
    for d in range(9, 13):
        run_sweep(fed, day(2026, 2, d, 0) + datetime.timedelta(minutes=5))
        run_sweep(fed, day(2026, 2, d, 18))
    (packet,) = mail(fed, TD, "overstep")
    assert packet.message["Subject"] == (
        f"[{game}] Walter White – Bella Black: First time overstep by Walter White"
    )
    assert packet.message["X-Mailbot-Due"] == "2026-02-09"
    text = text_of(packet)
    assert "31 days where 30 were allowed by move 10" in text
    assert "play goes on" in text
    assert len(mail(fed, "walter@example.org", "overstep")) == 1
    assert len(mail(fed, "bella@example.org", "overstep")) == 1
    # the game goes on: move 9 on 13 February (11 days), the report is not repeated
    send(fed, "walter", OPENING[8][0], day(2026, 2, 13), game)
    assert fed.last("bella@example.org").message["X-Mailbot-Event"] == "move"
    send(fed, "bella", OPENING[8][1], day(2026, 2, 13, 12), game)
    to_white = fed.last("walter@example.org")
    assert to_white.message["X-Mailbot-Event"] == "move"
    # a new count from move 10: the next control is move 19 (003 part 1 art. 6b)
    assert "Time control: 0 days used of 30 by move 19 (30 days left)." in text_of(to_white)
    assert to_white.message["X-Mailbot-Time"] == "white=35; black=0"
    assert len(mail(fed, TD, "overstep")) == 1
    # the second overstep: 31 days on move 10 (14 February - 16 March)
    for d in range(13, 17):
        run_sweep(fed, day(2026, 3, d, 0) + datetime.timedelta(minutes=5))
    assert fed.config_path is not None
    assert main(["-c", str(fed.config_path), "sweep", "--now", "2026-03-17T08:00"]) == 0
    for d in range(18, 21):
        run_sweep(fed, day(2026, 3, d))
    _, second = mail(fed, TD, "overstep")
    assert second.message["Subject"].endswith(": Time overstep by Walter White")
    assert second.message["X-Mailbot-Due"] == "2026-03-17"
    text = text_of(second)
    assert "31 days where 30 were allowed by move 19" in text
    assert 'Answer this message with "confirm"' in text
    fed.write(TD, "Confirm.\n\nTom", day(2026, 3, 21), reply_to=second)
    fed.poll(day(2026, 3, 21, 11))
    for address in ("walter@example.org", "bella@example.org", TD):
        (over,) = mail(fed, address, "game-over")
        assert over.message["X-Mailbot-Result"] == "0-1"
    assert "overstepped" in text_of(over)
    (orders,) = [m for m in fed.received(TD) if "Your orders" in m.message["Subject"]]
    assert "0-1" in text_of(orders)


@pytest.mark.slow
def test_oversteps_found_when_the_moves_arrive_are_reported_once(make: Make) -> None:
    fed = make(
        start_list("OS-2", "bg-post", "2026-01-01", "2027-12-31",
                   [("walter", "Walter White"), ("bella", "Bella Black")])
    )  # fmt: skip
    game = "OS-2/1"
    eight_moves_of_three_days(fed, game)

    def daily_sweeps(first: datetime.date, last: datetime.date) -> None:
        """The daemon's sweep at noon every day from ``first`` to ``last``."""
        while first <= last:
            run_sweep(fed, datetime.datetime.combine(first, datetime.time(12), SOFIA))
            first += datetime.timedelta(days=1)

    daily_sweeps(datetime.date(2026, 2, 2), datetime.date(2026, 2, 8))
    assert mail(fed, TD, "overstep") == []
    # move 9 arrives on 9 February before the day's sweep: 7 days, 31 in all
    send(fed, "walter", OPENING[8][0], day(2026, 2, 9, 8), game)
    (packet,) = mail(fed, TD, "overstep")
    assert packet.message["Subject"].endswith(": First time overstep by Walter White")
    assert "31 days where 30 were allowed by move 10" in text_of(packet)
    assert mail(fed, "bella@example.org", "move")[-1].message["X-Mailbot-Ply"] == "17"
    send(fed, "bella", OPENING[8][1], day(2026, 2, 9, 10), game)
    assert "by move 19" in text_of(fed.last("walter@example.org"))
    daily_sweeps(datetime.date(2026, 2, 9), datetime.date(2026, 3, 12))
    assert len(mail(fed, TD, "overstep")) == 1
    # move 10 arrives on 13 March: 31 days of the new count (10 February - 12 March)
    send(fed, "walter", OPENING[9][0], day(2026, 3, 13, 8), game)
    daily_sweeps(datetime.date(2026, 3, 13), datetime.date(2026, 3, 16))
    _, second = mail(fed, TD, "overstep")
    assert second.message["Subject"].endswith(": Time overstep by Walter White")
    assert second.message["X-Mailbot-Due"] == "2026-03-13"
    assert "31 days where 30 were allowed by move 19" in text_of(second)
    assert len(mail(fed, "walter@example.org", "overstep")) == 2
    # the director confirms by naming the game, without replying to the packet
    confirm_order(fed, "confirm OS-2/1", day(2026, 3, 16))
    for address in ("walter@example.org", "bella@example.org", TD):
        (over,) = mail(fed, address, "game-over")
        assert over.message["X-Mailbot-Result"] == "0-1"
    assert pgn_of(over).headers["Termination"] == "time forfeit"


# ---------------------------------------------------------------------------
# 2. 003 part 1 art. 6g: conditional moves, the seed's table (iccf-postal)


@pytest.mark.slow
def test_conditional_line_charges_the_proposer_at_the_first_move_and_the_acceptor_at_the_last(
    make: Make, capsys: pytest.CaptureFixture[str]
) -> None:
    fed = make(
        start_list("CM-1", "iccf-postal", "2026-01-01", "2027-12-31",
                   [("walter", "Walter White"), ("bella", "Bella Black")],
                   extra="conditional_moves: true")
    )  # fmt: skip
    game = "CM-1/1"

    def sweeps(first: datetime.date, last: datetime.date) -> None:
        while first <= last:
            run_sweep(fed, datetime.datetime.combine(first, datetime.time(0, 5), UTC))
            first += datetime.timedelta(days=1)

    # 9 full moves, each side at 28 days: White's first move on 29 January (1-28 January),
    # Black's on 26 February (29 January - 25 February), the rest on the day of receipt
    send(fed, "walter", OPENING[0][0], day(2026, 1, 29, tz=UTC), game)
    sweeps(datetime.date(2026, 2, 20), datetime.date(2026, 2, 26))
    send(fed, "bella", OPENING[0][1], day(2026, 2, 26, 8, tz=UTC), game)
    for white, black in OPENING[1:9]:
        send(fed, "walter", white, day(2026, 2, 26, 9, tz=UTC), game)
        send(fed, "bella", black, day(2026, 2, 26, 10, tz=UTC), game)
    assert fed.last("walter@example.org").message["X-Mailbot-Time"] == "white=28; black=28"
    # White's 10th move with a line, 3 days later (26-28 February): 31 > 30 at move 10
    sweeps(datetime.date(2026, 2, 27), datetime.date(2026, 3, 1))
    send(fed, "walter", "10. Rf1-d1 O-O 11. c2-c4", day(2026, 3, 1, tz=UTC), game)
    accepted = fed.last("walter@example.org")
    assert accepted.message["X-Mailbot-Event"] == "move-accepted"
    (packet,) = mail(fed, TD, "overstep")
    assert packet.message["Subject"].endswith(": First time overstep by Walter White")
    assert "31 days where 30 were allowed by move 10" in text_of(packet)
    # Black thinks 5 days (1-5 March) and accepts the line with his 11th move; the daily
    # sweep does not report him at move 10 (28 + 3 > 30): accepting the line would
    # charge the days to move 11
    sweeps(datetime.date(2026, 3, 2), datetime.date(2026, 3, 6))
    send(fed, "bella", "10... O-O 11. c2-c4 d5:c4", day(2026, 3, 6, tz=UTC), game)
    to_white = fed.last("walter@example.org")
    assert to_white.message["X-Mailbot-Event"] == "move"
    assert to_white.message["X-Mailbot-Ply"] == "22"
    assert to_white.message["X-Mailbot-Move"] == "d5c4"
    assert to_white.message["X-Mailbot-Time"] == "white=31; black=33"
    line = text_of(to_white)
    assert "10. Rf1-d1 0-0 11. c2-c4 d5xc4; " in line
    assert "– 1.3. – 6.3. = 5 days; total time: White 31 days, Black 33 days" in line
    # White's new count began with move 11 (its conditional move): next control move 20
    assert "by move 20" in line
    sweeps(datetime.date(2026, 3, 7), datetime.date(2026, 3, 8))
    send(fed, "walter", OPENING[11][0], day(2026, 3, 8, tz=UTC), game)
    to_black = fed.last("bella@example.org")
    # Black: 33 days by move 11, no overstep; the next control is 60 days by move 20
    assert "Time control: 33 days used of 60 by move 20 (27 days left)." in text_of(to_black)
    assert len(mail(fed, TD, "overstep")) == 1
    assert (
        mail(fed, "bella@example.org", "overstep")[0].message["Subject"].endswith("by Walter White")
    )
    assert fed.config_path is not None
    capsys.readouterr()
    assert main(["-c", str(fed.config_path), "pgn", game]) == 0
    out = capsys.readouterr().out
    record = chess.pgn.read_game(io.StringIO(out))
    assert record is not None
    comments = [node.comment for node in record.mainline()]
    assert "; 3 days" in comments[18]  # 10. Rd1: the proposer's days on the first move
    assert comments[19].endswith("; 0 days")  # 10... O-O: Black's time goes to move 11
    assert "conditional move; 0 days" in comments[20]  # 11. c4, played by the bot
    assert comments[21].endswith("; 5 days")  # 11... dxc4


# ---------------------------------------------------------------------------
# 3. The end of the tournament (art. 49-55): extension, adjudication claims, the packet

END_PLAYERS = [("anna", "Anna Ash"), ("boris", "Boris Birch"), ("chris", "Chris Cedar"),
               ("dora", "Dora Dale")]  # fmt: skip
END_GAMES = "[{white: anna, black: boris}, {white: chris, black: dora}]"


@pytest.mark.slow
def test_end_of_tournament_extension_claims_and_adjudication(make: Make) -> None:
    fed = make(start_list("EN-1", "bg-email", "2026-03-20", "2026-03-31", END_PLAYERS, END_GAMES))

    def both_games_move(when: datetime.datetime, white: str, black: str) -> None:
        for game, w, b in (("EN-1/1", "anna", "boris"), ("EN-1/2", "chris", "dora")):
            send(fed, w, white, when, game)
            send(fed, b, black, when + datetime.timedelta(hours=1), game)

    both_games_move(day(2026, 3, 22), *OPENING[0])  # White: 2 days
    # art. 50: at most six months, and only below 91 % finished games
    answer = order(fed, "extend EN-1 2026-12-31", day(2026, 3, 23))
    assert "extend: at most 6 months, to 2026-09-30" in answer
    answer = order(fed, "extend EN-1 2026-04-30", day(2026, 3, 24))
    assert "- EN-1 extended to 2026-04-30 (art. 50)" in answer
    told = mail(fed, "dora@example.org", "notice", "EN-1/2")[-1]
    assert "the tournament EN-1 is extended to 2026-04-30" in text_of(told)
    run_sweep(fed, day(2026, 4, 1))  # the old end date has passed: nothing happens
    both_games_move(day(2026, 4, 5), *OPENING[1])  # 13 days
    both_games_move(day(2026, 4, 28), *OPENING[2])  # 22 days: 37 of 50 by move 10
    assert not [m for m in fed.received("anna@example.org") if "claim" in m.message["Subject"]]
    # the sweep after the new end date calls for the claims, once
    run_sweep(fed, day(2026, 5, 1, 0) + datetime.timedelta(minutes=5))
    run_sweep(fed, day(2026, 5, 2))
    calls: dict[str, Received] = {}
    for key, _ in END_PLAYERS:
        (call,) = [m for m in fed.received(f"{key}@example.org")
                   if m.message["Subject"].endswith("send your adjudication claim")]  # fmt: skip
        assert "the tournament ended on 30.4.2026" in text_of(call)
        assert "by 15.5.2026 (art. 52)" in text_of(call)
        calls[key] = call
    # equal claims: the result stands at once (art. 53 note)
    for key, when in (("anna", day(2026, 5, 3)), ("boris", day(2026, 5, 4))):
        fed.write(f"{key}@example.org", "claim 1/2-1/2\n\nSymmetrical pawns, nothing to play for.",
                  when, reply_to=calls[key])  # fmt: skip
        fed.poll(when + datetime.timedelta(minutes=5))
    for address in ("anna@example.org", "boris@example.org", TD):
        (over,) = mail(fed, address, "game-over", "EN-1/1")
        assert over.message["X-Mailbot-Result"] == "1/2-1/2"
    assert pgn_of(over).headers["Termination"] == "adjudication"
    # different claims: the arbiter's packet after the claim period (15 May), not before
    fed.write("chris@example.org", "claim 1-0\n\nAfter 4. c2-c4 White keeps the initiative.",
              day(2026, 5, 3), reply_to=calls["chris"])  # fmt: skip
    fed.write("dora@example.org", "claim 1/2-1/2\n\nBlack equalises with 4... c7-c5.",
              day(2026, 5, 5), reply_to=calls["dora"])  # fmt: skip
    fed.poll(day(2026, 5, 5, 11))
    assert "your claim 1/2-1/2 is recorded; claims close on 15.5.2026" in text_of(
        fed.last("dora@example.org")
    )

    def packets() -> list[Received]:
        return [m for m in fed.received(TD) if "Adjudication packet" in m.message["Subject"]]

    for d in (6, 15):
        run_sweep(fed, day(2026, 5, d))
    assert packets() == []
    run_sweep(fed, day(2026, 5, 16))
    run_sweep(fed, day(2026, 5, 17))
    (packet,) = packets()
    assert packet.message["X-Mailbot-Game"] == "EN-1/2"
    text = text_of(packet)
    assert "White claims 1-0, Black claims 1/2-1/2" in text
    assert "White keeps the initiative" in text and "Black equalises" in text
    assert pgn_of(packet).headers["White"] == "Cedar, Chris"
    # no clock runs in a game waiting for the arbiter: no repeat, overstep or silence
    # (Black's move of 28 April would be repeated to White on 12 May; White would
    # overstep on 13 May)
    run_sweep(fed, day(2026, 5, 25))
    for key, _ in END_PLAYERS:
        events = {m.message["X-Mailbot-Event"] for m in fed.received(f"{key}@example.org")}
        assert events.isdisjoint({"repeat", "overstep", "silence"}), (key, events)
    fed.write(TD, "result 1-0\n\nTom", day(2026, 5, 26), reply_to=packet)
    fed.poll(day(2026, 5, 26, 11))
    for address in ("chris@example.org", "dora@example.org", TD):
        (over,) = mail(fed, address, "game-over", "EN-1/2")
        assert over.message["X-Mailbot-Result"] == "1-0"
    assert "- EN-1/2: result 1-0 recorded" in text_of(fed.last(TD))
    # every game finished: no extension any more (art. 50: only below 91 %)
    answer = order(fed, "extend EN-1 2026-06-30", day(2026, 5, 26))
    assert "100% of the games are finished" in answer


# ---------------------------------------------------------------------------
# 4. The director's orders by e-mail


@pytest.mark.slow
def test_penalty_forfeit_overstep_award_and_a_malformed_order(make: Make) -> None:
    fed = make(
        start_list("OR-1", "bg-post", "2026-03-01", "2027-12-31",
                   [("walter", "Walter White"), ("bella", "Bella Black"), ("carl", "Carl Cole")],
                   "[{white: walter, black: bella}, {white: carl, black: bella}]")
    )  # fmt: skip
    game = "OR-1/1"
    send(fed, "walter", "1. d2-d4", day(2026, 3, 3), game)  # 2 days
    answer = order(
        fed,
        "Penalty OR-1/1 black 5\npenalty OR-1/1 white 7\nforfeit OR-1/2 black\n\nTom",
        day(2026, 3, 4),
    )
    assert "- 5 penalty days added to Black in OR-1/1 (art. 56)" in answer
    assert "- penalty OR-1/1 white 7: penalty: art. 56 allows 5 or 10 days" in answer
    assert "- OR-1/2: Black forfeits, 1-0" in answer
    # the player concerned hears it in the second person, the opponent in the third
    for key, words in (("walter", "5 penalty days are added to Black"),
                       ("bella", "5 penalty days are added to your time")):  # fmt: skip
        told = mail(fed, f"{key}@example.org", "notice", game)[-1]
        assert "Decision of the tournament director" in told.message["Subject"]
        assert words in text_of(told)
        assert told.message["X-Mailbot-Time"] == "white=2; black=5"
    for address in ("carl@example.org", "bella@example.org", TD):
        (over,) = mail(fed, address, "game-over", "OR-1/2")
        assert over.message["X-Mailbot-Result"] == "1-0"
    # a malformed order alone: the reason comes back, nothing changes
    told_before = len(fed.received("walter@example.org"))
    answer = order(fed, "penalty OR-1/1 white 7", day(2026, 3, 5))
    assert "art. 56 allows 5 or 10 days" in answer
    assert len(fed.received("walter@example.org")) == told_before
    send(fed, "bella", "1... d7-d5", day(2026, 3, 6), game)  # 2 days + 5
    to_white = fed.last("walter@example.org")
    assert to_white.message["X-Mailbot-Time"] == "white=2; black=7"
    assert "total time: White 2 days, Black 7 days" in text_of(to_white)
    answer = order(fed, "penalty OR-1/1 white 10", day(2026, 3, 7))
    assert "10 penalty days added to White in OR-1/1" in answer
    send(fed, "walter", "2. Ng1-f3", day(2026, 3, 8), game)  # 1 day + 10
    to_black = fed.last("bella@example.org")
    assert to_black.message["X-Mailbot-Time"] == "white=13; black=7"
    assert "total time: White 13 days, Black 7 days" in text_of(to_black)
    # art. 56: a first overstep awarded to Black; her new count starts with move 2
    answer = order(fed, "overstep OR-1/1 black", day(2026, 3, 9))
    assert "a first overstep awarded to Black in OR-1/1 at move 1; a new count starts" in answer
    assert "a first overstep is awarded to Black" in text_of(fed.last("walter@example.org"))
    assert "a first overstep is awarded to you at move 1" in text_of(fed.last("bella@example.org"))
    # 31 days of the new count on move 2 (9 March - 8 April): the second overstep loses
    for d in range(1, 11):
        run_sweep(fed, day(2026, 4, d, 0) + datetime.timedelta(minutes=5))
    (packet,) = mail(fed, TD, "overstep")
    assert packet.message["Subject"].endswith(": Time overstep by Bella Black")
    assert packet.message["X-Mailbot-Due"] == "2026-04-09"
    assert "31 days where 30 were allowed by move 11" in text_of(packet)
    fed.write(TD, "confirm", day(2026, 4, 10), reply_to=packet)
    fed.poll(day(2026, 4, 10, 11))
    (over,) = mail(fed, "bella@example.org", "game-over", game)
    assert over.message["X-Mailbot-Result"] == "1-0"


@pytest.mark.slow
def test_a_penalty_that_puts_a_silent_player_over_the_limit_is_reported(make: Make) -> None:
    fed = make(
        start_list("OR-2", "bg-post", "2026-03-01", "2027-12-31",
                   [("walter", "Walter White"), ("bella", "Bella Black")])
    )  # fmt: skip
    game = "OR-2/1"
    send(fed, "walter", "1. d2-d4", day(2026, 3, 28), game)  # 27 days
    send(fed, "bella", "1... d7-d5", day(2026, 3, 28, 12), game)
    run_sweep(fed, day(2026, 3, 29))
    order(fed, "penalty OR-2/1 white 5", day(2026, 3, 29, 12))  # 27 + 5 > 30 on move 2
    run_sweep(fed, day(2026, 3, 30))
    run_sweep(fed, day(2026, 3, 31))
    (packet,) = mail(fed, TD, "overstep")
    assert packet.message["Subject"].endswith(": First time overstep by Walter White")
    assert packet.message["X-Mailbot-Due"] == "2026-03-29"
    assert "32 days where 30 were allowed by move 10" in text_of(packet)
    send(fed, "walter", "2. Ng1-f3", day(2026, 4, 1), game)
    assert len(mail(fed, TD, "overstep")) == 1


@pytest.mark.slow
def test_an_overstep_awarded_in_e_mail_play_loses(make: Make) -> None:
    # art. 29: e-mail play knows one overstep, and it loses; a finished game takes no penalty
    fed = make(
        start_list("OR-3", "bg-email", "2026-03-01", "2027-12-31",
                   [("walter", "Walter White"), ("bella", "Bella Black")])
    )  # fmt: skip
    send(fed, "walter", "1. d2-d4", day(2026, 3, 3), "OR-3/1")
    answer = order(fed, "overstep OR-3/1 white", day(2026, 3, 4))
    assert "- an overstep awarded to White in OR-3/1 loses: 0-1" in answer
    (over,) = mail(fed, "bella@example.org", "game-over", "OR-3/1")
    assert over.message["X-Mailbot-Result"] == "0-1"
    assert pgn_of(over).headers["Termination"] == "time forfeit"
    answer = order(fed, "penalty OR-3/1 black 5", day(2026, 3, 5))
    assert "OR-3/1 is finished already (0-1)" in answer


@pytest.mark.slow
def test_extra_leave_lets_a_player_go_over_the_allowance(make: Make) -> None:
    # player ids that read as colours: the order names the player first
    fed = make(
        start_list("LX-1", "bg-email", "2026-05-01", "2027-12-31",
                   [("white", "Walter White"), ("black", "Bella Black")])
    )  # fmt: skip
    walter = "white@example.org"
    fed.write(walter, "leave 2026-06-01 2026-06-30", day(2026, 5, 20))
    fed.poll(day(2026, 5, 20, 11))
    assert "Left for 2026: 0 days." in text_of(fed.last(walter))
    fed.write(walter, "leave 2026-08-01 2026-08-10", day(2026, 5, 21))
    fed.poll(day(2026, 5, 21, 11))
    refused = fed.last(walter)
    assert refused.message["Subject"].endswith("Leave not granted")
    assert "10 days asked for 2026, 0 left of 30" in text_of(refused)
    answer = order(fed, "leave white 30 2026", day(2026, 5, 22))
    assert "- 30 extra leave days for Walter White in 2026 (art. 43)" in answer
    extra = fed.last(walter)
    assert extra.message["X-Mailbot-Event"] == "leave"
    assert "granted you 30 days of extra leave for 2026" in text_of(extra)
    # the player's leave, not one game's: the event's tag, no game's
    assert extra.message["Subject"] == "[LX-1] Extra leave for you"
    assert extra.message["X-Mailbot-Game"] is None
    fed.write(walter, "leave 2026-08-01 2026-08-10", day(2026, 5, 23))
    fed.poll(day(2026, 5, 23, 11))
    granted = fed.last(walter)
    assert granted.message["Subject"].endswith("1.8.2026 – 10.8.2026 confirmed")
    assert "Left for 2026: 20 days." in text_of(granted)


@pytest.mark.slow
def test_withdrawals_under_the_bulgarian_rules(make: Make) -> None:
    # art. 47 A: without a valid reason every unfinished game is lost;
    # art. 48: with one (illness), the arbiter adjudicates them
    fed = make(
        start_list("WD-1", "bg-email", "2026-03-01", "2027-12-31",
                   [("anna", "Anna Ash"), ("boris", "Boris Birch"), ("chris", "Chris Cedar")],
                   "[{white: anna, black: boris}, {white: chris, black: anna},"
                   " {white: boris, black: chris}]")
    )  # fmt: skip
    send(fed, "anna", "1. d2-d4", day(2026, 3, 3), "WD-1/1")
    send(fed, "boris", "1... d7-d5", day(2026, 3, 4), "WD-1/1")
    send(fed, "boris", "1. d2-d4", day(2026, 3, 4), "WD-1/3")
    answer = order(fed, "withdraw anna", day(2026, 3, 5))
    assert "Anna Ash withdrawn (no valid reason): WD-1/1: lost; WD-1/2: lost" in answer
    for address, tag, result in (("boris@example.org", "WD-1/1", "0-1"),
                                 ("chris@example.org", "WD-1/2", "1-0")):  # fmt: skip
        (over,) = mail(fed, address, "game-over", tag)
        assert over.message["X-Mailbot-Result"] == result
        assert "withdrew" in text_of(over)
    answer = order(fed, "withdraw boris valid", day(2026, 3, 6))
    assert "Boris Birch withdrawn (valid reason): WD-1/3: adjudicated" in answer
    calls = {}
    for key in ("boris", "chris"):
        (call,) = [m for m in mail(fed, f"{key}@example.org", "notice", "WD-1/3")
                   if "arbiter" in m.message["Subject"]]  # fmt: skip
        assert "by 21.3.2026" in text_of(call)
        calls[key] = call
    assert mail(fed, "chris@example.org", "game-over", "WD-1/3") == []
    # the game is with the arbiter: no clock runs (Chris would be repeated on 18 March)
    for d in (15, 20, 21):
        run_sweep(fed, day(2026, 3, d))
    assert mail(fed, "chris@example.org", "repeat") == []
    for key, claimed in (("chris", "1/2-1/2"), ("boris", "1-0")):
        fed.write(f"{key}@example.org", f"claim {claimed}\n\nMy analysis.", day(2026, 3, 10),
                  reply_to=calls[key])  # fmt: skip
    fed.poll(day(2026, 3, 10, 11))
    assert "recorded; claims close on 21.3.2026" in text_of(fed.last("boris@example.org"))
    run_sweep(fed, day(2026, 3, 22))
    run_sweep(fed, day(2026, 3, 23))
    (packet,) = [m for m in fed.received(TD) if "Adjudication packet" in m.message["Subject"]]
    assert "White claims 1-0, Black claims 1/2-1/2" in text_of(packet)
    fed.write(TD, "result 1/2-1/2", day(2026, 3, 24), reply_to=packet)
    fed.poll(day(2026, 3, 24, 11))
    (over,) = mail(fed, "chris@example.org", "game-over", "WD-1/3")
    assert over.message["X-Mailbot-Result"] == "1/2-1/2"


@pytest.mark.slow
def test_withdrawals_under_the_iccf_rules(make: Make, capsys: pytest.CaptureFixture[str]) -> None:
    # 003 part 1 art. 9: with a valid reason the games are adjudicated when the player
    # finished a game (or 25 moves on average were made), otherwise annulled
    fed = make(
        start_list("WD-2", "iccf-postal", "2026-03-01", "2027-12-31",
                   [("xena", "Xena Xu"), ("yuri", "Yuri Yew"), ("zoe", "Zoe Zinn"),
                    ("alma", "Alma Alder")],
                   "[{white: xena, black: alma}, {white: alma, black: xena},"
                   " {white: yuri, black: alma}, {white: alma, black: yuri},"
                   " {white: zoe, black: alma}]")
    )  # fmt: skip
    when = day(2026, 3, 3, tz=UTC)
    for key, tag in (("xena", "WD-2/1"), ("yuri", "WD-2/3"), ("alma", "WD-2/4"), ("zoe", "WD-2/5")):
        send(fed, key, "1. d2-d4", when, tag)
    send(fed, "yuri", "resign", when, "WD-2/4")
    answer = order(fed, "withdraw xena valid\nwithdraw yuri valid\nwithdraw zoe",
                   day(2026, 3, 5, tz=UTC))  # fmt: skip
    assert "Xena Xu withdrawn (valid reason): WD-2/1: annulled; WD-2/2: annulled" in answer
    assert "Yuri Yew withdrawn (valid reason): WD-2/3: adjudicated" in answer
    assert "Zoe Zinn withdrawn (no valid reason): WD-2/5: lost" in answer
    assert results(fed, "alma@example.org") == {
        "WD-2/1": "*", "WD-2/2": "*", "WD-2/4": "1-0", "WD-2/5": "0-1"
    }  # fmt: skip
    # the resignation's mail, then one for the three games the withdrawals ended
    assert len(mail(fed, "alma@example.org", "game-over")) == 2
    (call,) = [m for m in mail(fed, "alma@example.org", "notice", "WD-2/3")
               if "arbiter" in m.message["Subject"]]  # fmt: skip
    assert "Yuri Yew has withdrawn" in text_of(call)
    # equal claims settle the adjudicated game at once
    for key in ("alma", "yuri"):
        fed.write(f"{key}@example.org", "claim 1/2-1/2", day(2026, 3, 6, tz=UTC), reply_to=call)
        fed.poll(day(2026, 3, 6, 11, tz=UTC))
    (over,) = mail(fed, "alma@example.org", "game-over", "WD-2/3")
    assert over.message["X-Mailbot-Result"] == "1/2-1/2"
    # the tournament's PGN: every game, finished or not, a blank line between two
    assert fed.config_path is not None
    capsys.readouterr()
    assert main(["-c", str(fed.config_path), "pgn", "WD-2"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n\n[Event ") == 4
    stream = io.StringIO(out)
    games = iter(lambda: chess.pgn.read_game(stream), None)
    assert [g.headers["Result"] for g in games if g] == ["*", "*", "1/2-1/2", "1-0", "0-1"]


# ---------------------------------------------------------------------------
# 5. Leave: a move during one's own leave ends it in that game (art. 46); the
#    opponent's leave does not stop one's own clock (003 part 1 art. 8a)


def test_a_move_during_leave_ends_it_in_that_game_only(make: Make) -> None:
    fed = make(
        start_list("LV-1", "bg-email", "2026-05-01", "2027-12-31",
                   [("walter", "Walter White"), ("bella", "Bella Black"), ("carl", "Carl Cole")],
                   "[{white: walter, black: bella}, {white: carl, black: bella}]")
    )  # fmt: skip
    send(fed, "walter", "1. d2-d4", day(2026, 5, 5), "LV-1/1")
    send(fed, "carl", "1. d2-d4", day(2026, 5, 5), "LV-1/2")
    fed.write("bella@example.org", "leave 2026-06-01 2026-06-30", day(2026, 5, 10))
    fed.poll(day(2026, 5, 10, 11))
    assert "Left for 2026: 0 days." in text_of(mail(fed, "bella@example.org", "leave")[-1])
    # Bella answers in game 1 on 10 June, during her leave: 6-31 May count, June does not
    send(fed, "bella", "1... d7-d5", day(2026, 6, 10), "LV-1/1")
    assert "= 26 days" in text_of(fed.last("walter@example.org"))
    # Walter's clock runs during Bella's leave: 11-19 June
    send(fed, "walter", "2. Ng1-f3", day(2026, 6, 20), "LV-1/1")
    to_bella = fed.last("bella@example.org")
    assert "= 9 days" in text_of(to_bella)
    assert to_bella.message["X-Mailbot-Time"] == "white=13; black=26"
    # her leave is over in game 1 from 10 June: 21-24 June count
    send(fed, "bella", "2... Ng8-f6", day(2026, 6, 25), "LV-1/1")
    to_walter = fed.last("walter@example.org")
    assert "= 4 days" in text_of(to_walter)
    assert to_walter.message["X-Mailbot-Time"] == "white=13; black=30"
    # in game 2 the leave still stands: 6-31 May only
    send(fed, "bella", "1... d7-d5", day(2026, 6, 28), "LV-1/2")
    to_carl = fed.last("carl@example.org")
    assert "= 26 days" in text_of(to_carl)
    assert to_carl.message["X-Mailbot-Time"] == "white=4; black=26"
