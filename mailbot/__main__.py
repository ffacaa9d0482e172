"""``python -m mailbot`` runs the command line."""

if __name__ == "__main__":  # not when a child process (the courier) imports it
    # a courier's process starts by importing this module: the command line, and
    # every command it imports, stay out of it
    from mailbot.cli import program

    raise SystemExit(program())
