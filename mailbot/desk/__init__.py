"""The arbiter's desk: the message pipeline and the deadline pass.

The pipeline (one transaction per message), its handlers (one module per word),
the director's orders, a player's requests, the sweep of the deadlines and the
quarantine of messages that keep failing. It imports :mod:`mailbot.rules`,
:mod:`mailbot.mail`, :mod:`mailbot.store` and :mod:`mailbot.compose`; only
:mod:`mailbot.publish` and the entry points import it.
"""
