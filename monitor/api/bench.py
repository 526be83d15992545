"""The load and durability runs behind ``table-monitor bench-api`` (see that command)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from rich.progress import Progress

SENSOR = "bench-sensor-" + "s" * 24
VIEWER = "bench-viewer-" + "v" * 24
ROUND_EVENTS = 10  # events per generated round, one of them a fault
MAX_IN_FLIGHT = 4


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ChildServer:
    """``table-monitor serve`` in its own process (so it can be killed for real)."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.port = _free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        env = {**os.environ, "TABLE_MONITOR_TOKENS": f"sensor:sensor:{SENSOR},viewer:viewer:{VIEWER}",
               "TABLE_MONITOR_LIVE_QUEUE_SIZE": "100000"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "monitor.cli", "--log-level", "warning", "serve", "--db",
             f"sqlite:///{self.db}", "--port", str(self.port)], env=env, stdout=subprocess.DEVNULL)
        async with httpx.AsyncClient() as client:
            for _ in range(600):
                with contextlib.suppress(httpx.HTTPError):
                    if (await client.get(f"{self.url}/health")).status_code == 200:
                        return
                if self.proc.poll() is not None:
                    raise RuntimeError("the server process exited during start-up")
                await asyncio.sleep(0.1)
        raise RuntimeError("the server did not answer /health within 60 s")

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the server process has used so far (Linux /proc), else NaN."""
        if self.proc is None:
            return float("nan")
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return float("nan")
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


def _event(table: str, seq: int, kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "table_id": table, "seq": seq, "media_time": seq * 0.5,
            "wall_time": datetime.now(UTC).isoformat(), "source": "vision", **fields}


def round_events(table: str, start: int, round_id: str) -> list[dict[str, Any]]:
    """Ten events: a round whose only fault is a stub of five cards (seed 000 rule 55)."""
    s = start
    return [
        _event(table, s, "round_started", round_id=round_id, banker_seat=1),
        *(_event(table, s + i, "bet_placed", seat=i + 1, amount=2500) for i in range(1, 6)),
        _event(table, s + 6, "bets_closed"),
        _event(table, s + 7, "shuffle_done"),
        _event(table, s + 8, "stub_counted", n=5),
        _event(table, s + 9, "round_ended"),
    ]


def pct(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class LoadResult:
    clients: int
    rate: int
    duration: float
    events_sent: int = 0
    alerts_acked: int = 0
    deliveries: int = 0
    per_client_min: int = 0
    per_client_max: int = 0
    push_latency: list[float] = field(default_factory=list)
    post_latency: list[float] = field(default_factory=list)
    elapsed: float = 0.0
    dropped_clients: int = 0
    drop_codes: list[int] = field(default_factory=list)  # WebSocket close codes of dropped clients
    failed_posts: int = 0
    batch_sizes: list[int] = field(default_factory=list)
    batch: bool = True
    server_cpu: float = 0.0  # CPU seconds the server used from the first event to the last delivery
    bench_cpu: float = 0.0  # the same for this process (the clients and the sensor)
    wall: float = 0.0  # seconds from the first event to the last delivery

    @property
    def complete(self) -> bool:
        everyone = self.per_client_min == self.alerts_acked and self.dropped_clients == 0
        return everyone and self.alerts_acked > 0

    def report(self) -> str:
        def ms(v: float) -> str:
            return f"{v * 1000:.1f} ms"

        return "\n".join([
            f"load: {self.clients} WebSocket clients ({'batched' if self.batch else 'one message each'}), "
            f"{self.events_sent} events in {self.elapsed:.1f} s "
            f"({self.events_sent / max(self.elapsed, 1e-9):.0f} events/s; "
            f"target {self.rate}/s for {self.duration:g} s)",
            f"  alerts acknowledged to the sensor: {self.alerts_acked}; deliveries: {self.deliveries} "
            f"(expected {self.alerts_acked * self.clients}); per client min {self.per_client_min}, "
            f"max {self.per_client_max}; clients dropped: {self.dropped_clients}"
            + (f" (close codes {sorted(set(self.drop_codes))})" if self.drop_codes else ""),
            f"  every alert to every client: {'YES' if self.complete else 'NO'}",
            f"  event-to-client latency p50 {ms(pct(self.push_latency, 0.5))}, "
            f"p95 {ms(pct(self.push_latency, 0.95))}, p99 {ms(pct(self.push_latency, 0.99))}, "
            f"max {ms(max(self.push_latency, default=float('nan')))}",
            f"  CPU from first event to last delivery ({self.wall:.1f} s): server {self.server_cpu:.1f} s "
            f"({self.events_sent / max(self.server_cpu, 1e-9):.0f} events per server CPU-second), "
            f"bench clients and sensor {self.bench_cpu:.1f} s",
            f"  ingest POST round trip (commit included) p50 {ms(pct(self.post_latency, 0.5))}, "
            f"p95 {ms(pct(self.post_latency, 0.95))}; events per POST p50 {pct(self.batch_sizes, 0.5):g}, "
            f"max {max(self.batch_sizes, default=0)}; failed POSTs: {self.failed_posts}",
        ])


# An alert as the server encodes it (AlertSummary's field order): its id and round, found without
# parsing the whole message. 200 clients share this process's core, and a batch also carries the
# tables' states: parsing all of it here would measure the bench, not the server.
_ALERT = re.compile(r'\{"type":"alert","data":\{"id":"([^"]+)","table_id":"[^"]*","game":(?:null|"[^"]*"),'
                    r'"round_id":(?:null|"([^"]*)")')


def alerts_in(raw: str) -> list[tuple[str, str]]:
    """(alert id, round id) of every alert in one live message, a lone one or a batch."""
    return _ALERT.findall(raw)


async def _client(url: str, got: dict[str, tuple[str, float]], ready: asyncio.Event, stop: asyncio.Event,
                  dropped: list[int], batch: bool) -> None:
    import websockets

    query = "?batch=true" if batch else ""
    # A deep receive queue: with a shallow one a busy client stops reading its socket, misses the
    # server's keepalive pings and is disconnected for it.
    async with websockets.connect(url.replace("http", "ws") + "/api/v1/live/ws" + query, max_size=1 << 24,
                                  max_queue=100_000, ping_interval=None, compression=None) as ws:
        await ws.send(json.dumps({"type": "auth", "token": VIEWER}))
        hello = json.loads(await ws.recv())
        if hello.get("type") != "hello":
            raise RuntimeError(f"live socket refused: {hello}")
        ready.set()
        # Runs until cancelled once the load is over (no timer per message).
        try:
            async for raw in ws:
                now = time.monotonic()
                for alert_id, round_id in alerts_in(str(raw)):
                    got.setdefault(alert_id, (round_id, now))
        except websockets.ConnectionClosed:
            pass
        if not stop.is_set():
            dropped.append(ws.close_code or 0)


async def load_test(db: Path, *, clients: int, rate: int, duration: float, tables: int,
                    batched: bool = True) -> LoadResult:
    server = ChildServer(db)
    await server.start()
    result = LoadResult(clients=clients, rate=rate, duration=duration, batch=batched)
    stop = asyncio.Event()
    received: list[dict[str, tuple[str, float]]] = [{} for _ in range(clients)]  # alert id -> (round, t)
    dropped: list[int] = []
    try:
        readies = [asyncio.Event() for _ in range(clients)]
        tasks = [asyncio.create_task(_client(server.url, received[i], readies[i], stop, dropped, batched))
                 for i in range(clients)]
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), timeout=120)
        sent_at: dict[str, float] = {}  # round key -> when the POST carrying its fault started
        acked: set[str] = set()
        seqs = dict.fromkeys((f"B{t:02d}" for t in range(tables)), 0)
        rounds = 0
        pending: list[dict[str, Any]] = []
        tick = 0.05
        per_tick = rate * tick
        budget = 0.0
        posts: set[asyncio.Task[None]] = set()
        async with httpx.AsyncClient(base_url=server.url, timeout=60,
                                     headers={"Authorization": f"Bearer {SENSOR}"}) as http:

            async def post(batch: list[dict[str, Any]], keys: list[str]) -> None:
                started = time.monotonic()
                for key in keys:
                    sent_at[key] = started
                try:
                    response = await http.post("/api/v1/events/batch", json=batch)
                    response.raise_for_status()
                except httpx.HTTPError:
                    result.failed_posts += 1
                    return
                result.post_latency.append(time.monotonic() - started)
                result.batch_sizes.append(len(batch))
                acked.update(response.json()["alerts"])

            begin = time.monotonic()
            cpu_server, cpu_bench = server.cpu_seconds(), time.process_time()
            pending_key = ""
            ticks = 0
            with Progress() as progress:
                bar = progress.add_task("posting events", total=duration)
                while (now := time.monotonic()) - begin < duration:
                    budget += per_tick
                    batch: list[dict[str, Any]] = []
                    keys: list[str] = []
                    # Like a real sensor: at most MAX_IN_FLIGHT requests outstanding; when the server
                    # is slower than the offered rate, events wait and go out in bigger batches.
                    while budget >= 1 and len(posts) < MAX_IN_FLIGHT and len(batch) < 5000:
                        if not pending:
                            table = f"B{rounds % tables:02d}"
                            pending = round_events(table, seqs[table], f"r{rounds}")
                            pending_key = f"{table}/r{rounds}"
                            seqs[table] += ROUND_EVENTS
                            rounds += 1
                        ev = pending.pop(0)
                        batch.append(ev)
                        if ev["type"] == "stub_counted":
                            keys.append(pending_key)
                        budget -= 1
                    if batch:
                        task = asyncio.create_task(post(batch, keys))
                        posts.add(task)
                        task.add_done_callback(posts.discard)
                        result.events_sent += len(batch)
                    progress.update(bar, completed=min(duration, now - begin))
                    ticks += 1
                    await asyncio.sleep(max(0.0, begin + ticks * tick - time.monotonic()))
                if posts:
                    await asyncio.gather(*posts)
            result.elapsed = time.monotonic() - begin
        # Let the last pushes arrive.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and min(len(acked & r.keys()) for r in received) < len(acked):
            await asyncio.sleep(0.2)
        result.server_cpu = server.cpu_seconds() - cpu_server
        result.bench_cpu = time.process_time() - cpu_bench
        result.wall = time.monotonic() - begin
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        result.alerts_acked = len(acked)
        counts = [len(acked & r.keys()) for r in received]
        result.deliveries = sum(counts)
        result.per_client_min, result.per_client_max = min(counts), max(counts)
        result.dropped_clients = len(dropped)
        result.drop_codes = dropped
        for r in received:
            result.push_latency.extend(t - sent_at[key] for key, t in r.values() if key in sent_at)
    finally:
        stop.set()
        server.stop()
    return result


@dataclass
class DurabilityResult:
    acked: int = 0
    found: int = 0
    missing: list[str] = field(default_factory=list)
    events_acked: int = 0
    events_found: int = 0
    chain_ok: bool = False
    chain_entries: int = 0
    killed_after: float = 0.0

    @property
    def ok(self) -> bool:
        complete = not self.missing and self.events_found >= self.events_acked
        return self.acked > 0 and complete and self.chain_ok

    def report(self) -> str:
        return "\n".join([
            f"durability: server killed with SIGKILL after {self.killed_after:.1f} s of writes",
            f"  alerts acknowledged to the sender: {self.acked}; found after restart: {self.found}; "
            f"missing: {len(self.missing)}",
            f"  events acknowledged: {self.events_acked}; stored: {self.events_found} "
            "(stored may exceed acknowledged: committed, answer lost in the kill)",
            f"  audit chain after the kill: {'intact' if self.chain_ok else 'BROKEN'} "
            f"({self.chain_entries} entries)",
            f"  no acknowledged alert lost: {'YES' if self.ok else 'NO'}",
        ])


async def durability_check(db: Path, *, seconds: float) -> DurabilityResult:
    from sqlalchemy import func, select

    from monitor.store import audit
    from monitor.store.db import make_engine, make_sessionmaker
    from monitor.store.models import AlertRow, EventRow

    server = ChildServer(db)
    await server.start()
    result = DurabilityResult()
    acked: set[str] = set()
    stop = asyncio.Event()

    async def writer(table: str) -> None:
        seq = 0
        n = 0
        async with httpx.AsyncClient(base_url=server.url, timeout=10,
                                     headers={"Authorization": f"Bearer {SENSOR}"}) as http:
            while not stop.is_set():
                batch = round_events(table, seq, f"k{n}")
                try:
                    response = await http.post("/api/v1/events/batch", json=batch)
                except httpx.HTTPError:
                    return  # the server is gone: this request was never acknowledged
                if response.status_code == 200:
                    acked.update(response.json()["alerts"])
                    result.events_acked += len(batch)
                seq += ROUND_EVENTS
                n += 1

    begin = time.monotonic()
    writers = [asyncio.create_task(writer(f"D{i}")) for i in range(8)]
    await asyncio.sleep(seconds)
    server.kill()  # mid-writes: requests are in flight
    result.killed_after = time.monotonic() - begin
    stop.set()
    await asyncio.gather(*writers, return_exceptions=True)
    engine = make_engine(f"sqlite:///{db}")
    try:
        with make_sessionmaker(engine, read_only=True)() as session:
            stmt = select(AlertRow.id).where(AlertRow.id.in_(acked))
            stored = set(session.execute(stmt).scalars()) if acked else set()
            count = select(func.count()).select_from(EventRow)
            result.events_found = int(session.execute(count).scalar_one())
            report = audit.verify_chain(session)
    finally:
        engine.dispose()
    result.acked = len(acked)
    result.found = len(stored)
    result.missing = sorted(acked - stored)
    result.chain_ok = report.ok
    result.chain_entries = report.checked
    return result
