"""A message's place in the mailbox (folder, UIDVALIDITY, UID) is no longer unique:
a mailbox made anew may hand out numbers already seen to new messages, and a
duplicate is the same message (its bytes, or its Message-ID, sender and text),
never just the same place. And ``heartbeats``: when the last poll and the last
sweep succeeded, for ``mailbot health`` in any process.

The downgrade makes the place unique again; it fails if two messages now share
one, which only a mailbox made anew can cause.

Revision ID: 0010
Revises: 0009
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PLACE = "uq_inbound_messages_folder_uidvalidity_uid"


def upgrade() -> None:
    with op.batch_alter_table("inbound_messages") as batch:
        batch.drop_constraint(PLACE, type_="unique")
    op.create_table(
        "heartbeats",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_heartbeats")),
    )


def downgrade() -> None:
    op.drop_table("heartbeats")
    with op.batch_alter_table("inbound_messages") as batch:
        batch.create_unique_constraint(PLACE, ["folder", "uidvalidity", "uid"])
