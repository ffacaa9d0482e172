"""The deadline pass: repeats, silence, oversteps, leave ends, the end of the event.

Deadlines are data, not timers (design.md, invariant 6): the sweep computes
from the stored games and ``now`` what has fallen due, and records every
notice it sends in the ``notices`` ledger, keyed by what makes it unique (the
game, the player, the kind, the ply of the unanswered move). Running it twice,
or once after two weeks of downtime, sends each notice once; each notice
states the day it fell due, not the day it was sent.

>>> SweepReport({"repeat": 2}).line()
'sweep: repeat=2'
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
from collections import Counter
from typing import Any
from zoneinfo import ZoneInfo

import chess
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from mailbot import clock, digest, game
from mailbot import events as ev
from mailbot.gamemail import (
    claim_end,
    end_game,
    settle_adjudication_claims,
    withdrawal_adjudication,
)
from mailbot.notices import Renderer
from mailbot.notifier import Notifier
from mailbot.profile import Profile
from mailbot.record import (
    awarded_oversteps,
    color_name,
    color_of,
    control_of,
    history,
    profile_of,
    waiting,
)
from mailbot.store import Claim, Game, Notice, Player, Tournament
from mailbot.work import Work

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class SweepReport:
    """How many notices of each kind one sweep sent."""

    sent: dict[str, int]

    def line(self) -> str:
        if not self.sent:
            return "sweep: nothing due"
        return "sweep: " + " ".join(f"{k}={v}" for k, v in sorted(self.sent.items()))


def record_notice(
    session: Session,
    g: Game,
    player: Player | None,
    kind: str,
    key: str,
    due: datetime.datetime | None,
    now: datetime.datetime,
) -> Notice | None:
    """Enter a notice in the ledger; None if it was entered before."""
    found = session.scalars(
        select(Notice).where(
            Notice.game_id == g.id,
            Notice.player_id == player.id if player else Notice.player_id.is_(None),
            Notice.kind == kind,
            Notice.key == key,
        )
    ).first()
    if found is not None:
        return None
    notice = Notice(
        tournament_id=g.tournament_id,
        game_id=g.id,
        player_id=player.id if player else None,
        kind=kind,
        key=key,
        due_at=due,
        created_at=now,
    )
    session.add(notice)
    session.flush()
    return notice


def sweep(
    sessions: sessionmaker[Session],
    sender: str,
    now: datetime.datetime,
    renderer: Renderer | None = None,
) -> SweepReport:
    """One deadline pass over every unfinished game; one transaction per game."""
    renderer = renderer or Renderer()
    counts: Counter[str] = Counter()
    with sessions() as session:
        ids = session.scalars(select(Game.id).where(Game.result.is_(None)).order_by(Game.id)).all()
        tournaments = session.scalars(select(Tournament.id)).all()
    for game_id in ids:
        try:
            with sessions() as session, session.begin():
                g = session.get(Game, game_id)
                if g is None or g.result is not None:
                    continue
                work = Work(session, now)
                counts.update(_sweep_game(work, g))
                Notifier(session, sender, now, renderer=renderer).tell(*work.events)
        except IntegrityError:
            log.info("game %s swept concurrently; skipped", game_id)
    for tournament_id in tournaments:
        with sessions() as session, session.begin():
            t = session.get(Tournament, tournament_id)
            if t is None:
                continue
            work = Work(session, now)
            counts.update(_sweep_tournament(work, t))
            Notifier(session, sender, now, renderer=renderer).tell(*work.events)
    with sessions() as session, session.begin():
        work = Work(session, now)
        counts.update(_sweep_digests(work))
        Notifier(session, sender, now, renderer=renderer).tell(*work.events)
    return SweepReport(dict(counts))


def _sweep_digests(work: Work) -> list[str]:
    """The players' daily digests that are due (one per address and local day)."""
    found: list[str] = []
    for players, event in digest.due_digests(work.session, work.now):
        for p in players:
            p.digest_sent_at = work.now
        work.tell(event)
        found.append("digest")
    return found


def play_stops_at(g: Game) -> datetime.datetime:
    """The instant from which no clock runs in ``g``: it waits for the arbiter.

    That is the end of the event's last day (art. 52-53), or the moment a
    withdrawn player's game went to the arbiter (art. 48; 003 part 1 art. 9).
    A deadline that fell due before it is still reported, even by a late sweep.
    """
    t = g.tournament
    stops = [clock.day_start((t.extended_to or t.end) + datetime.timedelta(days=1),
                             ZoneInfo(t.timezone))]  # fmt: skip
    withdrawal = withdrawal_adjudication(g)
    if withdrawal is not None:
        stops.append(withdrawal.opened_at)
    return min(stops)


def _sweep_game(work: Work, g: Game) -> list[str]:
    """Repeats, oversteps and silence in one game, as far as they fell due in play.

    Tells ``work`` what fell due; returns the kinds, for the report.
    """
    session, now = work.session, work.now
    stop = play_stops_at(g)

    def fell_due(due: datetime.datetime) -> bool:
        return due <= now and due < stop

    ply = len(g.moves)
    w = waiting(g)
    silent, color, since, leaves, p, tz = w.player, w.color, w.since, w.leaves, w.profile, w.tz
    found: list[str] = []

    def add(kind: str, events: list[ev.Event]) -> None:
        found.append(kind)
        work.tell(*events)

    # art. 26: repeat the unanswered move, with a copy to the TD
    due = clock.repeat_due(p, since, leaves, tz)
    if (
        due is not None
        and fell_due(due)
        and ply > 0
        and record_notice(session, g, silent, "repeat", str(ply), due, now)
    ):
        add("repeat", [ev.Repeated(g.id, silent.id, due)])

    # art. 35-36 / rules.md 2.2: an overstep while the player is silent
    moves, penalties = history(g, color)
    awarded = awarded_oversteps(g, color)
    state = control_of(g, color)
    # 003 p1 6g, art. 32: a player answering the opponent's conditional line may
    # accept it and charge the time to the last move the line lets them play
    thinking = [*moves, *_accepted_moves(g, color, len(moves))]
    number = len(thinking) + 1
    at = clock.overstep_at(p, thinking, since, penalties, leaves, tz, awarded)
    if at is not None and fell_due(at) and not state.lost:
        running = clock.move_days(p, since, at, leaves, tz)
        if record_notice(session, g, silent, "overstep", f"move-{number}", at, now):
            reached = clock.control_state(p, thinking, penalties, running, awarded)
            add("overstep", overstep(session, g, silent, at, now, reached))
    elif at is None:
        # penalty days alone put the move being thought about over the limit
        reached = clock.control_state(p, thinking, penalties, 0, awarded)
        last = reached.oversteps[-1] if reached.oversteps else None
        if last is not None and last.move_number == number and not last.awarded:
            when = max(
                (x.created_at for x in g.penalties if x.color == color_name(color)), default=now
            )
            if fell_due(when) and record_notice(
                session, g, silent, "overstep", f"move-{number}", when, now
            ):
                add("overstep", overstep(session, g, silent, when, now, reached))

    # art. 31: silence without a delay notice
    protected = any(
        d.color == ("white" if color else "black") and d.ply_at == ply for d in g.delays
    )
    repeated = ply > 0 and _has_notice(g, silent, "repeat", str(ply))
    for kind, deadline in (
        ("silence", clock.silence_due(p, since, leaves, tz)),
        ("silence-report", clock.silence_report_due(p, since, leaves, tz)),
    ):
        if deadline is None or not fell_due(deadline) or protected:
            continue
        if kind == "silence" and p.silence_requires_repeat and not repeated:
            continue
        if record_notice(session, g, silent, kind, str(ply), deadline, now):
            add(kind, silence(session, g, silent, deadline, now, decisive=kind == "silence"))
    return found


def _accepted_moves(g: Game, color: chess.Color, played: int) -> list[clock.MoveTime]:
    """The silent player's moves the opponent's pending conditional line would play
    at no cost if accepted (each answered by the line), before the charged move."""
    line = g.pending_conditional or []
    if not line or g.pending_conditional_by == color_name(color):
        return []
    return [clock.MoveTime(played + 1 + i, 0) for i in range(len(line) // 2)]


def _has_notice(g: Game, player: Player, kind: str, key: str) -> bool:
    session = Session.object_session(g)
    assert session is not None
    return (
        session.scalars(
            select(Notice.id).where(
                Notice.game_id == g.id,
                Notice.player_id == player.id,
                Notice.kind == kind,
                Notice.key == key,
            )
        ).first()
        is not None
    )


def open_claim(
    session: Session,
    g: Game,
    kind: str,
    against: Player,
    due: datetime.datetime,
    now: datetime.datetime,
    details: dict[str, Any],
    *,
    decisive: bool,
) -> list[ev.Event]:
    """Open a claim against ``against``; with ``auto_forfeit`` it is decided at once."""

    p = profile_of(g.tournament)
    claim = Claim(
        kind=kind,
        by_color=None,
        against="white" if against.id == g.white_id else "black",
        opened_at=now,
        status="open",
        details={**details, "due": due.isoformat()},
    )
    g.claims.append(claim)
    session.flush()
    auto = decisive and p.auto_forfeit
    if auto:
        claim.status = "confirmed"
        claim.decided_at = now
        claim.decided_by = "auto"
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
    return open_claim(
        session,
        g,
        "silence",
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
    return open_claim(
        session,
        g,
        "overstep",
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


def _sweep_tournament(work: Work, t: Tournament) -> list[str]:
    """Leave ends (opponents told the clocks run again) and the end of the event."""

    session, now = work.session, work.now
    tz = ZoneInfo(t.timezone)
    today = now.astimezone(tz).date()
    found: list[str] = []

    def add(kind: str, events: list[ev.Event]) -> None:
        found.append(kind)
        work.tell(*events)

    for player in t.players:
        for lv in player.leaves:
            if lv.end >= today:
                continue
            games = [
                g for g in t.games if g.result is None and player.id in (g.white_id, g.black_id)
            ]
            for g in games:
                if record_notice(session, g, player, "leave-end", str(lv.id), None, now):
                    add("leave-end", [ev.LeaveEnded(g.id, player.id, lv.start, lv.end)])
    if t.director_digest:
        found.extend(_director_digest(work, t))
    for g in t.games:
        # art. 48, 52 note 1: a withdrawn player's game went to the arbiter before the end
        withdrawal = withdrawal_adjudication(g)
        if g.result is not None or withdrawal is None:
            continue
        opened = withdrawal.opened_at.astimezone(tz).date()
        if today > game.adjudication_claims_due(opened, profile_of(t)) and record_notice(
            session, g, None, "adjudication-packet", f"withdrawal-{withdrawal.id}", None, now
        ):
            add("adjudication-packet", settle_adjudication_claims(session, g, now))
    end = t.extended_to or t.end
    if today > end:
        claims_due = game.adjudication_claims_due(end, profile_of(t))
        for g in t.games:
            if g.result is not None or withdrawal_adjudication(g) is not None:
                continue
            if record_notice(session, g, None, "adjudication-call", end.isoformat(), None, now):
                add("adjudication-call", [ev.AdjudicationCalled(g.id, end, claims_due)])
            if today > claims_due and record_notice(
                session, g, None, "adjudication-packet", end.isoformat(), None, now
            ):
                add("adjudication-packet", settle_adjudication_claims(session, g, now))
    return found


def _director_digest(work: Work, t: Tournament) -> list[str]:
    """The director's weekly digest: once an ISO week, from the event's start to its end."""
    tz = ZoneInfo(t.timezone)
    today = work.now.astimezone(tz).date()
    if today < t.start or today > (t.extended_to or t.end) + datetime.timedelta(days=7):
        return []
    year, week, _ = today.isocalendar()
    kind = "director-digest"
    ledger = select(Notice).where(Notice.tournament_id == t.id, Notice.kind == kind)
    last = work.session.scalars(ledger.order_by(Notice.created_at.desc())).first()
    key = f"{t.index} {year}-W{week:02d}"  # the ledger is unique across tournaments
    if last is not None and last.key == key:
        return []
    since = last.created_at if last is not None else clock.day_start(t.start, tz)
    work.session.add(Notice(tournament_id=t.id, kind=kind, key=key, created_at=work.now))
    work.tell(ev.DirectorDigest(t.id, since))
    return [kind]


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
    if not record_notice(session, g, mover, "overstep", f"move-{own}", sent, now):
        return []
    return overstep(session, g, mover, sent, now, state)
