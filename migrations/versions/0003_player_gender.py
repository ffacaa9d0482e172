"""A player's gender (``f`` or ``m``), for the Bulgarian and Russian forms of address.

Revision ID: 0003
Revises: 0002
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("gender", sa.String(length=1), nullable=True))
        batch.create_check_constraint(op.f("ck_players_gender"), "gender IN ('f', 'm')")


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_constraint(op.f("ck_players_gender"), type_="check")
        batch.drop_column("gender")
