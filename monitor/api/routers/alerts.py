"""/api/v1/alerts: list and filter, detail with evidence and audit trail, acknowledge, resolve."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request, status
from fastapi import Path as PathParam
from fastapi.responses import FileResponse
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from monitor.alerts.model import Severity
from monitor.api.deps import (
    AUTH_ERRORS,
    NOT_FOUND,
    VALIDATION_ERROR,
    Actor,
    Reader,
    Sensor,
    ServicesDep,
    SessionDep,
    WriteSessionDep,
)
from monitor.api.schemas import (
    AcknowledgeIn,
    AlertDetail,
    AlertSummary,
    AuditEntryOut,
    ErrorOut,
    Page,
    ResolveIn,
)
from monitor.store import repository as repo
from monitor.store.alert_records import stored_alert
from monitor.store.models import AlertStatus

router = APIRouter(prefix="/api/v1/alerts", tags=["alerts"], responses={**AUTH_ERRORS, **VALIDATION_ERROR})

CONFLICT: dict[int | str, dict[str, object]] = {
    409: {"model": ErrorOut, "description": "The alert's status does not allow this change"}}


@router.get("", response_model=Page[AlertSummary], summary="List alerts, newest first")
def list_alerts(
    _: Reader,
    session: SessionDep,
    table_id: Annotated[str | None, Query(max_length=64, description="only this table")] = None,
    severity: Annotated[list[Severity] | None, Query(description="any of these severities")] = None,
    status_: Annotated[list[AlertStatus] | None, Query(alias="status", description="any of these")] = None,
    round_id: Annotated[str | None, Query(max_length=160)] = None,
    since: Annotated[datetime | None, Query(description="raised at or after (ISO 8601)")] = None,
    until: Annotated[datetime | None, Query(description="raised before (ISO 8601)")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> Page[AlertSummary]:
    for name, value in (("since", since), ("until", until)):
        if value is not None and value.tzinfo is None:
            raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT,
                                f"{name} needs a time zone (e.g. 2026-01-01T20:00:00Z)")
    f = repo.AlertFilter(table_id=table_id, severity=[s.value for s in severity] if severity else None,
                         status=[s.value for s in status_] if status_ else None, since=since, until=until,
                         round_id=round_id)
    rows, total = repo.list_alerts(session, f, limit=limit, offset=offset)
    items = [AlertSummary.of(r) for r in rows]
    return Page[AlertSummary](items=items, total=total, limit=limit, offset=offset)


def _detail(session: SessionDep, alert_id: str) -> AlertDetail:
    try:
        row = repo.get_alert(session, alert_id)
    except repo.NotFoundError as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from None
    trail = [AuditEntryOut(seq=e.seq, recorded_at=e.recorded_at, actor=e.actor, action=e.action, hash=e.hash)
             for e in repo.alert_audit_trail(session, alert_id)]
    return AlertDetail(**AlertSummary.of(row).model_dump(), alert=stored_alert(row.payload), audit=trail)


@router.get("/{alert_id}", response_model=AlertDetail, responses=NOT_FOUND,
            summary="One alert with its rule, evidence events and audit trail")
def get_alert(_: Reader, session: SessionDep, alert_id: str) -> AlertDetail:
    return _detail(session, alert_id)


@router.get("/{alert_id}/snapshot", response_class=FileResponse, responses={
    **NOT_FOUND, 200: {"content": {"image/jpeg": {}, "image/png": {}}, "description": "The snapshot image"}},
    summary="The alert's snapshot image")
def get_snapshot(_: Reader, session: SessionDep, services: ServicesDep, alert_id: str) -> FileResponse:
    try:
        row = repo.get_alert(session, alert_id)
    except repo.NotFoundError as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from None
    root = services.settings.snapshot_dir
    if not row.snapshot or root is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "this alert has no snapshot")
    base = root.resolve()
    path = (base / row.snapshot).resolve()
    # Snapshot paths come from events; never serve anything outside the snapshot directory.
    if not path.is_relative_to(base) or not path.is_file() or path.suffix.lower() not in {".jpg", ".jpeg",
                                                                                         ".png"}:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "the snapshot file is not available")
    return FileResponse(Path(path))


# What a table's run may send as an alert's snapshot: the type, the file suffix, the format's first bytes.
SNAPSHOT_TYPES = {"image/jpeg": (".jpg", b"\xff\xd8\xff"), "image/png": (".png", b"\x89PNG\r\n\x1a\n")}
AlertId = Annotated[str, PathParam(min_length=1, max_length=160, pattern=r"^[A-Za-z0-9_-]+$")]


class SnapshotOut(BaseModel):
    alert_id: str
    attached: bool  # False: the alert had a snapshot already, which is kept
    snapshot: str


def _write_atomically(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _attach(services: ServicesDep, actor: str, alert_id: str, data: bytes, suffix: str) -> SnapshotOut:
    root = services.settings.snapshot_dir
    assert root is not None
    name = alert_id + suffix
    with services.sessions() as session, session.begin():
        try:
            current = repo.get_alert(session, alert_id)
        except repo.NotFoundError:
            raise HTTPException(status.HTTP_404_NOT_FOUND,
                                f"no alert {alert_id!r} here yet (the events that raise it may still be on "
                                "their way): send it again later") from None
        if current.snapshot:
            return SnapshotOut(alert_id=alert_id, attached=False, snapshot=current.snapshot)
        # the file before the row: a failed commit leaves a file the next attempt overwrites
        root.mkdir(parents=True, exist_ok=True)
        _write_atomically(root / name, data)
        row = repo.attach_snapshot(session, alert_id, name, actor=actor)
    if row is None:  # attached meanwhile by a request that overtook this one
        return SnapshotOut(alert_id=alert_id, attached=False, snapshot=current.snapshot or name)
    _push_update(services, AlertSummary.of(row))
    return SnapshotOut(alert_id=alert_id, attached=True, snapshot=name)


@router.put("/{alert_id}/snapshot", response_model=SnapshotOut, responses={
    **NOT_FOUND,
    409: {"model": ErrorOut, "description": "This server keeps no snapshots (no snapshot folder set)"},
    413: {"model": ErrorOut, "description": "The image is larger than the server accepts"},
    415: {"model": ErrorOut, "description": "Not a JPEG or PNG image"}},
    openapi_extra={"requestBody": {"required": True, "content": {
        t: {"schema": {"type": "string", "format": "binary"}} for t in SNAPSHOT_TYPES}}},
    summary="A table's run sends the snapshot of an alert it raised (sensor)")
async def put_snapshot(sensor: Sensor, services: ServicesDep, request: Request,
                       alert_id: AlertId) -> SnapshotOut:
    """The central server judges the events again and raises the same alert (same id); the picture of
    the moment is only on the table's box, which sends it here once the alert's events went through."""
    if services.settings.snapshot_dir is None:
        raise HTTPException(status.HTTP_409_CONFLICT, "this server keeps no snapshots: start it with "
                            "--snapshot-dir (or TABLE_MONITOR_SNAPSHOT_DIR)")
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type not in SNAPSHOT_TYPES:
        raise HTTPException(status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
                            f"Content-Type {content_type or 'missing'}: expected image/jpeg or image/png")
    suffix, magic = SNAPSHOT_TYPES[content_type]
    data = await request.body()
    if not data.startswith(magic):
        raise HTTPException(status.HTTP_415_UNSUPPORTED_MEDIA_TYPE, f"the body is not a {content_type} image")
    return await run_in_threadpool(_attach, services, sensor.name, alert_id, data, suffix)


def _push_update(services: ServicesDep, summary: AlertSummary) -> None:
    # Route functions run in a worker thread; the hub lives on the event loop.
    data = {k: v for k, v in summary.model_dump(mode="json").items() if k in AlertSummary.model_fields}
    services.hub.publish_threadsafe("alert_update", data, table_id=summary.table_id)


@router.post("/{alert_id}/acknowledge", response_model=AlertDetail, responses={**NOT_FOUND, **CONFLICT},
             summary="Acknowledge a new alert (supervisor)")
def acknowledge(actor: Actor, session: WriteSessionDep, services: ServicesDep, alert_id: str,
                body: AcknowledgeIn | None = None) -> AlertDetail:
    try:
        with session.begin():
            comment = body.comment if body else None
            repo.acknowledge_alert(session, alert_id, actor=actor.name, comment=comment)
    except repo.NotFoundError as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from None
    except repo.TransitionError as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from None
    detail = _detail(session, alert_id)
    _push_update(services, detail)
    return detail


@router.post("/{alert_id}/resolve", response_model=AlertDetail, responses={**NOT_FOUND, **CONFLICT},
             summary="Resolve an alert with a comment (supervisor)")
def resolve(actor: Actor, session: WriteSessionDep, services: ServicesDep, alert_id: str,
            body: ResolveIn) -> AlertDetail:
    try:
        with session.begin():
            repo.resolve_alert(session, alert_id, actor=actor.name, comment=body.comment)
    except repo.NotFoundError as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from None
    except repo.TransitionError as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from None
    detail = _detail(session, alert_id)
    _push_update(services, detail)
    return detail
