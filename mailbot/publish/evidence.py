"""The dispute file of one game: what a claim or an appeal needs (art. 35-36, 57-60).

:func:`write_evidence` writes into one folder every message the bot received
about the game, byte for byte as it reached the mailbox, and every message it
sent about it, composed as the outbox sends it, each an ``.eml`` file named so
that the names sort in time order::

    001-received-2026-03-03T09-00-00Z.eml        a player's move, arrived 09:00 UTC
    002-sent-2026-03-03T10-00-00Z.eml            the move mail to the opponent
    003-sent-2026-03-03T10-00-00Z.eml            the confirmation to the sender
    004-unsent-queued-2026-03-07T09-01-00Z.eml   still waiting in the outbox
    index.txt                                    each file: instant, direction, who, subject
    moves.txt                                    the move table, penalties, totals, claims

It only reads the store, and the same store gives the same bytes: the one
thing the bot chooses afresh each time it composes a message, the MIME
boundary, is derived here from the message's Message-ID.

>>> evidence_name(7, 3, "received", datetime.datetime(2026, 3, 4, 10, 12, tzinfo=datetime.UTC))
'007-received-2026-03-04T10-12-00Z.eml'

The dispute file of a game not begun, of an event in English:

>>> import tempfile
>>> from mailbot.store.models import Base
>>> from mailbot.store.engine import make_engine, session_factory
>>> from mailbot.store.tournaments import import_start_list
>>> from mailbot.store.startlist import parse_start_list
>>> engine = make_engine("sqlite://")
>>> Base.metadata.create_all(engine)
>>> start = parse_start_list('''
... index: EX-1
... name: Example cup
... profile: bg-email
... start: 2026-03-01
... end: 2026-12-31
... director: {name: Tom Director, email: td@federation.example}
... players:
...   - {id: ann, name: Ann Archer, email: ann@example.org}
...   - {id: bob, name: Bob Baker, email: bob@example.org}
... games: round-robin
... ''')
>>> february = datetime.datetime(2026, 2, 1, tzinfo=datetime.UTC)
>>> with session_factory(engine).begin() as session:
...     _ = import_start_list(session, start, february)
>>> with session_factory(engine)() as session, tempfile.TemporaryDirectory() as tmp:
...     folder = Path(tmp) / "EX-1-1"
...     written = write_evidence(session, "EX-1/1", folder, sender="bot@fed.example")
...     print([p.name for p in written])
...     print((folder / "index.txt").read_text().splitlines()[0])
['index.txt', 'moves.txt']
Dispute file of EX-1/1: Ann Archer – Bob Baker
"""

from __future__ import annotations

import dataclasses
import datetime
import email
import email.header
import email.message
import email.parser
import email.policy
import hashlib
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from zoneinfo import ZoneInfo

import chess
from sqlalchemy import select
from sqlalchemy.orm import Session

from mailbot.compose.catalogue import say_kept
from mailbot.mail.addresses import AddressError
from mailbot.mail.files import write_file
from mailbot.mail.wire import compose
from mailbot.publish.evidencewords import HEADINGS, Wording
from mailbot.publish.report import find_game
from mailbot.rules.errors import PublishError
from mailbot.store.models import Claim, Game, InboundMessage, Leave, LeaveExtra, Outbox, Player
from mailbot.store.outbox import outgoing
from mailbot.store.record import control_of, local_date, profile_of, tag_of, totals

__all__ = ["EvidenceFolderError", "evidence_name", "moves_table", "write_evidence"]

_OURS = re.compile(r"\d{3,}-(received|sent|unsent-queued)-[0-9T-]+Z\.eml\Z")
_BOUNDARY = re.compile(rb'boundary="([^"]+)"')


class EvidenceFolderError(PublishError, ValueError):
    """The folder cannot take the dispute file: it is a file, or it holds other things
    than a dispute file of this game."""


@dataclasses.dataclass(frozen=True)
class _Entry:
    """One message of the dispute file, before it has its number."""

    #: Sorts the messages: the instant (the queueing, for mail not sent), received first.
    key: tuple[datetime.datetime, int, int]
    direction: str  # received | sent | unsent-queued
    #: The arrival or sending instant; for mail not sent, when it was queued.
    instant: datetime.datetime
    data: bytes | None
    lines: tuple[str, ...]


def evidence_name(number: int, width: int, direction: str, instant: datetime.datetime) -> str:
    """The file name of the ``number``-th message: number, direction, UTC instant."""
    return f"{number:0{width}d}-{direction}-{_stamp(instant).replace(':', '-')}.eml"


def write_evidence(session: Session, tag: str, folder: Path, *, sender: str) -> list[Path]:
    """Write the dispute file of game ``tag`` (``INDEX/N``) into ``folder``; return the
    files written: the messages in time order, then ``index.txt`` and ``moves.txt``.

    ``sender`` is the bot's ``smtp.sender``: the From of the mail it sent, which the
    outbox does not store. The messages:

    - received: every stored message tied to the game, or carrying its
      ``[INDEX/N]`` tag in the subject, or that gave the game a move, a
      penalty, a claim or a delay notice, or either player a leave (a leave
      pauses the game's clock), or that the bot answered with mail about the
      game: the raw bytes as stored, named by the arrival in the bot's
      mailbox (IMAP INTERNALDATE);
    - sent: every outbox row of the game, and every message about several
      games (one reader, one moment: a leave, a digest) whose text names
      ``[INDEX/N]``: composed as :func:`mailbot.mail.wire.compose` composes it
      for a server without SMTPUTF8 (the form nearly every message takes; an
      address that cannot go without SMTPUTF8 is written as it goes with it),
      named by the instant the SMTP server accepted it. Mail still waiting
      or given up is ``unsent-queued``, named by when it was queued, and
      has no sending instant.

    The folder is created if missing. A TD runs this again as a game goes
    on: a folder that holds this game's dispute file is brought up to date
    (the bot's files replaced, anything the TD added there left alone); a
    file, or a folder with anything else in it, is refused with
    :class:`EvidenceFolderError`, so a mistyped path never mixes two games'
    files or overwrites another ``index.txt``. Nothing is written outside
    ``folder``, and files are never followed through a symbolic link.
    Raises :class:`mailbot.publish.report.UnknownGameError` for an unknown game.
    ``index.txt`` and ``moves.txt`` are in the event's language (English,
    Bulgarian, Russian: :mod:`mailbot.publish.evidencewords`); the example at the
    top of this module writes one.
    """
    g = find_game(session, tag)
    w = Wording(g.tournament.language)
    old = _prepare(folder, tag_of(g))
    rows = _outbox(session, g)
    entries = sorted(
        [*(_received(m, w) for m in _inbound(session, g, rows)), *_sent(rows, sender, w)],
        key=lambda e: e.key,
    )
    width = max(3, len(str(len(entries))))
    names = [
        evidence_name(n, width, e.direction, e.instant) for n, e in enumerate(entries, start=1)
    ]
    for stale in old - set(names):
        (folder / stale).unlink()
    written: list[Path] = []
    index = [*_preamble(g, w), ""]
    for name, entry in zip(names, entries, strict=True):
        index.append(name if entry.data is not None else f"{name} {w('not_written')}")
        index.extend(f"    {line}" for line in entry.lines)
        if entry.data is not None:
            written.append(write_file(folder / name, entry.data))
    written.append(write_file(folder / "index.txt", _text(index)))
    written.append(write_file(folder / "moves.txt", _text(moves_table(g))))
    return written


# ---------------------------------------------------------------------------
# The folder


def _prepare(folder: Path, tag: str) -> set[str]:
    """Create ``folder`` or check that it may take ``tag``'s dispute file; return the
    names of the messages an earlier run wrote there."""
    if folder.exists() and not folder.is_dir():
        raise EvidenceFolderError(f"{folder} is a file; give a folder for the dispute file")
    folder.mkdir(parents=True, exist_ok=True)
    present = {p.name for p in folder.iterdir()}
    if not present:
        return set()
    index = folder / "index.txt"
    first = ""
    if index.is_file() and not index.is_symlink():
        with index.open(encoding="utf-8", errors="replace") as handle:
            first = handle.readline()
    heading = next((h for h in HEADINGS if first.startswith(h)), None)
    if heading is None:
        raise EvidenceFolderError(
            f"{folder} is not empty and holds no dispute file; give an empty or a new folder"
        )
    if not first.startswith(f"{heading}{tag}:"):
        other = first[len(heading) :].partition(":")[0]
        raise EvidenceFolderError(
            f"{folder} holds the dispute file of {other}; give another folder for {tag}"
        )
    return {name for name in present if _OURS.match(name)}


def _text(lines: Iterable[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode("utf-8")


# ---------------------------------------------------------------------------
# The messages


def _inbound(session: Session, g: Game, rows: Sequence[Outbox]) -> list[InboundMessage]:
    """Every received message about ``g`` (see :func:`write_evidence`); ``rows`` are the
    outbox rows about it, whose messages answer some."""
    tag = f"[{tag_of(g)}]"
    ids: set[int] = set(
        session.scalars(select(InboundMessage.id).where(InboundMessage.game_id == g.id)).all()
    )
    ids.update(
        i
        for i, subject in session.execute(
            select(InboundMessage.id, InboundMessage.subject).where(
                InboundMessage.game_id.is_(None),
                InboundMessage.subject.contains(tag, autoescape=True),
            )
        ).all()
        if subject and tag in subject
    )
    players = (g.white, g.black)
    causes: list[int | None] = [
        *(m.inbound_id for m in g.moves),
        *(p.inbound_id for p in g.penalties),
        *(c.inbound_id for c in g.claims),
        *(d.inbound_id for d in g.delays),
        *(lv.inbound_id for p in players for lv in p.leaves),
        *session.scalars(
            select(LeaveExtra.inbound_id).where(LeaveExtra.player_id.in_([p.id for p in players]))
        ).all(),
        *(row.inbound_id for row in rows),
    ]
    ids.update(i for i in causes if i is not None)
    if not ids:
        return []
    return list(
        session.scalars(select(InboundMessage).where(InboundMessage.id.in_(sorted(ids)))).all()
    )


def _outbox(session: Session, g: Game) -> list[Outbox]:
    """The outbox rows about ``g``: its own, and those about several games naming it."""
    tag = f"[{tag_of(g)}]"
    own = session.scalars(select(Outbox).where(Outbox.game_id == g.id)).all()
    # a message about several games (one reader, one moment) has no game of its own;
    # its parts are headed by each game's tag
    shared = session.scalars(
        select(Outbox).where(
            Outbox.game_id.is_(None), Outbox.text_body.contains(tag, autoescape=True)
        )
    ).all()
    return [*own, *(row for row in shared if tag in row.text_body)]


def _received(m: InboundMessage, w: Wording) -> _Entry:
    headers = email.parser.BytesHeaderParser(policy=email.policy.compat32).parsebytes(m.raw)
    handled = w.code("status", m.status) + (f": {_one_line(_reason(m, w))}" if m.reason else "")
    recipients = w("to", who=_header(headers, "To"))
    if cc := _header(headers, "Cc"):
        recipients += w("cc", who=cc)
    subject = _one_line(m.subject) if m.subject is not None else _header(headers, "Subject")
    lines = (
        w("received", when=_stamp(m.internaldate)),
        w("from", who=m.from_addr or _header(headers, "From")),
        recipients,
        w("subject", subject=subject),
        w("received_id", id=_angled(m.message_id), handled=handled),
    )
    return _Entry((m.internaldate, 0, m.id), "received", m.internaldate, m.raw, lines)


def _reason(m: InboundMessage, w: Wording) -> str:
    """Why the bot did not act on ``m``, in the file's language (a row kept before
    reasons were phrases has its English)."""
    return say_kept(w.language, m.reason_phrase, m.reason)


def _sent(rows: Sequence[Outbox], sender: str, w: Wording) -> list[_Entry]:
    entries = []
    for row in rows:
        data, problem = _composed(row, sender)
        recipients = w("to", who=", ".join(row.to_addrs))
        if row.cc_addrs:
            recipients += w("cc", who=", ".join(row.cc_addrs))
        about = "" if row.game_id is not None else w("several")
        if row.status == "sent" and row.sent_at is not None:
            direction, instant = "sent", row.sent_at
            when = w("sent", when=_stamp(row.sent_at))
        else:
            direction, instant = "unsent-queued", row.created_at
            reason = w("last_error", error=_one_line(row.last_error)) if row.last_error else ""
            state = w("given_up") if row.status == "failed" else w("waiting")
            when = w(
                "unsent",
                state=state,
                attempts=row.attempts,
                reason=reason,
                when=_stamp(row.created_at),
            )
        lines = [
            when,
            w("from", who=sender),
            recipients,
            w("subject", subject=_one_line(row.subject)),
            w(
                "sent_id",
                id=f"<{row.message_id}>",
                event=w.code("mail_event", row.event),
                about=about,
            ),
        ]
        if problem:
            lines.append(w("cannot", problem=problem))
        entries.append(_Entry((instant, 1, row.id), direction, instant, data, tuple(lines)))
    return entries


def _composed(row: Outbox, sender: str) -> tuple[bytes | None, str]:
    """The message as the outbox sends it, its MIME boundaries derived from its Message-ID."""
    try:
        mail = outgoing(row)
        try:
            data = compose(mail, sender, smtputf8=False)
        except AddressError:
            data = compose(mail, sender, smtputf8=True)
    except (AddressError, ValueError) as exc:
        return None, _one_line(str(exc))
    for n, old in enumerate(dict.fromkeys(_BOUNDARY.findall(data))):
        digest = hashlib.sha256(f"{row.message_id}/{n}".encode()).hexdigest()
        data = data.replace(old, b"=" * 15 + b"%019d" % (int(digest, 16) % 10**19) + b"==")
    return data, ""


def _header(message: email.message.Message, name: str) -> str:
    values = message.get_all(name) or []
    out = []
    for value in values:
        try:
            out.append(str(email.header.make_header(email.header.decode_header(str(value)))))
        except (LookupError, UnicodeError, ValueError):
            out.append(str(value))
    return _one_line(", ".join(out))


def _angled(message_id: str | None) -> str:
    if not message_id:
        return "-"
    return message_id if message_id.startswith("<") else f"<{message_id}>"


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]


def _stamp(instant: datetime.datetime) -> str:
    return instant.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _preamble(g: Game, w: Wording) -> list[str]:
    t = g.tournament
    return [
        f"{w('heading')}{tag_of(g)}: {g.white.name} – {g.black.name}",
        w("event", name=t.name, profile=t.profile, director=t.director_name),
        "",
        *w.lines("intro"),
    ]


# ---------------------------------------------------------------------------
# The move table


def moves_table(g: Game) -> list[str]:
    """``moves.txt``: every move with its dates and days, the penalties, the totals and
    the time controls, the claims, the players' leave and delay notices, in the words of
    the event's language."""
    w = Wording(g.tournament.language)
    return [
        *_moves_heading(g, w),
        *_move_lines(g, w),
        "",
        w("penalties"),
        *_penalty_lines(g, w),
        "",
        *_clock_lines(g, w),
        "",
        w("claims"),
        *([f"  {_claim_line(c, w)}" for c in g.claims] or [f"  {w('none')}"]),
        "",
        w("leave"),
        *(
            [f"  {_leave_line(g, p, lv, w)}" for p in (g.white, g.black) for lv in p.leaves]
            or [f"  {w('none')}"]
        ),
        "",
        w("delays"),
        *(
            [
                "  "
                + w(
                    "delay",
                    colour=w.colour(d.color, "colour_lower"),
                    ply=d.ply_at,
                    when=_stamp(d.received_at),
                )
                for d in g.delays
            ]
            or [f"  {w('none')}"]
        ),
    ]


def _moves_heading(g: Game, w: Wording) -> list[str]:
    t = g.tournament
    p = profile_of(t)
    out = [
        w("moves_of", tag=tag_of(g), white=g.white.name, black=g.black.name),
        w(
            "control",
            name=t.name,
            profile=t.profile,
            days=w.days(p.days_per_control),
            moves=p.moves_per_control,
            start=t.start,
        ),
    ]
    if g.result:
        ended = f", {_stamp(g.ended_at)}" if g.ended_at else ""
        out.append(w("result", result=g.result, termination=g.termination, ended=ended))
    else:
        turn = "white" if len(g.moves) % 2 == 0 else "black"
        out.append(w("in_play", turn=w.colour(turn, "turn"), ply=len(g.moves)))
    return [*out, *w.lines("legend", tz=t.timezone), ""]


def _move_lines(g: Game, w: Wording) -> list[str]:
    tz = ZoneInfo(g.tournament.timezone)
    ply, move, received, sent, days, arrived, forwarded = w.lines("columns")
    out = [
        f"{ply:>4}  {move:<8}  {received:<10}  {sent:<10}  {days:>4}  {arrived:<20}  {forwarded}"
    ]
    for m in g.moves:
        san = m.san  # as it was played
        on = m.received_counted_on.isoformat() if m.received_counted_on else "-"
        onward = _stamp(m.forwarded_at) if m.forwarded_at else "-"
        flag = f"  {w('conditional')}" if m.automatic else ""
        out.append(
            f"{m.ply:>4}  {san:<8}  {on:<10}  {local_date(m.sent_at, tz).isoformat():<10}  "
            f"{m.days:>4}  {_stamp(m.sent_at):<20}  {onward:<20}{flag}".rstrip()
        )
    return out


def _penalty_lines(g: Game, w: Wording) -> list[str]:
    return [
        "  "
        + w(
            "penalty",
            colour=w.colour(pen.color, "colour_lower"),
            days=w.days(pen.days),
            reason=w.code("reason", pen.reason),
            ply=pen.ply_at,
            by=w.code("by", "td" if pen.decided_by == "td" else "referee"),
            when=_stamp(pen.created_at),
        )
        for pen in g.penalties
    ] or [f"  {w('none')}"]


def _clock_lines(g: Game, w: Wording) -> list[str]:
    sums = totals(g)
    out = [w("time_used", white=w.days(sums.white), black=w.days(sums.black))]
    for color in (chess.WHITE, chess.BLACK):
        state = control_of(g, color)
        steps = ", ".join(
            w(
                "overstep",
                move=o.move_number,
                used=o.used,
                limit=o.limit,
                awarded=w("awarded") if o.awarded else "",
            )
            for o in state.oversteps
        )
        line = w(
            "clock",
            colour=w.colour("white" if color == chess.WHITE else "black"),
            used=state.used_days,
            limit=state.limit_days,
            move=state.next_control_move,
            start=state.count_start,
        )
        out.append(line + w("oversteps", steps=steps) if steps else line)
    return out


def _claim_line(c: Claim, w: Wording) -> str:
    line = w.code("claim", c.kind)
    if c.by_color:
        line += w("claim_by", colour=w.colour(c.by_color, "colour_lower"))
    if c.against:
        line += w("claim_against", colour=w.colour(c.against, "colour_lower"))
    line += w("claim_opened", when=_stamp(c.opened_at), status=w.code("status", c.status))
    if c.decided_by:
        line += w("claim_decided_by", who=w.code("decider", c.decided_by))
    if c.decided_at:
        line += f" {_stamp(c.decided_at)}"
    return line


def _leave_line(g: Game, player: Player, lv: Leave, w: Wording) -> str:
    colour = w.colour("white" if player.id == g.white_id else "black")
    by = w.code("by", "td" if lv.granted_by == "td" else "player")
    line = w("leave_line", name=player.name, colour=colour, start=lv.start, end=lv.end, by=by)
    for c in lv.cancellations:
        if c.game_id == g.id:
            line += w("cancelled", date=c.from_date)
    return line
