"""The API and dashboard served in-process, with the pipeline pushing events straight into its ingest.

``ApiServer`` runs uvicorn on a thread of its own event loop; :class:`ApiSink` hands event batches to
the app's ingest pipeline (the same group commit, store, procedure monitor and live push as the
HTTP ingest) from any thread, through a bounded queue so a slow store never blocks the chain.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from monitor.events.schema import EventBase
from monitor.pipeline.snapshots import FrameRing, SnapshotFeed
from monitor.procedure.feed_contract import ProcedureFeed
from monitor.rules.profile import PaiGowProfile

log = logging.getLogger(__name__)


class ApiServer:
    """``create_app`` served on ``host:port`` in a background thread (port 0: any free port)."""

    def __init__(self, settings: Any, ring: FrameRing | None = None, log_level: str = "warning",
                 profiles: Mapping[str, PaiGowProfile] | None = None) -> None:
        """``profiles``: each table's rule profile (its table file's), which judges its events."""
        import uvicorn

        from monitor.api.app import create_app
        from monitor.procedure.feed import MonitorFeed

        self.settings = settings
        self.ring = ring or FrameRing()
        folder = Path(settings.snapshot_dir) if settings.snapshot_dir else None
        # told (alert id, file) of each snapshot written, e.g. the forwarder to a central server; read
        # when a snapshot is written, so a listener added after start-up is heard
        self.snapshot_listeners: list[Callable[[str, Path], None]] = []

        def feed() -> ProcedureFeed:
            inner = MonitorFeed(profiles)
            if folder is None:
                return inner
            return SnapshotFeed(inner, self.ring, folder, on_written=self._snapshot_written)

        self.app = create_app(settings, feed_factory=feed)
        # log_config None: its records go through the logging the command set up (monitor.logsetup)
        config = uvicorn.Config(self.app, host=settings.host, port=settings.port, log_level=log_level,
                                log_config=None,
                                access_log=False, ws_max_size=1 << 20, timeout_graceful_shutdown=3,
                                # per-message deflate compressed each alert once per client: 44% of the loop
                                ws_per_message_deflate=False)
        self.server = uvicorn.Server(config)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name="api-server", daemon=True)
        self.error: BaseException | None = None

    def _snapshot_written(self, alert_id: str, path: Path) -> None:
        for listener in list(self.snapshot_listeners):
            listener(alert_id, path)

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self.server.serve())
        except BaseException as e:  # reported to the starter, not lost in a thread
            self.error = e

    def start(self, timeout: float = 180.0) -> ApiServer:
        """Wait for the server to listen. A server that fails or exits is reported at once; one still
        starting is waited for (its store's migrations and the monitor's rebuild take tens of seconds
        on a starved machine), saying so every 15 s, up to ``timeout``."""
        self._thread.start()
        t0 = time.monotonic()
        said = 0
        while not self.server.started:
            if self.error is not None or not self._thread.is_alive():
                raise RuntimeError(f"the API server did not start: {self.error or 'it exited'}")
            waited = time.monotonic() - t0
            if waited > timeout:
                raise RuntimeError(f"the API server did not start within {timeout:.0f} s")
            if waited >= 15 * (said + 1):
                said += 1
                log.info("the API server is still starting after %.0f s", waited)
            time.sleep(0.05)
        return self

    @property
    def port(self) -> int:
        for s in self.server.servers:
            for sock in s.sockets:
                return int(sock.getsockname()[1])
        return int(self.settings.port)

    @property
    def url(self) -> str:
        return f"http://{self.settings.host}:{self.port}"

    @property
    def services(self) -> Any:
        return self.app.state.services

    def call(self, fn: Callable[[], Any], timeout: float = 30.0) -> Any:
        """Run a coroutine factory on the server's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(fn(), self.loop).result(timeout)

    def next_seq(self, table_id: str) -> int:
        """The first sequence number a new run of ``table_id`` may use (after everything stored)."""
        from sqlalchemy import func, select

        from monitor.store.models import EventRow

        with self.services.sessions() as session:
            query = select(func.max(EventRow.seq)).where(EventRow.table_id == table_id)
            top = session.execute(query).scalar()
        return 0 if top is None else int(top) + 1

    def stop(self) -> None:
        self.server.should_exit = True
        self._thread.join(10)


class ApiSink:
    """Event batches -> the app's ingest, in order, on a thread of their own.

    One ingest call is in flight at a time (a failed one is resent before anything after it). The
    batches that queued meanwhile go together as the next call: one group commit for all of them,
    instead of one commit each while the store catches up. A lone batch goes at once; nothing waits
    for others to join it.
    """

    def __init__(self, server: ApiServer, capacity: int = 10_000, max_events: int = 2000) -> None:
        self.server = server
        self.max_events = max_events  # per ingest call (the ingest's own group commit bound)
        self._queue: queue.Queue[list[EventBase] | None] = queue.Queue(capacity)
        self._thread = threading.Thread(target=self._run, name="event-sink", daemon=True)
        self.sent = 0
        self.alerts = 0
        self.failures = 0
        self.dropped = 0
        self.calls = 0  # ingest calls made (fewer than the batches put when they were joined)
        self._thread.start()

    def put(self, events: list[EventBase]) -> None:
        if not events:
            return
        try:
            self._queue.put_nowait(events)
        except queue.Full:
            self.dropped += len(events)
            log.error("event sink full: %d events dropped", len(events))

    def _take(self) -> tuple[list[EventBase], bool]:
        """The next batch (waiting for one) joined with those already queued behind it, up to
        ``max_events``; True once the closing sentinel was taken."""
        first = self._queue.get()
        if first is None:
            return [], True
        batch = list(first)
        while len(batch) < self.max_events:
            try:
                more = self._queue.get_nowait()
            except queue.Empty:
                break
            if more is None:
                return batch, True
            batch.extend(more)
        return batch, False

    def _run(self) -> None:
        pipeline = self.server.services.pipeline
        closing = False
        while not closing:
            batch, closing = self._take()
            if not batch:
                continue
            self.calls += 1
            for attempt in range(5):
                try:
                    result = self.server.call(lambda b=batch: pipeline.submit(b))  # type: ignore[misc]
                    self.sent += result.accepted
                    self.alerts += len(result.alerts)
                    break
                except Exception as e:  # the store could not commit: it asks for a resend
                    self.failures += 1
                    log.warning("ingest failed (%s); retrying", e)
                    time.sleep(0.2 * (attempt + 1))

    def close(self, timeout: float = 30.0) -> None:
        """Send what is queued, then stop."""
        self._queue.put(None)
        self._thread.join(timeout)
