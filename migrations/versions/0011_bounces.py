"""Bounces that come back later: an outbox row may be ``bounced`` (a delivery report
said it never arrived), with the check value of its return path (VERP) and when it
bounced; a player carries how often mail to their address bounced, and when last.

The downgrade turns bounced rows back into sent ones (they were sent) and drops
the new columns.

Revision ID: 0011
Revises: 0010
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

STATUSES = ("pending", "sent", "failed")
NEW = ("bounced",)


def _statuses(statuses: Sequence[str]) -> str:
    return "status IN (" + ", ".join(f"'{s}'" for s in statuses) + ")"


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_constraint(op.f("ck_outbox_status"), type_="check")
        batch.create_check_constraint(op.f("ck_outbox_status"), _statuses((*STATUSES, *NEW)))
        batch.add_column(sa.Column("verp_check", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("bounced_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("bounces", sa.Integer(), server_default="0", nullable=False))
        batch.add_column(sa.Column("bounced_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    outbox = sa.table("outbox", sa.column("status"))
    op.execute(outbox.update().where(outbox.c.status.in_(NEW)).values(status="sent"))
    with op.batch_alter_table("players") as batch:
        batch.drop_column("bounced_at")
        batch.drop_column("bounces")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("bounced_at")
        batch.drop_column("verp_check")
        batch.drop_constraint(op.f("ck_outbox_status"), type_="check")
        batch.create_check_constraint(op.f("ck_outbox_status"), _statuses(STATUSES))
