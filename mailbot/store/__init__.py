"""The store: models with their column types, the engine and dialects, schema
upgrades, queries, the start list it is loaded from, and every write of a row.

Only this folder writes rows, through operations named for what they do
(docs/architecture.md 1.1). It imports only :mod:`mailbot.rules` and
:mod:`mailbot.mail`.
"""
