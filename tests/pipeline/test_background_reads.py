"""The banker's place read beside a live chain's steps: the step does not wait for it, the read joins
the first step after it is done, a read that fails is logged and the chain goes on."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from monitor.perception.detections import Detections
from monitor.perception.index_reader import IndexRead
from monitor.pipeline.background_reads import BackgroundReads
from tests.support.index_reader import CAL, RecordingReader, wanting_all


def test_reads_are_taken_in_the_order_asked_and_a_key_is_read_once() -> None:
    gate = threading.Event()
    reads: BackgroundReads[str] = BackgroundReads(str)
    calls: list[str] = []

    def slow() -> str:
        gate.wait(5)
        calls.append("a")
        return "a"

    reads.submit(("banker", 1, True), slow)
    reads.submit(("banker", 1, True), slow)  # under way: not asked again
    reads.submit(("banker", 2, True), lambda: "b")
    assert reads.pending(("banker", 1, True)) and reads.done() == []  # the first is not done: nothing
    gate.set()
    assert reads.done(wait=True) == [(("banker", 1, True), "a"), (("banker", 2, True), "b")]
    assert calls == ["a"] and not reads.pending(("banker", 1, True))
    reads.close()


def test_a_read_that_fails_gives_the_empty_read_and_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    reads: BackgroundReads[list[int]] = BackgroundReads(list)

    def broken() -> list[int]:
        raise ValueError("a picture the row finder cannot take")

    reads.submit(("banker", 3, True), broken)
    assert reads.done(wait=True) == [(("banker", 3, True), [])]
    assert "background read ('banker', 3, True) failed: ValueError" in caplog.text
    reads.close()


class _SlowBanker(RecordingReader):
    """Reads the banker's place slowly (as along its rows beside the detector), the seats at once."""

    def __init__(self) -> None:
        from monitor.pipeline.hand_zones import ZoneReader

        super().__init__()
        self.release = threading.Event()
        self.threads: set[str] = set()
        self._banker = tuple(round(v) for v in ZoneReader(CAL, RecordingReader()).boxes["banker"])

    def read(self, frame: np.ndarray, regions: list[tuple[int, int, int, int]],  # type: ignore[type-arg]
             cards: object = ()) -> list[IndexRead]:
        if any(tuple(r) == self._banker for r in regions):
            self.threads.add(threading.current_thread().name)
            self.release.wait(5)
        return super().read(frame, regions, cards)


def _run(background: bool, release_after: int | None) -> tuple[list[bool], _SlowBanker]:
    """Steps of a still table, every area wanted; whether the banker's read reached each step's hands."""
    from monitor.pipeline.chain import TableChain

    reader = _SlowBanker()
    chain = TableChain(CAL, wanting_all(), fps=15, index_reader=reader,  # type: ignore[arg-type]
                       background=background)
    w, h = CAL.image_size
    image = np.full((h, w, 3), 60, np.uint8)
    got: list[bool] = []
    if release_after is None:
        reader.release.set()
    for k in range(8):
        if release_after is not None and k == release_after:
            reader.release.set()
            time.sleep(0.2)  # the worker finishes its read
        chain.step(k, k / 15, Detections(w, h, ()), image=image)
        got.append("banker" in chain.last_hands)
    chain.close()
    return got, reader


def test_a_live_chain_does_not_wait_for_the_banker_s_read() -> None:
    got, reader = _run(background=True, release_after=6)
    # due at the third look (index 2) and held back until released at index 6: the steps in between
    # went on without it; it joins the first step after it is done
    assert got == [False] * 6 + [True, True]
    assert reader.threads and all(t.startswith("zone-read") for t in reader.threads)


def test_a_review_reads_the_banker_s_place_in_the_step() -> None:
    got, reader = _run(background=False, release_after=None)
    assert got == [False] * 2 + [True] * 6  # due at the third look (index 2): read there
    assert reader.threads == {threading.current_thread().name}


class _Seen(RecordingReader):
    """Records the picture (its grey level) each seat area was read in."""

    def __init__(self) -> None:
        super().__init__()
        self.seat_reads: list[int] = []
        from monitor.pipeline.hand_zones import ZoneReader

        boxes = ZoneReader(CAL, RecordingReader()).boxes
        self._seats = {tuple(round(v) for v in b) for n, b in boxes.items() if n.startswith("seat")}

    def read(self, frame: np.ndarray, regions: list[tuple[int, int, int, int]],  # type: ignore[type-arg]
             cards: object = ()) -> list[IndexRead]:
        if any(tuple(r) in self._seats for r in regions):
            self.seat_reads.append(int(frame[0, 0, 0]))
        return super().read(frame, regions, cards)


def _seat_steps(background: bool, pictures: list[int]) -> tuple[_Seen, list[bool]]:
    """Steps over frames of the given grey levels, every area wanted: the seats' reads, and whether
    each step gave the extractor seat 1's back area."""
    from monitor.pipeline.chain import TableChain

    reader = _Seen()
    chain = TableChain(CAL, wanting_all(), fps=15, index_reader=reader,  # type: ignore[arg-type]
                       background=background)
    w, h = CAL.image_size
    got = []
    for k, level in enumerate(pictures):
        chain.step(k, k / 15, Detections(w, h, ()), image=np.full((h, w, 3), level, np.uint8))
        got.append("seat1.back" in chain.last_hands)
    chain.close()
    return reader, got


def test_a_live_chain_reads_a_seat_once_at_its_second_still_look() -> None:
    seats = sum(1 for n in CAL.zones if n.startswith("seat") and n.endswith((".front", ".back")))
    reader, got = _seat_steps(True, [60] * 5)
    # the first settled look (index 1) deferred, superseded by the second (index 2): one read each
    assert reader.seat_reads == [60] * seats
    assert got == [False, False, True, True, True]
    review, got = _seat_steps(False, [60] * 5)
    assert review.seat_reads == [60] * (2 * seats)  # a review reads both looks in their steps
    assert got == [False, True, True, True, True]


def test_a_seat_swept_after_one_still_look_is_read_in_the_next_step_as_it_was() -> None:
    # still at 60 for two looks (settled at index 1), then changed: the deferred read is of the frame
    # at 60, made in the next step and given to the extractor there
    reader, got = _seat_steps(True, [60, 60, 200, 200])
    seats = sum(1 for n in CAL.zones if n.startswith("seat") and n.endswith((".front", ".back")))
    assert reader.seat_reads[:seats] == [60] * seats
    assert got[:3] == [False, False, True]
