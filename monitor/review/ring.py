"""The last few frames for snapshots, kept as decoded and shrunk only when a snapshot is taken.

The live :class:`~monitor.pipeline.snapshots.FrameRing` shrinks every frame it keeps, which costs
more than the rest of a review's chain per frame (an INTER_AREA resize of 1080p). In a review the
alert comes on the frame that shows the fault, so a short ring of the frames as decoded (the source
hands out a new array per frame) is enough, and only the frame of a snapshot is shrunk.
"""

from __future__ import annotations

import bisect
import threading
from collections import deque

import cv2
import numpy as np

from monitor.pipeline.snapshots import FrameRing


class LazyFrameRing(FrameRing):
    def __init__(self, size: int = 8, width: int = 960) -> None:
        super().__init__(size=size, width=width)
        self._raw: deque[tuple[float, int, np.ndarray]] = deque(maxlen=size)
        self._raw_lock = threading.Lock()

    def add(self, media_time: float, index: int, image: np.ndarray) -> None:
        with self._raw_lock:
            self._raw.append((media_time, index, image))

    def nearest(self, media_time: float) -> tuple[float, int, np.ndarray] | None:
        with self._raw_lock:
            frames = list(self._raw)
        if not frames:
            return None
        i = bisect.bisect_left([f[0] for f in frames], media_time)
        t, index, image = min(frames[max(0, i - 1):i + 1], key=lambda f: abs(f[0] - media_time))
        h, w = image.shape[:2]
        if w > self.width:
            image = cv2.resize(image, (self.width, round(h * self.width / w)), interpolation=cv2.INTER_AREA)
        return t, index, image
