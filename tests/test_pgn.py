"""PGN export: standard enough for Scid and ChessBase, with the correspondence record."""

from __future__ import annotations

import datetime
import io
import re

import chess
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mailbot.rules.game import Termination
from mailbot.rules.pgn import (
    GameRecord,
    MoveRecord,
    PenaltyNote,
    PgnExportError,
    _comment_tokens,
    _ending,
    _headers,
    export,
    mode_for,
    move_comment,
    surname_first,
)
from mailbot.store.engine import make_engine, session_factory
from mailbot.store.models import Base, Game, Move
from mailbot.store.record import export_pgn
from mailbot.store.startlist import parse_start_list
from mailbot.store.tournaments import import_start_list

# Everitt - Wang, ICCF 1997 (NAPZ/MPP final): a real correspondence game, 54 moves.
EVERITT_WANG = """
1. d4 Nf6 2. c4 c5 3. d5 b5 4. cxb5 a6 5. e3 axb5 6. Bxb5 Qa5+ 7. Nc3 Bb7 8.
Nge2 Bxd5 9. O-O Bc6 10. a4 e6 11. Ng3 d5 12. Bd2 Qd8 13. e4 d4 14. Bxc6+ Nxc6
15. Nb5 Be7 16. Qc2 O-O 17. Rfc1 Qb6 18. Na3 Nd7 19. Nc4 Qa6 20. a5 Nde5 21.
Nb6 Ra7 22. b3 Qb5 23. Nc4 Rfa8 24. Rcb1 Bd8 25. Ra4 Nd7 26. Na3 Qb7 27. b4
cxb4 28. Bxb4 Qa6 29. Bd2 Rc8 30. Qc4 d3 31. Qxa6 Rxa6 32. Nc4 Nc5 33. Ra3 Be7
34. e5 Nd4 35. f3 Ncb3 36. Raxb3 Nxb3 37. Rxb3 Rxc4 38. Rb8+ Bf8 39. Ne4 Rac6
40. Rd8 Rc2 41. h3 Rc8 42. Rxd3 Ra2 43. Kh2 h6 44. Rd7 g5 45. Nf6+ Kg7 46. h4
Rcc2 47. Ne4 gxh4 48. Kh3 Kg6 49. Rd3 Be7 50. Rd4 Bg5 51. f4 Be7 52. Rd3 Kf5
53. Rd4 Bc5 54. Nxc5 Rxd2 0-1
"""

START = datetime.date(1997, 3, 1)


def moves_of(movetext: str) -> list[chess.Move]:
    parsed = chess.pgn.read_game(io.StringIO(movetext))
    assert parsed is not None
    return list(parsed.mainline_moves())


def timed(moves: list[chess.Move], start: datetime.date = START) -> list[MoveRecord]:
    """Moves with dates: ply n is sent n * 3 + (n % 5) days after the start."""
    records = []
    previous = start
    for ply, move in enumerate(moves):
        sent = start + datetime.timedelta(days=3 * (ply + 1) + (ply % 5))
        received = None if ply == 0 else previous + datetime.timedelta(days=1)
        days = (sent - (received or start)).days
        records.append(MoveRecord(move, received, sent, days))
        previous = sent
    return records


def record(moves: list[MoveRecord], **changes: object) -> GameRecord:
    fields: dict[str, object] = {
        "event": "NAPZ/MPP final",
        "site": "ICCF",
        "round": "1",
        "white": "Everitt, Gordon T.",
        "black": "Wang, Mong Lin",
        "start": START,
        "moves": moves,
        "result": "0-1",
        "termination": Termination.RESIGNATION,
        "white_days": 201,
        "black_days": 187,
        "days_per_control": 30,
    }
    fields.update(changes)
    return GameRecord(**fields)  # type: ignore[arg-type]


def read(text: str) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    assert game.errors == []
    return game


def test_a_real_game_round_trips() -> None:
    moves = moves_of(EVERITT_WANG)
    assert len(moves) == 108
    records = timed(moves)
    text = export(record(records))

    game = read(text)
    assert list(game.mainline_moves()) == moves
    assert dict(game.headers) == {
        "Event": "NAPZ/MPP final",
        "Site": "ICCF",
        "Date": "1997.03.01",
        "Round": "1",
        "White": "Everitt, Gordon T.",
        "Black": "Wang, Mong Lin",
        "Result": "0-1",
        "EventDate": "1997.03.01",
        "Mode": "EM",
        "CorrespondenceTime": "30 days/10 moves",
        "WhiteDays": "201",
        "BlackDays": "187",
        "PlyCount": "108",
        "Termination": "normal",
    }
    assert text.rstrip().endswith("0-1")


def test_each_move_carries_its_dates_and_days() -> None:
    records = timed(moves_of(EVERITT_WANG))
    game = read(export(record(records)))
    for node, rec in zip(game.mainline(), records, strict=True):
        comment = " ".join(node.comment.split())  # a comment may wrap across lines
        sent = rec.sent_on.strftime("%Y.%m.%d")
        assert comment.startswith(f"[%ccsnt {sent}]")
        assert f"{rec.days} day" in comment
        if rec.received_on is not None:
            assert f"received {rec.received_on.strftime('%Y.%m.%d')}" in comment


def test_the_last_comment_says_how_the_game_ended() -> None:
    records = timed(moves_of(EVERITT_WANG))
    game = read(export(record(records, reason="White resigns")))
    assert " ".join(game.end().comment.split()).endswith("; White resigns")


def test_seven_tag_roster_comes_first_in_order() -> None:
    text = export(record(timed(moves_of(EVERITT_WANG))))
    names = re.findall(r"^\[(\w+) ", text, flags=re.MULTILINE)
    assert names[:7] == ["Event", "Site", "Date", "Round", "White", "Black", "Result"]


def test_no_line_is_wider_than_80_columns() -> None:
    penalties = (
        PenaltyNote(5, "impossible move: the knight on g1 cannot reach e3"),
        PenaltyNote(5, "unfounded complaint about an impossible move", chess.WHITE),
    )
    records = [
        MoveRecord(r.move, r.received_on, r.sent_on, r.days, penalties=penalties if i % 7 else ())
        for i, r in enumerate(timed(moves_of(EVERITT_WANG)))
    ]
    text = export(record(records))
    assert max(len(line) for line in text.splitlines()) <= 80
    # A [%ccsnt] command is never split across lines.
    assert len(re.findall(r"\[%ccsnt \d{4}\.\d\d\.\d\d\]", text)) == len(records)
    black_first = read(text).next().next()  # type: ignore[union-attr]
    assert black_first is not None
    comment = " ".join(black_first.comment.split())
    assert "+5 days: impossible move: the knight on g1 cannot reach e3" in comment
    assert "+5 days for White: unfounded complaint" in comment


def test_cyrillic_names_round_trip_in_utf8() -> None:
    moves = timed(moves_of("1. e4 c5 2. Nf3 d6 *"))
    rec = record(
        moves,
        white="Иванов, Иван",
        black="Петров, Петър",
        event="Държавно първенство",
        result="*",
        termination=None,
    )
    data = export(rec).encode("utf-8")
    game = read(data.decode("utf-8"))
    assert game.headers["White"] == "Иванов, Иван"
    assert game.headers["Black"] == "Петров, Петър"
    assert game.headers["Event"] == "Държавно първенство"
    assert game.headers["Termination"] == "unterminated"
    assert len(list(game.mainline_moves())) == 4


def test_server_times_and_conditional_moves() -> None:
    move = chess.Move.from_uci("e2e4")
    sent = datetime.datetime(2026, 3, 3, 12, 5)
    rec = record([MoveRecord(move, None, sent, 0, automatic=True)], result="*", termination=None)
    comment = read(export(rec)).next().comment  # type: ignore[union-attr]
    assert comment == "[%ccsnt 2026.03.03,12:05] conditional move; 0 days"


@pytest.mark.parametrize(
    ("termination", "result", "tag"),
    [
        (Termination.CHECKMATE, "1-0", "normal"),
        (Termination.TIME_FORFEIT, "0-1", "time forfeit"),
        (Termination.SILENCE, "1-0", "time forfeit"),
        (Termination.ADJUDICATION, "1/2-1/2", "adjudication"),
        (Termination.FORFEIT, "1-0", "rules infraction"),
        (Termination.WITHDRAWAL, "0-1", "abandoned"),
    ],
)
def test_termination_uses_the_standards_words(
    termination: Termination, result: str, tag: str
) -> None:
    rec = record(timed(moves_of("1. e4 e5 *")), result=result, termination=termination)
    game = read(export(rec))
    assert game.headers["Termination"] == tag
    assert game.headers["Result"] == result


def test_a_game_forfeited_before_any_move() -> None:
    rec = record([], result="1-0", termination=Termination.SILENCE, reason="Black sent no move")
    text = export(rec)
    game = read(text)
    assert game.comment == "Black sent no move"
    assert game.headers["PlyCount"] == "0"
    assert text.rstrip().endswith("1-0")


def test_quotes_in_names_are_escaped() -> None:
    text = export(record([], white='Ivan "Vanya" Ivanov', result="*", termination=None))
    assert '[White "Ivan \\"Vanya\\" Ivanov"]' in text


def test_an_illegal_move_is_refused() -> None:
    bad = [MoveRecord(chess.Move.from_uci("e2e5"), None, START, 0)]
    with pytest.raises(PgnExportError, match="not legal"):
        export(record(bad))


def test_result_must_be_a_pgn_result() -> None:
    with pytest.raises(PgnExportError):
        export(record([], result="+/-"))


def test_email_addresses_are_never_exported_and_the_rest_of_the_name_is_kept() -> None:
    """An address in a name once stopped the export (and with it the site and
    ``mailbot pgn``); it is left out of the tag, the rest of the name kept."""
    text = export(
        record(
            [],
            white="Ivan Ivanov <ivanov@example.org>",
            black="Petar (petrov@example.org) Petrov",
            extra_tags={"Annotator": "td@federation.example"},
        )
    )
    assert "@" not in text
    headers = read(text).headers
    assert headers["White"] == "Ivan Ivanov"
    assert headers["Black"] == "Petar Petrov"
    assert headers["Annotator"] == "?"


def test_a_mailed_pgn_carries_the_bots_address_and_no_other() -> None:
    """The PGN a move mail carries names the arbiter in ``WhiteNA``/``BlackNA`` (so a
    program's e-mail mode answers the bot), with ``Mode "EM"`` whatever the profile
    and ``CmailGameName``; every other address stays out, the arbiter's too where it
    is not those tags' own."""
    text = export(
        record(
            [],
            white="Ivan Ivanov <ivanov@example.org>",
            mode="PM",
            game_id="BG-2026-E1/3",
            arbiter="cc@federation.example",
            extra_tags={"Annotator": "cc@federation.example"},
        )
    )
    headers = read(text).headers
    assert (headers["WhiteNA"], headers["BlackNA"]) == ("cc@federation.example",) * 2
    assert (headers["Mode"], headers["CmailGameName"]) == ("EM", "BG-2026-E1-3")
    assert (headers["White"], headers["Annotator"]) == ("Ivan Ivanov", "?")
    assert text.count("@") == 2
    with pytest.raises(PgnExportError, match="not a bare address"):
        export(record([], arbiter="Bot <cc@federation.example>"))
    # a domain of another script goes as the SMTP path carries it (punycode)
    idn = read(export(record([], arbiter="cc@xn--e1afmkfd.xn--90ae"))).headers
    assert idn["WhiteNA"] == "cc@xn--e1afmkfd.xn--90ae"


def test_extra_tags_follow_and_cannot_replace_ours() -> None:
    text = export(record([], extra_tags={"WhiteTeam": "Sofia", "Board": "3"}))
    game = read(text)
    assert list(game.headers)[-2:] == ["WhiteTeam", "Board"]
    with pytest.raises(PgnExportError, match="cannot be replaced"):
        export(record([], extra_tags={"Result": "1-0"}))
    with pytest.raises(PgnExportError, match="not a PGN tag name"):
        export(record([], extra_tags={"two words": "x"}))


@given(choices=st.lists(st.integers(0, 10_000), max_size=80))
@settings(max_examples=40, deadline=None)
def test_any_legal_game_round_trips(choices: list[int]) -> None:
    board = chess.Board()
    moves: list[chess.Move] = []
    for choice in choices:
        legal = list(board.legal_moves)
        if not legal:
            break
        move = legal[choice % len(legal)]
        moves.append(move)
        board.push(move)
    text = export(record(timed(moves), result="*", termination=None))
    game = read(text)
    assert list(game.mainline_moves()) == moves
    assert max(len(line) for line in text.splitlines()) <= 80


@st.composite
def records(draw: st.DrawFn) -> GameRecord:
    """A game of random legal moves, with random dates, days, conditional moves,
    penalties (on the mover or the other side), an ending or none, and names,
    reasons and comments in any of the three languages, quotes and braces included."""
    board = chess.Board()
    moves: list[MoveRecord] = []
    words = st.text(alphabet='abc XYZ эюя\\"}{;:.0123456789', max_size=30)
    for choice in draw(st.lists(st.integers(0, 10_000), max_size=70)):
        legal = list(board.legal_moves)
        if not legal:
            break
        move = legal[choice % len(legal)]
        sent = START + datetime.timedelta(days=draw(st.integers(0, 3000)))
        penalties = tuple(
            PenaltyNote(draw(st.integers(1, 30)), draw(words), draw(st.sampled_from(SIDES)))
            for _ in range(draw(st.integers(0, 2)))
        )
        received = draw(st.none() | st.just(sent - datetime.timedelta(days=1)))
        moves.append(
            MoveRecord(
                move, received, sent, draw(st.integers(0, 400)), draw(st.booleans()), penalties
            )
        )
        board.push(move)
    result = draw(st.sampled_from(["1-0", "0-1", "1/2-1/2", "*"]))
    return record(
        moves,
        result=result,
        termination=draw(st.none() | st.sampled_from(list(Termination))),
        reason=draw(st.none() | words),
        language=draw(st.sampled_from(["en", "bg", "ru"])),
        white=draw(words),
        event=draw(words),
        days_per_control=draw(st.none() | st.integers(1, 60)),
    )


SIDES = (None, chess.WHITE, chess.BLACK)


class _Exporter(chess.pgn.StringExporter):
    """python-chess's exporter, with tag values escaped and a comment's words kept
    together as the bot keeps them."""

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        escaped = tagvalue.replace("\\", "\\\\").replace('"', '\\"')
        super().visit_header(tagname, escaped)

    def visit_comment(self, comment: str) -> None:
        self.write_token("{ ")
        for token in _comment_tokens(comment.replace("}", "")):
            self.write_token(token + " ")
        self.write_token("} ")
        self.force_movenumber = True


def by_python_chess(record: GameRecord) -> str:
    """The PGN text as python-chess writes it: the game built as its tree of nodes,
    each move with its comment, and walked by its exporter."""
    game = chess.pgn.Game()
    node: chess.pgn.GameNode = game
    board = chess.Board()
    for entry in record.moves:
        node = node.add_main_variation(
            entry.move, comment=move_comment(entry, board.turn, record.language)
        )
        board.push(entry.move)
    ending = _ending(record)
    if ending:
        node.comment = f"{node.comment}; {ending}" if node.comment else ending
    game.headers = chess.pgn.Headers(_headers(record, len(record.moves)))
    return game.accept(_Exporter(columns=80)) + "\n"


@given(records())
@settings(max_examples=150, deadline=None)
def test_the_pgn_is_written_as_python_chess_writes_it(game: GameRecord) -> None:
    assert export(game) == by_python_chess(game)


# ---------------------------------------------------------------------------
# Names, ratings, countries and the mode, for Scid and ChessBase


def test_ratings_and_countries_are_tagged_when_known() -> None:
    rec = record(
        timed(moves_of("1. e4 c5 *")),
        result="*",
        termination=None,
        white_elo=2336,
        black_elo=None,
        white_country="usa",
        black_country=None,
    )
    game = read(export(rec))
    assert game.headers["WhiteElo"] == "2336"
    assert game.headers["WhiteCountry"] == "USA"
    assert "BlackElo" not in game.headers and "BlackCountry" not in game.headers
    # the seven-tag roster still comes first
    assert list(game.headers)[:7] == ["Event", "Site", "Date", "Round", "White", "Black", "Result"]


@pytest.mark.parametrize(
    ("name", "pgn_name"),
    [
        ("Ivan Ivanov", "Ivanov, Ivan"),
        ("Иван Иванов", "Иванов, Иван"),
        ("Петър Петров Петров", "Петров, Петър Петров"),
        ("Gordon T. Everitt", "Everitt, Gordon T."),
        ("Ludwig van Beethoven", "van Beethoven, Ludwig"),
        ("Kasparov", "Kasparov"),
        ("Everitt, Gordon T.", "Everitt, Gordon T."),
        ("  Ivan   Ivanov ", "Ivanov, Ivan"),
    ],
)
def test_names_go_surname_first(name: str, pgn_name: str) -> None:
    assert surname_first(name) == pgn_name


STORED = """
index: BG-2026-E1
name: Държавно първенство
profile: {profile}
start: 2026-03-01
end: 2027-06-30
director: {{name: Georgi Georgiev, email: td@federation.example}}
players:
  - {{id: ivanov, name: Иван Иванов, email: ivanov@example.org}}
  - {{id: smith, name: John Smith, email: smith@example.org}}
games: [{{white: ivanov, black: smith}}]
"""


@pytest.mark.parametrize(
    ("profile", "mode"),
    [("bg-email", "EM"), ("bg-post", "PM"), ("iccf-postal", "PM"), ("iccf-server", "TC")],
)
def test_a_stored_game_for_scid_and_chessbase(profile: str, mode: str) -> None:
    assert mode_for(profile) == mode
    engine = make_engine("sqlite://")
    Base.metadata.create_all(engine)
    created = datetime.datetime(2026, 2, 1, tzinfo=datetime.UTC)
    with session_factory(engine).begin() as session:
        t = import_start_list(session, parse_start_list(STORED.format(profile=profile)), created)
        ivanov, smith = t.players
        ivanov.country, ivanov.rating = "BGR", 2215
        smith.country, smith.rating = "GBR", None
        sent = datetime.datetime(2026, 3, 3, 9, tzinfo=datetime.UTC)
        t.games[0].moves.append(
            Move(ply=1, uci="e2e4", san="e4", text="e2-e4", sent_at=sent, days=2,
                 received_counted_on=datetime.date(2026, 3, 1))
        )  # fmt: skip
    with session_factory(engine)() as session:
        g = session.get(Game, 1)
        assert g is not None
        game = read(export_pgn(g))
    engine.dispose()
    assert game.headers["White"] == "Иванов, Иван"
    assert game.headers["Black"] == "Smith, John"
    assert game.headers["WhiteCountry"] == "BGR" and game.headers["BlackCountry"] == "GBR"
    assert game.headers["WhiteElo"] == "2215" and "BlackElo" not in game.headers
    assert game.headers["Mode"] == mode
    assert [m.uci() for m in game.mainline_moves()] == ["e2e4"]


# ---------------------------------------------------------------------------
# The reader's language, the tags naming the game


def comment_words(text: str) -> list[str]:
    """The words of every comment of ``text``, its ``[%command]``s taken out."""
    comments = re.findall(r"\{([^}]*)\}", text)
    return [w for c in comments for w in re.sub(r"\[%[^\]]*\]", " ", c).split()]


@pytest.mark.parametrize(
    ("language", "received", "days"),
    [("bg", "получен", "дни"), ("ru", "получен", "дней")],
)
def test_a_bulgarian_or_russian_pgn_has_no_english_word(
    language: str, received: str, days: str
) -> None:
    penalty = (PenaltyNote(5, "impossible", chess.WHITE),)
    records = [
        MoveRecord(r.move, r.received_on, r.sent_on, r.days, i == 3, penalty if i == 5 else ())
        for i, r in enumerate(timed(moves_of(EVERITT_WANG)))
    ]
    rec = record(records, language=language, termination=Termination.TIME_FORFEIT)
    text = export(rec)
    game = read(text)
    assert list(game.mainline_moves()) == [r.move for r in records]
    assert max(len(line) for line in text.splitlines()) <= 80
    # the dates are in the commands and in the PGN form; the words are the event's
    assert len(re.findall(r"\[%ccsnt \d{4}\.\d\d\.\d\d\]", text)) == len(records)
    words = comment_words(text)
    assert not [w for w in words if re.search(r"[A-Za-z]", w) and w not in ("0-1", "1-0")]
    assert received in words and days in words
    # a number and its unit stay on one line, however the comments wrap
    assert not re.search(r"\s[+-]?\d+\n", text)
    # the tags are the standard's tokens, CorrespondenceTime in the event's words
    assert game.headers["Termination"] == "time forfeit"
    assert not re.search(r"[A-Za-z]", game.headers["CorrespondenceTime"])


def test_the_comment_words_follow_the_language() -> None:
    first, second = timed(moves_of("1. e4 c5 *"))
    late = MoveRecord(second.move, second.received_on, second.sent_on, 2, True)
    fined = (PenaltyNote(21, "td", chess.WHITE),)
    fine = MoveRecord(first.move, None, first.sent_on, 1, penalties=fined)
    game = read(export(record([fine, late], language="ru", result="*", termination=None)))
    comments = [" ".join(n.comment.split()) for n in game.mainline()]
    sent = [r.sent_on.strftime("%Y.%m.%d") for r in (fine, late)]
    assert comments == [
        f"[%ccsnt {sent[0]}] 1 день; +21 день: решение судьи",
        f"[%ccsnt {sent[1]}] получен {late.received_on:%Y.%m.%d}; условный ход; 2 дня",
    ]
    bg = read(export(record([], language="bg", termination=Termination.RESIGNATION)))
    assert bg.comment == "0-1 (предаване)"
    assert bg.headers["CorrespondenceTime"] == "30 дни/10 хода"


def test_the_game_id_and_board_tags() -> None:
    text = export(record([], round="1.3", game_id="BG-2026-T1/3", board=3))
    game = read(text)
    assert game.headers["Round"] == "1.3"
    assert game.headers["GameId"] == "BG-2026-T1/3"
    assert game.headers["Board"] == "3"
    assert list(game.headers)[:7] == ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
    plain = read(export(record([])))
    assert "GameId" not in plain.headers and "Board" not in plain.headers


def test_a_stored_bulgarian_game_is_named_and_in_bulgarian() -> None:
    engine = make_engine("sqlite://")
    Base.metadata.create_all(engine)
    created = datetime.datetime(2026, 2, 1, tzinfo=datetime.UTC)
    text = STORED.format(profile="bg-email").replace("end:", "language: bg\nend:")
    with session_factory(engine).begin() as session:
        t = import_start_list(session, parse_start_list(text), created)
        t.games[0].round, t.games[0].board = 1, 3
        sent = datetime.datetime(2026, 3, 3, 9, tzinfo=datetime.UTC)
        t.games[0].moves.extend(
            [
                Move(ply=1, uci="e2e4", san="e4", text="e2-e4", sent_at=sent, days=2,
                     received_counted_on=None),
                Move(ply=2, uci="c7c5", san="c5", text="c7-c5", sent_at=sent, days=1,
                     received_counted_on=datetime.date(2026, 3, 2)),
            ]
        )  # fmt: skip
    with session_factory(engine)() as session:
        g = session.get(Game, 1)
        assert g is not None
        exported = export_pgn(g)
    engine.dispose()
    game = read(exported)
    assert game.headers["Round"] == "1.3"
    assert game.headers["GameId"] == "BG-2026-E1/1"
    assert "Board" not in game.headers  # not a team event
    assert [" ".join(n.comment.split()) for n in game.mainline()] == [
        "[%ccsnt 2026.03.03] 2 дни",
        "[%ccsnt 2026.03.03] получен 2026.03.02; 1 ден",
    ]
    assert not [w for w in comment_words(exported) if re.search(r"[A-Za-z]", w)]
