"""Tables as text: fixed-width columns, names cut to a width, the headings in each language.

>>> grid_lines(["No", "Player"], [["1", "Ann"]], {1}, [0, 2])
['No  Player', ' 1  Ann']
"""

from __future__ import annotations

import unicodedata

__all__ = ["CROSSTABLE_WORDS", "TEAM_WORDS", "grid_lines", "text_width", "truncate"]

CROSSTABLE_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "place": "Place",
        "number": "No",
        "player": "Player",
        "points": "Pts",
        "played": "Gms",
        "unfinished": "Unf",
        "sb": "SB",
        "legend": "Gms: games played; Unf: unfinished; SB: Sonneborn-Berger\n"
        "* annulled game; . unfinished game",
        "finished": "{finished} of {games} games finished",
    },
    "bg": {
        "place": "Място",
        "number": "№",
        "player": "Състезател",
        "points": "Точки",
        "played": "Парт",
        "unfinished": "Незав",
        "sb": "SB",
        "legend": "Парт: изиграни партии; Незав: незавършени; SB: Зонеборн-Бергер\n"
        "* анулирана партия; . незавършена партия",
        "finished": "завършени партии: {finished} от {games}",
    },
    "ru": {
        "place": "Место",
        "number": "№",
        "player": "Участник",
        "points": "Очки",
        "played": "Парт",
        "unfinished": "Незав",
        "sb": "SB",
        "legend": "Парт: сыграно партий; Незав: не закончено; SB: Зонненборн-Бергер\n"
        "* аннулированная партия; . незаконченная партия",
        "finished": "закончено партий: {finished} из {games}",
    },
}

TEAM_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "place": "Place",
        "number": "No",
        "team": "Team",
        "match_points": "MP",
        "game_points": "GP",
        "played": "Played",
        "legend": "MP: match points; GP: game points; (1½) match not yet decided",
    },
    "bg": {
        "place": "Място",
        "number": "№",
        "team": "Отбор",
        "match_points": "МТ",
        "game_points": "Точки",
        "played": "Мачове",
        "legend": "МТ: мачови точки; Точки: точки от партиите; (1½) мачът не е завършен",
    },
    "ru": {
        "place": "Место",
        "number": "№",
        "team": "Команда",
        "match_points": "КО",
        "game_points": "Очки",
        "played": "Матчи",
        "legend": "КО: командные очки; Очки: очки в партиях; (1½) матч не закончен",
    },
}


def text_width(text: str) -> int:
    """The columns ``text`` takes in a terminal or a fixed-width font.

    Cyrillic letters take one column like Latin ones; combining accents take
    none, East Asian wide characters two.

    >>> text_width("Иван Иванов"), text_width("Й"), text_width("棋")
    (11, 1, 2)
    """
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def truncate(name: str, width: int) -> str:
    """``name`` cut to ``width`` columns, ending with an ellipsis when cut.

    >>> truncate("Aleksandr Konstantinopolsky", 16)
    'Aleksandr Konst…'
    >>> truncate("Ivan Ivanov", 16)
    'Ivan Ivanov'
    """
    name = " ".join(unicodedata.normalize("NFC", name).split())
    if text_width(name) <= width:
        return name
    out = ""
    for char in name:
        if text_width(out + char) > width - 1:
            break
        out += char
    return out.rstrip() + "…"


def grid_lines(
    header: list[str], lines: list[list[str]], left: set[int], gaps: list[int]
) -> list[str]:
    """Columns padded to their widest entry; ``gaps[i]`` spaces before column ``i``."""
    widths = [max(text_width(line[i]) for line in [header, *lines]) for i in range(len(header))]
    out: list[str] = []
    for line in [header, *lines]:
        parts: list[str] = []
        for i, text in enumerate(line):
            pad = " " * (widths[i] - text_width(text))
            parts.append(" " * (gaps[i] if i else 0))
            parts.append(text + pad if i in left else pad + text)
        out.append("".join(parts).rstrip())
    return out
