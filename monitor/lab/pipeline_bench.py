"""Benchmark of the live chain (``table-monitor bench-pipeline``).

Two measurements on a rendered 1080p recording of scripted faults:

- throughput: the recording as fast as the chain takes it (decode, perception, table state,
  events, store), frames per second sustained over the whole file;
- latency: the recording played as a live camera; for each alert pushed on the WebSocket, the
  time from the capture of the frame where the fault first shows (the true events' alert trigger)
  to the push arriving at a WebSocket client.
"""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from monitor.perception.backends import DEFAULT_BACKEND

BENCH_SCRIPTS = ("paigow_two_exposed", "paigow_exposed_ace", "paigow_joker_exposed")
TOKEN = "bench-viewer-token-0123456789"


@dataclass
class BenchResult:
    perception: str
    frames: int
    seconds: float
    latencies_s: list[float] = field(default_factory=list)
    missed: int = 0
    by_alert: list[tuple[str, float]] = field(default_factory=list)  # (alert code, latency s) in push order

    def add(self, other: BenchResult) -> None:
        """Pool another recording's run into this one (frames, time, alerts)."""
        self.frames += other.frames
        self.seconds += other.seconds
        self.latencies_s += other.latencies_s
        self.missed += other.missed
        self.by_alert += other.by_alert

    @property
    def fps(self) -> float:
        return self.frames / max(self.seconds, 1e-9)

    def p(self, q: float) -> float | None:
        if not self.latencies_s:
            return None
        xs = sorted(self.latencies_s)
        return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]

    def line(self) -> str:
        lat = ""
        if self.latencies_s:
            median = statistics.median(self.latencies_s) * 1000
            p95 = (self.p(0.95) or 0.0) * 1000
            worst = max(self.latencies_s) * 1000
            lat = (f"; latency frame -> WebSocket alert: median {median:.0f} ms, p95 {p95:.0f} ms, max "
                   f"{worst:.0f} ms over {len(self.latencies_s)} alerts ("
                   + ", ".join(f"{code} {s * 1000:.0f} ms" for code, s in self.by_alert) + ")")
        return f"{self.perception}: {self.fps:.1f} frames/s over {self.frames} frames{lat}"


def ensure_recording(folder: Path, resolution: str = "1080p") -> Path:
    if (folder / "video.mp4").exists() and (folder / "truth.jsonl").exists():
        return folder
    from rich.progress import Progress

    from monitor.render.rounds.play import play_many
    from monitor.render.rounds.script import load_script, shipped_scripts
    from monitor.render.rounds.video import RenderOptions, total_frames, write_recording

    shipped = shipped_scripts()
    rounds = play_many([(load_script(shipped[n]), f"{n}.yaml") for n in BENCH_SCRIPTS], gap=1.5)
    opts = RenderOptions(resolution=resolution, fps=30)
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    with Progress() as bar:
        task = bar.add_task(f"rendering the {resolution} bench recording", total=total_frames(rounds, 30))
        write_recording(rounds, partial, opts, progress=lambda n: bar.advance(task, n))
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
    return folder


def first_showing(captured: list[tuple[float, datetime]], shown: float) -> datetime | None:
    """The capture time of the first frame at or after ``shown`` (media seconds): where a fault first
    shows. A frame before the truth's time cannot show it; the nearest one may (half a frame early)."""
    later = [c for c in captured if c[0] >= shown - 1e-6]
    return min(later, key=lambda c: c[0])[1] if later else None


def _options(recording: Path, data: Path, perception: str, realtime: bool,
             models: Path | None = None, backend: str = DEFAULT_BACKEND) -> Any:
    from monitor.perception.models_home import models_home
    from monitor.pipeline.session import SessionOptions

    table = Path(__file__).resolve().parents[1] / "calibration" / "default-table.yaml"  # package data
    return SessionOptions(
        table=table, camera=str(recording / "video.mp4"), db_url=f"sqlite:///{data / 'store.db'}",
        snapshot_dir=data / "snapshots", tokens=f"bench:viewer:{TOKEN}", port=0,
        simulate_dice=recording / "events.jsonl", console_log=recording / "events.jsonl",
        perception="models" if perception == "models-whole" else perception,  # type: ignore[arg-type]
        whole_frames=perception == "models-whole",
        truth=recording / "truth.jsonl" if perception == "oracle" else None, realtime=realtime,
        models=models or models_home(), backend=backend,
    )


def throughput(recording: Path, perception: str, models: Path | None = None,
               backend: str = DEFAULT_BACKEND) -> BenchResult:
    from monitor.pipeline.session import open_session

    with tempfile.TemporaryDirectory(prefix="bench-pipeline-") as tmp:
        opts = _options(recording, Path(tmp), perception, realtime=False, models=models, backend=backend)
        session = open_session(opts)
        start = time.perf_counter()
        try:
            session.wait()
        finally:
            seconds = time.perf_counter() - start
            session.close()
        return BenchResult(session.perception_label, session.run.stats.frames_perceived, seconds)


def latency(recording: Path, perception: str, models: Path | None = None,
            backend: str = DEFAULT_BACKEND) -> BenchResult:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    from monitor.pipeline.session import open_session

    true_alerts = [json.loads(line) for line in (recording / "alerts.jsonl").read_text().splitlines() if line]
    first_shown = {a["id"]: a["media"]["trigger"] for a in true_alerts if a.get("media")}
    by_code: dict[str, list[float]] = {}
    for a in true_alerts:
        if a.get("media"):
            by_code.setdefault(a["code"], []).append(a["media"]["trigger"])
    received: list[tuple[dict[str, Any], datetime]] = []
    with tempfile.TemporaryDirectory(prefix="bench-pipeline-") as tmp:
        opts = _options(recording, Path(tmp), perception, realtime=True, models=models, backend=backend)
        session = open_session(opts)
        stop = threading.Event()

        def listen() -> None:
            with connect(session.server.url.replace("http://", "ws://") + "/api/v1/live/ws") as ws:
                ws.send(json.dumps({"type": "auth", "token": TOKEN}))
                while not stop.is_set():
                    try:
                        msg = json.loads(ws.recv(timeout=0.2))
                    except TimeoutError:
                        continue
                    except ConnectionClosed:
                        return
                    if msg.get("type") == "alert":
                        received.append((msg["data"], datetime.now(UTC)))

        t = threading.Thread(target=listen, daemon=True)
        t.start()
        start = time.perf_counter()
        try:
            session.wait()
            time.sleep(1.0)
        finally:
            seconds = time.perf_counter() - start
            stop.set()
            session.close()
            t.join(5)
        captured = list(session.run.captured)
        result = BenchResult(session.perception_label, session.run.stats.frames_perceived, seconds)
    for data, at in received:
        times = by_code.get(data["code"])
        shown = first_shown.get(data["id"]) or (times.pop(0) if times else None)
        if shown is None or not captured:
            continue
        wall = first_showing(captured, shown)
        if wall is None:
            continue
        result.latencies_s.append((at - wall).total_seconds())
        result.by_alert.append((str(data["code"]), (at - wall).total_seconds()))
    result.missed = max(0, len(first_shown) - len(result.latencies_s))
    return result
