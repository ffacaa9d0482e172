"""Every sentence about a person agrees with that person's gender, and every number
with its noun.

The contexts of every message the notifier renders (one of each event, as in
tests/test_languages.py) are rendered again through every language's template
with the reader and every person the message speaks of (each ``*gender`` of the
context) a man, a woman, or of unknown gender. Where the gender is known,
Bulgarian and Russian mail has no hedge such as ``(а)`` or ``/а``, and mail about
a woman no masculine form (nor mail about a man a feminine one).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator, Mapping
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from deskbench import TD, Bench, at
from sqlalchemy import select
from test_languages import START_LIST, tell_every_event

from mailbot.compose.notices import Renderer
from mailbot.rules.clock import repeat_due
from mailbot.rules.languages import CODES
from mailbot.rules.leave import LeavePeriod
from mailbot.rules.profile import profile
from mailbot.store.models import Claim, Game

Captured = tuple[str, dict[str, Any]]

#: A hedge: both genders written at once.
HEDGE = re.compile(r"[а-яё]\((?:а|ая|ла|на|ка|ен|ена)\)|[а-яё]/[а-яё]", re.IGNORECASE)
#: Words about a woman in the masculine (``{name}``: the person the context names).
MASCULINE = {
    "ru": ["сделал ", "отклонил ", "выбыл ", "извещён", "извещен ", "записал ", "прислал ",
           "уведомлен ", "взял ", "противник {opponent}", "противник {against}",
           "противнику ({opponent})", "противника ({opponent})", "Уважаемый {recipient}"],
    "bg": ["е писал ", "Уважаеми {recipient}", "извещен ", "{opponent} е уведомен ",
           "{mover} е уведомен ", "{against} не е отговорил ", "{silent} не е отговорил ",
           "{player} вече е изпратил ", "{against} е използвал ",
           "противникът Ви {opponent}", "противникът Ви {against}", "противника Ви {opponent}"],
}  # fmt: skip
#: Words about a man in the feminine.
FEMININE = {
    "ru": ["сделала ", "отклонила ", "выбыла ", "извещена", "записала ", "прислала ",
           "уведомлена", "взяла ", "соперница", "Уважаемая {recipient}"],
    "bg": ["писала ", "Уважаема {recipient}", "уведомена", "отговорила ", "изпратила ",
           "използвала ", "противничката", "Нова противничка"],
}  # fmt: skip


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Captured]]:
    """The template and context of every message of one of each event."""
    url = f"sqlite:///{tmp_path_factory.mktemp('grammar') / 'mailbot.db'}"
    bench = Bench(url, START_LIST.format(language="en"))
    bench.send("ann@example.org", "1. e2-e4", at(2), subject="[LX-1/1] move")
    bench.send(TD, "forfeit LX-1/1 black", at(2, 10))
    with bench.sessions.begin() as session:
        session.scalars(select(Game).where(Game.number == 3)).one().result = "1-0"
        g = session.scalars(select(Game).where(Game.number == 1)).one()
        g.claims.append(
            Claim(kind="silence", by_color=None, against="black", opened_at=at(3),
                  status="open", details={"days": 40, "decisive": True})
        )  # fmt: skip
    seen: list[Captured] = []

    class Spy(Renderer):
        def render(self, name, language, context, **kwargs):  # type: ignore[no-untyped-def]
            seen.append((name, dict(context)))
            return super().render(name, language, context, **kwargs)

    try:
        tell_every_event(bench, Spy())
        yield seen
    finally:
        bench.close()


def with_gender(value: Any, gender: str | None) -> Any:
    """``value`` with every ``*gender`` in it (in nested mappings and lists too) ``gender``."""
    if isinstance(value, Mapping):
        return {
            k: gender if str(k).endswith("gender") else with_gender(v, gender)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [with_gender(v, gender) for v in value]
    return value


def has_gender(value: Any) -> bool:
    if isinstance(value, Mapping):
        return any(str(k).endswith("gender") or has_gender(v) for k, v in value.items())
    if isinstance(value, list):
        return any(has_gender(v) for v in value)
    return False


def wrong_words(text: str, language: str, gender: str, context: Mapping[str, Any]) -> list[str]:
    """The forms of ``text`` that do not agree with ``gender`` (and the hedges)."""
    words = (MASCULINE if gender == "f" else FEMININE).get(language, [])
    names = {k: v for k, v in context.items() if isinstance(v, str)}
    bad = HEDGE.findall(text) if language != "en" else []
    for word in words:
        try:
            filled = word.format(**names)
        except KeyError:
            continue  # the context names nobody of that role
        if filled in text:
            bad.append(filled)
    return bad


def test_every_sentence_agrees_with_the_gender_it_knows(captured: list[Captured]) -> None:
    renderer = Renderer()
    problems = []
    for name, context in captured:
        for language in CODES:
            for gender in ("m", "f", None):
                ctx = with_gender(context, gender)
                what, body = renderer.render_text(name, language, ctx)
                if gender is None or not has_gender(context):
                    continue  # the hedges stand where the gender is not known
                bad = wrong_words(f"{what}\n{body}", language, gender, ctx)
                if bad:
                    problems.append(f"{language} {name} ({gender}): {bad}")
    assert captured
    assert not problems, "\n".join(sorted(set(problems)))


def test_a_woman_reads_the_feminine(captured: list[Captured]) -> None:
    """The defects the issue named, each now in the feminine."""
    renderer = Renderer()
    texts: dict[tuple[str, str], str] = {}
    for name, context in captured:
        for language in ("bg", "ru"):
            what, body = renderer.render_text(name, language, with_gender(context, "f"))
            texts.setdefault((language, name), f"{what}\n{body}")
    assert "ваша соперница Ann Able сделала ход" in texts["ru", "move"]
    assert "отклонила ваше предложение ничьей" in texts["ru", "notice/draw-declined"]
    assert "извещена." in texts["ru", "notice/you-declined"]
    assert "Cid Cole выбыла из турнира" in texts["ru", "adjudication/withdrawal"]
    assert "Ann Able е писала ходове" in texts["bg", "notice/incomplete-reported"]
    assert texts["bg", "status"].split("\n")[1].startswith("Уважаема ")
    assert "ход вашей новой соперницы" in texts["ru", "notice/opponent-replaced"]
    assert texts["bg", "notice/opponent-renamed"].startswith("Името на противничката ви")


def test_numbers_agree_with_their_nouns(captured: list[Captured]) -> None:
    renderer = Renderer()
    context = next(c for name, c in captured if name == "repeat")
    subjects = {n: renderer.render_text("repeat", "ru", {**context, "days": n})[0]
                for n in (21, 22, 25)}  # fmt: skip
    assert "(нет ответа 21 день)" in subjects[21]
    assert "(нет ответа 22 дня)" in subjects[22]
    assert "(нет ответа 25 дней)" in subjects[25]
    control = {"used": 1, "limit": 50, "left": 49, "control_move": 10}
    move = next(c for name, c in captured if name == "move")
    _, body = renderer.render_text("move", "ru", {**move, "control": control})
    assert "использован 1 день из 50" in body
    assert "осталось 49 дней" in body
    control = {"used": 49, "limit": 50, "left": 1, "control_move": 10}
    _, body = renderer.render_text("move", "ru", {**move, "control": control})
    assert "использовано 49 дней из 50 (остался 1 день)" in body
    _, body = renderer.render_text("move", "bg", {**move, "control": control})
    assert "използвани 49 дни от 50 до 10-и ход (остава 1 ден)" in body


def test_a_repeat_says_its_days_as_counted_and_its_date_as_a_date(
    captured: list[Captured],
) -> None:
    """Leave in the middle: the move is repeated 17 calendar days after it was sent,
    and the mail says 14 days of thinking time, leave not counted, and the date."""
    sofia = ZoneInfo("Europe/Sofia")
    sent = datetime.datetime(2026, 3, 1, 10, tzinfo=sofia)
    leave = [LeavePeriod(datetime.date(2026, 3, 5), datetime.date(2026, 3, 7))]
    due = repeat_due(profile("bg-email"), sent, leave)
    assert due is not None and due.date() == datetime.date(2026, 3, 18)
    context = next(c for name, c in captured if name == "repeat")
    context = {**context, "days": 14, "due": due.date()}
    renderer = Renderer()
    said = {language: renderer.render_text("repeat", language, context)[1] for language in CODES}
    assert "within 14 days of thinking time (days of leave not counted)" in said["en"]
    assert "on 18.3.2026" in said["en"]
    assert "14 дней времени на обдумывание (дни отпуска не считаются)" in said["ru"]
    assert "14 дни време за размисъл (дните отпуск не се броят)" in said["bg"]
    for text in said.values():
        assert "14 days after" not in text and "через 14 дней" not in text


#: The greetings that name nobody, where the mail knows its reader's name.
NAMELESS = ("Dear director", "Уважаеми съдия", "Уважаемый судья", "Dear player")


def test_every_mail_greets_its_reader_by_name(captured: list[Captured]) -> None:
    """The director's notices (an undeliverable mail, a message set aside, a bounce,
    a stranger's copy, repeated rejections, incomplete notation, a draw claim) open
    with the director's name, as every other mail opens with its reader's (a stranger
    alone is greeted without one)."""
    renderer = Renderer()
    problems = []
    kinds = set()
    for name, context in captured:
        reader = context.get("recipient")
        if not isinstance(reader, str) or not reader or context.get("kind") == "unknown-sender":
            continue  # a stranger is greeted by no name: the name is the stranger's own say
        kinds.add(context.get("kind") or name)
        for language in CODES:
            _, body = renderer.render_text(name, language, context)
            opening = next(line for line in body.splitlines() if line.strip())
            if reader not in opening or opening.startswith(NAMELESS):
                problems.append(f"{language} {name} {context.get('kind')}: {opening!r}")
    assert {"undeliverable", "quarantine", "bounce-director", "stranger-copy",
            "rejections-reported", "incomplete-reported", "draw-claim"} <= kinds  # fmt: skip
    assert not problems, "\n".join(sorted(set(problems)))
