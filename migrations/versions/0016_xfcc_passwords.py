"""Xfcc: a player's password as a slow hash (one per address), and the refused
logins the lockout counts.

Going back drops both tables: the players ask for a new password.

Revision ID: 0016
Revises: 0015
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "xfcc_passwords",
        sa.Column("address", sa.String(320), nullable=False),
        sa.Column("hashed", sa.String(256), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("mailed_for", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("address", name=op.f("pk_xfcc_passwords")),
    )
    op.create_table(
        "xfcc_refusals",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(320), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_xfcc_refusals")),
    )
    op.create_index(op.f("ix_xfcc_refusals_address"), "xfcc_refusals", ["address"])


def downgrade() -> None:
    op.drop_index(op.f("ix_xfcc_refusals_address"), table_name="xfcc_refusals")
    op.drop_table("xfcc_refusals")
    op.drop_table("xfcc_passwords")
