"""Every message in every language, and nothing of another language in it.

A tournament whose three players read English, Bulgarian and Russian (and
whose director reads the tournament's language, each in turn) gets every
event and every answer the notifier knows, rendered through the real
templates and catalogue into the outbox. Then every template and every phrase
must exist in all three languages and have been rendered in each, and each
message must be wholly in its reader's language: no Cyrillic in English mail,
no English word in Bulgarian or Russian mail (names, moves, tags and the PGN
aside), no Russian letters in Bulgarian mail.
"""

from __future__ import annotations

import datetime
import io
import re
from collections.abc import Iterator
from pathlib import Path

import chess.pgn
import pytest
import yaml
from deskbench import BOT, TD, Bench, at
from sqlalchemy import select

from mailbot.compose import catalogue
from mailbot.compose.catalogue import template_dir
from mailbot.compose.notifier import Notifier, Origin
from mailbot.mail.oauth import TokenRevoked
from mailbot.publish.evidencewords import Wording
from mailbot.rules import events as ev
from mailbot.rules import referee
from mailbot.rules.game import GameEnd, Termination
from mailbot.rules.languages import CODES
from mailbot.rules.pgn import words_of as pgn_words
from mailbot.rules.phrase import Phrase
from mailbot.rules.result import Result
from mailbot.rules.tablebase import TablebaseOutcome, TablebaseVerdict
from mailbot.shell.daemon import tell_token_refused
from mailbot.store.kinds import PenaltyReason
from mailbot.store.models import Claim, Game, HeldOrder, InboundMessage, Outbox, Player
from mailbot.store.outbox import queue

LANGUAGES = CODES
START_LIST = """
index: LX-1
name: Languages cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: {language}
notation: en
director: {{name: Tom Director, email: td@federation.example}}
players:
  - {{id: ann, name: Ann Able, email: ann@example.org, language: en}}
  - {{id: bob, name: Bob Bold, email: [bob@example.org, bob@home.example], language: bg}}
  - {{id: cid, name: Cid Cole, email: [cid@example.org, cid@home.example], language: ru}}
  - {{id: dan, name: Dan Dale, email: dan@example.org, language: bg, gender: f}}
games:
  - {{white: ann, black: bob}}
  - {{white: cid, black: ann}}
  - {{white: bob, black: cid}}
"""
#: Words that may stand in any language's mail: names, tags, the notation of moves.
ALLOWED = {"Languages", "cup", "Ann", "Able", "Bob", "Bold", "Cid", "Cole", "Tom", "Director",
           "LX", "INDEX", "ICCF", "FEN", "PGN", "SB", "UTC", "Dan", "Dale", "ID", "NEW", "Old",
           "ann", "bob", "cid", "dan", "Syzygy", "DTZ",
           # the word "pgn" is one in every language, and the chess programs' names
           "pgn", "Scid", "ChessBase", "Arena",
           # a protocol's name, and the command the operator types (a refused OAuth2 token)
           "IMAP", "DMARC", "mailbot", "oauth", "authorize", "imap",
           # the web service of chess programs (its word, the programs, the address kind)
           "Xfcc", "xfcc", "URL"}  # fmt: skip
TEMPLATES = template_dir()


def template_names(language: str) -> set[str]:
    folder = TEMPLATES / language
    return {
        str(p.relative_to(folder).with_suffix(""))
        for p in folder.rglob("*.txt")
        if not p.name.startswith("macros")
    }


def test_every_template_and_phrase_exists_in_every_language() -> None:
    assert template_names("en") == template_names("bg") == template_names("ru")
    assert catalogue.codes("en") == catalogue.codes("bg")
    # Russian writes some phrases once per colour, where the others need one
    russian = {re.sub(r"\.(white|black)$", "", c) for c in catalogue.codes("ru")}
    assert {re.sub(r"\.(white|black)$", "", c) for c in catalogue.codes("en")} == russian


def every_event(bench: Bench) -> list[tuple[ev.Event, bool]]:
    """One of each event, about the games of ``bench`` (and whether it answers a message)."""
    with bench.sessions() as session:
        games = list(session.scalars(select(Game).order_by(Game.number)))
        ann, bob, cid, dan = (p.id for p in session.scalars(select(Player).order_by(Player.id)))
        claim = session.scalars(select(Claim)).first()
        held = session.scalars(select(HeldOrder)).first()
        row = session.scalars(select(Outbox)).first()
        inbound = session.scalars(select(InboundMessage)).first()
    assert claim is not None and held is not None and row is not None and inbound is not None
    g1, g2, g3 = (g.id for g in games)
    bounced = _bounced_rows(bench, g2, g3)
    board_move = referee.judge("1... Ng8-e7", _board_after_e4(), referee.Notation.EN)
    day = datetime.date(2026, 3, 20)
    due = at(20)
    end = GameEnd("1-0", Termination.RESIGNATION, True, "resigned")
    ended = [_ending(t) for t in Termination]
    phrase = Phrase("order.penalty", {"days": 5, "colour": "black", "game": "LX-1/1"})
    error = Phrase("order.error.penalty-days")
    not_done = Phrase("order.not-done", {"verb": "penalty", "error": error})
    events: list[tuple[ev.Event, bool]] = [
        (ev.MovePlayed(g1, ann, 1, draw_offered=True), True),
        (ev.MoveRejected(g1, bob, board_move, 5), True),
        (ev.IncompleteRepeated(g1, ann, 2), False),
        (ev.RejectionsRepeated(g1, ann, 3, 15), False),
        (ev.DrawOffered(g1, ann), True),
        (ev.DrawDeclined(g1, bob), True),
        (ev.Repeated(g1, bob, due), False),
        *((ev.WarningDue(g1, bob, deadline, days, day), False)
          for deadline, days in (("control", 10), ("silence", 5), ("end", 30))),
        (ev.ClaimOpened(g1, claim.id, bob, due, {"days": 40, "decisive": True}), False),
        (ev.DrawClaimed(g1, claim.id, bob, Phrase("claim.tablebase", {"pieces": 5}), "8/8"),
         False),
        (ev.DirectorDecided(g1, Phrase("decision.penalty", {"days": 5, "colour": "white"})),
         False),
        (ev.ComplaintMade(g1, claim.id, ann, 1, "1. e2-e4"), False),
        (ev.TablebaseClaimed(g1, claim.id, ann,
                             TablebaseVerdict(True, 3, TablebaseOutcome.WHITE_WINS, dtz=9)),
         False),
        (ev.TablebaseClaimed(g1, claim.id, ann, TablebaseVerdict(False, 3)), False),
        (ev.DirectorDecided(g1, Phrase("decision.complaint-upheld",
                                       {"move": "1. e2-e4", "days": 5, "colour": "white"})),
         False),
        (ev.DirectorDecided(g1, Phrase("decision.complaint-groundless",
                                       {"move": "1. e2-e4", "days": 5, "colour": "black"})),
         False),
        (ev.ClaimAnswered(g3, bob, "win-refused", Phrase("claim.too-many-pieces",
                                                         {"pieces": 32, "limit": 7})), True),
        (ev.ClaimAnswered(g3, bob, "complaint-refused", Phrase("complaint.no-move",
                                                               {"number": 9})), True),
        (ev.AdjudicationCalled(g1, day, day), False),
        (ev.WithdrawalCalled(g1, cid, day), False),
        (ev.AdjudicationPacket(g1, claim.id, day), False),
        (ev.LeaveAnswered(g1, ann, "granted", day, day, {"days": 1, "year": 2026,
                                                          "remaining": 29}), True),
        (ev.LeaveAnswered(g1, bob, "refused", day, day,
                          {"reason": Phrase("leave.retroactive"), "remaining": None,
                           "year": 2026}), True),
        (ev.LeaveTaken(g2, cid, day, day), False),
        (ev.LeaveEnded(g2, cid, day, day), False),
        (ev.ExtraLeave(g3, bob, 5, 2026), False),
        (ev.DelayNoted(g3, cid), True),
        (ev.ClaimAnswered(g3, bob, "refused", Phrase("claim.no-draw", {"seen": 1, "moves": 0})),
         True),
        (ev.AdjudicationClaimed(g3, cid, "1-0", day), True),
        (ev.StrangerWrote(g2, "eve@example.net", "..."), False),
        (ev.OrdersDone((1,), (phrase, not_done)), True),
        (ev.OrdersHeld((1,), held.id, ("forfeit LX-1/1 black",), TD, due, due), False),
        # the same orders again, and orders through a reply address already used
        (ev.OrdersHeld((1,), held.id, ("forfeit LX-1/1 black",), TD, due, due, at(2), True),
         False),
        (ev.OrdersHeld((1,), held.id, ("forfeit LX-1/1 black",), TD, due, due, at(2)), False),
        (ev.OrdersCancelled((1,), ("forfeit LX-1/1 black",), TD, due), False),
        (ev.Quarantined(inbound.id, (1,)), False),
        (ev.Undeliverable(row.id, (1,)), False),
        # a move line to each language's opponent, a start mail, an answer: each came back
        *((ev.Bounced(r, "x@example.org", "550 5.1.1 User unknown", (bob,)), False)
          for r in bounced),
        (ev.DigestDue((bob,), None), False),
        (ev.DirectorDigest(1, at(1)), False),
        (ev.TournamentStarted(1), False),
        (ev.PlayerChanged(bob, "address", "old@example.org"), False),
        (ev.PlayerChanged(cid, "name", "Cid Old"), False),
        (ev.PlayerReplaced(bob, dan, (g1, g3), False), False),
        (ev.PlayerReplaced(cid, dan, (g2,), True), False),
    ]  # fmt: skip
    for kind in ev.AnswerKind:
        details: dict[str, object] = {"sender": "eve@example.net", "tag": "LX-1/9",
                                      "example": "e2-e4", "line": None, "opponent": "Bob Bold",
                                      "verbs": ["forfeit"], "received": "1.3.2026 10:00",
                                      "subject": "x", "on": True, "changed": True,
                                      "date": datetime.date(2026, 3, 2), "number": "12",
                                      "expected": "12. Ng1-f3",
                                      "written": "12. Nf3-e5", "url": "https://cc.x.example/xfcc",
                                      "username": "eve@x.net", "password": "Xy3k",
                                      "count": 20, "until": datetime.date(2026, 3, 3),
                                      "plays": True}  # fmt: skip
        if kind in (ev.AnswerKind.STATUS, ev.AnswerKind.WHICH_GAME, ev.AnswerKind.UNKNOWN_GAME):
            details["games"] = [(g1, ann), (g2, ann)]
        for player in (ann, bob, cid):
            events.append((ev.Answer(kind, game=g3, player=player, details=details), True))
    events.append((ev.GameEnded(g1, end, answering=ann), True))
    return [*((ev.GameEnded(g3, e, answering=bob), True) for e in ended), *events]


def _bounced_rows(bench: Bench, g2: int, g3: int) -> list[int]:
    """Sent rows that come back: Ann's move line to Bob; move lines of Cid (to Ann) and of
    Bob (to Cid), as the outbox had them; a start mail; an answer to a player."""
    with bench.sessions.begin() as session:
        Notifier(session, f"Federation <{BOT}>", at(1)).tell(ev.TournamentStarted(1))
        rows = [
            session.scalars(select(Outbox).where(Outbox.event == kind)).first()
            for kind in ("move", "start", "move-accepted")
        ]
        for g, to in ((g2, "ann@example.org"), (g3, "cid@example.org")):
            rows.append(
                queue(session, sender=BOT, to=[to], subject="x", text="1. e2-e4", html=None,
                      event="move", now=at(2), game_id=g,
                      headers={"X-Mailbot-Ply": "1", "X-Mailbot-Move": "e2e4"})
            )  # fmt: skip
        session.flush()
        for r in rows:
            assert r is not None
            r.status, r.sent_at = "sent", at(2)
        # Ann's move line to Bob bounced: the status mails say so
        assert rows[0] is not None
        rows[0].status, rows[0].bounced_at = "bounced", at(3)
        return [r.id for r in rows if r is not None]


def _ending(termination: Termination) -> GameEnd:
    """A game end of each kind, drawn where the kind allows it, else won by White."""
    if termination is Termination.ANNULLED:
        return GameEnd(Result.ANNULLED, termination, None, "")
    try:
        return GameEnd("1/2-1/2", termination, None, "")
    except ValueError:
        return GameEnd("1-0", termination, True, "")


def _board_after_e4():  # type: ignore[no-untyped-def]
    import chess

    board = chess.Board()
    board.push_uci("e2e4")
    return board


@pytest.fixture(params=LANGUAGES)
def world(request: pytest.FixtureRequest, store_url: str) -> Iterator[Bench]:
    bench = Bench(store_url, START_LIST.format(language=request.param))
    bench.send("ann@example.org", "1. e2-e4", at(2), subject="[LX-1/1] move")
    bench.send(TD, "forfeit LX-1/1 black", at(2, 10))  # held for confirmation
    with bench.sessions.begin() as session:
        finished = session.scalars(select(Game).where(Game.number == 3)).one()
        finished.result = "1-0"
        g = session.scalars(select(Game).where(Game.number == 1)).one()
        g.claims.append(
            Claim(kind="silence", by_color=None, against="black", opened_at=at(3),
                  status="open", details={"days": 40, "decisive": True})
        )  # fmt: skip
    try:
        yield bench
    finally:
        bench.close()


def language_of(bench: Bench, address: str, tournament_language: str) -> str:
    return {
        "ann@example.org": "en",
        "bob@example.org": "bg",
        "cid@example.org": "ru",
        "dan@example.org": "bg",
        "bob@home.example": "bg",
        "cid@home.example": "ru",
    }.get(address, tournament_language)


_RE_PGN = re.compile(r"\[Event .*", re.DOTALL)
#: Positions, addresses, and what the reader wrote (quoted back): not the bot's words.
_RE_FEN = re.compile(r'„[^“]*“|«[^»]*»|"[^"]*"|“[^”]*”|\S*/\S*|\S*@\S*|\S*[a-h][1-8]\S*')
_RE_WORD = re.compile(r"[A-Za-z]{3,}")
_RE_CYRILLIC = re.compile(r"[А-Яа-яЁё]")


def foreign(text: str, language: str) -> list[str]:
    """What in ``text`` is not of ``language``."""
    text = _RE_FEN.sub(" ", _RE_PGN.sub(" ", text))
    if language == "en":
        return _RE_CYRILLIC.findall(text)
    english = [w for w in _RE_WORD.findall(text) if w not in ALLOWED]
    russian = re.findall(r"\w*[ыэё]\w*", text) if language == "bg" else []
    return english + russian


def comments_of(row: Outbox) -> str:
    """The comments of the PGN files a row carries, without their ``[%ccsnt]`` commands
    (the tags and the commands are the standard's words)."""
    found = []
    for stored in row.attachments or ():
        game = chess.pgn.read_game(io.StringIO(stored["text"]))
        assert game is not None
        found += [re.sub(r"\[%[^\]]*\]", " ", node.comment) for node in game.mainline()]
    return "\n".join(found)


EMAILS = {1: "ann@example.org", 2: "bob@example.org", 3: "cid@example.org"}


def answered_by(event: ev.Event) -> str:
    """The address of whoever wrote the message an answering event answers."""
    for name in ("player", "mover", "by"):
        who = getattr(event, name, None)
        if isinstance(who, int):
            return EMAILS[who]
    if isinstance(event, ev.GameEnded) and event.answering is not None:
        return EMAILS[event.answering]
    return TD


def tell_every_event(world: Bench, renderer: object = None) -> None:
    for event, answering in every_event(world):
        with world.sessions.begin() as session:
            origin = Origin(answered_by(event), "m@x.example", (), None) if answering else None
            notifier = Notifier(session, f"Federation <{BOT}>", at(4), origin=origin)
            if renderer is not None:
                notifier.renderer = renderer  # type: ignore[assignment]
            notifier.tell(event)
    # the daemon's notice of a refused OAuth2 refresh token (rendered outside the notifier)
    with world.sessions.begin() as session:
        command = "run: mailbot -c /etc/mailbot.yaml oauth authorize imap"
        problem = TokenRevoked("imap", BOT, "the refresh token was refused", command, "k1")
        tell_token_refused(session, f"Federation <{BOT}>", problem, at(4), renderer=renderer)  # type: ignore[arg-type]
    # what happens to one reader in several games at once is one message
    with world.sessions.begin() as session:
        games = list(session.scalars(select(Game).order_by(Game.number)))
        ann = games[0].white
        day = datetime.date(2026, 3, 20)
        notifier = Notifier(session, f"Federation <{BOT}>", at(4))
        notifier.tell(*(ev.LeaveEnded(g.id, ann.id, day, day) for g in games[:2]))
        assert len([r for r in notifier.queued if ann.email in r.to_addrs]) == 1


@pytest.mark.slow
def test_every_message_is_wholly_in_its_readers_language(world: Bench) -> None:
    with world.sessions() as session:
        language = session.scalars(select(Game)).first().tournament.language  # type: ignore[union-attr]
    before = len(world.outbox())
    tell_every_event(world)
    rows = world.outbox()[before:]
    assert rows
    assert any(comments_of(r) for r in rows)  # the move mails' PGN files are read too
    problems = []
    for row in rows:
        for address in [*row.to_addrs, *row.cc_addrs]:
            reader = language_of(world, address, language)
            bad = foreign(f"{row.subject}\n{row.text_body}\n{comments_of(row)}", reader)
            if bad:
                problems.append(f"{reader} mail {row.subject!r} to {address}: {bad[:8]}")
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_every_template_is_rendered_by_some_event(world: Bench) -> None:
    """The events above reach every template (so the test above has read them all)."""
    seen: set[str] = set()
    from mailbot.compose.notices import Renderer

    class Spy(Renderer):
        def render(self, name, language, context, **kwargs):  # type: ignore[no-untyped-def]
            seen.add(name)
            return super().render(name, language, context, **kwargs)

    tell_every_event(world, Spy())
    assert template_names("en") - seen == set()


def test_the_catalogue_has_no_phrase_in_another_language() -> None:
    for language in LANGUAGES:
        for code in catalogue.codes(language):
            text = catalogue._table(language)[code]
            words = re.sub(r"\{[^}]*\}", " ", text)
            assert foreign(words, language) == [], (language, code, text)


def test_template_folders_hold_nothing_else() -> None:
    for language in LANGUAGES:
        names = {p.name for p in (TEMPLATES / language).iterdir()}
        assert "phrases.yaml" in names
    assert Path(TEMPLATES / "layout.html").exists()


@pytest.mark.parametrize("language", CODES)
def test_every_penalty_reason_has_its_words_wherever_a_penalty_is_shown(language: str) -> None:
    """A penalty's row keeps its reason as a code (:class:`PenaltyReason`); the PGN's
    comments, the published game page and the director's report name every code in
    each language, and the dispute file in Bulgarian and Russian (its English keeps
    the codes)."""
    labels = yaml.safe_load((template_dir() / "site" / "labels.yaml").read_text("utf-8"))
    for reason in PenaltyReason:
        assert reason.value in pgn_words(language).penalties, reason
        assert reason.value in labels[language]["penalty_reason"], reason
        assert catalogue.has(language, f"penalty-reason.{reason.code}"), reason
        if language != "en":
            assert Wording(language).code("reason", reason.value) != reason.value, reason
