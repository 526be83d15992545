"""Prometheus metrics of one API instance (its own registry, so several apps can coexist)."""

from __future__ import annotations

import time
from collections import deque

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from monitor.sources.prometheus import SourceCollector

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class EventRate:
    """Events per second over a sliding window (what an operator reads off a dashboard)."""

    def __init__(self, window_s: float = 10.0) -> None:
        self.window_s = window_s
        self._marks: deque[tuple[float, int]] = deque()

    def add(self, n: int, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        self._marks.append((now, n))
        self._trim(now)

    def _trim(self, now: float) -> None:
        while self._marks and self._marks[0][0] < now - self.window_s:
            self._marks.popleft()

    def rate(self, now: float | None = None) -> float:
        now = time.monotonic() if now is None else now
        self._trim(now)
        return sum(n for _, n in self._marks) / self.window_s


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.events = Counter("table_monitor_events_ingested", "Events accepted and committed", registry=r)
        self.duplicates = Counter("table_monitor_events_duplicate", "Resent events (known table and seq)",
                                  registry=r)
        self.rate = EventRate()
        self.events_per_second = Gauge("table_monitor_events_per_second",
                                       "Events ingested per second over the last 10 s", registry=r)
        self.events_per_second.set_function(self.rate.rate)
        self.alerts = Counter("table_monitor_alerts", "Alerts raised, by severity", ["severity"], registry=r)
        self.event_to_push = Histogram(
            "table_monitor_event_to_push_seconds",
            "From an event's arrival at the API to its alert being handed to the live clients",
            buckets=LATENCY_BUCKETS, registry=r)
        self.commit_seconds = Histogram("table_monitor_ingest_commit_seconds",
                                        "Time to process and commit one ingest batch",
                                        buckets=LATENCY_BUCKETS, registry=r)
        self.batch_size = Histogram("table_monitor_ingest_batch_events", "Events per group commit",
                                    buckets=(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000), registry=r)
        self.live_clients = Gauge("table_monitor_live_clients", "Connected WebSocket and SSE clients",
                                  registry=r)
        self.live_dropped = Counter("table_monitor_live_clients_dropped",
                                    "Live clients disconnected for falling behind", registry=r)
        self.webhook_results = Counter("table_monitor_webhook_attempts", "Webhook delivery attempts",
                                       ["target", "outcome"], registry=r)
        # the cameras and dice readers of a live run in this process (run, demo): /metrics and /health
        self.sources = SourceCollector()
        r.register(self.sources)

    def render(self) -> bytes:
        return generate_latest(self.registry)
