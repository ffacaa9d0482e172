"""Alembic migrations of the Mailbot database (``mailbot init`` runs them)."""
