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
process killed between sending and recording the offset) adds nothing the second time. That is why
the offset, unlike the batches, is not fsynced after each acknowledgement: a box that loses power may
come back with an older offset (or none: the spool from its start) and resend what the server already
has, which costs a resend and loses nothing. Only the offset's reset to zero when an emptied spool is
truncated is fsynced first, so an offset never points into batches spooled after it.

A line cut short by a crash while it was written is dropped on the next start (its events are in the
local store, which had them first); everything before it is sent.

Two things go beside the events. Each alert snapshot the table writes is copied into
``<spool>/snapshots/`` and sent (``PUT /api/v1/alerts/<id>/snapshot``) once the events before it are
acknowledged, so the server has raised that alert by then; a snapshot whose alert the server does not
know yet is tried again for ``SNAPSHOT_WAIT_S``. And every ``STATUS_INTERVAL_S`` the table's camera and
dice reader, as its own ``/health`` shows them, go to ``PUT /api/v1/tables/<id>/sources``: live
figures, never spooled (a stale one is worth nothing), and an empty report when the run stops.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
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
SNAPSHOT_DIR = "snapshots"
SNAPSHOT_WAIT_S = 600.0  # a snapshot whose alert the server has not raised is tried this long, then dropped
SNAPSHOTS_PER_PASS = 8  # then the events spooled meanwhile go first
STATUS_INTERVAL_S = 5.0  # the server counts a table silent for 30 s as down (sources.prometheus.STALE_S)


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

    def _write_offset(self, offset: int, durable: bool = False) -> None:
        """Record ``offset`` (replaced whole); fsynced only when ``durable`` (see the module's notes)."""
        tmp = self._offset_path.with_suffix(".tmp")
        with tmp.open("w") as f:
            f.write(str(offset))
            f.flush()
            if durable:
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
        """The server stored everything before ``offset`` (recorded without an fsync: a resend after a
        power loss is harmless)."""
        with self._lock:
            self._offset = offset
            if offset >= COMPACT_BYTES and offset == self._path.stat().st_size:
                self._offset = 0
                self._write_offset(0, durable=True)  # a crash right here resends the spool once: harmless
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


class SnapshotSpool:
    """Alert snapshots waiting for the server: a copy of each in one folder, removed once the server
    has it. Unordered: one whose alert the server has not raised yet waits without holding the others."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        for tmp in folder.glob(".*.tmp"):  # a copy cut short by a crash (the box keeps the original)
            tmp.unlink(missing_ok=True)

    def put(self, alert_id: str, source: Path) -> Path:
        """Copy ``source`` in as the snapshot of ``alert_id``, durably (a resend overwrites its own)."""
        target = self.folder / (alert_id + source.suffix.lower())
        tmp = self.folder / f".{target.name}.tmp"
        data = source.read_bytes()
        with tmp.open("wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
        return target

    def pending(self, before: float | None = None) -> list[Path]:
        """Oldest first; with ``before`` (a ``time.time()``), only those spooled before it."""
        found: list[tuple[float, Path]] = []
        with os.scandir(self.folder) as entries:
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                with contextlib.suppress(FileNotFoundError):
                    found.append((entry.stat().st_mtime, Path(entry.path)))
        return [path for mtime, path in sorted(found) if before is None or mtime < before]

    def done(self, path: Path) -> None:
        path.unlink(missing_ok=True)


@dataclass
class ForwarderStats:
    sent: int = 0  # events the server stored
    duplicates: int = 0  # events it already had (a resend)
    alerts: int = 0  # alerts it raised for them
    failures: int = 0  # attempts that failed (server away, or refusing)
    connected: bool = False  # the last attempt reached the server and was stored
    snapshots: int = 0  # snapshots the server took
    snapshots_dropped: int = 0  # snapshots given up (refused for good, or their alert never raised there)
    snapshots_early: int = 0  # refusals of a snapshot whose alert the server had not raised yet (tried again)
    reports: int = 0  # source reports the server took


class Forwarder:
    """Sends the spool to ``server`` on a thread of its own; ``put`` spools a batch and wakes it,
    ``put_snapshot`` an alert's snapshot. With ``table_id`` and ``sources`` (the table's ``/health``
    rows, as dicts) the table's devices are reported every ``status_interval_s``."""

    def __init__(self, server: str, token: str, spool: Spool, *, max_events: int = 2000,
                 timeout_s: float = 30.0, client: httpx.Client | None = None, table_id: str | None = None,
                 sources: Callable[[], list[dict[str, Any]]] | None = None,
                 status_interval_s: float = STATUS_INTERVAL_S) -> None:
        self.server = server.rstrip("/")
        self.url = self.server + "/api/v1/events/batch"
        self.spool = spool
        self.snapshots = SnapshotSpool(spool.folder / SNAPSHOT_DIR)
        self.max_events = max_events
        self.stats = ForwarderStats()
        self.table_id = table_id
        self._sources = sources
        self.status_interval_s = status_interval_s
        self._next_status = 0.0
        # snapshot file -> (its first refusal, its next try, the delay before that)
        self._waiting: dict[str, tuple[float, float, float]] = {}
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

    def put_snapshot(self, alert_id: str, path: Path) -> None:
        """The table wrote ``path`` as the snapshot of ``alert_id``: send a copy of it when its turn comes."""
        try:
            self.snapshots.put(alert_id, path)
        except OSError as exc:  # the picture stays on the box's page; the alert itself goes regardless
            log.error("snapshot %s not spooled for %s: %s", path, self.server, exc)
            return
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

    def _report(self, force: bool = False) -> bool:
        """The table's sources, when they are due; False only when the server could not be reached."""
        if self._sources is None or self.table_id is None:
            return True
        now = time.monotonic()
        if not force and now < self._next_status:
            return True
        self._next_status = now + self.status_interval_s
        try:
            body = {"sources": self._sources()}
        except Exception:  # a source that cannot say how it is must not stop the events
            log.exception("the table's sources could not be read for %s", self.server)
            return True
        try:
            response = self._client.put(f"{self.server}/api/v1/tables/{self.table_id}/sources", json=body,
                                        headers=self._headers)
        except httpx.HTTPError:
            return False
        if response.status_code == 200:
            self.stats.reports += 1
        else:  # an older server, say: the events matter more, and they still go
            log.warning("central server %s refused the table's sources: HTTP %d %s", self.server,
                        response.status_code, response.text[:200])
        return True

    def _ready_snapshots(self, before: float | None = None) -> list[Path]:
        now = time.monotonic()
        return [p for p in self.snapshots.pending(before)
                if self._waiting.get(p.name, (0.0, 0.0, 0.0))[1] <= now]

    def _send_snapshot(self, path: Path) -> bool:
        """One snapshot; False only when the server could not be reached (or failed: 5xx)."""
        alert_id = path.stem
        kind = "image/png" if path.suffix == ".png" else "image/jpeg"
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return True
        try:
            response = self._client.put(f"{self.server}/api/v1/alerts/{alert_id}/snapshot", content=data,
                                        headers={**self._headers, "Content-Type": kind})
        except httpx.HTTPError:
            return False
        if response.status_code >= 500:
            return False
        now = time.monotonic()
        if response.status_code == 404:  # the server has not raised that alert yet
            first, _, delay = self._waiting.get(path.name, (now, now, 0.5))
            if now - first <= SNAPSHOT_WAIT_S:
                delay = min(BACKOFF_MAX_S, delay * 2)
                self._waiting[path.name] = (first, now + delay, delay)
                self.stats.snapshots_early += 1
                return True
            log.error("central server %s: no alert %s after %.0f s; its snapshot is not sent (it stays on "
                      "the box)", self.server, alert_id, now - first)
        elif response.status_code != 200:
            log.error("central server %s refused the snapshot of alert %s: HTTP %d %s; not sent (it stays "
                      "on the box)", self.server, alert_id, response.status_code, response.text[:200])
        if response.status_code == 200:
            self.stats.snapshots += 1
        else:
            self.stats.snapshots_dropped += 1
        self._waiting.pop(path.name, None)
        try:
            self.snapshots.done(path)
        except OSError as exc:  # not tried again by this process (a failing disk must not spin it)
            log.error("spool %s: cannot remove a sent snapshot (%s)", path, exc)
            self._waiting[path.name] = (now, float("inf"), 0.0)
        return True

    def _extras(self, before: float | None = None) -> bool:
        """The snapshots ready to go (with ``before``, those spooled before the batch just acknowledged
        was read), a few at a time, and the sources when due. False when the server could not be
        reached."""
        for path in self._ready_snapshots(before)[:SNAPSHOTS_PER_PASS]:
            if not self._send_snapshot(path):
                return False
        return self._report()

    def _run(self) -> None:
        delay = BACKOFF_MIN_S
        while True:
            read_at = time.time()  # the snapshots' clock (file times)
            events, end = self.spool.pending(self.max_events)
            if events:
                ok = self._send(events)
                if ok:
                    self.spool.ack(end)
                    delay = BACKOFF_MIN_S
                    # a busy table's spool is never empty: what came before this batch goes between
                    # batches, its devices' state too
                    self._extras(before=read_at)
                    continue
            elif end != self.spool.offset:
                self.spool.ack(end)  # only unreadable lines were left
                continue
            else:
                ok = self._extras()
                if ok:
                    delay = BACKOFF_MIN_S
                    if self._ready_snapshots():
                        continue
                    if self._stop.is_set() or self._flush.is_set():
                        return
                    with self._wake:
                        self._wake.wait(timeout=1.0)
                    continue
            self.stats.failures += 1
            if self._stop.is_set():
                return
            self._backoff(delay)
            delay = min(BACKOFF_MAX_S, delay * 2)

    def _backoff(self, delay: float) -> None:
        """Wait ``delay`` before the next attempt; new batches do not cut it short, closing does (the
        drain tries again within a second, not after a backoff grown while the server was away)."""
        end = time.monotonic() + delay
        with self._wake:
            while not self._stop.is_set():
                now = time.monotonic()
                if self._flush.is_set():
                    end = min(end, now + 1.0)
                if now >= end:
                    return
                self._wake.wait(end - now)

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
        if self._sources is not None and self.table_id is not None and self.stats.reports:
            # the table stopped: the server shows its devices no more (rather than as silent)
            self._sources = lambda: []
            with contextlib.suppress(Exception):
                self._report(force=True)
        if self._own_client:
            with contextlib.suppress(Exception):
                self._client.close()
        left = self.spool.backlog_bytes()
        if left:
            log.warning("central server %s: %d bytes of events still spooled in %s; they go when "
                        "the table runs again", self.url, left, self.spool.folder)
        waiting = len(self.snapshots.pending())
        if waiting:
            log.warning("central server %s: %d snapshots still spooled in %s; they go when the table runs "
                        "again", self.server, waiting, self.snapshots.folder)


class ForwarderCollector(Collector):
    """The forwarder in the table's own ``/metrics``: the spool's backlog and whether the server is
    reached, with the events sent, already there, and the failed attempts."""

    def __init__(self, forwarder: Forwarder) -> None:
        self.forwarder = forwarder

    def collect(self) -> Iterator[Metric]:
        f, labels = self.forwarder, ["server"]
        server = f.server
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
        snapshots = CounterMetricFamily("table_monitor_forward_snapshots", "Alert snapshots, by outcome",
                                        labels=["server", "outcome"])
        snapshots.add_metric([server, "sent"], f.stats.snapshots)
        snapshots.add_metric([server, "dropped"], f.stats.snapshots_dropped)
        waiting = GaugeMetricFamily("table_monitor_forward_snapshot_backlog",
                                    "Alert snapshots spooled and not yet taken by the server", labels=labels)
        waiting.add_metric([server], len(f.snapshots.pending()))
        yield from (backlog, connected, events, failures, snapshots, waiting)


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


def source_rows(collector: Any) -> list[dict[str, Any]]:
    """A run's own sources (a ``SourceCollector``'s) as the server's ``PUT .../sources`` takes them."""
    rows = []
    for r in collector.own():
        row = {"source": r.source, "kind": r.kind, "state": r.state.value, "up": r.up, "fps": r.fps,
               "captured": r.captured, "dropped": r.dropped, "reconnects": r.reconnects,
               "bad_lines": r.bad_lines, "missing_readings": r.missing_readings, "silent_s": r.silent_s}
        rows.append({k: v for k, v in row.items() if v is not None})
    return rows


def wait_drained(forwarder: Forwarder, timeout_s: float) -> bool:
    """Until the spool is empty (True) or ``timeout_s`` passed (False)."""
    deadline = time.monotonic() + timeout_s
    while forwarder.spool.backlog_bytes():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
