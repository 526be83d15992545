"""Reading one table zone's cards by their indices: a set hand, the banker's place, a pile slot.

A hand turned up lies fanned, its cards' outlines overlapping: the index reader (the fan reader over
the detector's card boxes, or the index finder) reads the zone's picture, grown by ``HAND_MARGIN_MM``
(a fan overhangs its box), and the cards found are kept only where they lie nearer that zone than
any other hand zone (a seat's two-card hand read again in its five-card hand's box would make seven
there). Where the fan reader says so (``spread_rows``), a zone's rows of cards are also found from
its own picture and read along their edges (:mod:`monitor.perception.spread_rows`): the banker's
spread row, which the detector boxes poorly. The live chain reads the zones its extractor waits on;
``check-fans`` reads them all against a rendered round's truth.
"""

from __future__ import annotations

import logging

import cv2
import numpy as np

from monitor.calibration import TableCalibration
from monitor.calibration.zones import zone_kind
from monitor.perception.classical import felt_colour
from monitor.perception.detections import Detections
from monitor.perception.fan_reader import FanReader
from monitor.perception.index_reader import IndexReader
from monitor.perception.spread_rows import Scan, find_scans, inside_band, rectify_maps
from monitor.tablestate.index_cards import IndexCard, index_cards

# Where hands lie face up to be read by their indices (fanned: no card outline to cut; and the
# banker's place), and how far past each zone's outline the reader looks.
HAND_ZONE_KINDS = ("front", "back")
HAND_MARGIN_MM = 40.0
# rows of cards are looked for this far around a hand zone: a row reaching past the zone's margin is
# still seen whole (its reads are then kept only where they lie nearest this zone)
ROW_MARGIN_MM = 90.0
log = logging.getLogger(__name__)
# a face-down box this sure to be a back is not read by its corners (the fan reader never learned backs)
FAN_BACK_MAX = 0.5


def is_hand_zone(name: str) -> bool:
    return zone_kind(name) in HAND_ZONE_KINDS or name == "banker"


class ZoneReader:
    """The cards of a hand zone (or a pile slot) read by their indices, in table millimetres."""

    def __init__(self, calibration: TableCalibration, reader: IndexReader | FanReader) -> None:
        self.calibration = calibration
        self.reader = reader
        self.hand_zones = {name: poly for name, poly in calibration.zones.items() if is_hand_zone(name)}
        # pile slots too: an exposed card the whole-card reader could not name is read by its index
        self.boxes = {name: pixel_box(calibration, poly.array) for name, poly in calibration.zones.items()
                      if name in self.hand_zones or zone_kind(name) == "pile"}
        # each hand zone's outline in table mm, as cv2's polygon tests take it
        self._rings = {name: np.asarray(poly.array, np.float32).reshape(-1, 1, 2)
                       for name, poly in self.hand_zones.items()}
        self._spread_zones = set() if not isinstance(reader, FanReader) or reader.spread_rows == "off" else {
            name for name in self.hand_zones
            if (name if name == "banker" else zone_kind(name)) in reader.spread_zones}
        self._row_regions = {name: _grown_bounds(poly.array, ROW_MARGIN_MM)
                             for name, poly in self.hand_zones.items()}
        self._maps: dict[tuple[str, int, int], tuple[np.ndarray, np.ndarray]] = {}

    def _pixel_box(self, name: str, w: int, h: int) -> tuple[int, int, int, int]:
        k = (w / self.calibration.image_size[0], h / self.calibration.image_size[1])
        x0, y0, x1, y1 = self.boxes[name]
        return round(x0 * k[0]), round(y0 * k[1]), round(x1 * k[0]), round(y1 * k[1])

    def read(self, image: np.ndarray, name: str, card_boxes: list[np.ndarray]) -> list[IndexCard]:
        """``name``'s cards in this frame; ``card_boxes``: the frame's :func:`fan_cards`."""
        h, w = image.shape[:2]
        box = self._pixel_box(name, w, h)
        if name not in self._spread_zones or not isinstance(self.reader, FanReader):
            reads = self.reader.read(image, [box], card_boxes)
        else:
            try:
                scans = self.rows(image, name, card_boxes)
            except (cv2.error, ValueError, FloatingPointError) as e:
                # a picture the row finder cannot take (a calibration far off the frame): the zone is
                # read from the detector's boxes alone, and the live chain goes on
                log.warning("rows of %s not looked for in this frame: %s", name, e)
                scans = []
            if self.reader.spread_rows == "first":
                card_boxes = [b for b in card_boxes if not inside_band(np.asarray(b).mean(axis=0), scans)]
            reads = self.reader.read(image, [box], card_boxes)
            reads += self.reader.read_scans(image, [(s.card, s.shifts) for s in scans])
        return self.own_cards(name, index_cards(reads, name, self.calibration, (w, h)))

    def rows(self, image: np.ndarray, name: str, boxes: list[np.ndarray]) -> list[Scan]:
        """The scans of the rows of cards found around hand zone ``name`` (``boxes``: the frame's
        card boxes, which settle a nearly square pair's way)."""
        h, w = image.shape[:2]
        k = (w / self.calibration.image_size[0], h / self.calibration.image_size[1])

        def to_image(mm: np.ndarray) -> np.ndarray:
            px = self.calibration.table_to_image(np.asarray(mm, np.float64))
            return np.asarray(px * np.array(k), np.float64)

        region = self._row_regions[name]
        maps = self._maps.get((name, w, h))
        if maps is None:
            maps = self._maps[(name, w, h)] = rectify_maps(to_image, region)
        return find_scans(image, maps, region, to_image, felt_colour(image), boxes)

    def own_cards(self, name: str, cards: list[IndexCard]) -> list[IndexCard]:
        """The cards read in a hand zone's box that lie nearer that zone than any other hand zone."""
        rings = self._rings
        if name not in rings:
            return cards

        def nearest(c: IndexCard) -> bool:
            here = _outside(rings[name], c.x, c.y)
            return all(here <= _outside(ring, c.x, c.y) for other, ring in rings.items() if other != name)
        return [c for c in cards if nearest(c)]


def fan_cards(detections: Detections | None) -> list[np.ndarray]:
    """Card boxes a fan reader may read: face up, or face down but not surely a back (a fanned card's
    crop is mostly other cards, which the whole-card reader may call a back)."""
    if detections is None:
        return []
    return [np.asarray(d.corners, np.float64) for d in detections.items
            if d.kind == "card_face_up"
            or (d.kind == "card_face_down" and (d.back_probability or 0.0) < FAN_BACK_MAX)]


def _outside(ring: np.ndarray, x: float, y: float) -> float:
    """How far (x, y) lies outside ``ring`` (0 inside): ``calibration.polygons.distance_outside`` for one
    point, by cv2's signed distance (~50x faster: a read's cards against every hand zone took 7 ms)."""
    return max(0.0, -cv2.pointPolygonTest(ring, (x, y), True))


def _grown_bounds(poly_mm: np.ndarray, margin: float) -> tuple[float, float, float, float]:
    p = np.asarray(poly_mm, np.float64)
    (x0, y0), (x1, y1) = p.min(axis=0) - margin, p.max(axis=0) + margin
    return float(x0), float(y0), float(x1), float(y1)


def pixel_box(calibration: TableCalibration, poly_mm: np.ndarray) -> tuple[int, int, int, int]:
    """A zone's outline grown by ``HAND_MARGIN_MM``, as a box in the calibrated frame's pixels."""
    p = np.asarray(poly_mm, np.float64)
    c = p.mean(axis=0)
    d = p - c
    n = np.linalg.norm(d, axis=1, keepdims=True)
    grown = c + d * (1 + HAND_MARGIN_MM / np.maximum(n, 1e-6))
    px = calibration.table_to_image(grown)
    (x0, y0), (x1, y1) = np.floor(px.min(axis=0)), np.ceil(px.max(axis=0))
    return int(x0), int(y0), int(x1), int(y1)
