"""Chips: denomination from colour, and how many where the view shows it.

The denomination is the palette colour (CIE Lab) that covers most of the chip's ring: each pixel
between the inlay and the edge votes for the nearest palette colour, if one is near. A casino chip
has a printed inlay over the middle (about 60% of the diameter, white or cream with the value) and
edge spots on the rim, often white too; its body colour is most of the ring around the inlay, so
neither the centre's colour nor the face's mean would do. A room with other colours passes its own
palette. Counting: a chip
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


_WEIGHTS = np.array([0.6, 1.0, 1.0])  # L*, a*, b*
VOTE_DISTANCE = 70.0  # weighted Lab distance: a pixel farther than this from every colour does not vote
SHIFT = 0.15  # the ring is also tried this share of the radius off the box's centre (8 directions)
INLAY = 0.45  # the white inlay's disc (standard chips print it to ~0.6 r; less, for an off-centre box)
WHITE = 225.0  # the palette's white: what the inlay is scaled to
NEUTRAL = 20.0  # the inlay's reference must be this near grey (Lab a*, b* on OpenCV's 0-255 scale)
MAX_GAIN = 2.2  # light under an arm's shadow (45%) is restored; deeper darkness is not invented


def _white_balanced(region: npt.NDArray[np.uint8], inlay: npt.NDArray[np.bool_]) -> npt.NDArray[np.uint8]:
    """The chip's region scaled, channel by channel, so that its inlay is white again.

    Every chip carries a white inlay; under an arm's shadow or a warm light a red chip turns dark
    brown and read as black (every colour read $100 at half the light, measured on rendered chips).
    The inlay's bright texels (the 75th percentile: its printed value is dark) say what white looks
    like right there, so the ring can be judged in that light. The gain is bounded: a chip in deep
    shadow stays unreadable rather than becoming any colour.
    """
    px = region.reshape(-1, 3)[inlay].astype(np.float64)
    if len(px) < 4:
        return region
    white = np.percentile(px, 75, axis=0)
    _, a, b = _lab(np.clip(white, 0, 255).astype(np.uint8)[None])[0]
    if max(abs(a - 128.0), abs(b - 128.0)) > NEUTRAL:
        return region  # a coloured centre: no white inlay to go by (a plain chip), read it as it is
    gain = np.clip(WHITE / np.maximum(white, 1.0), 0.8, MAX_GAIN)
    return np.asarray(np.clip(region.astype(np.float64) * gain, 0, 255), np.uint8)


def chip_denomination(frame: npt.NDArray[np.uint8], corners: npt.ArrayLike,
                      palette: dict[int, tuple[int, int, int]] | None = None) -> ChipReading:
    """The denomination of the chip (or the top chip of a stack) in the box ``corners``.

    A detector's box can sit a few pixels off a 40-pixel chip; the ring then takes in the white
    inlay on one side and felt on the other, and white (the inlay and the edge spots of every chip)
    wins. So the ring is tried around a few centres up to ``SHIFT`` of the radius off the box's, and
    the one where a single colour fills the most of the ring is where the chip is.
    """
    pal = palette or DEFAULT_PALETTE
    p = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    center = p.mean(axis=0)
    radius = 0.5 * min(np.linalg.norm(p[0] - p[1]), np.linalg.norm(p[1] - p[2]))
    # the ring outside the inlay (0.62 of the radius on standard chips) and inside the edge
    r = max(1, round(0.92 * radius))
    r_in = 0.68 * radius
    shift = SHIFT * radius
    reach = r + math.ceil(shift)
    cx, cy = round(center[0]), round(center[1])
    x0, y0 = max(0, cx - reach), max(0, cy - reach)
    x1, y1 = min(frame.shape[1], cx + reach + 1), min(frame.shape[0], cy + reach + 1)
    if x1 <= x0 or y1 <= y0:
        raise ValueError(f"chip at {center.round(1).tolist()} has no pixels inside the frame")
    names = list(pal)
    ref = _lab(np.array([pal[n] for n in names], dtype=np.uint8))
    yy, xx = np.mgrid[y0:y1, x0:x1]
    xx, yy = xx.ravel(), yy.ravel()
    region = _white_balanced(np.ascontiguousarray(frame[y0:y1, x0:x1]),
                             (xx - center[0]) ** 2 + (yy - center[1]) ** 2 <= (INLAY * radius) ** 2)
    lab = _lab(region)
    # Lightness varies most with exposure: weigh it down so hue decides between colours.
    d = np.sqrt((((lab[:, None, :] - ref[None, :, :]) ** 2) * _WEIGHTS).sum(axis=2))
    nearest = d.argmin(axis=1)
    voter = d.min(axis=1) <= VOTE_DISTANCE
    best_fit: tuple[float, npt.NDArray[np.bool_], npt.NDArray[np.float64]] | None = None
    for dy in (-shift, 0.0, shift):
        for dx in (-shift, 0.0, shift):
            rr = (xx - center[0] - dx) ** 2 + (yy - center[1] - dy) ** 2
            ring = (rr <= r * r) & (rr >= r_in * r_in)
            n = int(ring.sum())
            if n == 0:
                continue
            votes = np.bincount(nearest[ring & voter], minlength=len(names)).astype(np.float64)
            fill = float(votes.max()) / n
            # the box's own centre wins ties: it is right more often than not
            if best_fit is None or fill > best_fit[0] + (0.0 if dx or dy else -1e-9):
                best_fit = (fill, ring, votes)
    if best_fit is None:
        raise ValueError(f"chip at {center.round(1).tolist()} has no pixels inside the frame")
    _, ring, votes = best_fit
    if votes.sum() == 0:  # no pixel near any colour (a strange light): the nearest to the median
        median = _lab(np.median(region.reshape(-1, 3)[ring], axis=0).astype(np.uint8)[None])[0]
        dm = np.sqrt(((ref - median) ** 2 * _WEIGHTS).sum(axis=1))
        order = np.argsort(dm)
        margin = float(dm[order[1]] - dm[order[0]]) if len(order) > 1 else float("inf")
        return ChipReading(names[int(order[0])], float(dm[order[0]]), margin)
    order = np.argsort(-votes)
    best = int(order[0])
    share = votes / max(1.0, float(ring.sum()))
    # distance: how far the winning colour's voters are from it; margin: the lead in share of the face,
    # on the same scale as before (a small margin means ambiguous)
    dist = float(np.median(d[ring & (nearest == best), best]))
    margin = float(100.0 * (share[best] - (share[int(order[1])] if len(order) > 1 else 0.0)))
    return ChipReading(names[best], dist, margin)


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
