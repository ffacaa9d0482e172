"""A game as stored: its board, clocks, art. 8 lines, PGN record and deadline state.

Functions over the store's rows that the desk, the sweep, the director's
orders and the reports share; they read rows and compute, and never write.
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import zoneinfo
from collections.abc import Sequence
from zoneinfo import ZoneInfo

import chess

from mailbot.rules import clock, due, game, pgn
from mailbot.rules.leave import LeavePeriod
from mailbot.rules.notation import Notation, example_move, write_move
from mailbot.rules.profile import DayCounting, Profile, profile
from mailbot.rules.result import Colour, Result
from mailbot.store.endings import withdrawal_adjudication
from mailbot.store.models import Game, Player, Tournament


def color_of(g: Game, player: Player) -> chess.Color:
    """The colour ``player`` has in ``g``."""
    return chess.WHITE if player.id == g.white_id else chess.BLACK


def color_name(color: chess.Color) -> Colour:
    return Colour.WHITE if color == chess.WHITE else Colour.BLACK


def tag_of(g: Game) -> str:
    return f"{g.tournament.index}/{g.number}"


def profile_of(t: Tournament) -> Profile:
    return profile(t.profile, t.rules or None)


def local_date(moment: datetime.datetime, tz: zoneinfo.ZoneInfo) -> datetime.date:
    return moment.astimezone(tz).date()


# ---------------------------------------------------------------------------
# The game as the core sees it


@dataclasses.dataclass(frozen=True)
class GameTotals:
    white: int
    black: int

    def header(self) -> str:
        return f"white={self.white}; black={self.black}"


#: The positions of the games played last, by game id, with the moves each was
#: replayed from (a game whose moves differ is replayed again).
_BOARDS: collections.OrderedDict[int, tuple[tuple[str, ...], chess.Board]] = (
    collections.OrderedDict()
)
#: How many positions :data:`_BOARDS` keeps.
BOARDS_KEPT = 256


def board_of(g: Game, plies: int | None = None, *, stack: bool | int = True) -> chess.Board:
    """The position after the first ``plies`` moves of ``g`` (all by default).

    With all the moves it carries them on its stack (repetitions are judged
    from it), or the last ``stack`` of them (a diagram marks the last move);
    before an earlier ply it carries none. The positions of the
    last :data:`BOARDS_KEPT` games are kept: such a game is not replayed
    again, only its new moves are played on, so deciding about a move at ply
    200 costs no more replays than one at ply 2.

    >>> from mailbot.store.models import Move
    >>> g = Game(moves=[Move(ply=1, uci="e2e4"), Move(ply=2, uci="e7e5")])
    >>> board_of(g).fen()
    'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2'
    >>> board_of(g, 1).fen(), len(board_of(g, 1).move_stack), len(board_of(g).move_stack)
    ('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1', 0, 2)
    >>> board_of(g, stack=1).move_stack
    [Move.from_uci('e7e5')]
    """
    ucis = _ucis(g)
    known, board = _BOARDS.get(g.id, ((), chess.Board())) if g.id else ((), chess.Board())
    if known != ucis:
        if ucis[: len(known)] != known:
            known, board = (), chess.Board()
        for uci in ucis[len(known) :]:
            board.push(chess.Move.from_uci(uci))
    if g.id:
        _BOARDS[g.id] = (ucis, board)
        _BOARDS.move_to_end(g.id)
        while len(_BOARDS) > BOARDS_KEPT:
            _BOARDS.popitem(last=False)
    if plies is None or plies >= len(ucis):
        return _copy(board, len(ucis) if stack is True else int(stack))
    back = len(ucis) - max(plies, 0)
    earlier = _copy(board, back)
    for _ in range(back):
        earlier.pop()
    return earlier


def _ucis(g: Game) -> tuple[str, ...]:
    """The UCI of ``g``'s moves, read once for as long as they do not change.

    They are kept on the game object itself (so they go with it), with the
    number of moves and the last move they were read up to: a game's moves
    only grow, or are cut short by art. 20.
    """
    moves = g.moves
    if not moves:
        return ()
    seen: tuple[int, object, tuple[str, ...]] | None = g.__dict__.get("_mailbot_ucis")
    if seen is not None and seen[0] == len(moves) and seen[1] is moves[-1]:
        return seen[2]
    ucis = tuple(m.uci for m in moves)
    g.__dict__["_mailbot_ucis"] = (len(moves), moves[-1], ucis)
    return ucis


def _copy(board: chess.Board, plies: int) -> chess.Board:
    """``board`` with the last ``plies`` moves on its stack, sharing the move objects.

    ``chess.Board.copy`` copies each move of the stack; a game's moves are
    never changed in place, so sharing them saves that at ply 200.
    """
    copied = board.copy(stack=False)
    if plies > 0:
        copied.move_stack = board.move_stack[-plies:]
        copied._stack = board._stack[-plies:]
    return copied


def totals(g: Game) -> GameTotals:
    white = sum(m.days for m in g.moves if m.ply % 2 == 1)
    black = sum(m.days for m in g.moves if m.ply % 2 == 0)
    for p in g.penalties:
        if p.color == "white":
            white += p.days
        else:
            black += p.days
    return GameTotals(white, black)


def player_leaves(player: Player, g: Game) -> tuple[LeavePeriod, ...]:
    """The player's leave as it applies in game ``g`` (cancellations cut it short)."""
    out: list[LeavePeriod] = []
    for lv in player.leaves:
        end = lv.end
        for c in lv.cancellations:
            if c.game_id == g.id:
                end = min(end, c.from_date - datetime.timedelta(days=1))
        if end >= lv.start:
            out.append(LeavePeriod(lv.start, end))
    return tuple(out)


def clock_leaves(player: Player, g: Game) -> tuple[LeavePeriod, ...]:
    """The leave that stops ``player``'s clock in ``g``: their own, and where play
    stops in all of a player's games (art. 45), the opponent's as well.

    003 part 1 art. 8a reads the other way: during the opponent's leave your
    clock runs when it is your move (``leave_stops_opponent`` false).
    """
    own = player_leaves(player, g)
    if not profile_of(g.tournament).leave_stops_opponent:
        return own
    opponent = g.black if player.id == g.white_id else g.white
    if opponent is None or opponent.id == player.id:
        return own
    return own + player_leaves(opponent, g)


def notation_for(player: Player) -> Notation:
    return Notation(player.notation or player.tournament.notation)


def example_for(board: chess.Board, player: Player) -> str:
    """How a mail to ``player`` shows a move may be written in ``board``: its
    :func:`~mailbot.rules.notation.example_move` in the player's notation ("" if none).

    >>> example_for(chess.Board(), Player(notation="bg-cyrillic"))
    'a2-a3'
    """
    first = example_move(board)
    return "" if first is None else write_move(board, first, notation_for(player))


def language_for(player: Player) -> str:
    return player.language or player.tournament.language


@dataclasses.dataclass(frozen=True)
class MoveLine:
    """The art. 8 line: moves, the three dates, days, both totals."""

    moves: str
    prev_sent: datetime.date | None
    received: datetime.date | None
    sent: datetime.date
    days: int
    white_total: int
    black_total: int


def write_pair(board_before_last: chess.Board, plies: Sequence[chess.Move], style: Notation) -> str:
    """``15. Те1-e2 Кg8-f6`` or ``15... Кg8-f6 16. Те1-e2`` for the last plies."""
    board = board_before_last.copy(stack=False)
    parts: list[str] = []
    for i, move in enumerate(plies):
        number = board.fullmove_number
        text = write_move(board, move, style)
        if board.turn == chess.WHITE:
            parts.append(f"{number}. {text}")
        elif i == 0:
            parts.append(f"{number}... {text}")
        else:
            parts.append(text)
        board.push(move)
    return " ".join(parts)


def move_line(
    g: Game,
    upto_ply: int,
    style: Notation,
    tz: zoneinfo.ZoneInfo,
    first_ply: int | None = None,
) -> MoveLine:
    """The art. 8 line for the move at ``upto_ply``: the plies from ``first_ply``
    (by default the opponent's move before it), the dates, days and totals."""
    moves = g.moves[:upto_ply]
    last = moves[-1]
    first = first_ply if first_ply is not None else max(1, upto_ply - 1)
    # the last move of the same side the player actually played (not a conditional reply)
    charged = next(
        (moves[i] for i in range(len(moves) - 1, -1, -2) if not moves[i].automatic), last
    )
    # the days run from the move before the message that carried the charged move
    # (with a conditional line accepted, several plies came in that one message, in a row)
    first_of_message = charged.ply
    while (
        charged.inbound_id is not None
        and first_of_message >= 2
        and moves[first_of_message - 2].inbound_id == charged.inbound_id
    ):
        first_of_message -= 1
    prev = moves[first_of_message - 2] if first_of_message >= 2 else None
    sums = GameTotals(_line_total(g, chess.WHITE, upto_ply), _line_total(g, chess.BLACK, upto_ply))
    return MoveLine(
        moves=write_pair_from(g, first, style, upto=upto_ply),
        prev_sent=local_date(prev.forwarded_at, tz) if prev and prev.forwarded_at else None,
        received=charged.received_counted_on,
        sent=local_date(charged.sent_at, tz),
        days=charged.days,
        white_total=sums.white,
        black_total=sums.black,
    )


def _line_total(g: Game, color: chess.Color, upto_ply: int) -> int:
    """One player's total on the art. 8 line of the move at ``upto_ply``.

    The days of the moves up to it and the penalties imposed before it; after
    a first overstep, where the profile says so (art. 7 З note, postal
    letters), only those of the new count.
    """
    parity, name = (1 if color == chess.WHITE else 0), color_name(color)
    moves = [m for m in g.moves[:upto_ply] if m.ply % 2 == parity]
    penalties = [p for p in g.penalties if p.color == name and p.ply_at < upto_ply]
    whole = sum(m.days for m in moves) + sum(p.days for p in penalties)
    p = profile_of(g.tournament)
    if not p.totals_from_new_count:
        return whole
    upcoming = len(moves) + 1
    state = clock.control_state(
        p,
        [clock.MoveTime((m.ply + 1) // 2, m.days) for m in moves],
        [clock.ClockPenalty(x.days, min(x.ply_at // 2 + 1, upcoming)) for x in penalties],
        awarded=[n for n in awarded_oversteps(g, color) if n <= upcoming],
    )
    return state.used_days if state.oversteps else whole


def history(g: Game, color: chess.Color) -> tuple[list[clock.MoveTime], list[clock.ClockPenalty]]:
    """One player's moves and penalties as the clock takes them."""
    parity = 1 if color == chess.WHITE else 0
    moves = [clock.MoveTime((m.ply + 1) // 2, m.days) for m in g.moves if m.ply % 2 == parity]
    name = color_name(color)
    penalties = [
        clock.ClockPenalty(p.days, p.ply_at // 2 + 1) for p in g.penalties if p.color == name
    ]
    return moves, penalties


def awarded_oversteps(g: Game, color: chess.Color) -> list[int]:
    """The moves at which the director awarded ``color`` an overstep (art. 56)."""
    name = color_name(color)
    return [
        int(c.details["awarded_move"])
        for c in g.claims
        if c.kind == "overstep"
        and c.status == "confirmed"
        and c.against == name
        and "awarded_move" in c.details
    ]


def control_of(g: Game, color: chess.Color, running_days: int | None = None) -> clock.ControlState:
    """The player's time-control state (docs/rules.md 2.2), awarded oversteps included."""
    moves, penalties = history(g, color)
    return clock.control_state(
        profile_of(g.tournament), moves, penalties, running_days, awarded_oversteps(g, color)
    )


def received_counted(
    p: Profile, received: datetime.datetime, tz: zoneinfo.ZoneInfo
) -> datetime.date:
    """The receipt date as the move line shows it (art. 8 D: the day after, in bg profiles)."""
    day = local_date(received, tz)
    if p.day_counting is DayCounting.CALENDAR_AFTER_RECEIPT:
        return day + datetime.timedelta(days=1)
    return day


def days_for(
    g: Game, p: Profile, tz: zoneinfo.ZoneInfo, mover: Player, sent: datetime.datetime
) -> tuple[int, datetime.date]:
    """Days charged to a move arriving at ``sent``, and its counted receipt date."""
    leaves = clock_leaves(mover, g)
    if not g.moves and handed_back(g) is None:
        start = g.tournament.start
        return clock.first_move_days(p, start, sent, leaves, tz), start
    received = silent_since(g)
    return clock.move_days(p, received, sent, leaves, tz), received_counted(p, received, tz)


def pgn_result(result: str | None) -> str:
    """The PGN ``Result`` of a stored result: ``*`` for a game without one (unfinished,
    or annulled).

    >>> pgn_result("-/+"), pgn_result(None), pgn_result("annulled")
    ('0-1', '*', '*')
    """
    return Result(result).pgn if result else "*"


def write_pair_from(g: Game, first_ply: int, style: Notation, upto: int | None = None) -> str:
    """The plies ``first_ply..upto`` written with move numbers in ``style``."""
    board = board_of(g, first_ply - 1)
    moves = g.moves
    last = upto if upto is not None else len(moves)
    return write_pair(
        board, [chess.Move.from_uci(m.uci) for m in moves[first_ply - 1 : last]], style
    )


def pgn_record(g: Game, end: game.GameEnd | None = None, lang: str = "") -> pgn.GameRecord:
    """The game as a PGN record, with each move's dates and days. Names go ``Last, First``
    (:func:`mailbot.rules.pgn.surname_first`); ratings and countries where the start list
    gave them; ``Mode`` follows the profile (:func:`mailbot.rules.pgn.mode_for`). Comments
    are in ``lang`` (by default the tournament's); the end's reason (English) only in an
    English PGN. ``Round`` is ``round.board`` (:func:`mailbot.rules.pgn.round_tag`),
    ``GameId`` the game's ``INDEX/N``, ``Board`` its board in a team event."""
    t = g.tournament
    tz = ZoneInfo(t.timezone)
    p = profile_of(t)
    notes: dict[int, list[pgn.PenaltyNote]] = {}
    for pen in g.penalties:
        notes.setdefault(pen.ply_at, []).append(
            pgn.PenaltyNote(
                pen.days, pen.reason, chess.WHITE if pen.color == "white" else chess.BLACK
            )
        )
    records = [
        pgn.MoveRecord(
            move=chess.Move.from_uci(m.uci),
            received_on=m.received_counted_on,
            sent_on=local_date(m.sent_at, tz),
            days=m.days,
            automatic=m.automatic,
            penalties=tuple(notes.get(m.ply, ())),
        )
        for m in g.moves
    ]
    sums = totals(g)
    english = pgn.words_of(language := lang or t.language) == pgn.words_of("en")
    termination = (
        end.termination if end else (game.Termination(g.termination) if g.termination else None)
    )
    return pgn.GameRecord(
        event=t.name,
        site=t.index,
        round=pgn.round_tag(g.round, g.board, g.number),
        white=pgn.surname_first(g.white.name),
        black=pgn.surname_first(g.black.name),
        start=t.start,
        moves=records,
        result=pgn_result(g.result),
        termination=termination,
        white_days=sums.white,
        black_days=sums.black,
        reason=end.reason if end and english else None,
        days_per_control=p.days_per_control,
        moves_per_control=p.moves_per_control,
        mode=pgn.mode_for(t.profile),
        white_elo=g.white.rating,
        black_elo=g.black.rating,
        white_country=g.white.country,
        black_country=g.black.country,
        language=language,
        game_id=tag_of(g),
        # a team event's board (its teams are read only for a game that has one)
        board=g.board if g.board is not None and t.teams else None,
    )


def export_pgn(g: Game, end: game.GameEnd | None = None, language: str | None = None) -> str:
    """The game's PGN, its comments in ``language`` (by default the tournament's)."""
    return pgn.export(pgn_record(g, end, language or ""))


def silent_since(g: Game) -> datetime.datetime:
    """The instant the player to move received the move they must answer."""

    if g.moves:
        last = g.moves[-1]
        return last.forwarded_at or last.sent_at
    t = g.tournament
    start = clock.first_move_receipt(profile_of(t), t.start, ZoneInfo(t.timezone))
    handed = handed_back(g)
    return start if handed is None else max(start, handed)


def handed_back(g: Game) -> datetime.datetime | None:
    """When the director handed back to White a game whose every move was voided
    (art. 20, a complaint about White's first move upheld); None for a game that
    never had a move. White's first move is then counted from that instant, not
    from the start of the event.
    """
    return None if g.moves else g.last_forwarded_at


@dataclasses.dataclass(frozen=True)
class Waiting:
    """Whose move it is in a game, and what their deadlines are computed from."""

    player: Player
    color: chess.Color
    #: The instant they received the move they must answer (:func:`silent_since`).
    since: datetime.datetime
    leaves: tuple[LeavePeriod, ...]
    profile: Profile
    tz: ZoneInfo


def waiting(g: Game) -> Waiting:
    """The player to move in ``g`` (the one whose silence the deadlines measure)."""
    t = g.tournament
    player = g.white if len(g.moves) % 2 == 0 else g.black
    return Waiting(
        player,
        color_of(g, player),
        silent_since(g),
        clock_leaves(player, g),
        profile_of(t),
        ZoneInfo(t.timezone),
    )


def game_state(g: Game) -> due.GameState:
    """``g`` as the deadlines see it (:class:`mailbot.rules.due.GameState`)."""
    t = g.tournament
    w = waiting(g)
    thinking, penalties, awarded = thinking_of(g, w.color)
    colour = color_name(w.color)
    withdrawal = withdrawal_adjudication(g)
    delays = [d for d in g.delays if d.color == colour]
    return due.GameState(
        w.profile,
        w.tz,
        t.extended_to or t.end,
        len(g.moves),
        w.since,
        w.leaves,
        tuple(thinking),
        tuple(penalties),
        tuple(awarded),
        max((x.created_at for x in g.penalties if x.color == colour), default=None),
        min((d.received_at for d in delays if d.ply_at == len(g.moves)), default=None),
        None if withdrawal is None else (withdrawal.id, withdrawal.opened_at),
        tuple(
            due.LeaveEnd(color_name(color_of(g, player)), lv.id, lv.start, lv.end)
            for player in (g.white, g.black)
            for lv in player.leaves
        ),
    )


def notice_covered(g: Game) -> bool:
    """Whether the player to move in ``g`` sent a delay notice in time for the move
    (art. 25; :func:`mailbot.rules.due.notice_covers`)."""
    state = game_state(g)
    return state.noticed is not None and due.notice_covers(state, state.noticed)


def thinking_of(
    g: Game, color: chess.Color
) -> tuple[list[clock.MoveTime], list[clock.ClockPenalty], list[int]]:
    """The moves the clock of ``color`` counts, its penalty days and awarded oversteps.

    003 p1 6g, art. 32: a player answering the opponent's conditional line may
    accept it and charge the time to the last move the line lets them play.
    """
    moves, penalties = history(g, color)
    thinking = [*moves, *accepted_moves(g, color, len(moves))]
    return thinking, penalties, awarded_oversteps(g, color)


def accepted_moves(g: Game, color: chess.Color, played: int) -> list[clock.MoveTime]:
    """The silent player's moves the opponent's pending conditional line would play
    at no cost if accepted (each answered by the line), before the charged move."""
    line = g.pending_conditional or []
    if not line or g.pending_conditional_by == color_name(color):
        return []
    return [clock.MoveTime(played + 1 + i, 0) for i in range(len(line) // 2)]
