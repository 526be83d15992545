"""Source health for Prometheus and ``/health``: a collector that reads the sources' counters when asked.

The API's metrics own one (``Metrics.sources``, in the registry ``/metrics`` renders); a live run adds
its camera and dice reader to it (``add``). Nothing is copied between scrapes, so the counters are never
stale. ``health()`` gives the same sources as rows for ``/health``: state, frames a second, drops and
reconnects of a camera; bad lines, lost rolls and seconds of silence of the dice reader.

A central ``serve`` has no sources of its own: each ``run --server`` reports its table's rows every few
seconds (``report``), and they are shown beside this process's own, labelled with their table. A
table that has not reported for ``STALE_S`` counts as down (its box or its network is gone).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from monitor.sources.dice_reader import DiceReader
from monitor.sources.state import SourceState
from monitor.sources.video_source import VideoSource

# states in which a source is not delivering and is not done: /health says "degraded"
UNHEALTHY = frozenset({SourceState.RECONNECTING, SourceState.ERROR})
FPS_WINDOW_S = 10.0  # a camera's frame rate: frames captured over about the last 10 s
FPS_MIN_SPAN_S = 0.5  # ... measured once two samples lie at least this far apart
STALE_S = 30.0  # a reported table silent this long counts as down (its run reports every 5 s)


@dataclass(frozen=True, slots=True)
class SourceHealth:
    """One source as ``/health`` shows it (camera fields None for the dice reader and the other way)."""

    source: str
    kind: str  # "camera" or "dice_reader"
    state: SourceState
    up: bool
    fps: float | None = None
    captured: int | None = None
    dropped: int | None = None
    reconnects: int = 0
    bad_lines: int | None = None
    missing_readings: int | None = None
    silent_s: float | None = None
    table: str | None = None  # the table it watches, where known
    age_s: float | None = None  # reported by a table's run this long ago (None: this process's own)

    @property
    def stale(self) -> bool:
        return self.age_s is not None and self.age_s > STALE_S

    @property
    def healthy(self) -> bool:
        return self.state not in UNHEALTHY and not self.stale


class _Rate:
    """Frames a second from (time, captured) samples taken whenever the source is read."""

    def __init__(self) -> None:
        self._samples: deque[tuple[float, int]] = deque()

    def sample(self, now: float, captured: int) -> float | None:
        self._samples.append((now, captured))
        while len(self._samples) > 2 and now - self._samples[1][0] >= FPS_WINDOW_S:
            self._samples.popleft()
        t0, c0 = self._samples[0]
        return (captured - c0) / (now - t0) if now - t0 >= FPS_MIN_SPAN_S else None


class SourceCollector(Collector):
    def __init__(self, sources: list[VideoSource | DiceReader] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._sources: list[VideoSource | DiceReader] = list(sources or [])
        self._tables: dict[int, str] = {}  # id(source) -> the table it watches
        self._rates: dict[int, _Rate] = {}
        self._reports: dict[str, tuple[float, list[SourceHealth]]] = {}  # table -> (when, its rows)
        self._clock = clock
        self._lock = threading.Lock()

    def add(self, source: VideoSource | DiceReader, table: str | None = None) -> None:
        with self._lock:
            self._sources.append(source)
            if table is not None:
                self._tables[id(source)] = table

    def remove(self, source: VideoSource | DiceReader) -> None:
        with self._lock:
            self._sources = [s for s in self._sources if s is not source]
            self._rates.pop(id(source), None)
            self._tables.pop(id(source), None)

    def report(self, table: str, rows: list[SourceHealth]) -> None:
        """A table's run reported its sources (replacing what it reported before); an empty list (the
        run stopped) removes the table."""
        with self._lock:
            if rows:
                self._reports[table] = (self._clock(), [dataclasses.replace(r, table=table, age_s=None)
                                                         for r in rows])
            else:
                self._reports.pop(table, None)

    def reported(self) -> list[SourceHealth]:
        """The rows tables reported, each with how long ago its table reported."""
        now = self._clock()
        with self._lock:
            reports = list(self._reports.values())
        return [dataclasses.replace(r, age_s=round(max(0.0, now - at), 2))
                for at, rows in reports for r in rows]

    def report_ages(self) -> dict[str, float]:
        now = self._clock()
        with self._lock:
            return {table: max(0.0, now - at) for table, (at, _) in self._reports.items()}

    def health(self) -> list[SourceHealth]:
        """Every source's state and counters now, cameras' frame rates over the last seconds: this
        process's own, then those tables reported."""
        return [*self.own(), *self.reported()]

    def own(self) -> list[SourceHealth]:
        """This process's own sources (a live run's camera and dice reader)."""
        with self._lock:
            sources = list(self._sources)
            tables = dict(self._tables)
        out: list[SourceHealth] = []
        for src in sources:
            table = tables.get(id(src))
            if isinstance(src, VideoSource):
                m = src.metrics()
                with self._lock:
                    fps = self._rates.setdefault(id(src), _Rate()).sample(self._clock(), m.captured)
                out.append(SourceHealth(src.source_id, "camera", m.state, m.state is SourceState.RUNNING,
                                        fps=None if fps is None else round(fps, 2), captured=m.captured,
                                        dropped=m.dropped, reconnects=m.reconnects, table=table))
            else:
                d = src.metrics()
                out.append(SourceHealth(src.port, "dice_reader", d.state, d.state is SourceState.RUNNING,
                                        reconnects=d.reconnects, bad_lines=d.bad_lines,
                                        missing_readings=d.missing_readings,
                                        silent_s=None if d.silent_s is None else round(d.silent_s, 2),
                                        table=table))
        return out

    def collect(self) -> Iterator[Metric]:
        with self._lock:
            sources = list(self._sources)
        up = GaugeMetricFamily("table_monitor_source_up", "1 while the source delivers (state running)",
                               labels=["source", "kind"])
        state = GaugeMetricFamily("table_monitor_source_state", "1 for the source's current state",
                                  labels=["source", "kind", "state"])
        frames = CounterMetricFamily("table_monitor_source_frames",
                                     "Frames by fate: captured, dropped, consumed", labels=["source", "fate"])
        reconnects = CounterMetricFamily("table_monitor_source_reconnects", "Recoveries after a loss",
                                         labels=["source", "kind"])
        dice = CounterMetricFamily("table_monitor_dice_lines", "Dice reader lines and bytes by outcome",
                                   labels=["source", "outcome"])
        silence = GaugeMetricFamily("table_monitor_dice_silence_seconds",
                                    "Seconds since the dice reader's last well-formed line",
                                    labels=["source"])
        for src in sources:
            if isinstance(src, VideoSource):
                name, kind = src.source_id, "camera"
                m = src.metrics()
                for fate in ("captured", "dropped", "consumed"):
                    frames.add_metric([name, fate], getattr(m, fate))
                reconnects.add_metric([name, kind], m.reconnects)
                current = m.state
            else:
                name, kind = src.port, "dice_reader"
                d = src.metrics()
                for outcome, value in (
                    ("readings", d.readings), ("ok", d.lines_ok), ("bad", d.bad_lines),
                    ("garbage_bytes", d.garbage_bytes), ("missing_readings", d.missing_readings),
                    ("repeats", d.repeats),
                ):
                    dice.add_metric([name, outcome], value)
                reconnects.add_metric([name, kind], d.reconnects)
                if d.silent_s is not None:
                    silence.add_metric([name], d.silent_s)
                current = d.state
            up.add_metric([name, kind], 1.0 if current is SourceState.RUNNING else 0.0)
            for s in SourceState:
                state.add_metric([name, kind, s.value], 1.0 if s is current else 0.0)
        # Reported rows: the same families with a ``table`` label (the box's own scrape has none), so
        # one alert rule covers a box scraped directly and the central server.
        for row in self.reported():
            labels = {"source": row.source, "kind": row.kind, "table": row.table or ""}
            up.add_sample(up.name, labels, 1.0 if row.up and not row.stale else 0.0)
            for s in SourceState:
                state.add_sample(state.name, {**labels, "state": s.value}, 1.0 if s is row.state else 0.0)
            reconnects.add_sample(reconnects.name + "_total", labels, row.reconnects)
            where = {"source": row.source, "table": labels["table"]}
            if row.kind == "camera":
                for fate, count in (("captured", row.captured), ("dropped", row.dropped)):
                    if count is not None:
                        frames.add_sample(frames.name + "_total", {**where, "fate": fate}, count)
            else:
                for outcome, count in (("bad", row.bad_lines), ("missing_readings", row.missing_readings)):
                    if count is not None:
                        dice.add_sample(dice.name + "_total", {**where, "outcome": outcome}, count)
                if row.silent_s is not None:
                    silence.add_sample(silence.name, where, row.silent_s)
        fps = GaugeMetricFamily("table_monitor_source_fps",
                                "A camera's frames captured a second over about the last 10 s",
                                labels=["source", "table"])
        for row in self.health():
            if row.kind == "camera" and row.fps is not None:
                fps.add_metric([row.source, row.table or ""], row.fps)
        ages = GaugeMetricFamily("table_monitor_table_report_age_seconds",
                                 "Seconds since a table's run last reported its sources", labels=["table"])
        for table, age in self.report_ages().items():
            ages.add_metric([table], age)
        yield from (up, state, frames, reconnects, dice, silence, fps, ages)
