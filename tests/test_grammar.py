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
from pathlib import Path
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
#: Words about a woman in the masculine (``{name}``: the person the context names;
#: «арбитр прислал», of the bot, stands in a mail to a woman director).
MASCULINE = {
    "ru": ["сделал ", "отклонил ", "выбыл ", "извещён", "извещен ", "записал ", "{player} прислал ",
           "уведомлен ", "взял ", "противник {opponent}", "противник {against}",
           "противнику ({opponent})", "противника ({opponent})", "Уважаемый {recipient}",
           "судья турнира решил ", "судья турнира изменил ", "судья турнира получил ",
           "судья турнира предоставил ", "Судья турнира получил ", "уведомлён",
           "судье турнира, который "],
    "bg": ["е писал ", "Уважаеми {recipient}", "извещен ", "{opponent} е уведомен ",
           "{mover} е уведомен ", "{against} не е отговорил ", "{silent} не е отговорил ",
           "{player} вече е изпратил ", "{against} е използвал ",
           "противникът Ви {opponent}", "противникът Ви {against}", "противника Ви {opponent}",
           "Съдията на турнира е уведомен ", "съдията на турнира, който "],
}  # fmt: skip
#: Words about a man in the feminine.
FEMININE = {
    "ru": ["сделала ", "отклонила ", "выбыла ", "извещена", "записала ", "прислала ",
           "уведомлена", "взяла ", "соперница", "Уважаемая {recipient}", "решила ",
           "изменила ", "получила ", "предоставила ", "которая решит"],
    "bg": ["писала ", "Уважаема {recipient}", "уведомена", "отговорила ", "изпратила ",
           "използвала ", "противничката", "Нова противничка", "която ще реши"],
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


@pytest.mark.slow
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
    assert texts["bg", "notice/opponent-renamed"].startswith("Името на противничката Ви")


#: Bulgarian's polite "you" in lower case: a letter writes it with a capital (Вие, Вас,
#: Ви, Вашият...), as every Bulgarian mail of the bot addresses its reader.
LOWER_POLITE_BG = re.compile(r"(?<![\w])(?:вие|вас|ви|ваш|ваша|ваше|ваши|вашия|вашият)(?![\w])")


def test_bulgarian_mail_writes_the_polite_you_with_a_capital(captured: list[Captured]) -> None:
    renderer = Renderer()
    lower = []
    for name, context in captured:
        what, body = renderer.render_text(name, "bg", context)
        lower += [f"{name}: {w}" for w in LOWER_POLITE_BG.findall(f"{what}\n{body}")]
    assert captured
    assert not lower, sorted(set(lower))


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


@pytest.mark.slow
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


#: Who a mail speaks of, where the start list gives no gender: a man, a woman and a
#: person whose name tells nothing, in Cyrillic and in Latin script.
PEOPLE = {
    "m": ("Иван Сидоров", "Тодор Тодоров", "Ivan Petrov", "John Smith"),
    "f": ("Мария Петрова", "Десислава Иванова", "Maria Petrova", "Ann Able"),
    None: ("Ким Ли", "Kim Lee"),
}
#: A hedge in any form, and a pronoun for both genders.
ANY_HEDGE = re.compile(r"[а-яё]\((?:а|ая|ла|на|ка|ен|ена|ы|и)\)|\bему/ей\b|\bего/её\b|/а\b",
                       re.IGNORECASE)  # fmt: skip


def named(value: Any, name: str) -> Any:
    """``value`` with every person that has a ``*gender`` (and the reader) called ``name``,
    and no gender given, as most start lists give none."""
    if isinstance(value, list):
        return [named(v, name) for v in value]
    if not isinstance(value, Mapping):
        return value
    out = {k: named(v, name) for k, v in value.items()}
    for key in value:
        if key == "gender" or str(key).endswith("_gender"):
            person = "recipient" if key == "gender" else str(key).removesuffix("_gender")
            if isinstance(out.get(person), str):
                out[person] = name
            out[key] = None
    return out


def test_no_mail_hedges_whatever_the_name_tells(captured: list[Captured]) -> None:
    """Every template, for a man, a woman and a person whose name tells nothing: no
    bracketed hedge, no ``ему/ей``, and the gender the name tells in every word."""
    renderer = Renderer()
    problems = []
    for name, context in captured:
        for language in CODES:
            for gender, names in PEOPLE.items():
                for person in names:
                    ctx = named(context, person)
                    what, body = renderer.render_text(name, language, ctx)
                    text = f"{what}\n{body}"
                    bad = ANY_HEDGE.findall(text)
                    if gender is not None and has_gender(context):
                        bad += wrong_words(text, language, gender, ctx)
                    if bad:
                        problems.append(f"{language} {name} {person}: {bad}")
    assert not problems, "\n".join(sorted(set(problems))[:40])


def test_the_name_tells_the_gender_in_the_greeting(captured: list[Captured]) -> None:
    renderer = Renderer()
    context = next(c for name, c in captured if name == "move")
    people = ("Мария Петрова", "Тодор Тодоров", "Ким Ли")
    greet = {(language, person): renderer.render_text("move", language, named(context, person))[1]
             for language in ("ru", "bg") for person in people}  # fmt: skip
    assert greet["ru", "Мария Петрова"].startswith("Уважаемая Мария Петрова,")
    assert greet["ru", "Тодор Тодоров"].startswith("Уважаемый Тодор Тодоров,")
    assert greet["ru", "Ким Ли"].startswith("Здравствуйте, Ким Ли,")
    assert greet["bg", "Мария Петрова"].startswith("Уважаема Мария Петрова,")
    assert greet["bg", "Тодор Тодоров"].startswith("Уважаеми Тодор Тодоров,")
    assert greet["bg", "Ким Ли"].startswith("Здравейте, Ким Ли,")
    assert "ваша соперница Мария Петрова сделала ход" in greet["ru", "Мария Петрова"]
    assert "ход вашего противника Ким Ли:" in greet["ru", "Ким Ли"]


def test_a_director_copy_declines_the_names(captured: list[Captured]) -> None:
    """«Ход повторён игроку Ивану Сидорову», not «игроку Иван Сидоров», and no ``ему/ей``."""
    renderer = Renderer()
    context = next(c for name, c in captured if name == "repeat-copy")
    ctx = {**context, "silent": "Иван Сидоров", "silent_gender": None,
           "opponent": "Мария Петрова", "opponent_gender": None}  # fmt: skip
    what, body = renderer.render_text("repeat-copy", "ru", ctx)
    assert what.startswith("Ход повторён игроку Ивану Сидорову")
    assert "на ход игрока Марии Петровой" in body
    assert "ход повторён игроку Ивану Сидорову" in body
    assert "ему" not in body and "(а)" not in body


#: Names in the nominative, genitive, dative and instrumental, as a Russian writes them.
DECLENSIONS = [
    ("Иван Сидоров", "Ивана Сидорова", "Ивану Сидорову", "Иваном Сидоровым"),
    ("Мария Петрова", "Марии Петровой", "Марии Петровой", "Марией Петровой"),
    ("Пётр Петров", "Петра Петрова", "Петру Петрову", "Петром Петровым"),
    ("Анна Кузнецова", "Анны Кузнецовой", "Анне Кузнецовой", "Анной Кузнецовой"),
    ("Сергей Смирнов", "Сергея Смирнова", "Сергею Смирнову", "Сергеем Смирновым"),
    ("Елена Волкова", "Елены Волковой", "Елене Волковой", "Еленой Волковой"),
    ("Дмитрий Соколов", "Дмитрия Соколова", "Дмитрию Соколову", "Дмитрием Соколовым"),
    ("Ольга Лебедева", "Ольги Лебедевой", "Ольге Лебедевой", "Ольгой Лебедевой"),
    ("Алексей Попов", "Алексея Попова", "Алексею Попову", "Алексеем Поповым"),
    ("Наталья Морозова", "Натальи Морозовой", "Наталье Морозовой", "Натальей Морозовой"),
    ("Николай Пушкин", "Николая Пушкина", "Николаю Пушкину", "Николаем Пушкиным"),
    ("Татьяна Никитина", "Татьяны Никитиной", "Татьяне Никитиной", "Татьяной Никитиной"),
    ("Лев Толстой", "Льва Толстого", "Льву Толстому", "Львом Толстым"),
    ("Павел Достоевский", "Павла Достоевского", "Павлу Достоевскому", "Павлом Достоевским"),
    ("Ирина Вяземская", "Ирины Вяземской", "Ирине Вяземской", "Ириной Вяземской"),
    ("Игорь Гоголь", "Игоря Гоголя", "Игорю Гоголю", "Игорем Гоголем"),
    ("Борис Васильевич Спасский", "Бориса Васильевича Спасского", "Борису Васильевичу Спасскому",
     "Борисом Васильевичем Спасским"),
    ("Анна Андреевна Ахматова", "Анны Андреевны Ахматовой", "Анне Андреевне Ахматовой",
     "Анной Андреевной Ахматовой"),
    ("Тодор Тодоров", "Тодора Тодорова", "Тодору Тодорову", "Тодором Тодоровым"),
    ("Десислава Иванова", "Десиславы Ивановой", "Десиславе Ивановой", "Десиславой Ивановой"),
    ("Роман Абрамович", "Романа Абрамовича", "Роману Абрамовичу", "Романом Абрамовичем"),
    ("ИВАН ПЕТРОВ", "ИВАНА ПЕТРОВА", "ИВАНУ ПЕТРОВУ", "ИВАНОМ ПЕТРОВЫМ"),
    # names that do not decline, or only in part
    ("Ольга Абрамович", "Ольги Абрамович", "Ольге Абрамович", "Ольгой Абрамович"),
    ("Анна Шевченко", "Анны Шевченко", "Анне Шевченко", "Анной Шевченко"),
    ("Никита Черных", "Никиты Черных", "Никите Черных", "Никитой Черных"),
    ("Алла Гоголь", "Аллы Гоголь", "Алле Гоголь", "Аллой Гоголь"),
    ("Георги Петровски", "Георги Петровски", "Георги Петровски", "Георги Петровски"),
    ("Ким Ли", "Ким Ли", "Ким Ли", "Ким Ли"),
    ("Михаил Ботвинник", "Михаила Ботвинник", "Михаилу Ботвинник", "Михаилом Ботвинник"),
    ("John Smith", "John Smith", "John Smith", "John Smith"),
    ("Maria Petrova", "Maria Petrova", "Maria Petrova", "Maria Petrova"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "genitive", "dative", "instrumental"), DECLENSIONS)
def test_russian_names_decline(name: str, genitive: str, dative: str, instrumental: str) -> None:
    from mailbot.compose.grammar import Case, declined

    assert declined(name, Case.GENITIVE) == genitive
    assert declined(name, Case.DATIVE) == dative
    assert declined(name, Case.INSTRUMENTAL) == instrumental


def test_english_glues_no_possessive_to_a_name(captured: list[Captured]) -> None:
    renderer = Renderer()
    problems = []
    for name, context in captured:
        text = "\n".join(renderer.render_text(name, "en", named(context, "Мария Петрова")))
        if "Петрова's" in text or "Петрова’s" in text:
            problems.append(name)
    assert not problems
    context = next(c for name, c in captured if name == "repeat")
    _, body = renderer.render_text("repeat", "en", named(context, "Мария Петрова"))
    assert "the move of your opponent Мария Петрова has not been answered" in body


#: The director's words, in every language: no player is shown them.
DIRECTOR_WORDS = ("confirm", "reject", "подтверждаю", "отвергаю", "потвърждавам", "отхвърлям")


def test_the_start_mail_says_what_each_word_does(captured: list[Captured]) -> None:
    """Each player's word on a line with its meaning; the director's words only in the
    director's start summary, each with its meaning too."""
    from mailbot.compose.catalogue import say
    from mailbot.mail.intent import Word, help_words
    from mailbot.rules.phrase import Phrase

    renderer = Renderer()
    start = next(c for name, c in captured if name == "start")
    summary = next(c for name, c in captured if name == "start-director")
    dash = {"en": ":", "bg": " –", "ru": " —"}
    for language in CODES:
        ctx = {**start, "words": help_words(language)}
        _, body = renderer.render_text("start", language, ctx)
        lines = body.splitlines()
        for word, spellings in help_words(language):
            if word in (Word.CONFIRM, Word.REJECT):
                continue
            meaning = say(language, Phrase(f"word.{word.value}"))
            assert any(
                line.startswith(f"  {spellings[0]}{dash[language]} {meaning}") for line in lines
            ), (language, word)
        words = {w.strip(' «»„“"').lower() for line in lines for w in line.split()}
        assert not words & set(DIRECTOR_WORDS), language
        _, told = renderer.render_text("start-director", language, summary)
        for verb in ("confirm", "reject", "penalty", "address", "rename", "replace"):
            assert f"  {say(language, Phrase(f'director-word.{verb}'))}" in told.splitlines()
    _, ru = renderer.render_text("start", "ru", {**start, "words": help_words("ru")})
    assert "  ничья — предложить ничью вместе с ходом или отдельно" in ru


def test_every_ru_and_bg_mail_names_the_director_one_way(captured: list[Captured]) -> None:
    """One title for the director (ru «судья турнира», bg «съдията на турнира»), and a
    subject in one pair of brackets, also when it counts several games."""
    from mailbot.compose.notifier import counted

    renderer = Renderer()
    problems = []
    for name, context in captured:
        for language in ("ru", "bg"):
            what, body = renderer.render_text(name, language, context)
            text = f"{what}\n{body}".lower()
            if "директор" in text:
                problems.append(f"{language} {name}: директор")
            if re.search(r"\)\s*\(", what):
                problems.append(f"{language} {name}: {what}")
    assert not problems, "\n".join(sorted(set(problems)))
    repeat = next(c for name, c in captured if name == "repeat")
    what, _ = renderer.render_text("repeat", "ru", {**repeat, "days": 14})
    assert counted(what, "2 партии") == "Повторение хода (нет ответа 14 дней, 2 партии)"


#: A Bulgarian event whose players read Bulgarian and Russian; ``{director}`` is the
#: director's name, and the director's gender where the start list gives it.
DIRECTED = """
index: DG-1
name: Купа
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: bg
notation: en
director: {{name: {director}, email: td@federation.example}}
players:
  - {{id: bob, name: Bob Bold, email: bob@example.org, language: bg}}
  - {{id: cid, name: Cid Cole, email: cid@example.org, language: ru}}
  - {{id: dan, name: Dan Dale, email: dan@example.org, language: ru}}
games:
  - {{white: bob, black: cid}}
  - {{white: dan, black: bob}}
"""


def mails_about_the_director(tmp_path: Path, director: str) -> dict[str, str]:
    """What each player reads of the director: a complaint sent on, the director's
    decision on it, extra leave, a new address, a game forfeited, and a stranger to
    a game told the director has a copy; all the mail to each reader (and to the
    director, who asks for a game's status at the end), one text."""
    tmp_path.mkdir()
    bench = Bench(f"sqlite:///{tmp_path / 'directed.db'}", DIRECTED.format(director=director))
    bob, cid, dan = "bob@example.org", "cid@example.org", "dan@example.org"
    try:
        for sender, body, day, game in (
            (bob, "1. e2-e4", 2, 1),
            (cid, "1... e7-e5", 2, 1),
            (bob, "рекламация 1", 3, 1),
            (dan, "1. e2-e4", 2, 2),
            (bob, "1... e7-e5", 2, 2),
            (dan, "рекламация 1", 3, 2),
        ):
            bench.send(sender, body, at(day), subject=f"[DG-1/{game}] ход")
        bench.send(TD, "отхвърлям", at(4), reply_to=bench.outbox(TD)[-2])
        for day, order in enumerate(
            ("отпуск cid 5 2026", "адрес cid cid@new.example", "служебна DG-1/1 black"), start=5
        ):
            bench.send(TD, order, at(day))
            bench.send(TD, "потвърждавам", at(day, 12), reply_to=bench.outbox(TD)[-1])
        bench.send(dan, "1... e7-e5", at(9), subject="[DG-1/1] ход")
        bench.send(TD, "статус", at(10), subject="[DG-1/2] статус")
        return {
            reader: "\n".join(f"{r.subject}\n{r.text_body}" for r in bench.outbox(address))
            for reader, address in (("bob", bob), ("cid", "cid@new.example"), ("dan", dan),
                                    ("td", TD))
        }  # fmt: skip
    finally:
        bench.close()


#: What the players read of the director, each with the director's word in it.
OF_THE_DIRECTOR = {
    "bob": ["на съдията на турнира, {} ще реши"],
    "cid": ["судья турнира {} в партии DG-1/1",
            "судья турнира {} вам 5 дней дополнительного отпуска",
            "судья турнира {} ваш адрес в турнире Купа"],
    "dan": ["передана судье турнира, {} решит", "Судья турнира {} копию"],
}  # fmt: skip
#: The director's words of :data:`OF_THE_DIRECTOR`, in order, for a woman and a man.
DIRECTOR_FORMS = {
    "f": ["която", "решила", "предоставила", "изменила", "которая", "получила"],
    "m": ["който", "решил", "предоставил", "изменил", "который", "получил"],
}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("director", "gender"),
    [
        ("Мария Петрова", "f"),
        ("Иван Сидоров", "m"),
        # the start list's gender, where the name tells none or another
        ("Kim Lee, gender: f", "f"),
        ("Саша Ли, gender: m", "m"),
    ],
)
def test_the_director_is_written_of_in_the_directors_gender(
    tmp_path: Path, director: str, gender: str
) -> None:
    """Мария Петрова directs: «судья турнира решила», «предоставила», «изменила»,
    «получила копию», «которая решит»; bg «съдията на турнира, която ще реши»; Иван
    Сидоров directs: the same sentences in the masculine. Without ``gender:`` in the
    start list the name tells it, as a player's does; with it, the start list's."""
    texts = mails_about_the_director(tmp_path / "event", director)
    other = "m" if gender == "f" else "f"
    words = iter(zip(DIRECTOR_FORMS[gender], DIRECTOR_FORMS[other], strict=True))
    for reader, sentences in OF_THE_DIRECTOR.items():
        for sentence in sentences:
            right, wrong = next(words)
            assert sentence.format(right) in texts[reader], (reader, sentence)
            assert sentence.format(wrong) not in texts[reader], (reader, sentence)
    assert "съдията на турнира реши в партия DG-1/1" in texts["bob"]
    name = director.split(",")[0]
    greeting = {"f": "Уважаема", "m": "Уважаеми"}
    assert f"\n{greeting[gender]} {name},\n" in texts["td"]
    assert f"Състояние\n{greeting[gender]} {name},\n" in texts["td"]  # the status asked for
    assert f"{greeting[other]} {name}," not in texts["td"]
