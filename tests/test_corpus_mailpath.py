"""The corpus of real client messages, end to end: Dovecot in, the desk, SMTP out.

Each message of ``tests/corpus`` is delivered unchanged into the bot's IMAP
inbox of a federation whose address is the corpus's ``chess@example.net``,
after its sender's game was brought, by moves sent by mail, to a position in
which the message's move is legal (and the opponent's last move is the one the
message repeats or quotes). The bot must play the new move (not the quoted
one, not a signature or an attachment), confirm it to the sender and forward
it to the opponent; it must not answer machine mail at all.

Games whose subjects share a tag (``BG-2026-E1/7`` is used by many messages,
with different players and positions) are played in separate rounds, each
with a fresh database and mailbox.
"""

from __future__ import annotations

import dataclasses
import datetime
import email
import pathlib
import re
from collections.abc import Iterator
from typing import Any

import chess
import pytest
import yaml
from harness import Federation, text_of
from mailservers import Dovecot, ImapAccount, Received, SmtpSink

from mailbot.config import config_from_mapping
from mailbot.store.startlist import parse_start_list
from mailbot.store.tournaments import import_start_list

#: The module's fixture is costly: its tests run in one worker under pytest-xdist.
pytestmark = pytest.mark.xdist_group("corpus-mailpath")

CORPUS = pathlib.Path(__file__).parent / "corpus"
EXPECTED: dict[str, dict[str, Any]] = yaml.safe_load(
    (CORPUS / "expected.yaml").read_text(encoding="utf-8")
)
BOT = "Chess Federation <chess@example.net>"
TD = "td@federation.example"
UTC = datetime.UTC
SETUP_AT = datetime.datetime(2026, 3, 2, 7, 0, tzinfo=UTC)
CORPUS_AT = datetime.datetime(2026, 3, 6, 8, 0, tzinfo=UTC)

#: profile, language, notation of each tournament the corpus writes to
EVENTS = {
    "BG-2026-E1": ("bg-email", "bg", "bg-cyrillic"),
    "EN-2026-O3": ("bg-email", "en", "en"),
    "RU-2026-C2": ("iccf-postal", "ru", "ru"),
    "ICCF-2026-WS1": ("iccf-server", "en", "iccf-numeric"),
    "UA-2026-T1": ("iccf-postal", "ru", "ru"),
    "CLUB-2026-K1": ("bg-email", "en", "en"),
}


@dataclasses.dataclass(frozen=True)
class Case:
    """One corpus message and the game it is delivered into.

    ``setup`` is the game so far in SAN (its last move is the opponent's move
    the message answers); ``move`` the UCI of the move the message makes.
    ``kind`` is ``move``, ``accept`` (accepts the draw the last setup move
    offered) or ``machine`` (must get no answer). ``player`` is the sender's
    registered address when it is not the message's ``From`` (own mail);
    ``game`` the game when the subject has no tag. ``before`` names the case
    whose game the message is delivered into, just before that case's own
    message: machine mail that must leave the game as it found it.
    """

    name: str
    setup: str
    move: str | None
    opponent: str
    kind: str = "move"
    draw: bool = False
    player: str | None = None
    game: str | None = None
    before: str | None = None

    @property
    def sans(self) -> list[str]:
        return self.setup.split()

    @property
    def sender(self) -> str:
        return self.player or str(EXPECTED[self.name]["from_addr"])

    @property
    def tag(self) -> str | None:
        return self.game or EXPECTED[self.name]["game_tag"]

    @property
    def sender_is_white(self) -> bool:
        return len(self.sans) % 2 == 0

    def board(self) -> chess.Board:
        board = chess.Board()
        for san in self.sans:
            board.push_san(san)
        return board


HANS, JOHN, OLGA, NIKOLAI = (
    "hkeller@example.com",
    "jcarter@example.com",
    "olga.k@example.com",
    "volkov@example.org",
)
IVAN, PETAR, MARIA, GEORGI = (
    "ivanov@example.org",
    "petrov@example.org",
    "maria.georgieva@example.org",
    "g.dimitrov@example.com",
)
ALEKSEI, ANDREI = "smirnov@example.net", "sokolov@example.net"
STOYAN, NIKOLA = "s.kolev@example.net", "n.stoev@example.com"

# Openings that lead, by the quoted last move, to a position where the new
# move is legal (python-chess checks every one in test_the_positions_fit).
SICILIAN_OPEN_D = "e4 d5 exd5 Qxd5 Nc3 Qd8 d4 e5 dxe5 Nc6 Bf4 Nge7 Qe2 Ng6 Rd1"
OPEN_D_FILE = "d4 e5 dxe5 d6 exd6 Qxd6 Nc3 Qe7 Bf4 Nf6 e3 Nc6 Qe2"
FOUR_KNIGHTS = "e4 e5 Nf3 Nf6 Nc3 Nc6 Be2 Be7 O-O O-O d3 d6 h3 Be6 a3 Qd7 Re1"
ITALIAN = "e4 e5 Nf3 Nc6 Bc4 Bc5 O-O"

CASES = [
    Case("01-gmail-en-top-posting.eml", "d4 d6 c4 Nf6 Bg5", "b8d7", HANS),
    Case("02-gmail-bg-base64.eml", "e4 e5 Bc4", "g8f6", PETAR),
    Case("03-gmail-plain-bottom-posting.eml", "e4 d6 Nc3 Nd7", "f1d3", GEORGI),
    Case(
        "04-gmail-interleaved.eml",
        "d4 Nf6 Nc3 e6 Bf4 Be7 Qd2 O-O Nf3 Re8",
        "a1d1",
        HANS,
        draw=True,
    ),
    Case("05-gmail-chess-signature.eml", "d4 e6 Nc3 Nf6 Bf4 b6 Qd2 Qe7", "a1d1", MARIA, draw=True),
    Case(
        "06-outlook-ru-cp1251-original-message.eml",
        "d4 e6 Nc3 Nf6 Bf4 b6 Qd2 Bb7 Nf3 c5 e3 Nc6 Be2 a6 O-O h6 Rae1",
        "d8e7",
        OLGA,
        draw=True,
    ),
    Case("07-outlook-bg-cp1251-header-block.eml", "e4 e5 Bd3", "g8f6", MARIA),
    Case("08-outlook-web-html-only.eml", f"{SICILIAN_OPEN_D} Qd7", "d1d7", OLGA),
    Case("09-outlook-html-only-cp1251.eml", f"{ITALIAN} Nf6", "f1e1", GEORGI),
    Case("10-outlook-en-original-message.eml", "e4 c5 Nf3 d6 d4 cxd4", "d1d4", NIKOLAI),
    Case("11-thunderbird-flowed.eml", "e4 e5 Nc3 g6", "d1h5", OLGA, draw=True),
    Case("12-thunderbird-html-moz-cite.eml", "Nf3 d5 Nd4 Nf6 Nf5", "c8f5", NIKOLAI),
    Case("13-thunderbird-bg-bottom-posting.eml", "e4 e5 Nf3 d6 Bc4 Nf6 O-O", "c8g4", GEORGI),
    Case("14-apple-mail-alternative.eml", "e4 c5 Nf3 Nc6 Bb5 g6 Bxc6", "d7c6", NIKOLAI),
    Case("15-iphone-bg.eml", "Nf3 d5 e3 Nf6 Be2 e6 O-O Be7 Re1", "d8d6", PETAR),
    Case("16-iphone-ru.eml", "e4 Nf6 Nc3 e6 d3 Be7 Be3 O-O a3 h6 Qh5", "g8h7", OLGA),
    Case("17-mutt-star-attribution.eml", "e4 Nc6 Qe2 d6 Nf3 Be6 Nc3 Qd7 d3 Rd8", "e2e3", OLGA),
    Case("18-mutt-iccf-numeric.eml", "e4 e5", "g1f3", NIKOLAI),
    Case("19-mailru-koi8r-base64.eml", "d4 Nf6 Nf3 h6", "c1g5", NIKOLAI),
    Case("20-mailru-html-only-base64.eml", "e4 d6 Nf3 Nf6 Be2 e6 O-O Qd7", "f1e1", NIKOLAI),
    Case("21-yandex-koi8r-q-subject.eml", "d4 d5 Nf3 Nd7", "f3e5", ALEKSEI),
    Case("22-abv-cp1251-original-letter.eml", "e4 d6 Nf3 Nf6 Bc4 Bg4", "e1g1", PETAR),
    Case("23-no-charset-cp1251.eml", "e4 e5 Qe2", "f8e7", PETAR),
    Case("24-no-charset-koi8r.eml", "e4 e5 Qe2", "f8e7", OLGA),
    Case("25-charset-alias-win-1251.eml", FOUR_KNIGHTS, "a8e8", IVAN),
    Case("26-charset-alias-x-cp1251-html.eml", f"{FOUR_KNIGHTS} Rae8", "f3d4", PETAR, draw=True),
    Case("27-charset-alias-utf8-base64.eml", "d4 d5", "c1f4", "k.vasilev@example.org"),
    Case(
        "28-iso-8859-5-outlook-express.eml", f"{OPEN_D_FILE} Be6 Rd1 Qc5", "d1d7", OLGA, draw=True
    ),
    Case(
        "29-cp866-golded.eml",
        "e4 e5 Nf3 Nf6 Nxe5 Nxe4 Bd3 Nf6 O-O Bd6 Re1 O-O Nf3 Re8 Re7",
        "g8f8",
        ALEKSEI,
    ),
    Case("30-koi8u-ukrainian.eml", "d4 b6 Nf3 Bb7 e3 Nc6 Be2 Rc8", "d1d2", "bohdan@example.net"),
    Case("31-unknown-charset.eml", "d4 d5 Qd2 Nf6", "d2f4", PETAR),
    Case("32-truncated.eml", "e4 Nc6 Nf3 d6 d4 Be6 Be2 Qd7 O-O", "a8d8", IVAN, draw=True),
    Case("33-outlook-out-of-office.eml", "e4", None, MARIA, kind="machine"),
    Case("34-vacation-x-autoreply.eml", "", None, HANS, kind="machine"),
    Case("57-mailru-autoreply-subject-only.eml", "e4", None, ALEKSEI, kind="machine"),
    Case("35-bounce-delivery-status.eml", "", None, "", kind="machine"),
    Case(
        "36-mailing-list.eml",
        "e4 e5 Nf3 Nc6 Bb5",
        None,
        "d.petkov@example.org",
        kind="machine",
        game="CLUB-2026-K1/1",
    ),
    Case("37-newsletter-bulk.eml", "", None, "", kind="machine"),
    Case(
        "38-own-message-looped.eml",
        "e4 e5 Bc4",  # "12... Кg8-f6" would be legal: the game of 02, looped back
        None,
        PETAR,
        kind="machine",
        player=IVAN,
        before="02-gmail-bg-base64.eml",
    ),
    Case("39-no-message-id.eml", "d4 d5 Nf3 Be6", "f3e5", JOHN),
    Case("40-forward-as-attachment.eml", "Nf3 d6 Ng5", "b8d7", PETAR),
    Case("41-gmail-pgn-attachment.eml", f"{SICILIAN_OPEN_D} Be6", "d1d7", PETAR),
    Case("42-webmail-html-entities.eml", "e4 e5", "g1f3", NIKOLA),
    Case("43-subject-split-multibyte.eml", "e4 e5 Nf3", "b8c6", STOYAN),
    Case("44-outlook-de-ursprungliche.eml", "e4 e5 Nf3 Nc6", "b1c3", NIKOLAI),
    Case("45-nested-prefixes-draw-accept.eml", "d4 d6 Bf4 Qd7", None, PETAR, kind="accept"),
    Case("46-signature-dashes-no-space.eml", f"{ITALIAN} Nf6", "g1h1", JOHN),
    Case("47-bounce-mailer-daemon-plain.eml", "", None, "", kind="machine"),
    Case("48-null-return-path-notice.eml", "", None, "", kind="machine"),
    Case(
        "49-read-receipt.eml",
        "e4 e5 Bc4",
        None,
        PETAR,
        kind="machine",
        before="02-gmail-bg-base64.eml",
    ),
    Case("50-gmail-ru-attribution.eml", f"{OPEN_D_FILE} Bf5 Rd1 Qe5", "d1d8", OLGA),
    Case("51-outlook-mac-ru-header-block.eml", "d4 b6 Nf3 Nf6 Nbd2", "c8b7", ALEKSEI),
    Case("52-gmail-inline-forward.eml", "d4 Nf6 Nf3 e6 e3 Be7 Nc3 O-O Qd3", "f8e8", ALEKSEI),
    Case(
        "53-apple-begin-forwarded.eml",
        "f4 e5 fxe5 d6 exd6 Bxd6 Nh3 Nc6 e3 Be6 Be2 Qe7 O-O a6",
        "f1f7",
        HANS,
    ),
    Case("54-evolution-figurines.eml", "d4 Nf6 Bg5", "f6d5", STOYAN),
    Case("55-outlook-html-header-block.eml", f"{ITALIAN} Qh4", "g1h1", MARIA),
    Case(
        "56-empty-plain-alternative.eml",
        "e4 e5 Be2 Nf6 Nc3 Bd6 d3 O-O a3 Re8 h3 Re6",
        "e2f3",
        MARIA,
    ),
]
BY_NAME = {case.name: case for case in CASES}

#: the opponent's last move, where the message repeats or quotes it
QUOTED_LAST = {
    "01-gmail-en-top-posting.eml": "c1g5",
    "02-gmail-bg-base64.eml": "f1c4",
    "03-gmail-plain-bottom-posting.eml": "b8d7",
    "04-gmail-interleaved.eml": "f8e8",
    "05-gmail-chess-signature.eml": "d8e7",
    "06-outlook-ru-cp1251-original-message.eml": "a1e1",
    "07-outlook-bg-cp1251-header-block.eml": "f1d3",
    "08-outlook-web-html-only.eml": "d8d7",
    "09-outlook-html-only-cp1251.eml": "g8f6",
    "10-outlook-en-original-message.eml": "c5d4",
    "11-thunderbird-flowed.eml": "g7g6",
    "12-thunderbird-html-moz-cite.eml": "d4f5",
    "13-thunderbird-bg-bottom-posting.eml": "e1g1",
    "14-apple-mail-alternative.eml": "b5c6",
    "15-iphone-bg.eml": "f1e1",
    "16-iphone-ru.eml": "d1h5",
    "17-mutt-star-attribution.eml": "a8d8",
    "18-mutt-iccf-numeric.eml": "e7e5",
    "19-mailru-koi8r-base64.eml": "h7h6",
    "20-mailru-html-only-base64.eml": "d8d7",
    "21-yandex-koi8r-q-subject.eml": "b8d7",
    "22-abv-cp1251-original-letter.eml": "c8g4",
    "23-no-charset-cp1251.eml": "d1e2",
    "24-no-charset-koi8r.eml": "d1e2",
    "25-charset-alias-win-1251.eml": "f1e1",
    "26-charset-alias-x-cp1251-html.eml": "a8e8",
    "28-iso-8859-5-outlook-express.eml": "e7c5",
    "29-cp866-golded.eml": "e1e7",
    "30-koi8u-ukrainian.eml": "a8c8",
    "39-no-message-id.eml": "c8e6",
    "40-forward-as-attachment.eml": "f3g5",
    "42-webmail-html-entities.eml": "e7e5",
    "44-outlook-de-ursprungliche.eml": "b8c6",
    "45-nested-prefixes-draw-accept.eml": "d8d7",
    "50-gmail-ru-attribution.eml": "e7e5",
    "51-outlook-mac-ru-header-block.eml": "b1d2",
    "52-gmail-inline-forward.eml": "d1d3",
    "54-evolution-figurines.eml": "c1g5",
    "55-outlook-html-header-block.eml": "d8h4",
    "56-empty-plain-alternative.eml": "e8e6",
}

# --- moves as the bot writes them (docs/rules.md 3.1), written here independently --------------

LETTERS = {
    "bg-cyrillic": "ЦДТОК",
    "en": "KQRBN",
    "ru": ["Кр", "Ф", "Л", "С", "К"],
}
PIECES = [chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT]
CAPTURE = {"bg-cyrillic": ":", "en": "x", "ru": ":"}
DRAW_OFFERED = {"bg": "предлага реми", "en": "offers a draw", "ru": "предлагает ничью"}


def written(board: chess.Board, move: chess.Move, notation: str) -> str:
    """``Кg1-f3``, ``Bb5xc6``, ``0-0``, ``7163``; a check sign where the move checks."""
    if notation == "iccf-numeric":
        squares = (move.from_square, move.to_square)
        return "".join(f"{chess.square_file(s) + 1}{chess.square_rank(s) + 1}" for s in squares)
    letters = dict(zip(PIECES, LETTERS[notation], strict=True))
    if board.is_castling(move):
        text = "0-0" if chess.square_file(move.to_square) == 6 else "0-0-0"
    else:
        piece = board.piece_at(move.from_square)
        assert piece is not None
        sign = CAPTURE[notation] if board.is_capture(move) else "-"
        text = letters.get(piece.piece_type, "") + chess.square_name(move.from_square)
        text += sign + chess.square_name(move.to_square)
    if board.gives_check(move):
        text += "+"
    return text


def numeric(move: chess.Move) -> str:
    return written(chess.Board(), move, "iccf-numeric")


# --- the rounds --------------------------------------------------------------------------------


def rounds(cases: list[Case]) -> list[list[Case]]:
    """Cases grouped so that no two in a group use the same game (or no-game sender)."""
    groups: list[tuple[set[str], list[Case]]] = []
    for case in cases:
        if case.before is not None:
            continue
        key = case.tag or f"no game: {case.name}"
        for used, group in groups:
            if key not in used:
                used.add(key)
                group.append(case)
                break
        else:
            groups.append(({key}, [case]))
    for case in cases:
        if case.before is not None:
            group = next(g for _, g in groups if BY_NAME[case.before] in g)
            group.insert(group.index(BY_NAME[case.before]), case)
    return [group for _, group in groups]


def player_id(address: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "-", address.split("@")[0])


def start_lists(cases: list[Case]) -> list[str]:
    """One start list per tournament the cases play in."""
    events: dict[str, dict[int, tuple[str, str]]] = {}
    for case in cases:
        if case.tag is None or case.before is not None:
            continue
        index, _, number = case.tag.rpartition("/")
        white, black = (
            (case.sender, case.opponent) if case.sender_is_white else (case.opponent, case.sender)
        )
        events.setdefault(index, {})[int(number)] = (white, black)
    texts: list[str] = []
    for index, games in events.items():
        profile, language, notation = EVENTS[index]
        spare = ("bye.a@example.org", "bye.b@example.org")
        addresses = sorted({a for pair in games.values() for a in pair} | set(spare))
        players = "\n".join(
            f"  - {{id: {player_id(a)}, name: {player_id(a).title()}, email: {a}}}"
            for a in addresses
        )
        pairs = [games.get(n, spare) for n in range(1, max(games) + 1)]
        pairing = "\n".join(
            f"  - {{white: {player_id(w)}, black: {player_id(b)}}}" for w, b in pairs
        )
        texts.append(
            f"index: {index}\nname: {index}\nprofile: {profile}\nstart: 2026-03-01\n"
            f"end: 2027-06-30\nlanguage: {language}\nnotation: {notation}\n"
            f"director: {{name: Director, email: {TD}}}\n"
            f"players:\n{players}\ngames:\n{pairing}\n"
        )
    return texts


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What the bot sent when it read one corpus message, and whether it filed it."""

    mails: list[Received]
    left_in_inbox: int


def play_round(
    db_url: str, account: ImapAccount, sink: SmtpSink, cases: list[Case]
) -> dict[str, Outcome]:
    texts = start_lists(cases) or [start_lists([BY_NAME["36-mailing-list.eml"]])[0]]
    fed = Federation(db_url, account, sink, texts[0])
    try:
        # the corpus's federation writes from chess@example.net; setting up a
        # round sends many moves from one address on one day
        fed.mapping["smtp"]["sender"] = BOT  # type: ignore[index]
        fed.mapping["policy"] = {"replies_per_sender_per_day": 1000}
        fed.config = config_from_mapping(fed.mapping, {})
        with fed.sessions() as session, session.begin():
            for text in texts[1:]:
                import_start_list(session, parse_start_list(text), SETUP_AT)

        before, plies = len(sink.messages), 0
        for case in cases:
            board = chess.Board()
            for i, san in enumerate(case.sans if case.before is None else []):
                move = board.parse_san(san)
                mover_is_sender = (board.turn == chess.WHITE) == case.sender_is_white
                offer = case.kind == "accept" and i == len(case.sans) - 1
                fed.write(
                    case.sender if mover_is_sender else case.opponent,
                    numeric(move) + (" draw" if offer else ""),
                    SETUP_AT + datetime.timedelta(minutes=plies),
                    subject=f"[{case.tag}] move",
                )
                board.push(move)
                plies += 1
        fed.poll(SETUP_AT + datetime.timedelta(hours=12))
        events = [str(m.message["X-Mailbot-Event"]) for m in sink.messages[before:]]
        assert events.count("move-accepted") == plies, f"the setup went wrong: {events}"

        outcomes: dict[str, Outcome] = {}
        for i, case in enumerate(cases):
            before = len(sink.messages)
            arrives = CORPUS_AT + datetime.timedelta(minutes=10 * i)
            fed.deliver((CORPUS / case.name).read_bytes(), arrives)
            fed.poll(arrives + datetime.timedelta(minutes=5))
            outcomes[case.name] = Outcome(list(sink.messages[before:]), fed.pending_in_inbox())
        return outcomes
    finally:
        fed.close()


@pytest.fixture(scope="module")
def outcomes(
    dovecot_server: Dovecot,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[dict[str, Outcome]]:
    """Every corpus message read by the bot, round by round (SQLite)."""
    sink = SmtpSink()
    sink.controller.start()
    try:
        results: dict[str, Outcome] = {}
        for group in rounds(CASES):
            db = f"sqlite:///{tmp_path_factory.mktemp('corpus') / 'mailbot.db'}"
            results.update(play_round(db, dovecot_server.account(), sink, group))
        yield results
    finally:
        sink.controller.stop()


# --- the tests ---------------------------------------------------------------------------------


def test_every_corpus_message_has_a_case() -> None:
    assert sorted(BY_NAME) == sorted(EXPECTED)
    for case in CASES:
        if case.before is not None:
            host = BY_NAME[case.before]
            assert (case.setup, case.tag, case.sender) == (host.setup, host.tag, host.sender)
    assert sum(1 for case in CASES if case.kind != "machine") >= 40


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name.removesuffix(".eml"))
def test_the_positions_fit(case: Case) -> None:
    """The setup is legal, ends with the quoted move, and the message's move is legal after it."""
    board = case.board()
    if case.name in QUOTED_LAST:
        assert board.peek().uci() == QUOTED_LAST[case.name]
    if case.move is not None:
        assert chess.Move.from_uci(case.move) in board.legal_moves
        assert not board.is_game_over()
    if case.kind != "machine":
        assert case.sender_is_white == (board.turn == chess.WHITE)


def header(item: Received, name: str) -> str | None:
    value = item.message[name]
    return None if value is None else str(value)


def mails_to(outcome: Outcome, address: str) -> list[Received]:
    return [m for m in outcome.mails if address in m.recipients]


#: messages the bot does not handle right yet, and why
XFAIL: dict[str, str] = {}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=XFAIL[n]) if n in XFAIL else ())
        for n in sorted(EXPECTED)
    ],
    ids=lambda n: n.removesuffix(".eml"),
)
@pytest.mark.slow
def test_corpus_message_through_the_mail(name: str, outcomes: dict[str, Outcome]) -> None:
    case, expected, outcome = BY_NAME[name], EXPECTED[name], outcomes[name]
    assert outcome.left_in_inbox == 0, "the message stayed in the inbox"
    if case.kind == "machine":
        got = [(m.recipients, header(m, "Subject")) for m in outcome.mails]
        assert got == [], f"machine mail ({expected['auto']}) was answered"
        return

    sender, opponent = case.sender, case.opponent
    to_sender, to_opponent = mails_to(outcome, sender), mails_to(outcome, opponent)
    others = [m for m in outcome.mails if m not in to_sender and m not in to_opponent]
    texts = "\n---\n".join(text_of(m) for m in outcome.mails)
    if case.kind == "accept":
        for item in [*to_sender, *to_opponent]:
            assert header(item, "X-Mailbot-Event") == "game-over", texts
            assert header(item, "X-Mailbot-Result") == "1/2-1/2"
        assert len(to_sender) == len(to_opponent) == 1
        assert [m.recipients for m in others] == [(TD,)]
        return

    assert [header(m, "X-Mailbot-Event") for m in to_sender] == ["move-accepted"], texts
    assert [header(m, "X-Mailbot-Event") for m in to_opponent] == ["move"], texts
    assert others == [], texts
    board = case.board()
    assert case.move is not None
    move = chess.Move.from_uci(case.move)
    for item in (to_sender[0], to_opponent[0]):
        assert header(item, "X-Mailbot-Game") == case.tag
        assert header(item, "X-Mailbot-Move") == case.move
        assert header(item, "X-Mailbot-Ply") == str(len(case.sans) + 1)
        assert header(item, "X-Mailbot-Penalty") is None
    original = email.message_from_bytes((CORPUS / name).read_bytes())["Message-ID"]
    if original is not None:
        assert (header(to_sender[0], "In-Reply-To") or "").strip() == "".join(str(original).split())
    index = str(case.tag).rpartition("/")[0]
    _, language, notation = EVENTS[index]
    forwarded = text_of(to_opponent[0])
    assert written(board, move, notation) in forwarded
    if case.draw:
        assert DRAW_OFFERED[language] in forwarded, forwarded
