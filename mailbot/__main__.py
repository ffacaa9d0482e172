"""``python -m mailbot`` and the ``mailbot`` command run the command line."""

import gc


def run() -> int:
    """The ``mailbot`` program (:func:`mailbot.cli.program`), its modules loaded with the
    cyclic collector held: they make a few hundred thousand objects that stay for the
    process's life, and the collector walked them some 170 times while they loaded, a
    tenth of a start. :func:`mailbot.shell.collector.tune_collector` lets it run again.
    """
    gc.disable()
    from mailbot.cli import program

    return program()


if __name__ == "__main__":  # not when a child process (the courier) imports it
    # a courier's process starts by importing this module: the command line, and
    # every command it imports, stay out of it
    raise SystemExit(run())
