"""Skipping still spans of a recording: a cheap motion gate in front of the expensive stages.

Review (issue 9) runs the live pipeline over hours of video in which the table is often
still. The gate compares each frame, shrunk and blurred, with the last frame it *kept*
(so slow changes add up instead of hiding under a per-frame threshold) and lets a frame
through when enough pixels changed, for a short while after motion stops (so the settled
result is seen), and at least every ``keepalive_s`` of media time (so nothing is blind for
long).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from monitor.sources.frame import Frame


@dataclass
class MotionGate:
    width: int = 320  # analysis width: a card over a 2.4 m table is still ~8 x 10 pixels
    threshold: int = 18  # grey-level change that counts a pixel as changed (above sensor noise)
    min_changed: float = 0.0005  # share of changed pixels that counts as motion (~30 px: a card is ~80)
    settle_s: float = 1.0  # keep frames this long after the last motion (GateSettings.settle_s)
    keepalive_s: float = 2.0  # keep a frame at least this often
    kept: int = field(default=0, init=False)
    skipped: int = field(default=0, init=False)
    _reference: NDArray[np.uint8] | None = field(default=None, init=False, repr=False)
    _last_kept_s: float = field(default=float("-inf"), init=False)
    _last_motion_s: float = field(default=float("-inf"), init=False)

    def changed_share(self, image: NDArray[np.uint8]) -> float:
        """Share of pixels that differ from the reference (1.0 before there is one)."""
        return self._share(self._small(image))

    def _share(self, small: NDArray[np.uint8]) -> float:
        if self._reference is None or self._reference.shape != small.shape:
            return 1.0
        import cv2

        # the largest change over the colour channels: a red card back on green felt has about the
        # felt's brightness, so a grey-level difference would not see it
        b, g, r = cv2.split(cv2.absdiff(small, self._reference))
        diff = cv2.max(cv2.max(b, g), r)
        return float(np.count_nonzero(diff > self.threshold) / diff.size)

    def keep(self, frame: Frame) -> bool:
        """Whether this frame should go through the pipeline."""
        t = frame.media_time_s
        first = self._reference is None
        small = self._small(frame.image)
        moving = not first and self._share(small) >= self.min_changed
        if moving:
            self._last_motion_s = t
        settling = t - self._last_motion_s <= self.settle_s
        keep = first or moving or settling or t - self._last_kept_s >= self.keepalive_s
        if keep:
            self.kept += 1
            self._last_kept_s = t
            self._reference = small
        else:
            self.skipped += 1
        return keep

    def _small(self, image: NDArray[np.uint8]) -> NDArray[np.uint8]:
        import cv2

        colour = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        h, w = colour.shape[:2]
        size = (self.width, max(1, round(h * self.width / w)))
        if w > 2 * size[0]:
            # a cheap bilinear step to twice the size first: INTER_AREA straight from 1080p costs ~10x more
            colour = cv2.resize(colour, (2 * size[0], 2 * size[1]), interpolation=cv2.INTER_LINEAR)
        small = cv2.resize(colour, size, interpolation=cv2.INTER_AREA)
        return np.asarray(cv2.GaussianBlur(small, (5, 5), 0), dtype=np.uint8)


def gated(frames: Iterable[Frame], gate: MotionGate | None = None) -> Iterator[Frame]:
    """The frames a ``MotionGate`` keeps; the gate's counters tell how many were skipped."""
    g = gate or MotionGate()
    for frame in frames:
        if g.keep(frame):
            yield frame
