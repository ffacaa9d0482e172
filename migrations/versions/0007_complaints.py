"""A claim may be a player's complaint about a move (art. 20, 22) or a claim of a win
by the tablebases (003 part 1 art. 11b); the deadlines are
computed anew, as the rules of oversteps (003 part 1 art. 7e) and of leave (art. 45)
changed in this release.

Revision ID: 0007
Revises: 0006
"""

import datetime
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

RECHECK = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
KINDS = ("silence", "overstep", "draw", "adjudication")
NEW = ("complaint", "tablebase")


def _kinds(kinds: Sequence[str]) -> str:
    return "kind IN (" + ", ".join(f"'{k}'" for k in kinds) + ")"


def upgrade() -> None:
    with op.batch_alter_table("claims") as batch:
        batch.drop_constraint(op.f("ck_claims_kind"), type_="check")
        batch.create_check_constraint(op.f("ck_claims_kind"), _kinds((*KINDS, *NEW)))
    games = sa.table("games", sa.column("result"), sa.column("due_at"))
    sqlite = op.get_bind().dialect.name == "sqlite"
    # SQLite stores instants as naive UTC (mailbot.store.models.UTCDateTime)
    recheck = RECHECK.replace(tzinfo=None) if sqlite else RECHECK
    op.execute(games.update().where(games.c.result.is_(None)).values(due_at=recheck))


def downgrade() -> None:
    claims = sa.table("claims", sa.column("kind"))
    op.execute(claims.delete().where(claims.c.kind.in_(NEW)))
    with op.batch_alter_table("claims") as batch:
        batch.drop_constraint(op.f("ck_claims_kind"), type_="check")
        batch.create_check_constraint(op.f("ck_claims_kind"), _kinds(KINDS))
