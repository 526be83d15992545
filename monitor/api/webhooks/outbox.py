"""The transactional outbox and its delivery workers.

An alert's webhook deliveries are written in the same transaction as the alert, so a crash
cannot lose them; each target has its own worker, so a target that is down only delays
itself. Failed attempts back off exponentially (with jitter) and are retried until they
succeed; every request carries an ``Idempotency-Key`` so a retry after a lost response is
recognised by the receiver.

A refusal that no retry can change (HTTP 4xx other than 408 Request Timeout and 429 Too Many
Requests: a wrong URL, a rejected signature, a payload the receiver will never take) is a permanent
failure: the delivery goes to the dead-letter state (``dead``) with its error, the API lists it and
an admin sends it again once the receiver is fixed (:func:`retry_dead`).

Signed requests carry ``X-Table-Monitor-Signature: t=<unix seconds>,v1=<hex>``, the hex being
HMAC-SHA256 of ``"<t>.<body>"`` under the target's secret; ``t`` is the time of that attempt, so a
receiver can refuse an old (replayed) request (:func:`verify_signature`, docs/webhooks.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import httpx
from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session, sessionmaker

from monitor.api.settings import WebhookTarget
from monitor.api.webhooks.payloads import idempotency_key, render
from monitor.store.models import AlertRow, OutboxRow, OutboxStatus
from monitor.store.types import utcnow

log = logging.getLogger("monitor.api.webhooks")

BACKOFF_BASE_S = 1.0
BACKOFF_CAP_S = 300.0
SIGNATURE_HEADER = "X-Table-Monitor-Signature"
SIGNATURE_TOLERANCE_S = 300  # what verify_signature accepts by default: five minutes either way
RETRYABLE_4XX = frozenset({408, 429})  # the client errors a later attempt can cure


def wants(target: WebhookTarget, severity: str) -> bool:
    return target.severities is None or severity in {s.value for s in target.severities}


def enqueue(session: Session, row: AlertRow, targets: Sequence[WebhookTarget]) -> int:
    """Owe ``row`` to every interested target, inside the alert's own transaction."""
    count = 0
    for target in targets:
        if not wants(target, row.severity):
            continue
        content_type, body = render(row, target)
        session.add(OutboxRow(
            alert_id=row.id, target=target.name, idempotency_key=idempotency_key(row.id, target.name),
            content_type=content_type, body=body, status=OutboxStatus.PENDING.value, attempts=0,
            next_attempt_at=utcnow(), created_at=utcnow(),
        ))
        count += 1
    return count


def enqueue_many(session: Session, rows: Sequence[AlertRow], targets: Sequence[WebhookTarget]) -> int:
    """``enqueue`` for a whole ingest batch, as one multi-row INSERT."""
    now = utcnow()
    values = []
    for row in rows:
        for target in targets:
            if wants(target, row.severity):
                content_type, body = render(row, target)
                values.append({
                    "alert_id": row.id, "target": target.name,
                    "idempotency_key": idempotency_key(row.id, target.name), "content_type": content_type,
                    "body": body, "status": OutboxStatus.PENDING.value, "attempts": 0, "next_attempt_at": now,
                    "created_at": now,
                })
    if values:
        session.connection().execute(insert(OutboxRow), values)
    return len(values)


def backoff(attempts: int, rng: Callable[[], float] = random.random) -> timedelta:
    """Delay before attempt ``attempts + 1``: exponential, capped, with +-20 % jitter."""
    base = min(BACKOFF_CAP_S, BACKOFF_BASE_S * (2 ** min(attempts, 20)))
    return timedelta(seconds=base * (0.8 + 0.4 * rng()))


def _mac(secret: str, timestamp: int, body: str) -> str:
    return hmac.new(secret.encode(), f"{timestamp}.{body}".encode(), hashlib.sha256).hexdigest()


def signature(secret: str, body: str, timestamp: int | None = None) -> str:
    """The signature header's value: ``t=<unix seconds>,v1=<HMAC-SHA256 of "<t>.<body>">``."""
    t = int(time.time()) if timestamp is None else timestamp
    return f"t={t},v1={_mac(secret, t, body)}"


def verify_signature(secret: str, body: str, header: str, *, tolerance_s: float = SIGNATURE_TOLERANCE_S,
                     now: float | None = None) -> bool:
    """A receiver's check: the header is well formed, its MAC matches, and its time is within
    ``tolerance_s`` of ``now`` (a captured request replayed later fails)."""
    fields: dict[str, list[str]] = {}
    for part in header.split(","):
        key, sep, value = part.strip().partition("=")
        if not sep:
            return False
        fields.setdefault(key, []).append(value)
    stamps = fields.get("t", [])
    if len(stamps) != 1 or not stamps[0].isdigit():
        return False
    t = int(stamps[0])
    if abs((time.time() if now is None else now) - t) > tolerance_s:
        return False
    expected = _mac(secret, t, body)
    return any(hmac.compare_digest(expected, v) for v in fields.get("v1", []))


def permanent(status_code: int) -> bool:
    """An HTTP answer no retry can change: a 4xx other than 408 and 429."""
    return 400 <= status_code < 500 and status_code not in RETRYABLE_4XX


@dataclass(frozen=True, slots=True)
class Attempt:
    """How one delivery attempt went."""

    ok: bool
    error: str | None = None
    permanent: bool = False  # the receiver refused it for good: dead-letter, no retry


@dataclass(frozen=True, slots=True)
class Due:
    id: int
    idempotency_key: str
    content_type: str
    body: str
    attempts: int


class DeliveryWorker:
    """Delivers one target's pending rows, oldest first, until stopped."""

    def __init__(self, target: WebhookTarget, sessions: sessionmaker[Session], client: httpx.AsyncClient,
                 *, on_result: Callable[[str, bool], None] | None = None, poll_s: float = 1.0,
                 batch: int = 50) -> None:
        self.target = target
        self._sessions = sessions
        self._client = client
        self._on_result = on_result
        self._poll_s = poll_s
        self._batch = batch
        self._wake = asyncio.Event()

    def wake(self) -> None:
        self._wake.set()

    def _due(self) -> list[Due]:
        with self._sessions() as session, session.begin():
            rows = session.execute(
                select(OutboxRow)
                .where(OutboxRow.target == self.target.name, OutboxRow.status == OutboxStatus.PENDING.value,
                       OutboxRow.next_attempt_at <= utcnow())
                .order_by(OutboxRow.id).limit(self._batch)
            ).scalars().all()
            return [Due(r.id, r.idempotency_key, r.content_type, r.body, r.attempts) for r in rows]

    def _record(self, due: Due, attempt: Attempt) -> None:
        with self._sessions() as session, session.begin():
            row = session.get(OutboxRow, due.id)
            if row is None:
                return
            row.attempts = due.attempts + 1
            if attempt.ok:
                row.status = OutboxStatus.DELIVERED.value
                row.delivered_at = utcnow()
                row.last_error = None
            elif attempt.permanent:
                row.status = OutboxStatus.DEAD.value
                row.last_error = (attempt.error or "")[:500]
            else:
                row.last_error = (attempt.error or "")[:500]
                row.next_attempt_at = utcnow() + backoff(due.attempts)

    async def _send(self, due: Due) -> Attempt:
        headers = {
            "Content-Type": due.content_type,
            "Idempotency-Key": due.idempotency_key,
            "User-Agent": "table-monitor-webhook/1",
        }
        if self.target.secret is not None:
            headers[SIGNATURE_HEADER] = signature(self.target.secret.get_secret_value(), due.body)
        try:
            response = await self._client.post(str(self.target.url), content=due.body.encode("utf-8"),
                                               headers=headers, timeout=self.target.timeout_s)
        except httpx.HTTPError as exc:
            return Attempt(False, f"{type(exc).__name__}: {exc}")
        if 200 <= response.status_code < 300:
            return Attempt(True)
        reason = f"HTTP {response.status_code} {response.reason_phrase}".rstrip()
        return Attempt(False, reason, permanent=permanent(response.status_code))

    async def deliver_due(self) -> int:
        """One pass: send everything due now; returns how many were delivered."""
        delivered = 0
        due = await asyncio.to_thread(self._due)
        for item in due:
            attempt = await self._send(item)
            await asyncio.to_thread(self._record, item, attempt)
            if self._on_result is not None:
                self._on_result(self.target.name, attempt.ok)
            if attempt.ok:
                delivered += 1
            elif attempt.permanent:
                # the receiver answered and refused this one: the rest may still go through
                log.error("webhook %s: %s refused for good (%s): dead-lettered until an admin retries it",
                          self.target.name, item.idempotency_key, attempt.error,
                          extra={"webhook_target": self.target.name, "outbox_id": item.id})
            else:
                log.warning("webhook %s: delivery of %s failed (%s); will retry", self.target.name,
                            item.idempotency_key, attempt.error)
                break  # the target is failing: back off instead of hammering it with the rest
        return delivered

    async def run(self) -> None:
        while True:
            self._wake.clear()  # before the pass: a wake-up during it triggers the next pass at once
            try:
                await self.deliver_due()
            except asyncio.CancelledError:
                raise
            except Exception:  # a store hiccup must not kill delivery for good
                log.exception("webhook %s: delivery pass failed", self.target.name)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self._poll_s)


def _counts(session: Session, status: OutboxStatus) -> dict[str, int]:
    rows = session.execute(
        select(OutboxRow.target, func.count()).where(OutboxRow.status == status.value)
        .group_by(OutboxRow.target)
    ).all()
    return {target: int(n) for target, n in rows}


def pending_counts(session: Session) -> dict[str, int]:
    return _counts(session, OutboxStatus.PENDING)


def dead_counts(session: Session) -> dict[str, int]:
    return _counts(session, OutboxStatus.DEAD)


def dead_letters(session: Session, target: str | None = None, limit: int = 100) -> list[OutboxRow]:
    """Dead-lettered deliveries, newest first."""
    query = select(OutboxRow).where(OutboxRow.status == OutboxStatus.DEAD.value)
    if target is not None:
        query = query.where(OutboxRow.target == target)
    return list(session.execute(query.order_by(OutboxRow.id.desc()).limit(limit)).scalars())


def retry_dead(session: Session, *, delivery_id: int | None = None, target: str | None = None) -> list[int]:
    """Put dead-lettered deliveries back in the queue, due now and with a fresh backoff: one by id, every
    one of a target, or all; returns the ids (inside the caller's transaction)."""
    query = select(OutboxRow.id).where(OutboxRow.status == OutboxStatus.DEAD.value)
    if delivery_id is not None:
        query = query.where(OutboxRow.id == delivery_id)
    if target is not None:
        query = query.where(OutboxRow.target == target)
    ids = [int(i) for i in session.execute(query.order_by(OutboxRow.id)).scalars()]
    if ids:
        session.execute(update(OutboxRow).where(OutboxRow.id.in_(ids)).values(
            status=OutboxStatus.PENDING.value, attempts=0, next_attempt_at=utcnow()))
    return ids


def oldest_pending(session: Session) -> datetime | None:
    return session.execute(
        select(func.min(OutboxRow.created_at)).where(OutboxRow.status == OutboxStatus.PENDING.value)
    ).scalar_one_or_none()
