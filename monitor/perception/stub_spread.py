"""Count the cards of the stub spread on the table, from the frame itself.

After the 7 x 7 deal the dealer spreads the stub so it can be counted (seed ``000`` rule 55: it must be
four cards). Overhead, a spread of face-down cards is one block of card backs: a detector boxes it as
one or two cards, and tracks cannot count what they cannot separate. What separates the cards is what
a person counts too: the edge each card lays across the one under it, a straight line across the whole
height of the row.

The stub zone is cut from the frame in table millimetres (``px_per_mm``), so a card has its real size
whatever the camera; the cards are the block that is not felt; the row is turned to lie along x; and
the column profile of the block's middle is searched for edges present in all three horizontal bands
(a back's own pattern does not line up across the row's whole height). A count is only given when it
is consistent: the block is as tall as a card, one end strip is a whole card (the top card) and the
strips under it are of a size (a missed edge would leave one strip twice as wide). Otherwise the spread
is *not countable* and the reason says why: surveillance is better told nothing than a wrong count.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from monitor.calibration import TableCalibration
from monitor.geometry.shapes import Polygon
from monitor.perception.imageio import as_image


@dataclass(frozen=True)
class SpreadSettings:
    px_per_mm: float = 4.0
    card_mm: tuple[float, float] = (63.0, 88.0)  # poker size; a room with bridge-size cards says so
    margin_mm: float = 25.0  # a spread may overhang its zone (five cards are wider than four)
    felt_distance: float = 28.0  # Lab units from the felt's colour: a card, not felt
    size_tol_mm: float = 10.0  # the block's height, the top card's width
    # the least of a card seen under the next one: a deck's side seen at an angle shows as a strip of
    # up to ~11 mm beside its top card (the sample recording at 720p), and a stub spread for counting
    # shows more of each card
    min_strip_mm: float = 13.0
    edge_min: float = 1.5  # grey levels: the least edge, in a profile averaged over a band
    edge_snr: float = 3.0  # and that many times the profile's median (its texture)
    edge_share: float = 0.4  # and that share of the strongest: the cards of one deck edge alike
    uneven: float = 1.6  # the widest strip under the top card over the narrowest: not countable past it
    outline_mm: float = 5.0  # either side of the zone's boundary, where a layout paints its outline
    outline_open_mm: float = 15.0  # there only a card survives (a painted line is 2-4 mm)


@dataclass(frozen=True)
class Spread:
    """``n`` cards in the spread, or None (not countable, ``why`` says why)."""

    n: int | None
    why: str
    length_mm: float = 0.0
    edges_mm: tuple[float, ...] = ()


class StubSpreadCounter:
    """Counts the spread in one zone of one camera's frames."""

    def __init__(self, calibration: TableCalibration, zone: Polygon,
                 settings: SpreadSettings | None = None) -> None:
        self.s = s = settings or SpreadSettings()
        pts = zone.array
        x0, y0 = pts.min(axis=0) - s.margin_mm
        x1, y1 = pts.max(axis=0) + s.margin_mm
        w, h = round(float(x1 - x0) * s.px_per_mm), round(float(y1 - y0) * s.px_per_mm)
        # where each crop pixel lies in the frame, through the lens if there is one (built once)
        gx, gy = np.meshgrid(x0 + (np.arange(w) + 0.5) / s.px_per_mm, y0 + (np.arange(h) + 0.5) / s.px_per_mm)
        mm = np.column_stack([gx.ravel(), gy.ravel()]).astype(np.float64)
        px = calibration.table_to_image(mm).astype(np.float32)
        self._map_x = px[:, 0].reshape(h, w)
        self._map_y = px[:, 1].reshape(h, w)
        self._size = calibration.image_size
        inside = np.zeros((h, w), np.uint8)
        poly = np.round((pts - [x0, y0]) * s.px_per_mm).astype(np.int32)
        cv2.fillPoly(inside, [poly], 1)
        # the felt's colour is read around the zone, where cards rarely lie (at half scale)
        ring = cv2.dilate(inside, np.ones((int(s.margin_mm * s.px_per_mm),) * 2, np.uint8))
        half = (w // 2, h // 2)
        self._zone_small = cv2.resize(inside, half, interpolation=cv2.INTER_NEAREST).astype(bool)
        ring_small = cv2.resize(ring, half, interpolation=cv2.INTER_NEAREST).astype(bool)
        self._around_small = ring_small & ~self._zone_small
        # the zone's boundary at half scale: a painted outline there bridges a card lying close to it
        # into the block (a 5 mm opening keeps a bridge of blurred pixels), so there the opening is wider
        band = np.zeros((half[1], half[0]), np.uint8)
        cv2.polylines(band, [np.round(poly / 2).astype(np.int32)], True, 1,
                      thickness=max(1, round(s.outline_mm * s.px_per_mm)))
        self._outline_small = band.astype(bool)

    def crop(self, image: NDArray[np.uint8]) -> NDArray[np.uint8]:
        """The zone and its margin, in table millimetres (a frame of another size than the
        calibration's is taken as the same view, scaled)."""
        sx, sy = image.shape[1] / self._size[0], image.shape[0] / self._size[1]
        mx, my = self._map_x, self._map_y
        if (sx, sy) != (1.0, 1.0):
            mx, my = mx * sx, my * sy
        return np.asarray(cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
                          np.uint8)

    def count(self, image: NDArray[np.uint8]) -> Spread:
        return self.count_crop(self.crop(image))

    def count_crop(self, crop: NDArray[np.uint8]) -> Spread:
        s = self.s
        # the cards' outline is found at half the scale (a quarter of the work); the edges at full
        small = cv2.resize(crop, (crop.shape[1] // 2, crop.shape[0] // 2), interpolation=cv2.INTER_AREA)
        lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
        felt = np.median(lab[self._around_small], axis=0)
        cards = (np.linalg.norm(lab - felt, axis=2) > s.felt_distance).astype(np.uint8)
        k = max(3, round(2.5 * s.px_per_mm) | 1)  # 5 mm: drops the zone's painted outline (2-4 mm seen)
        opened = cv2.morphologyEx(cards, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        wide = max(3, round(s.outline_open_mm * s.px_per_mm / 2) | 1)
        on_line = cv2.morphologyEx(cards, cv2.MORPH_OPEN,
                                   cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (wide, wide)))
        cards = np.where(self._outline_small, on_line, opened).astype(np.uint8)
        n_comp, labels, _stats, _ = cv2.connectedComponentsWithStats(cards)
        if n_comp < 2:
            return Spread(None, "no cards in the stub zone")
        overlap = np.bincount(labels[self._zone_small], minlength=n_comp)[1:]
        best = 1 + int(np.argmax(overlap))
        if overlap[best - 1] * 4 < 0.5 * s.card_mm[0] * s.card_mm[1] * s.px_per_mm**2:
            return Spread(None, "no cards in the stub zone")
        block_small = (labels == best).astype(np.uint8)
        contours, _ = cv2.findContours(block_small, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(max(contours, key=cv2.contourArea).astype(np.float32) * 2)
        block = cv2.resize(block_small, (crop.shape[1], crop.shape[0]), interpolation=cv2.INTER_NEAREST)
        grey = as_image(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY))
        # a row lies along the rectangle's long side; two cards spread 25 mm are as wide as long,
        # so where both sides could be the row, both are tried
        tries = [(rw, rh, angle), (rh, rw, angle + 90.0)]
        tries = [t for t in tries if t[0] >= t[1] - s.size_tol_mm]
        results = [self._count_row(grey, block, (cx, cy), *t) for t in tries]
        counted = {r.n for r in results if r.n is not None}
        if len(counted) == 1:
            return next(r for r in results if r.n is not None)
        if len(counted) > 1:
            return Spread(None, "a row either way, counted differently", max(r.length_mm for r in results))
        return results[0]

    def _count_row(self, grey: NDArray[np.uint8], block: NDArray[np.uint8], centre: tuple[float, float],
                   rw: float, rh: float, angle: float) -> Spread:
        s = self.s
        cx, cy = centre
        long_mm, short_mm = rw / s.px_per_mm, rh / s.px_per_mm
        cw, ch = s.card_mm
        if abs(short_mm - ch) <= s.size_tol_mm:
            along = cw  # cards upright, spread sideways
        elif abs(short_mm - cw) <= s.size_tol_mm:
            along = ch  # cards across, spread along their length
        else:
            return Spread(None, f"not a row of cards ({long_mm:.0f} x {short_mm:.0f} mm)", long_mm)
        if long_mm < along + s.min_strip_mm:
            return Spread(None, "squared, not spread", long_mm)
        turn = cv2.getRotationMatrix2D((cx, cy), angle, 1.0)
        size = (grey.shape[1], grey.shape[0])
        flat = cv2.warpAffine(grey, turn, size, flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        upright = as_image(cv2.warpAffine(block, turn, size, flags=cv2.INTER_NEAREST))
        left, right = round(cx - rw / 2), round(cx + rw / 2)
        top, bottom = round(cy - rh / 2), round(cy + rh / 2)
        if left < 0 or right > flat.shape[1] or top < 0 or bottom > flat.shape[0]:
            return Spread(None, "the spread runs out of the camera's view of the zone", long_mm)
        found = self._edge_response(flat[top:bottom, left:right], upright[top:bottom, left:right])
        if found is None:
            return Spread(None, "the row's middle is not all cards", long_mm)
        start, response = found
        edges = [start + e for e in self._edges(response)]
        return self._judge(long_mm, along, [e / s.px_per_mm for e in edges])

    def _edge_response(self, grey: NDArray[np.float32],
                       cards: NDArray[np.uint8]) -> tuple[int, NDArray[np.float64]] | None:
        """Per column of the row's middle (from ``start``), how much of an edge all three bands show.

        Only the columns that are card in every band are profiled: at the row's ends the cards'
        slight turns leave felt in some bands, and felt beside a card is the strongest edge of all."""
        s = self.s
        fine = 0.75 * s.px_per_mm
        slack = round(1.5 * s.px_per_mm)  # a card turned 2-3 degrees moves its edge band to band
        height = grey.shape[0]
        rows = [(round(height * (0.15 + 0.25 * b)), round(height * (0.35 + 0.25 * b)))
                for b in range(3)]
        full = np.all([cards[r0:r1].mean(axis=0) >= 0.98 for r0, r1 in rows], axis=0)
        cols = np.flatnonzero(full)
        if cols.size < 2 * s.min_strip_mm * s.px_per_mm:
            return None
        start, stop = int(cols[0]), int(cols[-1]) + 1
        half = round(4.0 * s.px_per_mm)
        bands = []
        for r0, r1 in rows:
            prof = grey[r0:r1, start:stop].mean(axis=0).astype(np.float64)
            sharp = cv2.GaussianBlur(prof.reshape(1, -1), (0, 0), fine).ravel()
            # the baseline is a running median: a thin edge line leaves it alone (no side lobes
            # beside a strong line, no bleed of the row's ends into it)
            padded = np.pad(prof, half, mode="edge")
            base = np.median(np.lib.stride_tricks.sliding_window_view(padded, 2 * half + 1), axis=1)
            r = np.abs(sharp - base).reshape(1, -1)
            bands.append(cv2.dilate(r, np.ones((1, 2 * slack + 1))).ravel())
        return start, np.asarray(np.min(bands, axis=0), np.float64)

    def _edges(self, response: NDArray[np.float64]) -> list[float]:
        s = self.s
        guard = round(s.min_strip_mm * s.px_per_mm)
        inner = response[guard:len(response) - guard]
        if inner.size == 0:
            return []
        floor = max(s.edge_min, s.edge_snr * float(np.median(inner)), s.edge_share * float(inner.max()))
        edges: list[float] = []
        # strongest first, each taking its neighbourhood (an edge's response is a few mm wide)
        order = np.argsort(inner)[::-1]
        for i in order:
            if inner[i] < floor:
                break
            x = float(i + guard)
            if all(abs(x - e) >= guard for e in edges):
                edges.append(x)
        return sorted(edges)

    def _judge(self, long_mm: float, along: float, edges: list[float]) -> Spread:
        s = self.s
        bounds = [0.0, *edges, long_mm]
        strips = np.diff(bounds)
        n = len(edges) + 1
        top_last = abs(strips[-1] - along) <= s.size_tol_mm
        top_first = abs(strips[0] - along) <= s.size_tol_mm
        if not (top_last or top_first):
            return Spread(None, f"no whole card at either end of {n} strips", long_mm, tuple(edges))
        under = strips[:-1] if top_last else strips[1:]
        if len(under) and (under.min() < s.min_strip_mm or under.max() > along - s.min_strip_mm):
            return Spread(None, "a strip too narrow or too wide for a card under another", long_mm,
                          tuple(edges))
        if len(under) >= 2 and under.max() > s.uneven * under.min():
            # a strip twice another hides a missed edge; one half another, a crease or a shadow
            return Spread(None, "uneven strips: an edge may be missed or made up", long_mm, tuple(edges))
        return Spread(n, "counted", long_mm, tuple(edges))
