"""The deadline rules: what falls due in a game is sent, each notice once.

Deadlines are data, not timers (docs/architecture.md, invariant 6): the stored
game is read into plain values (:func:`mailbot.store.record.game_state`), and one pure reading
(:mod:`mailbot.rules.due`) says what has fallen due at ``now`` (a repeat at
the profile's days, an overstep, silence, a warning, a leave's end, the end
of the event) and when the game must be looked at again (:func:`next_due`).
These rules send what it says has fallen due, and nothing else. Every
notice is entered in the ``notices`` ledger (:func:`record_notice`), keyed by
what makes it unique (the game, the player, the kind, the ply of the
unanswered move), so it is sent once however often the rules run; each
notice states the day it fell due, not the day it was sent. The sweep
(:mod:`mailbot.desk.sweep`) selects the due games and calls these rules; a
move calls :func:`overstep_on_move`.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any
from zoneinfo import ZoneInfo

import chess
from sqlalchemy import select
from sqlalchemy.orm import Session

from mailbot.desk.work import Work
from mailbot.rules import clock, due
from mailbot.rules import events as ev
from mailbot.rules.profile import Profile
from mailbot.rules.result import Colour
from mailbot.store import decisions
from mailbot.store.endings import (
    claim_end,
    end_game,
    settle_adjudication_claims,
    withdrawal_adjudication,
)
from mailbot.store.kinds import ClaimDecider, ClaimKind, ClaimState, NoticeKind
from mailbot.store.ledger import record_notice
from mailbot.store.models import Game, Notice, Player
from mailbot.store.record import (
    color_of,
    control_of,
    game_state,
    profile_of,
)


def plan(g: Game) -> tuple[due.Deadline, ...]:
    """Every deadline of ``g`` as it stands (:func:`mailbot.rules.due.schedule`)."""
    return due.schedule(game_state(g))


def next_due(
    g: Game, now: datetime.datetime, planned: Sequence[due.Deadline] | None = None
) -> datetime.datetime | None:
    """When the sweep must look at ``g`` again, as ``g`` stands after a sweep at ``now``.

    That is the earliest of its deadlines after ``now`` (:func:`plan`, or ``planned``
    when the game has not changed since: repeat, overstep, silence, a leave's end, the
    end of the event, a warning's day), or a calendar date already passed but not yet
    announced (the tournament pass announces it). None when nothing can fall due before
    something changes; any change makes the game due again
    (:func:`mailbot.store.changes.mark_changed_games`).
    """
    if g.result is not None:
        return None
    found = [
        d.at
        for d in (plan(g) if planned is None else planned)
        if d.at > now or (not d.kind.on_the_clock and not _announced(g, d))
    ]
    return min(found, default=None)


def play_stops_at(g: Game) -> datetime.datetime:
    """The instant from which no clock runs in ``g`` (:func:`mailbot.rules.due.play_stops_at`)."""
    t = g.tournament
    withdrawal = withdrawal_adjudication(g)
    withdrawn = withdrawal.opened_at if withdrawal is not None else None
    return due.play_stops_at(t.extended_to or t.end, ZoneInfo(t.timezone), withdrawn)


def player_of(g: Game, colour: Colour | None) -> Player | None:
    """The player of ``colour`` in ``g`` (None: the game's own notice, for the director)."""
    if colour is None:
        return None
    return g.white if colour is Colour.WHITE else g.black


def fall_due(work: Work, g: Game, planned: Sequence[due.Deadline] | None = None) -> list[str]:
    """Repeats, oversteps, silence and the warnings in one game, as far as they fell due
    in play (:func:`mailbot.rules.due.sweep`; ``planned``: the game's :func:`plan`),
    each notice once.

    Tells ``work`` what fell due; returns the kinds, for the report.
    """
    session, now = work.session, work.now
    found: list[str] = []
    planned = plan(g) if planned is None else planned
    for item in due.fallen(planned, now, ZoneInfo(g.tournament.timezone)):
        if g.result is not None:
            break  # a notice ended the game: nothing more falls due in it
        player = player_of(g, item.whom)
        if not item.kind.on_the_clock or player is None:
            continue
        if item.kind is due.DueKind.WARNING and not player.warnings:
            continue  # the player wrote ``warnings off``
        if not record_notice(session, g, player, NoticeKind(item.kind), item.key, item.at, now):
            continue
        found.append(item.kind.value)
        work.tell(*_told(session, g, player, item, now))
    return found


def _told(
    session: Session, g: Game, player: Player, item: due.Deadline, now: datetime.datetime
) -> list[ev.Event]:
    """What a deadline of the clock tells, its notice just entered in the ledger."""
    kind = item.kind
    if kind is due.DueKind.REPEAT:  # art. 26: repeated, with a copy to the TD
        return [ev.Repeated(g.id, player.id, item.at)]
    if kind is due.DueKind.OVERSTEP:
        assert item.control is not None
        return overstep(session, g, player, item.at, now, item.control)
    if kind is due.DueKind.WARNING:
        assert item.due is not None
        return [ev.WarningDue(g.id, player.id, item.about, item.days, item.due)]
    return silence(session, g, player, item.at, now, decisive=kind is due.DueKind.SILENCE)


#: The notices about one wait for a move, keyed by the number of plies played
#: while it lasts (:func:`fall_due`).
WAIT_NOTICES = (NoticeKind.REPEAT, NoticeKind.SILENCE, NoticeKind.SILENCE_REPORT)


def void_wait_notices(session: Session, g: Game, ply: int, why: str) -> list[list[str]]:
    """Set aside the notices of the waits at ``ply`` plies and later, which moves now
    void ended (art. 20): the new waits are notified afresh.

    Each notice stays in the ledger, its key marked ``void by`` ``why``; returns
    the kinds and keys it had.
    """
    return decisions.void_notices(session, g, WAIT_NOTICES, ply, why)


def has_notice(g: Game, player: Player | None, kind: NoticeKind, key: str) -> bool:
    session = Session.object_session(g)
    assert session is not None
    return (
        session.scalars(
            select(Notice.id).where(
                Notice.game_id == g.id,
                Notice.player_id == player.id if player else Notice.player_id.is_(None),
                Notice.kind == kind,
                Notice.key == key,
            )
        ).first()
        is not None
    )


def claim_against(
    session: Session,
    g: Game,
    kind: ClaimKind,
    against: Player,
    due: datetime.datetime,
    now: datetime.datetime,
    details: dict[str, Any],
    *,
    decisive: bool,
) -> list[ev.Event]:
    """Open a claim against ``against``; with ``auto_forfeit`` it is decided at once."""

    p = profile_of(g.tournament)
    colour = "white" if against.id == g.white_id else "black"
    claim = decisions.open_claim(
        session, g, kind, now, {**details, "due": due.isoformat()}, against=colour
    )
    auto = decisive and p.auto_forfeit
    if auto:
        decisions.decide_claim(claim, ClaimState.CONFIRMED, now, ClaimDecider.AUTO)
    events: list[ev.Event] = [ev.ClaimOpened(g.id, claim.id, against.id, due, details)]
    if auto:
        events.append(end_game(g, claim_end(g, claim), now))
    return events


def silence(
    session: Session,
    g: Game,
    silent: Player,
    due: datetime.datetime,
    now: datetime.datetime,
    *,
    decisive: bool,
) -> list[ev.Event]:
    """Art. 31 (or the postal report to the TD): the claim packet goes to the TD."""

    p = profile_of(g.tournament)
    days = p.silence_days if decisive else p.silence_report_days
    return claim_against(
        session,
        g,
        ClaimKind.SILENCE,
        silent,
        due,
        now,
        {"days": days, "decisive": decisive, "loses": decisive, "ply": len(g.moves)},
        decisive=decisive,
    )


def overstep(
    session: Session,
    g: Game,
    player: Player,
    at: datetime.datetime,
    now: datetime.datetime,
    state: clock.ControlState,
) -> list[ev.Event]:
    """Rules.md 2.2: the bot finds the overstep itself and sends the packet."""

    p = profile_of(g.tournament)
    first = len(state.oversteps) < p.oversteps_to_lose
    used, limit, control_move = _exceeded(p, state)
    return claim_against(
        session,
        g,
        ClaimKind.OVERSTEP,
        player,
        at,
        now,
        {
            "used": used,
            "limit": limit,
            "control_move": control_move,
            "number": len(state.oversteps),
            "loses": state.lost,
            "decisive": state.lost,
            "first": first and not state.lost,
        },
        decisive=state.lost,
    )


def _exceeded(p: Profile, state: clock.ControlState) -> tuple[int, int, int]:
    """The days used, the limit and the control move of the player's last overstep.

    After a first overstep the state already shows the new count (0 days of
    30 by move 19); the packet names the control that was exceeded.
    """
    if not state.oversteps:
        return state.used_days, state.limit_days, state.next_control_move
    last = state.oversteps[-1]
    count_start = state.oversteps[-2].move_number + 1 if len(state.oversteps) > 1 else 1
    controls = max(1, last.limit // p.days_per_control)
    return last.used, last.limit, count_start - 1 + controls * p.moves_per_control


def overstep_on_move(
    session: Session, g: Game, mover: Player, sent: datetime.datetime, now: datetime.datetime
) -> list[ev.Event]:
    """Rules.md 2.2: a move whose days overstep the limit; the packet goes out once.

    The notice is keyed by the move number, like the sweep's for a silent
    player, so the overstep is reported once whichever finds it first.
    """
    color = color_of(g, mover)
    state = control_of(g, color)
    if not state.oversteps:
        return []
    last = state.oversteps[-1]
    own = sum(1 for m in g.moves if m.ply % 2 == (1 if color == chess.WHITE else 0))
    if last.move_number != own or last.awarded:
        return []
    key = due.overstep_key(own, state)
    if not record_notice(session, g, mover, NoticeKind.OVERSTEP, key, sent, now):
        return []
    return overstep(session, g, mover, sent, now, state)


#: The key of a withdrawn player's game's adjudication packet begins so (art. 48).
WITHDRAWN = "withdrawal-"

#: The calendar dates of games that have come (:func:`passed`).
Passed = list[tuple[Game, due.Deadline]]


def passed(games: Sequence[Game], now: datetime.datetime) -> Passed:
    """The calendar dates of ``games`` that have come by ``now``, game by game."""
    return [(g, item) for g in games for item in due.calendar(game_state(g)) if item.at <= now]


def leave_ends(work: Work, dates: Passed) -> list[str]:
    """Leave ends in unfinished games: each opponent is told the clocks run again.

    Tells ``work``; returns the kinds, for the report.
    """
    found: list[str] = []
    ends = [
        (g, item, player)
        for g, item in dates
        if item.leave is not None and (player := player_of(g, item.whom)) is not None
    ]
    ends.sort(key=lambda e: (e[2].id, e[1].leave.leave if e[1].leave else 0, e[0].number))
    for g, item, player in ends:
        lv = item.leave
        assert lv is not None
        if g.result is None and _calendar_notice(work, g, player, item):
            found.append("leave-end")
            work.tell(ev.LeaveEnded(g.id, player.id, lv.start, lv.end))
    return found


def adjudications(work: Work, dates: Passed) -> list[str]:
    """Withdrawn players' games (art. 48, 52 note 1: they went to the arbiter before the
    end), then the end of the event (art. 52-53: the call for adjudication claims, then
    the packet). Tells ``work``; returns the kinds, for the report."""
    session, now = work.session, work.now
    found: list[str] = []
    call, packet = due.DueKind.ADJUDICATION_CALL, due.DueKind.ADJUDICATION_PACKET
    withdrawn = [(g, d) for g, d in dates if d.kind is packet and d.key.startswith(WITHDRAWN)]
    ending = [
        (g, d) for g, d in dates if d.kind in (call, packet) and not d.key.startswith(WITHDRAWN)
    ]
    for g, item in [*withdrawn, *ending]:
        if g.result is not None or not _calendar_notice(work, g, None, item):
            continue
        found.append(item.kind.value)
        if item.kind is call:
            assert item.due is not None
            end = datetime.date.fromisoformat(item.key)  # the key is the event's last day
            work.tell(ev.AdjudicationCalled(g.id, end, item.due))
        else:
            work.tell(*settle_adjudication_claims(session, g, now))
    return found


def _calendar_notice(work: Work, g: Game, player: Player | None, item: due.Deadline) -> bool:
    """Whether the notice of a calendar date is new in the ledger (entered now)."""
    notice = record_notice(work.session, g, player, NoticeKind(item.kind), item.key, None, work.now)
    return notice is not None


def _announced(g: Game, item: due.Deadline) -> bool:
    """Whether the notice of ``item`` is in the ledger."""
    return has_notice(g, player_of(g, item.whom), NoticeKind(item.kind), item.key)
