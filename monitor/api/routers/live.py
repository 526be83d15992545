"""Live push: /api/v1/live/ws (WebSocket) and /api/v1/live/sse (Server-Sent Events).

Messages are JSON ``{"type": ..., "data": ...}``: ``hello`` once, then ``alert`` (a new
alert), ``alert_update`` (acknowledged, resolved, or given its snapshot), ``table`` (a table's live
state) and ``sources`` (a table's camera and dice reader, as its run reported them).

A WebSocket client that connects with ``?batch=true`` gets whatever is waiting for it as one
``{"type": "batch", "data": [message, ...]}`` (a lone message still comes as itself): under load
that is one write per client per commit instead of one per alert. SSE streams always coalesce
waiting events into one write (it is the same stream of events either way).

Browsers cannot put a header on a WebSocket, so a WebSocket client may instead send
``{"type": "auth", "token": "..."}`` as its first message (never in the URL, where proxies
and access logs would keep it). SSE clients send the usual ``Authorization`` header.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Query, Request, WebSocket, WebSocketDisconnect
from sse_starlette import EventSourceResponse, ServerSentEvent

from monitor.api.auth import Permission, Principal
from monitor.api.deps import AUTH_ERRORS, Reader, ServicesDep
from monitor.api.hub import batch_text, drain
from monitor.api.services import Services

router = APIRouter(prefix="/api/v1/live", tags=["live"])

AUTH_TIMEOUT_S = 10.0
# Application close codes (4000-4999): 4401 unauthenticated, 4403 forbidden, 4008 too slow.
CLOSE_UNAUTHENTICATED, CLOSE_FORBIDDEN, CLOSE_TOO_SLOW = 4401, 4403, 4008
FELL_BEHIND = "fell behind; reconnect and reload over REST"
TablesQuery = Annotated[str | None, Query(max_length=2000, description="only these tables (comma-separated)")]
BatchQuery = Annotated[bool, Query(description="send waiting messages together as one 'batch' message")]
MAX_PER_WRITE = 500  # messages coalesced into one write, at most


def _tables(value: str | None) -> frozenset[str] | None:
    return frozenset(t for t in value.split(",") if t) if value else None


async def _ws_principal(ws: WebSocket, services: Services) -> Principal | None:
    header = ws.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return services.tokens.authenticate(header[7:].strip())
    try:
        raw = await asyncio.wait_for(ws.receive_text(), timeout=AUTH_TIMEOUT_S)
        message = json.loads(raw)
    except (TimeoutError, ValueError, WebSocketDisconnect):
        return None
    if not isinstance(message, dict) or message.get("type") != "auth":
        return None
    if not isinstance(message.get("token"), str):
        return None
    return services.tokens.authenticate(message["token"])


@router.websocket("/ws")
async def live_ws(ws: WebSocket, tables: TablesQuery = None, batch: BatchQuery = False) -> None:
    services: Services = ws.app.state.services
    await ws.accept()
    principal = await _ws_principal(ws, services)
    if principal is None:
        await ws.close(CLOSE_UNAUTHENTICATED, "missing or unknown token")
        return
    if not principal.can(Permission.READ):
        await ws.close(CLOSE_FORBIDDEN, f"role {principal.role.value!r} may not read")
        return
    sub = services.hub.subscribe(principal.name, _tables(tables))
    services.metrics.live_clients.inc()
    await ws.send_text(json.dumps({"type": "hello", "data": {"name": principal.name,
                                                             "role": principal.role.value}}))

    async def drain_incoming() -> None:  # notice a client that went away; ignore what it says
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):
            while True:
                await ws.receive_text()

    async def send_pushed() -> None:
        # This loop runs for every client and every message: keep it to plain awaits.
        limit = MAX_PER_WRITE if batch else 1
        while True:
            groups, closed = drain(sub.queue, await sub.queue.get(), limit)
            if batch and groups:
                await ws.send_text(batch_text(groups))
            else:
                for group in groups:
                    for message in group.messages:
                        await ws.send_text(message.text)
            if closed:
                await ws.close(CLOSE_TOO_SLOW, FELL_BEHIND)
                return

    reader = asyncio.create_task(drain_incoming())
    sender = asyncio.create_task(send_pushed())
    try:
        await asyncio.wait({reader, sender}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (reader, sender):
            task.cancel()  # not awaited: the handler may itself be being cancelled
        services.hub.unsubscribe(sub)
        services.metrics.live_clients.dec()


@router.get("/sse", summary="Live alerts and table states as Server-Sent Events", responses={
    **AUTH_ERRORS, 200: {"content": {"text/event-stream": {}}, "description": "An endless event stream"}})
async def live_sse(principal: Reader, services: ServicesDep, request: Request,
                   tables: TablesQuery = None) -> EventSourceResponse:
    sub = services.hub.subscribe(principal.name, _tables(tables))
    services.metrics.live_clients.inc()

    async def stream() -> AsyncIterator[ServerSentEvent | bytes]:
        try:
            yield ServerSentEvent(event="hello", data=json.dumps({"name": principal.name,
                                                                   "role": principal.role.value}))
            while True:
                groups, closed = drain(sub.queue, await sub.queue.get(), MAX_PER_WRITE)
                if groups:  # encoded once per message, written once per wake-up
                    yield groups[0].sse if len(groups) == 1 else b"".join(g.sse for g in groups)
                if closed:
                    yield ServerSentEvent(event="closed", data=json.dumps(FELL_BEHIND))
                    return
        finally:
            services.hub.unsubscribe(sub)
            services.metrics.live_clients.dec()

    return EventSourceResponse(stream(), ping=15)
