"""The command words of a message (docs/contract.md "Words in mail")."""

from __future__ import annotations

import datetime

import pytest

from mailbot.compose.catalogue import say
from mailbot.mail.intent import Word, help_words, read_words


@pytest.mark.parametrize(
    ("body", "word"),
    [
        ("draw", Word.DRAW),
        ("23. Дd1-d4 draw", Word.DRAW),
        ("23. Дd1-d4 реми", Word.DRAW),
        ("14. Кf3-d4\nПриемате ли реми?", Word.DRAW),
        ("I play 19. Qd1-h5 and at the same time I offer you a draw; think it over.", Word.DRAW),
        ("Предлагаю ничью", Word.DRAW),
        ("Accept", Word.ACCEPT),
        ("Приемам реми", Word.ACCEPT),
        ("decline", Word.DECLINE),
        ("I resign.", Word.RESIGN),
        ("Сдаюсь", Word.RESIGN),
        ("claim", Word.CLAIM),
        ("delay", Word.DELAY),
        ("забавяне", Word.DELAY),
        ("Status?", Word.STATUS),
        ("help", Word.HELP),
        ("помощь", Word.HELP),
    ],
)
def test_words_in_three_languages(body: str, word: Word) -> None:
    assert read_words(body).has(word)


def test_prose_is_not_a_command() -> None:
    body = "Dear Ivan,\nthanks for the game so far.\nI will take my leave soon.\nBest"
    assert read_words(body).commands == ()


def test_leave_dates_in_both_forms() -> None:
    words = read_words("отпуск 1.6.2026 - 30.6.2026")
    assert words.leave == (datetime.date(2026, 6, 1), datetime.date(2026, 6, 30))
    words = read_words("leave 2026-07-07 2026-07-13")
    assert words.leave == (datetime.date(2026, 7, 7), datetime.date(2026, 7, 13))


def test_leave_without_dates_says_what_to_write() -> None:
    words = read_words("leave")
    assert words.leave is None and words.leave_error is not None
    assert words.leave_error.code == "leave.no-dates"
    assert "2026-06-01" in say("en", words.leave_error)
    bad = read_words("leave 31.2.2026 3.3.2026").leave_error
    assert bad is not None and bad.details == {"value": "31.2.2026"}


def test_help_lists_the_words_in_the_language() -> None:
    spellings = dict(help_words("ru"))
    assert "сдаюсь" in spellings[Word.RESIGN]
    assert "resign" in dict(help_words("en"))[Word.RESIGN]
