"""The tournament's published web pages: static HTML that is read from disk.

:func:`write_site` writes into a folder

- ``index.html``: the crosstable (its ``No.`` the start number; points,
  Sonneborn-Berger, games left; ``!`` on a game waiting for the director) or,
  in a team event, the team table and its matches, and every game's state: its
  result and how it came about, or whose move it is;
- ``game-N.html`` for the game ``INDEX/N``: the players (country and rating
  when known), what waits for the director (an open claim, orders held), the
  board after the last move (marked), the moves with their received and sent
  dates and days, each a link ``#ply-N`` to the board after it (shown by CSS
  ``:target``, no script), both clocks with the penalties (a game lost on time
  counts the loser's days on the move never sent), the result and how it came
  about, and the game's PGN;
- ``INDEX.pgn``: every game of the tournament (what ``mailbot pgn INDEX`` prints).

The pages need no server, no script and nothing from the network: one layout
with inline CSS (``templates/site/layout.html``, read on a 400-pixel phone
without scrolling sideways), the board as inline SVG, and
the words of ``templates/site/labels.yaml`` in the tournament's language.
Writing them only reads the store, and what they say depends only on the
store and ``now`` (the days running on a move are counted to ``now``)::

    >>> import datetime, pathlib, shutil, tempfile
    >>> from mailbot.store.startlist import parse_start_list
    >>> from mailbot.store.models import Base
    >>> from mailbot.store.tournaments import import_start_list
    >>> from mailbot.store.engine import make_engine, session_factory
    >>> start_list = parse_start_list(
    ...     "{index: X-1, name: Cup, profile: bg-email, start: 2026-03-01, end: 2026-12-31,"
    ...     " director: {name: Tom, email: td@example.org},"
    ...     " players: [{id: a, name: Ann, email: a@example.org},"
    ...     " {id: b, name: Bob, email: b@example.org}], games: round-robin}"
    ... )
    >>> engine = make_engine("sqlite://")
    >>> Base.metadata.create_all(engine)
    >>> now = datetime.datetime(2026, 3, 10, 12, tzinfo=datetime.UTC)
    >>> folder = pathlib.Path(tempfile.mkdtemp()) / "site"
    >>> with session_factory(engine)() as session:
    ...     _ = import_start_list(session, start_list, now)
    ...     [path.name for path in write_site(session, "X-1", folder, now)]
    ['index.html', 'game-1.html', 'X-1.pgn']
    >>> "White to move" in (folder / "game-1.html").read_text(encoding="utf-8")
    True
    >>> shutil.rmtree(folder.parent)
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import chess
import chess.svg
import jinja2
import markupsafe
import yaml
from sqlalchemy import select
from sqlalchemy.orm import Session, object_session

from mailbot.compose.catalogue import template_dir
from mailbot.compose.notices import long_date
from mailbot.mail.files import write_file
from mailbot.publish import report
from mailbot.rules import clock
from mailbot.rules.languages import CODES, plural
from mailbot.rules.notation import Notation, write_move
from mailbot.rules.result import Result
from mailbot.rules.standings import ANNULLED_MARK, UNFINISHED_MARK, format_points
from mailbot.store import record
from mailbot.store.models import Game, HeldOrder, Player, Tournament
from mailbot.store.outbox import bounced_moves

__all__ = ["board_svg", "game_page", "write_site"]

#: The board's squares, as the mail's HTML diagram has them; the last move's squares in green.
BOARD_COLOURS: Mapping[str, str] = {
    "square light": "#f0d9b5",
    "square dark": "#b58863",
    "square light lastmove": "#cdd26a",
    "square dark lastmove": "#aaa23a",
}

#: How a crosstable mark reads on the page.
_MARKS = {UNFINISHED_MARK: "·", ANNULLED_MARK: "*"}
_RESULTS = {"1/2-1/2": "½-½", "+/-": "+/−", "-/+": "−/+"}
#: ``xmlns`` declarations (an HTML page needs none for inline SVG) and the old ``xlink:href``
#: twin of each ``href``: the pages carry no URL at all.
_NAMESPACE_ATTRIBUTES = re.compile(r'\s+(?:xmlns(?::\w+)?|xlink:href)="[^"]*"')


def game_page(number: int) -> str:
    """The file name of game ``INDEX/number``'s page.

    >>> game_page(7)
    'game-7.html'
    """
    return f"game-{number}.html"


def board_svg(board: chess.Board, size: int = 400) -> str:
    """The position as inline SVG (White at the bottom), the last move and a check marked.

    >>> board = chess.Board()
    >>> board.push_san("e4")
    Move.from_uci('e2e4')
    >>> svg = board_svg(board)
    >>> svg.startswith("<svg "), "http" in svg, BOARD_COLOURS["square light lastmove"] in svg
    (True, False, True)
    """
    lastmove = board.peek() if board.move_stack else None
    check = board.king(board.turn) if board.is_check() else None
    svg = chess.svg.board(
        board, lastmove=lastmove, check=check, size=size, colors=dict(BOARD_COLOURS)
    )
    return _NAMESPACE_ATTRIBUTES.sub("", svg)


def write_site(session: Session, index: str, folder: Path, now: datetime.datetime) -> list[Path]:
    """Write the pages of tournament ``index`` into ``folder`` (created if missing).

    Returns the files written: ``index.html``, each game's page in the order of
    the games, ``INDEX.pgn``. Each file is replaced whole (written beside it,
    then renamed), so a reader never sees half a page, and nothing is written
    through a symbolic link (:class:`mailbot.mail.files.LinkRefusedError`). Raises
    :class:`mailbot.publish.report.UnknownGameError` when there is no such tournament.
    """
    t = report.tournament_of(session, index)
    words = PageWords(t.language)
    tz = ZoneInfo(t.timezone)
    if now.tzinfo is None or now.utcoffset() is None:
        now = now.replace(tzinfo=tz)
    env = _environment()
    common = {
        "L": words.labels,
        "language": words.language,
        "tournament": _tournament_view(t, words),
        "updated": words.fill("updated", when=_moment(now, tz)),
    }
    held = _held_orders(session)
    games = [_game_view(g, words, now, held) for g in t.games]
    pages: list[tuple[str, str]] = [
        (
            "index.html",
            env.get_template("index.html").render(
                **common, standings=_standings_view(t, words, games), games=games
            ),
        )
    ]
    for g, view in zip(t.games, games, strict=True):
        pages.append(
            (
                view.page,
                env.get_template("game.html").render(
                    **common, game=view, detail=_game_detail(g, words, now)
                ),
            )
        )
    pages.append((f"{t.index}.pgn", report.pgn_of(session, t.index)))
    folder.mkdir(parents=True, exist_ok=True)
    return [write_file(folder / name, text.encode("utf-8")) for name, text in pages]


# ---------------------------------------------------------------------------
# Words


@functools.cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir() / "site")),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


@functools.cache
def _all_labels() -> Mapping[str, Any]:
    data = yaml.safe_load((template_dir() / "site" / "labels.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


class Labels:
    """The labels of one language: ``L.crosstable`` or ``L["crosstable"]`` in a template,
    nested mappings alike (``L.to_move.white``); a missing label is an error."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = data

    def __getitem__(self, key: str) -> Any:
        value = self._data[key]
        return Labels(value) if isinstance(value, Mapping) else value

    def __getattr__(self, key: str) -> Any:
        if key.startswith("_"):
            raise AttributeError(key)
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def __contains__(self, key: str) -> bool:
        return key in self._data

    def get(self, key: str, default: str) -> str:
        """The label ``key`` as text, or ``default`` when there is none."""
        return str(self._data[key]) if key in self._data else default


class PageWords:
    """The pages' words in one language (English for a language the labels do not have).

    >>> PageWords("ru").days(3), PageWords("bg").labels.to_move.black, PageWords("xx").language
    ('3 дня', 'Черните са на ход', 'en')
    """

    def __init__(self, language: str) -> None:
        table = _all_labels()
        self.language = language if language in CODES and language in table else "en"
        self.labels = Labels(table[self.language])

    def fill(self, key: str, **details: object) -> str:
        """The label ``key`` with its ``{name}`` details filled in."""
        return str(self.labels[key]).format(**details)

    def days(self, n: int) -> str:
        one, few, many = self.labels["day"]
        return f"{n} {plural(n, self.language, one, few, many)}"

    def colour(self, color: chess.Color) -> str:
        """``White`` / ``Black`` as a column or a label names them."""
        return str(self.labels["white" if color == chess.WHITE else "black"])


def _moment(now: datetime.datetime, tz: ZoneInfo) -> str:
    local = now.astimezone(tz)
    return f"{long_date(local.date())} {local:%H:%M} ({tz.key})"


def _date(value: datetime.date | None) -> str:
    return long_date(value)


# ---------------------------------------------------------------------------
# What the pages show


@dataclasses.dataclass(frozen=True)
class PlayerView:
    name: str
    country: str | None
    rating: int | None
    team: str | None


@dataclasses.dataclass(frozen=True)
class GameView:
    """One game as the tournament page lists it."""

    number: int
    tag: str
    page: str
    round: int | None
    board: int | None
    white: PlayerView
    black: PlayerView
    #: Full moves played (the number of the last move).
    moves: int
    finished: bool
    #: ``1-0``, ``½-½``, ``annulled``...; empty while the game goes on.
    result: str
    #: How it ended (``Black resigned``), or whose move it is and for how long.
    state: str
    draw_offer: str
    #: What waits for the director about the game: an open claim, orders held.
    pending: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class MoveCell:
    text: str
    received: str
    sent: str
    days: int
    conditional: bool
    #: When the mail carrying the move came back undelivered, in words (or "").
    bounced: str = ""
    #: The half-move's number: the link ``#ply-N`` shows the position after it.
    ply: int = 0


@dataclasses.dataclass(frozen=True)
class MoveRow:
    number: int
    white: MoveCell | None
    black: MoveCell | None


@dataclasses.dataclass(frozen=True)
class ClockView:
    colour: str
    used: int
    penalty_days: int
    #: Times the clock went over a time control, the move being thought about included.
    oversteps: int
    #: The next time control, for a game still being played.
    control: str
    #: Days on the move being thought about (the player to move only); for a game lost
    #: on time or by silence, the loser's days on the move never sent.
    thinking: str


@dataclasses.dataclass(frozen=True)
class PenaltyView:
    colour: str
    days: str
    reason: str
    after_ply: int
    date: str


@dataclasses.dataclass(frozen=True)
class PlyView:
    """The board after one half-move, an element ``id="ply-N"`` of the game page."""

    anchor: str
    position: str
    fen: str
    svg: markupsafe.Markup


@dataclasses.dataclass(frozen=True)
class GameDetail:
    """What a game's own page adds to its :class:`GameView`."""

    svg: markupsafe.Markup
    position: str
    fen: str
    #: The position after each half-move, shown when its ``#ply-N`` is the target.
    plies: tuple[PlyView, ...]
    ended: str
    rows: tuple[MoveRow, ...]
    clocks: tuple[ClockView, ClockView]
    penalties: tuple[PenaltyView, ...]
    pgn: str


def _player_view(p: Player) -> PlayerView:
    return PlayerView(p.name, p.country, p.rating, p.team.name if p.team else None)


def _tournament_view(t: Tournament, words: PageWords) -> dict[str, Any]:
    finished = sum(1 for g in t.games if g.result)
    end = t.extended_to or t.end
    period = f"{_date(t.start)} – {_date(t.end)}"
    if t.extended_to:
        period += f" ({words.fill('extended', date=_date(end))})"
    return {
        "index": t.index,
        "name": t.name,
        "profile": t.profile,
        "period": period,
        "director": t.director_name,
        "finished": words.fill("finished", finished=finished, total=len(t.games)),
        "pgn": f"{t.index}.pgn",
        "back": words.fill("back", index=t.index),
    }


def _result(g: Game, words: PageWords) -> str:
    if g.result is None:
        return ""
    if g.result == Result.ANNULLED:
        return str(words.labels["annulled"])
    return _RESULTS.get(g.result, g.result)


def _ending(g: Game, words: PageWords) -> str:
    """How the game ended, as a sentence (``Black resigned``); empty if unknown."""
    if not g.termination:
        return ""
    endings = words.labels["ending"]
    if g.termination not in endings:
        return g.termination
    text = str(endings[g.termination])
    winner = Result(g.result).winner if g.result else None
    if winner is not None:
        names = words.labels["colour_names"]
        text = text.format(
            winner=names[record.color_name(winner)], loser=names[record.color_name(not winner)]
        )
    elif "{" in text:
        return g.termination
    return text[:1].upper() + text[1:]


def _running(g: Game, now: datetime.datetime) -> int:
    """Days running on the move being thought about, to ``now`` (the player's leave not counted)."""
    w = record.waiting(g)
    return clock.move_days(w.profile, w.since, max(now, w.since), w.leaves, w.tz)


def _held_orders(session: Session) -> list[HeldOrder]:
    """The director's orders held until the director confirms them."""
    return list(session.scalars(select(HeldOrder).where(HeldOrder.status == "held")).all())


def _pending(g: Game, words: PageWords, held: Sequence[HeldOrder]) -> tuple[str, ...]:
    """What waits for the director about ``g``: its open claims, the orders held that
    name it (``INDEX/N`` as a word of an order line) or answer the bot's mail about it."""
    tz = ZoneInfo(g.tournament.timezone)
    kinds = words.labels["claim_kind"]
    out = [
        words.fill(
            "pending_claim",
            kind=kinds.get(c.kind, c.kind),
            date=_date(record.local_date(c.opened_at, tz)),
        )
        for c in g.claims
        if c.status == "open"
    ]
    tag = re.compile(rf"(?<![\w/.-]){re.escape(record.tag_of(g))}(?![\w/])")
    out += [
        words.fill("pending_orders", date=_date(record.local_date(h.created_at, tz)))
        for h in held
        if (h.answered is not None and h.answered.game_id == g.id)
        or any(tag.search(line) for line in h.orders)
    ]
    return tuple(out)


def _game_view(
    g: Game, words: PageWords, now: datetime.datetime, held: Sequence[HeldOrder] = ()
) -> GameView:
    finished = g.result is not None
    if finished:
        state = _ending(g, words)
    else:
        turn = chess.WHITE if len(g.moves) % 2 == 0 else chess.BLACK
        state = f"{words.labels.to_move[record.color_name(turn)]}, " + words.fill(
            "running", days=words.days(_running(g, now))
        )
    offer = ""
    if not finished and g.draw_offer_by in ("white", "black"):
        offer = str(words.labels.draw_offer[g.draw_offer_by])
    return GameView(
        number=g.number,
        tag=record.tag_of(g),
        page=game_page(g.number),
        round=g.round,
        board=g.board,
        white=_player_view(g.white),
        black=_player_view(g.black),
        moves=(len(g.moves) + 1) // 2,
        finished=finished,
        result=_result(g, words),
        state=state,
        draw_offer=offer,
        pending=_pending(g, words, held),
    )


def _game_detail(g: Game, words: PageWords, now: datetime.datetime) -> GameDetail:
    tz = ZoneInfo(g.tournament.timezone)
    board, rows, plies = _moves(g, words)
    last = plies[-1].position if plies else str(words.labels.start_position)
    return GameDetail(
        svg=markupsafe.Markup(board_svg(board)),
        position=last,
        fen=board.fen(),
        plies=plies,
        ended=words.fill("ended", date=_date(record.local_date(g.ended_at, tz)))
        if g.result is not None and g.ended_at is not None
        else "",
        rows=rows,
        clocks=_clocks(g, words, now, board.turn),
        penalties=_penalties(g, words),
        pgn=record.export_pgn(g),
    )


def _moves(
    g: Game, words: PageWords
) -> tuple[chess.Board, tuple[MoveRow, ...], tuple[PlyView, ...]]:
    """The final position, the move table's rows and the board after each half-move."""
    tz = ZoneInfo(g.tournament.timezone)
    style = Notation(g.tournament.notation)
    board = chess.Board()
    rows: dict[int, dict[str, MoveCell]] = {}
    plies: list[PlyView] = []
    session = object_session(g)
    bounced = bounced_moves(session, [g.id]).get(g.id, {}) if session is not None else {}
    for m in g.moves:
        move = chess.Move.from_uci(m.uci)
        number, color = board.fullmove_number, board.turn
        text = write_move(board, move, style)
        board.push(move)
        written = f"{number}. {text}" if color == chess.WHITE else f"{number}... {text}"
        plies.append(
            PlyView(
                anchor=f"ply-{m.ply}",
                position=words.fill("position", move=written),
                fen=board.fen(),
                svg=markupsafe.Markup(board_svg(board, size=360)),
            )
        )
        rows.setdefault(number, {})[record.color_name(color)] = MoveCell(
            text=text,
            received=_date(m.received_counted_on),
            sent=_date(record.local_date(m.sent_at, tz)),
            days=m.days,
            conditional=m.automatic,
            bounced=words.fill("bounced", date=_date(record.local_date(bounced[key], tz)))
            if (key := (m.ply, m.uci)) in bounced
            else "",
            ply=m.ply,
        )
    table = tuple(MoveRow(n, cells.get("white"), cells.get("black")) for n, cells in rows.items())
    return board, table, tuple(plies)


#: The endings in which the player to move lost by the clock: their days on the move
#: they never sent count, to the end of the game.
_LOST_ON_TIME = frozenset({"time-forfeit", "silence"})


def _clocks(
    g: Game, words: PageWords, now: datetime.datetime, turn: chess.Color
) -> tuple[ClockView, ClockView]:
    """Both clocks; the player to move's days on the move to ``now``, or, in a game lost
    on time or by silence, to the end of the game."""
    totals = record.totals(g)
    running: int | None = None
    if g.result is None:
        running = _running(g, now)
    elif g.termination in _LOST_ON_TIME and g.ended_at is not None:
        winner = Result(g.result).winner
        if winner is not None and winner != turn:  # the loser was thinking about a move
            running = _running(g, g.ended_at)
    white, black = (
        _clock_view(g, color, words, totals, running if turn == color else None)
        for color in (chess.WHITE, chess.BLACK)
    )
    return white, black


def _penalties(g: Game, words: PageWords) -> tuple[PenaltyView, ...]:
    tz = ZoneInfo(g.tournament.timezone)
    reasons = words.labels["penalty_reason"]
    return tuple(
        PenaltyView(
            colour=words.colour(p.color == "white"),
            days=words.days(p.days),
            reason=str(reasons[p.reason]) if p.reason in reasons else p.reason,
            after_ply=p.ply_at,
            date=_date(record.local_date(p.created_at, tz)),
        )
        for p in g.penalties
    )


def _clock_view(
    g: Game, color: chess.Color, words: PageWords, totals: record.GameTotals, running: int | None
) -> ClockView:
    name = record.color_name(color)
    control = ""
    state = record.control_of(g, color, running)
    if g.result is None:
        control = words.fill(
            "control",
            move=state.next_control_move,
            used=state.used_days,
            limit=state.limit_days,
            left=state.days_left,
        )
    used = totals.white if color == chess.WHITE else totals.black
    if g.result is not None and running is not None:
        used += running  # lost on time: the days of the move never sent
    return ClockView(
        colour=words.colour(color),
        used=used,
        penalty_days=sum(p.days for p in g.penalties if p.color == name),
        oversteps=len(state.oversteps),
        control=control,
        thinking=words.days(running) if running is not None else "",
    )


# ---------------------------------------------------------------------------
# Standings


@dataclasses.dataclass(frozen=True)
class Link:
    """A mark in a table cell and the page it leads to."""

    text: str
    href: str
    #: A claim or a decision about the game waits for the director.
    pending: bool = False


@dataclasses.dataclass(frozen=True)
class StandingRow:
    place: str
    #: The start number (the order of the start list); the team's number in a team table.
    number: int
    name: str
    country: str | None
    rating: int | None
    cells: tuple[tuple[Link, ...] | None, ...]
    figures: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class MatchView:
    anchor: str
    round: int | None
    home: str
    away: str
    score: str
    decided: bool
    games: tuple[GameView, ...]


def _standings_view(t: Tournament, words: PageWords, games: Sequence[GameView]) -> dict[str, Any]:
    if t.teams:
        return _team_view(t, words, games)
    table = report.crosstable_of(t)
    by_key = {p.key: p for p in t.players}
    # the games of each pair, in the order the crosstable gives their marks
    numbers: dict[tuple[str, str], list[int]] = {}
    seat = report.seats(t)
    for g in t.games:
        white, black = seat[g.white_id], seat[g.black_id]
        numbers.setdefault((white, black), []).append(g.number)
        numbers.setdefault((black, white), []).append(g.number)
    waiting = {v.number for v in games if v.pending}
    rows: list[StandingRow] = []
    for row in table.rows:
        cells: list[tuple[Link, ...] | None] = []
        for other in table.rows:
            if other.player == row.player:
                cells.append(None)
                continue
            marks = row.against(other.player)
            pages = numbers.get((row.player, other.player), [])
            cells.append(
                tuple(
                    Link(_MARKS.get(mark, mark), game_page(number), number in waiting)
                    for mark, number in zip(marks, pages, strict=False)
                )
            )
        player = by_key[row.player]
        rows.append(
            StandingRow(
                place=row.place,
                number=row.start_number,
                name=row.name,
                country=player.country,
                rating=player.rating,
                cells=tuple(cells),
                figures=row.figures,
            )
        )
    labels = words.labels
    return {
        "teams": False,
        "title": labels.crosstable,
        "columns": tuple(r.number for r in rows),
        "show_country": any(r.country for r in rows),
        "show_rating": any(r.rating is not None for r in rows),
        "heads": (labels.points, labels.played, labels.left, "+", "=", "−", labels.sb),
        #: The figures a narrow screen leaves out: played, left, won, drawn, lost.
        "more": (1, 2, 3, 4, 5),
        "rows": rows,
        "legend": labels.crosstable_legend,
        "pending_legend": labels.pending_legend if waiting else "",
        "matches": (),
        "other_games": tuple(games),
    }


def _team_view(t: Tournament, words: PageWords, games: Sequence[GameView]) -> dict[str, Any]:
    """The team table, the matches with their boards, and any game outside a match.

    The matches are those of :func:`mailbot.publish.report.match_games` (the games of one
    round between two teams, the home team the one with White on board 1), which
    the team table is made of too, so that each cell of the table links to its match.
    """
    matches, anchors = _matches(t, games)
    in_matches = {g.number for match in matches for g in match.games}
    rows = _team_rows(t, anchors)
    labels = words.labels
    return {
        "teams": True,
        "title": labels.team_table,
        "columns": tuple(r.number for r in rows),
        "show_country": False,
        "show_rating": False,
        "heads": (labels.match_points, labels.game_points, labels.matches_played),
        "more": (),
        "rows": rows,
        "legend": labels.team_legend,
        "pending_legend": "",
        "matches": tuple(matches),
        "other_games": tuple(v for v in games if v.number not in in_matches),
    }


def _matches(
    t: Tournament, games: Sequence[GameView]
) -> tuple[list[MatchView], dict[tuple[str, str], list[Link]]]:
    """The matches, and the links to them by (team, opponent), in the order played."""
    views = {v.number: v for v in games}
    names = {team.key: team.name for team in t.teams}
    matches: list[MatchView] = []
    anchors: dict[tuple[str, str], list[Link]] = {}
    for n, found in enumerate(report.match_games(t), start=1):
        match, boards = found.match, found.games
        ours, theirs = match.score()
        score = f"{format_points(ours)} : {format_points(theirs)}"
        anchor = f"match-{n}"
        matches.append(
            MatchView(
                anchor=anchor,
                round=found.round,
                home=names[match.home],
                away=names[match.away],
                score=score if match.decided else f"({score})",
                decided=match.decided,
                games=tuple(views[g.number] for g in boards),
            )
        )
        anchors.setdefault((match.home, match.away), []).append(Link("", f"#{anchor}"))
        anchors.setdefault((match.away, match.home), []).append(Link("", f"#{anchor}"))
    return matches, anchors


def _team_rows(t: Tournament, anchors: Mapping[tuple[str, str], list[Link]]) -> list[StandingRow]:
    table = report.team_table_of(t)
    rows: list[StandingRow] = []
    for row in table.rows:
        cells: list[tuple[Link, ...] | None] = []
        for other in table.rows:
            if other.team == row.team:
                cells.append(None)
                continue
            targets = anchors.get((row.team, other.team), [])
            marks = []
            for score_of, target in zip(row.against(other.team), targets, strict=False):
                text = format_points(score_of.points)
                marks.append(Link(text if score_of.decided else f"({text})", target.href))
            cells.append(tuple(marks))
        rows.append(
            StandingRow(
                place=row.place,
                number=row.number,
                name=row.name,
                country=None,
                rating=None,
                cells=tuple(cells),
                figures=(str(row.match_points), format_points(row.game_points), str(row.played)),
            )
        )
    return rows
