"""The cyclic garbage collector set for a process that is the bot.

Handling a message makes some thousands of objects (the game's rows, its board, the
mail); at Python's default threshold (700) the cyclic collector runs every few
messages, and each of its full passes walks every object the process holds: a tenth
of the time a move costs, and more the longer the game. Here it runs after 10,000
new objects (the older generations a tenth as often), and what is loaded at the
start (modules, the configuration) is set aside for good (:func:`gc.freeze`).

A module of its own, importing nothing of the bot: the command line
(:func:`mailbot.cli.program`), the benchmarks and the tests that run the desk in
their own process set the collector the same way without loading the commands.
"""

from __future__ import annotations

import gc


def tune_collector() -> None:
    """Set the collector as above, and let it run.

    The entry point (:func:`mailbot.__main__.run`) holds the collector while the
    modules load; it runs again from here. Only a process's entry point calls this:
    a program that imports the bot keeps its own settings.
    """
    gc.set_threshold(10_000, 10, 10)
    gc.freeze()
    gc.enable()
