"""ASGI middleware: request size limit, arrival time stamp, security headers."""

from __future__ import annotations

import json
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    # The page loads only its own scripts and styles (no CDN) and talks only to its own origin.
    (b"content-security-policy",
     b"default-src 'self'; img-src 'self' data: blob:; connect-src 'self'; style-src 'self'; "
     b"script-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'"),
]


class BodyTooLarge(Exception):
    pass


class GuardMiddleware:
    """Refuse bodies over ``max_body_bytes`` (413), by Content-Length or while streaming;
    stamp the arrival time; add security headers to every HTTP response."""

    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope.setdefault("state", {})["received"] = time.monotonic()
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.max_body_bytes
                except ValueError:
                    too_big = False
                if too_big:
                    await self._refuse(send)
                    return
        seen = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body_bytes:
                    raise BodyTooLarge
            return message

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                headers.extend((k, v) for k, v in SECURITY_HEADERS if k not in present)
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, counting_receive, send_with_headers)
        except BodyTooLarge:
            if not started:
                await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps({"detail": f"request body over {self.max_body_bytes} bytes"}).encode()
        headers: list[Any] = [(b"content-type", b"application/json"),
                              (b"content-length", str(len(body)).encode()), (b"connection", b"close"),
                              *SECURITY_HEADERS]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})
