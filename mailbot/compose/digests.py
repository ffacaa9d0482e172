"""The digests: a player's daily mail of all their games, a director's weekly view.

A player who writes ``digest on`` gets no mail per opponent's move; once a
day the sweep sends one mail with every game in play, the opponents' moves
since the last digest (with their art. 8 lines and what the opponents wrote
beside them), the day's warnings before a deadline, and the days left.
Clocks do not change: a move counts as received on the day it reached the
bot, as without the digest.

A tournament with ``director_digest: true`` sends its director, once a
week, what needs watching: the games whose silence or overstep deadline
falls within the next seven days, the open claims, and who is on leave.

Everything here reads the store objects it is given and ``now``; the sweep
records what was sent.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import chess
from sqlalchemy import select
from sqlalchemy.orm import Session

from mailbot.compose.deadline_mail import warning_context
from mailbot.compose.drafts import Draft, one_index
from mailbot.compose.gamemail import director_reading, game_summary, pgn_file
from mailbot.compose.messages import mail
from mailbot.compose.notices import long_date
from mailbot.mail.attachments import Attachment
from mailbot.mail.intent import said
from mailbot.mail.letters import read_letter
from mailbot.rules import clock, due
from mailbot.rules import events as ev
from mailbot.rules.phrase import Phrase
from mailbot.store.kinds import MailEvent, NoticeKind
from mailbot.store.models import Claim, Game, Move, Notice, Player, Tournament
from mailbot.store.record import (
    color_name,
    color_of,
    game_state,
    language_for,
    local_date,
    move_line,
    notation_for,
    tag_of,
    waiting,
)

if TYPE_CHECKING:
    from mailbot.compose.notifier import Notifier

__all__ = [
    "NEAR",
    "digest_due",
    "director_digest",
    "director_digest_due",
    "due_digests",
    "games_of",
    "opponent_moves_since",
    "warnings_today",
    "words_of",
]

#: A deadline this close is worth the director's attention.
NEAR = datetime.timedelta(days=7)


def games_of(session: Session, player: Player) -> list[Game]:
    """``player``'s games, by number."""
    return list(
        session.scalars(
            select(Game)
            .where((Game.white_id == player.id) | (Game.black_id == player.id))
            .order_by(Game.number)
        ).all()
    )


def opponent_moves_since(g: Game, player: Player, since: datetime.datetime | None) -> list[Move]:
    """The opponent's moves in ``g`` that reached the bot after ``since`` (all, for None),
    with the player's own automatic replies among them (a conditional line)."""
    mine = 1 if player.id == g.white_id else 0
    news = [m for m in g.moves if since is None or m.sent_at > since]
    return news if any(m.ply % 2 != mine for m in news) else []


def words_of(move: Move) -> str:
    """What the player wrote beside ``move`` (``forward_messages``), or ""."""
    g = move.game
    if not g.tournament.forward_messages or move.inbound is None or move.automatic:
        return ""
    return said(read_letter(move.inbound.raw).body)


def due_digests(
    session: Session, now: datetime.datetime
) -> list[tuple[list[Player], ev.DigestDue]]:
    """The daily digests due at ``now``: one per address with ``digest on`` that had none
    on this (local) day yet. The caller records the sending on the rows."""
    rows = session.scalars(select(Player).where(Player.digest.is_(True)).order_by(Player.id))
    by_address: dict[str, list[Player]] = {}
    for p in rows:
        by_address.setdefault(p.email, []).append(p)
    due = []
    for players in by_address.values():
        tz = ZoneInfo(players[0].tournament.timezone)
        sent = [p.digest_sent_at for p in players if p.digest_sent_at is not None]
        last = min(sent) if sent else None
        if last is not None and local_date(last, tz) >= local_date(now, tz):
            continue
        due.append((players, ev.DigestDue(tuple(p.id for p in players), last)))
    return due


def director_digest(
    t: Tournament, since: datetime.datetime, now: datetime.datetime
) -> dict[str, Any]:
    """What the director's weekly digest of ``t`` says (the template's context)."""
    tz = ZoneInfo(t.timezone)
    today = local_date(now, tz)
    playing = [g for g in t.games if g.result is None]
    near = [item for g in playing for item in _near(g, now)]
    near.sort(key=lambda item: item["due"])
    claims = [
        {"tag": tag_of(g), "white": g.white.name, "black": g.black.name,
         "what": _claim(c, tz)}
        for g in t.games for c in g.claims if c.status == "open"
    ]  # fmt: skip
    leaves = [
        {"player": p.name, "start": lv.start, "end": lv.end}
        for p in t.players
        for lv in p.leaves
        if lv.start <= today <= lv.end
    ]
    return {
        "name": t.name,
        "since": local_date(since, tz),
        "today": today,
        "moves": sum(1 for g in t.games for m in g.moves if m.sent_at > since),
        "finished": sum(1 for g in t.games if g.ended_at is not None and g.ended_at > since),
        "playing": len(playing),
        "near": near,
        "claims": claims,
        "leaves": leaves,
    }


def _claim(c: Claim, tz: ZoneInfo) -> Phrase:
    details = {"id": c.id, "kind": Phrase(f"claim-kind.{c.kind}"),
               "opened": long_date(local_date(c.opened_at, tz))}  # fmt: skip
    if c.against is None:
        return Phrase("digest.claim", details)
    return Phrase("digest.claim-against", {**details, "colour": c.against})


#: The deadlines the director's digest names, by the kind of their notice.
_NEAR_KINDS = {due.DueKind.SILENCE: "silence", due.DueKind.SILENCE_REPORT: "silence",
               due.DueKind.OVERSTEP: "overstep"}  # fmt: skip


def _near(g: Game, now: datetime.datetime) -> Sequence[dict[str, Any]]:
    """The deadlines of ``g``'s player to move that fall within :data:`NEAR` of ``now``:
    those the sweep will send (:func:`mailbot.rules.due.schedule`), no other."""
    w = waiting(g)
    silent, color, since, tz = w.player, w.color, w.since, w.tz
    if since > now:
        return []
    base = {"tag": tag_of(g), "white": g.white.name, "black": g.black.name}
    out = []
    for d in due.schedule(game_state(g)):
        kind = _NEAR_KINDS.get(d.kind)
        if kind is None or not d.foreseen or not now < d.at <= now + NEAR:
            continue
        days = (local_date(now, tz) - local_date(since, tz)).days
        what = Phrase(
            f"digest.near-{kind}",
            {"player": silent.name, "days": days, "due": long_date(local_date(d.at, tz)),
             "colour": "white" if color == chess.WHITE else "black"},
        )  # fmt: skip
        out.append({**base, "what": what, "due": d.at})
    return out


def digest_due(n: Notifier, e: ev.DigestDue) -> None:
    """A player's daily digest: every game in play, the opponents' moves since the
    last one (with their art. 8 lines and what the opponents wrote)."""
    players = [n.player(i) for i in e.players]
    if not players:
        return
    me = players[0]
    games: list[dict[str, Any]] = []
    files: list[Attachment] = []  # the PGN of each game that moved
    for player in players:
        tz = ZoneInfo(player.tournament.timezone)
        style = notation_for(player)
        for g in games_of(n.session, player):
            news = opponent_moves_since(g, player, e.since)
            if g.result is not None and not news:
                continue
            opponent = g.black if player.id == g.white_id else g.white
            summary = game_summary(g, player)
            summary["opponent"] = opponent.name
            summary["opponent_gender"] = opponent.gender
            summary["line"] = (
                move_line(g, news[-1].ply, style, tz, first_ply=news[0].ply) if news else None
            )
            summary["draw_offer"] = g.draw_offer_by == color_name(color_of(g, opponent))
            summary["said"] = [w for w in (words_of(m) for m in news) if w]
            games.append(summary)
            if news:
                files.extend(pgn_file(g, player, n.sender))
    warned = warnings_today(n.session, players, n.now)
    if not any(x["line"] for x in games) and not warned:
        return  # nothing new: no digest today
    # the games with news first, the player's move first among them
    games.sort(key=lambda x: (x["line"] is None, not x["your_move"]))
    tz = ZoneInfo(me.tournament.timezone)
    context = {"recipient": me.name, "gender": me.gender, "games": games,
               "today": n.now.astimezone(tz).date()}  # fmt: skip
    index = one_index([p.tournament for p in players])
    if warned:
        _digest_with_warnings(n, me, context, warned, index, tuple(files))
        return
    mail(n,
        template="digest",
        language=language_for(me),
        context=context,
        to=[me.email],
        event=MailEvent.DIGEST,
        index=index,
        attachments=tuple(files),
    )  # fmt: skip


def warnings_today(
    session: Session, players: Sequence[Player], now: datetime.datetime
) -> list[tuple[Notice, Player]]:
    """The warnings entered for ``players`` on the (local) day of ``now``, which their
    digest carries (docs/contract.md, "Warnings before deadlines")."""
    found: list[tuple[Notice, Player]] = []
    for player in players:
        tz = ZoneInfo(player.tournament.timezone)
        today = clock.day_start(local_date(now, tz), tz)
        rows = session.scalars(
            select(Notice)
            .where(Notice.player_id == player.id, Notice.kind == NoticeKind.WARNING)
            .where(Notice.created_at >= today, Notice.created_at <= now)
            .order_by(Notice.id)
        )
        found.extend((row, player) for row in rows)
    return found


def _digest_with_warnings(
    n: Notifier,
    me: Player,
    context: dict[str, Any],
    warned: Sequence[tuple[Notice, Player]],
    index: str | None,
    files: tuple[Attachment, ...],
) -> None:
    """The digest, and after it each of the day's warnings under its game's tag; then the
    games' ``files``."""
    language = language_for(me)
    digest = n.renderer.render("digest", language, context)
    parts = [(digest.what, digest)]
    for notice, player in warned:
        assert notice.game_id is not None
        g = n.game(notice.game_id)
        deadline, days, due = notice.key.split("/")
        about = warning_context(g, player, deadline, int(days), datetime.date.fromisoformat(due))
        parts.append((f"{tag_of(g)} {g.white.name} – {g.black.name}",
                      n.renderer.render("warning", language, about)))  # fmt: skip
    rendered = n.renderer.combine(language, digest.what, parts)
    n.draft(
        Draft(
            to=[me.email],
            subject=f"[{index}] {digest.what}" if index else digest.what,
            rendered=rendered,
            language=language,
            event=MailEvent.DIGEST,
            headers={"Auto-Submitted": "auto-generated", "X-Mailbot-Event": "digest"},
            attachments=files,
        )
    )


def director_digest_due(n: Notifier, e: ev.DirectorDigest) -> None:
    """The director's weekly view of the event: what needs watching."""
    t = n.tournaments([e.tournament])[0]
    mail(
        n,
        template="director-digest",
        language=t.language,
        context={**director_reading(t), **director_digest(t, e.since, n.now)},
        to=[t.director_email],
        event=MailEvent.DIGEST,
        index=t.index,
    )
