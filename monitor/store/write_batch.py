"""One ingest group commit's writes, gathered in memory and sent as a few multi-row statements.

The ingest writer used the ORM's unit of work per event and per alert: every ``session.get``
autoflushed, every alert flushed its round, every history ran a SELECT. At 1,000 events/s that
was most of the writer's time. Here the batch collects plain rows, asks the database once per
table which of them exist, then writes each table with one ``executemany``: tables, rounds,
hand histories, events, alerts, and the alerts' audit entries (the hash chain computed in the
batch). The caller commits once.

The semantics are those of :mod:`monitor.store.repository`'s one-at-a-time functions
(``upsert_table``, ``upsert_round``, ``save_hand_history``, ``record_alert``), which remain for
the API's own changes and for tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from monitor.store import audit
from monitor.store.models import AlertRow, AlertStatus, EventRow, HandHistoryRow, RoundRow, TableRow
from monitor.store.repository import SYSTEM_ACTOR, NewAlert, alert_audit_state, round_key
from monitor.store.types import utcnow

_CHUNK = 500  # ids per IN (...) query: well under every backend's bound-parameter limit


def _chunks(values: list[Any]) -> Iterator[list[Any]]:
    for i in range(0, len(values), _CHUNK):
        yield values[i:i + _CHUNK]


@dataclass(slots=True)
class _RoundChange:
    """What the batch did to one round (merged like successive ``upsert_round`` calls)."""

    table_id: str
    round_ref: str
    game: str | None
    first_seen: datetime
    media_start: float | None
    phase: str | None = None
    ended_at: datetime | None = None
    media_end: float | None = None
    new_alerts: int = 0
    spanned: bool = False  # media_start and media_end replace the stored ones (a span from a history)


@dataclass(slots=True)
class _TableChange:
    game: str | None = None
    state: dict[str, Any] | None = None
    seq: int | None = None
    touched_at: datetime = field(default_factory=utcnow)


class WriteBatch:
    """Collects one transaction's ingest writes; :meth:`write` sends them and returns the new alerts."""

    def __init__(self, session: Session, *, actor: str = SYSTEM_ACTOR) -> None:
        self.session = session
        self.actor = actor
        self._events: list[dict[str, Any]] = []
        self._tables: dict[str, _TableChange] = {}
        self._rounds: dict[str, _RoundChange] = {}
        self._histories: dict[str, dict[str, Any]] = {}
        self._alerts: dict[str, tuple[NewAlert, datetime]] = {}

    # ---------------------------------------------------------------- collecting

    def add_event(self, row: dict[str, Any]) -> None:
        self._events.append(row)

    def table(self, table_id: str, *, game: str | None = None, state: dict[str, Any] | None = None,
              seq: int | None = None) -> None:
        change = self._tables.setdefault(table_id, _TableChange())
        if game:
            change.game = game
        if state is not None:
            change.state = state
        if seq is not None and (change.seq is None or seq > change.seq):
            change.seq = seq
        change.touched_at = utcnow()

    def round(self, *, table_id: str, round_ref: str, game: str | None, phase: str | None = None,
              media_time: float | None = None, ended: bool = False,
              span: tuple[float, float] | None = None) -> str:
        """Like ``repository.upsert_round``; returns the round's id. ``span``: the round's (begin, end)
        on the recording, known from its hand history (a reviewed recording): it replaces the media
        times the events gave and ends the round."""
        key = round_key(table_id, round_ref)
        change = self._rounds.get(key)
        now = utcnow()
        if change is None:
            change = _RoundChange(table_id, round_ref, game, now, media_time)
            self._rounds[key] = change
            if table_id not in self._tables:
                self.table(table_id, game=game)
        elif game and not change.game:
            change.game = game
        if phase:
            change.phase = phase
        if ended and change.ended_at is None:
            change.ended_at = now
            change.media_end = media_time
        if span is not None:
            change.media_start, change.media_end = span
            change.spanned = True
            if change.ended_at is None:
                change.ended_at = now
        return key

    def hand_history(self, *, table_id: str, round_ref: str, game: str | None,
                     history: dict[str, Any]) -> None:
        """Like ``repository.save_hand_history``: the latest history of a round wins."""
        key = self.round(table_id=table_id, round_ref=round_ref, game=game)
        self._histories[key] = {"round_id": key, "table_id": table_id, "game": game, "history": history,
                                "recorded_at": utcnow()}

    def alert(self, new: NewAlert) -> None:
        """Like ``repository.record_alert``: stored unless its id is known (checked in :meth:`write`)."""
        if new.id not in self._alerts:
            self._alerts[new.id] = (new, utcnow())

    # ---------------------------------------------------------------- writing

    def write(self) -> list[AlertRow]:
        """Send everything; returns the alerts that were new (transient rows, in the order raised)."""
        conn = self.session.connection()
        new_alerts = self._new_alerts(conn)
        self._write_tables(conn)
        self._write_rounds(conn)
        self._write_histories(conn)
        if self._events:
            conn.execute(insert(EventRow), self._events)
        if new_alerts:
            conn.execute(insert(AlertRow), [_alert_values(row) for row in new_alerts])
            audit.append_many(self.session, [
                audit.PendingEntry(self.actor, "alert.raised", "alert", row.id, alert_audit_state(row))
                for row in new_alerts])
        return new_alerts

    def _existing(self, conn: Connection, column: Any, keys: Iterable[Any]) -> set[Any]:
        found: set[Any] = set()
        for chunk in _chunks(list(keys)):
            found.update(conn.execute(select(column).where(column.in_(chunk))).scalars())
        return found

    def _new_alerts(self, conn: Connection) -> list[AlertRow]:
        known = self._existing(conn, AlertRow.id, self._alerts)
        rows = []
        for new, raised_at in self._alerts.values():
            if new.id in known:
                continue  # a resend never duplicates
            round_id = None
            if new.round_ref is not None:
                round_id = self.round(table_id=new.table_id, round_ref=new.round_ref, game=new.game)
                self._rounds[round_id].new_alerts += 1
            rows.append(AlertRow(
                id=new.id, table_id=new.table_id, game=new.game, round_id=round_id, code=new.code,
                rule=new.rule, severity=new.severity, message=new.message, evidence=new.evidence,
                media_begin=new.media_begin, media_trigger=new.media_trigger, media_end=new.media_end,
                wall_begin=new.wall_begin, wall_trigger=new.wall_trigger, wall_end=new.wall_end,
                snapshot=new.snapshot, raised_at=raised_at, status=AlertStatus.NEW.value, payload=new.payload,
                acknowledged_by=None, acknowledged_at=None, acknowledge_comment=None, resolved_by=None,
                resolved_at=None, resolve_comment=None,
            ))
        return rows

    def _write_tables(self, conn: Connection) -> None:
        if not self._tables:
            return
        current = {r.id: r for r in self._rows(conn, TableRow, TableRow.id, self._tables)}
        inserts, updates = [], []
        for table_id, change in self._tables.items():
            row = current.get(table_id)
            if row is None:
                inserts.append({"id": table_id, "game": change.game, "state": change.state or {},
                                "first_seen_at": change.touched_at, "updated_at": change.touched_at,
                                "last_event_seq": change.seq})
                continue
            seq = row.last_event_seq
            if change.seq is not None and (seq is None or change.seq > seq):
                seq = change.seq
            updates.append({"k": table_id, "g": change.game or row.game,
                            "s": row.state if change.state is None else change.state,
                            "q": seq, "u": change.touched_at})
        if inserts:
            conn.execute(insert(TableRow), inserts)
        if updates:
            conn.execute(update(TableRow).where(TableRow.id == bindparam("k")).values(
                game=bindparam("g"), state=bindparam("s"), last_event_seq=bindparam("q"),
                updated_at=bindparam("u")), updates)

    def _write_rounds(self, conn: Connection) -> None:
        if not self._rounds:
            return
        current = {r.id: r for r in self._rows(conn, RoundRow, RoundRow.id, self._rounds)}
        inserts, updates = [], []
        for key, c in self._rounds.items():
            row = current.get(key)
            if row is None:
                inserts.append({"id": key, "table_id": c.table_id, "round_ref": c.round_ref, "game": c.game,
                                "phase": c.phase, "started_at": c.first_seen, "ended_at": c.ended_at,
                                "media_start": c.media_start, "media_end": c.media_end,
                                "alert_count": c.new_alerts})
                continue
            ended_at, media_start, media_end = row.ended_at, row.media_start, row.media_end
            if ended_at is None and c.ended_at is not None:
                ended_at, media_end = c.ended_at, c.media_end
            if c.spanned:
                media_start, media_end = c.media_start, c.media_end
            updates.append({"k": key, "g": row.game or c.game, "p": c.phase or row.phase, "e": ended_at,
                            "s": media_start, "m": media_end, "n": row.alert_count + c.new_alerts})
        if inserts:
            conn.execute(insert(RoundRow), inserts)
        if updates:
            conn.execute(update(RoundRow).where(RoundRow.id == bindparam("k")).values(
                game=bindparam("g"), phase=bindparam("p"), ended_at=bindparam("e"),
                media_start=bindparam("s"), media_end=bindparam("m"), alert_count=bindparam("n")), updates)

    def _write_histories(self, conn: Connection) -> None:
        if not self._histories:
            return
        known = self._existing(conn, HandHistoryRow.round_id, self._histories)
        inserts = [h for key, h in self._histories.items() if key not in known]
        updates = [{"k": key, "h": h["history"], "r": h["recorded_at"]}
                   for key, h in self._histories.items() if key in known]
        if inserts:
            conn.execute(insert(HandHistoryRow), inserts)
        if updates:
            conn.execute(update(HandHistoryRow).where(HandHistoryRow.round_id == bindparam("k")).values(
                history=bindparam("h"), recorded_at=bindparam("r")), updates)

    @staticmethod
    def _rows(conn: Connection, model: Any, key_column: Any, keys: Iterable[str]) -> list[Any]:
        columns = model.__table__.columns  # plain rows, not ORM objects: only their values are read
        rows: list[Any] = []
        for chunk in _chunks(list(keys)):
            rows.extend(conn.execute(select(*columns).where(key_column.in_(chunk))).all())
        return rows


_ALERT_COLUMNS = [c.key for c in AlertRow.__table__.columns]  # the attributes are named as the columns


def _alert_values(row: AlertRow) -> dict[str, Any]:
    return {name: getattr(row, name) for name in _ALERT_COLUMNS}
