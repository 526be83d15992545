"""Initial store: tables, rounds, hand histories, events, alerts, audit chain, webhook outbox.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
TS = sa.DateTime()

# The audit log is append-only at the database level too: an UPDATE or DELETE is refused by a
# trigger, so tampering needs a deliberate schema change (which the hash chain then exposes).
SQLITE_TRIGGERS = [
    """CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
       BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END""",
    """CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
       BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END""",
]
PG_TRIGGERS = [
    """CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION 'audit_log is append-only'; END $$""",
    """CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
       FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()""",
    """CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
       FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()""",
]


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(32), nullable=True),
        sa.Column("state", JSON, nullable=False),
        sa.Column("first_seen_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.Column("last_event_seq", sa.BigInteger(), nullable=True),
    )
    op.create_table(
        "rounds",
        sa.Column("id", sa.String(160), primary_key=True),
        sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id"), nullable=False),
        sa.Column("round_ref", sa.String(96), nullable=False),
        sa.Column("game", sa.String(32), nullable=True),
        sa.Column("phase", sa.String(48), nullable=True),
        sa.Column("started_at", TS, nullable=False),
        sa.Column("ended_at", TS, nullable=True),
        sa.Column("media_start", sa.Float(), nullable=True),
        sa.Column("media_end", sa.Float(), nullable=True),
        sa.Column("alert_count", sa.Integer(), nullable=False),
    )
    op.create_index("ix_rounds_table_started", "rounds", ["table_id", "started_at"])
    op.create_table(
        "hand_histories",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("round_id", sa.String(160), sa.ForeignKey("rounds.id"), nullable=False, unique=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("game", sa.String(32), nullable=True),
        sa.Column("recorded_at", TS, nullable=False),
        sa.Column("history", JSON, nullable=False),
    )
    op.create_index("ix_hand_histories_table_id", "hand_histories", ["table_id"])
    op.create_index("ix_hand_histories_recorded_at", "hand_histories", ["recorded_at"])
    op.create_table(
        "events",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(48), nullable=False),
        sa.Column("source", sa.String(32), nullable=True),
        sa.Column("media_time", sa.Float(), nullable=True),
        sa.Column("received_at", TS, nullable=False),
        sa.Column("payload", JSON, nullable=False),
        sa.UniqueConstraint("table_id", "seq", name="uq_events_table_seq"),
    )
    op.create_index("ix_events_received_at", "events", ["received_at"])
    op.create_table(
        "alerts",
        sa.Column("id", sa.String(160), primary_key=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("game", sa.String(32), nullable=True),
        sa.Column("round_id", sa.String(160), nullable=True),
        sa.Column("code", sa.String(64), nullable=False),
        sa.Column("rule", sa.String(160), nullable=True),
        sa.Column("severity", sa.String(16), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("evidence", JSON, nullable=False),
        sa.Column("media_begin", sa.Float(), nullable=True),
        sa.Column("media_trigger", sa.Float(), nullable=True),
        sa.Column("media_end", sa.Float(), nullable=True),
        sa.Column("wall_begin", TS, nullable=True),
        sa.Column("wall_trigger", TS, nullable=True),
        sa.Column("wall_end", TS, nullable=True),
        sa.Column("snapshot", sa.String(512), nullable=True),
        sa.Column("raised_at", TS, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("acknowledged_by", sa.String(64), nullable=True),
        sa.Column("acknowledged_at", TS, nullable=True),
        sa.Column("acknowledge_comment", sa.Text(), nullable=True),
        sa.Column("resolved_by", sa.String(64), nullable=True),
        sa.Column("resolved_at", TS, nullable=True),
        sa.Column("resolve_comment", sa.Text(), nullable=True),
        sa.Column("payload", JSON, nullable=False),
    )
    op.create_index("ix_alerts_round_id", "alerts", ["round_id"])
    op.create_index("ix_alerts_raised_at", "alerts", ["raised_at"])
    op.create_index("ix_alerts_table_raised", "alerts", ["table_id", "raised_at"])
    op.create_index("ix_alerts_status_raised", "alerts", ["status", "raised_at"])
    op.create_index("ix_alerts_severity_raised", "alerts", ["severity", "raised_at"])
    op.create_table(
        "audit_log",
        sa.Column("seq", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("recorded_at", sa.String(40), nullable=False),
        sa.Column("actor", sa.String(64), nullable=False),
        sa.Column("action", sa.String(48), nullable=False),
        sa.Column("subject_type", sa.String(32), nullable=False),
        sa.Column("subject_id", sa.String(160), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False, unique=True),
    )
    op.create_index("ix_audit_log_subject_id", "audit_log", ["subject_id"])
    op.create_table(
        "webhook_outbox",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("alert_id", sa.String(160), nullable=False),
        sa.Column("target", sa.String(64), nullable=False),
        sa.Column("idempotency_key", sa.String(240), nullable=False, unique=True),
        sa.Column("content_type", sa.String(64), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", TS, nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("delivered_at", TS, nullable=True),
    )
    op.create_index("ix_webhook_outbox_alert_id", "webhook_outbox", ["alert_id"])
    op.create_index("ix_outbox_due", "webhook_outbox", ["target", "status", "next_attempt_at"])
    statements = PG_TRIGGERS if op.get_bind().dialect.name == "postgresql" else SQLITE_TRIGGERS
    for statement in statements:
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS audit_log_no_change ON audit_log")
        op.execute("DROP TRIGGER IF EXISTS audit_log_no_truncate ON audit_log")
        op.execute("DROP FUNCTION IF EXISTS audit_log_append_only()")
    for table in ("webhook_outbox", "audit_log", "alerts", "events", "hand_histories", "rounds", "tables"):
        op.drop_table(table)
