"""Team events (teams with captains and board order), a player's country, rating,
other addresses, and who took over a replaced player's games.

Revision ID: 0005
Revises: 0004
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "teams",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "tournament_id",
            sa.Integer(),
            sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("captain_name", sa.String(200), nullable=True),
        sa.Column("captain_email", sa.String(320), nullable=True),
        sa.UniqueConstraint("tournament_id", "key"),
    )
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("country", sa.String(3), nullable=True))
        batch.add_column(sa.Column("rating", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("team_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("board", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("replaced_by_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(
            "fk_players_team_id_teams", "teams", ["team_id"], ["id"], ondelete="SET NULL"
        )
        batch.create_foreign_key(
            "fk_players_replaced_by_id_players",
            "players",
            ["replaced_by_id"],
            ["id"],
            ondelete="SET NULL",
        )
        batch.create_index("ix_players_team_id", ["team_id"])
    op.create_table(
        "player_addresses",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "player_id",
            sa.Integer(),
            sa.ForeignKey("players.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("email", sa.String(320), nullable=False),
        sa.UniqueConstraint("player_id", "email"),
    )
    op.create_index("ix_player_addresses_email", "player_addresses", ["email"])


def downgrade() -> None:
    op.drop_index("ix_player_addresses_email", table_name="player_addresses")
    op.drop_table("player_addresses")
    with op.batch_alter_table("players") as batch:
        batch.drop_index("ix_players_team_id")
        batch.drop_constraint("fk_players_replaced_by_id_players", type_="foreignkey")
        batch.drop_constraint("fk_players_team_id_teams", type_="foreignkey")
        batch.drop_column("replaced_by_id")
        batch.drop_column("board")
        batch.drop_column("team_id")
        batch.drop_column("rating")
        batch.drop_column("country")
    op.drop_table("teams")
