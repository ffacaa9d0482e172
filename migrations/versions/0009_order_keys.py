"""Single-use order keys: each message the bot sends to a tournament director alone
carries a key in its ``Reply-To`` (``bot+o-KEY@``); a reply through it carries the
director's orders out once, within 30 days. A Message-ID, which every copy and
forward of the message carries for ever, no longer authorises anything.

Revision ID: 0009
Revises: 0008
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "order_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=32), nullable=False),
        sa.Column("director_email", sa.String(length=320), nullable=False),
        sa.Column("outbox_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lapses_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("spent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("spent_by", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["outbox_id"],
            ["outbox.id"],
            name=op.f("fk_order_keys_outbox_id_outbox"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["spent_by"],
            ["inbound_messages.id"],
            name=op.f("fk_order_keys_spent_by_inbound_messages"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_order_keys")),
    )
    op.create_index(op.f("ix_order_keys_key"), "order_keys", ["key"], unique=True)
    op.create_index(op.f("ix_order_keys_outbox_id"), "order_keys", ["outbox_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_order_keys_outbox_id"), table_name="order_keys")
    op.drop_index(op.f("ix_order_keys_key"), table_name="order_keys")
    op.drop_table("order_keys")
