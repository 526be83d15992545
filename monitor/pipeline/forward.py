"""A table's events to a central server: an on-disk spool and a forwarder that empties it in order.

``run --server URL --token T`` keeps judging the table locally (its own store and dashboard) and also
sends every event it stores to a central ``serve`` (``POST /api/v1/events/batch`` with a sensor token),
where the room's tables meet on one dashboard. Each batch is first appended to the spool
(``<spool>/events.jsonl``, one JSON array of events a line, flushed and fsynced), then sent; the offset
of the first line not yet acknowledged by the server is kept in ``<spool>/sent`` (replaced atomically).
While the server is away the spool grows and the forwarder retries with backoff; when it is back the
spool is sent from the offset, oldest first. A resend is idempotent: the server knows each event by
its table and sequence number and stores it once (it answers such events as ``duplicates``), and the
alerts it raises have ids derived from what they are about, so a batch sent twice (an answer lost, the
process killed between sending and recording the offset) adds nothing the second time.

A line cut short by a crash while it was written is dropped on the next start (its events are in the
local store, which had them first); everything before it is sent.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from monitor.events.schema import EventBase, event_to_json

log = logging.getLogger("monitor.pipeline.forward")

SPOOL_FILE = "events.jsonl"
OFFSET_FILE = "sent"
COMPACT_BYTES = 8 << 20  # an emptied spool bigger than this starts again from zero
BACKOFF_MIN_S = 0.2
BACKOFF_MAX_S = 30.0


class Spool:
    """Append-only batches of events on disk, and how far the server has acknowledged them."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._path = folder / SPOOL_FILE
        self._offset_path = folder / OFFSET_FILE
        self._lock = threading.Lock()
        self._path.touch(exist_ok=True)
        self._drop_torn_tail()
        self._offset = self._read_offset()

    def _drop_torn_tail(self) -> None:
        data = self._path.read_bytes()
        if data and not data.endswith(b"\n"):
            keep = data.rfind(b"\n") + 1
            log.warning("spool %s: dropping a line cut short (%d bytes) by an earlier crash",
                        self._path, len(data) - keep)
            with self._path.open("r+b") as f:
                f.truncate(keep)
                f.flush()
                os.fsync(f.fileno())

    def _read_offset(self) -> int:
        try:
            offset = int(self._offset_path.read_text().strip() or 0)
        except (FileNotFoundError, ValueError):
            offset = 0
        size = self._path.stat().st_size
        # past the end: the spool was emptied (compacted) before the offset was reset; all was sent
        return 0 if offset > size else offset

    def _write_offset(self, offset: int) -> None:
        tmp = self._offset_path.with_suffix(".tmp")
        with tmp.open("w") as f:
            f.write(str(offset))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self._offset_path)

    def append(self, events: Sequence[EventBase]) -> None:
        """Add one batch, durably (flushed and fsynced) before returning."""
        if not events:
            return
        line = ("[" + ",".join(event_to_json(e) for e in events) + "]\n").encode("utf-8")
        with self._lock, self._path.open("ab") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())

    def pending(self, max_events: int = 2000) -> tuple[list[dict[str, Any]], int]:
        """The oldest unacknowledged events (whole lines, at least one line, up to about ``max_events``)
        and the offset just past them."""
        with self._lock, self._path.open("rb") as f:
            f.seek(self._offset)
            events: list[dict[str, Any]] = []
            end = self._offset
            while not events or len(events) < max_events:
                line = f.readline()
                if not line.endswith(b"\n"):
                    break  # end of file (or a line still being written)
                try:
                    batch = json.loads(line)
                except ValueError:  # a damaged line: skipped (its events are in the local store)
                    log.error("spool %s: skipping an unreadable line at byte %d", self._path, end)
                    end += len(line)
                    continue
                if events and len(events) + len(batch) > max_events:
                    break
                events.extend(batch)
                end += len(line)
        return events, end

    def ack(self, offset: int) -> None:
        """The server stored everything before ``offset``."""
        with self._lock:
            self._offset = offset
            if offset >= COMPACT_BYTES and offset == self._path.stat().st_size:
                self._offset = 0
                self._write_offset(0)  # a crash right here resends the spool once: harmless
                with self._path.open("r+b") as f:
                    f.truncate(0)
                    f.flush()
                    os.fsync(f.fileno())
            else:
                self._write_offset(offset)

    @property
    def offset(self) -> int:
        with self._lock:
            return self._offset

    def backlog_bytes(self) -> int:
        with self._lock:
            return self._path.stat().st_size - self._offset


@dataclass
class ForwarderStats:
    sent: int = 0  # events the server stored
    duplicates: int = 0  # events it already had (a resend)
    alerts: int = 0  # alerts it raised for them
    failures: int = 0  # attempts that failed (server away, or refusing)
    connected: bool = False  # the last attempt reached the server and was stored


class Forwarder:
    """Sends the spool to ``server`` on a thread of its own; ``put`` spools a batch and wakes it."""

    def __init__(self, server: str, token: str, spool: Spool, *, max_events: int = 2000,
                 timeout_s: float = 30.0, client: httpx.Client | None = None) -> None:
        self.url = server.rstrip("/") + "/api/v1/events/batch"
        self.spool = spool
        self.max_events = max_events
        self.stats = ForwarderStats()
        self._headers = {"Authorization": f"Bearer {token}", "User-Agent": "table-monitor-run/1"}
        self._client = client or httpx.Client(timeout=timeout_s)
        self._own_client = client is None
        self._wake = threading.Condition()
        self._stop = threading.Event()
        self._flush = threading.Event()
        self._thread = threading.Thread(target=self._run, name="forwarder", daemon=True)

    def start(self) -> Forwarder:
        self._thread.start()
        return self

    def put(self, events: Sequence[EventBase]) -> None:
        self.spool.append(events)
        with self._wake:
            self._wake.notify()

    def _send(self, events: list[dict[str, Any]]) -> bool:
        try:
            response = self._client.post(self.url, json=events, headers=self._headers)
        except httpx.HTTPError as exc:
            if self.stats.connected:
                log.warning("central server %s away (%s): spooling", self.url, type(exc).__name__)
            self.stats.connected = False
            return False
        if response.status_code != 200:
            level = logging.WARNING if response.status_code >= 500 else logging.ERROR
            log.log(level, "central server %s refused a batch of %d events: HTTP %d %s", self.url,
                    len(events), response.status_code, response.text[:200])
            self.stats.connected = False
            return False
        body = response.json()
        if not self.stats.connected:
            log.info("central server %s reached: sending the spool", self.url)
        self.stats.connected = True
        self.stats.sent += int(body.get("accepted", 0))
        self.stats.duplicates += int(body.get("duplicates", 0))
        self.stats.alerts += len(body.get("alerts", []))
        return True

    def _run(self) -> None:
        delay = BACKOFF_MIN_S
        while True:
            events, end = self.spool.pending(self.max_events)
            if not events:
                if end != self.spool.offset:
                    self.spool.ack(end)  # only unreadable lines were left
                    continue
                if self._stop.is_set() or self._flush.is_set():
                    return
                with self._wake:
                    self._wake.wait(timeout=1.0)
                continue
            if self._send(events):
                self.spool.ack(end)
                delay = BACKOFF_MIN_S
                continue
            self.stats.failures += 1
            if self._stop.is_set():
                return
            self._stop.wait(delay)
            delay = min(BACKOFF_MAX_S, delay * 2)

    def close(self, drain_s: float = 10.0) -> None:
        """Try for ``drain_s`` to send what is spooled, then stop (the rest goes on the next start)."""
        self._flush.set()
        with self._wake:
            self._wake.notify()
        self._thread.join(drain_s)
        self._stop.set()
        with self._wake:
            self._wake.notify()
        self._thread.join(5.0)
        if self._own_client:
            with contextlib.suppress(Exception):
                self._client.close()
        left = self.spool.backlog_bytes()
        if left:
            log.warning("central server %s: %d bytes of events still spooled in %s; they go when "
                        "the table runs again", self.url, left, self.spool.folder)


class ForwarderCollector(Collector):
    """The forwarder in the table's own ``/metrics``: the spool's backlog and whether the server is
    reached, with the events sent, already there, and the failed attempts."""

    def __init__(self, forwarder: Forwarder) -> None:
        self.forwarder = forwarder

    def collect(self) -> Iterator[Metric]:
        f, labels = self.forwarder, ["server"]
        server = f.url.removesuffix("/api/v1/events/batch")
        backlog = GaugeMetricFamily("table_monitor_forward_backlog_bytes",
                                    "Bytes of events spooled and not yet acknowledged by the server",
                                    labels=labels)
        backlog.add_metric([server], f.spool.backlog_bytes())
        connected = GaugeMetricFamily("table_monitor_forward_connected",
                                      "1 while the last attempt reached the server and was stored",
                                      labels=labels)
        connected.add_metric([server], 1.0 if f.stats.connected else 0.0)
        events = CounterMetricFamily("table_monitor_forward_events", "Events sent to the server, by outcome",
                                     labels=["server", "outcome"])
        events.add_metric([server, "stored"], f.stats.sent)
        events.add_metric([server, "duplicate"], f.stats.duplicates)
        failures = CounterMetricFamily("table_monitor_forward_failures", "Failed attempts to send a batch",
                                       labels=labels)
        failures.add_metric([server], f.stats.failures)
        yield from (backlog, connected, events, failures)


class TeeSink:
    """The local store's sink and the forwarder, in that order, for every batch of a live run."""

    def __init__(self, local: Any, forwarder: Forwarder) -> None:
        self.local = local
        self.forwarder = forwarder

    def put(self, events: list[EventBase]) -> None:
        self.local.put(events)
        try:
            self.forwarder.put(events)
        except OSError as exc:  # a full or failing disk must not stop the local judging
            log.error("spool %s: cannot append (%s): these events reach only the local store",
                      self.forwarder.spool.folder, exc)


def wait_drained(forwarder: Forwarder, timeout_s: float) -> bool:
    """Until the spool is empty (True) or ``timeout_s`` passed (False)."""
    deadline = time.monotonic() + timeout_s
    while forwarder.spool.backlog_bytes():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
