"""The FastAPI application: ``create_app(settings)`` builds it, its lifespan runs the store,
the ingest writer, the live hub and the webhook workers."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from importlib import resources

import httpx
from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.staticfiles import StaticFiles
from starlette.responses import FileResponse, JSONResponse

from monitor import __version__
from monitor.api import errors
from monitor.api.auth import TokenRegistry
from monitor.api.deps import Caller
from monitor.api.hub import LiveHub
from monitor.api.ingest import IngestPipeline
from monitor.api.metrics import Metrics
from monitor.api.middleware import GuardMiddleware
from monitor.api.routers import alerts, ingest, live, rules, system, tables
from monitor.api.services import Services
from monitor.api.settings import Settings
from monitor.api.webhooks.outbox import DeliveryWorker
from monitor.procedure.feed import MonitorFeed
from monitor.procedure.feed_contract import ProcedureFeed
from monitor.store.db import make_engine, make_sessionmaker, redacted
from monitor.store.migrate import upgrade

log = logging.getLogger("monitor.api")

DESCRIPTION = """Alerts from the table monitor's procedure rules, live and stored.

Every endpoint but `/health` needs `Authorization: Bearer <token>` (this document too, at
`/openapi.json`). Roles: **viewer** reads,
**supervisor** also acknowledges and resolves, **sensor** only ingests events, **admin** does all.
Live push: `GET /api/v1/live/sse` (Server-Sent Events) or the WebSocket `/api/v1/live/ws`
(send `{"type": "auth", "token": "..."}` first if you cannot set a header; connect with
`?batch=true` to get whatever is waiting as one `{"type": "batch", "data": [...]}` message).
"""


def load_tokens(settings: Settings) -> TokenRegistry:
    registry = TokenRegistry()
    if settings.tokens is not None:
        registry.load_env(settings.tokens.get_secret_value())
    if settings.tokens_file is not None:
        registry.load_file(settings.tokens_file)
    return registry


def web_dir() -> str:
    return str(resources.files("monitor") / "web")


def create_app(settings: Settings | None = None,
               feed_factory: Callable[[], ProcedureFeed] = MonitorFeed) -> FastAPI:
    settings = settings or Settings()
    tokens = load_tokens(settings)
    if len(tokens) == 0:
        log.warning("no tokens configured: every request except /health will be refused")
    targets = settings.all_webhooks()
    engine = make_engine(settings.db_url)
    sessions = make_sessionmaker(engine)
    metrics = Metrics()
    hub = LiveHub(queue_size=settings.live_queue_size, table_push_interval_s=settings.table_push_interval_s,
                  on_drop=lambda _sub: metrics.live_dropped.inc())
    services = Services(settings=settings, tokens=tokens, engine=engine, sessions=sessions,
                        read_sessions=make_sessionmaker(engine, read_only=True), hub=hub,
                        metrics=metrics, pipeline=None, webhooks=targets)  # type: ignore[arg-type]
    services.pipeline = IngestPipeline(sessions, feed_factory, hub, metrics, targets,
                                       batch_max=settings.ingest_batch_max, on_outbox=services.wake_webhooks)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await asyncio.to_thread(upgrade, engine)
        log.info("store ready at %s", redacted(settings.db_url))
        hub.bind_loop(asyncio.get_running_loop())
        if settings.replay_on_start:
            replayed = await services.pipeline.start()
            log.info("monitor rebuilt from %d stored events", replayed)
        client = httpx.AsyncClient(follow_redirects=False)
        services.tasks.append(asyncio.create_task(services.pipeline.run(), name="ingest-writer"))
        services.tasks.append(asyncio.create_task(hub.run_flusher(), name="table-push"))
        for target in targets:
            worker = DeliveryWorker(target, sessions, client,
                                    on_result=lambda name, ok: metrics.webhook_results.labels(
                                        name, "delivered" if ok else "failed").inc())
            services.workers[target.name] = worker
            services.tasks.append(asyncio.create_task(worker.run(), name=f"webhook-{target.name}"))
        try:
            yield
        finally:
            hub.close_all()
            for task in services.tasks:
                task.cancel()
            for task in services.tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            services.tasks.clear()
            await client.aclose()
            services.pipeline.close()
            engine.dispose()

    # FastAPI's built-in OpenTelemetry is off: the app exports Prometheus metrics (/metrics), and
    # asking "is a tracer configured?" read the environment on every request (profiled under load).
    # No /docs or /redoc: they load their scripts from a CDN, which the page's CSP (rightly) blocks,
    # and /openapi.json is served below to token holders only (nothing but /health is open).
    app = FastAPI(title="table-monitor", version=__version__, description=DESCRIPTION, lifespan=lifespan,
                  openapi_url=None, docs_url=None, redoc_url=None,
                  telemetry={"tracing": False, "metrics": False, "logs": False, "operation_spans": False},
                  openapi_tags=[
                      {"name": "alerts", "description": "Alerts and their life cycle"},
                      {"name": "tables", "description": "Tables, rounds and hand histories"},
                      {"name": "ingest", "description": "Events in (sensors)"},
                      {"name": "live", "description": "Live push"},
                      {"name": "system", "description": "Health, metrics, identity"},
                      {"name": "admin", "description": "Audit and webhook state"},
                      {"name": "rules", "description": "The rulebooks alerts cite, what each rule checks"},
                  ])
    app.state.services = services
    errors.install(app)
    for router in (alerts.router, tables.router, ingest.router, live.router, system.router, rules.router):
        app.include_router(router)
    if settings.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=settings.cors_origins, allow_credentials=False,
                           allow_methods=["GET", "POST"], allow_headers=["Authorization", "Content-Type"])
    app.add_middleware(GuardMiddleware, max_body_bytes=settings.max_body_bytes)

    # The page: static files, no build step. They hold no data; every data call needs a token.
    static = web_dir()
    app.mount("/static", StaticFiles(directory=static), name="static")

    @app.get("/openapi.json", include_in_schema=False)
    def openapi_document(_: Caller) -> JSONResponse:
        return JSONResponse(app.openapi())

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(f"{static}/index.html", headers={"Cache-Control": "no-cache"})

    return app
