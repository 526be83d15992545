"""The chips in a betting spot, found as circles in the spot's full-resolution picture.

At 1080p a whole-table view shows a 39 mm chip about 28 pixels across; the detector, which sees the
frame shrunk to 512 pixels wide (7 pixels a chip), boxes a spread of three or four stacks as one or
two and reads the colour of whichever it centres on, so bets came out short or flickered from frame
to frame. Here the betting spot (known from the calibration, with the chip's size in pixels there) is
cut from the full frame and its chips found as circles of that size (OpenCV's Hough transform); each
circle's denomination is read by :func:`monitor.perception.chips.chip_denomination`, and a circle whose
ring matches no palette colour well (the felt between chips, a painted line) is no chip. Each stack's
top is found; its height is not seen from above (the count is left unknown: a lower bound).

Measured by ``table-monitor bench-spot-chips`` on six rendered rounds at 1080p (the held-out table,
every 50th frame, 961 stacks in view): recall 0.966, precision 0.999, denomination right 0.980
(the misreads: $5 read as $1). docs/benchmarks.md has the run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np
import numpy.typing as npt

from monitor.calibration import TableCalibration
from monitor.calibration.zones import zone_kind
from monitor.perception.chips import CHIP_DIAMETER_MM, _lab, chip_denomination
from monitor.perception.detections import Detection
from monitor.perception.imageio import as_image


@dataclass(frozen=True, slots=True)
class SpotChipSettings:
    # Hough accumulator votes a circle needs: fewer finds circles in the felt between chips (which the
    # colour check then drops), more misses stacks whose rim the edge spots break up
    votes: float = 10.0
    edge: float = 100.0  # Canny's upper threshold inside the Hough transform
    radius: tuple[float, float] = (0.85, 1.2)  # the circles' radius range, of the chip's expected radius
    # a stack's centres lie a diameter apart; 0.8 of it, as the renderer's and real stacks touch
    spacing: float = 1.6
    # A circle read as the denomination the felt itself would read as (green felt, a green $25 chip)
    # may be a painted seat number or the felt between chips: it is a chip only if its centre is
    # lighter than its ring by this much (the printed inlay; 40-130 on the renderer's $25 chips, 0-36
    # on painted numerals). Lightness on OpenCV's 0-255 scale.
    inlay_lighter: float = 40.0
    # ... and only if its ring is not mostly the felt itself: a painted numeral inside a printed
    # betting circle (a yellow "9" on green) passes the inlay test, but the circle round it is felt
    # (0.42-0.55 of the ring within ``felt_near`` of the felt's colour, measured on the bench
    # recording's empty spots; real chips read as the felt's colour 0.24 at most, on 14 rendered rounds)
    felt_ring: float = 0.35
    felt_near: float = 12.0  # Lab distance (OpenCV's 0-255 scale) of a pixel to the felt's median colour
    # a detector's chip in a spot where no circle passed, whose ring (a chip's size round its box's
    # centre) is this share felt, is the felt (a painted numeral): measured over 20 rendered rounds
    # with detector_v8, the 183 true such chips 0.35 at most (0.02 for nine in ten), the 19 false 0.46-0.69
    detector_felt_ring: float = 0.4
    # weighted Lab distance of the ring's voters to their palette colour: chips match within ~25
    # (a few shadowed $5 chips at ~30 are lost), the teal felt read as the nearest (green, $25) colour
    # lies at 35-50, a painted orange seat number read as a red $5 chip at 30
    max_distance: float = 25.0
    min_radius_px: float = 12.0  # a chip's radius in the frame below which it is not looked for


@dataclass(slots=True)
class _Spot:
    polygon: npt.NDArray[np.float32]  # frame pixels
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 with a margin: a chip on the spot's edge is whole
    radius: float  # a chip's radius in pixels there


class SpotChipFinder:
    """Finds the chip stacks in named spots of frames of one camera."""


    def __init__(self, polygons: Mapping[str, Sequence[tuple[float, float]]], radii: Mapping[str, float],
                 size: tuple[int, int], settings: SpotChipSettings | None = None) -> None:
        self.s = settings or SpotChipSettings()
        self.size = size
        self.spots: dict[str, _Spot] = {}
        w, h = size
        for name, pts in polygons.items():
            r = float(radii[name])
            if not r > 2.0:
                continue  # a chip of a few pixels: nothing to find
            p = np.asarray(pts, dtype=np.float32).reshape(-1, 2)
            pad = math.ceil(1.5 * r)
            x0, y0 = (np.floor(p.min(axis=0)) - pad).astype(int)
            x1, y1 = (np.ceil(p.max(axis=0)) + pad + 1).astype(int)
            box = (max(0, int(x0)), max(0, int(y0)), min(w, int(x1)), min(h, int(y1)))
            if box[2] - box[0] > 2 * r and box[3] - box[1] > 2 * r:
                self.spots[name] = _Spot(p, box, r)

    @classmethod
    def for_table(cls, calibration: TableCalibration, settings: SpotChipSettings | None = None
                  ) -> SpotChipFinder:
        """The betting spots of a table file, in its camera's pixels, with a chip's size at each."""
        bets = {name: poly for name, poly in calibration.zones.items() if zone_kind(name) == "bet"}
        return cls({name: [(float(x), float(y)) for x, y in calibration.table_to_image(poly.array)]
                    for name, poly in bets.items()},
                   {name: chip_radius_px(calibration, poly.center) for name, poly in bets.items()},
                   calibration.image_size, settings)

    def readable(self, image: npt.NDArray[np.uint8]) -> bool:
        """Chips in this frame are large enough to be found: a chip 20 pixels across (a 720p view of
        the whole table) has a ring two pixels wide between its inlay and its edge spots, too thin to
        read its colour (on the 720p sample, $5 and $25 chips read as $1, a $25 on green felt was
        not found). There the detector's chips stand."""
        k = image.shape[1] / self.size[0]
        return bool(self.spots) and min(sp.radius for sp in self.spots.values()) * k >= self.s.min_radius_px

    def felt_at(self, image: npt.NDArray[np.uint8], name: str, center: tuple[float, float]) -> bool:
        """Whether a chip's ring round ``center`` (frame pixels) in spot ``name`` is the felt itself: a
        detector's chip there, where no circle passed, is then a painted mark (a seat's numeral)."""
        spot = self.spots.get(name)
        h, w = image.shape[:2]
        if spot is None or (w, h) != self.size:
            return False  # (a frame of another size: the detector's chip is kept, as before)
        x0, y0, x1, y1 = spot.box
        crop = np.ascontiguousarray(image[y0:y1, x0:x1])
        felt = _lab(np.median(crop.reshape(-1, 3), axis=0).astype(np.uint8)[None])[0]
        share = _ring_felt_share(crop, felt, center[0] - x0, center[1] - y0, spot.radius, self.s.felt_near)
        return share >= self.s.detector_felt_ring

    def find(self, image: npt.NDArray[np.uint8], name: str) -> list[Detection]:
        """The chip stacks whose centres lie in spot ``name`` of ``image``, each a square box round the
        circle, with its denomination and no count. A frame of another size than ``size`` (a camera
        recording at 720p on a 1080p calibration) has the spots scaled to it."""
        h, w = image.shape[:2]
        if (w, h) != self.size:
            # found on the frame brought to the calibration's size (where the settings were measured)
            sw, sh = self.size
            if abs(w / sw - h / sh) > 0.01:
                raise ValueError(f"frame is {w}x{h}, the spots were placed on a {sw}x{sh} frame of "
                                 "another shape")
            k = w / sw
            native = as_image(cv2.resize(image, self.size,
                                         interpolation=cv2.INTER_AREA if k > 1 else cv2.INTER_CUBIC))
            return [replace(d, corners=tuple((x * k, y * k) for x, y in d.corners))  # type: ignore[arg-type]
                    for d in self.find(native, name)]
        spot = self.spots.get(name)
        if spot is None:
            return []
        x0, y0, x1, y1 = spot.box
        gray = cv2.cvtColor(np.ascontiguousarray(image[y0:y1, x0:x1]), cv2.COLOR_BGR2GRAY)
        gray = cv2.GaussianBlur(gray, (3, 3), 0.8)  # the codec's blocks are no edges
        r = spot.radius
        circles = cv2.HoughCircles(gray, cv2.HOUGH_GRADIENT, dp=1.0, minDist=self.s.spacing * r,
                                   param1=self.s.edge, param2=self.s.votes,
                                   minRadius=int(self.s.radius[0] * r),
                                   maxRadius=math.ceil(self.s.radius[1] * r))
        out: list[Detection] = []
        if circles is None:
            return out
        crop = np.ascontiguousarray(image[y0:y1, x0:x1])
        # most of a spot is felt, even with four stacks on it: what would the felt read as?
        felt = np.median(crop.reshape(-1, 3), axis=0).astype(np.uint8)
        felt_reads = chip_denomination(np.full((9, 9, 3), felt, np.uint8),
                                       ((0, 0), (8, 0), (8, 8), (0, 8))).denomination
        lightness: npt.NDArray[np.float64] | None = None  # the crop's L*, when an inlay is looked for
        felt_lab: npt.NDArray[np.float64] | None = None  # the felt's Lab, likewise
        yy, xx = np.mgrid[y0:y1, x0:x1]
        for cx, cy, cr in circles[0]:
            x, y = float(cx) + x0, float(cy) + y0
            if cv2.pointPolygonTest(spot.polygon, (x, y), False) < 0:
                continue
            rr = float(cr)
            corners = ((x - rr, y - rr), (x + rr, y - rr), (x + rr, y + rr), (x - rr, y + rr))
            reading = chip_denomination(image, corners)
            if reading.distance > self.s.max_distance:
                continue  # no chip colour there: felt, a painted line, a card's edge
            if reading.denomination == felt_reads:
                if lightness is None:
                    lightness = _lab(crop)[:, 0].reshape(y1 - y0, x1 - x0)
                d2 = (xx - x) ** 2 + (yy - y) ** 2
                ring = np.median(lightness[(d2 <= (0.92 * rr) ** 2) & (d2 >= (0.68 * rr) ** 2)])
                inlay = np.median(lightness[d2 <= (0.4 * rr) ** 2])
                if inlay - ring < self.s.inlay_lighter:
                    continue  # the felt's colour and no inlay: a painted mark, not a chip
                if felt_lab is None:
                    felt_lab = _lab(felt[None])[0]
                if _ring_felt_share(crop, felt_lab, x - x0, y - y0, rr, self.s.felt_near) >= self.s.felt_ring:
                    continue  # the ring is the felt: a painted numeral with felt round it
            # how sure: 0.99 at the palette colour, 0.6 at the cut-off (each found circle passed the
            # colour check: the tracker must take it as a sure detection, 0.5 or more)
            conf = 0.99 - 0.39 * min(1.0, reading.distance / self.s.max_distance)
            out.append(Detection("chip", conf, corners, denomination=reading.denomination, source="spot"))
        return out


def _ring_felt_share(crop: npt.NDArray[np.uint8], felt_lab: npt.NDArray[np.float64], x: float, y: float,
                     r: float, near: float) -> float:
    """The share of the ring (0.68-0.92 of radius ``r`` round (x, y), crop pixels) within ``near`` of the
    felt's Lab colour."""
    h, w = crop.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    d2 = (xx - x) ** 2 + (yy - y) ** 2
    ring = (d2 <= (0.92 * r) ** 2) & (d2 >= (0.68 * r) ** 2)
    if not ring.any():
        return 0.0
    lab = _lab(np.ascontiguousarray(crop[ring].reshape(-1, 1, 3)))
    return float((np.linalg.norm(lab - felt_lab, axis=1) < near).mean())


def chip_radius_px(calibration: TableCalibration, at_mm: tuple[float, float]) -> float:
    """A chip's radius in frame pixels at a place on the table (the mean of two directions)."""
    x, y = at_mm
    r = CHIP_DIAMETER_MM / 2
    p = calibration.table_to_image(np.array([[x, y], [x + r, y], [x, y + r]], dtype=np.float64))
    return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 2)
