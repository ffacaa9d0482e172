"""What the bot writes: events in, outbox rows out.

The notifier turns the events of a unit of work into messages: it hands each
event to its teller (the table of tellers) — moves, deadlines,
claims, leave, digests, answers, tournament, orders, trouble, bounces — and
queues what they drafted (messages, drafts), through the templates (notices), the
catalogue of phrases in each language, the diagrams and a game's subject and
headers (gamemail). It imports :mod:`mailbot.rules`, :mod:`mailbot.mail` and
:mod:`mailbot.store`, never the desk.
"""
