"""The director's gender (``f`` or ``m``), as a player's: how Bulgarian and Russian
mail speaks of the director. None, as in every event before it, leaves it to the
director's name.

Revision ID: 0018
Revises: 0017
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(sa.Column("director_gender", sa.String(length=1), nullable=True))
        batch.create_check_constraint(
            op.f("ck_tournaments_director_gender"), "director_gender IN ('f', 'm')"
        )


def downgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_constraint(op.f("ck_tournaments_director_gender"), type_="check")
        batch.drop_column("director_gender")
