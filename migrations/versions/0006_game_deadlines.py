"""Each game keeps the instant its next deadline falls due (``games.due_at``), indexed,
so that the sweep reads only the games with something due.

Every unfinished game starts due (1970-01-01): the first sweep after the
upgrade computes its real deadline. A later release that changes how a
deadline is computed does the same in a migration of its own.

Revision ID: 0006
Revises: 0005
"""

import datetime
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

RECHECK = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("due_at", sa.DateTime(timezone=True), nullable=True))
        batch.create_index("ix_games_due", ["result", "due_at"])
    games = sa.table("games", sa.column("result"), sa.column("due_at"))
    sqlite = op.get_bind().dialect.name == "sqlite"
    # SQLite stores instants as naive UTC (mailbot.store.models.UTCDateTime)
    recheck = RECHECK.replace(tzinfo=None) if sqlite else RECHECK
    op.execute(games.update().where(games.c.result.is_(None)).values(due_at=recheck))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_index("ix_games_due")
        batch.drop_column("due_at")
