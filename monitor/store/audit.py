"""The tamper-evident audit chain.

Every entry is hashed together with the previous entry's hash over a canonical JSON form
(sorted keys, no whitespace, UTF-8, no NaN), so changing, removing or reordering any past
entry breaks every hash after it. ``verify_chain`` walks the chain and names the first
broken entry; ``table-monitor audit verify`` is its command line.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, select, text
from sqlalchemy.orm import Session

from monitor.store.models import AuditEntryRow

GENESIS_HASH = "0" * 64
_PG_CHAIN_LOCK = 0x7461626C  # advisory lock key serializing appends on PostgreSQL ("tabl")
_HEAD_KEY = "table_monitor_audit_head"


def canonical_json(value: Any) -> str:
    """The one JSON spelling of ``value`` that is hashed (RFC 8785 style for our data)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def entry_hash(body: dict[str, Any]) -> str:
    return hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


def _body(row: AuditEntryRow, data: Any) -> dict[str, Any]:
    return {
        "seq": row.seq,
        "recorded_at": row.recorded_at,
        "actor": row.actor,
        "action": row.action,
        "subject_type": row.subject_type,
        "subject_id": row.subject_id,
        "data": data,
        "prev_hash": row.prev_hash,
    }


@dataclass(frozen=True, slots=True)
class PendingEntry:
    """One entry to append (``append_many`` chains a list of them in one statement)."""

    actor: str
    action: str
    subject_type: str
    subject_id: str
    data: dict[str, Any]


def _head(session: Session) -> tuple[int, str]:
    """The chain's last (seq, hash), read once per transaction and then carried along."""
    tx = session.get_transaction()
    cached = session.info.get(_HEAD_KEY)
    if tx is not None and cached is not None and cached[0] is tx:
        return cached[1], cached[2]
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_CHAIN_LOCK})
    last = select(AuditEntryRow.seq, AuditEntryRow.hash).order_by(AuditEntryRow.seq.desc()).limit(1)
    head = session.execute(last).first()
    return (0, GENESIS_HASH) if head is None else (head.seq, head.hash)


def _link(seq: int, prev_hash: str, entry: PendingEntry, recorded_at: str) -> dict[str, Any]:
    body = {
        "seq": seq, "recorded_at": recorded_at, "actor": entry.actor, "action": entry.action,
        "subject_type": entry.subject_type, "subject_id": entry.subject_id, "data": entry.data,
        "prev_hash": prev_hash,
    }
    return {**body, "data": canonical_json(entry.data), "hash": entry_hash(body)}


def append_many(session: Session, entries: list[PendingEntry], at: datetime | None = None) -> list[int]:
    """Append ``entries`` in order inside the caller's transaction, with one multi-row INSERT;
    returns their sequence numbers. The chain is computed here, in the batch, from the head."""
    if not entries:
        return []
    seq, prev = _head(session)
    recorded_at = (at or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="microseconds")
    rows = []
    for entry in entries:
        seq += 1
        row = _link(seq, prev, entry, recorded_at)
        prev = row["hash"]
        rows.append(row)
    session.connection().execute(insert(AuditEntryRow), rows)
    session.info[_HEAD_KEY] = (session.get_transaction(), seq, prev)
    return [r["seq"] for r in rows]


def append(
    session: Session,
    *,
    actor: str,
    action: str,
    subject_type: str,
    subject_id: str,
    data: dict[str, Any],
    at: datetime | None = None,
) -> AuditEntryRow:
    """Append one entry inside the caller's transaction (it commits with the change it records)."""
    # The head is read (under a lock) once per transaction, then carried along: one SELECT per
    # commit rather than per entry, and no flush needed between appends.
    head_seq, head_hash = _head(session)
    row = AuditEntryRow(
        seq=head_seq + 1,
        recorded_at=(at or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="microseconds"),
        actor=actor,
        action=action,
        subject_type=subject_type,
        subject_id=subject_id,
        data=canonical_json(data),
        prev_hash=head_hash,
    )
    row.hash = entry_hash(_body(row, data))
    session.add(row)
    session.info[_HEAD_KEY] = (session.get_transaction(), row.seq, row.hash)
    return row


@dataclass(frozen=True, slots=True)
class ChainReport:
    """The outcome of a verification: entries checked and the first broken one, if any."""

    checked: int
    broken_seq: int | None = None
    reason: str | None = None
    head_hash: str = GENESIS_HASH

    @property
    def ok(self) -> bool:
        return self.broken_seq is None


def _iter_entries(session: Session, batch: int = 2000) -> Iterator[AuditEntryRow]:
    last = 0
    while True:
        rows = session.execute(
            select(AuditEntryRow).where(AuditEntryRow.seq > last).order_by(AuditEntryRow.seq).limit(batch)
        ).scalars().all()
        if not rows:
            return
        yield from rows
        last = rows[-1].seq


def verify_chain(session: Session) -> ChainReport:
    """Recompute every hash in order; stop at the first entry that does not fit its predecessor."""
    prev_hash = GENESIS_HASH
    expected_seq = 1
    checked = 0
    for row in _iter_entries(session):
        if row.seq != expected_seq:
            return ChainReport(checked, expected_seq, f"entry {expected_seq} is missing (next is {row.seq})",
                               prev_hash)
        if row.prev_hash != prev_hash:
            return ChainReport(checked, row.seq, "prev_hash does not match the hash of the entry before it",
                               prev_hash)
        try:
            data = json.loads(row.data)
        except ValueError:
            return ChainReport(checked, row.seq, "data is not valid JSON", prev_hash)
        if canonical_json(data) != row.data:
            return ChainReport(checked, row.seq, "data is not in canonical form (edited by hand?)", prev_hash)
        if entry_hash(_body(row, data)) != row.hash:
            return ChainReport(checked, row.seq, "hash does not match the entry's contents", prev_hash)
        prev_hash = row.hash
        expected_seq += 1
        checked += 1
    return ChainReport(checked, head_hash=prev_hash)
