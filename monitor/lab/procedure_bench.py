"""Throughput of the procedure monitor: events per second on one core.

Clean Pai Gow sessions (every round different: a fresh shuffle, bets, dice) for several
tables are generated first, interleaved as a live feed would deliver them, and then pushed
through one :class:`Monitor` twice: as validated event objects (the monitor alone) and as
JSON lines (parsing plus the monitor, the path of a file or a socket).
"""

from __future__ import annotations

import gc
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from monitor.events.schema import Event, parse_event, parse_event_json
from monitor.procedure.monitor import Monitor
from monitor.procedure.synth import Clock, paigow_session


@dataclass(frozen=True)
class Timing:
    """One path measured: wall seconds and CPU seconds of this process (the machine may be shared)."""

    events: int
    wall_s: float
    cpu_s: float

    @property
    def per_cpu_second(self) -> float:
        return self.events / self.cpu_s if self.cpu_s > 0 else float("inf")

    @property
    def per_wall_second(self) -> float:
        return self.events / self.wall_s if self.wall_s > 0 else float("inf")


@dataclass(frozen=True)
class BenchResult:
    events: int
    rounds: int
    tables: int
    alerts: int
    generate_s: float
    monitor: Timing
    json: Timing
    parse_only: Timing  # pydantic validation of the same JSON lines, no judging: the reference
    repeats: int = 1  # each path timed this many times; the best run is kept


def _timed(events: int, run: Callable[[], None]) -> Timing:
    w0, c0 = time.perf_counter(), time.process_time()
    run()
    return Timing(events, time.perf_counter() - w0, time.process_time() - c0)


def make_events(
    rounds: int, tables: int, seed: int, tick: Callable[[int], None] | None = None
) -> list[Event]:
    rng = random.Random(seed)
    per_table: list[list[Event]] = []
    for t in range(tables):
        clock = Clock(table_id=f"T{t + 1}")
        n = rounds // tables + (1 if t < rounds % tables else 0)
        events = [parse_event(e) for e in paigow_session(rng, clock, n)]
        if tick is not None:
            tick(n)
        per_table.append(events)
    # Interleave the tables event by event, as one process serving several tables receives them.
    out: list[Event] = []
    longest = max((len(e) for e in per_table), default=0)
    for i in range(longest):
        for events in per_table:
            if i < len(events):
                out.append(events[i])
    return out


def run_bench(rounds: int = 1000, tables: int = 4, seed: int = 1, repeats: int = 3,
              tick: Callable[[int], None] | None = None,
              timed: Callable[[], None] | None = None) -> BenchResult:
    """Generate the rounds, then time each path ``repeats`` times, interleaved, each with a fresh monitor;
    the best run of each path is reported (a shared machine only ever slows a run down)."""
    t0 = time.perf_counter()
    events = make_events(rounds, tables, seed, tick)
    lines = [e.model_dump_json() for e in events]
    generate = time.perf_counter() - t0
    n = len(events)
    best: dict[str, Timing] = {}
    alerts: dict[str, list[str]] = {}

    def keep(name: str, t: Timing) -> None:
        if name not in best or t.cpu_s < best[name].cpu_s:
            best[name] = t

    for _ in range(repeats):
        m = Monitor()
        m.warm_up()  # builds the score tables once, outside the timing (as a live process does at start-up)
        m2 = Monitor()
        m2.warm_up()

        def judge(m: Monitor = m) -> None:
            feed = m.feed
            for e in events:
                feed(e)
            m.finish()

        def judge_json(m2: Monitor = m2) -> None:
            feed_json = m2.feed_json
            for line in lines:
                feed_json(line)
            m2.finish()

        def parse() -> None:
            for line in lines:
                parse_event_json(line)

        # The pre-generated events and lines are the harness's data, not the monitor's state (a live feed
        # drops each event once judged): freeze them so that the collector does not rescan them all the time.
        gc.collect()
        gc.freeze()
        try:
            keep("monitor", _timed(n, judge))
            keep("json", _timed(n, judge_json))
            keep("parse", _timed(n, parse))
        finally:
            gc.unfreeze()
        alerts["monitor"], alerts["json"] = [a.id for a in m.alerts], [a.id for a in m2.alerts]
        if alerts["monitor"] != alerts["json"]:
            raise RuntimeError("object and JSON paths disagree: " + json.dumps([a.code for a in m2.alerts]))
        if timed is not None:
            timed()
    return BenchResult(n, rounds, tables, len(alerts["monitor"]), generate, best["monitor"], best["json"],
                       best["parse"], repeats)
