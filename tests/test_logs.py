"""Where log lines go: a file that logrotate may move, text or JSON, no library chatter."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from mailbot.shell.logs import logging_for_command


def test_a_moved_log_file_is_reopened_under_its_name(tmp_path: Path) -> None:
    path = tmp_path / "log" / "mailbot.log"
    with logging_for_command() as logs:
        logs.apply("INFO", str(path))
        logging.getLogger("mailbot.desk.pipeline").info("first line")
        path.rename(tmp_path / "log" / "mailbot.log.1")  # what logrotate does
        logging.getLogger("mailbot.desk.pipeline").info("second line")
    assert "first line" in (tmp_path / "log" / "mailbot.log.1").read_text()
    text = path.read_text()
    assert "second line" in text and "first line" not in text
    assert " INFO mailbot.desk.pipeline: second line" in text


def test_json_lines_carry_time_level_logger_message_and_the_failure(tmp_path: Path) -> None:
    path = tmp_path / "mailbot.log"
    with logging_for_command() as logs:
        logs.apply("INFO", str(path), "json")
        logging.getLogger("mailbot.daemon").warning("IMAP down: Ивана %s", "x")
        try:
            raise ValueError("broken")
        except ValueError:
            logging.getLogger("mailbot.desk.pipeline").exception("failed")
    first, second = (json.loads(line) for line in path.read_text().splitlines() if line)
    assert first["level"] == "WARNING" and first["logger"] == "mailbot.daemon"
    assert first["message"] == "IMAP down: Ивана x"
    assert first["time"][:2] == "20"
    assert "ValueError: broken" in second["exc_info"]


def test_the_libraries_say_nothing_below_warning_unless_debug(tmp_path: Path) -> None:
    path = tmp_path / "mailbot.log"
    with logging_for_command() as logs:
        logs.apply("INFO", str(path))
        logging.getLogger("imapclient.imapclient").info("> b'A1 LOGIN ...'")
        logging.getLogger("apscheduler.scheduler").info("Adding job tentatively")
        logging.getLogger("mailbot.daemon").info("connected to IMAP")
        logs.apply("DEBUG", str(path))
        logging.getLogger("apscheduler.scheduler").debug("scheduler detail")
    text = path.read_text()
    assert "connected to IMAP" in text
    assert "Adding job" not in text and "LOGIN" not in text
    assert "scheduler detail" in text
