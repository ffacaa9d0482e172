"""Words beside a move forwarded to the opponent (``forward_messages``), a player's
daily digest instead of a mail per move, and the director's weekly digest.

Revision ID: 0004
Revises: 0003
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(
            sa.Column("forward_messages", sa.Boolean(), nullable=False, server_default=sa.true())
        )
        batch.add_column(
            sa.Column("director_digest", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("players") as batch:
        batch.add_column(
            sa.Column("digest", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("digest_sent_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("digest_sent_at")
        batch.drop_column("digest")
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("director_digest")
        batch.drop_column("forward_messages")
