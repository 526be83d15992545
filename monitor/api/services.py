"""Everything a request may need, built once per app and reached through dependencies."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from monitor.api.auth import TokenRegistry
from monitor.api.hub import LiveHub
from monitor.api.ingest import IngestPipeline
from monitor.api.metrics import Metrics
from monitor.api.settings import Settings, WebhookTarget
from monitor.api.webhooks.outbox import DeliveryWorker


@dataclass
class Services:
    settings: Settings
    tokens: TokenRegistry
    engine: Engine
    sessions: sessionmaker[Session]
    read_sessions: sessionmaker[Session]
    hub: LiveHub
    metrics: Metrics
    pipeline: IngestPipeline
    webhooks: list[WebhookTarget]
    workers: dict[str, DeliveryWorker] = field(default_factory=dict)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def wake_webhooks(self, targets: set[str]) -> None:
        for name in targets:
            worker = self.workers.get(name)
            if worker is not None:
                worker.wake()
