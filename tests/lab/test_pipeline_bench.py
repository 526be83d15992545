"""The live benchmark's arithmetic: which frame a fault first shows in, and pooled latencies."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from monitor.lab.pipeline_bench import BenchResult, first_showing

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def captured_at(fps: float, n: int) -> list[tuple[float, datetime]]:
    return [(i / fps, T0 + timedelta(seconds=i / fps)) for i in range(n)]


def test_the_fault_shows_in_the_first_frame_at_or_after_its_time() -> None:
    frames = captured_at(15, 700)
    # 42.9 s lies half way between frames 643 (42.867) and 644 (42.933): a frame before the truth's
    # time cannot show the fault, so 644 it is (the nearest frame would have been either)
    assert first_showing(frames, 42.9) == frames[644][1]
    assert first_showing(frames, 644 / 15) == frames[644][1]  # a frame exactly at the time shows it


def test_a_fault_after_the_last_frame_has_no_frame() -> None:
    assert first_showing(captured_at(15, 10), 5.0) is None
    assert first_showing([], 0.0) is None


def test_frames_skipped_by_a_live_source_still_give_the_next_one() -> None:
    frames = [c for i, c in enumerate(captured_at(30, 60)) if i % 3 == 0]  # every third frame arrived
    assert first_showing(frames, 0.51) == frames[6][1]  # frame 18, 0.6 s


def test_pooled_results_keep_every_alert_and_the_worst() -> None:
    a = BenchResult("models", 100, 10.0, [0.2, 0.3], 0, [("x", 0.2), ("y", 0.3)])
    b = BenchResult("models", 50, 5.0, [0.6], 1, [("z", 0.6)])
    pooled = BenchResult("models", 0, 0.0)
    pooled.add(a)
    pooled.add(b)
    assert (pooled.frames, pooled.seconds, pooled.missed) == (150, 15.0, 1)
    assert sorted(pooled.latencies_s) == [0.2, 0.3, 0.6]
    assert pooled.p(0.95) == 0.6
    assert "max 600 ms over 3 alerts" in pooled.line()
    assert pooled.fps == 10.0
