"""Source health for Prometheus: a collector that reads the sources' counters at scrape time.

Register it in the API's registry (``registry.register(SourceCollector(...))``); sources can
be added later with ``add``. Nothing is copied between scrapes, so the counters are never stale.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from monitor.sources.dice_reader import DiceReader
from monitor.sources.state import SourceState
from monitor.sources.video_source import VideoSource


class SourceCollector(Collector):
    def __init__(self, sources: list[VideoSource | DiceReader] | None = None) -> None:
        self._sources: list[VideoSource | DiceReader] = list(sources or [])
        self._lock = threading.Lock()

    def add(self, source: VideoSource | DiceReader) -> None:
        with self._lock:
            self._sources.append(source)

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
                current = d.state
            up.add_metric([name, kind], 1.0 if current is SourceState.RUNNING else 0.0)
            for s in SourceState:
                state.add_metric([name, kind, s.value], 1.0 if s is current else 0.0)
        yield from (up, state, frames, reconnects, dice)
