"""The store: models with their column types, the engine and dialects, schema
upgrades, queries, and the writers. It imports only ``mailbot.rules`` and
``mailbot.mail``; nothing below it writes a row.
"""
