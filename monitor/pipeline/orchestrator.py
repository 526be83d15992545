"""The live run: camera -> perception -> table state -> events -> procedure monitor -> store and push.

Threads, each behind a bounded queue so a slow stage never blocks capture:

- capture (the :class:`~monitor.sources.VideoSource`'s own thread): live sources drop the oldest
  frame, and perception takes the newest;
- perception: frame -> detections (models, or oracle truth), keeps a small copy for snapshots;
- table state: detections -> placed, tracked objects -> events (:class:`TableChain`), with the
  outside events merged in as they come: the dice reader's rolls, camera and reader faults
  (``device_lost`` / ``device_recovered``) and the dealer's console;
- the sink: event batches -> the API's ingest (store, procedure monitor, WebSocket push).

A camera that drops or a video that breaks becomes a device alert and the run goes on: the
dice reader, the console and the API keep working; a live camera is reconnected by its source.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from monitor.calibration import TableCalibration
from monitor.events.schema import EventBase, parse_event
from monitor.perception.detections import Detections
from monitor.pipeline import heap
from monitor.pipeline.chain import TableChain
from monitor.pipeline.cpu_turns import CpuTurns
from monitor.pipeline.extract import EventExtractor, ExtractorSettings
from monitor.pipeline.frame_coverage import FrameCoverage
from monitor.pipeline.perceive import Perception
from monitor.pipeline.snapshots import FrameRing
from monitor.pipeline.watchers.view import TableLayout
from monitor.sources.frame import Frame
from monitor.sources.policy import BoundedBuffer, ConsumePolicy, FillPolicy
from monitor.sources.state import SourceState
from monitor.sources.to_events import SourceEventMapper

log = logging.getLogger(__name__)

# a frame through perception: its detections, track ids (oracle) and its step's CPU turn (live)
_Perceived = tuple[Frame, Detections, "tuple[str, ...] | None", "int | None"]


class EventSink(Protocol):
    def put(self, events: list[EventBase]) -> None: ...


@dataclass
class RunStats:
    frames_in: int = 0
    frames_perceived: int = 0
    frames_dropped: int = 0  # perceived, then lost before table state (it lagged)
    frames_skipped: int = 0  # numbered by the camera, never through table state (live: newest wins)
    events_out: int = 0
    perceive_ms: deque[float] = field(default_factory=lambda: deque(maxlen=500))
    state_ms: deque[float] = field(default_factory=lambda: deque(maxlen=500))
    started: float = field(default_factory=time.monotonic)

    def fps(self) -> float:
        return self.frames_perceived / max(time.monotonic() - self.started, 1e-9)


class ConsoleReplay:
    """The dealer's console played from a recording's event log against the media clock (the demo).

    Round start (with the banker's seat), no more bets, misdeal and round end are button presses
    at a real table; in a recording they are lines of its ``events.jsonl``.
    """

    def __init__(self, events: list[dict[str, Any]], clock: Callable[[], float],
                 deliver: Callable[[dict[str, Any]], None]) -> None:
        self.pending = deque(sorted(events, key=lambda e: e["media_time"]))
        self.clock = clock
        self.deliver = deliver
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="console-replay", daemon=True)

    def start(self) -> ConsoleReplay:
        self._thread.start()
        return self

    def _run(self) -> None:
        while self.pending and not self._stop.is_set():
            if self.clock() >= self.pending[0]["media_time"]:
                self.deliver(self.pending.popleft())
            else:
                self._stop.wait(0.02)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(2)


class LiveRun:
    """One table, one camera (and optionally one dice reader): see the module doc."""

    def __init__(
        self,
        calibration: TableCalibration,
        source: Any,  # a VideoSource (not started)
        perception: Perception,
        sink: EventSink,
        ring: FrameRing | None = None,
        first_seq: int = 0,
        settings: ExtractorSettings | None = None,
        dice: Any | None = None,  # a DiceReader (not started)
        queue_size: int = 4,
        fps: float = 30.0,  # the frames a second table state sees (the camera's over deliver_every)
    ) -> None:
        self.calibration = calibration
        self.table_id = calibration.table
        self.source = source
        self.perception = perception
        self.sink = sink
        self.ring = ring or FrameRing()
        self.dice = dice
        self.stats = RunStats()
        self._frozen = False  # holds the heap frozen (monitor.pipeline.heap) from start to stop
        self._seq = itertools.count(first_seq)
        self._seq_lock = threading.Lock()
        self.extractor = EventExtractor(self.table_id, settings, next_seq=self.next_seq,
                                        wall_time=lambda _t: datetime.now(UTC),
                                        layout=TableLayout.of(calibration.zones, calibration.zone_rules))
        live = bool(source.live or source.realtime)
        # a live camera's stages take turns on the CPU, a frame's perception then its step (each alone
        # runs 2-3x faster), and the banker's place is read beside the steps; a file read at the chain's
        # pace overlaps them and reads in the step (the same events, however fast the machine)
        self.turns = CpuTurns() if live else None
        self.chain = TableChain(calibration, self.extractor, fps=fps,
                                index_reader=getattr(perception, "index_reader", None),
                                track_conf=getattr(perception, "track_conf", None),
                                background=live, turns=self.turns)
        # perception -> table state: in order, bounded; a lagging table state loses the oldest frame
        # (and the turn its step held)
        self._detected: BoundedBuffer[_Perceived] = BoundedBuffer(
            queue_size, FillPolicy.DROP_OLDEST if live else FillPolicy.WAIT,
            ConsumePolicy.LAZY, on_drop=self._dropped)
        self._outside: deque[tuple[float, EventBase]] = deque()
        self._outside_lock = threading.Lock()
        # the mapper's own numbers are replaced when an event is released (see _drain_outside)
        self.mapper = SourceEventMapper(self.table_id, self.media_now)
        self._processed_media = -1.0  # media time of the newest frame through table state
        # a live chain that cannot keep up sees only some frames: a device alert, not silence
        every = getattr(getattr(source, "options", None), "deliver_every", 1)
        self.coverage = FrameCoverage(step=max(1, every)) if source.live or source.realtime else None
        self._camera = str(getattr(source, "source_id", "camera"))
        self.hold_s = 2.0  # an outside event waits at most this long for the frames of its moment
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.console: ConsoleReplay | None = None
        # (media time, capture wall time) of every frame read: latency is measured from capture
        self.captured: deque[tuple[float, datetime]] = deque(maxlen=200_000)
        self.errors: list[str] = []

    # ---- clocks and counters ---------------------------------------------------------------------

    def next_seq(self) -> int:
        with self._seq_lock:
            return next(self._seq)

    def media_now(self) -> float:
        return float(self.source.media_time_now())

    def _dropped(self, item: _Perceived) -> None:
        self.stats.frames_dropped += 1
        if self.turns is not None:
            self.turns.done(item[3])

    # ---- outside events --------------------------------------------------------------------------

    def outside(self, event: EventBase | None) -> None:
        """An event from the dice reader, a source's status or the console (any thread)."""
        if event is None:
            return
        with self._outside_lock:
            self._outside.append((time.monotonic(), event))

    def console_event(self, raw: dict[str, Any]) -> None:
        """A console event from a log: re-stamped for this table, this run's sequence and now."""
        data = {**raw, "table_id": self.table_id, "seq": 0, "media_time": self.media_now(),
                "wall_time": datetime.now(UTC).isoformat()}
        data.pop("frame", None)
        self.outside(parse_event(data))

    def replay_console(self, events: list[dict[str, Any]]) -> None:
        self.console = ConsoleReplay(events, self.media_now, self.console_event)

    def _release_outside(self, force: bool = False) -> list[EventBase]:
        """Release outside events in media-time order with the vision events: an event waits until the
        frames of its moment went through table state (a lagging camera chain must not let a console
        press or a roll overtake what the camera saw before it), or ``hold_s`` at most (a camera that
        is down). Sequence numbers are given here, in release order. Returns them for the sink."""
        now = time.monotonic()
        with self._outside_lock:
            ready = [(t, e) for t, e in self._outside
                     if force or e.media_time <= self._processed_media + 1e-6 or now - t >= self.hold_s]
            if not ready:
                return []
            keep = [(t, e) for t, e in self._outside if (t, e) not in ready]
            self._outside.clear()
            self._outside.extend(keep)
        ready.sort(key=lambda te: (te[1].media_time, te[0]))
        items: list[EventBase] = []
        for _, e in ready:
            items += self.extractor.told(e, self.next_seq)  # a round the roll opens goes first
        self.stats.events_out += len(items)
        return items

    def _drain_outside(self, force: bool = False) -> None:
        items = self._release_outside(force)
        if items:
            self.sink.put(items)

    # ---- the stages ------------------------------------------------------------------------------

    def start(self) -> LiveRun:
        if not self.perception.label.startswith("ORACLE"):
            self.chain.warm_up()  # ByteTrack for real detections: loaded before the first frame
        heap.freeze()
        self._frozen = True
        self.source.add_status_handler(lambda status: self.outside(self.mapper.from_source(status)))
        if self.dice is not None:
            self.dice.add_handler(lambda event: self.outside(self.mapper.from_dice(event)))
            self.dice.start()
        self.source.start()
        for name, target in (("perception", self.run_perception), ("table-state", self.run_table_state)):
            t = threading.Thread(target=self._guard(target), name=name, daemon=True)
            t.start()
            self._threads.append(t)
        if self.console is not None:
            self.console.start()
        return self

    def _guard(self, target: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                target()
            except Exception as e:  # a bug in a stage is logged and the others keep going
                log.exception("pipeline stage failed")
                self.errors.append(f"{type(e).__name__}: {e}")
                self._detected.close()
                if self.turns is not None:
                    self.turns.close()  # no stage waits for turns a dead one held
        return run

    def run_perception(self) -> None:
        """The perception stage on the calling thread (``start`` runs it on ``perception``): each frame
        of the source perceived and queued for table state, then its snapshot copy kept in ``ring``,
        until the source ends or the run is stopped; then the queue is closed."""
        while not self._stop.is_set():
            frame = self.source.read(timeout=0.2)
            if frame is None:
                if self.source.state.is_terminal:
                    break
                continue
            self.stats.frames_in += 1
            self.captured.append((frame.media_time_s, frame.wall_time))
            turns = self.turns
            with turns.turn(turns.ticket()) if turns is not None else nullcontext():
                t = time.perf_counter()
                detections, tracks = self.perception.see(frame.index, frame.image)
                self.stats.perceive_ms.append((time.perf_counter() - t) * 1000)
            # this frame's step comes before the next frame's perception
            step_turn = turns.ticket() if turns is not None else None
            # Table state first: the snapshot copy (a resize) is not on the way to an alert. An alert
            # this frame raises is stored only after table state, the sink and the monitor had it.
            put = self._detected.put((frame, detections, tracks, step_turn), cancelled=self._stop.is_set)
            if not put and turns is not None:
                turns.done(step_turn)  # not queued (stopping): its turn is not waited for
            self.ring.add(frame.media_time_s, frame.index, frame.image)
        self._detected.close()

    def run_table_state(self) -> None:
        """The table-state stage on the calling thread (``start`` runs it on ``table-state``): each
        queued frame through the chain, its events and the outside events released with them to the
        sink, until perception closed the queue and it is empty; then the chain is closed and the
        outside events left are released."""
        while True:
            self._drain_outside()
            item = self._detected.get(timeout=0.1)
            if item is None:
                if self._detected.closed and len(self._detected) == 0:
                    break
                continue
            frame, detections, tracks, step_turn = item
            with self.turns.turn(step_turn) if self.turns is not None else nullcontext():
                t = time.perf_counter()
                events = self.chain.step(frame.index, frame.media_time_s, detections, tracks, frame.image)
                self.stats.state_ms.append((time.perf_counter() - t) * 1000)
            self.stats.frames_perceived += 1
            self._processed_media = frame.media_time_s
            self._watch_coverage(frame)
            # a roll read before this frame goes before the frame's events, in the same batch: the
            # roll's sequence number comes after theirs, so the procedure monitor holds it until they
            # arrive, and a batch of its own would have waited a commit for them
            released = self._release_outside()
            if events:
                self.stats.events_out += len(events)
            if released or events:
                self.sink.put(released + list(events))
        self.chain.close()
        self._drain_outside(force=True)

    def _watch_coverage(self, frame: Frame) -> None:
        if self.coverage is None:
            return
        verdict = self.coverage.update(frame.index, frame.media_time_s)
        self.stats.frames_skipped = self.coverage.skipped
        if verdict == "ok":
            self.outside(self.mapper.frames_caught_up(self._camera))
        elif verdict is not None:
            log.warning("camera %s: %s", self._camera, verdict)
            self.outside(self.mapper.frames_missed(self._camera, verdict))

    def frames_summary(self) -> str:
        """What became of the camera's frames, for the end of a run."""
        st = self.stats
        if self.coverage is None:  # a file read at the chain's pace: nothing is skipped
            return f"frames {st.frames_perceived} processed ({st.frames_dropped} dropped)"
        return (f"frames {st.frames_perceived} processed, {st.frames_skipped} of the camera's frames never "
                f"went through ({st.frames_dropped} of them dropped after perception)")

    @property
    def frames_waiting(self) -> int:
        """Frames perceived and not yet taken by table state (at most ``queue_size``): how far it lags."""
        return len(self._detected)

    # ---- life cycle ------------------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        return all(not t.is_alive() for t in self._threads)

    @property
    def source_state(self) -> SourceState:
        return self.source.state  # type: ignore[no-any-return]

    def wait(self, timeout: float | None = None) -> bool:
        """Until the source ended and every frame went through (or ``timeout``); True if finished."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for t in self._threads:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            t.join(left)
        return self.finished

    def stop(self) -> None:
        self._stop.set()
        if self.turns is not None:
            self.turns.close()
        if self.console is not None:
            self.console.stop()
        self.source.stop()
        for t in self._threads:
            t.join(5)
        if self.dice is not None:
            self.dice.stop()
        self._drain_outside(force=True)
        if self._frozen:
            self._frozen = False
            heap.thaw()
