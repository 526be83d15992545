"""Reuse a card's reading while the card has not changed: the classifier runs on new or changed cards.

A table holds up to 53 cards and most of them lie still for seconds; the classifier (with its
180-degree test-time augmentation) is most of a frame's perception cost. A card whose crop, cut from
the full-resolution frame, is where it was in the previous perceived frame and looks the same (a
small thumbnail of the rectified crop within ``max_diff`` grey levels on average) keeps its reading.
A card turned over, swapped, or moved is read again, and every reading is refreshed after
``max_reuse`` frames so an error cannot live on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from monitor.perception.identity import Identity

THUMB = (12, 16)  # (w, h): coarse enough to ignore a pixel of corner jitter, fine enough to see a flip


@dataclass(slots=True)
class _Entry:
    center: npt.NDArray[np.float64]
    thumb: npt.NDArray[np.int16]
    identity: Identity
    uses: int = 0


def thumbnail(crop: npt.NDArray[np.uint8]) -> npt.NDArray[np.int16]:
    return cv2.resize(crop, THUMB, interpolation=cv2.INTER_AREA).astype(np.int16)


class IdentityCache:
    def __init__(self, max_shift_px: float = 3.0, max_diff: float = 4.0, max_reuse: int = 15) -> None:
        self.max_shift_px = max_shift_px
        self.max_diff = max_diff
        self.max_reuse = max_reuse
        self._last: list[_Entry] = []
        self.hits = 0
        self.misses = 0

    def lookup(self, corners: list[npt.NDArray[np.float64]], crops: list[npt.NDArray[np.uint8]]
               ) -> tuple[list[Identity | None], list[int | None], list[npt.NDArray[np.int16]]]:
        """For each card: the cached reading if it still holds (else None), which cache entry gave it,
        and the card's thumbnail (for :meth:`store`)."""
        thumbs = [thumbnail(c) for c in crops]
        found: list[Identity | None] = [None] * len(crops)
        matched: list[int | None] = [None] * len(crops)
        if self._last and crops:
            old = np.array([e.center for e in self._last])
            used: set[int] = set()
            for i, (q, th) in enumerate(zip(corners, thumbs, strict=True)):
                d = np.hypot(*(old - q.mean(axis=0)).T)
                j = int(np.argmin(d))
                e = self._last[j]
                if (d[j] <= self.max_shift_px and j not in used and e.uses < self.max_reuse
                        and float(np.abs(th - e.thumb).mean()) <= self.max_diff):
                    used.add(j)
                    found[i], matched[i] = e.identity, j
        return found, matched, thumbs

    def store(self, corners: list[npt.NDArray[np.float64]], thumbs: list[npt.NDArray[np.int16]],
              identities: list[Identity], matched: list[int | None],
              keep: Callable[[float, float], bool] | None = None) -> None:
        """This frame's readings become the cache (cards gone from view drop out). ``keep``: where
        the frame was not looked at, so the readings of cards centred there stay."""
        used = {j for j in matched if j is not None}
        kept = [] if keep is None else [e for j, e in enumerate(self._last)
                                        if j not in used and keep(float(e.center[0]), float(e.center[1]))]
        self._last = [
            _Entry(q.mean(axis=0), th, ident, 0 if j is None else self._last[j].uses + 1)
            for q, th, ident, j in zip(corners, thumbs, identities, matched, strict=True)
        ] + kept
        n = sum(j is not None for j in matched)
        self.hits += n
        self.misses += len(matched) - n
