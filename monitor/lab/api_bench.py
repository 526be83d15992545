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


def _cpu_seconds(proc: subprocess.Popen[Any] | None) -> float:
    """CPU time (user + system) a child process has used so far (Linux /proc), else NaN."""
    if proc is None:
        return float("nan")
    try:
        fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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
        return _cpu_seconds(self.proc)

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
    """Ten events: a round whose only fault is a stub of five cards (Livermore rule 55)."""
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


# What each path of ``--path`` measures: where the events come from on their way to the clients.
PATHS = {
    "sensor": "a sensor posting batches straight to serve",
    "central": "each table's forwarder, as run --server has (spool fsynced, then POSTed to serve)",
    "embedded": "each table's events handed to the API served in the same process, as run serves its page",
}


@dataclass
class LoadResult:
    clients: int
    rate: int
    duration: float
    path: str = "sensor"
    tables: int = 10
    events_sent: int = 0
    events_stored: int | None = None  # central, embedded: events the store holds at the end
    alerts_acked: int = 0  # sensor: acknowledged to it; central, embedded: stored
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
    feeder_cpu: float = 0.0  # central: the tables' forwarders' process, from its start
    drain_s: float = 0.0  # central, embedded: from the last event handed on to the last one stored
    wall: float = 0.0  # seconds from the first event to the last delivery
    errors: list[str] = field(default_factory=list)

    @property
    def nothing_lost(self) -> bool:
        return self.events_stored is None or self.events_stored == self.events_sent

    @property
    def complete(self) -> bool:
        everyone = self.per_client_min == self.alerts_acked and self.dropped_clients == 0
        return everyone and self.alerts_acked > 0 and self.nothing_lost and not self.errors

    def server_cpu_per_1000(self) -> float:
        return 1000 * self.server_cpu / max(self.events_sent, 1)

    def report(self) -> str:
        def ms(v: float) -> str:
            return f"{v * 1000:.1f} ms"

        sensor = self.path == "sensor"
        lines = [
            f"load ({self.path}: {PATHS[self.path]}): {self.clients} WebSocket clients "
            f"({'batched' if self.batch else 'one message each'}), "
            f"{self.events_sent} events in {self.elapsed:.1f} s "
            f"({self.events_sent / max(self.elapsed, 1e-9):.0f} events/s; "
            f"target {self.rate}/s for {self.duration:g} s over {self.tables} tables)",
            f"  alerts {'acknowledged to the sensor' if sensor else 'stored'}: {self.alerts_acked}; "
            f"deliveries: {self.deliveries} "
            f"(expected {self.alerts_acked * self.clients}); per client min {self.per_client_min}, "
            f"max {self.per_client_max}; clients dropped: {self.dropped_clients}"
            + (f" (close codes {sorted(set(self.drop_codes))})" if self.drop_codes else ""),
        ]
        if not sensor:
            lines.append(f"  events stored: {self.events_stored} of {self.events_sent} handed on, the last "
                         f"{self.drain_s:.1f} s after the last was handed on; nothing lost: "
                         f"{'YES' if self.nothing_lost else 'NO'}")
        lines += [
            f"  every alert to every client: {'YES' if self.complete else 'NO'}",
            f"  event-to-client latency p50 {ms(pct(self.push_latency, 0.5))}, "
            f"p95 {ms(pct(self.push_latency, 0.95))}, p99 {ms(pct(self.push_latency, 0.99))}, "
            f"max {ms(max(self.push_latency, default=float('nan')))}"
            + ("" if sensor else " (from the batch's hand-over by its table)"),
            f"  CPU from first event to last delivery ({self.wall:.1f} s): "
            f"{'server and tables' if self.path == 'embedded' else 'server'} {self.server_cpu:.1f} s "
            f"({self.events_sent / max(self.server_cpu, 1e-9):.0f} events per CPU-second), "
            + (f"tables' forwarders {self.feeder_cpu:.1f} s, " if self.path == "central" else "")
            + f"bench clients{' and sensor' if sensor else ''} {self.bench_cpu:.1f} s",
        ]
        if sensor:
            lines.append(
                f"  ingest POST round trip (commit included) p50 {ms(pct(self.post_latency, 0.5))}, "
                f"p95 {ms(pct(self.post_latency, 0.95))}; "
                f"events per POST p50 {pct(self.batch_sizes, 0.5):g}, "
                f"max {max(self.batch_sizes, default=0)}; failed POSTs: {self.failed_posts}")
        elif self.path == "central":
            lines.append(f"  forwarders' failed attempts: {self.failed_posts}")
        lines += [f"  ERROR: {e}" for e in self.errors]
        return "\n".join(lines)


def compare(base: LoadResult, other: LoadResult) -> str:
    """``other`` against ``base`` (the same clients, rate and tables, in the same command)."""
    def ratio(a: float, b: float) -> str:
        return f"{a / b:.2f}x" if b > 0 else "-"

    q = [(name, pct(other.push_latency, v), pct(base.push_latency, v)) for name, v in
         (("p50", 0.5), ("p95", 0.95), ("p99", 0.99))]
    return (f"{other.path} against {base.path}: event-to-client latency "
            + ", ".join(f"{name} {ratio(a, b)}" for name, a, b in q)
            + "; server CPU per 1,000 events "
            + ratio(other.server_cpu_per_1000(), base.server_cpu_per_1000())
            + f" ({other.server_cpu_per_1000():.2f} s against {base.server_cpu_per_1000():.2f} s)")


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
                    batched: bool = True, path: str = "sensor") -> LoadResult:
    """``clients`` live clients while ``rate`` events a second arrive by ``path`` (``PATHS``)."""
    if path == "sensor":
        return await _sensor_load(db, clients=clients, rate=rate, duration=duration, tables=tables,
                                  batched=batched)
    if path not in PATHS:
        raise ValueError(f"unknown path {path!r}: one of {', '.join(PATHS)}")
    return await _tables_load(db, clients=clients, rate=rate, duration=duration, tables=tables,
                              batched=batched, path=path)


class Feeder:
    """The tables of the central or embedded path in a child process (``monitor.lab.api_bench_feed``)."""

    def __init__(self, path: str, *, rate: float, tables: int, duration: float, prefix: str = "B",
                 server: str | None = None, spool: Path | None = None, db: Path | None = None) -> None:
        args = [sys.executable, "-m", "monitor.lab.api_bench_feed", path, "--rate", str(rate), "--tables",
                str(tables), "--duration", str(duration), "--prefix", prefix]
        if server is not None and spool is not None:
            args += ["--server", server, "--spool", str(spool)]
        if db is not None:
            args += ["--db", str(db)]
        env = {k: v for k, v in os.environ.items() if not k.startswith("TABLE_MONITOR_")}
        self.proc: subprocess.Popen[str] = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)

    async def _line(self, timeout: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(self.proc.stdout.readline), timeout)
        if not line:
            raise RuntimeError(f"the tables' process exited ({self.proc.wait()}) before answering")
        data: dict[str, Any] = json.loads(line)
        return data

    async def ready(self, timeout: float = 120.0) -> str:
        return str((await self._line(timeout))["ready"])

    def tell(self, word: str) -> None:
        assert self.proc.stdin is not None
        with contextlib.suppress(OSError):
            self.proc.stdin.write(word + "\n")
            self.proc.stdin.flush()

    async def figures(self, timeout: float) -> dict[str, Any]:
        return await self._line(timeout)

    def cpu_seconds(self) -> float:
        return _cpu_seconds(self.proc)

    def stop(self) -> None:
        self.tell("stop")
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _stored(db: Path) -> tuple[int, set[str]]:
    """Events and alert ids in a SQLite store (read-only)."""
    from sqlalchemy import func, select

    from monitor.store.db import make_engine, make_sessionmaker
    from monitor.store.models import AlertRow, EventRow

    engine = make_engine(f"sqlite:///{db}")
    try:
        with make_sessionmaker(engine, read_only=True)() as session:
            events = int(session.execute(select(func.count()).select_from(EventRow)).scalar_one())
            alerts = set(session.execute(select(AlertRow.id)).scalars())
    finally:
        engine.dispose()
    return events, alerts


async def _tables_load(db: Path, *, clients: int, rate: int, duration: float, tables: int, batched: bool,
                       path: str) -> LoadResult:
    result = LoadResult(clients=clients, rate=rate, duration=duration, batch=batched, path=path,
                        tables=tables)
    server = ChildServer(db) if path == "central" else None
    feeder: Feeder | None = None
    stop = asyncio.Event()
    received: list[dict[str, tuple[str, float]]] = [{} for _ in range(clients)]
    dropped: list[int] = []
    tasks: list[asyncio.Task[None]] = []
    try:
        if server is not None:
            await server.start()
            feeder = Feeder(path, rate=rate, tables=tables, duration=duration, server=server.url,
                            spool=db.with_name(db.stem + "-spools"))
        else:
            feeder = Feeder(path, rate=rate, tables=tables, duration=duration, db=db)
        url = await feeder.ready()
        readies = [asyncio.Event() for _ in range(clients)]
        tasks = [asyncio.create_task(_client(url, received[i], readies[i], stop, dropped, batched))
                 for i in range(clients)]
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), timeout=120)
        serving = server if server is not None else feeder
        begin = time.monotonic()
        cpu_server, cpu_bench = serving.cpu_seconds(), time.process_time()
        feeder.tell("go")
        with Progress() as progress:
            bar = progress.add_task(f"tables handing on events ({path})", total=duration)
            figures_task = asyncio.create_task(feeder.figures(timeout=duration + 600))
            while not figures_task.done():
                progress.update(bar, completed=min(duration, time.monotonic() - begin))
                await asyncio.sleep(0.25)
            figures = figures_task.result()
        result.elapsed = min(duration, time.monotonic() - begin)
        result.events_sent = int(figures["events"])
        result.drain_s = float(figures["drain_s"])
        result.failed_posts = int(figures["failures"])
        result.feeder_cpu = float(figures["cpu"]) if path == "central" else 0.0
        result.errors = list(figures["errors"])
        if not figures["drained"]:
            result.errors.append("the tables had events left when their drain time ran out")
        stored_events, alerts = _stored(db)
        result.events_stored = stored_events
        # Let the last pushes arrive.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and min(len(alerts & r.keys()) for r in received) < len(alerts):
            await asyncio.sleep(0.2)
        result.server_cpu = serving.cpu_seconds() - cpu_server
        result.bench_cpu = time.process_time() - cpu_bench
        result.wall = time.monotonic() - begin
        sent_at: dict[str, float] = figures["sent_at"]
        result.alerts_acked = len(alerts)
        counts = [len(alerts & r.keys()) for r in received]
        result.deliveries = sum(counts)
        result.per_client_min, result.per_client_max = min(counts), max(counts)
        result.dropped_clients = len(dropped)
        result.drop_codes = dropped
        for r in received:
            result.push_latency.extend(t - sent_at[key] for key, t in r.values() if key in sent_at)
    finally:
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if feeder is not None:
            feeder.stop()
        if server is not None:
            server.stop()
    return result


async def _sensor_load(db: Path, *, clients: int, rate: int, duration: float, tables: int,
                       batched: bool = True) -> LoadResult:
    server = ChildServer(db)
    await server.start()
    result = LoadResult(clients=clients, rate=rate, duration=duration, batch=batched, tables=tables)
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


@dataclass
class CentralDurabilityResult:
    tables: int = 0
    handed_on: int = 0  # events the tables handed to their forwarders
    stored: int = 0  # events in the store after the restart and the drain
    rounds: int = 0  # rounds whose fault was handed on
    faults_found: int = 0  # of them, those whose alert is in the store
    missing: list[str] = field(default_factory=list)
    duplicates_resent: int = 0  # events the restarted server already had (answers lost in the kill)
    chain_ok: bool = False
    chain_entries: int = 0
    killed_after: float = 0.0
    away_s: float = 0.0
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (self.rounds > 0 and self.stored == self.handed_on and not self.missing and self.chain_ok
                and not self.errors)

    def report(self) -> str:
        return "\n".join([
            f"durability (central): {self.tables} tables' forwarders; the server killed with SIGKILL after "
            f"{self.killed_after:.1f} s, started again {self.away_s:.1f} s later on the same store",
            f"  events handed on by the tables: {self.handed_on}; stored once each: {self.stored} "
            f"({self.duplicates_resent} resent that the server already had)",
            f"  rounds with their fault handed on: {self.rounds}; their alert stored: {self.faults_found}; "
            f"missing: {len(self.missing)}",
            f"  audit chain: {'intact' if self.chain_ok else 'BROKEN'} ({self.chain_entries} entries)",
            *(f"  ERROR: {e}" for e in self.errors),
            f"  nothing lost, nothing twice: {'YES' if self.ok else 'NO'}",
        ])


async def central_durability_check(db: Path, *, seconds: float, rate: int = 1000,
                                   tables: int = 8) -> CentralDurabilityResult:
    """The tables' forwarders feed a child serve that is killed with SIGKILL mid-stream and started
    again; once the tables have drained, every event they handed on is stored once and every round's
    fault has its alert."""
    from sqlalchemy import select

    from monitor.store import audit
    from monitor.store.db import make_engine, make_sessionmaker
    from monitor.store.models import AlertRow

    result = CentralDurabilityResult(tables=tables)
    server = ChildServer(db)
    await server.start()
    feeder = Feeder("central", rate=rate, tables=tables, duration=seconds * 3, prefix="D", server=server.url,
                    spool=db.with_name(db.stem + "-spools"))
    try:
        await feeder.ready()
        feeder.tell("go")
        begin = time.monotonic()
        await asyncio.sleep(seconds)
        server.kill()  # batches in flight: some committed with their answer lost, some not committed
        killed = time.monotonic()
        result.killed_after = killed - begin
        await asyncio.sleep(1.0)  # away a while: the tables spool
        await server.start()
        result.away_s = time.monotonic() - killed
        figures = await feeder.figures(timeout=seconds * 3 + 600)
    finally:
        feeder.stop()
        server.stop()
    result.handed_on = int(figures["events"])
    result.duplicates_resent = int(figures["duplicates"])
    result.errors = list(figures["errors"])
    if not figures["drained"]:
        result.errors.append("the tables had events left when their drain time ran out")
    result.stored, _ = _stored(db)
    faults = set(figures["sent_at"])
    result.rounds = len(faults)
    engine = make_engine(f"sqlite:///{db}")
    try:
        with make_sessionmaker(engine, read_only=True)() as session:
            found = set(session.execute(select(AlertRow.round_id).where(AlertRow.code == "stub_not_four"))
                        .scalars())
            report = audit.verify_chain(session)
    finally:
        engine.dispose()
    result.faults_found = len(faults & found)
    result.missing = sorted(faults - found)
    result.chain_ok = report.ok
    result.chain_entries = report.checked
    return result
