"""The live run's handoffs on the way to an alert: the event sink joins what queued while
an ingest call was in flight into the next call (one group commit, not one per frame), sends a lone
batch at once, keeps order across a resend; perception hands a frame to table state before keeping
its snapshot copy."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import numpy as np

from monitor.calibration import load_table
from monitor.perception.detections import Detections
from monitor.pipeline.orchestrator import LiveRun
from monitor.pipeline.server import ApiSink
from monitor.pipeline.snapshots import FrameRing
from tests.support.frames import FileFrames
from tests.support.paths import TABLE_FILE

WAIT_S = 10.0  # a bound for a hung test, never a measurement


class FakeServer:
    """An ``ApiServer`` stand-in: records each ingest call's events; the first call can be held open
    (a slow commit) and the first ``fail`` attempts refused (the store asks for a resend)."""

    def __init__(self, hold_first: bool = False, fail: int = 0) -> None:
        self.calls: list[list[Any]] = []
        self.attempts = 0
        self.fail = fail
        self.in_call = threading.Event()
        self.release = threading.Event()
        if not hold_first:
            self.release.set()
        self.services = SimpleNamespace(pipeline=SimpleNamespace(submit=self.submit))

    async def submit(self, events: list[Any]) -> Any:
        self.attempts += 1
        self.in_call.set()
        assert self.release.wait(WAIT_S)
        if self.attempts <= self.fail:
            raise RuntimeError("the store could not commit; retry")
        self.calls.append(list(events))
        return SimpleNamespace(accepted=len(events), alerts=[])

    def call(self, fn: Callable[[], Coroutine[Any, Any, Any]], timeout: float = 30.0) -> Any:
        return asyncio.run(fn())


def test_a_lone_batch_is_sent_at_once() -> None:
    server = FakeServer()
    sink = ApiSink(server)  # type: ignore[arg-type]
    sink.put(["e1", "e2"])  # type: ignore[list-item]
    assert server.in_call.wait(WAIT_S)  # nothing waits for more batches to join it
    sink.close()
    assert server.calls == [["e1", "e2"]]
    assert (sink.calls, sink.sent) == (1, 2)


def test_batches_queued_during_a_commit_go_together_in_order() -> None:
    server = FakeServer(hold_first=True)
    sink = ApiSink(server)  # type: ignore[arg-type]
    sink.put(["a"])  # type: ignore[list-item]
    assert server.in_call.wait(WAIT_S)  # the first call is being committed ...
    for batch in (["b"], ["c", "d"], ["e"]):  # ... while three frames' events queue
        sink.put(batch)  # type: ignore[arg-type]
    server.release.set()
    sink.close()
    assert server.calls == [["a"], ["b", "c", "d", "e"]]
    assert (sink.calls, sink.sent) == (2, 5)


def test_joined_calls_are_bounded() -> None:
    server = FakeServer(hold_first=True)
    sink = ApiSink(server, max_events=2)  # type: ignore[arg-type]
    sink.put(["a"])  # type: ignore[list-item]
    assert server.in_call.wait(WAIT_S)
    for batch in (["b"], ["c"], ["d"]):
        sink.put(batch)  # type: ignore[arg-type]
    server.release.set()
    sink.close()
    assert server.calls == [["a"], ["b", "c"], ["d"]]


def test_a_refused_call_is_resent_whole_before_anything_after_it() -> None:
    server = FakeServer(hold_first=True, fail=1)
    sink = ApiSink(server)  # type: ignore[arg-type]
    sink.put(["a"])  # type: ignore[list-item]
    assert server.in_call.wait(WAIT_S)
    sink.put(["b"])  # type: ignore[list-item]
    server.release.set()
    sink.close()
    assert server.calls == [["a"], ["b"]]
    assert sink.failures == 1 and sink.sent == 2


class _Perception:
    label = "test"
    sees_hands = False
    counts_face_down = False

    def see(self, index: int, image: np.ndarray) -> tuple[Detections, tuple[str, ...] | None]:
        return Detections(image.shape[1], image.shape[0], ()), None


def test_perception_hands_a_frame_on_before_keeping_its_snapshot_copy() -> None:
    queued_at_copy: list[int] = []

    class Ring(FrameRing):
        def add(self, media_time: float, index: int, image: np.ndarray) -> None:
            queued_at_copy.append(run.frames_waiting)  # nothing consumes here: every frame stays queued
            super().add(media_time, index, image)

    sink = SimpleNamespace(put=lambda events: None)
    run = LiveRun(load_table(TABLE_FILE), FileFrames(), _Perception(), sink, Ring())  # type: ignore[arg-type]
    run.run_perception()  # the perception stage alone, on this thread
    assert queued_at_copy == [1, 2, 3]  # frame i was with table state before its copy was kept
    kept = [run.ring.nearest(i / 30) for i in range(3)]
    assert [k[1] if k is not None else None for k in kept] == [0, 1, 2]


def test_an_outside_event_released_by_a_frame_goes_in_that_frames_batch() -> None:
    """A console press released once a frame of its moment went through table state is numbered after
    that frame's events; sent in a batch of its own it was held by the procedure monitor until theirs
    came in the next commit. It now goes with them, first, as before."""
    from monitor.events.schema import BetsClosed, RoundStarted, Source

    puts: list[list[Any]] = []
    sink = SimpleNamespace(put=lambda events: puts.append(list(events)))
    run = LiveRun(load_table(TABLE_FILE), FileFrames(), _Perception(), sink)  # type: ignore[arg-type]
    now = datetime.now(UTC)
    seen = RoundStarted(table_id=run.table_id, seq=0, media_time=0.0, wall_time=now, source=Source.VISION,
                        banker_seat=1)
    run.chain = SimpleNamespace(  # type: ignore[assignment]
        step=lambda index, *_a: [seen.model_copy(update={"seq": run.next_seq()})] if index == 0 else [],
        close=lambda: None)
    run.run_perception()  # the file's frames perceived and queued, none through table state yet
    run.outside(BetsClosed(table_id=run.table_id, seq=0, media_time=0.0, wall_time=now,
                           source=Source.OPERATOR))
    run.run_table_state()  # table state alone, on this thread
    sent = [[(e.type, e.seq) for e in batch] for batch in puts]
    assert sent == [[("bets_closed", 1), ("round_started", 0)]]  # one batch; the press first, as before
