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
    run.chain = SimpleNamespace(step=step, close=lambda: None)  # type: ignore[assignment]
    threads = [threading.Thread(target=run._guard(run._perceive_loop)),
               threading.Thread(target=run._guard(run._state_loop))]
    for th in threads:
        th.start()
    for th in threads:
        th.join(WAIT_S)
    assert not any(th.is_alive() for th in threads) and not run.errors
    return run, log


def test_a_live_run_perceives_the_next_frame_only_after_this_frame_s_step() -> None:
    run, log = _live_run(6, step_s=0.02)
    assert run.turns is not None and run.turns.late == 0
    spans = sorted(log, key=lambda r: r[2])
    stages = [(kind, i) for kind, i, _s, _e in spans]
    assert stages == [(k, i) for i in range(6) for k in ("perceive", "step")]
    assert all(a[3] <= b[2] + 1e-3 for a, b in itertools.pairwise(spans))  # never side by side


def test_a_frame_dropped_from_the_queue_gives_its_step_s_turn_back() -> None:
    run = LiveRun(load_table(TABLE), _LiveSource(0), SimpleNamespace(),  # type: ignore[arg-type]
                  SimpleNamespace(put=lambda events: None), queue_size=1)  # type: ignore[arg-type]
    turns = run.turns
    assert turns is not None
    turns.patience_s = 0.5
    frame = Frame(np.zeros((27, 48, 3), np.uint8), 0, 0.0, datetime.now(UTC), "cam")
    first, second = turns.ticket(), turns.ticket()
    run._detected.put((frame, Detections(48, 27, ()), None, first))
    run._detected.put((frame, Detections(48, 27, ()), None, second))  # newest wins: the first dropped
    assert run.stats.frames_dropped == 1
    with turns.turn(second):
        pass
    assert turns.late == 0  # the dropped frame's step was not waited for


def test_a_review_overlaps_its_stages_without_turns() -> None:
    run = LiveRun(load_table(TABLE), FileFrames(), SimpleNamespace(),  # type: ignore[arg-type]
                  SimpleNamespace(put=lambda events: None))  # type: ignore[arg-type]
    assert run.turns is None and run.chain._turns is None and run.chain._background is None
