"""Why a message was not acted on, as a phrase: its code and details, so that the
dispute file writes the reason in the event's language (the ``reason`` column keeps
it in English for the logs and the command line).

Revision ID: 0013
Revises: 0012
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("inbound_messages") as batch:
        batch.add_column(sa.Column("reason_phrase", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("inbound_messages") as batch:
        batch.drop_column("reason_phrase")
