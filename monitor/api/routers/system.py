"""/health (the only open endpoint), /metrics, /api/v1/me, and the admin's audit and outbox views."""

from __future__ import annotations

from fastapi import APIRouter, Response
from pydantic import BaseModel
from sqlalchemy import text

from monitor import __version__
from monitor.api.auth import GRANTS
from monitor.api.deps import AUTH_ERRORS, Admin, Caller, Reader, ServicesDep, SessionDep
from monitor.api.schemas import AuditVerifyOut, HealthOut, SourceHealthOut, WhoAmI
from monitor.api.webhooks.outbox import pending_counts
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
                     sources=[SourceHealthOut(source=s.source, kind=s.kind, state=s.state.value, up=s.up,
                                              fps=s.fps, captured=s.captured, dropped=s.dropped,
                                              reconnects=s.reconnects, bad_lines=s.bad_lines,
                                              missing_readings=s.missing_readings, silent_s=s.silent_s)
                              for s in sources])


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


@router.get("/api/v1/webhooks", response_model=OutboxOut, tags=["admin"], responses=AUTH_ERRORS,
            summary="Webhook targets and deliveries still owed to each (admin)")
def webhooks(_: Admin, services: ServicesDep, session: SessionDep) -> OutboxOut:
    return OutboxOut(targets=[t.name for t in services.webhooks], pending=pending_counts(session))
