"""The rules of correspondence chess as the bot keeps them: pure values and functions.

What is here decides (a move's verdict, the days a move took, a game's end,
the pairings, the standings, the rule sets of the profiles) and does no I/O:
no database, no mail, no network, no wall clock (``now`` is a parameter).
It imports only the standard library, python-chess, pydantic (which checks the
rule overrides, :mod:`mailbot.rules.validation`) and the other modules of this
folder; every other module of the bot may import it (a phrase is a code and its
details: whoever holds the catalogue, :mod:`mailbot.compose.catalogue`, writes
its words). The rules it follows are described in ``docs/rules.md``.

>>> import chess
>>> from mailbot.rules.notation import Notation
>>> from mailbot.rules.referee import judge
>>> verdict = judge("Кg1-f3", chess.Board(), Notation.BG_CYRILLIC)
>>> verdict.verdict.name, verdict.move.uci()
('LEGAL', 'g1f3')
"""
