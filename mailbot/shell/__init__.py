"""The running process: the daemon's loop, the courier that sends the outbox beside
it, systemd's notifications, the health checks, the metrics endpoint and the logs.

It may import every layer below it (:mod:`mailbot.rules`, :mod:`mailbot.mail`,
:mod:`mailbot.store`, :mod:`mailbot.compose`, :mod:`mailbot.desk`,
:mod:`mailbot.publish`); nothing of those imports it: only the entry points at
the top (:mod:`mailbot.cli`, :mod:`mailbot.demo`, :mod:`mailbot.preflight`) and
the command line's :mod:`mailbot.commands` do.
"""
