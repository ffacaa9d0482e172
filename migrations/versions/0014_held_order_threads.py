"""A held order keeps the bot's message it answered (a claim's packet, a notice about a
game): confirmed, it takes its claim or game from that message, as an order through
the message's own reply address does.

Revision ID: 0014
Revises: 0013
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("held_orders") as batch:
        batch.add_column(sa.Column("answered_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(
            "fk_held_orders_answered_id_outbox",
            "outbox",
            ["answered_id"],
            ["id"],
            ondelete="SET NULL",
        )


def downgrade() -> None:
    with op.batch_alter_table("held_orders") as batch:
        batch.drop_constraint("fk_held_orders_answered_id_outbox", type_="foreignkey")
        batch.drop_column("answered_id")
