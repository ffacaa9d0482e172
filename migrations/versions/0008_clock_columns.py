"""The games lose four columns nothing ever wrote: each player's oversteps and the
move at which their current count began. The clock computes both from the moves
and penalties (``mailbot.rules.clock.control_state``); the published game page showed the
stored overstep count, always 0, and now shows the clock's.

Revision ID: 0008
Revises: 0007
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: The columns and the value every row held.
COLUMNS = {
    "white_oversteps": "0",
    "black_oversteps": "0",
    "white_count_start_move": "1",
    "black_count_start_move": "1",
}


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        for name in COLUMNS:
            batch.drop_column(name)


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        for name, value in COLUMNS.items():
            batch.add_column(
                sa.Column(name, sa.Integer(), nullable=False, server_default=sa.text(value))
            )
    with op.batch_alter_table("games") as batch:
        for name in COLUMNS:
            batch.alter_column(name, server_default=None)
