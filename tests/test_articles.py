"""Rules by article, each through the whole mail path (Dovecot in, aiosmtpd out).

One test per rule the seeds ask for, named after its article: players and
the director write to the bot's mailbox, the bot's clock moves as
``mailbot poll --once --now`` and ``mailbot sweep --now`` move it, and the
tests read what each of them received.
"""

from __future__ import annotations

import datetime
from pathlib import Path

import chess
import pytest
from harness import Federation, text_of
from mailservers import ImapAccount, Received, SmtpSink
from test_director_scenarios import (
    OPENING,
    TD,
    Make,
    day,
    eight_moves_of_three_days,
    mail,
    make,
    order,
    run_sweep,
    send,
    start_list,
)

from mailbot.cli import main

__all__ = ["make"]  # the fixture, shared with the director's scenarios

UTC = datetime.UTC


def pair(index: str, profile: str, extra: str = "") -> str:
    """A start list of one game, Walter White against Bella Black."""
    players = [("walter", "Walter White"), ("bella", "Bella Black")]
    return start_list(index, profile, "2026-01-01", "2027-12-31", players, extra=extra)


WALTER, BELLA = "walter@example.org", "bella@example.org"


def play(
    fed: Federation, game: str, moves: list[tuple[str, str]], first: datetime.datetime
) -> None:
    """``moves`` (who, text) one after the other, an hour apart from ``first``."""
    for i, (who, text) in enumerate(moves):
        send(fed, who, text, first + datetime.timedelta(hours=i), game)


# ---------------------------------------------------------------------------
# 003 part 1 art. 6g, art. 32: a conditional line is announced to the player to move


def test_003_p1_6g_art_32_the_player_to_move_is_told_after_a_conditional_reply(
    make: Make,
) -> None:
    fed = make(pair("CM-2", "iccf-postal", extra="conditional_moves: true"))
    game = "CM-2/1"
    play(fed, game, [("walter", "1. e2-e4"), ("bella", "1... e7-e5"), ("walter", "2. Bf1-c4"),
                     ("bella", "2... d7-d6"), ("walter", "3. Ng1-e2 Nb8-a6 4. f2-f3")],
         day(2026, 1, 2, tz=UTC))  # fmt: skip
    standing = fed.last(WALTER)
    assert standing.message["X-Mailbot-Event"] == "move-accepted"
    assert "Your conditional line is standing: 3... Nb8-a6 4. f2-f3." in text_of(standing)

    send(fed, "bella", "3... Nb8-a6", day(2026, 1, 3, tz=UTC), game)

    # White, who proposed the line, learns that it was played and that Black is to move
    to_white = fed.last(WALTER)
    assert to_white.message["X-Mailbot-Event"] == "move"
    assert to_white.message["X-Mailbot-Ply"] == "7"
    text = text_of(to_white)
    said = "Your conditional line answered with 4. f2-f3: it is the move of Bella Black now."
    assert said in text
    assert "It is your move" not in text and "Reply to this message with your move" not in text
    # Black, who is to move, is told so, with White's answer and her clock
    to_black = fed.last(BELLA)
    assert to_black.message["X-Mailbot-Event"] == "move-accepted"
    text = text_of(to_black)
    assert "Your opponent's conditional line answered: 4. f2-f3. It is your move again." in text
    assert "Reply to this message with your move" in text
    assert "Time control:" in text


# ---------------------------------------------------------------------------
# Art. 2, FIDE 9.2, 003 part 1 art. 2f: a draw claim written with its move

SHUFFLE = [("walter", "1. Ng1-f3"), ("bella", "1... Ng8-f6"), ("walter", "2. Nf3-g1"),
           ("bella", "2... Nf6-g8"), ("walter", "3. Ng1-f3"), ("bella", "3... Ng8-f6"),
           ("walter", "4. Nf3-g1")]  # fmt: skip


def test_art_2_fide_9_2_a_claim_written_with_the_move_that_repeats_draws(make: Make) -> None:
    fed = make(pair("CL-1", "bg-email"))
    game = "CL-1/1"
    play(fed, game, SHUFFLE, day(2026, 1, 2, tz=UTC))

    # the position after 4... Ng8 occurs for the third time: the move is played, the
    # game drawn
    send(fed, "bella", "4... Nf6-g8 claim", day(2026, 1, 3, tz=UTC), game)

    for address in (WALTER, BELLA, TD):
        (over,) = mail(fed, address, "game-over")
        assert over.message["X-Mailbot-Result"] == "1/2-1/2"
        text = text_of(over)
        assert "draw by threefold repetition, claimed by Black with 4... Ng8" in text
        assert '[PlyCount "8"]' in text
        assert "4. Nf3-g1 Nf6-g8;" in text  # the claimed move's art. 8 line


@pytest.mark.slow
def test_art_2_fide_9_5_a_refused_claim_still_plays_its_move(make: Make) -> None:
    fed = make(pair("CL-2", "bg-email"))
    game = "CL-2/1"
    play(fed, game, SHUFFLE, day(2026, 1, 2, tz=UTC))

    # 4... Ne4 repeats nothing: the claim is refused, the move stands (FIDE 9.5.2)
    send(fed, "bella", "4... Nf6-e4 claim", day(2026, 1, 3, tz=UTC), game)

    to_white = fed.last(WALTER)
    assert to_white.message["X-Mailbot-Event"] == "move"
    assert to_white.message["X-Mailbot-Move"] == "f6e4"
    assert "your opponent Bella Black has played 4... Nf6-e4." in text_of(to_white)
    refused = [m for m in fed.received(BELLA) if "no draw" in text_of(m)]
    assert len(refused) == 1
    assert not mail(fed, WALTER, "game-over")


# ---------------------------------------------------------------------------
# 003 part 1 art. 7e, art. 28: stalling after a first overstep is a second one


def test_003_p1_7e_a_player_silent_after_the_first_overstep_oversteps_again(
    make: Make,
) -> None:
    fed = make(pair("ST-1", "iccf-postal"))
    game = "ST-1/1"
    send(fed, "walter", "1. e2-e4", day(2026, 1, 2, tz=UTC), game)
    # Black received 1. e4 on 2 January and stays silent: the receipt day counts,
    # 30 days run out with 31 January, the first overstep is on 1 February
    run_sweep(fed, day(2026, 2, 2, 0, tz=UTC))
    (first,) = mail(fed, TD, "overstep")
    assert first.message["Subject"].endswith(": First time overstep by Bella Black")
    assert "31 days where 30 were allowed by move 10" in text_of(first)
    assert not mail(fed, TD, "game-over")
    # the new count runs from there (30 days by move 10): still silent 31 days later,
    # Black oversteps a second time, which loses
    run_sweep(fed, day(2026, 3, 4, 12, tz=UTC))
    assert len(mail(fed, TD, "overstep")) == 1
    run_sweep(fed, day(2026, 3, 5, 12, tz=UTC))
    second = mail(fed, TD, "overstep")[1]
    assert second.message["Subject"].endswith(": Time overstep by Bella Black")
    text = text_of(second)
    assert "31 days where 30 were allowed by move 11: a time overstep on 5.3.2026" in text
    assert 'Answer this message with "confirm" to record the loss' in text


# ---------------------------------------------------------------------------
# Art. 7 З note: after a first overstep the line's totals count from the new count


@pytest.mark.slow
def test_art_7_z_after_a_first_overstep_the_line_totals_count_from_the_new_count(
    make: Make,
) -> None:
    fed = make(pair("TZ-1", "bg-post"))
    game = "TZ-1/1"
    eight_moves_of_three_days(fed, game)  # 24 days for White, Black's 8th on 1 February
    # move 9 on 9 February: 7 days (2-8 February), 31 in all: the first overstep at move 9,
    # the new count begins with move 10
    send(fed, "walter", OPENING[8][0], day(2026, 2, 9), game)
    to_black = fed.last(BELLA)
    assert to_black.message["X-Mailbot-Time"] == "white=31; black=0"  # the whole game
    assert "= 7 days; total time: White 0 days, Black 0 days" in text_of(to_black)
    send(fed, "bella", OPENING[8][1], day(2026, 2, 9, 12), game)
    send(fed, "walter", OPENING[9][0], day(2026, 2, 13), game)  # 3 days: 10-12 February
    to_black = fed.last(BELLA)
    assert to_black.message["X-Mailbot-Time"] == "white=34; black=0"
    assert "= 3 days; total time: White 3 days, Black 0 days" in text_of(to_black)


# ---------------------------------------------------------------------------
# Art. 7 note 3: in bg play the numeric form beside a move decides nothing


def test_art_7_note_3_the_numeric_form_decides_nothing_in_bg_play(make: Make) -> None:
    fed = make(pair("NF-1", "bg-email").replace("language: en", "language: bg"))
    game = "NF-1/1"
    # 5244 is d2-d4: the two forms disagree; the move in letters is played
    send(fed, "walter", "1. e2-e4 (1. 5244)", day(2026, 1, 2), game)
    accepted = fed.last(WALTER)
    assert accepted.message["X-Mailbot-Event"] == "move-accepted"
    assert accepted.message["X-Mailbot-Move"] == "e2e4"
    assert accepted.message["X-Mailbot-Penalty"] is None
    assert "цифровият запис 5244 не решава нищо (чл. 7, забележка 3)" in text_of(accepted)
    assert fed.last(BELLA).message["X-Mailbot-Move"] == "e2e4"
    # the seed's example: a move impossible in letters stays impossible (+5 days, art. 17),
    # whatever its correct numeric form says
    send(fed, "bella", "1... e7-e4 (1... 5755)", day(2026, 1, 3), game)
    rejected = fed.last(BELLA)
    assert rejected.message["X-Mailbot-Event"] == "move-rejected"
    assert rejected.message["X-Mailbot-Penalty"] == "black=5"


# ---------------------------------------------------------------------------
# Art. 45: in bg play leave stops play in all the player's games, the opponent's clock too


@pytest.mark.slow
def test_art_45_leave_stops_the_opponents_clock_in_bg_play(make: Make) -> None:
    players = [("walter", "Walter White"), ("bella", "Bella Black")]
    fed = make(start_list("LV-1", "bg-email", "2026-05-15", "2027-12-31", players))
    game = "LV-1/1"
    send(fed, "walter", "1. e2-e4", day(2026, 5, 16), game)
    # Bella answers on 20 May and takes her leave for June (art. 44: before it starts)
    send(fed, "bella", "1... e7-e5", day(2026, 5, 20), game)
    send(fed, "bella", "leave 1.6.2026 30.6.2026", day(2026, 5, 20, 12), game)
    (notice,) = mail(fed, WALTER, "leave")
    assert "Play stops in all the games of Bella Black for those days (art. 45)" in text_of(notice)
    assert "your clock in this game stops too" in text_of(notice)
    # the art. 45 comment's dates, seen from the opponent: received 20 May, answered
    # 5 July: 21-31 May and 1-4 July, 15 days (003 p1 8a would count June too: 45)
    send(fed, "walter", "2. Ng1-f3", day(2026, 7, 5), game)
    to_black = fed.last(BELLA)
    assert to_black.message["X-Mailbot-Event"] == "move"
    assert "20.5. – 21.5. – 5.7. = 15 days" in text_of(to_black)
    assert to_black.message["X-Mailbot-Time"] == "white=16; black=3"


# ---------------------------------------------------------------------------
# Art. 17: repeated impossible, incorrect or unclear moves reach the director


def test_art_17_systematic_violations_are_reported_to_the_director(make: Make) -> None:
    fed = make(pair("SV-1", "bg-email"))
    game = "SV-1/1"
    for n, text in enumerate(["1. e2-e5", "1. Ng1-e2", "1. Bf1-c4"]):
        send(fed, "walter", text, day(2026, 1, 2 + n), game)
        rejected = fed.last(WALTER)
        assert rejected.message["X-Mailbot-Event"] == "move-rejected"
        assert rejected.message["X-Mailbot-Penalty"] == "white=5"
        reports = [m for m in mail(fed, TD, "notice") if "art. 17" in text_of(m)]
        assert len(reports) == (1 if n == 2 else 0)
    (report,) = reports
    assert report.message["Subject"].endswith(": Repeated impossible, incorrect or unclear moves")
    text = text_of(report)
    assert "Walter White has now sent 3 impossible, incorrect or unclear moves" in text
    assert "15 days of penalty in all (art. 17)" in text
    assert '"forfeit SV-1/1 white"' in text
    # the director decides so: the game is lost
    fed.write(TD, "forfeit SV-1/1 white", day(2026, 1, 6), reply_to=report)
    fed.poll(day(2026, 1, 6, 10))
    challenge = fed.last(TD)
    fed.write(TD, "Confirm.", day(2026, 1, 6, 11), reply_to=challenge)
    fed.poll(day(2026, 1, 6, 12))
    (over,) = mail(fed, WALTER, "game-over")
    assert over.message["X-Mailbot-Result"] == "0-1"


# ---------------------------------------------------------------------------
# Art. 47 А: a player who withdraws without having sent a move is excluded


def test_art_47_a_a_player_who_never_moved_is_removed_from_the_crosstable(
    make: Make, capsys: pytest.CaptureFixture[str]
) -> None:
    fed = make(
        start_list("EX-1", "bg-email", "2026-03-01", "2027-12-31",
                   [("anna", "Anna Ash"), ("boris", "Boris Birch"), ("chris", "Chris Cedar")],
                   "[{white: anna, black: boris}, {white: chris, black: anna},"
                   " {white: boris, black: chris}]")
    )  # fmt: skip
    send(fed, "anna", "1. d2-d4", day(2026, 3, 3), "EX-1/1")
    send(fed, "boris", "resign", day(2026, 3, 4), "EX-1/1")
    send(fed, "boris", "1. d2-d4", day(2026, 3, 4), "EX-1/3")
    answer = order(fed, "withdraw chris", day(2026, 3, 5))
    assert (
        "Chris Cedar withdrew without having sent a move and is removed from the tournament "
        "and its crosstable (art. 47 A): EX-1/2: annulled; EX-1/3: annulled"
    ) in answer
    assert fed.config_path is not None
    capsys.readouterr()
    assert main(["-c", str(fed.config_path), "standings", "EX-1"]) == 0
    table = capsys.readouterr().out
    assert "Anna Ash" in table and "Boris Birch" in table
    assert "Chris Cedar" not in table


# ---------------------------------------------------------------------------
# Art. 20 and 22: a complaint about a move, upheld or groundless

RUY = [("walter", "1. e2-e4"), ("bella", "1... e7-e5"), ("walter", "2. Ng1-f3"),
       ("bella", "2... Nb8-c6"), ("walter", "3. Bf1-b5")]  # fmt: skip


def complain(fed: Federation, who: str, text: str, when: datetime.datetime) -> Received:
    """``who`` complains about a move; returns the director's notice of it."""
    send(fed, who, text, when, "CP-1/1")
    notice = fed.last(TD)
    assert notice.message["X-Mailbot-Claim"], notice.message["Subject"]
    return notice


@pytest.mark.slow
def test_art_20_an_upheld_complaint_sends_the_game_back_before_the_move(make: Make) -> None:
    fed = make(pair("CP-1", "bg-email"))
    game = "CP-1/1"
    play(fed, game, RUY, day(2026, 1, 2))
    send(fed, "bella", "3... a7-a6", day(2026, 1, 8), game)  # 5 days (3-7 January)
    send(fed, "walter", "4. Bb5-a4", day(2026, 1, 10), game)  # 1 day (9 January)
    send(fed, "bella", "4... Ng8-f6", day(2026, 1, 11), game)
    assert fed.last(WALTER).message["X-Mailbot-Time"] == "white=2; black=5"

    notice = complain(fed, "walter", "complaint 3\n\nBlack's third move was not a6.",
                      day(2026, 1, 12))  # fmt: skip
    assert notice.message["Subject"].endswith(": Complaint about a move for your decision")
    text = text_of(notice)
    assert "Walter White complains in game CP-1/1 that the opponent's move 3... a7-a6" in text
    assert "| Black's third move was not a6." in text
    (told,) = [m for m in fed.received(BELLA) if "complains" in text_of(m)]
    assert "Walter White complains that your move 3... a7-a6 was impossible" in text_of(told)

    fed.write(TD, "Confirm.\n\nTom", day(2026, 1, 13), reply_to=notice)
    fed.poll(day(2026, 1, 13, 10))
    # back to the position after 3. Bb5, Black to move; the totals of that moment
    # (White 1, Black 0) and 5 days each
    to_black = fed.last(BELLA)
    text = text_of(to_black)
    assert "the complaint about 3... a7-a6 is upheld (art. 20)" in text
    assert "you play that move anew" in text
    assert "Black plays that move anew" in text_of(fed.last(WALTER))
    send(fed, "bella", "3... Ng8-f6", day(2026, 1, 14), game)  # from 13 January: 0 days
    to_white = fed.last(WALTER)
    assert to_white.message["X-Mailbot-Event"] == "move"
    assert to_white.message["X-Mailbot-Ply"] == "6"
    assert to_white.message["X-Mailbot-Move"] == "g8f6"
    assert to_white.message["X-Mailbot-Time"] == "white=6; black=5"


def test_art_20_after_an_upheld_complaint_the_move_is_repeated_again(make: Make) -> None:
    """The position handed back is a move to answer anew: a repeat sent for it
    before the voided move does not stand in for the repeat of the new wait."""
    fed = make(pair("CP-1", "bg-email"))
    game = "CP-1/1"
    play(fed, game, RUY, day(2026, 1, 2))  # 3. Bb5 forwarded on 2 January
    run_sweep(fed, day(2026, 1, 17))
    (first,) = mail(fed, BELLA, "repeat")
    assert first.message["X-Mailbot-Due"] == "2026-01-16"
    send(fed, "bella", "3... a7-a6", day(2026, 1, 18), game)
    send(fed, "walter", "4. Bb5-a4", day(2026, 1, 19), game)
    send(fed, "bella", "4... Ng8-f6", day(2026, 1, 20), game)
    notice = complain(fed, "walter", "complaint 3", day(2026, 1, 21))
    fed.write(TD, "Confirm.\n\nTom", day(2026, 1, 22), reply_to=notice)
    fed.poll(day(2026, 1, 22, 10))
    assert "you play that move anew" in text_of(fed.last(BELLA))

    # Black is silent again: 14 days after the decision, 3. Bb5 is repeated
    run_sweep(fed, day(2026, 2, 4, 12))
    assert len(mail(fed, BELLA, "repeat")) == 1
    run_sweep(fed, day(2026, 2, 6))
    first_again, again = mail(fed, BELLA, "repeat")
    assert first_again.message["Message-ID"] == first.message["Message-ID"]
    assert again.message["X-Mailbot-Due"] == "2026-02-05"
    assert "3. Bf1-b5" in text_of(again)
    assert [m.message["X-Mailbot-Due"] for m in mail(fed, TD, "repeat")] == [
        "2026-01-16",
        "2026-02-05",
    ]
    run_sweep(fed, day(2026, 2, 7))
    assert len(mail(fed, BELLA, "repeat")) == 2  # once


def test_art_20_voiding_white_s_first_move_starts_white_s_clock_at_the_decision(
    make: Make,
) -> None:
    fed = make(pair("CP-1", "bg-email"))  # the event starts on 1 January
    game = "CP-1/1"
    play(fed, game, [("walter", "1. e2-e4"), ("bella", "1... e7-e5")], day(2026, 1, 2))
    notice = complain(fed, "bella", "complaint 1", day(2026, 1, 3))
    fed.write(TD, "Confirm.\n\nTom", day(2026, 1, 20), reply_to=notice)
    fed.poll(day(2026, 1, 20, 10))
    assert "you play that move anew" in text_of(fed.last(WALTER))
    send(fed, "walter", "1. d2-d4", day(2026, 1, 23), game)
    to_black = fed.last(BELLA)
    assert to_black.message["X-Mailbot-Ply"] == "1"
    # handed the position on 20 January, White answered on the 23rd: 21 and 22
    # January count (2 days), with the 5 days of art. 20 (not 22 days since the start)
    assert to_black.message["X-Mailbot-Time"] == "white=7; black=5"


@pytest.mark.slow
def test_art_22_a_groundless_complaint_costs_the_complainer_5_days(make: Make) -> None:
    fed = make(pair("CP-1", "bg-email"))
    game = "CP-1/1"
    play(fed, game, RUY, day(2026, 1, 2))
    send(fed, "bella", "3... a7-a6", day(2026, 1, 8), game)
    notice = complain(fed, "walter", "complaint", day(2026, 1, 9))  # the last move, 3... a6
    assert "the opponent's move 3... a7-a6" in text_of(notice)

    fed.write(TD, "Reject.\n\nTom", day(2026, 1, 10), reply_to=notice)
    fed.poll(day(2026, 1, 10, 10))
    text = text_of(fed.last(WALTER))
    assert "your complaint about 3... a7-a6 is groundless: 5 penalty days" in text
    assert "(art. 22)" in text
    send(fed, "walter", "4. Bb5-a4", day(2026, 1, 10, 12), game)
    assert fed.last(BELLA).message["X-Mailbot-Time"] == "white=7; black=5"
    # a complaint about a move that does not exist is answered, and nothing is opened
    send(fed, "bella", "complaint 9", day(2026, 1, 11), game)
    answer = fed.last(BELLA)
    assert answer.message["Subject"].endswith(": Complaint not accepted")
    assert "your opponent has no move 9 to complain about" in text_of(answer)


# ---------------------------------------------------------------------------
# 003 part 1 art. 11b: a win by the tablebases goes to the director with their verdict

#: 26 moves that leave White a king and queen against the bare king, Black to move.
TO_KQK = [
    "a2a4",
    "b7b5",
    "a4b5",
    "d7d5",
    "a1a7",
    "a8a7",
    "f2f4",
    "c8b7",
    "e2e4",
    "d5e4",
    "b5b6",
    "d8d2",
    "d1d2",
    "c7b6",
    "b2b4",
    "a7a2",
    "d2e2",
    "a2c2",
    "e2e4",
    "c2c1",
    "e1d2",
    "c1b1",
    "e4h7",
    "b1b4",
    "h7g7",
    "b7g2",
    "g7f7",
    "e8d7",
    "f1g2",
    "h8h2",
    "f7f8",
    "h2h1",
    "f8g8",
    "h1g1",
    "g8b8",
    "b4f4",
    "b8f4",
    "g1g2",
    "d2c3",
    "e7e6",
    "c3b4",
    "g2f2",
    "f4f2",
    "b6b5",
    "b4b5",
    "d7c8",
    "f2d4",
    "c8b8",
    "d4g4",
    "b8a7",
    "g4e6",
]


@pytest.mark.parametrize("installed", [True, False], ids=["tables", "no-tables"])
@pytest.mark.slow
def test_003_p1_11b_a_tablebase_win_claim_reaches_the_director_with_the_verdict(
    installed: bool,
    store_url: str,
    imap_account: ImapAccount,
    smtp_sink: SmtpSink,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    settings = {"tablebases": request.getfixturevalue("syzygy_folder")} if installed else {}
    fed = Federation(store_url, imap_account, smtp_sink, pair("TB-1", "iccf-postal"), tmp_path,
                     settings=settings)  # fmt: skip
    try:
        game = "TB-1/1"
        # a claim the tables cannot decide is answered at once
        send(fed, "walter", "claim win", day(2026, 1, 1, 12, tz=UTC), game)
        refused = fed.last(WALTER)
        assert refused.message["Subject"].endswith(": Claim of a win not granted")
        assert "the position has 32 pieces; the tablebases cover at most 7" in text_of(refused)
        board = chess.Board()
        for ply, uci in enumerate(TO_KQK):
            move = chess.Move.from_uci(uci)
            text = f"{board.fullmove_number}{'.' if board.turn else '...'} {uci[:2]}-{uci[2:]}"
            if board.piece_type_at(move.from_square) != chess.PAWN:
                text = text.replace(" ", " " + board.piece_at(move.from_square).symbol().upper())
            board.push(move)
            who = "walter" if ply % 2 == 0 else "bella"
            send(fed, who, text, day(2026, 1, 2 + ply // 5, 8 + ply % 5, tz=UTC), game)
        assert fed.last(BELLA).message["X-Mailbot-Ply"] == str(len(TO_KQK))

        send(fed, "walter", "claim win", day(2026, 1, 14, tz=UTC), game)
        notice = fed.last(TD)
        assert notice.message["Subject"].endswith(
            ": Claim of a win by the tablebases for your decision"
        )
        assert notice.message["X-Mailbot-Claim"]
        text = text_of(notice)
        assert "Walter White (White) claims a win by the tablebases in game TB-1/1" in text
        assert '"8/k7/4Q3/1K6/8/8/8/8 b - - 0 26"' in text
        if installed:
            assert (
                "The installed tablebases (Syzygy, 3 pieces) give this position as a win "
                "for White" in text
            )
        else:
            assert "No tablebases are installed with the arbiter" in text
        assert fed.last(WALTER).message["Subject"].endswith(": Your claim goes to the director")

        fed.write(TD, "Confirm.\n\nTom", day(2026, 1, 15, tz=UTC), reply_to=notice)
        fed.poll(day(2026, 1, 15, 11, tz=UTC))
        for address in (WALTER, BELLA):
            (over,) = mail(fed, address, "game-over")
            assert over.message["X-Mailbot-Result"] == "1-0"
    finally:
        fed.close()
