"""The only composer of mail: events in, outbox rows out.

Whatever the desk, the sweep or the director's orders decided arrives here as
:mod:`~mailbot.rules.events`; the notifier decides who hears of each, in which
language and with which template, and queues the messages (in the caller's
transaction) with the contract's subject and headers. No other module queues
mail::

    notifier = Notifier(session, sender, now, origin=origin)
    notifier.tell(MovePlayed(game=g.id, mover=p.id, first_ply=15))

``origin`` is the message being answered, when there is one: answers to its
sender continue its thread and count against the sender's daily reply cap.
A message to a tournament director alone carries a single-use order key in
its ``Reply-To`` (:mod:`mailbot.mail.orderkeys`).
"""

from __future__ import annotations

import dataclasses
import datetime
import email.utils
from collections.abc import Callable, Iterable, Sequence
from typing import Any
from zoneinfo import ZoneInfo

import chess
from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from mailbot.compose.catalogue import say
from mailbot.compose.digests import director_digest, games_of, opponent_moves_since, words_of
from mailbot.compose.gamemail import game_headers, game_subject, game_summary
from mailbot.compose.notices import Rendered, Renderer
from mailbot.mail.intent import help_words
from mailbot.mail.orderkeys import KEY_DAYS, new_key, reply_to
from mailbot.rules import events as ev
from mailbot.rules import referee
from mailbot.rules.notation import Notation, write_line, write_move
from mailbot.rules.phrase import Phrase
from mailbot.store.engine import recent
from mailbot.store.models import (
    LATEST_MAIL,
    Claim,
    Game,
    HeldOrder,
    InboundMessage,
    OrderKey,
    Outbox,
    Player,
    Tournament,
)
from mailbot.store.outbox import UNDELIVERABLE, bounced_moves, queue, recipients_tournaments
from mailbot.store.queries import is_director
from mailbot.store.record import (
    MoveLine,
    board_of,
    color_name,
    color_of,
    control_of,
    export_pgn,
    language_for,
    local_date,
    move_line,
    notation_for,
    pgn_result,
    profile_of,
    tag_of,
    totals,
    write_pair_from,
)

__all__ = ["Notifier", "Origin", "one_index", "tell_director_undeliverable"]


@dataclasses.dataclass(frozen=True)
class Origin:
    """The message being answered: its sender, its thread, and the sender's reply cap."""

    address: str
    message_id: str | None = None
    references: tuple[str, ...] = ()
    inbound_id: int | None = None
    #: Whether the bot may still answer the sender today (asked once, when needed).
    may_answer: Callable[[], bool] = lambda: True


@dataclasses.dataclass
class _Draft:
    """A message composed but not queued yet: the mail of one ``tell`` to one recipient
    about several games is sent as one (see :meth:`Notifier.tell`)."""

    to: list[str]
    subject: str
    rendered: Rendered
    language: str
    event: str
    headers: dict[str, str]
    cc: Sequence[str] = ()
    game: Game | None = None
    #: Called with the row once it is queued.
    queued: Callable[[Outbox], None] | None = None

    @property
    def batchable(self) -> bool:
        """Mail about one game that the recipient does not answer in its own thread
        (a claim's or a held order's notice is decided by replying to it)."""
        return self.game is not None and not any(
            h in self.headers for h in ("X-Mailbot-Claim", "X-Mailbot-Held", UNDELIVERABLE)
        )


#: The messages with one template per kind.
_BY_KIND = frozenset({"notice", "leave", "adjudication"})


def one_index(tournaments: Sequence[Tournament]) -> str | None:
    """The index for the subject of a message about no single game: the
    tournament's, when the recipient plays (or directs) in exactly one."""
    indexes = {t.index for t in tournaments}
    return indexes.pop() if len(indexes) == 1 else None


def _orientation(g: Game, player: Player | None) -> chess.Color:
    return chess.BLACK if player is not None and player.id == g.black_id else chess.WHITE


class Notifier:
    """Turns events into queued mail (see the module)."""

    def __init__(
        self,
        session: Session,
        sender: str,
        now: datetime.datetime,
        *,
        origin: Origin | None = None,
        renderer: Renderer | None = None,
    ) -> None:
        self.session = session
        self.sender = sender
        self.now = now
        self.origin = origin
        self.renderer = renderer or Renderer()
        self._handlers: dict[type[ev.Event], Callable[[Any], None]] = {
            ev.MovePlayed: self._move_played,
            ev.MoveRejected: self._move_rejected,
            ev.IncompleteRepeated: self._incomplete,
            ev.RejectionsRepeated: self._rejections,
            ev.DrawOffered: self._draw_offered,
            ev.DrawDeclined: self._draw_declined,
            ev.GameEnded: self._game_ended,
            ev.Repeated: self._repeated,
            ev.ClaimOpened: self._claim_opened,
            ev.DrawClaimed: self._draw_claimed,
            ev.DirectorDecided: self._director_decided,
            ev.AdjudicationCalled: self._adjudication_called,
            ev.WithdrawalCalled: self._withdrawal_called,
            ev.AdjudicationPacket: self._adjudication_packet,
            ev.LeaveAnswered: self._leave_answered,
            ev.LeaveTaken: self._leave_taken,
            ev.LeaveEnded: self._leave_ended,
            ev.ExtraLeave: self._extra_leave,
            ev.DelayNoted: self._delay_noted,
            ev.ComplaintMade: self._complaint_made,
            ev.TablebaseClaimed: self._tablebase_claimed,
            ev.DigestDue: self._digest_due,
            ev.DirectorDigest: self._director_digest,
            ev.ClaimAnswered: self._claim_answered,
            ev.AdjudicationClaimed: self._adjudication_claimed,
            ev.Answer: self._answer,
            ev.StrangerWrote: self._stranger_wrote,
            ev.TournamentStarted: self._tournament_started,
            ev.PlayerChanged: self._player_changed,
            ev.PlayerReplaced: self._player_replaced,
            ev.OrdersDone: self._orders_done,
            ev.OrdersHeld: self._orders_held,
            ev.OrdersCancelled: self._orders_cancelled,
            ev.Quarantined: self._quarantined,
            ev.Undeliverable: self._undeliverable,
            ev.Bounced: self._bounced,
        }
        #: The rows queued by this notifier, in order.
        self.queued: list[Outbox] = []

    def tell(self, *events: ev.Event) -> None:
        """Queue the mail the events mean.

        What the events of one call say to one recipient about several games (a
        leave over eight games, a withdrawal, the end of the event) goes as one
        message with a part per game, not a message per game.
        """
        self._drafts = []
        for event in events:
            self._handlers[type(event)](event)
        drafts, self._drafts = self._drafts, []
        groups: dict[tuple[object, ...], list[_Draft]] = {}
        for d in drafts:
            key: tuple[object, ...] = (
                (tuple(d.to), tuple(d.cc), d.event, d.language) if d.batchable else (id(d),)
            )
            groups.setdefault(key, []).append(d)
        for group in groups.values():
            if len({id(d.game) for d in group}) > 1:
                self._queue(self._batch(group))
            else:
                for d in group:
                    self._queue(d)

    def _queue(self, d: _Draft) -> None:
        row = queue(
            self.session,
            sender=self.sender,
            to=d.to,
            cc=d.cc,
            subject=d.subject,
            text=d.rendered.text,
            html=d.rendered.html,
            event=d.event,
            now=self.now,
            headers=d.headers,
            game_id=d.game.id if d.game is not None else None,
            inbound_id=self._inbound(),
        )
        if self._to_director_alone(row):
            self._key(row)
        self.queued.append(row)
        if d.queued is not None:
            d.queued(row)

    def _to_director_alone(self, row: Outbox) -> bool:
        """Whether ``row`` goes to one recipient, a tournament director, and nobody else."""
        to, cc = row.to_addrs, row.cc_addrs
        return len(to) == 1 and not cc and is_director(self.session, to[0])

    def _key(self, row: Outbox) -> None:
        """A single-use order key for the mail ``row`` sends to a director alone: the
        director's reply goes to its ``Reply-To`` and carries the orders out once
        (:mod:`mailbot.mail.orderkeys`)."""
        key = new_key()
        row.headers = {**row.headers, "Reply-To": reply_to(self.sender, key)}
        self.session.add(
            OrderKey(
                key=key,
                director_email=row.to_addrs[0],
                outbox=row,
                created_at=self.now,
                lapses_at=self.now + datetime.timedelta(days=KEY_DAYS),
            )
        )

    def _batch(self, group: Sequence[_Draft]) -> _Draft:
        """One message for the drafts of ``group`` (one recipient, several games)."""
        first = group[0]
        language = first.language
        whats = {d.rendered.what for d in group}
        # the parts say what happened in each game when that differs
        parts = [(_heading(d, with_what=len(whats) > 1), d.rendered) for d in group]
        count = say(language, Phrase("batch.games", {"n": len(group)}))
        what = f"{whats.pop()} ({count})" if len(whats) == 1 else count
        tournaments = [d.game.tournament for d in group if d.game is not None]
        index = one_index(tournaments)
        # what every part says alike stays (the reply's thread, a due date); what
        # names one game (its tag, moves, times, result) goes with the parts
        headers = {
            k: v
            for k, v in first.headers.items()
            if k not in _PER_GAME and all(d.headers.get(k) == v for d in group)
        }
        return _Draft(
            to=first.to,
            cc=first.cc,
            subject=f"[{index}] {what}" if index else what,
            rendered=self.renderer.combine(language, what, parts),
            language=language,
            event=first.event,
            headers=headers,
        )

    _drafts: list[_Draft]

    def tell_all(self, events: Iterable[ev.Event]) -> None:
        self.tell(*events)

    # -- machinery -----------------------------------------------------------

    def _game(self, game_id: int) -> Game:
        g = self.session.get(Game, game_id)
        if g is None:
            raise LookupError(f"no game {game_id}")
        return g

    def _player(self, player_id: int) -> Player:
        p = self.session.get(Player, player_id)
        if p is None:
            raise LookupError(f"no player {player_id}")
        return p

    def _answerable(self, to: Sequence[str]) -> list[str]:
        """The recipients, without the origin's sender once the reply cap is reached."""
        origin = self.origin
        if origin is None or origin.address not in to or origin.may_answer():
            return list(to)
        return [a for a in to if a != origin.address]

    def _inbound(self) -> int | None:
        return self.origin.inbound_id if self.origin else None

    @staticmethod
    def _template(name: str, context: dict[str, Any]) -> str:
        """The template of a message: ``notice``, ``leave`` and ``adjudication`` have one
        per kind, ``templates/<language>/notice/<kind>.txt``."""
        if name in _BY_KIND:
            return f"{name}/{context['kind']}"
        return name

    def _game_mail(
        self,
        g: Game,
        *,
        template: str,
        language: str,
        context: dict[str, Any],
        to: Sequence[str],
        event: str,
        cc: Sequence[str] = (),
        board: chess.Board | None = None,
        orientation: chess.Color = chess.WHITE,
        extra: dict[str, str] | None = None,
        reply: bool = False,
    ) -> None:
        """Render one message about ``g``, to be queued at the end of :meth:`tell`.

        A ``reply`` answers the origin message (its thread); any other message
        continues the recipient's thread of the game.
        """
        to = self._answerable(to)
        if not to:
            return
        if "gender" not in context:
            # Bulgarian and Russian address a woman and a man in different words
            reader = next((p for p in (g.white, g.black) if p.email == to[0]), None)
            context = {**context, "gender": reader.gender if reader is not None else None}
        rendered = self.renderer.render(
            self._template(template, context),
            language,
            context,
            board=board,
            orientation=orientation,
        )
        origin = self.origin
        replying = reply and origin is not None and origin.message_id is not None
        headers = game_headers(g, event, reply=replying)
        headers.update(extra or {})
        if replying and origin is not None and origin.message_id is not None:
            refs = [f"<{r}>" for r in origin.references if r != origin.message_id][-10:]
            headers["In-Reply-To"] = f"<{origin.message_id}>"
            headers["References"] = " ".join([*refs, f"<{origin.message_id}>"])
        else:
            thread = _last_mail_to(self.session, g, to[0])
            if thread is not None:
                headers["In-Reply-To"] = f"<{thread}>"
                headers["References"] = f"<{thread}>"
        self._drafts.append(
            _Draft(
                to=list(to),
                cc=cc,
                subject=game_subject(g, rendered.what),
                rendered=rendered,
                language=language,
                event=event,
                headers=headers,
                game=g,
            )
        )

    def _mail(
        self,
        *,
        template: str,
        language: str,
        context: dict[str, Any],
        to: Sequence[str],
        event: str,
        index: str | None = None,
        reply: bool = False,
        extra: dict[str, str] | None = None,
        queued: Callable[[Outbox], None] | None = None,
    ) -> None:
        """Render one message about no single game (``[INDEX] what``); ``queued`` is
        called with its row once it is queued."""
        to = self._answerable(to)
        if not to:
            return
        rendered = self.renderer.render(self._template(template, context), language, context)
        origin = self.origin
        replying = reply and origin is not None
        headers: dict[str, str] = {
            "Auto-Submitted": "auto-replied" if replying else "auto-generated",
            "X-Mailbot-Event": event,
        }
        headers.update(extra or {})
        if replying and origin is not None and origin.message_id:
            refs = [f"<{r}>" for r in origin.references if r != origin.message_id]
            headers["In-Reply-To"] = f"<{origin.message_id}>"
            headers["References"] = " ".join([*refs[-10:], f"<{origin.message_id}>"])
        draft = _Draft(
            to=list(to),
            subject=f"[{index}] {rendered.what}" if index else rendered.what,
            rendered=rendered,
            language=language,
            event=event,
            headers=headers,
            queued=queued,
        )
        self._drafts.append(draft)

    def _director_notice(
        self,
        g: Game,
        kind: str,
        context: dict[str, Any],
        *,
        board: chess.Board | None = None,
        extra: dict[str, str] | None = None,
    ) -> None:
        """A ``notice`` about ``g`` to its director, in the tournament's language; the
        captains of the players' teams have a copy (art. 26)."""
        t = g.tournament
        self._game_mail(
            g,
            template="notice",
            language=t.language,
            context={"kind": kind, "recipient": t.director_name, "game": game_summary(g),
                     **context},
            to=[t.director_email],
            cc=captains_of(g),
            event="notice",
            board=board,
            extra=extra,
        )  # fmt: skip

    def _to_players(
        self,
        g: Game,
        template: str,
        event: str,
        context: Callable[[Player], dict[str, Any]],
        players: Sequence[Player] | None = None,
    ) -> None:
        """The same message to each player (both, by default), in each one's language."""
        for player in players if players is not None else (g.white, g.black):
            self._game_mail(
                g,
                template=template,
                language=language_for(player),
                context={"recipient": player.name, **context(player)},
                to=[player.email],
                event=event,
                orientation=_orientation(g, player),
            )

    # -- play ------------------------------------------------------------------

    def _move_played(self, e: ev.MovePlayed) -> None:
        g = self._game(e.game)
        mover = self._player(e.mover)
        color = color_of(g, mover)
        opponent = g.black if color == chess.WHITE else g.white
        tz = ZoneInfo(g.tournament.timezone)
        board = board_of(g, stack=1)
        last = len(g.moves)
        last_own = max(
            (p for p in range(e.first_ply, last + 1) if p not in e.automatic), default=last
        )
        written: dict[Notation, tuple[MoveLine, str]] = {}  # both players often share one
        for recipient, reply in ((opponent, False), (mover, True)):
            if recipient is opponent and opponent.digest:
                continue  # the move goes in the opponent's daily digest
            style = notation_for(recipient)
            if style not in written:
                written[style] = (
                    move_line(g, last, style, tz, first_ply=max(1, e.first_ply - 1)),
                    # the mover's own moves; what a conditional line answered is told apart
                    write_pair_from(g, e.first_ply, style, upto=last_own),
                )
            line, moved = written[style]
            context: dict[str, Any] = {
                "recipient": recipient.name,
                "opponent": (mover if recipient is opponent else opponent).name,
                "moved": moved,
                "line": line,
                "draw_offer": e.draw_offered,
                "control": None,
                "example": "",
            }
            if board.turn == color_of(g, recipient):
                state = control_of(g, board.turn)
                context["control"] = {
                    "used": state.used_days,
                    "limit": state.limit_days,
                    "control_move": state.next_control_move,
                    "left": state.days_left,
                }
            # a conditional line may have answered the move: then it is the mover's turn
            context["your_move"] = board.turn == color_of(g, recipient)
            if context["your_move"]:
                context["example"] = _example(board, recipient)
            automatic = ", ".join(write_pair_from(g, ply, style, upto=ply) for ply in e.automatic)
            if recipient is opponent:
                context["said"] = e.said
                context["answered"] = automatic
                template = event = "move"
            else:
                template = event = "move-accepted"
                context["automatic"] = automatic
                context["conditional"] = _line(board, e.conditional, style)
                context["reminders"] = [
                    referee.explain_reminder(r, language_for(mover)) for r in e.reminders
                ]
            self._game_mail(
                g,
                template=template,
                language=language_for(recipient),
                context=context,
                to=[recipient.email],
                event=event,
                reply=reply,
                board=board,
                orientation=color_of(g, recipient),
            )

    def _move_rejected(self, e: ev.MoveRejected) -> None:
        g = self._game(e.game)
        mover = self._player(e.mover)
        color = color_of(g, mover)
        tz = ZoneInfo(g.tournament.timezone)
        board = board_of(g, stack=1)
        style = notation_for(mover)
        judgement = e.judgement
        sums = totals(g)
        # art. 19: the legal moves of the piece the player tried to move; an unclear
        # move's reason already names the readings
        legal = (
            [write_move(board, m, style) for m in judgement.legal_alternatives]
            if judgement.verdict is referee.Verdict.IMPOSSIBLE
            else []
        )
        last = len(g.moves)
        self._game_mail(
            g,
            template="move-rejected",
            language=language_for(mover),
            context={
                "recipient": mover.name,
                "verdict": judgement.verdict.value,
                "reason": referee.explain(judgement, language_for(mover)),
                "written": judgement.written,
                "legal": legal,
                "penalty": e.penalty,
                "white_total": sums.white,
                "black_total": sums.black,
                "last_line": move_line(g, last, style, tz) if last else None,
            },
            to=[mover.email],
            event="move-rejected",
            reply=True,
            board=board,
            orientation=color,
            # the header names days added; a garbled message adds none
            extra={"X-Mailbot-Penalty": f"{color_name(color)}={e.penalty}"} if e.penalty else None,
        )

    def _incomplete(self, e: ev.IncompleteRepeated) -> None:
        g = self._game(e.game)
        details = {"player": self._player(e.player).name, "count": e.count}
        self._director_notice(g, "incomplete-reported", details)

    def _rejections(self, e: ev.RejectionsRepeated) -> None:
        g = self._game(e.game)
        player = self._player(e.player)
        details = {
            "player": player.name,
            "player_gender": player.gender,
            "color": color_name(color_of(g, player)),
            "count": e.count,
            "days": e.days,
        }
        self._director_notice(g, "rejections-reported", details)

    def _draw_offered(self, e: ev.DrawOffered) -> None:
        g = self._game(e.game)
        mover = self._player(e.by)
        opponent = g.black if mover.id == g.white_id else g.white
        for recipient, other, reply in ((opponent, mover, False), (mover, opponent, True)):
            self._game_mail(
                g,
                template="draw-offer",
                language=language_for(recipient),
                context={
                    "recipient": recipient.name,
                    "opponent": other.name,
                    "yours": recipient.id == mover.id,
                },
                to=[recipient.email],
                event="draw-offer",
                reply=reply,
            )

    def _draw_declined(self, e: ev.DrawDeclined) -> None:
        g = self._game(e.game)
        mover = self._player(e.by)
        opponent = g.black if mover.id == g.white_id else g.white
        self._notice(g, opponent, "draw-declined", {"opponent": mover.name}, reply=False)
        self._notice(g, mover, "you-declined", {"opponent": opponent.name}, reply=True)

    def _notice(
        self, g: Game, player: Player, kind: str, extra: dict[str, Any], *, reply: bool
    ) -> None:
        context: dict[str, Any] = {
            "kind": kind,
            "recipient": player.name,
            "game": game_summary(g, player),
        }
        context.update(extra)
        self._game_mail(
            g,
            template="notice",
            language=language_for(player),
            context=context,
            to=[player.email],
            event="notice",
            reply=reply,
        )

    def _game_ended(self, e: ev.GameEnded) -> None:
        """The PGN to both players and the TD (art. 51)."""
        g = self._game(e.game)
        t = g.tournament
        end = e.end
        board = board_of(g, stack=1)
        text = export_pgn(g, end)
        sums = totals(g)
        recipients: list[tuple[str, str, str, Player | None]] = [
            (g.white.email, g.white.name, language_for(g.white), g.white),
            (g.black.email, g.black.name, language_for(g.black), g.black),
            (t.director_email, t.director_name, t.language, None),
        ]
        tz = ZoneInfo(t.timezone)
        for address, name, language, player in recipients:
            answering = e.answering is not None and player is not None and player.id == e.answering
            style = notation_for(player) if player is not None else Notation(t.notation)
            # the move that ended the game is carried like every other (art. 8)
            line = (
                move_line(g, len(g.moves), style, tz, first_ply=max(1, e.first_ply - 1))
                if e.first_ply is not None and g.moves
                else None
            )
            self._game_mail(
                g,
                template="game-over",
                language=language,
                context={
                    "recipient": name,
                    "game": game_summary(g),
                    "result": pgn_result(g.result),
                    "termination": end.reason,
                    "ending": {
                        "code": end.termination.value,
                        "winner": None if end.winner is None else color_name(end.winner),
                    },
                    "white_total": sums.white,
                    "black_total": sums.black,
                    "pgn": text,
                    "line": line,
                },
                to=[address],
                event="game-over",
                board=board,
                orientation=_orientation(g, player),
                reply=answering,
            )

    # -- deadlines, claims, the director ---------------------------------------

    def _repeated(self, e: ev.Repeated) -> None:
        """Repeat the last move to the silent player; the TD gets a copy (art. 26 B) in the
        TD's own language and words."""
        g = self._game(e.game)
        silent = self._player(e.player)
        t = g.tournament
        tz = ZoneInfo(t.timezone)
        p = profile_of(t)
        opponent = g.black if silent.id == g.white_id else g.white
        due = e.due.astimezone(tz).date()
        days = (p.repeat_after_days or 0) + p.repeat_transit_days
        board = board_of(g, stack=1)
        extra = {"X-Mailbot-Due": due.isoformat()}
        self._game_mail(
            g,
            template="repeat",
            language=language_for(silent),
            context={
                "recipient": silent.name,
                "opponent": opponent.name,
                "line": move_line(g, len(g.moves), notation_for(silent), tz),
                "due": due,
                "days": days,
            },
            to=[silent.email],
            event="repeat",
            board=board,
            orientation=color_of(g, silent),
            extra=extra,
        )
        if not p.repeat_copies_director:
            return
        self._game_mail(
            g,
            template="repeat-copy",
            language=t.language,
            context={
                "recipient": t.director_name,
                "silent": silent.name,
                "silent_gender": silent.gender,
                "opponent": opponent.name,
                "game": game_summary(g),
                "line": move_line(g, len(g.moves), Notation(t.notation), tz),
                "due": due,
                "days": days,
            },
            to=[t.director_email],
            cc=captains_of(g),
            event="repeat",
            board=board,
            extra=extra,
        )

    def _claim_opened(self, e: ev.ClaimOpened) -> None:
        """The packet to the TD and a notice to both players."""
        g = self._game(e.game)
        claim = self.session.get(Claim, e.claim)
        assert claim is not None
        against = self._player(e.against)
        t = g.tournament
        tz = ZoneInfo(t.timezone)
        board = board_of(g, stack=1)
        kind = claim.kind
        due = e.due.astimezone(tz).date()
        base = {
            "kind": kind,
            "against": against.name,
            "against_gender": against.gender,
            "against_color": "white" if against.id == g.white_id else "black",
            "due": due,
            "game": game_summary(g),
            "claim": claim.id,
            "auto": claim.status != "open",
            "details": dict(e.details),
        }
        self._game_mail(
            g,
            template="claim",
            language=t.language,
            context={
                **base,
                "recipient": t.director_name,
                "audience": "director",
                **packet_context(g),
                "pgn": export_pgn(g),
            },
            to=[t.director_email],
            cc=captains_of(g),
            event=kind,
            board=board,
            extra={"X-Mailbot-Claim": str(claim.id), "X-Mailbot-Due": due.isoformat()},
        )
        for player in (g.white, g.black):
            audience = "you" if player.id == against.id else "opponent"
            self._game_mail(
                g,
                template="claim",
                language=language_for(player),
                context={**base, "recipient": player.name, "audience": audience},
                to=[player.email],
                event=kind,
                board=board,
                orientation=_orientation(g, player),
                extra={"X-Mailbot-Due": due.isoformat()},
            )

    def _draw_claimed(self, e: ev.DrawClaimed) -> None:
        g = self._game(e.game)
        details = {"player": self._player(e.player).name, "reason": e.reason, "fen": e.fen}
        self._director_notice(
            g,
            "draw-claim",
            details,
            board=board_of(g, stack=1),
            extra={"X-Mailbot-Claim": str(e.claim)},
        )

    def _tablebase_claimed(self, e: ev.TablebaseClaimed) -> None:
        """003 part 1 art. 11b: the claim, with the tables' verdict, to the director."""
        g = self._game(e.game)
        player = self._player(e.player)
        board = board_of(g, stack=1)
        v = e.verdict
        details = {
            "player": player.name,
            "colour": color_name(color_of(g, player)),
            "fen": board.fen(),
            "installed": v.installed,
            "pieces": v.pieces,
            "outcome": v.outcome.value if v.outcome is not None else None,
            "cursed": v.cursed,
            "dtz": v.dtz,
        }
        self._director_notice(
            g,
            "tablebase-claim",
            details,
            board=board,
            extra={"X-Mailbot-Claim": str(e.claim)},
        )

    def _director_decided(self, e: ev.DirectorDecided) -> None:
        """Both players hear what the director decided."""
        g = self._game(e.game)
        self._to_players(
            g, "notice", "notice",
            lambda p: {"kind": "director", "decision": _to_you(e.decision, g, p),
                       "game": game_summary(g, p)},
        )  # fmt: skip

    def _adjudication_called(self, e: ev.AdjudicationCalled) -> None:
        g = self._game(e.game)
        context = {"kind": "call", "end": e.end, "due": e.due}
        self._to_players(g, "adjudication", "notice", lambda p: context)

    def _withdrawal_called(self, e: ev.WithdrawalCalled) -> None:
        """Art. 48, 52 note 1: the game goes to the arbiter; both players send a claim."""
        g = self._game(e.game)
        context = {"kind": "withdrawal", "player": self._player(e.withdrawn).name, "due": e.due}
        self._to_players(g, "adjudication", "notice", lambda p: context)

    def _adjudication_packet(self, e: ev.AdjudicationPacket) -> None:
        g = self._game(e.game)
        claim = self.session.get(Claim, e.claim)
        assert claim is not None
        t = g.tournament
        self._game_mail(
            g,
            template="adjudication",
            language=t.language,
            context={
                "kind": "packet",
                "recipient": t.director_name,
                "white_claim": claim.details.get("white"),
                "black_claim": claim.details.get("black"),
                "white_analysis": claim.details.get("white_analysis", ""),
                "black_analysis": claim.details.get("black_analysis", ""),
                "pgn": export_pgn(g),
                "claim": claim.id,
                "end": (t.extended_to or t.end),
                "due": e.due,
            },
            to=[t.director_email],
            event="notice",
            board=board_of(g, stack=1),
            extra={"X-Mailbot-Claim": str(claim.id)},
        )

    # -- a player's requests ---------------------------------------------------

    def _reply_in_game(
        self, g: Game, player: Player, template: str, context: dict[str, Any], event: str
    ) -> None:
        self._game_mail(
            g,
            template=template,
            language=language_for(player),
            context={"recipient": player.name, **context},
            to=[player.email],
            event=event,
            orientation=color_of(g, player),
            reply=True,
        )

    def _leave_answered(self, e: ev.LeaveAnswered) -> None:
        g = self._game(e.game)
        context = {"kind": e.kind, "start": e.start, "end": e.end, **e.details}
        self._reply_in_game(g, self._player(e.player), "leave", context, "leave")

    def _leave_taken(self, e: ev.LeaveTaken) -> None:
        g = self._game(e.game)
        t = g.tournament
        player = self._player(e.player)
        opponent = g.black if player.id == g.white_id else g.white
        audience = {
            "opponent": (opponent.email, opponent.name, language_for(opponent)),
            "director": (t.director_email, t.director_name, t.language),
        }
        for who in e.audience:
            address, name, language = audience[who]
            self._game_mail(
                g,
                template="leave",
                language=language,
                context={"kind": who, "recipient": name, "player": player.name,
                         "player_gender": player.gender, "start": e.start, "end": e.end,
                         "stops_all": profile_of(t).leave_stops_opponent},
                to=[address],
                event="leave",
            )  # fmt: skip

    def _leave_ended(self, e: ev.LeaveEnded) -> None:
        g = self._game(e.game)
        player = self._player(e.player)
        opponent = g.black if player.id == g.white_id else g.white
        self._to_players(
            g, "leave", "leave",
            lambda p: {"kind": "ended", "player": player.name, "start": e.start,
                       "end": e.end, "yours": p.id == player.id},
            [player, opponent],
        )  # fmt: skip

    def _extra_leave(self, e: ev.ExtraLeave) -> None:
        g = self._game(e.game)
        player = self._player(e.player)
        self._to_players(
            g, "leave", "leave",
            lambda p: {"kind": "extra", "player": p.name, "days": e.days, "year": e.year,
                       "yours": True},
            [player],
        )  # fmt: skip

    def _complaint_made(self, e: ev.ComplaintMade) -> None:
        """Art. 20, 22: the complaint goes to the director; both players hear of it."""
        g = self._game(e.game)
        player = self._player(e.player)
        claim = self.session.get(Claim, e.claim)
        assert claim is not None
        days = profile_of(g.tournament).penalty_days
        said = str(claim.details.get("said", ""))
        details = {"player": player.name, "move": e.move, "days": days, "said": said}
        self._director_notice(
            g,
            "complaint",
            details,
            board=board_of(g, e.ply - 1, stack=False),
            extra={"X-Mailbot-Claim": str(e.claim)},
        )
        self._to_players(
            g, "notice", "notice",
            lambda p: {"kind": "complaint-sent", "player": player.name, "move": e.move,
                       "days": days, "yours": p.id == player.id,
                       "game": game_summary(g, p)},
        )  # fmt: skip

    def _delay_noted(self, e: ev.DelayNoted) -> None:
        g = self._game(e.game)
        player = self._player(e.player)
        opponent = g.black if player.id == g.white_id else g.white
        for recipient in (player, opponent):
            self._game_mail(
                g,
                template="notice",
                language=language_for(recipient),
                context={"kind": "delay", "recipient": recipient.name, "player": player.name,
                         "yours": recipient is player, "game": game_summary(g, recipient)},
                to=[recipient.email],
                event="notice",
                reply=recipient is player,
            )  # fmt: skip

    def _digest_due(self, e: ev.DigestDue) -> None:
        """A player's daily digest: every game in play, the opponents' moves since the
        last one (with their art. 8 lines and what the opponents wrote)."""
        players = [self._player(i) for i in e.players]
        if not players:
            return
        me = players[0]
        games: list[dict[str, Any]] = []
        for player in players:
            tz = ZoneInfo(player.tournament.timezone)
            style = notation_for(player)
            for g in games_of(self.session, player):
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
        if not any(x["line"] for x in games):
            return  # nothing new: no digest today
        # the games with news first, the player's move first among them
        games.sort(key=lambda x: (x["line"] is None, not x["your_move"]))
        tz = ZoneInfo(me.tournament.timezone)
        self._mail(
            template="digest",
            language=language_for(me),
            context={"recipient": me.name, "gender": me.gender, "games": games,
                     "today": self.now.astimezone(tz).date()},
            to=[me.email],
            event="digest",
            index=one_index([p.tournament for p in players]),
        )  # fmt: skip

    def _director_digest(self, e: ev.DirectorDigest) -> None:
        """The director's weekly view of the event: what needs watching."""
        t = self._tournaments([e.tournament])[0]
        self._mail(
            template="director-digest",
            language=t.language,
            context={"recipient": t.director_name, **director_digest(t, e.since, self.now)},
            to=[t.director_email],
            event="digest",
            index=t.index,
        )

    def _claim_answered(self, e: ev.ClaimAnswered) -> None:
        g = self._game(e.game)
        player = self._player(e.player)
        context = {"kind": "claim-answer", "status": e.status, "reason": e.reason,
                   "game": game_summary(g, player)}  # fmt: skip
        self._reply_in_game(g, player, "notice", context, "notice")

    def _adjudication_claimed(self, e: ev.AdjudicationClaimed) -> None:
        g = self._game(e.game)
        context = {"kind": "received", "result": e.result, "due": e.due}
        self._reply_in_game(g, self._player(e.player), "adjudication", context, "notice")

    # -- answers -----------------------------------------------------------------

    def _answer(self, e: ev.Answer) -> None:
        """An answer to the origin's sender: help, status, or why nothing was done."""
        origin = self.origin
        assert origin is not None, "an answer needs the message it answers"
        g = self._game(e.game) if e.game is not None else None
        player = self._player(e.player) if e.player is not None else None
        details = dict(e.details)
        language = str(
            details.pop("language", None)
            or (language_for(player) if player else (g.tournament.language if g else "en"))
        )
        index = details.pop("index", None)
        board: chess.Board | None = None
        kind = e.kind
        if kind is ev.AnswerKind.HELP:
            template, event = "help", "notice"
            context: dict[str, Any] = {"words": help_words(language), "game": None}
        elif kind is ev.AnswerKind.STATUS:
            template, event = "status", "status"
            games = [
                (self._game(i), self._player(p) if p is not None else None)
                for i, p in details.pop("games")
            ]
            bounced = bounced_moves(self.session, [x.id for x, _ in games])
            context = {
                "recipient": details.pop("recipient", player.name if player else ""),
                "games": [
                    {**game_summary(x, p), "bounced": _bounced_in(x, p, bounced.get(x.id, {}))}
                    for x, p in games
                ],
            }
            if g is not None:
                board = board_of(g, stack=1)
        else:
            template, event = "notice", "notice"
            context = {"kind": kind.value}
            if player is not None:
                context["recipient"] = player.name
                context["gender"] = player.gender
            if g is not None:
                context["game"] = game_summary(g, player)
            if "games" in details:
                games = [
                    (self._game(i), self._player(p) if p is not None else None)
                    for i, p in details.pop("games")
                ]
                summaries = [game_summary(x, p) for x, p in games]
                context["games"] = [s for s in summaries if s["result"] is None] or summaries
        context.update(details)
        if g is not None and index is None:
            self._game_mail(
                g,
                template=template,
                language=language,
                context=context,
                to=[origin.address],
                event=event,
                reply=True,
                board=board,
                orientation=_orientation(g, player),
            )
            return
        self._mail(
            template=template,
            language=language,
            context=context,
            to=[origin.address],
            event=event,
            index=index,
            reply=True,
        )

    def _stranger_wrote(self, e: ev.StrangerWrote) -> None:
        g = self._game(e.game)
        self._director_notice(g, "stranger-copy", {"sender": e.sender, "body": e.body})

    def _tournament_started(self, e: ev.TournamentStarted) -> None:
        """The ``start`` mail: to each player their games, the rules in force and how to
        write a move; to the TD what was created."""
        t = self._tournaments([e.tournament])[0]
        players = [p for p in t.players if p.replaced_by_id is None]
        games_of: dict[int, list[Game]] = {p.id: [] for p in players}
        for g in t.games:
            games_of.setdefault(g.white_id, []).append(g)
            games_of.setdefault(g.black_id, []).append(g)
        for player in players:
            self._start_mail(player, games_of[player.id])
        self._mail(
            template="start-director",
            language=t.language,
            context={"recipient": t.director_name, "name": t.name, "rules": rules_in_force(t),
                     "players": [{"key": p.key, "name": p.name, "email": p.email,
                                  "games": len(games_of[p.id])}
                                 for p in players],
                     "games": len(t.games), "rounds": len({g.round for g in t.games} - {None}),
                     "teams": [{"name": x.name, "captain": x.captain_name,
                                "players": [p.name for p in x.players]} for x in t.teams]},
            to=[t.director_email],
            event="start",
            index=t.index,
        )  # fmt: skip

    def _start_mail(
        self, player: Player, games: Sequence[Game], replaces: Player | None = None
    ) -> None:
        """A player's ``start`` mail: their games, the rules, how to write a move; for a
        newcomer, the games taken over as they stand."""
        t = player.tournament
        listed = [
            {
                "tag": tag_of(g),
                "colour": color_name(color_of(g, player)),
                "opponent": (g.black if g.white_id == player.id else g.white).name,
                "round": g.round,
                "plies": len(g.moves),
                "your_move": (len(g.moves) % 2 == 0) == (g.white_id == player.id),
            }
            for g in games
        ]
        language = language_for(player)
        example = write_move(chess.Board(), chess.Move.from_uci("g1f3"), notation_for(player))
        self._mail(
            template="start",
            language=language,
            context={"recipient": player.name, "gender": player.gender, "name": t.name,
                     "address": email.utils.parseaddr(self.sender)[1], "games": listed,
                     "rules": rules_in_force(t), "example": example,
                     "team": player.team.name if player.team else None,
                     "replaces": replaces.name if replaces else None,
                     "words": help_words(language)},
            to=[player.email],
            event="start",
            index=t.index,
        )  # fmt: skip

    def _player_changed(self, e: ev.PlayerChanged) -> None:
        """The player hears of the new address or name; the opponents of a new name."""
        player = self._player(e.player)
        t = player.tournament
        self._mail(
            template="notice",
            language=language_for(player),
            context={"kind": "roster-you", "change": e.change, "recipient": player.name,
                     "gender": player.gender, "name": t.name, "address": player.email,
                     "before": e.before},
            to=[player.email],
            event="notice",
            index=t.index,
        )  # fmt: skip
        if e.change != "name":
            return
        for g in t.games:
            if g.result is None and player in (g.white, g.black):
                opponent = g.black if g.white_id == player.id else g.white
                extra = {"before": e.before, "opponent": player.name}
                self._notice(g, opponent, "opponent-renamed", extra, reply=False)

    def _player_replaced(self, e: ev.PlayerReplaced) -> None:
        """003 part 1 art. 9: the newcomer gets the games as they stand, the opponents and
        the player replaced are told."""
        old, newcomer = self._player(e.player), self._player(e.newcomer)
        games = [self._game(i) for i in e.games]
        self._start_mail(newcomer, games, replaces=old)
        for g in games:
            opponent = g.black if g.white_id == newcomer.id else g.white
            extra = {"before": old.name, "opponent": newcomer.name, "plain": e.plain}
            self._notice(g, opponent, "opponent-replaced", extra, reply=False)
        t = old.tournament
        self._mail(
            template="notice",
            language=language_for(old),
            context={"kind": "replaced", "recipient": old.name, "gender": old.gender,
                     "name": t.name, "newcomer": newcomer.name, "games": len(games)},
            to=[old.email],
            event="notice",
            index=t.index,
        )  # fmt: skip

    def _tournaments(self, ids: Iterable[int]) -> list[Tournament]:
        return [t for t in (self.session.get(Tournament, i) for i in ids) if t is not None]

    def _orders_done(self, e: ev.OrdersDone) -> None:
        directed = self._tournaments(e.tournaments)
        t = directed[0]
        assert self.origin is not None
        self._mail(
            template="notice",
            language=t.language,
            context={"kind": "orders", "recipient": t.director_name, "lines": list(e.lines)},
            to=[self.origin.address],
            event="notice",
            reply=True,
            index=one_index(directed),
        )

    def _hold_notice(
        self,
        e: ev.OrdersHeld | ev.OrdersCancelled,
        kind: str,
        lapses: datetime.datetime | None,
        extra: dict[str, str] | None,
        queued: Callable[[Outbox], None] | None = None,
    ) -> None:
        directed = self._tournaments(e.tournaments)
        t = directed[0]
        tz = ZoneInfo(t.timezone)
        done = e.carried_out if isinstance(e, ev.OrdersHeld) else None
        self._mail(
            template="notice",
            language=t.language,
            context={
                "kind": kind,
                "recipient": t.director_name,
                "sender": e.sender,
                "received": f"{e.received.astimezone(tz):%d.%m.%Y %H:%M}",
                "orders": list(e.orders),
                "lapses": f"{lapses.astimezone(tz):%d.%m.%Y}" if lapses else "",
                # the orders may be a copy of some carried out before
                "done": f"{done.astimezone(tz):%d.%m.%Y}" if done else "",
                "same_text": isinstance(e, ev.OrdersHeld) and e.same_text,
            },
            to=[t.director_email],
            event="notice",
            index=one_index(directed),
            extra=extra,
            queued=queued,
        )

    def _orders_held(self, e: ev.OrdersHeld) -> None:
        held = self.session.get(HeldOrder, e.held)

        def challenged(row: Outbox) -> None:
            # the director's reply to this challenge confirms or rejects the orders
            if held is not None:
                self.session.flush()
                held.outbox_id = row.id

        extra = {"X-Mailbot-Held": str(e.held)}
        self._hold_notice(e, "order-held", e.lapses, extra, challenged)

    def _orders_cancelled(self, e: ev.OrdersCancelled) -> None:
        self._hold_notice(e, "order-cancelled", None, None)

    def _error_notice(
        self, t: Tournament, context: dict[str, Any], *, extra: dict[str, str] | None = None,
        game_id: int | None = None,
    ) -> None:  # fmt: skip
        """A ``notice`` about the bot's own trouble (event ``error``) to ``t``'s director."""
        rendered = self.renderer.render(self._template("notice", context), t.language, context)
        self._drafts.append(
            _Draft(
                to=[t.director_email],
                subject=f"[{t.index}] {rendered.what}",
                rendered=rendered,
                language=t.language,
                event="error",
                headers={
                    "Auto-Submitted": "auto-generated",
                    "X-Mailbot-Event": "error",
                    **(extra or {}),
                },
                game=self.session.get(Game, game_id) if game_id is not None else None,
            )
        )

    def _quarantined(self, e: ev.Quarantined) -> None:
        row = self.session.get(InboundMessage, e.inbound)
        assert row is not None
        told: set[str] = set()
        for t in self._tournaments(e.tournaments):
            if t.director_email in told:
                continue
            told.add(t.director_email)
            context = {
                "kind": "quarantine",
                "sender": row.from_addr or "?",
                "subject": row.subject or "",
                "received": row.internaldate.isoformat(timespec="minutes"),
                "attempts": row.attempts,
                "folder": "Quarantine",
                "error": row.last_error or "",
            }
            self._error_notice(t, context)

    def _undeliverable(self, e: ev.Undeliverable) -> None:
        row = self.session.get(Outbox, e.outbox)
        assert row is not None
        told: set[str] = set()
        for t in self._tournaments(e.tournaments):
            address = t.director_email
            if address in told or address in row.to_addrs or address in row.cc_addrs:
                continue
            told.add(address)
            context = {
                "kind": "undeliverable",
                "subject": row.subject,
                "recipients": ", ".join([*row.to_addrs, *row.cc_addrs]),
                "attempts": row.attempts,
                "error": row.last_error or "",
            }
            self._error_notice(t, context, extra={UNDELIVERABLE: str(row.id)}, game_id=row.game_id)

    # -- mail that came back -----------------------------------------------------

    def _bounced(self, e: ev.Bounced) -> None:
        """A message never arrived: the mover of a move line, the TD, and the
        opponent at any other address hear of it; of any other message, the TD.
        Nobody is told at an address that failed, and the clocks are the TD's to
        decide (art. 56)."""
        row = self.session.get(Outbox, e.outbox)
        assert row is not None
        # a copy that did arrive (the TD's of a repeat) does not keep its reader untold
        failed = {a for a in e.address.split(", ") if a}
        sent = row.sent_at or row.created_at
        marked = [self._player(p) for p in e.marked]
        context: dict[str, Any] = {
            "kind": "bounce-director",
            "address": e.address,
            "reason": e.reason,
            "subject": row.subject,
            "uci": str(row.headers.get("X-Mailbot-Move", "")),
            "marked": [{"name": p.name, "key": p.key, "address": p.email,
                        "bounces": p.bounces} for p in marked],
        }  # fmt: skip
        g = row.game
        ply = _ply_of(row)
        if g is not None and row.event in _MOVE_LINES and ply is not None:
            self._move_bounced(g, ply, sent, failed, context)
            return
        if g is not None:
            tournaments = [g.tournament]
        else:
            tournaments = self._tournaments(recipients_tournaments(self.session, row))
        for t in tournaments:
            if t.director_email in failed:
                continue
            tz = ZoneInfo(t.timezone)
            details = {**context, "what": "other", "sent": local_date(sent, tz)}
            if row.event == "start":
                details.update(what="start", start=t.start, games=self._games_at(t, failed))
            if g is not None:
                details["game"] = game_summary(g)
                self._bounce_to_director(g, details, failed)
                continue
            self._mail(
                template="notice",
                language=t.language,
                context={"recipient": t.director_name, **details},
                to=[t.director_email],
                event="bounce",
                index=t.index,
            )

    def _move_bounced(
        self, g: Game, ply: int, sent: datetime.datetime, failed: set[str], context: dict[str, Any]
    ) -> None:
        """A move line that did not reach the opponent, told to the mover, the TD and the
        opponent's other addresses, each with the move in their notation."""
        t = g.tournament
        tz = ZoneInfo(t.timezone)
        mover = g.white if ply % 2 else g.black
        opponent = g.black if mover is g.white else g.white
        common = {
            **context,
            "what": "move",
            "sent": local_date(sent, tz),
            "mover": mover.name,
            "mover_gender": mover.gender,
            "opponent": opponent.name,
            "colour": color_name(color_of(g, opponent)),
            "game": game_summary(g),
            "opponent_told": [a.email for a in opponent.addresses if a.email not in failed],
        }
        uci = str(context.get("uci", ""))
        self._bounce_to_director(
            g, {**common, "move": _move_of(g, ply, Notation(t.notation), uci)}, failed
        )
        for reader, kind, to in (
            (mover, "bounce-player", [mover.email]),
            (opponent, "bounce-opponent", [a.email for a in opponent.addresses]),
        ):
            to = [a for a in to if a not in failed]
            if not to:
                continue
            self._game_mail(
                g,
                template="notice",
                language=language_for(reader),
                context={**common, "kind": kind, "recipient": reader.name,
                         "gender": reader.gender, "game": game_summary(g, reader),
                         "move": _move_of(g, ply, notation_for(reader), uci)},
                to=to,
                event="bounce",
                orientation=_orientation(g, reader),
            )  # fmt: skip

    def _bounce_to_director(self, g: Game, context: dict[str, Any], failed: set[str]) -> None:
        t = g.tournament
        if t.director_email in failed:
            return
        self._game_mail(
            g,
            template="notice",
            language=t.language,
            context={**context, "recipient": t.director_name},
            to=[t.director_email],
            cc=captains_of(g),
            event="bounce",
        )

    def _games_at(self, t: Tournament, addresses: set[str]) -> list[dict[str, Any]]:
        """The games of ``t``'s players at ``addresses``, for a start mail that bounced."""
        games = []
        for g in t.games:
            for p in (g.white, g.black):
                if p.email in addresses:
                    colour = color_name(color_of(g, p))
                    games.append({"tag": tag_of(g), "player": p.name, "key": p.key,
                                  "colour": colour, "first": colour == "white"})  # fmt: skip
        return games


#: The events of mail that carries a move to the player who must answer it.
_MOVE_LINES = frozenset({"move", "repeat"})


def _bounced_in(
    g: Game, reader: Player | None, bounced: dict[tuple[int, str], datetime.datetime]
) -> list[dict[str, Any]]:
    """The moves of ``g`` whose mail bounced, as the ``status`` mail shows them."""
    style = notation_for(reader) if reader is not None else Notation(g.tournament.notation)
    tz = ZoneInfo(g.tournament.timezone)
    return [
        {"move": _move_of(g, ply, style, uci), "date": local_date(when, tz),
         "to": (g.black if ply % 2 else g.white).name}
        for (ply, uci), when in sorted(bounced.items())
        if ply <= len(g.moves) and g.moves[ply - 1].uci == uci
    ]  # fmt: skip


def _ply_of(row: Outbox) -> int | None:
    """The ply a move line carried (its ``X-Mailbot-Ply``)."""
    try:
        ply = int(str(row.headers.get("X-Mailbot-Ply", "")))
    except ValueError:
        return None
    return ply if ply > 0 else None


def _move_of(g: Game, ply: int, style: Notation, uci: str) -> str:
    """Ply ``ply`` of ``g`` with its number, in ``style``; in UCI (``uci``, the move the
    mail carried) when the game no longer has that move (voided since).

    The move is the one the mail carried only while the game still has it."""
    if ply <= len(g.moves) and (not uci or g.moves[ply - 1].uci == uci):
        return write_pair_from(g, ply, style, upto=ply)
    return f"{(ply + 1) // 2}{'.' if ply % 2 else '...'} {uci}"


#: Headers that name one game: a message about several has none of them.
_PER_GAME = frozenset(
    {"X-Mailbot-Game", "X-Mailbot-Ply", "X-Mailbot-Move", "X-Mailbot-Time", "X-Mailbot-Result",
     "X-Mailbot-Penalty", "X-Mailbot-Claim"}
)  # fmt: skip


def _heading(d: _Draft, *, with_what: bool) -> str:
    """A part's heading in a message about several games: the game (and what happened)."""
    g = d.game
    assert g is not None
    heading = f"[{tag_of(g)}] {g.white.name} – {g.black.name}"
    return f"{heading}: {d.rendered.what}" if with_what else heading


def _to_you(decision: Phrase, g: Game, player: Player) -> Phrase:
    """A decision about one colour, told to that colour's player in the second person."""
    colour = decision.details.get("colour")
    if colour is not None and colour == color_name(color_of(g, player)):
        return Phrase(f"{decision.code}-you", decision.details)
    return decision


def _line(board: chess.Board, uci: Sequence[str], style: Notation) -> str:
    """A conditional line, from the position on ``board``, as the reader writes moves."""
    try:
        return write_line(board, [chess.Move.from_uci(u) for u in uci], style)
    except (ValueError, chess.IllegalMoveError):
        return " ".join(uci)


def captains_of(g: Game) -> list[str]:
    """The addresses of the captains of the teams that play ``g`` (none outside team events)."""
    captains = (p.team.captain_email for p in (g.white, g.black) if p.team is not None)
    return list(dict.fromkeys(c for c in captains if c and c != g.tournament.director_email))


def rules_in_force(t: Tournament) -> dict[str, Any]:
    """What the ``start`` mail says of the rules: profile, time control, leave, dates."""
    p = profile_of(t)
    return {
        "profile": Phrase(f"profile.{t.profile}"),
        "days": p.days_per_control,
        "moves": p.moves_per_control,
        "leave": p.leave_days_per_year,
        "start": t.start,
        "end": t.end,
        "conditional": t.conditional_moves,
        "notation": t.notation,
    }


def _example(board: chess.Board, player: Player) -> str:
    moves = sorted(board.legal_moves, key=lambda m: m.uci())
    if not moves:
        return ""
    return write_move(board, moves[0], notation_for(player))


def _last_mail_to(session: Session, g: Game, address: str) -> str | None:
    """The Message-ID of the bot's latest message about ``g`` to ``address`` (to keep
    the thread).

    Only the addresses and Message-IDs of the latest rows are read, not their texts;
    the rows queued in this transaction first, from memory. The new rows need not
    be written to be read; changed ones (a director's new address) are.
    """
    deleted = session.deleted
    for row in reversed(recent(session).mail.get(g.id, ())):
        if address in row.to_addrs and row not in deleted:
            return row.message_id
    rows: Sequence[tuple[str, list[str]]]
    changed = any(isinstance(row, Outbox) for row in (*session.dirty, *deleted))
    if changed:
        session.flush()
    if not changed and g.id in recent(session).threads:  # read with the game
        rows = recent(session).threads[g.id]
    else:
        with session.no_autoflush:  # the new rows are those above
            rows = [(m, to) for m, to in session.execute(_LAST_MAIL, {"game": g.id})]
    return next((message_id for message_id, to in rows if address in to), None)


_LAST_MAIL = (
    select(Outbox.message_id, Outbox.to_addrs)
    .where(Outbox.game_id == bindparam("game"))
    .order_by(Outbox.id.desc())
    .limit(LATEST_MAIL)
)


def packet_context(g: Game) -> dict[str, Any]:
    """The claim packet of art. 36: every move (in the game's notation, in full) with its
    dates and days, the penalties, both totals."""
    tz = ZoneInfo(g.tournament.timezone)
    style = Notation(g.tournament.notation)
    replay = chess.Board()
    rows = []
    for m in g.moves:
        move = chess.Move.from_uci(m.uci)
        rows.append(
            {
                "ply": m.ply,
                "number": (m.ply + 1) // 2,
                "color": "white" if m.ply % 2 else "black",
                "move": write_move(replay, move, style),
                "received": m.received_counted_on,
                "sent": local_date(m.sent_at, tz),
                "days": m.days,
                "automatic": m.automatic,
            }
        )
        replay.push(move)
    sums = totals(g)
    penalties = [
        Phrase("packet.penalty", {"colour": p.color, "days": p.days, "ply": p.ply_at,
                                  "reason": Phrase(f"penalty-reason.{p.reason}")})
        for p in g.penalties
    ]  # fmt: skip
    return {
        "rows": rows,
        "white_total": sums.white,
        "black_total": sums.black,
        "penalties": penalties,
    }


def tell_director_undeliverable(
    sender: str, renderer: Renderer | None = None
) -> Callable[[Session, Outbox, datetime.datetime], None]:
    """What the outbox does when it gives a message up: the director hears of it once.

    The director of the message's game, or of the tournaments whose players it
    was for; never about mail that was for the director itself.
    """

    def tell(session: Session, row: Outbox, now: datetime.datetime) -> None:
        if row.game is not None:
            tournaments = [row.game.tournament_id]
        else:
            tournaments = recipients_tournaments(session, row)
        notifier = Notifier(session, sender, now, renderer=renderer)
        notifier.tell(ev.Undeliverable(row.id, tuple(tournaments)))

    return tell
