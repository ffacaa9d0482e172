"""Where the bot's log lines go and what they look like.

By default every process logs to stderr (under systemd, the journal) in the
form ``2026-03-02 09:00:01,123 INFO mailbot.desk.pipeline: ...``. With ``log_file``
the lines go to that file instead, through :class:`logging.handlers.WatchedFileHandler`:
when logrotate moves the file away, the next line reopens it under its name,
so no signal and no ``copytruncate`` is needed. With ``log_format: json``
each line is one JSON object (python-json-logger) with ``time``, ``level``,
``logger`` and ``message``, plus ``exc_info`` for a failure, for a log
collector to read without parsing prose.

The libraries' own chatter stays out below WARNING (imapclient's, APScheduler's
"Adding job tentatively", Alembic's "Context impl"), except at DEBUG.

>>> import io, json
>>> stream = io.StringIO()
>>> handler = logging.StreamHandler(stream)
>>> handler.setFormatter(formatter("json"))
>>> record = logging.makeLogRecord({"name": "mailbot.desk.pipeline", "levelname": "INFO",
...                                 "msg": "handled %s", "args": ("m1",)})
>>> handler.emit(record)
>>> line = json.loads(stream.getvalue())
>>> line["level"], line["logger"], line["message"]
('INFO', 'mailbot.desk.pipeline', 'handled m1')
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import sys
from collections.abc import Iterator
from pathlib import Path

from pythonjsonlogger.json import JsonFormatter

#: The form of a text log line, in every process of the bot.
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
#: Libraries whose INFO lines say nothing to an operator.
CHATTY = ("imapclient", "apscheduler", "alembic", "urllib3", "authlib", "aiosmtpd", "mail.log")


def formatter(kind: str) -> logging.Formatter:
    """The formatter of a log line: ``text`` or ``json``."""
    if kind == "json":
        return JsonFormatter(
            "%(asctime)s %(levelname)s %(name)s %(message)s",
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
            json_ensure_ascii=False,
        )
    return logging.Formatter(TEXT_FORMAT)


def set_level(level: str | int) -> None:
    """Log the bot's own lines from ``level`` on; the libraries' from WARNING unless DEBUG."""
    logging.getLogger().setLevel(level)
    debug = level in ("DEBUG", logging.DEBUG)
    for name in CHATTY:
        logging.getLogger(name).setLevel(logging.DEBUG if debug else logging.WARNING)


class LogSetup:
    """The log handler of one command; :meth:`apply` sets what the configuration says."""

    def __init__(self) -> None:
        self.root = logging.getLogger()
        self.handler: logging.Handler = logging.StreamHandler(sys.stderr)
        self.handler.setFormatter(formatter("text"))
        self._saved = self.root.level, {name: logging.getLogger(name).level for name in CHATTY}

    def start(self) -> None:
        self.root.addHandler(self.handler)
        self.level("WARNING")

    def level(self, level: str) -> None:
        """The level of the bot's own lines; the libraries' stay at WARNING unless DEBUG."""
        set_level(level)

    def apply(self, level: str, log_file: str | None = None, log_format: str = "text") -> None:
        """Log at ``level``, to ``log_file`` if given (else stderr), in ``log_format``.

        Raises OSError when the file cannot be opened: the caller says so.
        """
        handler = child_handler(log_file, log_format)
        self.root.removeHandler(self.handler)
        self.handler.close()
        self.handler = handler
        self.root.addHandler(handler)
        self.level(level)

    def stop(self) -> None:
        self.root.removeHandler(self.handler)
        self.handler.close()
        self.root.setLevel(self._saved[0])
        for name, level in self._saved[1].items():
            logging.getLogger(name).setLevel(level)


@contextlib.contextmanager
def logging_for_command() -> Iterator[LogSetup]:
    """Log to stderr at WARNING for the duration of one command, until :meth:`LogSetup.apply`."""
    setup = LogSetup()
    setup.start()
    try:
        yield setup
    finally:
        setup.stop()


def child_handler(log_file: str | None, log_format: str) -> logging.Handler:
    """The handler of a process's lines: to ``log_file`` (its folder made if need be), else
    stderr, in ``log_format``; a child process (the courier) takes its parent's."""
    handler: logging.Handler
    if log_file is not None:
        Path(log_file).parent.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.WatchedFileHandler(log_file, encoding="utf-8")
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(log_format))
    return handler
