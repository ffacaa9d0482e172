"""What the bot writes: Jinja2 templates in ``templates/<language>/``.

Each template ``<event>.txt`` renders to a first line (what happened, for the
subject ``[INDEX/N] White – Black: <what happened>``), an empty line and the
plain-text body. The HTML part is the same text in ``layout.html`` with a
board diagram.

>>> r = Renderer()
>>> subject, body = r.render_text("help", "en", {"words": [], "game": None})
>>> subject
'How to write to the arbiter'
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import chess
import jinja2

from mailbot.compose import catalogue
from mailbot.compose.catalogue import template_dir
from mailbot.compose.diagram import html_diagram, text_diagram
from mailbot.compose.grammar import Case, declined, with_genders
from mailbot.rules.errors import ComposeError
from mailbot.rules.languages import CODES, plural
from mailbot.rules.phrase import Phrase


class TemplateMissingError(ComposeError, LookupError):
    """No template for that event in that language."""


def short_date(value: datetime.date | None) -> str:
    """A date as art. 8 writes it: ``11.3.``; the year is added by ``long_date``.

    >>> short_date(datetime.date(2026, 3, 11))
    '11.3.'
    """
    if value is None:
        return "–"
    return f"{value.day}.{value.month}."


def long_date(value: datetime.date | None) -> str:
    """``11.3.2026``.

    >>> long_date(datetime.date(2026, 3, 11))
    '11.3.2026'
    """
    if value is None:
        return "–"
    return f"{value.day}.{value.month}.{value.year}"


@dataclasses.dataclass(frozen=True)
class Rendered:
    """A rendered message: what happened (for the subject), text and HTML bodies."""

    what: str
    text: str
    html: str
    #: The text without the board, and the board in HTML ("" without one).
    body: str = ""
    diagram: str = ""


@jinja2.pass_context
def _say(context: jinja2.runtime.Context, phrase: Phrase) -> str:
    """``{{ say(phrase) }}``: a phrase of the catalogue, in the template's language."""
    return catalogue.say(str(context.get("language", "en")), phrase)


def _case(case: Case, context: jinja2.runtime.Context, name: str) -> str:
    """``{{ opponent|gent }}``: the name in ``case``, for the gender the context gives
    the person of that name (``opponent_gender``), else the one the name tells."""
    gender = None
    for key, value in context.get_all().items():
        if value == name and key != "language":
            gender = context.get("gender" if key == "recipient" else f"{key}_gender")
            if gender in ("f", "m"):
                break
    return declined(name, case, gender if gender in ("f", "m") else None)


def _phrase(code: str, **details: Any) -> Phrase:
    return Phrase(code, details)


@functools.cache
def _environment(folder: str) -> jinja2.Environment:
    """One Jinja2 environment per folder: it keeps each template compiled, so that a
    new :class:`Renderer` (one per pass of the daemon) does not compile them again,
    nor looks at its file again (a changed template is read at the next start)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        auto_reload=False,
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(["html"]),
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["d"] = short_date
    env.filters["date"] = long_date
    # a name in a Russian case: {{ opponent|gent }}, |datv, |ablt
    for case in Case:
        env.filters[str(case)] = jinja2.pass_context(functools.partial(_case, case))
    env.globals["plural"] = plural
    env.globals["say"] = _say
    # {{ say(phrase("word.draw")) }}: a phrase of the catalogue named in a template
    env.globals["phrase"] = _phrase
    # in a macro, which does not see the template's language: {{ say_in("ru", p) }}
    env.globals["say_in"] = catalogue.say
    return env


class Renderer:
    """Renders the templates of one folder."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or template_dir()
        self.env = _environment(str(self.folder))

    def has(self, name: str, language: str) -> bool:
        return (self.folder / language / f"{name}.txt").exists()

    def render_text(self, name: str, language: str, context: Mapping[str, Any]) -> tuple[str, str]:
        """Render ``<language>/<name>.txt``: (first line, body)."""
        if language not in CODES:
            language = "en"
        try:
            template = self.env.get_template(f"{language}/{name}.txt")
        except jinja2.TemplateNotFound as exc:
            raise TemplateMissingError(f"{language}/{name}.txt") from exc
        out = template.render(language=language, **with_genders(context)).strip("\n")
        what, _, body = out.partition("\n")
        body = re.sub(r"\n{3,}", "\n\n", body.strip("\n")) + "\n"
        return what.strip(), body

    def render(
        self,
        name: str,
        language: str,
        context: Mapping[str, Any],
        *,
        board: chess.Board | None = None,
        orientation: chess.Color = chess.WHITE,
    ) -> Rendered:
        """Render the text and the HTML part of one message."""
        what, body = self.render_text(name, language, context)
        if board is not None:
            lastmove = board.move_stack[-1] if board.move_stack else None
            text = body + "\n" + text_diagram(board, orientation) + "\n"
            diagram = html_diagram(board, orientation, lastmove)
        else:
            text, diagram = body, ""
        layout = self.env.get_template("layout.html")
        paragraphs: Sequence[str] = [p for p in body.split("\n\n") if p.strip()]
        html = layout.render(language=language, title=what, paragraphs=paragraphs, diagram=diagram)
        return Rendered(what, text, html, body, diagram)

    def combine(self, language: str, what: str, parts: Sequence[tuple[str, Rendered]]) -> Rendered:
        r"""One message of several, each under its heading; the greeting they share
        (their first line) is written once, and so is a text several parts share.

        >>> r = Renderer()
        >>> one = Rendered("A", "Dear Ann,\n\nfirst.\n", "", "Dear Ann,\n\nfirst.\n")
        >>> two = Rendered("B", "Dear Ann,\n\nsecond.\n", "", "Dear Ann,\n\nsecond.\n")
        >>> print(r.combine("en", "News", [("X/1", one), ("X/2", two), ("X/3", two)]).text)
        Dear Ann,
        <BLANKLINE>
        == X/1 ==
        first.
        <BLANKLINE>
        == X/2 ==
        == X/3 ==
        second.
        <BLANKLINE>
        """
        firsts = {p.body.partition("\n")[0] for _, p in parts}
        greeting = firsts.pop() if len(firsts) == 1 else ""

        def rest(text: str) -> str:
            return (text.partition("\n")[2] if greeting else text).strip("\n")

        # parts with the same text (and no board) are written once, under all their headings
        sections: list[dict[str, Any]] = []
        for heading, p in parts:
            same = next(
                (x for x in sections if not p.diagram and not x["diagram"]
                 and x["text"] == rest(p.text)),
                None,
            )  # fmt: skip
            if same is not None:
                same["headings"].append(heading)
                continue
            sections.append(
                {
                    "headings": [heading],
                    "text": rest(p.text),
                    "paragraphs": [q for q in rest(p.body).split("\n\n") if q.strip()],
                    "diagram": p.diagram,
                }
            )
        text = f"{greeting}\n\n" if greeting else ""
        text += "\n\n".join(
            "".join(f"== {h} ==\n" for h in x["headings"]) + x["text"] for x in sections
        )
        layout = self.env.get_template("layout.html")
        html = layout.render(
            language=language,
            title=what,
            paragraphs=[greeting] if greeting else [],
            diagram="",
            sections=sections,
        )
        return Rendered(what, text + "\n", html, text + "\n", "")
