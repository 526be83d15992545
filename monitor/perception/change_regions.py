"""Where a camera's picture changed since each part of it was last perceived.

At a card table only the dealer's and the players' hands move; the rest lies still for seconds. A
frame is compared, shrunk and blurred, with a reference picture of what perception last saw in each
place. The changed pixels become regions: the box around each changed blob (its *core*: objects
touching it are seen again) grown by a margin (the part of the frame perceived: larger than any
object that lies still, so an object touching the core lies wholly inside it). Perception then runs
on those regions only and keeps what it found elsewhere (:mod:`monitor.perception.incremental`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 in frame pixels, end exclusive


@dataclass(frozen=True, slots=True)
class Region:
    """A part of the frame to perceive again: ``box`` is perceived, objects touching a ``core`` replaced."""

    box: Box
    cores: tuple[Box, ...]

    def holds(self, x: float, y: float) -> bool:
        return any(x0 <= x < x1 and y0 <= y < y1 for x0, y0, x1, y1 in self.cores)

    def touches(self, box: tuple[float, float, float, float]) -> bool:
        """Whether an object's box (x0, y0, x1, y1) overlaps a core: some of its pixels changed (a
        stack half under an arm that left is read again, not kept as it was read half hidden)."""
        bx0, by0, bx1, by1 = box
        return any(bx0 < x1 and x0 < bx1 and by0 < y1 and y0 < by1 for x0, y0, x1, y1 in self.cores)

    @property
    def area(self) -> int:
        return (self.box[2] - self.box[0]) * (self.box[3] - self.box[1])


@dataclass
class ChangeRegions:
    width: int = 320  # analysis width: a card on a 1080p view of a whole table is still ~8 x 10 pixels
    threshold: int = 18  # change of the largest colour channel that counts (above sensor noise)
    margin: float = 0.05  # of the frame's width (96 px at 1080p): more than a card's or a stack's
    # length, so all of an object touching a core is inside its region
    full_share: float = 0.45  # regions covering more of the frame than this: perceive all of it
    settle_frames: int = 3  # frames a changed place is looked at again after it changed
    _recent: list[tuple[Region, int]] = field(default_factory=list, init=False, repr=False)
    _reference: npt.NDArray[np.uint8] | None = field(default=None, init=False, repr=False)
    _small: npt.NDArray[np.uint8] | None = field(default=None, init=False, repr=False)
    _size: tuple[int, int] = field(default=(1, 1), init=False)  # (w, h) of the frame last given to find
    _reference_size: tuple[int, int] = field(default=(0, 0), init=False)

    def find(self, frame: npt.NDArray[np.uint8]) -> list[Region] | None:
        """Regions that changed since last perceived; ``None``: perceive the whole frame (the first
        frame, a new size, or change over too much of it). Call :meth:`seen` after perceiving."""
        h, w = frame.shape[:2]
        self._small = small = self._shrink(frame)
        ref = self._reference
        if ref is None or self._reference_size != (w, h):
            self._recent = []
            return None
        b, g, r = cv2.split(cv2.absdiff(small, ref))
        # OpenCV takes a scalar here; its stubs know only arrays
        changed = cv2.compare(cv2.max(cv2.max(b, g), r), self.threshold, cv2.CMP_GT)  # type: ignore[call-overload]
        now = self._changed(changed, w, h) if changed.any() else []
        # A place that changed is looked at again for ``settle_frames`` frames after: what was read
        # there as a hand left it (in its shadow, blurred) is read again once it has settled.
        regions = merge_overlapping(now + [reg for reg, _ in self._recent])
        self._recent = [(reg, n - 1) for reg, n in self._recent if n > 1] + [(reg, self.settle_frames)
                                                                            for reg in now]
        if sum(reg.area for reg in regions) > self.full_share * w * h:
            self._recent = []
            return None
        return regions

    def _changed(self, changed: npt.NDArray[np.uint8], w: int, h: int) -> list[Region]:
        """The regions around the changed pixels of the small picture."""
        k = w / changed.shape[1]
        n, _, stats, _ = cv2.connectedComponentsWithStats(cv2.dilate(changed, np.ones((3, 3), np.uint8)))
        pad = round(self.margin * w)
        regions: list[Region] = []
        for x, y, bw, bh, _area in stats[1:n]:
            core = (max(0, int((x - 1) * k)), max(0, int((y - 1) * k)),
                    min(w, int(np.ceil((x + bw + 1) * k))), min(h, int(np.ceil((y + bh + 1) * k))))
            box = (max(0, core[0] - pad), max(0, core[1] - pad), min(w, core[2] + pad), min(h, core[3] + pad))
            regions.append(Region(box, (core,)))
        return merge_overlapping(regions)

    def seen(self, regions: list[Region] | None) -> None:
        """Perception saw the frame last given to :meth:`find` in ``regions`` (``None``: all of it)."""
        if self._small is None:
            return
        if regions is None or self._reference is None:
            self._reference = self._small
            self._reference_size = self._size
            return
        h, w = self._reference.shape[:2]
        k = w / self._size[0]
        for reg in regions:
            x0, y0, x1, y1 = reg.box
            sx0, sy0 = int(x0 * k), int(y0 * k)
            sx1, sy1 = min(w, int(np.ceil(x1 * k))), min(h, int(np.ceil(y1 * k)))
            self._reference[sy0:sy1, sx0:sx1] = self._small[sy0:sy1, sx0:sx1]

    def reset(self) -> None:
        self._reference = self._small = None
        self._recent = []
        self._reference_size = (0, 0)

    def _shrink(self, frame: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
        colour = frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        h, w = colour.shape[:2]
        self._size = (w, h)
        size = (self.width, max(1, round(h * self.width / w)))
        if w > 2 * size[0]:
            # a cheap bilinear step to twice the size first: INTER_AREA straight from 1080p costs ~10x more
            colour = cv2.resize(colour, (2 * size[0], 2 * size[1]), interpolation=cv2.INTER_LINEAR)
        small = cv2.resize(colour, size, interpolation=cv2.INTER_AREA)
        return np.asarray(cv2.GaussianBlur(small, (5, 5), 0), dtype=np.uint8)



def merge_overlapping(regions: list[Region]) -> list[Region]:
    """Regions whose boxes overlap become one (the box around both, both cores): each part of the
    frame is perceived once."""
    out = list(regions)
    merged = True
    while merged:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i].box, out[j].box
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    box = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    out[i] = Region(box, out[i].cores + out[j].cores)
                    del out[j]
                    merged = True
                    break
            if merged:
                break
    return out
