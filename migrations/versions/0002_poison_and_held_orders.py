"""Mail that cannot jam the bot: a Message-ID is no longer unique (a fingerprint of
Message-ID, sender and text says whether a message is the same), the hash of the
sender's text (a mail loop repeats it), and orders held for the director's
confirmation.

Revision ID: 0002
Revises: 0001
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("inbound_messages") as batch:
        batch.drop_constraint("uq_inbound_messages_message_id", type_="unique")
        batch.add_column(sa.Column("fingerprint", sa.String(length=64), nullable=True))
        batch.create_unique_constraint("uq_inbound_messages_fingerprint", ["fingerprint"])
        batch.add_column(sa.Column("text_sha256", sa.String(length=64), nullable=True))
        batch.create_index("ix_inbound_messages_text_sha256", ["text_sha256"], unique=False)
    op.create_table(
        "held_orders",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("director_email", sa.String(length=320), nullable=False),
        sa.Column("orders", sa.JSON(), nullable=False),
        sa.Column("inbound_id", sa.Integer(), nullable=True),
        sa.Column("outbox_id", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lapses_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('held', 'confirmed', 'cancelled', 'lapsed')",
            name=op.f("ck_held_orders_status"),
        ),
        sa.ForeignKeyConstraint(
            ["inbound_id"],
            ["inbound_messages.id"],
            name=op.f("fk_held_orders_inbound_id_inbound_messages"),
        ),
        sa.ForeignKeyConstraint(
            ["outbox_id"],
            ["outbox.id"],
            name=op.f("fk_held_orders_outbox_id_outbox"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_held_orders")),
    )
    op.create_index(
        op.f("ix_held_orders_director_email"), "held_orders", ["director_email"], unique=False
    )
    op.create_index(op.f("ix_held_orders_outbox_id"), "held_orders", ["outbox_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_held_orders_outbox_id"), table_name="held_orders")
    op.drop_index(op.f("ix_held_orders_director_email"), table_name="held_orders")
    op.drop_table("held_orders")
    with op.batch_alter_table("inbound_messages") as batch:
        batch.drop_index("ix_inbound_messages_text_sha256")
        batch.drop_column("text_sha256")
        batch.drop_constraint("uq_inbound_messages_fingerprint", type_="unique")
        batch.drop_column("fingerprint")
        batch.create_unique_constraint("uq_inbound_messages_message_id", ["message_id"])
