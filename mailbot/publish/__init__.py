"""What the bot publishes from the store: the web pages, the reports, the dispute files.

``site`` writes a tournament's static pages (the crosstable, a page per game,
the PGN), ``report`` the command line's status, PGN and standings, and
``evidence`` a game's dispute file (every message received and sent, and the
move table). They read the store and write files or text; nothing of the
message path imports them: only the entry points do (``cli``, ``daemon``).

>>> from mailbot.publish.report import split_tag
>>> split_tag("BG-2026-E1/3"), split_tag("BG-2026-E1")
(('BG-2026-E1', 3), ('BG-2026-E1', None))
"""
