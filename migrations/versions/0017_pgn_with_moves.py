"""The game as PGN with every move mail: an outbox row carries the files sent after
its text (``attachments``, none for the rows before it), and a player whether they
want the PGN (``pgn off`` stops it; every player has it until then).

Going back drops both columns: rows not sent yet go without their files.

Revision ID: 0017
Revises: 0016
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("attachments", sa.JSON(), nullable=True))
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("pgn", sa.Boolean(), server_default=sa.true(), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("pgn")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("attachments")
