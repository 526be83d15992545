"""Perception over a video's frames in order: whole frames against frames perceived where they changed.

``table-monitor bench-perception --video FILE`` runs the first ``frames`` frames through the same
models twice in one process (whole frames, then changed regions), so the ratio is meaningful on a
shared machine, and counts what each found (cards, named cards, chips, hands) to show the speed is
not bought with missed objects.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from monitor.perception.detections import Detections
from monitor.perception.incremental import IncrementalPerceiver
from monitor.perception.pipeline import Perceiver


@dataclass
class VideoRun:
    mode: str
    ms: list[float] = field(default_factory=list)
    cpu_ms: float = 0.0
    found: dict[str, int] = field(default_factory=dict)
    whole: int = 0
    regions: int = 0
    reused: int = 0

    def row(self) -> dict[str, float | int | str]:
        return {"mode": self.mode, "frames": len(self.ms), "mean_ms": statistics.fmean(self.ms),
                "median_ms": statistics.median(self.ms), "p90_ms": float(np.percentile(self.ms, 90)),
                "cpu_ms_per_frame": self.cpu_ms, "whole": self.whole, "regions": self.regions,
                "reused": self.reused, **self.found}


def read_frames(video: Path, frames: int) -> list[np.ndarray]:
    cap = cv2.VideoCapture(str(video))
    if not cap.isOpened():
        raise ValueError(f"{video}: cannot be opened as a video")
    out: list[np.ndarray] = []
    while len(out) < frames:
        ok, frame = cap.read()
        if not ok:
            break
        out.append(frame)
    cap.release()
    if not out:
        raise ValueError(f"{video}: no frame could be decoded")
    return out


def _count(d: Detections, found: dict[str, int]) -> None:
    found["cards"] = found.get("cards", 0) + len(d.cards)
    found["named"] = found.get("named", 0) + sum(1 for c in d.cards if c.is_known_card)
    for kind in ("chip", "hand"):
        found[kind + "s"] = found.get(kind + "s", 0) + len(d.of_kind(kind))


def run_video(models: Path, backend: str, threads: int, frames: list[np.ndarray],
              progress: Callable[[str, int], None] | None = None) -> list[VideoRun]:
    """Whole frames, then changed regions, each with fresh models (no identity carried over)."""
    runs = []
    for mode in ("whole frames", "changed regions"):
        perceiver = Perceiver.from_models(models, backend, threads, video=True)
        inc = IncrementalPerceiver(perceiver) if mode == "changed regions" else None
        run = VideoRun(mode)
        perceiver.perceive(frames[0])  # warm-up: first runs compile kernels
        perceiver.cache = type(perceiver.cache)() if perceiver.cache is not None else None
        cpu0 = time.process_time()
        for i, frame in enumerate(frames):
            t = time.perf_counter()
            d = perceiver.perceive(frame) if inc is None else inc.perceive(frame)
            run.ms.append((time.perf_counter() - t) * 1000)
            _count(d, run.found)
            if progress is not None:
                progress(mode, i + 1)
        run.cpu_ms = (time.process_time() - cpu0) * 1000 / len(frames)
        if inc is None:
            run.whole = len(frames)
        else:
            run.whole, run.regions, run.reused = inc.full, inc.partial, inc.reused
        runs.append(run)
    return runs
