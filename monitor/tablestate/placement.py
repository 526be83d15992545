"""Placing detections on the table: image corners -> table millimetres -> the zone they lie in."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from monitor.calibration import TableCalibration
from monitor.perception.detections import Detection, Detections

CARD_MM = (63.0, 88.0)

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Placed:
    """A detection with its place on the table.

    ``zone`` is the smallest calibrated zone containing the object's centre (``felt`` on open
    felt, ``off_table`` beyond the edge); ``size_mm`` is (short side, long side) of its
    footprint, which lets table state reject a "card" the size of a chip tray.
    """

    detection: Detection
    corners_mm: tuple[Point, Point, Point, Point]
    center_mm: Point
    zone: str
    size_mm: tuple[float, float]

    @property
    def kind(self) -> str:
        return self.detection.kind

    @property
    def box_mm(self) -> tuple[float, float, float, float]:
        xs = [p[0] for p in self.corners_mm]
        ys = [p[1] for p in self.corners_mm]
        return (min(xs), min(ys), max(xs), max(ys))

    def looks_like_one_card(self, tolerance: float = 0.25) -> bool:
        """Footprint within ``tolerance`` of a 63 x 88 mm card (a fanned hand or a pile is larger)."""
        short, long = self.size_mm
        return abs(short / CARD_MM[0] - 1) <= tolerance and abs(long / CARD_MM[1] - 1) <= tolerance


def place(detections: Detections, calibration: TableCalibration) -> list[Placed]:
    """Every detection of one frame, placed on the table.

    Detections from a frame of another resolution than the calibration's (the same camera
    at 4K, or a downscaled review copy) are scaled to the calibrated size first.
    """
    if not detections.items:
        return []
    cal_w, cal_h = calibration.image_size
    scale = np.array([cal_w / detections.width, cal_h / detections.height])
    pixels = np.array([d.corners for d in detections.items], dtype=np.float64).reshape(-1, 2) * scale
    mm = calibration.image_to_table(pixels).reshape(-1, 4, 2)
    centres = _quad_centres(mm)
    zones = calibration.zones_at(centres)
    # side lengths of every footprint at once; (opposite sides averaged) short and long side
    sides = np.linalg.norm(mm - np.roll(mm, -1, axis=1), axis=2)
    a, b = (sides[:, 0] + sides[:, 2]) / 2, (sides[:, 1] + sides[:, 3]) / 2
    short, long = np.where(b < a, b, a).tolist(), np.where(b > a, b, a).tolist()  # min(a, b), max(a, b)
    out = []
    for i, (det, quad, centre, zone) in enumerate(
            zip(detections.items, mm.tolist(), centres.tolist(), zones, strict=True)):
        c0, c1, c2, c3 = quad
        out.append(
            Placed(
                detection=det,
                corners_mm=((c0[0], c0[1]), (c1[0], c1[1]), (c2[0], c2[1]), (c3[0], c3[1])),
                center_mm=(centre[0], centre[1]),
                zone=zone,
                size_mm=(short[i], long[i]),
            )
        )
    return out


def _quad_centres(quads: np.ndarray) -> np.ndarray:
    """Where each quadrilateral's diagonals cross (its true centre; the vertex mean is biased)."""
    p0, p1, p2, p3 = quads[:, 0], quads[:, 1], quads[:, 2], quads[:, 3]
    d1, d2 = p2 - p0, p3 - p1
    den = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]
    safe = np.abs(den) > 1e-9
    e = p1 - p0
    t = np.where(safe, (e[:, 0] * d2[:, 1] - e[:, 1] * d2[:, 0]) / np.where(safe, den, 1), 0.5)
    centre = p0 + t[:, None] * d1
    return np.asarray(np.where(safe[:, None], centre, quads.mean(axis=1)), dtype=np.float64)


def zone_occupancy(placed: list[Placed]) -> dict[str, Counter[str]]:
    """Per zone, how many objects of each kind are in it: {'pile3': Counter({'card_face_down': 7})}."""
    out: dict[str, Counter[str]] = {}
    for p in placed:
        out.setdefault(p.zone, Counter())[p.kind] += 1
    return out
