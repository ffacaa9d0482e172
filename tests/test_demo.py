"""``mailbot demo``: the README's first command, through the embedded servers."""

from __future__ import annotations

import io

import chess.pgn
import pytest

from mailbot.cli import main
from mailbot.demo import run_demo

#: every test here takes more than a second (pyproject.toml: markers)
pytestmark = pytest.mark.slow


def test_demo_plays_a_game_with_an_impossible_move_and_its_penalty() -> None:
    lines: list[str] = []
    result = run_demo(lines.append)
    assert result.result == "1-0"
    events = [m["X-Mailbot-Event"] for m in result.sent]
    assert events.count("move-rejected") == 1
    rejected = next(m for m in result.sent if m["X-Mailbot-Event"] == "move-rejected")
    assert rejected["X-Mailbot-Penalty"] == "black=5"
    assert events.count("game-over") == 3  # both players and the director
    game = chess.pgn.read_game(io.StringIO(result.pgn))
    assert game is not None and game.headers["Result"] == "1-0"
    assert game.end().board().is_checkmate()
    assert any("+5" in line or "penalty black=5" in line for line in lines)


def test_demo_command_needs_no_configuration(capsys, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)  # no config.yaml here
    monkeypatch.delenv("MAILBOT_CONFIG", raising=False)
    assert main(["demo"]) == 0
    assert "Result: 1-0" in capsys.readouterr().out


def test_the_demo_narrates_and_writes_its_pgn_in_one_language() -> None:
    """The narration is English, and so is the event: its PGN says "days", not "дни"."""
    lines: list[str] = []
    result = run_demo(lines.append)
    assert '[CorrespondenceTime "50 days/10 moves"]' in result.pgn
    assert "дни" not in result.pgn and "получен" not in result.pgn
    to_ivan = [m for m in result.sent if "ivanov@demo.example" in str(m["To"])]
    body = to_ivan[0].get_body(("plain",))
    assert body is not None and "Уважаеми Ivan Ivanov," in body.get_content()
