"""A live camera that delivers frames but shows nothing usable: frozen or blind, and back again."""

from __future__ import annotations

import threading
import time

import numpy as np

from monitor.events.schema import DeviceLost, DeviceRecovered
from monitor.sources import VideoSource
from monitor.sources.backend import SourceKind, SourceSpec
from monitor.sources.status import PictureProblem, PictureRestored, SourceStatus
from monitor.sources.to_events import SourceEventMapper
from monitor.sources.video_source import SourceOptions

RNG = np.random.default_rng(0)
TEXTURE = RNG.integers(0, 255, (96, 128, 3), dtype=np.uint8)


class ScriptedCamera:
    """Plays phases of (kind, frames): 'live' (changing), 'frozen' (one picture) or 'blind' (uniform)."""

    def __init__(self, phases: list[tuple[str, int]]) -> None:
        self.frames = [kind for kind, n in phases for _ in range(n)]
        self.i = 0
        self.done = threading.Event()

    def open(self) -> None:
        pass

    def read(self) -> np.ndarray | None:
        if self.i >= len(self.frames):
            self.done.set()
            self.i += 1  # keep delivering changing (healthy) frames until stopped
            time.sleep(0.01)
            return np.roll(TEXTURE, self.i, axis=1)
        kind = self.frames[self.i]
        self.i += 1
        time.sleep(0.002)
        if kind == "frozen":
            return TEXTURE.copy()
        if kind == "blind":
            return np.full(TEXTURE.shape, self.i % 2, np.uint8)  # black, with a flicker of one level
        return np.roll(TEXTURE, self.i, axis=1)

    def close(self) -> None:
        pass

    fps = None
    frame_count = None


def run(phases: list[tuple[str, int]]) -> list[SourceStatus]:
    camera = ScriptedCamera(phases)
    events: list[SourceStatus] = []
    options = SourceOptions(frozen_after_s=0.2, blind_after_s=0.2)
    source = VideoSource(SourceSpec(SourceKind.USB, 0), options, backend_factory=lambda: camera,
                         status_handlers=[events.append])
    with source:
        assert camera.done.wait(30)
    return events


def test_frozen_picture_is_reported_and_cleared() -> None:
    events = run([("live", 20), ("frozen", 250), ("live", 20)])
    problems = [e for e in events if isinstance(e, PictureProblem)]
    restored = [e for e in events if isinstance(e, PictureRestored)]
    assert len(problems) == 1 and problems[0].problem.startswith("frozen") and problems[0].is_fault
    assert len(restored) == 1 and restored[0].duration_s > 0
    mapper = SourceEventMapper("t1", media_now=lambda: 0.0)
    assert isinstance(mapper.from_source(problems[0]), DeviceLost)
    assert isinstance(mapper.from_source(restored[0]), DeviceRecovered)


def test_blind_picture_is_reported() -> None:
    events = run([("live", 20), ("blind", 250), ("live", 20)])
    problems = [e for e in events if isinstance(e, PictureProblem)]
    assert len(problems) == 1 and problems[0].problem.startswith("blind")
    assert "lens covered" in problems[0].message
    assert any(isinstance(e, PictureRestored) for e in events)


def test_a_changing_picture_is_healthy() -> None:
    events = run([("live", 300)])
    assert not [e for e in events if isinstance(e, PictureProblem | PictureRestored)]
