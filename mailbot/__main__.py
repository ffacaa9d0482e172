"""``python -m mailbot`` runs the command line."""

from mailbot.cli import program

if __name__ == "__main__":  # not when a child process (the courier) imports it
    raise SystemExit(program())
