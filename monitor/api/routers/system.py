"""/health (the only open endpoint), /metrics, /api/v1/me, and the admin's audit and outbox views."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Response, status
from fastapi import Path as PathParam
from pydantic import BaseModel
from sqlalchemy import text

from monitor import __version__
from monitor.api.auth import GRANTS
from monitor.api.deps import (
    AUTH_ERRORS,
    NOT_FOUND,
    Admin,
    Caller,
    Reader,
    ServicesDep,
    SessionDep,
    WriteSessionDep,
)
from monitor.api.schemas import AuditVerifyOut, HealthOut, SourceHealthOut, WhoAmI
from monitor.api.webhooks.outbox import dead_counts, dead_letters, pending_counts, retry_dead
from monitor.store import audit
from monitor.store.repository import verify_alert_rows

router = APIRouter()


@router.get("/health", response_model=HealthOut, tags=["system"],
            summary="Liveness, database and the live run's sources (open)")
def health(services: ServicesDep, response: Response) -> HealthOut:
    try:
        with services.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        database = "ok"
    except Exception:  # the details (host, credentials) stay in the server log
        database = "unavailable"
        response.status_code = 503
    sources = services.metrics.sources.health()
    healthy = database == "ok" and all(s.healthy for s in sources)
    return HealthOut(status="ok" if healthy else "degraded", version=__version__, database=database,
                     sources=[SourceHealthOut.of(s) for s in sources])


@router.get("/metrics", tags=["system"], summary="Prometheus metrics", responses={
    **AUTH_ERRORS, 200: {"content": {"text/plain": {}}, "description": "Prometheus text exposition format"}})
def metrics(_: Reader, services: ServicesDep) -> Response:
    return Response(services.metrics.render(), media_type="text/plain; version=0.0.4; charset=utf-8")


@router.get("/api/v1/me", response_model=WhoAmI, tags=["system"], responses=AUTH_ERRORS,
            summary="Who the token belongs to and what it may do")
def me(principal: Caller) -> WhoAmI:
    return WhoAmI(name=principal.name, role=principal.role.value,
                  permissions=sorted(p.value for p in GRANTS[principal.role]))


@router.get("/api/v1/audit/verify", response_model=AuditVerifyOut, tags=["admin"], responses=AUTH_ERRORS,
            summary="Verify the audit chain and every alert against it (admin)")
def verify(_: Admin, session: SessionDep) -> AuditVerifyOut:
    report = audit.verify_chain(session)
    return AuditVerifyOut(ok=report.ok, checked=report.checked, broken_seq=report.broken_seq,
                          reason=report.reason, head_hash=report.head_hash,
                          alert_problems=verify_alert_rows(session))


class OutboxOut(BaseModel):
    targets: list[str]
    pending: dict[str, int]
    dead: dict[str, int] = {}


class DeadLetterOut(BaseModel):
    id: int
    alert_id: str
    target: str
    attempts: int
    last_error: str | None
    created_at: datetime


class RetriedOut(BaseModel):
    retried: list[int]


@router.get("/api/v1/webhooks", response_model=OutboxOut, tags=["admin"], responses=AUTH_ERRORS,
            summary="Webhook targets, deliveries still owed and dead-lettered deliveries per target (admin)")
def webhooks(_: Admin, services: ServicesDep, session: SessionDep) -> OutboxOut:
    return OutboxOut(targets=[t.name for t in services.webhooks], pending=pending_counts(session),
                     dead=dead_counts(session))


@router.get("/api/v1/webhooks/dead", response_model=list[DeadLetterOut], tags=["admin"],
            responses=AUTH_ERRORS, summary="Deliveries a target refused for good, newest first (admin)")
def dead(_: Admin, session: SessionDep, target: Annotated[str | None, Query(max_length=64)] = None,
         limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> list[DeadLetterOut]:
    return [DeadLetterOut(id=r.id, alert_id=r.alert_id, target=r.target, attempts=r.attempts,
                          last_error=r.last_error, created_at=r.created_at)
            for r in dead_letters(session, target, limit)]


def _retry(admin: str, session: WriteSessionDep, *, delivery_id: int | None = None,
           target: str | None = None) -> list[int]:
    with session.begin():
        ids = retry_dead(session, delivery_id=delivery_id, target=target)
        if ids:
            audit.append(session, actor=admin, action="webhook.retried", subject_type="webhook_delivery",
                         subject_id=",".join(map(str, ids))[:160], data={"ids": ids, "target": target})
    return ids


@router.post("/api/v1/webhooks/deliveries/{delivery_id}/retry", response_model=RetriedOut, tags=["admin"],
             responses={**AUTH_ERRORS, **NOT_FOUND},
             summary="Send a dead-lettered delivery again (admin)")
def retry_one(admin: Admin, session: WriteSessionDep,
              delivery_id: Annotated[int, PathParam(ge=1, le=2**63 - 1)]) -> RetriedOut:
    ids = _retry(admin.name, session, delivery_id=delivery_id)
    if not ids:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no dead-lettered delivery {delivery_id}")
    return RetriedOut(retried=ids)


@router.post("/api/v1/webhooks/dead/retry", response_model=RetriedOut, tags=["admin"], responses=AUTH_ERRORS,
             summary="Send every dead-lettered delivery again, or a target's (admin)")
def retry_all(admin: Admin, session: WriteSessionDep,
              target: Annotated[str | None, Query(max_length=64)] = None) -> RetriedOut:
    return RetriedOut(retried=_retry(admin.name, session, target=target))
