"""Mailbot: a correspondence-chess arbiter that plays by e-mail.

The pure core (``notation``, ``referee``, ``clock``, ``leave``, ``game``,
``pairings``) knows nothing of mail, SQL or the wall clock; the shell
(``store``, ``cli``) wraps it.
"""

__version__ = "0.1.0"
