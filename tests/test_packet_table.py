"""The director's packet (art. 36): its table of moves lines up, White's rows and
Black's alike, in every language."""

from __future__ import annotations

import datetime
import re

import chess
import pytest

from mailbot.compose.claim_mail import packet_context
from mailbot.compose.notices import Renderer
from mailbot.rules.languages import CODES
from mailbot.store.engine import make_engine, session_factory
from mailbot.store.models import Base, Game, Move, Penalty
from mailbot.store.startlist import parse_start_list
from mailbot.store.tournaments import import_start_list

START_LIST = """
index: BG-2026-P1
name: Packet cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: {language}
notation: {notation}
director: {{name: Georgi Georgiev, email: td@federation.example}}
players:
  - {{id: ivanov, name: Иван Иванов, email: ivanov@example.org}}
  - {{id: smith, name: John Smith, email: smith@example.org}}
games: [{{white: ivanov, black: smith}}]
"""

# 19 moves: captures, castling on both sides, checks, a mate
GAME = (
    "1. e4 d5 2. exd5 Nf6 3. Nf3 Nxd5 4. Be2 Bf5 5. O-O Nc6 6. d4 Qd6 7. c4 O-O-O "
    "8. cxd5 Qxd5 9. Nc3 Qa5 10. Bd2 e5 11. dxe5 Nxe5 12. Nxe5 Qxe5 13. Bb5 Bc5 "
    "14. Qa4 Bxf2+ 15. Rxf2 Qe1+ 16. Rf1 Qxd2 17. Qxa7 Qxb2 18. Rad1 Qb4 19. Qa8#"
)
NOTATION = {"en": "en", "bg": "bg-cyrillic", "ru": "ru"}


def plies() -> list[str]:
    board = chess.Board()
    moves = []
    for san in re.sub(r"\d+\.", " ", GAME).split():
        move = board.push_san(san)
        moves.append(move.uci())
    return moves


PLIES = plies()


def packet(language: str) -> list[str]:
    """The packet of a game of 19 moves with dates of one and two digits, rendered."""
    engine = make_engine("sqlite://")
    Base.metadata.create_all(engine)
    created = datetime.datetime(2026, 2, 1, tzinfo=datetime.UTC)
    with session_factory(engine).begin() as session:
        t = import_start_list(
            session,
            parse_start_list(START_LIST.format(language=language, notation=NOTATION[language])),
            created,
        )
        g = t.games[0]
        for ply, uci in enumerate(PLIES, start=1):
            sent = datetime.datetime(2026, 3, 1, 9, tzinfo=datetime.UTC)
            sent += datetime.timedelta(days=2 * ply)
            received = None if ply == 1 else (sent - datetime.timedelta(days=ply % 3)).date()
            g.moves.append(
                Move(ply=ply, uci=uci, san="?", text=uci, sent_at=sent, days=(ply * 7) % 12,
                     received_counted_on=received, automatic=ply == 9)
            )  # fmt: skip
        g.penalties.append(
            Penalty(ply_at=4, color="black", days=5, reason="impossible", created_at=created)
        )
    with session_factory(engine)() as session:
        stored = session.get(Game, 1)
        assert stored is not None
        context = packet_context(stored)
    engine.dispose()
    template = Renderer().env.from_string(
        f'{{% import "{language}/macros-packet.txt" as k %}}'
        "{{ k.packet(rows, penalties, white_total, black_total) }}"
    )
    return template.render(language=language, **context).splitlines()


def cells(line: str) -> list[int]:
    """Where each cell of a row of the table starts (a cell has no space in it)."""
    return [m.start() for m in re.finditer(r"\S+", line)]


@pytest.mark.parametrize("language", CODES)
def test_every_row_of_the_table_has_its_columns_at_the_same_offsets(language: str) -> None:
    lines = packet(language)
    rows = [line for line in lines if re.match(r" *\d+\.", line)]
    assert len(rows) == len(PLIES)
    assert any("..." in row for row in rows) and any("... " not in row for row in rows)
    # the move, received, sent and days cells start at the same offsets (a conditional
    # move's mark after them); the numbers are right-aligned, their dots at one offset
    offsets = {tuple(cells(row)[1:5]) for row in rows}
    assert len(offsets) == 1, "\n".join(rows)
    assert len({row.index(".") for row in rows}) == 1, "\n".join(rows)
    assert all(len(cells(row)) >= 5 for row in rows)


@pytest.mark.parametrize("language", ["bg", "ru"])
def test_the_packet_around_the_table_is_in_its_language(language: str) -> None:
    lines = packet(language)
    words = [line for line in lines if line.strip() and not re.match(r" *\d+\.", line)]
    assert len(words) == 3  # the heading, the penalty, the totals
    assert not [line for line in words if re.search(r"[A-Za-z]", line)]
