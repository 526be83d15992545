"""/api/v1/tables, /api/v1/rounds, /api/v1/hands: the tables' live state, rounds and hand histories."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, status
from fastapi import Path as PathParam
from sqlalchemy import func, select

from monitor.api.deps import AUTH_ERRORS, NOT_FOUND, VALIDATION_ERROR, Reader, Sensor, ServicesDep, SessionDep
from monitor.api.schemas import (
    HandHistoryOut,
    Page,
    RoundOut,
    SourceHealthOut,
    SourcesIn,
    SourcesOut,
    TableOut,
)
from monitor.sources.prometheus import SourceHealth
from monitor.sources.state import SourceState
from monitor.store.models import AlertRow, AlertStatus, HandHistoryRow, RoundRow, TableRow

router = APIRouter(tags=["tables"], responses={**AUTH_ERRORS, **VALIDATION_ERROR})

Limit = Annotated[int, Query(ge=1, le=500)]
Offset = Annotated[int, Query(ge=0, le=10_000_000)]


def _need_time_zones(**values: datetime | None) -> None:
    for name, value in values.items():
        if value is not None and value.tzinfo is None:
            raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT,
                                f"{name} needs a time zone (e.g. 2026-01-01T20:00:00Z)")


def _open_alerts(session: SessionDep, table_id: str | None = None) -> dict[str, int]:
    stmt = select(AlertRow.table_id, func.count()).where(AlertRow.status != AlertStatus.RESOLVED.value)
    if table_id is not None:
        stmt = stmt.where(AlertRow.table_id == table_id)
    return {t: int(n) for t, n in session.execute(stmt.group_by(AlertRow.table_id)).all()}


def _sources(services: ServicesDep) -> dict[str, list[SourceHealthOut]]:
    """The sources of each table: a live run's own here, or those its run reported to this server."""
    out: dict[str, list[SourceHealthOut]] = {}
    for row in services.metrics.sources.health():
        if row.table is not None:
            out.setdefault(row.table, []).append(SourceHealthOut.of(row))
    return out


@router.get("/api/v1/tables", response_model=list[TableOut], summary="Every table with its live state")
def list_tables(_: Reader, session: SessionDep, services: ServicesDep) -> list[TableOut]:
    open_alerts = _open_alerts(session)
    sources = _sources(services)
    rows = session.execute(select(TableRow).order_by(TableRow.id)).scalars()
    return [TableOut.of(row, open_alerts.get(row.id, 0), sources.get(row.id)) for row in rows]


@router.get("/api/v1/tables/{table_id}", response_model=TableOut, responses=NOT_FOUND,
            summary="One table's live state")
def get_table(_: Reader, session: SessionDep, services: ServicesDep, table_id: str) -> TableOut:
    row = session.get(TableRow, table_id)
    if row is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no table {table_id!r} has reported")
    open_alerts = _open_alerts(session, table_id).get(table_id, 0)
    return TableOut.of(row, open_alerts, _sources(services).get(table_id))


TableId = Annotated[str, PathParam(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]


@router.put("/api/v1/tables/{table_id}/sources", response_model=SourcesOut,
            summary="A table's run reports its camera and dice reader (sensor; every few seconds)")
async def report_sources(_: Sensor, services: ServicesDep, table_id: TableId, body: SourcesIn) -> SourcesOut:
    rows = [SourceHealth(source=r.source, kind=r.kind, state=SourceState(r.state), up=r.up, fps=r.fps,
                         captured=r.captured, dropped=r.dropped, reconnects=r.reconnects,
                         bad_lines=r.bad_lines, missing_readings=r.missing_readings, silent_s=r.silent_s)
            for r in body.sources]
    collector = services.metrics.sources
    collector.report(table_id, rows)
    shown = [SourceHealthOut.of(r) for r in collector.reported() if r.table == table_id]
    out = SourcesOut(table_id=table_id, sources=shown)
    # the page's table cards follow without polling
    services.hub.publish("sources", out.model_dump(mode="json"), table_id=table_id)
    return out


@router.get("/api/v1/rounds", response_model=Page[RoundOut], summary="Rounds, newest first")
def list_rounds(_: Reader, session: SessionDep,
                table_id: Annotated[str | None, Query(max_length=64)] = None,
                since: Annotated[datetime | None, Query(description="started at or after (ISO 8601)")] = None,
                until: Annotated[datetime | None, Query(description="started before (ISO 8601)")] = None,
                limit: Limit = 50, offset: Offset = 0) -> Page[RoundOut]:
    _need_time_zones(since=since, until=until)
    base = select(RoundRow)
    count = select(func.count()).select_from(RoundRow)
    conditions = [RoundRow.table_id == table_id] if table_id else []
    conditions += [RoundRow.started_at >= since] if since else []
    conditions += [RoundRow.started_at < until] if until else []
    for condition in conditions:
        base, count = base.where(condition), count.where(condition)
    rows = session.execute(base.order_by(RoundRow.started_at.desc(), RoundRow.id.desc())
                           .limit(limit).offset(offset)).scalars().all()
    with_history = set(session.execute(select(HandHistoryRow.round_id).where(
        HandHistoryRow.round_id.in_([r.id for r in rows]))).scalars())
    return Page[RoundOut](items=[RoundOut.of(r, r.id in with_history) for r in rows],
                          total=session.execute(count).scalar_one(), limit=limit, offset=offset)


@router.get("/api/v1/rounds/{round_id:path}", response_model=RoundOut, responses=NOT_FOUND,
            summary="One round ('TABLE/ROUND')")
def get_round(_: Reader, session: SessionDep, round_id: str) -> RoundOut:
    row = session.get(RoundRow, round_id)
    if row is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no round {round_id!r}")
    has = session.execute(select(HandHistoryRow.id).where(HandHistoryRow.round_id == round_id)).first()
    return RoundOut.of(row, has is not None)


@router.get("/api/v1/hands", response_model=Page[HandHistoryOut], summary="Hand histories, newest first")
def list_hands(_: Reader, session: SessionDep,
               table_id: Annotated[str | None, Query(max_length=64)] = None,
               since: Annotated[datetime | None, Query(description="recorded at or after")] = None,
               until: Annotated[datetime | None, Query(description="recorded before")] = None,
               limit: Limit = 20, offset: Offset = 0) -> Page[HandHistoryOut]:
    conditions = []
    if table_id:
        conditions.append(HandHistoryRow.table_id == table_id)
    _need_time_zones(since=since, until=until)
    if since:
        conditions.append(HandHistoryRow.recorded_at >= since)
    if until:
        conditions.append(HandHistoryRow.recorded_at < until)
    rows = session.execute(select(HandHistoryRow).where(*conditions)
                           .order_by(HandHistoryRow.recorded_at.desc(), HandHistoryRow.id.desc())
                           .limit(limit).offset(offset)).scalars().all()
    total = session.execute(select(func.count()).select_from(HandHistoryRow).where(*conditions)).scalar_one()
    return Page[HandHistoryOut](items=[HandHistoryOut.of(r) for r in rows], total=total, limit=limit,
                                offset=offset)


@router.get("/api/v1/hands/{round_id:path}", response_model=HandHistoryOut, responses=NOT_FOUND,
            summary="The hand history of one round ('TABLE/ROUND')")
def get_hand(_: Reader, session: SessionDep, round_id: str) -> HandHistoryOut:
    stmt = select(HandHistoryRow).where(HandHistoryRow.round_id == round_id)
    row = session.execute(stmt).scalar_one_or_none()
    if row is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no hand history for round {round_id!r}")
    return HandHistoryOut.of(row)
