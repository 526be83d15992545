"""Whether the chips in a betting spot were changed: the spot's picture, not the detector's reading.

From overhead a stack's worth cannot be seen (its height is hidden), and the detector's boxes on two
stacks side by side come and go (one box on both, then two, its colour read from whichever stack it
centres on): readings of untouched chips change. Chips that were really changed change the spot's
*picture*: a stack taken away, added or re-stacked lands a few millimetres and degrees from where it
was. So each spot is compared with itself, pixel for pixel: the picture it settles into after
something moved over it (an arm, chips going down) is compared with the pictures it had settled into
before. The same picture again (an arm passed over, or rested there a moment and left) is the same
*version* of the spot; a picture it never had is a new version. Nothing is learned, nothing about
chips assumed: a spot that looks as it did is untouched. A still spot's picture follows slow light.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

KEEP = 32  # pictures remembered per spot
SIDE = 32  # each spot is compared at SIDE x SIDE pixels: a 39 mm chip is still ~8 pixels across


@dataclass(frozen=True, slots=True)
class SpotView:
    """One spot in one frame. ``version``: which of the different pictures the spot has settled into
    it shows (0: the first, numbered as first seen); ``settled``: still now, so ``version`` is current
    (while it moves, the last settled one); ``difference``: how far the current picture is from that
    version's (the share of the spot that changed colour, 0-1)."""

    version: int
    settled: bool
    difference: float


@dataclass(frozen=True, slots=True)
class WatchSettings:
    # Pictures are compared by the share of the spot whose colour moved by more than ``level`` (of
    # 255, largest channel, after a slight blur): the codec re-quantizing a key frame or the light
    # changing moves many pixels a little (no pixel by 30 or more, measured on rendered rounds); a
    # chip taken, added or re-stacked moves a chip's area (7% of a 150 mm spot) by 60-200.
    level: float = 30.0
    still: float = 0.01  # two looks in a row this close (share of the spot): still
    settle_frames: int = 3  # still this many looks in a row: settled
    changed: float = 0.03  # a settled picture this far from every earlier one is a new version
    follow: float = 0.05  # a settled spot's picture moves this share toward each still look (light)
    # a place (a chip's disc) in two pictures with at most this share of it changed looks the same in
    # both: a chip found there lay there in both (an arm resting beside it changes other places)
    alike: float = 0.25


@dataclass
class _Spot:
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 in frame pixels
    mask: npt.NDArray[np.bool_]  # SIDE x SIDE: inside the spot's polygon
    # version -> its picture; the oldest forgotten past ``KEEP`` (a live run goes on for days)
    refs: dict[int, npt.NDArray[np.float32]] = field(default_factory=dict)
    last: npt.NDArray[np.float32] | None = None
    still: int = 0
    version: int = 0


class SpotWatcher:
    """Watches named polygons (betting spots, in frame pixels of a ``size`` frame)."""

    def __init__(self, polygons: Mapping[str, Sequence[tuple[float, float]]], size: tuple[int, int],
                 settings: WatchSettings | None = None) -> None:
        self.s = settings or WatchSettings()
        self.size = size
        self.spots: dict[str, _Spot] = {}
        w, h = size
        for name, pts in polygons.items():
            p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
            x0, y0 = np.floor(p.min(axis=0)).astype(int)
            x1, y1 = np.ceil(p.max(axis=0)).astype(int) + 1
            x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
            if x1 - x0 < 4 or y1 - y0 < 4:
                continue  # out of the picture: nothing to watch
            scaled = (p - (x0, y0)) * (SIDE / (x1 - x0), SIDE / (y1 - y0))
            mask = np.zeros((SIDE, SIDE), np.uint8)
            cv2.fillPoly(mask, [np.round(scaled).astype(np.int32)], 1)
            if mask.any():
                self.spots[name] = _Spot((int(x0), int(y0), int(x1), int(y1)), mask.astype(bool))

    def look(self, image: npt.NDArray[np.uint8], names: Collection[str] | None = None) -> dict[str, SpotView]:
        """Each spot (of ``names``, default all) as this frame shows it (a frame of another size is
        scaled to ``size``). A spot not looked at for a while settles again from its next look."""
        h, w = image.shape[:2]
        sx, sy = w / self.size[0], h / self.size[1]
        out: dict[str, SpotView] = {}
        for name, spot in self.spots.items():
            if names is not None and name not in names:
                continue
            x0, y0, x1, y1 = spot.box
            crop = image[round(y0 * sy):max(round(y1 * sy), round(y0 * sy) + 1),
                         round(x0 * sx):max(round(x1 * sx), round(x0 * sx) + 1)]
            small = cv2.resize(crop, (SIDE, SIDE), interpolation=cv2.INTER_AREA).astype(np.float32)
            # a slight blur: a shift by a fraction of a pixel (the codec) is not a change
            pic = cast(npt.NDArray[np.float32], cv2.GaussianBlur(small, (5, 5), 1.2))
            out[name] = self._update(spot, pic)
        return out

    def versions(self, name: str) -> list[int]:
        """The pictures spot ``name`` has settled into that are remembered (oldest first)."""
        spot = self.spots.get(name)
        return [] if spot is None else sorted(spot.refs)

    def alike_at(self, name: str, center: tuple[float, float], radius: float,
                 frame_size: tuple[int, int]) -> frozenset[int]:
        """The versions of spot ``name`` whose pictures look as its current version's does within
        ``radius`` of ``center`` (pixels of a frame of ``frame_size``): a chip found there now lay there
        in those pictures too. Empty for a spot not settled yet or a place outside it."""
        spot = self.spots.get(name)
        if spot is None or spot.version not in spot.refs:
            return frozenset()
        disc = self._disc(spot, center, radius, frame_size) & spot.mask
        if not disc.any():
            return frozenset()
        now = spot.refs[spot.version]
        return frozenset(v for v, ref in spot.refs.items()
                         if v != spot.version and self._diff(now, ref, disc) <= self.s.alike)

    def changed_away(self, name: str, version: int, discs: Sequence[tuple[tuple[float, float], float]],
                     frame_size: tuple[int, int]) -> float | None:
        """The share of spot ``name`` away from ``discs`` (centre and radius, pixels of a frame of
        ``frame_size``: the chips) that looks otherwise in its current picture than in ``version``'s:
        none where only chips were put down, moved or taken; an arm or a card resting there, much.
        None where either picture is not known or the discs cover the spot."""
        spot = self.spots.get(name)
        if spot is None or spot.version not in spot.refs or version not in spot.refs:
            return None
        away = spot.mask.copy()
        for center, radius in discs:
            away &= ~self._disc(spot, center, radius, frame_size)
        return self._diff(spot.refs[spot.version], spot.refs[version], away) if away.any() else None

    def _disc(self, spot: _Spot, center: tuple[float, float], radius: float,
              frame_size: tuple[int, int]) -> npt.NDArray[np.bool_]:
        x0, y0, x1, y1 = spot.box
        kx, ky = self.size[0] / frame_size[0], self.size[1] / frame_size[1]
        gx, gy = SIDE / (x1 - x0), SIDE / (y1 - y0)
        cx, cy = (center[0] * kx - x0) * gx, (center[1] * ky - y0) * gy
        rx, ry = max(radius * kx * gx, 1.0), max(radius * ky * gy, 1.0)
        yy, xx = np.mgrid[0:SIDE, 0:SIDE]
        return cast(npt.NDArray[np.bool_], ((xx + 0.5 - cx) / rx) ** 2 + ((yy + 0.5 - cy) / ry) ** 2 <= 1.0)

    def _diff(self, a: npt.NDArray[np.float32], b: npt.NDArray[np.float32],
              where: npt.NDArray[np.bool_]) -> float:
        """The share of ``where`` whose colour moved by more than ``level`` from ``a`` to ``b``."""
        d = np.abs(a - b)
        d = d.max(axis=2) if d.ndim == 3 else d
        return float(np.mean(d[where] > self.s.level))

    def _update(self, spot: _Spot, pic: npt.NDArray[np.float32]) -> SpotView:
        if spot.last is not None and self._diff(pic, spot.last, spot.mask) <= self.s.still:
            spot.still += 1
        else:
            spot.still = 1 if spot.last is None else 0
        spot.last = pic
        settled = spot.still >= self.s.settle_frames
        if not spot.refs:
            if settled:
                spot.refs[0] = pic.copy()
            return SpotView(spot.version, settled, 0.0)
        difference = self._diff(pic, spot.refs[spot.version], spot.mask)
        if settled:
            if difference > self.s.changed:
                diffs = {v: self._diff(pic, r, spot.mask) for v, r in spot.refs.items()}
                best = min(diffs, key=lambda v: diffs[v])
                if diffs[best] <= self.s.changed:
                    spot.version, difference = best, diffs[best]  # as it was (an arm rested, left)
                else:
                    spot.version, difference = max(spot.refs) + 1, 0.0
                    spot.refs[spot.version] = pic.copy()
                    if len(spot.refs) > KEEP:
                        del spot.refs[min(spot.refs)]
            ref = spot.refs[spot.version]
            ref += self.s.follow * (pic - ref)
        return SpotView(spot.version, settled, difference)
