"""Standings: the crosstable of a round robin and the table of a team event.

A crosstable is built from the start list (ids and names, in start-list
order) and the games (White, Black, result). Results are written as in PGN,
White's score first, except that ``'*'`` marks an *annulled* game, which
counts for nothing; a game still in progress has the result ``None``::

    >>> table = crosstable(
    ...     [("ann", "Ann"), ("bob", "Bob"), ("cid", "Cid")],
    ...     [("ann", "bob", "1-0"), ("bob", "cid", "1/2-1/2"), ("cid", "ann", None)],
    ... )
    >>> [(row.place, row.name, format_points(row.points)) for row in table.rows]
    [('1', 'Ann', '1'), ('2-3', 'Bob', '½'), ('2-3', 'Cid', '½')]
    >>> print(render_crosstable(table))
    Place  No  Player  1 2 3  Pts  Gms  Unf  +  =  -  SB
    1       1  Ann     X 1 .    1    1    1  1  0  0   ½
    2-3     2  Bob     0 X ½    ½    2    0  0  1  1   ¼
    2-3     3  Cid     . ½ X    ½    1    1  0  1  0   ¼
    Gms: games played; Unf: unfinished; SB: Sonneborn-Berger
    * annulled game; . unfinished game

Players are ranked by points, then by the Sonneborn-Berger score, then by
the number of wins, then (when exactly two players are still level) by their
games against each other. Players level on all of these share the place
(``'3-4'``) and are listed in start-list order.

Team events (docs/rules.md section 6; the appendix of the Bulgarian rules; 004
art. 19-23) score 2 match points for a won match, 1 for a drawn one, 0 for a
lost one. Each board's result is written from the home team's side
(``'1-0'``: the home team's player won)::

    >>> table = team_table(
    ...     [("sof", "Sofia"), ("var", "Varna")],
    ...     [Match("sof", "var", ("1-0", "1/2-1/2"))],
    ... )
    >>> [(row.name, row.match_points, format_points(row.game_points)) for row in table.rows]
    [('Sofia', 2, '1½'), ('Varna', 0, '½')]

A match is decided only when all its boards are finished (annulled boards
count as finished, for no points). An undecided match gives its finished
boards' game points but no match points, so that a provisional table never
counts a match as won before it is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence

import chess

from mailbot.rules.errors import RulesError
from mailbot.rules.result import Result
from mailbot.rules.tabletext import CROSSTABLE_WORDS, TEAM_WORDS, grid_lines, truncate
from mailbot.rules.tiebreaks import Criterion, places, rank_groups

#: Results a game or a board can have (``None`` is an unfinished one).
RESULTS = tuple(Result)


def _score(result: Result) -> float:
    """The score of the first-named side (White) for a finished, counted result."""
    score = result.score(chess.WHITE)
    assert score is not None
    return score


#: What a crosstable cell shows, from the row player's side.
_MARK = {1.0: "1", 0.5: "½", 0.0: "0"}
ANNULLED_MARK = "*"
UNFINISHED_MARK = "."

_FRACTIONS = {0.0: "", 0.25: "¼", 0.5: "½", 0.75: "¾"}


class StandingsError(RulesError, ValueError):
    """The players, teams or results cannot make a table."""


class UnreadableResultError(StandingsError):
    """A result other than a :class:`~mailbot.rules.result.Result` (``'1-0'``, ``'annulled'``...)
    or ``None``."""


class UnknownEntrantError(StandingsError):
    """A game or match names a player or team that is not on the list."""


class DuplicateEntrantError(StandingsError):
    """The same player or team id is listed twice."""


class SelfPairingError(StandingsError):
    """A game or match pairs a player or team with itself."""


class BoardCountError(StandingsError):
    """Matches of one event with different numbers of boards, or no boards."""


class UnknownLanguageError(StandingsError):
    """A table can be written in ``en``, ``bg`` or ``ru``."""


def format_points(value: float) -> str:
    """Points the way a chess table shows them, halves and quarters as fractions.

    >>> format_points(2.5), format_points(0.5), format_points(3), format_points(0)
    ('2½', '½', '3', '0')
    >>> format_points(6.75)
    '6¾'
    """
    whole = int(value)
    fraction = _FRACTIONS.get(value - whole)
    if fraction is None or value < 0:
        return f"{value:g}"
    if whole == 0 and fraction:
        return fraction
    return f"{whole}{fraction}"


def _check_result(result: str | None) -> Result | None:
    if result is None:
        return None
    if result not in RESULTS:
        raise UnreadableResultError(
            f"unknown result {result!r}: write 1-0, 0-1, 1/2-1/2, +/-, -/+, annulled or nothing"
        )
    return Result(result)


def _entrants(entries: Iterable[tuple[str, str]], what: str) -> list[tuple[str, str]]:
    out = list(entries)
    seen: set[str] = set()
    for key, _ in out:
        if key in seen:
            raise DuplicateEntrantError(f"{what} {key!r} is listed twice")
        seen.add(key)
    return out


# -- Individual crosstable ---------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Cell:
    """The results of a row player against one opponent, in the order of the games.

    Each mark is ``'1'``, ``'½'`` or ``'0'`` from the row player's side, ``'*'``
    for an annulled game and ``'.'`` for an unfinished one. A double round
    robin has two marks per cell.
    """

    opponent: str
    marks: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class CrosstableRow:
    """One player's line of the crosstable."""

    #: ``'1'``, or ``'3-4'`` for a shared place.
    place: str
    #: The row's number in the table, which heads the player's column.
    number: int
    #: The player's number in the start list, from 1.
    start_number: int
    player: str
    name: str
    points: float
    #: Finished games (annulled and unfinished ones not counted).
    played: int
    unfinished: int
    wins: int
    draws: int
    losses: int
    sonneborn_berger: float
    #: Against every other player, in table order.
    cells: tuple[Cell, ...]

    @property
    def figures(self) -> tuple[str, ...]:
        """Points, games played, unfinished, wins, draws, losses and SB, as printed."""
        return (
            format_points(self.points),
            str(self.played),
            str(self.unfinished),
            str(self.wins),
            str(self.draws),
            str(self.losses),
            format_points(self.sonneborn_berger),
        )

    def against(self, opponent: str) -> tuple[str, ...]:
        """The marks against ``opponent`` (empty when they have no game)."""
        for cell in self.cells:
            if cell.opponent == opponent:
                return cell.marks
        return ()


@dataclasses.dataclass(frozen=True)
class Crosstable:
    """The rows best first; ``cycles`` is 2 for a double round robin."""

    rows: tuple[CrosstableRow, ...]
    cycles: int

    def row(self, player: str) -> CrosstableRow:
        """The row of ``player``."""
        for row in self.rows:
            if row.player == player:
                return row
        raise UnknownEntrantError(f"no player {player!r} in the table")


def crosstable(
    players: Iterable[tuple[str, str]],
    games: Iterable[tuple[str, str, str | None]],
) -> Crosstable:
    """The crosstable of a (double) round robin.

    ``players`` are ``(id, name)`` in start-list order; ``games`` are
    ``(white_id, black_id, result)``. Annulled games (``'*'``) count for
    nothing; unfinished ones (``None``) are counted only as unfinished.

    >>> t = crosstable([("a", "A"), ("b", "B")], [("a", "b", "1-0"), ("b", "a", "annulled")])
    >>> t.cycles, t.row("a").against("b"), t.row("b").against("a")
    (2, ('1', '*'), ('0', '*'))
    """
    entrants = _entrants(players, "player")
    names = dict(entrants)
    order = [key for key, _ in entrants]
    tally = _PlayerTally.of(order, _checked_games(games, names))
    sb, mutual = _sonneborn_berger(order, tally)
    ranked = places(rank_groups(order, _player_criteria(tally, sb, mutual), mutual=3))
    table_order = [key for key, _ in ranked]
    start = {key: n for n, key in enumerate(order, start=1)}
    rows = tuple(
        CrosstableRow(
            place=place,
            number=number,
            start_number=start[key],
            player=key,
            name=names[key],
            points=tally.points[key],
            played=tally.played[key],
            unfinished=tally.unfinished[key],
            wins=tally.wins[key],
            draws=tally.draws[key],
            losses=tally.played[key] - tally.wins[key] - tally.draws[key],
            sonneborn_berger=sb[key],
            cells=tuple(
                Cell(other, tuple(tally.marks.get((key, other), ())))
                for other in table_order
                if other != key
            ),
        )
        for number, (key, place) in enumerate(ranked, start=1)
    )
    cycles = max((len(m) for m in tally.marks.values()), default=1)
    return Crosstable(rows, cycles)


def _checked_games(
    games: Iterable[tuple[str, str, str | None]], names: Mapping[str, str]
) -> list[tuple[str, str, Result | None]]:
    """The games with their results read, each between two different listed players."""
    checked: list[tuple[str, str, Result | None]] = []
    for white, black, result in games:
        for key in (white, black):
            if key not in names:
                raise UnknownEntrantError(f"game {white} - {black}: no player {key!r}")
        if white == black:
            raise SelfPairingError(f"game {white} - {black}: a player cannot play themselves")
        checked.append((white, black, _check_result(result)))
    return checked


@dataclasses.dataclass(frozen=True)
class _PlayerTally:
    """Each player's points, games and crosstable marks."""

    points: dict[str, float]
    played: dict[str, int]
    unfinished: dict[str, int]
    wins: dict[str, int]
    draws: dict[str, int]
    marks: dict[tuple[str, str], list[str]]
    #: (player, opponent, score) for every finished game, both ways round.
    scores: list[tuple[str, str, float]]

    @classmethod
    def of(
        cls, order: Sequence[str], checked: Iterable[tuple[str, str, Result | None]]
    ) -> _PlayerTally:
        tally = cls(
            points=dict.fromkeys(order, 0.0),
            played=dict.fromkeys(order, 0),
            unfinished=dict.fromkeys(order, 0),
            wins=dict.fromkeys(order, 0),
            draws=dict.fromkeys(order, 0),
            marks={},
            scores=[],
        )
        for white, black, result in checked:
            for me, other, mine in ((white, black, True), (black, white, False)):
                tally.add(me, other, result, mine)
        return tally

    def add(self, me: str, other: str, result: Result | None, mine: bool) -> None:
        """One game of ``me`` against ``other`` (``mine``: the first-named side)."""
        mark = self.marks.setdefault((me, other), [])
        if result is None:
            self.unfinished[me] += 1
            mark.append(UNFINISHED_MARK)
        elif result is Result.ANNULLED:
            mark.append(ANNULLED_MARK)
        else:
            score = _score(result) if mine else 1.0 - _score(result)
            self.points[me] += score
            self.played[me] += 1
            self.wins[me] += score == 1.0
            self.draws[me] += score == 0.5
            mark.append(_MARK[score])
            self.scores.append((me, other, score))


def _sonneborn_berger(
    order: Sequence[str], tally: _PlayerTally
) -> tuple[dict[str, float], dict[tuple[str, str], float]]:
    """Each player's Sonneborn-Berger score, and the points of each against each."""
    sb = dict.fromkeys(order, 0.0)
    mutual: dict[tuple[str, str], float] = {}
    for me, other, score in tally.scores:
        sb[me] += score * tally.points[other]
        mutual[me, other] = mutual.get((me, other), 0.0) + score
    return sb, mutual


def _player_criteria(
    tally: _PlayerTally, sb: Mapping[str, float], mutual: Mapping[tuple[str, str], float]
) -> list[Criterion]:
    """Points, Sonneborn-Berger, wins, then the game between two still level."""

    def head_to_head(group: Sequence[str]) -> Mapping[str, tuple[float, ...]] | None:
        if len(group) != 2:
            return None
        a, b = group
        return {a: (mutual.get((a, b), 0.0),), b: (mutual.get((b, a), 0.0),)}

    return [
        lambda group: {i: (tally.points[i],) for i in group},
        lambda group: {i: (sb[i],) for i in group},
        lambda group: {i: (float(tally.wins[i]),) for i in group},
        head_to_head,
    ]


# -- Team standings -------------------------------------------------------------


def board_colours(team_has_white: bool, boards: int) -> list[chess.Color]:
    """A team's colour on each board (004 art. 20).

    The team that has White plays White on the odd boards and Black on the
    even ones; its opponent the other way round.

    >>> board_colours(True, 4) == [chess.WHITE, chess.BLACK, chess.WHITE, chess.BLACK]
    True
    >>> board_colours(False, 3) == [chess.BLACK, chess.WHITE, chess.BLACK]
    True
    """
    if boards < 0:
        raise BoardCountError(f"a match cannot have {boards} boards")
    return [team_has_white == (board % 2 == 1) for board in range(1, boards + 1)]


@dataclasses.dataclass(frozen=True)
class Match:
    """One match of a team event.

    ``boards`` holds each board's result from the **home** team's side
    (``'1-0'``: the home player won; ``'*'``: annulled; ``None``: unfinished).
    ``home_has_white`` says which team has White in the sense of 004 art. 20
    (White on the odd boards).

    >>> m = Match("sof", "var", ("1-0", None))
    >>> m.decided, m.score()
    (False, (1.0, 0.0))
    """

    home: str
    away: str
    #: Each board's result (its text is taken too); None for an unfinished board.
    boards: tuple[Result | str | None, ...]
    home_has_white: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "boards", tuple(_check_result(r) for r in self.boards))
        if not self.boards:
            raise BoardCountError(f"match {self.home} - {self.away} has no boards")
        if self.home == self.away:
            raise SelfPairingError(f"match {self.home} - {self.away}: a team cannot play itself")

    @classmethod
    def from_games(
        cls,
        home: str,
        away: str,
        games: Sequence[str | None],
        home_has_white: bool = True,
    ) -> Match:
        """A match from its games' results as in PGN (White's score first).

        The colours follow 004 art. 20; the results are turned to the home
        team's side.

        >>> [str(b) for b in Match.from_games("sof", "var", ["1-0", "1-0"]).boards]
        ['1-0', '0-1']
        >>> [str(b) for b in Match.from_games("sof", "var", ["1-0", "1-0"], False).boards]
        ['0-1', '1-0']
        """
        colours = board_colours(home_has_white, len(games))
        boards = tuple(
            other_side(result) if colour == chess.BLACK else result
            for result, colour in zip(games, colours, strict=True)
        )
        return cls(home, away, boards, home_has_white)

    @property
    def decided(self) -> bool:
        """Every board finished (annulled boards included)."""
        return all(result is not None for result in self.boards)

    def colours(self, team: str) -> list[chess.Color]:
        """The colour of ``team`` on each board."""
        if team not in (self.home, self.away):
            raise UnknownEntrantError(f"{team!r} does not play {self.home} - {self.away}")
        return board_colours(self.home_has_white == (team == self.home), len(self.boards))

    def board_points(self, team: str) -> tuple[float, ...]:
        """The points of ``team`` on each board; unfinished and annulled boards give 0.

        >>> Match("sof", "var", ("1-0", "1/2-1/2", "annulled")).board_points("var")
        (0.0, 0.5, 0.0)
        """
        home = team == self.home
        if not home and team != self.away:
            raise UnknownEntrantError(f"{team!r} does not play {self.home} - {self.away}")
        return tuple(
            (_score(Result(r)) if home else 1.0 - _score(Result(r)))
            if r is not None and r != Result.ANNULLED
            else 0.0
            for r in self.boards
        )

    def score(self) -> tuple[float, float]:
        """Game points of the finished boards: (home, away)."""
        return sum(self.board_points(self.home)), sum(self.board_points(self.away))

    def match_points(self, team: str) -> int:
        """2 for a won match, 1 for a drawn one, 0 for a lost or undecided one."""
        if not self.decided:
            return 0
        ours, theirs = self.score()
        if team == self.away:
            ours, theirs = theirs, ours
        return 2 if ours > theirs else 1 if ours == theirs else 0


def other_side(result: Result | str | None) -> Result | None:
    """A board's result seen from the other team's side (None: unfinished).

    >>> other_side("+/-"), other_side(None)
    (<Result.BLACK_WINS_BY_FORFEIT: '-/+'>, None)
    """
    checked = _check_result(result)
    return checked.flipped if checked is not None else None


@dataclasses.dataclass(frozen=True)
class MatchScore:
    """A team's result in one match: its game points, the opponent's, and if it is decided."""

    points: float
    against: float
    decided: bool


@dataclasses.dataclass(frozen=True)
class TeamCell:
    """A team's matches against one opponent, in the order given."""

    opponent: str
    scores: tuple[MatchScore, ...]


@dataclasses.dataclass(frozen=True)
class TeamRow:
    """One team's line of the table."""

    place: str
    number: int
    start_number: int
    team: str
    name: str
    match_points: int
    game_points: float
    #: Decided matches.
    played: int
    unfinished: int
    wins: int
    draws: int
    losses: int
    #: Game points on board 1, board 2, ... over all matches.
    board_points: tuple[float, ...]
    cells: tuple[TeamCell, ...]

    def against(self, opponent: str) -> tuple[MatchScore, ...]:
        """The matches against ``opponent`` (empty when they have none)."""
        for cell in self.cells:
            if cell.opponent == opponent:
                return cell.scores
        return ()


@dataclasses.dataclass(frozen=True)
class TeamTable:
    """The rows best first; ``boards`` is the number of boards per match."""

    rows: tuple[TeamRow, ...]
    boards: int

    def row(self, team: str) -> TeamRow:
        """The row of ``team``."""
        for row in self.rows:
            if row.team == team:
                return row
        raise UnknownEntrantError(f"no team {team!r} in the table")


def team_table(teams: Iterable[tuple[str, str]], matches: Iterable[Match]) -> TeamTable:
    """The standings of a team event (the appendix of the Bulgarian rules).

    ``teams`` are ``(id, name)`` in start-list order. Teams are ranked by

    1. match points (2 for a win, 1 for a draw);
    2. game points;
    3. the match between them: match points from the decided matches among
       the teams still level (for two teams, their head-to-head match);
    4. board wins in those matches: more wins on board 1, then on board 2
       (when board 1 gave neither a win), and so on;
    5. game points on board 1 over the whole event, then on board 2, ...;
    6. Black on board 1 in those matches: the team that had it (more often).

    Criteria 3, 4 and 6 look at the matches among the teams still level. When
    a later criterion separates some of them, those still level are compared
    afresh from criterion 3 (so two teams left level after criterion 5 are
    decided by their own match). Teams level on all six share the place and
    are listed in start-list order. Game points and board results count every
    finished board, also of undecided matches; match points only decided
    matches.

    >>> t = team_table(
    ...     [("a", "A"), ("b", "B")],
    ...     [Match("a", "b", ("1-0", "0-1"), home_has_white=True)],
    ... )
    >>> [(row.place, row.team) for row in t.rows]
    [('1', 'a'), ('2', 'b')]

    Here the match is drawn 1-1; A won on board 1 (criterion 4).
    """
    entrants = _entrants(teams, "team")
    names = dict(entrants)
    order = [key for key, _ in entrants]
    played = list(matches)
    boards = _board_count(played, names)
    tally = _TeamTally.of(order, played, boards)
    ranked = places(rank_groups(order, _team_criteria(played, tally, boards), mutual=2))
    table_order = [key for key, _ in ranked]
    start = {key: n for n, key in enumerate(order, start=1)}
    rows = tuple(
        TeamRow(
            place=place,
            number=number,
            start_number=start[key],
            team=key,
            name=names[key],
            match_points=tally.mp[key],
            game_points=tally.gp[key],
            played=tally.decided[key],
            unfinished=tally.undecided[key],
            wins=tally.won[key],
            draws=tally.drawn[key],
            losses=tally.decided[key] - tally.won[key] - tally.drawn[key],
            board_points=tuple(tally.per_board[key]),
            cells=tuple(_team_cell(played, key, other) for other in table_order if other != key),
        )
        for number, (key, place) in enumerate(ranked, start=1)
    )
    return TeamTable(rows, boards)


def _board_count(played: Sequence[Match], names: Mapping[str, str]) -> int:
    """The boards of every match (one number for the event); every team on the list."""
    sizes = {len(m.boards) for m in played}
    if len(sizes) > 1:
        raise BoardCountError(f"matches have different numbers of boards: {sorted(sizes)}")
    boards = sizes.pop() if sizes else 0
    for m in played:
        for key in (m.home, m.away):
            if key not in names:
                raise UnknownEntrantError(f"match {m.home} - {m.away}: no team {key!r}")
    return boards


@dataclasses.dataclass(frozen=True)
class _TeamTally:
    """Each team's match points, game points, matches and points on each board."""

    mp: dict[str, int]
    gp: dict[str, float]
    decided: dict[str, int]
    undecided: dict[str, int]
    won: dict[str, int]
    drawn: dict[str, int]
    per_board: dict[str, list[float]]

    @classmethod
    def of(cls, order: Sequence[str], played: Sequence[Match], boards: int) -> _TeamTally:
        tally = cls(
            mp=dict.fromkeys(order, 0),
            gp=dict.fromkeys(order, 0.0),
            decided=dict.fromkeys(order, 0),
            undecided=dict.fromkeys(order, 0),
            won=dict.fromkeys(order, 0),
            drawn=dict.fromkeys(order, 0),
            per_board={key: [0.0] * boards for key in order},
        )
        for m in played:
            for key in (m.home, m.away):
                tally.mp[key] += m.match_points(key)
                points = m.board_points(key)
                tally.gp[key] += sum(points)
                for b, p in enumerate(points):
                    tally.per_board[key][b] += p
                if m.decided:
                    tally.decided[key] += 1
                    tally.won[key] += m.match_points(key) == 2
                    tally.drawn[key] += m.match_points(key) == 1
                else:
                    tally.undecided[key] += 1
        return tally


def _team_criteria(played: Sequence[Match], tally: _TeamTally, boards: int) -> list[Criterion]:
    """The six criteria of :func:`team_table`, in order (3, 4 and 6 among those level)."""

    def among(group: Sequence[str]) -> list[Match]:
        return [m for m in played if m.home in group and m.away in group]

    def head_to_head(group: Sequence[str]) -> Mapping[str, tuple[float, ...]]:
        keys = dict.fromkeys(group, 0.0)
        for m in among(group):
            keys[m.home] += m.match_points(m.home)
            keys[m.away] += m.match_points(m.away)
        return {key: (value,) for key, value in keys.items()}

    def board_wins(group: Sequence[str]) -> Mapping[str, tuple[float, ...]]:
        keys = {key: [0.0] * boards for key in group}
        for m in among(group):
            for key in (m.home, m.away):
                for b, p in enumerate(m.board_points(key)):
                    keys[key][b] += p == 1.0
        return {key: tuple(value) for key, value in keys.items()}

    def black_on_board_one(group: Sequence[str]) -> Mapping[str, tuple[float, ...]]:
        keys = dict.fromkeys(group, 0.0)
        for m in among(group):
            for key in (m.home, m.away):
                keys[key] += m.colours(key)[0] == chess.BLACK
        return {key: (value,) for key, value in keys.items()}

    return [
        lambda group: {key: (float(tally.mp[key]),) for key in group},
        lambda group: {key: (tally.gp[key],) for key in group},
        head_to_head,
        board_wins,
        lambda group: {key: tuple(tally.per_board[key]) for key in group},
        black_on_board_one,
    ]


def _team_cell(played: Sequence[Match], key: str, other: str) -> TeamCell:
    """``key``'s scores against ``other``, one per match between them."""
    scores: list[MatchScore] = []
    for m in played:
        if {m.home, m.away} == {key, other}:
            home, away = m.score()
            ours, theirs = (home, away) if m.home == key else (away, home)
            scores.append(MatchScore(ours, theirs, m.decided))
    return TeamCell(other, tuple(scores))


# -- Text rendering --------------------------------------------------------------


def _words(table: dict[str, dict[str, str]], language: str) -> dict[str, str]:
    try:
        return table[language]
    except KeyError:
        raise UnknownLanguageError(
            f"no table in {language!r}: choose one of {', '.join(table)}"
        ) from None


def render_crosstable(table: Crosstable, language: str = "en", name_width: int = 24) -> str:
    """The crosstable as fixed-width text for a plain-text e-mail or a terminal.

    Columns: place, start number, player (cut to ``name_width``), the results
    against each player headed by start number, points, games played, unfinished games,
    wins, draws, losses, Sonneborn-Berger; a legend follows.

    >>> t = crosstable([("a", "Анна"), ("b", "Борис")], [("a", "b", "1/2-1/2")])
    >>> print(render_crosstable(t, "ru"))
    Место  №  Участник  1 2  Очки  Парт  Незав  +  =  -  SB
    1-2    1  Анна      X ½     ½     1      0  0  1  0   ¼
    1-2    2  Борис     ½ X     ½     1      0  0  1  0   ¼
    Парт: сыграно партий; Незав: не закончено; SB: Зонненборн-Бергер
    * аннулированная партия; . незаконченная партия
    """
    words = _words(CROSSTABLE_WORDS, language)
    n = len(table.rows)
    header = [words["place"], words["number"], words["player"]]
    # each player by start number, as the site numbers them, in the order of the places
    header += [str(r.start_number) for r in table.rows]
    header += [words["points"], words["played"], words["unfinished"], "+", "=", "-", words["sb"]]
    lines: list[list[str]] = []
    for row in table.rows:
        line = [row.place, str(row.start_number), truncate(row.name, name_width)]
        for other in table.rows:
            if other.player == row.player:
                line.append("X" * table.cycles)
            else:
                line.append("".join(row.against(other.player)).ljust(table.cycles))
        line += row.figures
        lines.append(line)
    gaps = [0, 2, 2] + [2 if i == 0 else 1 for i in range(n)] + [2] * 7
    left = {0, 2} | set(range(3, 3 + n))
    return "\n".join([*grid_lines(header, lines, left, gaps), words["legend"]])


def render_team_table(table: TeamTable, language: str = "en", name_width: int = 24) -> str:
    """The team standings as fixed-width text.

    Columns: place, number, team, the game points against each team by
    number (in brackets while the match is undecided), match points, game
    points, decided matches; a legend follows.

    >>> t = team_table(
    ...     [("sof", "София"), ("var", "Варна")],
    ...     [Match("sof", "var", ("1-0", "1/2-1/2", None, "0-1"))],
    ... )
    >>> print(render_team_table(t, "bg"))
    Място  №  Отбор  1     2     МТ  Точки  Мачове
    1      1  София  X     (1½)   0     1½       0
    2      2  Варна  (1½)  X      0     1½       0
    МТ: мачови точки; Точки: точки от партиите; (1½) мачът не е завършен

    The match is not decided yet, so neither team has match points; София
    is ahead for now by its win on board 1.
    """
    words = _words(TEAM_WORDS, language)
    n = len(table.rows)
    header = [words["place"], words["number"], words["team"]]
    header += [str(i) for i in range(1, n + 1)]
    header += [words["match_points"], words["game_points"], words["played"]]
    lines: list[list[str]] = []
    for row in table.rows:
        line = [row.place, str(row.number), truncate(row.name, name_width)]
        for other in table.rows:
            if other.team == row.team:
                line.append("X")
            else:
                line.append(" ".join(_match_mark(s) for s in row.against(other.team)))
        line += [str(row.match_points), format_points(row.game_points), str(row.played)]
        lines.append(line)
    gaps = [0, 2, 2] + [2] * n + [2] * 3
    left = {0, 2} | set(range(3, 3 + n))
    return "\n".join([*grid_lines(header, lines, left, gaps), words["legend"]])


def _match_mark(score: MatchScore) -> str:
    text = format_points(score.points)
    return text if score.decided else f"({text})"
