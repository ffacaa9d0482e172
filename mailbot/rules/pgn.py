"""PGN export of correspondence games, for Scid, ChessBase and the TD (art. 51;
003 part 1 art. 12a).

The output follows the PGN standard: the seven-tag roster first (Event, Site,
Date, Round, White, Black, Result), dates as ``YYYY.MM.DD``, movetext in SAN
no wider than 79 columns, the result token at the end. The correspondence
record travels in standard places:

- after each move, a comment with the date the move was sent as the
  ``[%ccsnt YYYY.MM.DD]`` command (ChessBase's "correspondence sent",
  also read by Scid and written by correspondence servers), then the
  receipt date as counted, the days the move took, and any penalty:
  ``{ [%ccsnt 2026.03.15] received 2026.03.12; 3 days }``. The words are
  in the event's language (``GameRecord.language``, :data:`WORDS`), so a
  Bulgarian event reads ``{ [%ccsnt 2026.03.15] получен 2026.03.12; 3 дни }``
  and no English reaches a Bulgarian or Russian reader; dates keep the
  PGN form in every language;
- tags naming the game: ``Round`` in the standard's multipart form
  ``round.board`` where the game has both (``1.3``: round 1, board 3),
  ``GameId`` with the game's ``INDEX/N`` (``BG-2026-T1/3``) and ``Board``
  in team events;
- tags ``Mode`` (how the moves travel, :func:`mode_for`), ``EventDate``,
  ``PlyCount``, ``Termination`` (the standard's values), ``WhiteElo`` /
  ``BlackElo`` and ``WhiteCountry`` / ``BlackCountry`` when known (the
  country as ISO 3166 alpha-3, which Scid shows as a flag), and the
  non-standard ``CorrespondenceTime``, ``WhiteDays`` and ``BlackDays``
  (days used, penalties included; ``CorrespondenceTime`` in the event's
  language). The standard ``TimeControl`` tag counts seconds and cannot say
  "50 days per 10 moves", so it is left out.

Player names go in the standard's ``Last, First`` form (:func:`surname_first`),
so that Scid and ChessBase file a player's games under one name. E-mail
addresses are never exported.

>>> import datetime
>>> record = GameRecord(
...     event="National e-mail championship",
...     site="BG-2026-E1",
...     round="1",
...     white="Ivanov, Ivan",
...     black="Petrov, Petar",
...     start=datetime.date(2026, 3, 1),
...     moves=[
...         MoveRecord(chess.Move.from_uci("e2e4"), None, datetime.date(2026, 3, 5), 4),
...         MoveRecord(
...             chess.Move.from_uci("c7c5"), datetime.date(2026, 3, 6),
...             datetime.date(2026, 3, 9), 3,
...         ),
...     ],
...     result="*",
... )
>>> print(export(record))
[Event "National e-mail championship"]
[Site "BG-2026-E1"]
[Date "2026.03.01"]
[Round "1"]
[White "Ivanov, Ivan"]
[Black "Petrov, Petar"]
[Result "*"]
[EventDate "2026.03.01"]
[Mode "EM"]
[WhiteDays "0"]
[BlackDays "0"]
[PlyCount "2"]
[Termination "unterminated"]
<BLANKLINE>
1. e4 { [%ccsnt 2026.03.05] 4 days } 1... c5 { [%ccsnt 2026.03.09]
received 2026.03.06; 3 days } *
<BLANKLINE>
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import re
from collections.abc import Mapping, Sequence

import chess
import chess.pgn

from mailbot.rules.errors import RulesError
from mailbot.rules.game import Termination
from mailbot.rules.languages import plural

#: The results of the PGN standard; ``*`` is a game without one (unfinished or, with
#: its ``Termination`` tag saying so, annulled).
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


class PgnExportError(RulesError, ValueError):
    """A game record that cannot be written as PGN: an illegal move, a
    result that is not a PGN result, a tag that would clash or leak an
    e-mail address."""


#: The PGN standard's Termination values (section 9.8.1) for each way a game ends.
TERMINATION_TAGS: Mapping[Termination, str] = {
    Termination.CHECKMATE: "normal",
    Termination.STALEMATE: "normal",
    Termination.INSUFFICIENT_MATERIAL: "normal",
    Termination.RESIGNATION: "normal",
    Termination.DRAW_AGREED: "normal",
    Termination.THREEFOLD_REPETITION: "normal",
    Termination.FIFTY_MOVES: "normal",
    Termination.TABLEBASE: "adjudication",
    Termination.TIME_FORFEIT: "time forfeit",
    Termination.SILENCE: "time forfeit",
    Termination.ADJUDICATION: "adjudication",
    Termination.WITHDRAWAL: "abandoned",
    Termination.FORFEIT: "rules infraction",
    Termination.ANNULLED: "abandoned",
}

_EN_ENDINGS: Mapping[Termination, str] = {
    Termination.CHECKMATE: "checkmate",
    Termination.STALEMATE: "stalemate",
    Termination.INSUFFICIENT_MATERIAL: "insufficient material",
    Termination.RESIGNATION: "resignation",
    Termination.DRAW_AGREED: "draw agreed",
    Termination.THREEFOLD_REPETITION: "threefold repetition",
    Termination.FIFTY_MOVES: "fifty-move rule",
    Termination.TABLEBASE: "tablebase decision",
    Termination.TIME_FORFEIT: "time limit overstepped",
    Termination.SILENCE: "no move for 40 days",
    Termination.ADJUDICATION: "adjudication",
    Termination.WITHDRAWAL: "withdrawal",
    Termination.FORFEIT: "forfeit by the tournament director",
    Termination.ANNULLED: "annulled",
}

_BG_ENDINGS: Mapping[Termination, str] = {
    Termination.CHECKMATE: "мат",
    Termination.STALEMATE: "пат",
    Termination.INSUFFICIENT_MATERIAL: "недостатъчен материал",
    Termination.RESIGNATION: "предаване",
    Termination.DRAW_AGREED: "реми по споразумение",
    Termination.THREEFOLD_REPETITION: "трикратно повторение",
    Termination.FIFTY_MOVES: "правило на 50-те хода",
    Termination.TABLEBASE: "решение по ендшпилните таблици",
    Termination.TIME_FORFEIT: "превишено време",
    Termination.SILENCE: "без ход 40 дни",
    Termination.ADJUDICATION: "присъждане",
    Termination.WITHDRAWAL: "оттегляне",
    Termination.FORFEIT: "служебна загуба по решение на съдията",
    Termination.ANNULLED: "анулирана",
}

_RU_ENDINGS: Mapping[Termination, str] = {
    Termination.CHECKMATE: "мат",
    Termination.STALEMATE: "пат",
    Termination.INSUFFICIENT_MATERIAL: "недостаточно материала",
    Termination.RESIGNATION: "сдача",
    Termination.DRAW_AGREED: "ничья по соглашению",
    Termination.THREEFOLD_REPETITION: "троекратное повторение",
    Termination.FIFTY_MOVES: "правило 50 ходов",
    Termination.TABLEBASE: "решение по эндшпильным таблицам",
    Termination.TIME_FORFEIT: "превышение времени",
    Termination.SILENCE: "нет хода 40 дней",
    Termination.ADJUDICATION: "присуждение",
    Termination.WITHDRAWAL: "выход из турнира",
    Termination.FORFEIT: "техническое поражение по решению судьи",
    Termination.ANNULLED: "аннулирована",
}


@dataclasses.dataclass(frozen=True)
class PgnWords:
    """The words of one language in a PGN's comments and its ``CorrespondenceTime``.

    ``days`` and ``moves`` are a noun's forms for one, a few and many
    (:func:`mailbot.rules.languages.plural`); ``penalties`` name the stored
    penalty reasons (a reason not among them is written as it is).
    """

    received: str
    conditional: str
    for_white: str
    for_black: str
    days: tuple[str, str, str]
    moves: tuple[str, str, str]
    endings: Mapping[Termination, str]
    penalties: Mapping[str, str]


#: The words of each language a PGN is written in; English for any other code.
WORDS: Mapping[str, PgnWords] = {
    "en": PgnWords(
        "received", "conditional move", "for White", "for Black",
        ("day", "days", "days"), ("move", "moves", "moves"), _EN_ENDINGS,
        {"impossible": "impossible move", "incorrect": "incorrect move",
         "unclear": "unclear move", "td": "the director's decision",
         "groundless complaint": "a groundless complaint (art. 22)",
         "art. 20": "a complaint upheld (art. 20)"},
    ),
    "bg": PgnWords(
        "получен", "условен ход", "за белите", "за черните",
        ("ден", "дни", "дни"), ("ход", "хода", "хода"), _BG_ENDINGS,
        {"impossible": "невъзможен ход", "incorrect": "неправилен ход",
         "unclear": "неясен ход", "td": "решение на съдията",
         "groundless complaint": "неоснователна рекламация (чл. 22)",
         "art. 20": "уважена рекламация (чл. 20)"},
    ),
    "ru": PgnWords(
        "получен", "условный ход", "для белых", "для черных",
        ("день", "дня", "дней"), ("ход", "хода", "ходов"), _RU_ENDINGS,
        {"impossible": "невозможный ход", "incorrect": "неправильный ход",
         "unclear": "неясный ход", "td": "решение судьи",
         "groundless complaint": "необоснованная рекламация (ст. 22)",
         "art. 20": "удовлетворённая рекламация (ст. 20)"},
    ),
}  # fmt: skip


def words_of(language: str) -> PgnWords:
    """The PGN words of ``language``; English for a language without its own.

    >>> words_of("ru").received, words_of("xx").received
    ('получен', 'received')
    """
    return WORDS.get(language, WORDS["en"])


#: The PGN standard's ``Mode`` (section 9.9.2: ``OTB``, ``PM`` paper mail, ``EM``
#: electronic mail, ``ICS`` Internet Chess Server, ``TC`` general telecommunication)
#: for each rule profile. Server rules (``iccf-server``) are correspondence play over
#: a network that is not mail: ``TC``; ``ICS`` means the live servers (FICS, ICC),
#: whose games have clocks in minutes, and would file these games among blitz.
MODES: Mapping[str, str] = {
    "bg-email": "EM",
    "bg-post": "PM",
    "iccf-postal": "PM",
    "iccf-server": "TC",
}

#: Words that belong to the surname that follows them (``Ludwig van Beethoven``).
_PARTICLES = frozenset(
    {"da", "das", "de", "del", "della", "der", "di", "do", "dos", "du", "la", "le", "ten",
     "ter", "van", "von", "zu"}
)  # fmt: skip

_EMAIL = re.compile(r"[^\s@<>\"'()\[\]{},;]+@[^\s@<>\"'()\[\]{},;]+\.[A-Za-z]{2,}")
#: A bare address as a tag value may hold it (the domain in ASCII, punycode or not).
_BARE = re.compile(r"[^\s@<>\"'()\[\]{},;\\]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_TAG_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#=:-]*\Z")
_DATE = re.compile(r"\d{4}\.\d\d\.\d\d")
_ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")


@dataclasses.dataclass(frozen=True)
class PenaltyNote:
    """Days added to a player's time, recorded with the move they belong to.

    ``player`` is the penalised colour; None means the player who made the move.
    """

    days: int
    reason: str
    player: chess.Color | None = None


@dataclasses.dataclass(frozen=True)
class MoveRecord:
    """One move with its correspondence dates.

    - ``received_on``: the receipt date as counted by the profile (for the
      Bulgarian profiles the day after the actual receipt, art. 8 D); None
      for White's first move, which counts from the tournament start.
    - ``sent_on``: the date the move arrived at the bot; a
      :class:`datetime.datetime` (local time) adds the time of day, as
      server play needs.
    - ``days``: the days charged for this move, penalties excluded.
    - ``automatic``: played from a conditional line (0 days, art. 32).
    """

    move: chess.Move
    received_on: datetime.date | None
    sent_on: datetime.date
    days: int
    automatic: bool = False
    penalties: tuple[PenaltyNote, ...] = ()


@dataclasses.dataclass(frozen=True)
class GameRecord:
    """Everything the PGN of one game shows.

    ``start`` is the game's start (the tournament start, art. 24); it fills
    both ``Date`` and ``EventDate``. ``reason`` is the sentence written
    after the last move (for instance a :class:`mailbot.rules.game.GameEnd`
    reason); without it the termination is named. ``days_per_control`` and
    ``moves_per_control`` fill ``CorrespondenceTime``. ``extra_tags`` come
    last and may not replace the tags written here.

    ``language`` is the event's: the words of the comments and of
    ``CorrespondenceTime`` (:func:`words_of`); give ``reason`` in it too.
    ``game_id`` fills ``GameId`` (the game's ``INDEX/N``) and ``board`` the
    ``Board`` of a team event; neither tag is written without its value.

    ``arbiter`` is the bot's own address, for the PGN a mail carries to a player
    (:func:`mail_tags`): the one address a PGN of the bot ever holds.
    """

    event: str
    site: str
    round: str
    white: str
    black: str
    start: datetime.date
    moves: Sequence[MoveRecord]
    result: str
    termination: Termination | None = None
    white_days: int = 0
    black_days: int = 0
    extra_tags: Mapping[str, str] = dataclasses.field(default_factory=dict)
    reason: str | None = None
    mode: str = "EM"
    days_per_control: int | None = None
    moves_per_control: int = 10
    white_elo: int | None = None
    black_elo: int | None = None
    white_country: str | None = None
    black_country: str | None = None
    language: str = "en"
    game_id: str | None = None
    board: int | None = None
    arbiter: str | None = None


def mode_for(profile_name: str) -> str:
    """The ``Mode`` tag of a tournament played under the rule profile ``profile_name``
    (:data:`MODES`); a profile of another name is played by e-mail.

    >>> mode_for("bg-email"), mode_for("bg-post"), mode_for("iccf-postal"), mode_for("iccf-server")
    ('EM', 'PM', 'PM', 'TC')
    """
    return MODES.get(profile_name, "EM")


def surname_first(name: str) -> str:
    """A name as the PGN standard's player tags want it: ``Last, First``.

    The last word is the surname, with the lower-case words before it that
    belong to it (``van``, ``de la``); a name of one word, or one that has a
    comma already, stays as it is.

    >>> surname_first("Ivan Ivanov"), surname_first("Иван Иванов")
    ('Ivanov, Ivan', 'Иванов, Иван')
    >>> surname_first("Gordon T. Everitt"), surname_first("Maria de la Cruz")
    ('Everitt, Gordon T.', 'de la Cruz, Maria')
    >>> surname_first("Kasparov"), surname_first("Ivanov, Ivan")
    ('Kasparov', 'Ivanov, Ivan')
    """
    name = _without_addresses(name)
    words = name.split()
    if len(words) < 2 or "," in name:
        return " ".join(words)
    first = len(words) - 1
    while first > 1 and words[first - 1] in _PARTICLES:
        first -= 1
    return f"{' '.join(words[first:])}, {' '.join(words[:first])}"


def pgn_date(day: datetime.date) -> str:
    """A date in the PGN form.

    >>> pgn_date(datetime.date(2026, 3, 1))
    '2026.03.01'
    """
    return f"{day.year:04d}.{day.month:02d}.{day.day:02d}"


def _stamp(moment: datetime.date) -> str:
    if isinstance(moment, datetime.datetime):
        return f"{pgn_date(moment)},{moment.hour:02d}:{moment.minute:02d}"
    return pgn_date(moment)


def round_tag(round_: int | None, board: int | None, number: int) -> str:
    """The ``Round`` of a game: ``round.board`` (the standard's multipart round,
    section 8.1.1.4: the round, then the board within it) where the pairing has
    both, the round alone, or the game's number where there are no rounds.

    >>> round_tag(1, 3, 3), round_tag(2, None, 7), round_tag(None, None, 7)
    ('1.3', '2', '7')
    """
    if round_ is None:
        return str(number)
    return f"{round_}.{board}" if board is not None else str(round_)


def _count(n: int, forms: tuple[str, str, str], language: str) -> str:
    return f"{n} {plural(n, language, *forms)}"


def move_comment(record: MoveRecord, mover: chess.Color, language: str = "en") -> str:
    """The comment written after a move, in the words of ``language`` (:func:`words_of`).

    >>> note = PenaltyNote(5, "impossible move")
    >>> rec = MoveRecord(
    ...     chess.Move.from_uci("g1f3"), datetime.date(2026, 3, 12), datetime.date(2026, 3, 15), 3,
    ...     penalties=(note,),
    ... )
    >>> move_comment(rec, chess.WHITE)
    '[%ccsnt 2026.03.15] received 2026.03.12; 3 days; +5 days: impossible move'
    >>> for_white = PenaltyNote(5, "impossible", chess.WHITE)
    >>> move_comment(dataclasses.replace(rec, penalties=(for_white,)), chess.BLACK, "ru")
    '[%ccsnt 2026.03.15] получен 2026.03.12; 3 дня; +5 дней для белых: невозможный ход'
    """
    words = words_of(language)
    parts = []
    if record.received_on is not None:
        parts.append(f"{words.received} {_stamp(record.received_on)}")
    if record.automatic:
        parts.append(words.conditional)
    parts.append(_count(record.days, words.days, language))
    for note in record.penalties:
        whom = ""
        if note.player is not None and note.player != mover:
            whom = " " + (words.for_white if note.player == chess.WHITE else words.for_black)
        reason = words.penalties.get(note.reason, note.reason)
        parts.append(f"+{_count(note.days, words.days, language)}{whom}: {_clean(reason)}")
    return f"[%ccsnt {_stamp(record.sent_on)}] " + "; ".join(parts)


def _clean(text: str) -> str:
    """Text safe inside a PGN comment: one line, no closing brace."""
    return " ".join(text.replace("}", ")").replace("{", "(").split())


_EMPTY_BRACKETS = re.compile(r"<\s*>|\(\s*\)|\[\s*\]|\{\s*\}|\"\s*\"|'\s*'")


def _without_addresses(value: str) -> str:
    """``value`` on one line, with any e-mail address in it left out: a PGN file is
    published, and a name written as ``Ivan Ivanov <ivan@example.org>`` keeps
    ``Ivan Ivanov``.

    >>> _without_addresses("Ivan  Ivanov <ivan@example.org>"), _without_addresses("a@b.org")
    ('Ivan Ivanov', '')
    >>> _without_addresses("Open ( ) 2026"), _without_addresses(" Petrov,\tIvan ")
    ('Open 2026', 'Petrov, Ivan')
    """
    if "@" in value:
        value = _EMAIL.sub(" ", value)
    if not _OPENING.isdisjoint(value):
        value = _EMPTY_BRACKETS.sub(" ", value)
    return " ".join(value.split())


#: The characters an empty pair of brackets or quotes begins with: a value without
#: any (most tags: names, dates, numbers) has no such pair to drop.
_OPENING = frozenset("<([{\"'")


def _tag_value(value: str) -> str:
    return _without_addresses(value) or "?"


def _ending(record: GameRecord) -> str | None:
    if record.reason:
        return _clean(record.reason)
    if record.termination is None:
        return None
    return f"{record.result} ({words_of(record.language).endings[record.termination]})"


def _headers(record: GameRecord, plies: int) -> dict[str, str]:
    headers = {
        "Event": record.event or "?",
        "Site": record.site or "?",
        "Date": pgn_date(record.start),
        "Round": record.round or "?",
        "White": record.white or "?",
        "Black": record.black or "?",
        "Result": record.result,
    }
    if record.game_id:
        headers["GameId"] = record.game_id
    if record.board is not None:
        headers["Board"] = str(record.board)
    for name, elo in (("WhiteElo", record.white_elo), ("BlackElo", record.black_elo)):
        if elo:
            headers[name] = str(elo)
    for name, country in (
        ("WhiteCountry", record.white_country),
        ("BlackCountry", record.black_country),
    ):
        if country and country.strip():
            headers[name] = country.strip().upper()
    headers["EventDate"] = pgn_date(record.start)
    headers["Mode"] = record.mode
    if record.days_per_control is not None:
        words = words_of(record.language)
        days = _count(record.days_per_control, words.days, record.language)
        moves = _count(record.moves_per_control, words.moves, record.language)
        headers["CorrespondenceTime"] = f"{days}/{moves}"
    headers["WhiteDays"] = str(record.white_days)
    headers["BlackDays"] = str(record.black_days)
    headers["PlyCount"] = str(plies)
    if record.termination is not None:
        headers["Termination"] = TERMINATION_TAGS[record.termination]
    elif record.result == "*":
        headers["Termination"] = "unterminated"
    for name, value in record.extra_tags.items():
        if name in headers:
            raise PgnExportError(f"tag {name} is written by the exporter and cannot be replaced")
        if not _TAG_NAME.match(name):
            raise PgnExportError(f"{name!r} is not a PGN tag name")
        headers[name] = value
    tags = {name: _tag_value(value) for name, value in headers.items()}
    if record.arbiter is not None:
        tags.update(mail_tags(record.arbiter, record.game_id))
    return tags


def mail_tags(arbiter: str, game_id: str | None) -> dict[str, str]:
    """The tags of a PGN mailed to a player, for a chess program's e-mail mode (Scid's
    checks ``Mode`` and ``CmailGameName``): ``WhiteNA`` and ``BlackNA`` hold the
    arbiter's address, so that the program mails its answer to the bot, never to the
    opponent; ``CmailGameName`` is the game's tag with ``/`` written ``-``.

    >>> mail_tags("cc@fed.example", "BG-2026-E1/3")
    {'Mode': 'EM', 'WhiteNA': 'cc@fed.example', 'BlackNA': 'cc@fed.example', \
'CmailGameName': 'BG-2026-E1-3'}
    >>> mail_tags("Bot <cc@fed.example>", None)
    Traceback (most recent call last):
    ...
    mailbot.rules.pgn.PgnExportError: 'Bot <cc@fed.example>' is not a bare address
    """
    if not _BARE.fullmatch(arbiter):
        raise PgnExportError(f"{arbiter!r} is not a bare address")
    tags = {"Mode": "EM", "WhiteNA": arbiter, "BlackNA": arbiter}
    if game_id:
        tags["CmailGameName"] = _tag_value(game_id.replace("/", "-"))
    return tags


def _comment_tokens(comment: str) -> list[str]:
    """Words of a comment, keeping together what reads as one: a ``[%command]``,
    a number and its unit (``3 days``), a word and the date after it.

    >>> _comment_tokens("[%ccsnt 2026.03.04] получен 2026.03.04; 0 дни; +5 дни: x")
    ['[%ccsnt 2026.03.04]', 'получен 2026.03.04;', '0 дни;', '+5 дни:', 'x']
    """
    tokens: list[str] = []
    for part in _COMMENT_PART.findall(comment):
        last = tokens[-1] if tokens else "[%"
        after_number = _NUMBER.fullmatch(last.rsplit(" ", 1)[-1])
        if not last.startswith("[%") and (_DATE.match(part) or after_number):
            tokens[-1] += " " + part
        else:
            tokens.append(part)
    return tokens


_COMMENT_PART = re.compile(r"\[%[^\]]*\]|\S+")
_NUMBER = re.compile(r"[+-]?\d+")


def export(record: GameRecord) -> str:
    """The PGN text of one game, ending with a newline.

    Write it as UTF-8: names in Cyrillic stay as they are. The text is what
    python-chess's ``StringExporter`` writes for the game built as python-chess's
    tree (the tests hold it to that), written in one walk over the moves without
    building the tree: every move mail carries the game, so a long game is
    written at each of its moves, and this costs about 0.6 of the walk over the tree.
    The moves' SAN is kept for the last few games written (:func:`_sans`): the mail
    of one move to two players who read two languages writes the game twice.
    """
    if record.result not in RESULTS:
        raise PgnExportError(f"result {record.result!r} is not a PGN result")
    moves = record.moves
    out = _PgnText()
    for name, value in chess.pgn.Headers(_headers(record, len(moves))).items():
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        out.line(f'[{name} "{escaped}"]')
    out.line()
    ending = _ending(record)
    if ending and not moves:
        out.comment(ending)
    sans = _sans(tuple(entry.move for entry in moves))
    numbered = True  # the first move, and a move after a comment, carry their number
    for number, (entry, san) in enumerate(zip(moves, sans, strict=True), start=1):
        mover = chess.WHITE if number % 2 else chess.BLACK
        if mover == chess.WHITE:
            out.token(f"{(number + 1) // 2}. ")
        elif numbered:
            out.token(f"{number // 2}... ")
        out.token(san + " ")
        comment = move_comment(entry, mover, record.language)
        if ending and number == len(moves):
            comment = f"{comment}; {ending}" if comment else ending
        numbered = bool(comment)
        if comment:
            out.comment(comment)
    out.token(record.result + " ")
    out.line()
    return "\n".join(out.lines).rstrip() + "\n"


@functools.lru_cache(maxsize=8)
def _sans(moves: tuple[chess.Move, ...]) -> tuple[str, ...]:
    """The SAN of each of ``moves``, played from the starting position; raises
    PgnExportError at the first that is not legal.

    >>> _sans((chess.Move.from_uci("g1f3"), chess.Move.from_uci("g8f6")))
    ('Nf3', 'Nf6')
    >>> _sans((chess.Move.from_uci("e2e5"),))
    Traceback (most recent call last):
    ...
    mailbot.rules.pgn.PgnExportError: half-move 1 (e2e5) is not legal
    """
    board = chess.Board()
    sans: list[str] = []
    for number, move in enumerate(moves, start=1):
        if not board.is_legal(move):
            raise PgnExportError(f"half-move {number} ({move.uci()}) is not legal")
        sans.append(board.san_and_push(move))
    return tuple(sans)


class _PgnText:
    """A PGN's lines as python-chess's ``StringExporter`` writes them: tokens fill a
    line up to 80 columns; a comment's words are kept together where they read as one
    (:func:`_comment_tokens`), so no line runs past the column limit.

    >>> out = _PgnText()
    >>> out.token("1. "); out.token("e4 "); out.comment("a b"); out.line()
    >>> out.lines
    ['1. e4 { a b }', '']
    """

    __slots__ = ("current", "lines")

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.current = ""

    def token(self, token: str) -> None:
        if 80 - len(self.current) < len(token):
            self._flush()
        self.current += token

    def comment(self, comment: str) -> None:
        self.token("{ ")
        for token in _comment_tokens(comment.replace("}", "")):
            self.token(token + " ")
        self.token("} ")

    def line(self, line: str = "") -> None:
        self._flush()
        self.lines.append(line.rstrip())

    def _flush(self) -> None:
        if self.current:
            self.lines.append(self.current.rstrip())
        self.current = ""
