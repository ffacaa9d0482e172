"""Mail given up or bounced can be dismissed: the outbox row keeps when
(``dismissed_at``), stays listed, and no longer counts in ``mailbot health``.

Rows before it are dismissed by no one; going back drops the column and keeps
the rows (they warn again).

Revision ID: 0015
Revises: 0014
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("dismissed_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("dismissed_at")
