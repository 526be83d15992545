"""The value that crosses the sources -> perception boundary: one timestamped frame."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np


@dataclass(frozen=True, slots=True)
class Frame:
    """One captured image with where and when it was seen.

    ``media_time_s`` is the time in the recording (for a file: index / fps; for a
    live source: seconds since the source first started, on the monotonic clock,
    so it never jumps with the wall clock). ``wall_time`` is when it was captured,
    timezone-aware UTC. ``index`` counts frames from the start of the source and
    keeps counting across reconnects.
    """

    image: np.ndarray
    index: int
    media_time_s: float
    wall_time: datetime
    source_id: str

    @property
    def height(self) -> int:
        return int(self.image.shape[0])

    @property
    def width(self) -> int:
        return int(self.image.shape[1])
