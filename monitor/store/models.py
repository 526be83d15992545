"""ORM models: the store's tables (typed SQLAlchemy 2 declarative mapping).

The schema itself is created by the Alembic migrations; ``tests/store/test_migrations.py`` checks
that these models and the migrations agree.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, ClassVar

from sqlalchemy import JSON, BigInteger, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from monitor.store.types import UTCDateTime, utcnow

JSONType = JSON().with_variant(JSONB(), "postgresql")


class Base(DeclarativeBase):
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        datetime: UTCDateTime(),
        dict[str, Any]: JSONType,
        list[Any]: JSONType,
    }


class AlertStatus(StrEnum):
    """An alert's life cycle: raised, seen by a supervisor, closed with a comment."""

    NEW = "new"
    ACKNOWLEDGED = "acknowledged"
    RESOLVED = "resolved"


class TableRow(Base):
    """A gaming table that has reported at least one event; ``state`` is its latest live state."""

    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    game: Mapped[str | None] = mapped_column(String(32))
    state: Mapped[dict[str, Any]] = mapped_column(default=dict)
    first_seen_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_event_seq: Mapped[int | None] = mapped_column(BigInteger)


class RoundRow(Base):
    """One round (deal) at a table."""

    __tablename__ = "rounds"
    __table_args__ = (Index("ix_rounds_table_started", "table_id", "started_at"),)

    id: Mapped[str] = mapped_column(String(160), primary_key=True)
    table_id: Mapped[str] = mapped_column(String(64), ForeignKey("tables.id"))
    round_ref: Mapped[str] = mapped_column(String(96))
    game: Mapped[str | None] = mapped_column(String(32))
    phase: Mapped[str | None] = mapped_column(String(48))
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    ended_at: Mapped[datetime | None]
    media_start: Mapped[float | None] = mapped_column(Float)
    media_end: Mapped[float | None] = mapped_column(Float)
    alert_count: Mapped[int] = mapped_column(Integer, default=0)


class HandHistoryRow(Base):
    """The hand history of a finished round, as the procedure monitor wrote it."""

    __tablename__ = "hand_histories"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    round_id: Mapped[str] = mapped_column(String(160), ForeignKey("rounds.id"), unique=True)
    table_id: Mapped[str] = mapped_column(String(64), index=True)
    game: Mapped[str | None] = mapped_column(String(32))
    recorded_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    history: Mapped[dict[str, Any]]


class EventRow(Base):
    """Every event received, once per (table, sequence number)."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("table_id", "seq", name="uq_events_table_seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(64))
    seq: Mapped[int] = mapped_column(BigInteger)
    kind: Mapped[str] = mapped_column(String(48))
    source: Mapped[str | None] = mapped_column(String(32))
    media_time: Mapped[float | None] = mapped_column(Float)
    received_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    payload: Mapped[dict[str, Any]]
    # the name of the rule profile that judged it (NULL: stored before events named one)
    profile: Mapped[str | None] = mapped_column(String(64))


class AlertRow(Base):
    """An alert raised by the procedure monitor, with its life cycle."""

    __tablename__ = "alerts"
    __table_args__ = (
        Index("ix_alerts_table_raised", "table_id", "raised_at"),
        Index("ix_alerts_status_raised", "status", "raised_at"),
        Index("ix_alerts_severity_raised", "severity", "raised_at"),
    )

    id: Mapped[str] = mapped_column(String(160), primary_key=True)
    table_id: Mapped[str] = mapped_column(String(64))
    game: Mapped[str | None] = mapped_column(String(32))
    round_id: Mapped[str | None] = mapped_column(String(160), index=True)
    code: Mapped[str] = mapped_column(String(64))
    rule: Mapped[str | None] = mapped_column(String(160))
    severity: Mapped[str] = mapped_column(String(16))
    message: Mapped[str] = mapped_column(Text)
    evidence: Mapped[list[Any]] = mapped_column(default=list)
    media_begin: Mapped[float | None] = mapped_column(Float)
    media_trigger: Mapped[float | None] = mapped_column(Float)
    media_end: Mapped[float | None] = mapped_column(Float)
    wall_begin: Mapped[datetime | None]
    wall_trigger: Mapped[datetime | None]
    wall_end: Mapped[datetime | None]
    snapshot: Mapped[str | None] = mapped_column(String(512))
    raised_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    status: Mapped[str] = mapped_column(String(16), default=AlertStatus.NEW.value)
    acknowledged_by: Mapped[str | None] = mapped_column(String(64))
    acknowledged_at: Mapped[datetime | None]
    acknowledge_comment: Mapped[str | None] = mapped_column(Text)
    resolved_by: Mapped[str | None] = mapped_column(String(64))
    resolved_at: Mapped[datetime | None]
    resolve_comment: Mapped[str | None] = mapped_column(Text)
    payload: Mapped[dict[str, Any]] = mapped_column(default=dict)


class AuditEntryRow(Base):
    """One link of the append-only audit chain (database triggers refuse UPDATE and DELETE)."""

    __tablename__ = "audit_log"

    seq: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    recorded_at: Mapped[str] = mapped_column(String(40))
    actor: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(48))
    subject_type: Mapped[str] = mapped_column(String(32))
    subject_id: Mapped[str] = mapped_column(String(160), index=True)
    data: Mapped[str] = mapped_column(Text)
    prev_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64), unique=True)


class OutboxStatus(StrEnum):
    PENDING = "pending"
    DELIVERED = "delivered"
    # the target refused it for good (a 4xx other than 408 and 429): kept, not retried until an admin
    # asks for it (POST /api/v1/webhooks/deliveries/{id}/retry)
    DEAD = "dead"


class OutboxRow(Base):
    """A webhook delivery owed to a target; written in the same transaction as its alert."""

    __tablename__ = "webhook_outbox"
    __table_args__ = (Index("ix_outbox_due", "target", "status", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    alert_id: Mapped[str] = mapped_column(String(160), index=True)
    target: Mapped[str] = mapped_column(String(64))
    idempotency_key: Mapped[str] = mapped_column(String(240), unique=True)
    content_type: Mapped[str] = mapped_column(String(64))
    body: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default=OutboxStatus.PENDING.value)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    delivered_at: Mapped[datetime | None]
