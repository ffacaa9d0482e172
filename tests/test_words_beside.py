"""The words a player writes beside a word, and the orders told to whom they are about.

Words beside ``accept``, ``decline``, ``resign``, a draw offer or a ``claim`` reach
the opponent as those beside a move do (docs/contract.md, "Words beside the move"):
marked as the player's own, in the mail the opponent gets about the word, unless
the tournament says ``forward_messages: false``. A claim brings the opponent a
mail only when it ends the game (the others go to the director): the words are
in that game-over mail.

The player a director's order is about (withdrawn, penalised, forfeited, given
extra leave, replaced) reads of it in the second person; the opponent and the
director keep the third.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator

import pytest
from deskbench import TD, Bench

UTC = datetime.UTC
START_LIST = """
index: WB-1
name: Words cup
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: en
notation: en
{extra}
director: {{name: Tom Director, email: td@federation.example}}
players:
  - {{id: ann, name: Ann Able, email: ann@example.org}}
  - {{id: ivan, name: Иван Иванов, email: ivan@example.org, language: bg,
      notation: bg-cyrillic}}
  - {{id: petr, name: Пётр Петров, email: petr@example.org, language: ru, notation: ru}}
games:
  - {{white: ann, black: ivan}}
  - {{white: petr, black: ann}}
  - {{white: ivan, black: petr}}
"""
ANN, IVAN, PETR = "ann@example.org", "ivan@example.org", "petr@example.org"
NAMES = {ANN: "Ann Able", IVAN: "Иван Иванов", PETR: "Пётр Петров"}
#: The games by the language of Black (who reads what White writes): game, White, Black.
BY_READER = {"bg": (1, ANN, IVAN), "en": (2, PETR, ANN), "ru": (3, IVAN, PETR)}
#: How each language marks the opponent's own words (as in the move mail).
MARK = {"en": "{} writes:", "bg": "{} Ви пише:", "ru": "{} пишет вам:"}
WORDS = "Thanks for the game!\n\nСпасибо, до встречи."
#: The knights out and back twice: the starting position stands for the third time.
KNIGHTS = ("g1f3", "g8f6", "f3g1", "f6g8") * 2


def at(day: int, hour: int = 9) -> datetime.datetime:
    return datetime.datetime(2026, 3, day, hour, tzinfo=UTC)


def bench_with(url: str, extra: str = "") -> Bench:
    return Bench(url, START_LIST.format(extra=extra))


@pytest.fixture
def bench(store_url: str) -> Iterator[Bench]:
    b = bench_with(store_url)
    try:
        yield b
    finally:
        b.close()


def since(b: Bench, to: str, first: int) -> str:
    """The text of every mail to ``to`` queued after row ``first``."""
    return "\n".join(r.subject + "\n" + r.text_body for r in b.outbox(to) if r.id > first)


def last_id(b: Bench) -> int:
    rows = b.outbox()
    return rows[-1].id if rows else 0


def send(b: Bench, who: str, body: str, game: int, when: datetime.datetime) -> None:
    b.send(who, body, when, subject=f"[WB-1/{game}] move")


def knights(b: Bench, game: int, white: str, black: str) -> None:
    """Both knights out and back twice (in UCI, which every notation reads)."""
    for i, uci in enumerate(KNIGHTS):
        number = i // 2 + 1
        text = (
            f"{number}. {uci[:2]}-{uci[2:]}" if i % 2 == 0 else f"{number}... {uci[:2]}-{uci[2:]}"
        )
        send(b, white if i % 2 == 0 else black, text, game, at(2 + i))


WORD_NAMES = ("draw", "accept", "decline", "resign", "claim")


def _ready(b: Bench, name: str, game: int, white: str, black: str) -> None:
    if name in ("accept", "decline"):
        send(b, black, "draw", game, at(2))
    if name == "claim":
        knights(b, game, white, black)


@pytest.mark.parametrize("language", ["en", "bg", "ru"])
@pytest.mark.parametrize("name", WORD_NAMES)
@pytest.mark.slow
def test_words_beside_a_word_reach_the_opponent(bench: Bench, name: str, language: str) -> None:
    game, white, black = BY_READER[language]
    _ready(bench, name, game, white, black)
    before, told_td = last_id(bench), len(bench.outbox(TD))
    send(bench, white, f"{name}\n\n{WORDS}", game, at(12))
    text = since(bench, black, before)
    assert text, f"{black} heard nothing of {name}"
    assert MARK[language].format(NAMES[white]) in text
    assert "| Thanks for the game!" in text and "| Спасибо, до встречи." in text
    # the words themselves are not forwarded, nor the words to the writer or the TD
    assert f"| {name}" not in text
    assert "Thanks for the game!" not in since(bench, white, before)
    assert all("Thanks for the game!" not in r.text_body for r in bench.outbox(TD)[told_td:])


@pytest.mark.parametrize("language", ["en", "bg", "ru"])
@pytest.mark.parametrize("name", WORD_NAMES)
@pytest.mark.slow
def test_forward_messages_false_keeps_the_words_beside_a_word_home(
    store_url: str, name: str, language: str
) -> None:
    b = bench_with(store_url, "forward_messages: false")
    try:
        game, white, black = BY_READER[language]
        _ready(b, name, game, white, black)
        before = last_id(b)
        send(b, white, f"{name}\n\n{WORDS}", game, at(12))
        text = since(b, black, before)
        assert text, f"{black} heard nothing of {name}"
        assert MARK[language].format(NAMES[white]) not in text
        assert "Thanks for the game!" not in text and "| " not in text
    finally:
        b.close()


def test_a_claim_the_director_decides_tells_the_opponent_nothing(bench: Bench) -> None:
    """A draw claim that does not end the game goes to the claimer (and perhaps the TD):
    the opponent gets no mail, so the words reach nobody."""
    before = last_id(bench)
    send(bench, ANN, "1. e2-e4", 1, at(2))
    send(bench, IVAN, "1... e7-e5", 1, at(3))
    mid = last_id(bench)
    send(bench, ANN, f"claim\n\n{WORDS}", 1, at(4))
    assert since(bench, IVAN, mid) == ""
    assert before < mid


# -- the orders, to the player they are about ----------------------------------

#: Who the order is about, by language: the address, the game, the colour there.
CONCERNED = {"en": (ANN, 1, "white"), "bg": (IVAN, 1, "black"), "ru": (PETR, 2, "white")}
#: The second person each order's mail uses, and the third person it must not.
SECOND = {
    "withdraw": {"en": "You have withdrawn from the tournament",
                 "bg": "Вие се оттеглихте от турнира", "ru": "Вы выбыли из турнира"},
    "penalty": {"en": "are added to your time", "bg": "към Вашето време са добавени",
                "ru": "к вашему времени добавлено"},
    "forfeit": {"en": "you forfeit the game", "bg": "служебна загуба за Вас",
                "ru": "вам засчитано техническое поражение"},
    "leave": {"en": "Extra leave for you", "bg": "Допълнителен отпуск за Вас",
              "ru": "Дополнительный отпуск для вас"},
    "replace": {"en": "in your place", "bg": "на Вашето място", "ru": "на ваше место"},
}  # fmt: skip
THIRD = {
    "withdraw": {"en": "{} has withdrawn", "bg": "{} се оттегли", "ru": "{} выбыл"},
    "penalty": {"en": "added to White", "bg": "на черните са добавени", "ru": "белым добавлено"},
    "forfeit": {"en": "(forfeited by the director)", "bg": "служебна загуба за черните",
                "ru": "техническое поражение: белые"},
    "leave": {"en": "Extra leave for {}", "bg": "Допълнителен отпуск за {}",
              "ru": "Дополнительный отпуск для {}"},
    "replace": {"en": "{} takes", "bg": "{} поема", "ru": "{} принимает"},
}  # fmt: skip


def order_text(kind: str, language: str) -> str:
    who, game, colour = CONCERNED[language]
    key = who.split("@")[0]
    return {
        "withdraw": f"withdraw {key} valid",
        "penalty": f"penalty WB-1/{game} {colour} 5",
        "forfeit": f"forfeit WB-1/{game} {colour}",
        "leave": f"leave {key} 5 2026",
        "replace": f'replace {key} newbie "Nina New" nina@example.org',
    }[kind]


def give(b: Bench, order: str, when: datetime.datetime) -> None:
    """The director writes ``order`` and confirms it when asked."""
    b.send(TD, order, when, subject="orders")
    (held,) = [r for r in b.outbox(TD) if r.headers.get("X-Mailbot-Held")][-1:]
    b.send(TD, "confirm", when + datetime.timedelta(hours=1), reply_to=held)


def opening(b: Bench) -> None:
    """Every player has moved in every game (a withdrawal then goes to the arbiter)."""
    send(b, ANN, "1. e2-e4", 1, at(2))
    send(b, IVAN, "1... e7-e5", 1, at(3))
    send(b, PETR, "1. e2-e4", 2, at(2))
    send(b, ANN, "1... e7-e5", 2, at(3))
    send(b, IVAN, "1. e2-e4", 3, at(2))
    send(b, PETR, "1... e7-e5", 3, at(3))


@pytest.mark.parametrize("language", ["en", "bg", "ru"])
@pytest.mark.parametrize("kind", list(SECOND))
def test_the_order_is_told_in_the_second_person_to_whom_it_is_about(
    bench: Bench, kind: str, language: str
) -> None:
    who = CONCERNED[language][0]
    opening(bench)
    before = last_id(bench)
    give(bench, order_text(kind, language), at(5))
    text = since(bench, who, before)
    assert SECOND[kind][language] in text, text
    assert THIRD[kind][language].format(NAMES[who]) not in text
    if kind in ("withdraw", "replace"):
        # the opponents keep the third person
        opponent = IVAN if who == ANN else ANN
        assert SECOND[kind][language] not in since(bench, opponent, before)


#: What the resigner reads of the ending, and what the opponent reads (White resigns).
RESIGNED = {
    "en": ("(you resigned)", "(White resigns)"),
    "bg": ("(Вие се предадохте)", "(белите се предават)"),
    "ru": ("(вы сдались)", "(белые сдались)"),
}


@pytest.mark.parametrize("language", ["en", "bg", "ru"])
def test_the_resigner_reads_of_it_in_the_second_person(bench: Bench, language: str) -> None:
    """A reader of each language resigns as White; the opponent, in their own language,
    reads which colour resigned."""
    game, white = {"bg": (3, IVAN), "ru": (2, PETR), "en": (1, ANN)}[language]
    black = {1: IVAN, 2: ANN, 3: PETR}[game]
    before = last_id(bench)
    send(bench, white, "resign", game, at(12))
    yours, _ = RESIGNED[language]
    assert yours in since(bench, white, before)
    reader = {IVAN: "bg", ANN: "en", PETR: "ru"}[black]
    theirs = RESIGNED[reader][1]
    told = since(bench, black, before)
    assert theirs in told and RESIGNED[reader][0] not in told
