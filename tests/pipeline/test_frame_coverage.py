"""FrameCoverage: how much of a live camera's frames the chain saw, and when to say it was too little."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.pipeline.frame_coverage import FrameCoverage
from monitor.sources.to_events import SourceEventMapper


def feed(watch: FrameCoverage, indices: list[int], fps: float = 30.0) -> list[str | None]:
    return [watch.update(i, i / fps) for i in indices]


def test_every_frame_seen_is_never_a_problem() -> None:
    watch = FrameCoverage()
    assert set(feed(watch, list(range(3000)))) == {None}
    assert (watch.processed, watch.skipped) == (3000, 0)


def test_a_starved_stretch_starts_a_problem_once_and_clears_once() -> None:
    watch = FrameCoverage(window_s=2.0)
    verdicts = feed(watch, [*range(0, 90), *range(90, 390, 3), *range(390, 600)])
    said = [(i, v) for i, v in enumerate(verdicts) if v is not None]
    assert len(said) == 2
    # said early in the stretch (a few frames short is enough), cleared once a whole window is seen
    assert said[0] == (95, "84% of the frames of the last 2.0 s were perceived: this machine is too slow or "
                           "busy, cards can be missed")
    assert said[1][1] == "ok"
    assert watch.skipped == 200  # two of every three frames from 90 to 390


def test_a_share_between_the_thresholds_does_not_flap() -> None:
    """Nine frames in ten: below back_above (0.95), above lost_below (0.85): no verdict either way."""
    watch = FrameCoverage(window_s=1.0)
    nine_in_ten = [i for i in range(3000) if i % 10 != 9]
    assert set(feed(watch, nine_in_ten)) == {None}


def test_frames_skipped_on_purpose_are_not_missed() -> None:
    """A source handing out every third frame (a review at stride 3) misses nothing."""
    watch = FrameCoverage(window_s=1.0, step=3)
    assert set(feed(watch, list(range(0, 900, 3)))) == {None}
    assert watch.skipped == 0


def test_numbers_starting_again_are_a_new_window_not_a_gap() -> None:
    watch = FrameCoverage(window_s=1.0)
    feed(watch, list(range(100)))
    assert set(feed(watch, list(range(100)))) == {None}  # a looped file, a reconnected camera
    assert watch.skipped == 0


@pytest.mark.parametrize(("kw", "what"), [({"lost_below": 0.96}, "lost_below"), ({"window_s": 0}, "window_s"),
                                          ({"step": 0}, "step"), ({"back_above": 1.5}, "back_above")])
def test_bad_settings_are_refused_by_name(kw: dict[str, float], what: str) -> None:
    with pytest.raises(ValueError, match=what):
        FrameCoverage(**kw)  # type: ignore[arg-type]


@given(st.lists(st.integers(1, 6), min_size=1, max_size=400))
def test_processed_plus_skipped_accounts_for_every_number(steps: list[int]) -> None:
    watch = FrameCoverage(window_s=0.5)
    index = 0
    for s in steps:
        index += s
        watch.update(index, index / 30)
    assert watch.processed + watch.skipped == index - steps[0] + 1


def test_the_device_events_name_the_frames_apart_from_the_camera_itself() -> None:
    mapper = SourceEventMapper("T1", lambda: 12.5)
    lost = mapper.frames_missed("cam1", "40% of the frames ...")
    assert lost is not None and lost.name == "cam1 frames" and lost.device.value == "camera"
    assert lost.media_time == 12.5 and lost.detail.startswith("40%")
    assert mapper.frames_missed("cam1", "again") is None  # one outage, one event
    back = mapper.frames_caught_up("cam1")
    assert back is not None and back.name == "cam1 frames"
    assert mapper.frames_caught_up("cam1") is None
