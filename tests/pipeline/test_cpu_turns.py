"""The live chain's stages take turns on the CPU in the order the frames need them: a frame's
perception, its step, the next frame's perception; a dropped frame's turn is given back; a stage that
never comes does not stop the others."""

from __future__ import annotations

import itertools
import threading
import time
from datetime import UTC, datetime
from types import SimpleNamespace

import numpy as np
import pytest

from monitor.calibration import load_table
from monitor.commands.demo import TABLE
from monitor.perception.detections import Detections
from monitor.pipeline.cpu_turns import CpuTurns
from monitor.pipeline.orchestrator import LiveRun
from monitor.sources.frame import Frame
from tests.support.frames import FileFrames
from tests.support.index_reader import RecordingReader
from tests.support.waiting import wait_until

WAIT_S = 10.0


def test_turns_are_served_in_ticket_order_whoever_asks_first() -> None:
    turns = CpuTurns()
    tickets = [turns.ticket() for _ in range(3)]
    order: list[int] = []

    def stage(t: int) -> None:
        with turns.turn(t):
            order.append(t)

    threads = [threading.Thread(target=stage, args=(t,)) for t in reversed(tickets)]
    for th in threads:
        th.start()
        time.sleep(0.02)  # the later tickets ask first
    for th in threads:
        th.join(WAIT_S)
    assert order == [0, 1, 2] and turns.late == 0


def test_a_ticket_given_back_unused_lets_the_next_go() -> None:
    turns = CpuTurns()
    dropped, step = turns.ticket(), turns.ticket()
    turns.done(dropped)  # a frame dropped from the queue: its step will not run
    ran = threading.Event()

    def stage() -> None:
        with turns.turn(step):
            ran.set()

    threading.Thread(target=stage).start()
    assert ran.wait(WAIT_S) and turns.late == 0


def test_a_turn_never_given_back_is_waited_for_only_so_long(caplog: pytest.LogCaptureFixture) -> None:
    turns = CpuTurns(patience_s=0.1)
    turns.ticket()  # a stage that died holding it
    t0 = time.monotonic()
    with turns.turn(turns.ticket()):
        waited = time.monotonic() - t0
    assert waited >= 0.1 and turns.late == 1
    assert "not served after 0.1 s" in caplog.text


def test_closing_lets_every_waiting_turn_go() -> None:
    turns = CpuTurns(patience_s=WAIT_S)
    turns.ticket()
    went = threading.Event()

    def stage() -> None:
        with turns.turn(turns.ticket()):
            went.set()

    threading.Thread(target=stage).start()
    time.sleep(0.05)
    assert not went.is_set()
    turns.close()
    assert went.wait(1.0) and turns.late == 0


class _LiveSource:
    """A live camera of ``n`` frames, all there at once (a burst), then the end."""

    live = True
    realtime = True

    def __init__(self, n: int) -> None:
        self.frames = [Frame(np.zeros((27, 48, 3), np.uint8), i, i / 30, datetime.now(UTC), "cam")
                       for i in range(n)]
        self.state = SimpleNamespace(is_terminal=False)
        self.source_id = "cam"
        self.options = SimpleNamespace(deliver_every=1)

    def read(self, timeout: float | None = None) -> Frame | None:
        if not self.frames:
            self.state.is_terminal = True
            return None
        return self.frames.pop(0)

    # what LiveRun.start and stop ask of a source: the frames are there already, no status comes
    def add_status_handler(self, handler: object) -> None:
        pass

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


def _through(run: LiveRun) -> None:
    """Start ``run`` and wait until every frame went through both stages."""
    run.start()
    try:
        assert run.wait(WAIT_S) and not run.errors
    finally:
        run.stop()


Span = tuple[str, int, float, float]  # stage, frame, start, end


def _live_run(n: int, step_s: float, queue_size: int = 4) -> tuple[LiveRun, list[Span]]:
    """A live run whose perception and steps record when they ran; waits until it is through."""
    log: list[Span] = []

    class Perception:
        label = "test"
        sees_hands = False
        counts_face_down = False

        def see(self, index: int, image: np.ndarray) -> tuple[Detections, None]:
            t = time.monotonic()
            time.sleep(0.01)
            log.append(("perceive", index, t, time.monotonic()))
            return Detections(48, 27, ()), None

    def step(index: int, *_a: object) -> list[object]:
        t = time.monotonic()
        time.sleep(step_s)
        log.append(("step", index, t, time.monotonic()))
        return []

    run = LiveRun(load_table(TABLE), _LiveSource(n), Perception(),  # type: ignore[arg-type]
                  SimpleNamespace(put=lambda events: None), queue_size=queue_size)  # type: ignore[arg-type]
    run.chain = SimpleNamespace(step=step, close=lambda: None, warm_up=lambda: None)  # type: ignore[assignment]
    _through(run)
    return run, log


def test_a_live_run_perceives_the_next_frame_only_after_this_frame_s_step() -> None:
    run, log = _live_run(6, step_s=0.02)
    assert run.turns is not None and run.turns.late == 0
    spans = sorted(log, key=lambda r: r[2])
    stages = [(kind, i) for kind, i, _s, _e in spans]
    assert stages == [(k, i) for i in range(6) for k in ("perceive", "step")]
    assert all(a[3] <= b[2] + 1e-3 for a, b in itertools.pairwise(spans))  # never side by side


def test_a_frame_dropped_from_the_queue_gives_its_step_s_turn_back() -> None:
    """Frame 0's step holds its turn past the patience: frames 1 and 2 are perceived late, and frame 2
    pushes frame 1 out of the one-frame queue. Frame 1's step will never run, so its turn is given
    back: frame 2's step is not kept waiting for it."""
    stepping, held = threading.Event(), threading.Event()
    stepped: list[int] = []

    def see(index: int, image: np.ndarray) -> tuple[Detections, None]:
        if index == 1:
            assert stepping.wait(WAIT_S)  # frame 0 is with table state, out of the queue
        return Detections(48, 27, ()), None

    def step(index: int, *_a: object) -> list[object]:
        if index == 0:
            stepping.set()
            assert held.wait(WAIT_S)
        stepped.append(index)
        return []

    run = LiveRun(load_table(TABLE), _LiveSource(3), SimpleNamespace(label="test", see=see),  # type: ignore[arg-type]
                  SimpleNamespace(put=lambda events: None), queue_size=1)  # type: ignore[arg-type]
    run.chain = SimpleNamespace(step=step, close=lambda: None, warm_up=lambda: None)  # type: ignore[assignment]
    turns = run.turns
    assert turns is not None
    turns.patience_s = 0.3
    run.start()
    try:
        assert wait_until(lambda: run.stats.frames_dropped == 1, WAIT_S)
        held.set()
        assert run.wait(WAIT_S) and not run.errors
    finally:
        run.stop()
    assert stepped == [0, 2]
    assert turns.late == 2  # frames 1 and 2's perception behind the held step; frame 2's step in turn


def test_a_review_overlaps_its_stages_without_turns() -> None:
    perception = SimpleNamespace(index_reader=RecordingReader())
    sink = SimpleNamespace(put=lambda events: None)
    review = LiveRun(load_table(TABLE), FileFrames(), perception, sink)  # type: ignore[arg-type]
    assert review.turns is None and not review.chain.reads_beside_steps
    live = LiveRun(load_table(TABLE), _LiveSource(0), perception, sink)  # type: ignore[arg-type]
    assert live.turns is not None and live.chain.reads_beside_steps  # the banker's place beside the steps
    live.chain.close()
