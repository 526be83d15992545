"""The time a perceiver spends inside its networks (``bench-perception``).

Each model's runtime calls are timed where they run, so a frame's time splits into the networks' own
and the image work around them: whether a frame can meet a budget on a CPU is first a question of
whether its networks alone can.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from monitor.perception.backends import Backend

if TYPE_CHECKING:
    from monitor.perception.pipeline import Perceiver


class TimedBackend:
    """A runtime whose calls add up their wall time in ``ms`` (reset it between frames)."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.name: str = inner.name
        self.path: Path = inner.path
        self.ms = 0.0
        self.calls = 0

    def run(self, x: npt.NDArray[np.float32]) -> list[npt.NDArray[np.float32]]:
        start = time.perf_counter()
        try:
            return self.inner.run(x)
        finally:
            self.ms += (time.perf_counter() - start) * 1000
            self.calls += 1

    def reset(self) -> None:
        self.ms, self.calls = 0.0, 0


def time_networks(perceiver: Perceiver) -> list[TimedBackend]:
    """Put a timer on each network the perceiver runs (its detector, and its card reader's members),
    in place; return the timers."""
    from monitor.perception.identity import CardEnsemble

    holders: list[object] = [perceiver.detector]
    reader = perceiver.classifier
    holders += list(reader.members) if isinstance(reader, CardEnsemble) else [reader]
    timers = []
    for holder in holders:
        inner = getattr(holder, "backend", None)
        if inner is None:
            continue
        timer = inner if isinstance(inner, TimedBackend) else TimedBackend(inner)
        holder.backend = timer  # type: ignore[attr-defined]
        timers.append(timer)
    return timers
