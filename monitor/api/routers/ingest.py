"""/api/v1/events: events from a sensor or another process, into the procedure monitor.

The answer comes only after the events, and every alert they raised, are committed.
"""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Body, HTTPException, Request, status
from fastapi.exceptions import RequestValidationError
from pydantic import Field

from monitor.api.deps import AUTH_ERRORS, VALIDATION_ERROR, Sensor, ServicesDep
from monitor.api.ingest import IngestUnavailable
from monitor.api.schemas import ErrorOut, IngestResult
from monitor.events.schema import Event

MAX_BATCH = 5000
MAX_SEQ = 2**63 - 1  # the store keeps seq in a signed 64-bit column

router = APIRouter(prefix="/api/v1/events", tags=["ingest"], responses={
    **AUTH_ERRORS, **VALIDATION_ERROR,
    413: {"model": ErrorOut, "description": "The body is larger than the server accepts"},
    503: {"model": ErrorOut, "description": "The store could not commit; nothing was kept, resend"},
})


def _check_seq(events: list[Event], *, batch: bool) -> None:
    """The schema allows any seq >= 0; refuse what the store cannot hold, as a validation error."""
    errors = [{"loc": ("body", i, "seq") if batch else ("body", "seq"),
               "msg": f"Input should be less than or equal to {MAX_SEQ} (a signed 64-bit integer)",
               "type": "less_than_equal"} for i, event in enumerate(events) if event.seq > MAX_SEQ]
    if errors:
        raise RequestValidationError(errors)


async def _submit(services: ServicesDep, events: list[Event], received: float) -> IngestResult:
    try:
        return await services.pipeline.submit(events, received)
    except IngestUnavailable as exc:
        raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, str(exc),
                            headers={"Retry-After": "1"}) from None


@router.post("", response_model=IngestResult, summary="Ingest one event (sensor)")
async def ingest_one(_: Sensor, services: ServicesDep, request: Request,
                     event: Annotated[Event, Body(description="one event of the project's event schema")],
                     ) -> IngestResult:
    received = getattr(request.state, "received", time.monotonic())  # stamped on arrival by the middleware
    _check_seq([event], batch=False)
    return await _submit(services, [event], received)


@router.post("/batch", response_model=IngestResult,
             summary="Ingest a batch of events, all or nothing (sensor)")
async def ingest_batch(_: Sensor, services: ServicesDep, request: Request,
                       events: Annotated[list[Event], Body(description="events in the order they happened"),
                                         Field(min_length=1, max_length=MAX_BATCH)]) -> IngestResult:
    received = getattr(request.state, "received", time.monotonic())  # stamped on arrival by the middleware
    if len(events) > services.settings.max_batch_events:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT,
                            f"batch of {len(events)} events; at most {services.settings.max_batch_events}")
    _check_seq(events, batch=True)
    return await _submit(services, events, received)
