"""Error answers: say what was wrong and where, never how the server works inside."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from fastapi import FastAPI, Request, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

log = logging.getLogger("monitor.api")


def _clean(error: dict[str, Any]) -> dict[str, Any]:
    # Keep where and what; drop the echoed input, pydantic's doc URL and internal context.
    return {"loc": list(error.get("loc", ())), "msg": str(error.get("msg", "invalid")),
            "type": str(error.get("type", "value_error"))}


async def validation_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [_clean(e) for e in exc.errors()][:50]
    return JSONResponse({"detail": errors}, status_code=status.HTTP_422_UNPROCESSABLE_CONTENT)


async def unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    reference = uuid.uuid4().hex[:12]
    log.error("unhandled error %s on %s %s", reference, request.method, request.url.path, exc_info=exc)
    return JSONResponse({"detail": f"internal error (reference {reference})"},
                        status_code=status.HTTP_500_INTERNAL_SERVER_ERROR)


def install(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(Exception, unexpected_error)
