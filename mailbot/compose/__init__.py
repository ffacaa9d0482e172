"""What the bot writes: events in, outbox rows out.

The notifier turns the events of a unit of work into messages, through the
templates (notices), the catalogue of phrases in each language, the digests, the
diagrams and a game's subject and headers (gamemail). It imports
:mod:`mailbot.rules`, :mod:`mailbot.mail` and :mod:`mailbot.store`, never the desk.
"""
