"""What the API and the ingest pipeline do to the store, each inside the caller's transaction.

Every alert written and every change to one appends an audit entry in the same transaction,
so the record and its audit trail commit (or vanish) together.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Select, Table, func, select
from sqlalchemy.orm import Session

from monitor.store import audit
from monitor.store.models import (
    AlertRow,
    AlertStatus,
    AuditEntryRow,
    EventRow,
    HandHistoryRow,
    RoundRow,
    TableRow,
)
from monitor.store.types import utcnow

SYSTEM_ACTOR = "system:monitor"


class StoreError(Exception):
    """Base of the store's refusals (the API maps them to HTTP answers)."""


class NotFoundError(StoreError):
    pass


class TransitionError(StoreError):
    """An alert life-cycle change that its current status does not allow."""


# ---------------------------------------------------------------- tables, rounds, events


def _cached(session: Session, model: type[Any], key: str) -> Any:
    """``session.get`` that also finds rows added (not yet flushed) in this session: the ingest
    writer touches the same table and round many times per transaction, and a flush plus a
    SELECT each time was most of its cost."""
    rows: dict[tuple[type[Any], str], Any] = session.info.setdefault("table_monitor_rows", {})
    row = rows.get((model, key))
    if row is None:
        row = session.get(model, key)
        if row is not None:
            rows[(model, key)] = row
    return row


def _remember(session: Session, model: type[Any], key: str, row: Any) -> None:
    session.info.setdefault("table_monitor_rows", {})[(model, key)] = row


def upsert_table(session: Session, table_id: str, *, game: str | None, state: dict[str, Any] | None = None,
                 seq: int | None = None) -> TableRow:
    row: TableRow | None = _cached(session, TableRow, table_id)
    now = utcnow()
    if row is None:
        row = TableRow(id=table_id, game=game, state=state or {}, first_seen_at=now, updated_at=now,
                       last_event_seq=seq)
        session.add(row)
        session.flush()  # rounds reference it (no ORM relationship orders the inserts for us)
        _remember(session, TableRow, table_id, row)
        return row
    if game:
        row.game = game
    if state is not None:
        row.state = state
    if seq is not None and (row.last_event_seq is None or seq > row.last_event_seq):
        row.last_event_seq = seq
    row.updated_at = now
    return row


_KEYS_PER_QUERY = 500  # sequence numbers per IN (...): well under every backend's bound-parameter limit


def known_event_keys(session: Session, keys: set[tuple[str, int]]) -> set[tuple[str, int]]:
    """Which of ``keys`` (table, seq) are already stored (one query per table and 500 keys)."""
    found: set[tuple[str, int]] = set()
    by_table: dict[str, list[int]] = {}
    for table_id, seq in keys:
        by_table.setdefault(table_id, []).append(seq)
    for table_id, seqs in by_table.items():
        for i in range(0, len(seqs), _KEYS_PER_QUERY):
            chunk = seqs[i:i + _KEYS_PER_QUERY]
            stmt = select(EventRow.seq).where(EventRow.table_id == table_id, EventRow.seq.in_(chunk))
            found.update((table_id, seq) for seq in session.execute(stmt).scalars())
    return found


def insert_events(session: Session, rows: list[dict[str, Any]]) -> None:
    """Insert new events in one statement (the caller has checked they are new)."""
    if rows:
        session.execute(cast(Table, EventRow.__table__).insert(), rows)


def round_key(table_id: str, round_ref: str) -> str:
    return f"{table_id}/{round_ref}"


def upsert_round(session: Session, *, table_id: str, round_ref: str, game: str | None,
                 phase: str | None = None, media_time: float | None = None, ended: bool = False) -> RoundRow:
    key = round_key(table_id, round_ref)
    row: RoundRow | None = _cached(session, RoundRow, key)
    now = utcnow()
    if row is None:
        if _cached(session, TableRow, table_id) is None:
            upsert_table(session, table_id, game=game)
        row = RoundRow(id=key, table_id=table_id, round_ref=round_ref, game=game, phase=phase, started_at=now,
                       media_start=media_time, alert_count=0)
        session.add(row)
        _remember(session, RoundRow, key, row)
    else:
        if phase:
            row.phase = phase
        if game and not row.game:
            row.game = game
    if ended and row.ended_at is None:
        row.ended_at = now
        row.media_end = media_time
    return row


def save_hand_history(session: Session, *, table_id: str, round_ref: str, game: str | None,
                      history: dict[str, Any]) -> HandHistoryRow:
    """Keep the latest history of a round (a replay of the same round rewrites it)."""
    rnd = upsert_round(session, table_id=table_id, round_ref=round_ref, game=game)
    stmt = select(HandHistoryRow).where(HandHistoryRow.round_id == rnd.id)
    row = session.execute(stmt).scalar_one_or_none()
    if row is None:
        row = HandHistoryRow(round_id=rnd.id, table_id=table_id, game=game, history=history,
                             recorded_at=utcnow())
        session.add(row)
    else:
        row.history = history
        row.recorded_at = utcnow()
    session.flush()
    return row


# ---------------------------------------------------------------- alerts


@dataclass(slots=True)
class NewAlert:
    """The column values of an alert about to be stored (built from the procedure's Alert)."""

    id: str
    table_id: str
    code: str
    severity: str
    message: str
    game: str | None = None
    round_ref: str | None = None
    rule: str | None = None
    evidence: list[Any] = field(default_factory=list)
    media_begin: float | None = None
    media_trigger: float | None = None
    media_end: float | None = None
    wall_begin: datetime | None = None
    wall_trigger: datetime | None = None
    wall_end: datetime | None = None
    snapshot: str | None = None
    payload: dict[str, Any] = field(default_factory=dict)


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat(timespec="microseconds")


def _content_digest(row: AlertRow) -> str:
    content = {"evidence": row.evidence, "payload": row.payload, "snapshot": row.snapshot}
    return hashlib.sha256(audit.canonical_json(content).encode()).hexdigest()


def alert_audit_state(row: AlertRow) -> dict[str, Any]:
    """What the audit chain pins down about an alert: identity, content digest, life cycle."""
    return {
        "id": row.id,
        "table_id": row.table_id,
        "round_id": row.round_id,
        "code": row.code,
        "rule": row.rule,
        "severity": row.severity,
        "message": row.message,
        "media": [row.media_begin, row.media_trigger, row.media_end],
        "raised_at": _iso(row.raised_at),
        "content_sha256": _content_digest(row),
        "status": row.status,
        "acknowledged_by": row.acknowledged_by,
        "acknowledged_at": _iso(row.acknowledged_at),
        "acknowledge_comment": row.acknowledge_comment,
        "resolved_by": row.resolved_by,
        "resolved_at": _iso(row.resolved_at),
        "resolve_comment": row.resolve_comment,
    }


def record_alert(session: Session, new: NewAlert, *, actor: str = SYSTEM_ACTOR) -> AlertRow | None:
    """Store ``new`` unless an alert with its id exists (a resend never duplicates); audit it."""
    if session.get(AlertRow, new.id) is not None:
        return None
    round_id = None
    if new.round_ref is not None:
        rnd = upsert_round(session, table_id=new.table_id, round_ref=new.round_ref, game=new.game)
        rnd.alert_count += 1
        round_id = rnd.id
    row = AlertRow(
        id=new.id, table_id=new.table_id, game=new.game, round_id=round_id, code=new.code, rule=new.rule,
        severity=new.severity, message=new.message, evidence=new.evidence, media_begin=new.media_begin,
        media_trigger=new.media_trigger, media_end=new.media_end, wall_begin=new.wall_begin,
        wall_trigger=new.wall_trigger, wall_end=new.wall_end, snapshot=new.snapshot, raised_at=utcnow(),
        status=AlertStatus.NEW.value, payload=new.payload,
    )
    session.add(row)
    audit.append(session, actor=actor, action="alert.raised", subject_type="alert", subject_id=row.id,
                 data=alert_audit_state(row))
    return row


def _locked_alert(session: Session, alert_id: str) -> AlertRow:
    stmt = select(AlertRow).where(AlertRow.id == alert_id).with_for_update()
    row = session.execute(stmt).scalar_one_or_none()
    if row is None:
        raise NotFoundError(f"no alert with id {alert_id!r}")
    return row


def acknowledge_alert(session: Session, alert_id: str, *, actor: str, comment: str | None) -> AlertRow:
    row = _locked_alert(session, alert_id)
    if row.status != AlertStatus.NEW.value:
        raise TransitionError(f"alert {alert_id!r} is {row.status}; only a new alert can be acknowledged")
    row.status = AlertStatus.ACKNOWLEDGED.value
    row.acknowledged_by = actor
    row.acknowledged_at = utcnow()
    row.acknowledge_comment = comment
    session.flush()
    audit.append(session, actor=actor, action="alert.acknowledged", subject_type="alert", subject_id=row.id,
                 data=alert_audit_state(row))
    return row


def resolve_alert(session: Session, alert_id: str, *, actor: str, comment: str) -> AlertRow:
    row = _locked_alert(session, alert_id)
    if row.status == AlertStatus.RESOLVED.value:
        raise TransitionError(f"alert {alert_id!r} is already resolved (by {row.resolved_by})")
    now = utcnow()
    if row.status == AlertStatus.NEW.value:  # resolving implies having seen it
        row.acknowledged_by = actor
        row.acknowledged_at = now
    row.status = AlertStatus.RESOLVED.value
    row.resolved_by = actor
    row.resolved_at = now
    row.resolve_comment = comment
    session.flush()
    audit.append(session, actor=actor, action="alert.resolved", subject_type="alert", subject_id=row.id,
                 data=alert_audit_state(row))
    return row


def attach_snapshot(session: Session, alert_id: str, snapshot: str, *, actor: str) -> AlertRow | None:
    """Give an alert that has none the snapshot a table's run sent after it (audited, as the snapshot is
    part of what the chain pins down); None when it has one already (a resend changes nothing)."""
    row = _locked_alert(session, alert_id)
    if row.snapshot:
        return None
    row.snapshot = snapshot
    session.flush()
    audit.append(session, actor=actor, action="alert.snapshot_attached", subject_type="alert",
                 subject_id=row.id, data=alert_audit_state(row))
    return row


@dataclass(frozen=True, slots=True)
class AlertFilter:
    table_id: str | None = None
    severity: list[str] | None = None
    status: list[str] | None = None
    since: datetime | None = None
    until: datetime | None = None
    round_id: str | None = None


def _filtered(stmt: Select[Any], f: AlertFilter) -> Select[Any]:
    if f.table_id:
        stmt = stmt.where(AlertRow.table_id == f.table_id)
    if f.severity:
        stmt = stmt.where(AlertRow.severity.in_(f.severity))
    if f.status:
        stmt = stmt.where(AlertRow.status.in_(f.status))
    if f.since:
        stmt = stmt.where(AlertRow.raised_at >= f.since)
    if f.until:
        stmt = stmt.where(AlertRow.raised_at < f.until)
    if f.round_id:
        stmt = stmt.where(AlertRow.round_id == f.round_id)
    return stmt


def list_alerts(session: Session, f: AlertFilter, *, limit: int, offset: int) -> tuple[list[AlertRow], int]:
    """Newest first, with the total count for the filter."""
    total = session.execute(_filtered(select(func.count()).select_from(AlertRow), f)).scalar_one()
    rows = session.execute(
        _filtered(select(AlertRow), f).order_by(AlertRow.raised_at.desc(), AlertRow.id.desc())
        .limit(limit).offset(offset)
    ).scalars().all()
    return list(rows), int(total)


def get_alert(session: Session, alert_id: str) -> AlertRow:
    row = session.get(AlertRow, alert_id)
    if row is None:
        raise NotFoundError(f"no alert with id {alert_id!r}")
    return row


def alert_audit_trail(session: Session, alert_id: str) -> list[AuditEntryRow]:
    stmt = select(AuditEntryRow).where(AuditEntryRow.subject_id == alert_id).order_by(AuditEntryRow.seq)
    return list(session.execute(stmt).scalars().all())


def verify_alert_rows(session: Session) -> list[str]:
    """Alerts whose current row differs from the state their last audit entry recorded."""
    import json

    last: dict[str, dict[str, Any]] = {}
    for entry in session.execute(
        select(AuditEntryRow).where(AuditEntryRow.subject_type == "alert").order_by(AuditEntryRow.seq)
    ).scalars():
        last[entry.subject_id] = json.loads(entry.data)
    problems: list[str] = []
    seen: set[str] = set()
    for row in session.execute(select(AlertRow)).scalars():
        seen.add(row.id)
        recorded = last.get(row.id)
        if recorded is None:
            problems.append(f"alert {row.id!r} has no audit entry")
            continue
        current = alert_audit_state(row)
        changed = sorted(k for k in current.keys() | recorded.keys() if current.get(k) != recorded.get(k))
        if changed:
            problems.append(f"alert {row.id!r} differs from its audit trail in: {', '.join(changed)}")
    problems.extend(f"alert {missing!r} is in the audit trail but not in the store"
                    for missing in sorted(last.keys() - seen))
    return problems
