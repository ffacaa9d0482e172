"""A whole master game played by mail through Dovecot and SMTP, on SQLite and PostgreSQL.

Spassky – Fischer, Reykjavik 1972, game 13 (74 moves, White resigned) is
played between two players of a ``bg-email`` tournament: White writes in
Bulgarian full notation, Black in English (short and full algebraic, now and
then ICCF numeric or Russian letters). Their messages arrive over sixteen
months, each one answering the last move mail its writer received, some
quoting it. Every move line the bot forwards is checked against the day
rule of docs/rules.md 2.1 (art. 8), computed here from the dates alone; at the end
the PGN the players receive and the one ``mailbot pgn`` prints are the game.
"""

from __future__ import annotations

import dataclasses
import datetime
import email.utils
import io
import random
import re
from pathlib import Path
from zoneinfo import ZoneInfo

import chess
import chess.pgn
import pytest
from harness import Federation, text_of
from mailservers import ImapAccount, Received, SmtpSink

from mailbot.cli import main

#: every test here takes more than a second (pyproject.toml: markers)
pytestmark = pytest.mark.slow

SOFIA = ZoneInfo("Europe/Sofia")
GAME_FILE = Path(__file__).parent / "games" / "spassky-fischer-1972-13.pgn"
INDEX = "BG-2025-L1"
TAG = f"{INDEX}/1"
START = datetime.date(2025, 2, 20)
WHITE = "petrov@example.org"
BLACK = "jcarter@example.com"
TD = "td@federation.example"
DAYS_PER_CONTROL = 50

START_LIST = f"""\
index: {INDEX}
name: Long game
profile: bg-email
start: {START.isoformat()}
end: 2028-06-30
language: bg
notation: bg-cyrillic
director: {{name: Георги Георгиев, email: {TD}}}
players:
  - {{id: petrov, name: Петър Петров, email: {WHITE}}}
  - {{id: carter, name: John Carter, email: {BLACK}, language: en, notation: en}}
games:
  - {{white: petrov, black: carter}}
"""

# --- writing moves, independently of mailbot.rules.notation ------------------------------------

PIECES = (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)
LETTERS = {
    "bg": dict(zip(PIECES, ("Ц", "Д", "Т", "О", "К"), strict=True)),
    "en": dict(zip(PIECES, ("K", "Q", "R", "B", "N"), strict=True)),
    "ru": dict(zip(PIECES, ("Кр", "Ф", "Л", "С", "К"), strict=True)),
}
CAPTURE = {"bg": ":", "en": "x", "ru": ":"}


def full(board: chess.Board, move: chess.Move, lang: str, capture: str | None = None) -> str:
    """``Кg1-f3``, ``Оb3:a4``, ``h2-h1Q``, ``0-0``, with ``+``/``#`` (art. 7 note 2)."""
    if board.is_kingside_castling(move):
        text = "0-0"
    elif board.is_queenside_castling(move):
        text = "0-0-0"
    else:
        piece = board.piece_at(move.from_square)
        assert piece is not None
        letter = "" if piece.piece_type == chess.PAWN else LETTERS[lang][piece.piece_type]
        sign = (capture or CAPTURE[lang]) if board.is_capture(move) else "-"
        text = letter + chess.square_name(move.from_square) + sign
        text += chess.square_name(move.to_square)
        if move.promotion:
            text += LETTERS[lang][move.promotion]
    if board.gives_check(move):
        after = board.copy()
        after.push(move)
        text += "#" if after.is_checkmate() else "+"
    return text


def numeric(move: chess.Move) -> str:
    """ICCF numeric (003 p1 2b): ``7163`` is g1-f3, a last digit 1-4 promotes."""

    def square(sq: chess.Square) -> str:
        return f"{chess.square_file(sq) + 1}{chess.square_rank(sq) + 1}"

    digit = {chess.QUEEN: "1", chess.ROOK: "2", chess.BISHOP: "3", chess.KNIGHT: "4"}
    return square(move.from_square) + square(move.to_square) + digit.get(move.promotion or 0, "")


def short(day: datetime.date) -> str:
    return f"{day.day}.{day.month}."


def days_word(n: int, lang: str) -> str:
    if lang == "bg":
        return f"{n} ден" if n == 1 else f"{n} дни"
    return f"{n} day" if n == 1 else f"{n} days"


# --- the calendar of the game ----------------------------------------------------------------


def at(day: datetime.date, hhmm: str) -> datetime.datetime:
    hours, minutes = map(int, hhmm.split(":"))
    return datetime.datetime(day.year, day.month, day.day, hours, minutes, tzinfo=SOFIA)


def local(moment: datetime.datetime) -> datetime.date:
    return moment.astimezone(SOFIA).date()


@dataclasses.dataclass(frozen=True)
class Turn:
    """One message: when it reaches the bot's mailbox and when the bot reads it."""

    arrives: datetime.datetime
    polled: datetime.datetime


# The first eleven messages by hand: E10 (the first move counts from the
# start), E9 (an answer on the day of receipt), a move forwarded after
# midnight, answers written just after midnight (the UTC date is the day
# before), and the night of the change to summer time (Sunday 30 March 2025):
# Black's move is forwarded on 29 March at 23:40 (UTC+2), White answers on
# 31 March at 00:20 (UTC+3): one day, 30 March.
OPENING = [
    # (arrival day, time, minutes until the bot reads it)
    (datetime.date(2025, 2, 24), "10:00", 5),  # 1. e4: 20-23 Feb = 4 days (E10)
    (datetime.date(2025, 2, 24), "21:30", 10),  # 1... Nf6 on the day of receipt: 0 (E9)
    (datetime.date(2025, 2, 27), "08:15", 5),  # 25-26 Feb: 2 days
    (datetime.date(2025, 3, 3), "19:00", 5),  # 28 Feb, 1-2 Mar: 3 days
    (datetime.date(2025, 3, 4), "07:00", 2),  # the day after receipt: 0
    (datetime.date(2025, 3, 11), "23:58", 5),  # 5-10 Mar: 6; read at 00:03 on 12 Mar
    (datetime.date(2025, 3, 15), "00:20", 5),  # 13-14 Mar: 2 (at 22:20 UTC on 14 Mar)
    (datetime.date(2025, 3, 17), "18:00", 5),  # 16 Mar: 1
    (datetime.date(2025, 3, 22), "11:00", 5),  # 18-21 Mar: 4
    (datetime.date(2025, 3, 29), "23:30", 10),  # 23-28 Mar: 6; forwarded 29 Mar 23:40 EET
    (datetime.date(2025, 3, 31), "00:20", 10),  # 30 Mar: 1 (summer time began that night)
]
TIMES = ["00:15", "07:30", "09:05", "12:40", "18:20", "21:10", "23:50"]
GAPS = [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 6, 8]  # days from receipt to answer (dates)


def calendar(plies: int) -> list[Turn]:
    """A deterministic calendar: gaps of 0 to 13 dates, thinking 0 to 12 days."""
    rng = random.Random(1972)
    turns: list[Turn] = []
    for day, hhmm, delay in OPENING:
        arrives = at(day, hhmm)
        turns.append(Turn(arrives, arrives + datetime.timedelta(minutes=delay)))
    while len(turns) < plies:
        ply = len(turns) + 1
        previous = turns[-1].polled
        received = local(previous)
        gap = 13 if ply in (40, 97) else rng.choice(GAPS)  # 12 days' thinking twice
        hhmm = rng.choice(TIMES)
        arrives = at(received + datetime.timedelta(days=gap), hhmm)
        if arrives <= previous + datetime.timedelta(minutes=30):
            arrives = previous + datetime.timedelta(minutes=90)  # later that day, or the next
        delay = rng.choice([2, 5, 25])
        turns.append(Turn(arrives, arrives + datetime.timedelta(minutes=delay)))
    return turns


# --- the expected record -----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Stamp:
    """The art. 8 dates of one move as docs/rules.md 2.1 defines them."""

    forwarded_before: datetime.date | None  # r: the bot forwarded the opponent's move
    counted_from: datetime.date  # r + 1 (the start date for White's first move)
    sent: datetime.date  # s: the move arrived in the bot's mailbox
    days: int
    white_total: int
    black_total: int


def stamps(turns: list[Turn]) -> list[Stamp]:
    out: list[Stamp] = []
    totals = [0, 0]
    for i, turn in enumerate(turns):
        s = local(turn.arrives)
        if i == 0:
            r = None
            first = START  # art. 24: the start date plays the part of r + 1
        else:
            r = local(turns[i - 1].polled)
            first = r + datetime.timedelta(days=1)
        counted = {first + datetime.timedelta(days=k) for k in range(max(0, (s - first).days))}
        days = len({d for d in counted if first <= d < s})
        totals[i % 2] += days
        out.append(Stamp(r, first, s, days, totals[0], totals[1]))
    return out


def control(ply_next: int, used: int) -> tuple[int, int, int, int]:
    """(used, limit, control move, left) for the player about to play ``ply_next``."""
    move_number = (ply_next + 1) // 2
    control_move = -(-move_number // 10) * 10
    limit = control_move // 10 * DAYS_PER_CONTROL
    return used, limit, control_move, limit - used


def pair_text(moves: list[chess.Move], ply: int, lang: str) -> str:
    """The moves an art. 8 line shows for ``ply``: the opponent's last and the new one."""
    board = chess.Board()
    for move in moves[: max(0, ply - 2)]:
        board.push(move)
    parts: list[str] = []
    for p in range(max(1, ply - 1), ply + 1):
        number = (p + 1) // 2
        text = full(board, moves[p - 1], lang)
        if p % 2 == 1:
            parts.append(f"{number}. {text}")
        elif p == max(1, ply - 1):
            parts.append(f"{number}... {text}")
        else:
            parts.append(text)
        board.push(moves[p - 1])
    return " ".join(parts)


def move_line(moves: list[chess.Move], ply: int, stamp: Stamp, lang: str) -> str:
    before = short(stamp.forwarded_before) if stamp.forwarded_before else "–"
    dates = f"{before} – {short(stamp.counted_from)} – {short(stamp.sent)}"
    w, b = stamp.white_total, stamp.black_total
    if lang == "bg":
        totals = f"общо време: белите {days_word(w, lang)}, черните {days_word(b, lang)}"
    else:
        totals = f"total time: White {days_word(w, lang)}, Black {days_word(b, lang)}"
    return f"{pair_text(moves, ply, lang)}; {dates} = {days_word(stamp.days, lang)}; {totals}"


# --- what the players write --------------------------------------------------------------------


def quoted(item: Received, lang: str) -> str:
    sent = email.utils.parsedate_to_datetime(str(item.message["Date"])).astimezone(SOFIA)
    bot = "Federation CC <bot@federation.example>"
    if lang == "bg":
        head = f"На {sent:%d.%m.%Y} в {sent:%H:%M} {bot} написа:"
    else:
        head = f"On {sent:%a, %d %b %Y} at {sent:%H:%M}, {bot} wrote:"
    body = "\n".join(f"> {line}".rstrip() for line in text_of(item).splitlines())
    return f"\n\n{head}\n{body}\n"


def white_writes(board: chess.Board, move: chess.Move, ply: int) -> str:
    """Petar: Bulgarian full notation, in a different form now and then."""
    n = (ply + 1) // 2
    text = full(board, move, "bg")
    variant = n % 6
    if variant == 0:
        return f"{n}. {text}"
    if variant == 1:
        return text
    if variant == 2:
        return f"Здравейте,\n\n{n}. {text}\n\nПоздрави,\nПетър"
    if variant == 3 and board.move_stack:
        last = board.pop()
        repeated = full(board, last, "bg")
        board.push(last)
        return f"{n - 1}... {repeated} {n}. {text}"
    if variant == 4:
        written = full(board, move, "bg", capture="x")
        return f"{n}. {written}\n\n-- \nПетър Петров\nШахматен клуб „Кg1-f3“, Варна"
    return f"{n}.{text}"


def black_writes(board: chess.Board, move: chess.Move, ply: int) -> str:
    """John: short or full English notation, sometimes ICCF numeric or Russian letters."""
    n = (ply + 1) // 2
    piece = board.piece_at(move.from_square)
    assert piece is not None
    if piece.piece_type in (chess.KING, chess.QUEEN) and n % 3 == 0:
        return f"{n}... {full(board, move, 'ru')}"
    variant = n % 7
    if variant == 0:
        return board.san(move)
    if variant == 1:
        return f"{n}... {full(board, move, 'en')}"
    if variant == 2:
        return f"{n}... {numeric(move)}"
    if variant == 3:
        last = board.pop()
        repeated = full(board, last, "en")
        board.push(last)
        return f"{n}. {repeated} {full(board, move, 'en')}"
    if variant == 4:
        return f"{n}... {board.san(move)}"
    if variant == 5:
        return f"Hi Peter,\n\n{n}... {full(board, move, 'en')}\n\nRegards,\nJohn"
    return f"{n}... {full(board, move, 'en', capture=':')}"


# --- the test ----------------------------------------------------------------------------------


def header(item: Received, name: str) -> str:
    value = item.message[name]
    assert value is not None, f"no {name} on {item.message['Subject']}"
    return str(value)


def control_numbers(text: str, lang: str) -> tuple[int, int, int, int]:
    pattern = (
        r"използвани (\d+) \S+ от (\d+) до (\d+)-и ход \(остават (\d+) "
        if lang == "bg"
        else r"Time control: (\d+) \S+ used of (\d+) by move (\d+) \((\d+) "
    )
    found = re.search(pattern, text)
    assert found, f"no time-control sentence in:\n{text}"
    used, limit, move, left = (int(g) for g in found.groups())
    return used, limit, move, left


def pgn_moves(text: str) -> tuple[chess.pgn.Game, list[chess.Move]]:
    game = chess.pgn.read_game(io.StringIO(text[text.index("[Event ") :]))
    assert game is not None and not game.errors, text
    return game, list(game.mainline_moves())


def pgn_file(item: Received) -> chess.pgn.Game:
    """The game a move mail carries as its ``INDEX-N.pgn``, read by python-chess."""
    (part,) = list(item.message.iter_attachments())
    assert part.get_filename() == f"{TAG.replace('/', '-')}.pgn"
    game = chess.pgn.read_game(io.StringIO(part.get_payload(decode=True).decode()))
    assert game is not None and not game.errors
    return game


def test_a_master_game_by_mail_from_first_move_to_resignation(
    db_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink, tmp_path: Path
) -> None:
    game = chess.pgn.read_game(GAME_FILE.open(encoding="utf-8"))
    assert game is not None
    moves = list(game.mainline_moves())
    assert len(moves) == 148 and game.headers["Result"] == "0-1"
    turns = calendar(len(moves) + 1)  # the last message is White's resignation
    expected = stamps(turns[: len(moves)])
    day_counts = [s.days for s in expected]
    assert min(day_counts) == 0 and max(day_counts) == 12 and day_counts.count(0) >= 10
    assert local(turns[-1].arrives) - START > datetime.timedelta(days=300)
    # Dovecot files a message appended with a future INTERNALDATE at the time
    # of the append instead, so the whole game lies in the past.
    assert turns[-1].polled < datetime.datetime.now(datetime.UTC)
    for ply, stamp in enumerate(expected, start=1):  # under 50 days per 10 moves throughout
        used = stamp.white_total if ply % 2 else stamp.black_total
        assert used <= control(ply, used)[1]

    fed = Federation(db_url, imap_account, smtp_sink, START_LIST, tmp_path)
    try:
        board = chess.Board()
        last_move_mail: dict[str, Received | None] = {WHITE: None, BLACK: None}
        seen = {WHITE: 0, BLACK: 0}
        for ply, (move, turn, stamp) in enumerate(zip(moves, turns, expected, strict=False), 1):
            white_moves = ply % 2 == 1
            mover, opponent = (WHITE, BLACK) if white_moves else (BLACK, WHITE)
            mover_lang, opponent_lang = ("bg", "en") if white_moves else ("en", "bg")
            body = (white_writes if white_moves else black_writes)(board, move, ply)
            answering = last_move_mail[mover]
            if answering is not None and ply % 3 == 0:
                body += quoted(answering, mover_lang)
            sent = fed.write(mover, body, turn.arrives, reply_to=answering)
            fed.poll(turn.polled)
            board.push(move)

            got = {a: fed.received(a)[seen[a] :] for a in (WHITE, BLACK)}
            seen = {a: seen[a] + len(got[a]) for a in seen}
            context = f"ply {ply} ({board.peek().uci()}), {mover} wrote:\n{body}"
            assert [header(m, "X-Mailbot-Event") for m in got[mover]] == ["move-accepted"], context
            assert [header(m, "X-Mailbot-Event") for m in got[opponent]] == ["move"], context
            accepted, forwarded = got[mover][0], got[opponent][0]
            for item, lang in ((accepted, mover_lang), (forwarded, opponent_lang)):
                assert header(item, "X-Mailbot-Game") == TAG
                assert header(item, "X-Mailbot-Ply") == str(ply)
                assert header(item, "X-Mailbot-Move") == move.uci()
                line = move_line(moves, ply, stamp, lang)
                assert line in text_of(item), f"{context}\nexpected: {line}\n{text_of(item)}"
                assert header(item, "X-Mailbot-Time") == (
                    f"white={stamp.white_total}; black={stamp.black_total}"
                )
                assert header(item, "Subject").startswith(f"[{TAG}] Петър Петров – John Carter: ")
                # the game so far as a file, which a chess program reads back
                carried, days = pgn_file(item), days_word(stamp.days, lang)
                assert [m for m in carried.mainline_moves()] == moves[:ply], context
                assert carried.headers["CmailGameName"] == TAG.replace("/", "-")
                assert re.search(rf"\b{days}\b", carried.end().comment), carried.end().comment
            assert header(accepted, "In-Reply-To") == str(sent["Message-ID"])
            used = stamp.black_total if white_moves else stamp.white_total
            assert control_numbers(text_of(forwarded), opponent_lang) == control(ply + 1, used)
            last_move_mail[opponent] = forwarded

        # Black's 74... f2: Spassky resigned.
        resignation = fed.write(
            WHITE,
            "Предавам се.\n\nПоздравления за партията!\nПетър",
            turns[-1].arrives,
            reply_to=last_move_mail[WHITE],
        )
        fed.poll(turns[-1].polled)
        final = expected[-1]
        for address in (WHITE, BLACK, TD):
            over = fed.last(address)
            assert header(over, "X-Mailbot-Event") == "game-over"
            assert header(over, "X-Mailbot-Result") == "0-1"
            assert header(over, "X-Mailbot-Ply") == "148"
            assert header(over, "X-Mailbot-Time") == (
                f"white={final.white_total}; black={final.black_total}"
            )
            record, played = pgn_moves(text_of(over))
            assert played == moves
            assert record.headers["Result"] == "0-1"
        assert header(fed.last(WHITE), "In-Reply-To") == str(resignation["Message-ID"])
        # the director heard of John's short notation (art. 7 note 2), and of nothing else
        director = [header(m, "X-Mailbot-Event") for m in fed.received(TD)]
        assert director[-1] == "game-over" and set(director[:-1]) == {"notice"}, director
        assert f"белите {days_word(final.white_total, 'bg')}" in text_of(fed.last(WHITE))
        assert f"White {days_word(final.white_total, 'en')}" in text_of(fed.last(BLACK))

        out = io.StringIO()
        assert fed.config_path is not None
        assert main(["-c", str(fed.config_path), "pgn", TAG], stdout=out) == 0
        record, played = pgn_moves(out.getvalue())
        assert played == moves
        assert record.headers["Result"] == "0-1"
        names = (record.headers["White"], record.headers["Black"])
        assert names == ("Петров, Петър", "Carter, John")
        assert record.headers["WhiteDays"] == str(final.white_total)
        assert record.headers["BlackDays"] == str(final.black_total)
        # every move's comment carries its sending date and its days
        for node, stamp in zip(record.mainline(), expected, strict=True):
            sent_on = re.search(r"\[%ccsnt (\d{4})\.(\d\d)\.(\d\d)\]", node.comment)
            assert sent_on, node.comment
            assert datetime.date(*map(int, sent_on.groups())) == stamp.sent
            # in the event's language (bg), with no English word
            assert re.search(rf"\b{days_word(stamp.days, 'bg')}\b", node.comment), node.comment
            assert not re.search(r"\b(days?|received)\b", node.comment), node.comment
    finally:
        fed.close()


def test_repeated_incomplete_notation_is_reported_to_the_director(
    store_url: str, imap_account: ImapAccount, smtp_sink: SmtpSink
) -> None:
    """Black writes short algebraic (as John does all through the long game): the first
    time he gets a reminder, the second time the director hears of it; play goes on."""
    fed = Federation(store_url, imap_account, smtp_sink, START_LIST)
    try:
        day = datetime.date(2025, 3, 2)
        told: list[int] = []
        for ply, text in enumerate(["1. e2-e4", "Nf6", "2. Кb1-c3", "Nc6", "3. Кg1-f3"], 1):
            mover = WHITE if ply % 2 else BLACK
            arrives = at(day + datetime.timedelta(days=ply), "10:00")
            fed.write(mover, text, arrives, reply_to=fed.last(mover) if ply > 2 else None)
            fed.poll(arrives + datetime.timedelta(minutes=5))
            assert header(fed.last(mover), "X-Mailbot-Event") == "move-accepted"
            assert header(fed.last(mover), "X-Mailbot-Ply") == str(ply)
            told.append(len(fed.received(TD)))
        assert told == [0, 0, 0, 1, 1]
        notice = fed.last(TD)
        assert header(notice, "X-Mailbot-Event") == "notice"
        assert header(notice, "X-Mailbot-Game") == TAG
        assert "John Carter" in text_of(notice)
    finally:
        fed.close()
