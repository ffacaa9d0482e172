"""``python -m mailbot`` runs the command line."""

from mailbot.cli import main

raise SystemExit(main())
