"""Chips: denomination from colour, and how many where the view shows it.

The denomination is the palette colour (CIE Lab) nearest to the median colour of the chip's centre
(the edge spots are excluded). A room with other colours passes its own palette. Counting: a chip
spread on the felt is counted by grouping neighbouring chips of one denomination; a stack seen from
an oblique camera is counted from how much taller than wide its outline is, given the camera tilt
(from the calibration); straight from above a stack's height cannot be seen, so no count is claimed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

# Casino-standard colours by denomination (BGR): white 1, red 5, green 25, black 100, purple 500,
# yellow 1000 (the renderer draws the same standard set).
DEFAULT_PALETTE: dict[int, tuple[int, int, int]] = {
    1: (225, 225, 225), 5: (40, 40, 190), 25: (50, 140, 40), 100: (30, 30, 30),
    500: (120, 40, 110), 1000: (40, 200, 230),
}
CHIP_DIAMETER_MM = 39.0
CHIP_THICKNESS_MM = 3.3


def _lab(bgr: npt.NDArray[np.uint8]) -> npt.NDArray[np.float64]:
    return cv2.cvtColor(bgr.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float64)


@dataclass(frozen=True, slots=True)
class ChipReading:
    denomination: int
    distance: float  # Lab distance to the palette colour (how well the colour matched)
    margin: float  # distance to the second-nearest colour minus the nearest: small means ambiguous


def chip_denomination(frame: npt.NDArray[np.uint8], corners: npt.ArrayLike,
                      palette: dict[int, tuple[int, int, int]] | None = None) -> ChipReading:
    pal = palette or DEFAULT_PALETTE
    p = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    center = p.mean(axis=0)
    radius = 0.5 * min(np.linalg.norm(p[0] - p[1]), np.linalg.norm(p[1] - p[2]))
    mask = np.zeros(frame.shape[:2], dtype=np.uint8)
    cv2.circle(mask, (round(center[0]), round(center[1])), max(1, round(0.55 * radius)), 255, -1)
    pixels = frame[mask > 0]
    if len(pixels) == 0:
        raise ValueError(f"chip at {center.round(1).tolist()} has no pixels inside the frame")
    median = np.median(pixels, axis=0).astype(np.uint8)
    lab = _lab(median[None])[0]
    names = list(pal)
    ref = _lab(np.array([pal[n] for n in names], dtype=np.uint8))
    # Lightness varies most with exposure: weigh it half so hue decides between colours.
    d = np.sqrt(((ref - lab) ** 2 * np.array([0.5, 1.0, 1.0])).sum(axis=1))
    order = np.argsort(d)
    margin = float(d[order[1]] - d[order[0]]) if len(order) > 1 else float("inf")
    return ChipReading(names[int(order[0])], float(d[order[0]]), margin)


def stack_count(corners: npt.ArrayLike, tilt_deg: float | None) -> int | None:
    """Chips in a stack from an oblique view: extra outline height / (thickness seen at this tilt).

    The outline is the top disc (``D cos t`` tall) plus the side (``n * thickness * sin t``).
    ``tilt_deg`` is the camera's angle from straight down at the stack. Returns None straight from
    above (under 20 degrees) or without a tilt, where the stack's height is not visible.
    """
    if tilt_deg is None or tilt_deg < 20.0:
        return None
    p = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    e1, e2 = p[1] - p[0], p[2] - p[1]
    # The camera tilts along the image's vertical axis, so the stack grows along y and the diameter is
    # the more horizontal side.
    across, along = (e1, e2) if abs(e1[0]) >= abs(e2[0]) else (e2, e1)
    width, height = float(np.linalg.norm(across)), float(np.linalg.norm(along))
    t = math.radians(tilt_deg)
    top_face = width * math.cos(t)  # the disc foreshortened along the line of sight
    per_chip = width * (CHIP_THICKNESS_MM / CHIP_DIAMETER_MM) * math.sin(t)
    if per_chip <= 0:
        return None
    return max(1, round((height - top_face) / per_chip))


def spread_groups(centers: npt.ArrayLike, denominations: list[int], diameter_px: float) -> list[list[int]]:
    """Group chips of one denomination lying within 1.3 diameters of each other (a spread bet)."""
    c = np.asarray(centers, dtype=np.float64).reshape(-1, 2)
    n = len(c)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(n):
        for j in range(i + 1, n):
            if denominations[i] == denominations[j] and np.linalg.norm(c[i] - c[j]) < 1.3 * diameter_px:
                parent[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())
