"""Initial schema: tournaments, players, games, moves, mail in and out, deadlines.

Revision ID: 0001
Revises:
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "reply_counts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sender", sa.String(length=320), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reply_counts")),
        sa.UniqueConstraint("sender", "day", name=op.f("uq_reply_counts_sender_day")),
    )
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("index", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("profile", sa.String(length=32), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("start", sa.Date(), nullable=False),
        sa.Column("end", sa.Date(), nullable=False),
        sa.Column("extended_to", sa.Date(), nullable=True),
        sa.Column("language", sa.String(length=8), nullable=False),
        sa.Column("notation", sa.String(length=16), nullable=False),
        sa.Column("conditional_moves", sa.Boolean(), nullable=False),
        sa.Column("director_name", sa.String(length=200), nullable=False),
        sa.Column("director_email", sa.String(length=320), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
        sa.UniqueConstraint("index", name=op.f("uq_tournaments_index")),
    )
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("language", sa.String(length=8), nullable=True),
        sa.Column("notation", sa.String(length=16), nullable=True),
        sa.Column("secret", sa.String(length=64), nullable=True),
        sa.Column("withdrawn_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("withdrawal_reason", sa.Text(), nullable=True),
        sa.Column("withdrawal_valid", sa.Boolean(), nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_players_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
        sa.UniqueConstraint("tournament_id", "email", name=op.f("uq_players_tournament_id_email")),
        sa.UniqueConstraint("tournament_id", "key", name=op.f("uq_players_tournament_id_key")),
    )
    op.create_index(op.f("ix_players_email"), "players", ["email"], unique=False)
    op.create_table(
        "games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("white_id", sa.Integer(), nullable=False),
        sa.Column("black_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=True),
        sa.Column("board", sa.Integer(), nullable=True),
        sa.Column("result", sa.String(length=8), nullable=True),
        sa.Column("termination", sa.Text(), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("draw_offer_by", sa.String(length=5), nullable=True),
        sa.Column("draw_offer_ply", sa.Integer(), nullable=True),
        sa.Column("pending_conditional", sa.JSON(), nullable=True),
        sa.Column("pending_conditional_by", sa.String(length=5), nullable=True),
        sa.Column("white_oversteps", sa.Integer(), nullable=False),
        sa.Column("black_oversteps", sa.Integer(), nullable=False),
        sa.Column("white_count_start_move", sa.Integer(), nullable=False),
        sa.Column("black_count_start_move", sa.Integer(), nullable=False),
        sa.Column("last_forwarded_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "draw_offer_by IN ('white', 'black')", name=op.f("ck_games_draw_offer_by")
        ),
        sa.CheckConstraint(
            "pending_conditional_by IN ('white', 'black')",
            name=op.f("ck_games_pending_conditional_by"),
        ),
        sa.CheckConstraint(
            "result IN ('1-0', '0-1', '1/2-1/2', '+/-', '-/+', 'annulled')",
            name=op.f("ck_games_result"),
        ),
        sa.CheckConstraint("white_id <> black_id", name=op.f("ck_games_two_players")),
        sa.ForeignKeyConstraint(
            ["black_id"], ["players.id"], name=op.f("fk_games_black_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_games_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["white_id"], ["players.id"], name=op.f("fk_games_white_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
        sa.UniqueConstraint("tournament_id", "number", name=op.f("uq_games_tournament_id_number")),
    )
    op.create_index(op.f("ix_games_black_id"), "games", ["black_id"], unique=False)
    op.create_index(op.f("ix_games_white_id"), "games", ["white_id"], unique=False)
    op.create_table(
        "inbound_messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.String(length=998), nullable=True),
        sa.Column("raw_sha256", sa.String(length=64), nullable=False),
        sa.Column("folder", sa.String(length=200), nullable=True),
        sa.Column("uidvalidity", sa.BigInteger(), nullable=True),
        sa.Column("uid", sa.BigInteger(), nullable=True),
        sa.Column("internaldate", sa.DateTime(timezone=True), nullable=False),
        sa.Column("from_addr", sa.String(length=320), nullable=True),
        sa.Column("subject", sa.Text(), nullable=True),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("handled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('new', 'processed', 'ignored', 'rejected', 'quarantined')",
            name=op.f("ck_inbound_messages_status"),
        ),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_inbound_messages_game_id_games"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inbound_messages")),
        sa.UniqueConstraint(
            "folder", "uidvalidity", "uid", name=op.f("uq_inbound_messages_folder_uidvalidity_uid")
        ),
        sa.UniqueConstraint("message_id", name=op.f("uq_inbound_messages_message_id")),
        sa.UniqueConstraint("raw_sha256", name=op.f("uq_inbound_messages_raw_sha256")),
    )
    op.create_index(
        op.f("ix_inbound_messages_from_addr"), "inbound_messages", ["from_addr"], unique=False
    )
    op.create_index(
        op.f("ix_inbound_messages_game_id"), "inbound_messages", ["game_id"], unique=False
    )
    op.create_index(
        op.f("ix_inbound_messages_status"), "inbound_messages", ["status"], unique=False
    )
    op.create_table(
        "claims",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("by_color", sa.String(length=5), nullable=True),
        sa.Column("against", sa.String(length=5), nullable=True),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("decided_by", sa.String(length=16), nullable=True),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.Column("inbound_id", sa.Integer(), nullable=True),
        sa.CheckConstraint("against IN ('white', 'black')", name=op.f("ck_claims_against")),
        sa.CheckConstraint("by_color IN ('white', 'black')", name=op.f("ck_claims_by_color")),
        sa.CheckConstraint(
            "kind IN ('silence', 'overstep', 'draw', 'adjudication')", name=op.f("ck_claims_kind")
        ),
        sa.CheckConstraint(
            "status IN ('open', 'confirmed', 'rejected')", name=op.f("ck_claims_status")
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_claims_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["inbound_id"],
            ["inbound_messages.id"],
            name=op.f("fk_claims_inbound_id_inbound_messages"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_claims")),
    )
    op.create_index(op.f("ix_claims_game_id"), "claims", ["game_id"], unique=False)
    op.create_index(op.f("ix_claims_status"), "claims", ["status"], unique=False)
    op.create_table(
        "delay_notices",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("color", sa.String(length=5), nullable=False),
        sa.Column("ply_at", sa.Integer(), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("inbound_id", sa.Integer(), nullable=True),
        sa.CheckConstraint("color IN ('white', 'black')", name=op.f("ck_delay_notices_color")),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_delay_notices_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["inbound_id"],
            ["inbound_messages.id"],
            name=op.f("fk_delay_notices_inbound_id_inbound_messages"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_delay_notices")),
    )
    op.create_index(op.f("ix_delay_notices_game_id"), "delay_notices", ["game_id"], unique=False)
    op.create_table(
        "leave_extras",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("year", sa.Integer(), nullable=False),
        sa.Column("days", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("inbound_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["inbound_id"],
            ["inbound_messages.id"],
            name=op.f("fk_leave_extras_inbound_id_inbound_messages"),
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_leave_extras_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_leave_extras")),
    )
    op.create_index(op.f("ix_leave_extras_player_id"), "leave_extras", ["player_id"], unique=False)
    op.create_table(
        "leaves",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("start", sa.Date(), nullable=False),
        sa.Column("end", sa.Date(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("inbound_id", sa.Integer(), nullable=True),
        sa.Column("granted_by", sa.String(length=8), nullable=False),
        sa.CheckConstraint("granted_by IN ('player', 'td')", name=op.f("ck_leaves_granted_by")),
        sa.CheckConstraint('"end" >= start', name=op.f("ck_leaves_order")),
        sa.ForeignKeyConstraint(
            ["inbound_id"],
            ["inbound_messages.id"],
            name=op.f("fk_leaves_inbound_id_inbound_messages"),
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_leaves_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_leaves")),
    )
    op.create_index(op.f("ix_leaves_player_id"), "leaves", ["player_id"], unique=False)
    op.create_table(
        "moves",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("uci", sa.String(length=5), nullable=False),
        sa.Column("san", sa.String(length=16), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("forwarded_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("received_counted_on", sa.Date(), nullable=True),
        sa.Column("days", sa.Integer(), nullable=False),
        sa.Column("automatic", sa.Boolean(), nullable=False),
        sa.Column("incomplete", sa.Boolean(), nullable=False),
        sa.Column("inbound_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_moves_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["inbound_id"],
            ["inbound_messages.id"],
            name=op.f("fk_moves_inbound_id_inbound_messages"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_moves")),
        sa.UniqueConstraint("game_id", "ply", name=op.f("uq_moves_game_id_ply")),
    )
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.String(length=998), nullable=False),
        sa.Column("to_addrs", sa.JSON(), nullable=False),
        sa.Column("cc_addrs", sa.JSON(), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("headers", sa.JSON(), nullable=False),
        sa.Column("text_body", sa.Text(), nullable=False),
        sa.Column("html_body", sa.Text(), nullable=True),
        sa.Column("event", sa.String(length=32), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("inbound_id", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=8), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('pending', 'sent', 'failed')", name=op.f("ck_outbox_status")
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_outbox_game_id_games"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["inbound_id"],
            ["inbound_messages.id"],
            name=op.f("fk_outbox_inbound_id_inbound_messages"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
        sa.UniqueConstraint("message_id", name=op.f("uq_outbox_message_id")),
    )
    op.create_index(op.f("ix_outbox_game_id"), "outbox", ["game_id"], unique=False)
    op.create_index(
        op.f("ix_outbox_status_next_attempt_at"),
        "outbox",
        ["status", "next_attempt_at"],
        unique=False,
    )
    op.create_table(
        "penalties",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("color", sa.String(length=5), nullable=False),
        sa.Column("days", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(length=32), nullable=False),
        sa.Column("ply_at", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("inbound_id", sa.Integer(), nullable=True),
        sa.Column("decided_by", sa.String(length=8), nullable=False),
        sa.CheckConstraint("color IN ('white', 'black')", name=op.f("ck_penalties_color")),
        sa.CheckConstraint("decided_by IN ('referee', 'td')", name=op.f("ck_penalties_decided_by")),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_penalties_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["inbound_id"],
            ["inbound_messages.id"],
            name=op.f("fk_penalties_inbound_id_inbound_messages"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_penalties")),
    )
    op.create_index(op.f("ix_penalties_game_id"), "penalties", ["game_id"], unique=False)
    op.create_table(
        "leave_cancellations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("leave_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("from_date", sa.Date(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_leave_cancellations_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["leave_id"],
            ["leaves.id"],
            name=op.f("fk_leave_cancellations_leave_id_leaves"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_leave_cancellations")),
        sa.UniqueConstraint(
            "leave_id", "game_id", name=op.f("uq_leave_cancellations_leave_id_game_id")
        ),
    )
    op.create_index(
        op.f("ix_leave_cancellations_game_id"), "leave_cancellations", ["game_id"], unique=False
    )
    op.create_table(
        "notices",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("outbox_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_notices_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["outbox_id"],
            ["outbox.id"],
            name=op.f("fk_notices_outbox_id_outbox"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_notices_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_notices_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notices")),
    )
    op.create_index(op.f("ix_notices_tournament_id"), "notices", ["tournament_id"], unique=False)
    op.create_index(
        "uq_notices_scope",
        "notices",
        [sa.text("coalesce(game_id, 0)"), sa.text("coalesce(player_id, 0)"), "kind", "key"],
        unique=True,
    )


def downgrade() -> None:
    op.drop_index("uq_notices_scope", table_name="notices")
    op.drop_index(op.f("ix_notices_tournament_id"), table_name="notices")
    op.drop_table("notices")
    op.drop_index(op.f("ix_leave_cancellations_game_id"), table_name="leave_cancellations")
    op.drop_table("leave_cancellations")
    op.drop_index(op.f("ix_penalties_game_id"), table_name="penalties")
    op.drop_table("penalties")
    op.drop_index(op.f("ix_outbox_status_next_attempt_at"), table_name="outbox")
    op.drop_index(op.f("ix_outbox_game_id"), table_name="outbox")
    op.drop_table("outbox")
    op.drop_table("moves")
    op.drop_index(op.f("ix_leaves_player_id"), table_name="leaves")
    op.drop_table("leaves")
    op.drop_index(op.f("ix_leave_extras_player_id"), table_name="leave_extras")
    op.drop_table("leave_extras")
    op.drop_index(op.f("ix_delay_notices_game_id"), table_name="delay_notices")
    op.drop_table("delay_notices")
    op.drop_index(op.f("ix_claims_status"), table_name="claims")
    op.drop_index(op.f("ix_claims_game_id"), table_name="claims")
    op.drop_table("claims")
    op.drop_index(op.f("ix_inbound_messages_status"), table_name="inbound_messages")
    op.drop_index(op.f("ix_inbound_messages_game_id"), table_name="inbound_messages")
    op.drop_index(op.f("ix_inbound_messages_from_addr"), table_name="inbound_messages")
    op.drop_table("inbound_messages")
    op.drop_index(op.f("ix_games_white_id"), table_name="games")
    op.drop_index(op.f("ix_games_black_id"), table_name="games")
    op.drop_table("games")
    op.drop_index(op.f("ix_players_email"), table_name="players")
    op.drop_table("players")
    op.drop_table("tournaments")
    op.drop_table("reply_counts")
