"""``mailbot status`` is wholly in one language: the event's, or the one ``--language`` names.

A Bulgarian, a Russian and an English event are taken through what the status
lines say (a move played, a conditional move, a bounced move line, leave, a
penalty, open claims, silence and overstep deadlines ahead and past, an
overstepped clock, a finished, an annulled and an unfinished game, an extended
end, a big event summed up), and every line of the plain overview, of the
event's games and of each game is checked as tests/test_languages.py checks
mail: no English word in Bulgarian or Russian lines (names, moves, tags, dates
and the command to type aside), no Cyrillic in English ones. Every ``status``
phrase of the catalogue is written on the way (the few that need a state of
their own are named), so the check has read them all.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from pathlib import Path

import pytest
from deskbench import Bench, at
from sqlalchemy import select
from test_bounces import configured
from test_languages import START_LIST, foreign

from mailbot.cli import main
from mailbot.compose import catalogue
from mailbot.publish import report
from mailbot.rules.languages import CODES
from mailbot.store.kinds import PenaltyDecider, PenaltyReason
from mailbot.store.models import Claim, Game, Leave, Outbox, Tournament
from mailbot.store.penalties import impose_penalty

UTC = datetime.UTC
#: The command the lines tell the operator to type: not a word of any language.
COMMAND = {"mailbot", "status", "tournament", "import", "FILE"}
#: Status phrases that need a store of their own: an empty store, an event without
#: games, and the silence the director decides (a repeat's silence, art. 31).
ELSEWHERE = {
    "status.none",
    "status.count.none",
    "status.due.silence-report.past",
    "status.due.silence-report.ahead",
}


def _day(month: int, day: int) -> datetime.datetime:
    return datetime.datetime(2026, month, day, 9, tzinfo=UTC)


def _game(session: object, number: int) -> Game:
    return session.scalars(select(Game).where(Game.number == number)).one()  # type: ignore[attr-defined,no-any-return]


def _prepare(bench: Bench) -> None:
    """LX-1/1 Ann–Bob: 1. e4 (a conditional move whose line to Bob bounced), Bob on
    leave, penalties, and Bob's silence and overstep deadlines to come; LX-1/2
    Cid–Ann: no move yet, two open claims; LX-1/3 Bob–Cid: won by White on
    resignation."""
    bench.send("ann@example.org", "1. e2-e4", at(2), subject="[LX-1/1] move")
    with bench.sessions.begin() as session:
        g1, g3 = _game(session, 1), _game(session, 3)
        g1.moves[0].automatic = True
        row = session.scalars(
            select(Outbox).where(Outbox.event == "move", Outbox.game_id == g1.id)
        ).first()
        assert row is not None
        row.status, row.sent_at, row.bounced_at = "bounced", at(2), at(3)
        referee, td = PenaltyDecider.REFEREE, PenaltyDecider.TD
        impose_penalty(g1, "black", 5, PenaltyReason.IMPOSSIBLE, at(2), decided_by=referee)
        impose_penalty(g1, "white", 10, PenaltyReason.TD, at(2), decided_by=td)
        session.add(
            Leave(player_id=g1.black_id, start=datetime.date(2026, 3, 5),
                  end=datetime.date(2026, 3, 12), created_at=at(2))
        )  # fmt: skip
        g2 = _game(session, 2)
        g2.claims.append(
            Claim(kind="silence", by_color="black", against="white", opened_at=at(3),
                  status="open", details={})
        )  # fmt: skip
        g2.claims.append(
            Claim(kind="draw", by_color="black", opened_at=at(4), status="open", details={})
        )
        g3.result, g3.termination = "1-0", "resignation"


def _everything(bench: Bench, language: str | None, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every status text of the event at the instants that show each state."""
    texts: list[str] = []

    def all_of(now: datetime.datetime) -> None:
        with bench.sessions() as session:
            texts.append(report.overview(session, now, language))
            texts.append(report.tournament_status(session, "LX-1", now, language))
            for number in (1, 2, 3):
                texts.append(report.game_status(session, f"LX-1/{number}", now, language))

    # Bob's silence limit ahead, then past with his overstep ahead, then both past
    for now in (at(10), _day(4, 14), _day(4, 25), _day(5, 10)):
        all_of(now)
    with bench.sessions.begin() as session:
        session.scalars(select(Tournament)).one().extended_to = datetime.date(2027, 9, 30)
        _game(session, 3).termination = None
        g2 = _game(session, 2)
        for kind in ("overstep", "adjudication", "complaint", "tablebase"):
            g2.claims.append(
                Claim(kind=kind, by_color="black", against="white" if kind == "overstep" else None,
                      opened_at=at(5), status="open", details={})
            )  # fmt: skip
    all_of(at(10))
    with monkeypatch.context() as patched:
        patched.setattr(report, "OVERVIEW_GAMES", 1)
        all_of(at(10))
    with bench.sessions.begin() as session:
        _game(session, 1).result = "annulled"
        _game(session, 2).result = "0-1"
    all_of(at(10))
    return "\n".join(texts)


@pytest.fixture
def event(request: pytest.FixtureRequest, store_url: str) -> Iterator[Bench]:
    bench = Bench(store_url, START_LIST.format(language=request.param))
    _prepare(bench)
    try:
        yield bench
    finally:
        bench.close()


def _foreign(text: str, language: str) -> list[str]:
    return [w for w in foreign(text, language) if w not in COMMAND]


@pytest.mark.parametrize("event", CODES, indirect=True)
def test_status_is_wholly_in_the_events_language(
    event: Bench, monkeypatch: pytest.MonkeyPatch
) -> None:
    with event.sessions() as session:
        language = session.scalars(select(Tournament)).one().language
    said: set[str] = set()
    say = report.say

    def spy(language: str, phrase: catalogue.Phrase) -> str:
        said.add(phrase.code)
        said.update(v.code for v in phrase.details.values() if isinstance(v, catalogue.Phrase))
        return say(language, phrase)

    monkeypatch.setattr(report, "say", spy)
    text = _everything(event, None, monkeypatch)
    assert _foreign(text, language) == [], text
    status = {c for c in catalogue.codes("en") if c.startswith("status.")}
    assert status - ELSEWHERE - said == set()


@pytest.mark.parametrize("event", ["bg"], indirect=True)
def test_a_bulgarian_events_status_reads_as_a_bulgarian_expects(
    event: Bench, monkeypatch: pytest.MonkeyPatch
) -> None:
    with event.sessions() as session:
        table = report.tournament_status(session, "LX-1", at(10)).splitlines()
        game = report.game_status(session, "LX-1/1", at(10)).splitlines()
    assert table[0] == (
        "LX-1  Languages cup  (български правила, игра по електронна поща: 50 дни за 10 хода; "
        "от 2026-03-01 до 2027-06-30)"
    )
    assert table[1] == (
        "  LX-1/1  Ann Able – Bob Bold: полуход 1, на ход са черните (в отпуск до 2026-03-12), "
        "2 дни на този ход, остават 43 от 50 дни до ход 10; изразходвани дни: белите 11, "
        "черните 5"
    )
    assert table[2].endswith(
        "— претенция за мълчание срещу белите: чака решение от 2026-03-03; "
        "претенция за реми: чака решение от 2026-03-04"
    )
    finished = "  LX-1/3  Bob Bold – Cid Cole: полуход 0, завършена 1-0 (предаване);"
    assert table[3].startswith(finished)
    assert table[4] == (
        "3 партии: 1 завършена, 2 в игра (1 с ход на белите, 1 с ход на черните); "
        "1 изисква намеса на съдията"
    )
    assert game[1] == "на ход са черните, 2 дни на този ход; следваща контрола на ход 10: " + (
        "изразходвани 7 от 50 дни"
    )
    assert "полуход ход      получен    изпратен   дни" in game
    assert game[-3].endswith("(условен) (писмото с него се върна недоставено на 2026-03-03)")
    assert game[-2:] == [
        "наказание на черните: +5 дни (невъзможен ход) при полуход 1",
        "наказание на белите: +10 дни (решение на съдията) при полуход 1",
    ]


@pytest.mark.parametrize("event", ["ru"], indirect=True)
def test_a_russian_events_status_reads_as_a_russian_expects(
    event: Bench, monkeypatch: pytest.MonkeyPatch
) -> None:
    with event.sessions() as session:
        table = report.tournament_status(session, "LX-1", _day(4, 25)).splitlines()
        game = report.game_status(session, "LX-1/1", _day(4, 25)).splitlines()
    # Bob's 40 days of silence (his leave aside) fell due; his overstep comes next
    assert table[1] == (
        "  LX-1/1  Ann Able – Bob Bold: полуход 1, ход чёрных, 45 дней на этом ходу, осталось 0 "
        "из 50 дней до хода 10; израсходовано дней: белые 11, чёрные 5 — срок молчания чёрных "
        "истёк 2026-04-21; просрочка чёрных: срок истекает 2026-04-26"
    )
    assert table[-1] == (
        "3 партии: 1 закончена, 2 в игре (1 с ходом белых, 1 с ходом чёрных); "
        "2 требуют внимания судьи"
    )
    assert game[0] == "LX-1/1  Ann Able – Bob Bold  (болгарские правила, игра по электронной почте)"
    assert game[2] == "израсходовано дней: белые 11, чёрные 5 (включая штрафные)"
    assert game[-2:] == [
        "штраф чёрным: +5 дней (невозможный ход) на полуходе 1",
        "штраф белым: +10 дней (решение судьи) на полуходе 1",
    ]


def test_the_overview_gives_each_event_its_own_language(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = Bench(store_url, START_LIST.format(language="ru"))
    try:
        with bench.sessions.begin() as session:
            t = session.scalars(select(Tournament)).one()
            other = Tournament(**{
                c.key: getattr(t, c.key) for c in Tournament.__table__.columns if c.key != "id"
            })  # fmt: skip
            other.index, other.language = "LX-2", "bg"
            session.add(other)
        with bench.sessions() as session:
            lines = report.overview(session, at(10)).splitlines()
            english = report.overview(session, at(10), "en").splitlines()
    finally:
        bench.close()
    assert lines[0].startswith("LX-1  Languages cup  (болгарские правила")
    assert lines[1].startswith("  3 партии: 0 закончено, 3 в игре")
    assert lines[-2:] == [
        "LX-2  Languages cup  (български правила, игра по електронна поща, "
        "от 2026-03-01 до 2027-06-30)",
        "  няма партии",
    ]
    assert english[-1] == "  no games" and english[1].startswith("  3 games: 0 finished")


@pytest.mark.parametrize("event", ["bg"], indirect=True)
def test_the_command_line_writes_a_bulgarian_events_status_in_english_when_asked(
    event: Bench, tmp_path: Path, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(configured(tmp_path, store_url))
    now = ["--now", "2026-03-10T09:00"]
    outputs = {}
    for args in (["LX-1"], ["LX-1/1"], []):
        assert main(["-c", config, "status", *args, *now]) == 0
        native = capsys.readouterr().out
        assert main(["-c", config, "status", *args, "--language", "en", *now]) == 0
        english = capsys.readouterr().out
        assert _foreign(native, "bg") == [] and _foreign(english, "en") == [], (native, english)
        outputs[tuple(args)] = native, english
    native, english = outputs["LX-1",]
    assert "на ход са черните (в отпуск до 2026-03-12)" in native
    assert "Black to move (on leave until 2026-03-12), 2 days running" in english
    assert "1 needs the director" in english
    native, english = outputs["LX-1/1",]
    assert "penalty: black +5 days (impossible move) at ply 1" in english
    # a language the bot has no words for is refused in one line
    assert main(["-c", config, "status", "LX-1", "--language", "de"]) == 2
    assert "--language" in capsys.readouterr().err
