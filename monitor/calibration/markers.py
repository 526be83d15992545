"""ArUco markers at known places on the layout: the printable sheet and finding them in a frame.

Each marker is printed ``size_mm`` wide and laid centred on a named zone of the layout
(default: the betting circles of seats 1, 4 and 7, the dice area, the banker's place and
the stub spot; on a table without a dice area or banker's place, the outer pile slots take their
places), so its table position is known without measuring. Only marker centres
are used (the intersection of the square's diagonals, exact under perspective), so a
marker's rotation on the felt does not matter.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    import cv2

from monitor.geometry import TableLayout

DEFAULT_DICTIONARY = "DICT_4X4_50"
DEFAULT_SIZE_MM = 100.0
DEFAULT_PLACES: tuple[str, ...] = ("seat1.bet", "seat4.bet", "seat7.bet", "dice", "banker", "stub")
# in order, the places a marker goes instead where a default place is not on the table
FALLBACK_PLACES: tuple[str, ...] = ("pile1", "pile7", "seat2.bet", "seat6.bet")


def default_places(layout: TableLayout) -> tuple[str, ...]:
    """The default places this table has, each one it lacks (``dice``, ``banker``) taken by the next
    fallback: still six markers spread over the table."""
    spare = iter(z for z in FALLBACK_PLACES if layout.has(z))
    return tuple(z if layout.has(z) else next(spare) for z in DEFAULT_PLACES)


@dataclass(frozen=True, slots=True)
class MarkerPlace:
    marker_id: int
    zone: str
    center_mm: tuple[float, float]


@dataclass(frozen=True)
class MarkerSet:
    dictionary: str
    size_mm: float
    places: tuple[MarkerPlace, ...]

    @classmethod
    def for_layout(
        cls,
        layout: TableLayout,
        zones: tuple[str, ...] | None = None,
        dictionary: str = DEFAULT_DICTIONARY,
        size_mm: float = DEFAULT_SIZE_MM,
    ) -> MarkerSet:
        places = []
        for i, name in enumerate(default_places(layout) if zones is None else zones):
            cx, cy = layout.zone(name).shape.center
            places.append(MarkerPlace(i, name, (float(cx), float(cy))))
        return cls(dictionary, size_mm, tuple(places))

    def place(self, marker_id: int) -> MarkerPlace | None:
        return next((p for p in self.places if p.marker_id == marker_id), None)


@dataclass(frozen=True, slots=True)
class FoundMarker:
    marker_id: int
    corners_px: NDArray[np.float64]  # (4, 2)
    center_px: tuple[float, float]


def _dictionary(name: str) -> cv2.aruco.Dictionary:
    import cv2

    code = getattr(cv2.aruco, name, None)
    if not isinstance(code, int):
        raise ValueError(f"unknown ArUco dictionary {name!r} (e.g. DICT_4X4_50, DICT_5X5_100)")
    return cv2.aruco.getPredefinedDictionary(code)


def diagonal_center(corners: NDArray[np.float64]) -> tuple[float, float]:
    """Where the square's diagonals cross: the true centre even under perspective."""
    p0, p1, p2, p3 = (np.asarray(c, dtype=np.float64) for c in corners)
    d1, d2 = p2 - p0, p3 - p1
    den = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(den) < 1e-9:
        c = corners.mean(axis=0)
        return (float(c[0]), float(c[1]))
    t = ((p1[0] - p0[0]) * d2[1] - (p1[1] - p0[1]) * d2[0]) / den
    c = p0 + t * d1
    return (float(c[0]), float(c[1]))


def find_markers(image: NDArray[np.uint8], dictionary: str = DEFAULT_DICTIONARY) -> list[FoundMarker]:
    """Every marker of ``dictionary`` visible in a BGR or gray frame, with sub-pixel corners."""
    import cv2

    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(_dictionary(dictionary), params)
    corners, ids, _ = detector.detectMarkers(gray)
    found: list[FoundMarker] = []
    if ids is None:
        return found
    for c, marker_id in zip(corners, ids.ravel(), strict=True):
        pts = np.asarray(c, dtype=np.float64).reshape(4, 2)
        found.append(FoundMarker(int(marker_id), pts, diagonal_center(pts)))
    return sorted(found, key=lambda m: m.marker_id)


def marker_image(marker_id: int, side_px: int, dictionary: str = DEFAULT_DICTIONARY) -> NDArray[np.uint8]:
    import cv2

    img = cv2.aruco.generateImageMarker(_dictionary(dictionary), marker_id, side_px)
    return np.asarray(img, dtype=np.uint8)


def write_sheets(markers: MarkerSet, out_dir: str | Path, dpi: int = 200) -> list[Path]:
    """A4 pages (PNG at ``dpi``) with two markers each, printed at their true size, and a 100 mm scale bar."""
    import cv2

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    px_per_mm = dpi / 25.4
    page_w, page_h = round(210 * px_per_mm), round(297 * px_per_mm)
    side = round(markers.size_mm * px_per_mm)
    quiet = round(10 * px_per_mm)  # a white border: detection needs it
    pages = []
    for first in range(0, len(markers.places), 2):
        page = np.full((page_h, page_w), 255, np.uint8)
        for slot, place in enumerate(markers.places[first : first + 2]):
            top = round((20 + slot * 140) * px_per_mm)
            left = (page_w - side) // 2
            page[top : top + side, left : left + side] = marker_image(
                place.marker_id, side, markers.dictionary
            )
            box = ((left - quiet, top - quiet), (left + side + quiet, top + side + quiet))
            cv2.rectangle(page, box[0], box[1], 200, 1)
            label = f"marker {place.marker_id}: centre it on {place.zone} ({markers.size_mm:.0f} mm)"
            cv2.putText(page, label, (left - quiet, top + side + quiet + round(8 * px_per_mm)),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.9 * dpi / 200, 0, 2, cv2.LINE_AA)
        bar_y = page_h - round(15 * px_per_mm)
        x0 = round(20 * px_per_mm)
        cv2.line(page, (x0, bar_y), (x0 + round(100 * px_per_mm), bar_y), 0, 3)
        cv2.putText(page, f"100 mm: check the print scale ({markers.dictionary})", (x0, bar_y - 12),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.7 * dpi / 200, 0, 1, cv2.LINE_AA)
        path = out / f"markers-{first // 2 + 1}.png"
        cv2.imwrite(str(path), page)
        pages.append(path)
    return pages
