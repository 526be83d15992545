"""Card rectification: four image corners -> an upright, fixed-size crop cut from the full-resolution frame.

The classifier is trained on whole cards stretched to a square (``CROP_SIZE``), long side vertical, in
either of the two 180-degree orientations (cards print their indices in two opposite corners), so the
runtime only has to decide which side is long.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

from monitor.perception.imageio import as_image

CROP_SIZE = 96

FloatArray = npt.NDArray[np.float64]


def order_card_corners(pts: npt.ArrayLike) -> FloatArray:
    """Order 4 corners as top-left, top-right, bottom-right, bottom-left of the card stood upright.

    The top edge is a short side (cards are 63 x 88 mm); of the two short sides the one higher in the
    image is the top, which keeps an upright card upright.
    """
    # Called for every box and quad of a frame (over a hundred at 1080p): plain floats, since numpy's
    # per-call overhead dwarfs the arithmetic of four points (same results, bit for bit).
    p = np.asarray(pts, dtype=np.float64).reshape(4, 2)
    xs, ys = p[:, 0].tolist(), p[:, 1].tolist()
    cx, cy = sum(xs) / 4, sum(ys) / 4
    ang = [math.atan2(y - cy, x - cx) for x, y in zip(xs, ys, strict=True)]
    order = np.argsort(ang).tolist()  # clockwise on screen (y grows downward); numpy's order of ties
    side = []  # side[i] = |p[i] - p[i+1]| in that order
    for i in range(4):
        j, k = order[i], order[(i + 1) % 4]
        dx, dy = xs[j] - xs[k], ys[j] - ys[k]
        side.append(math.sqrt(dx * dx + dy * dy))
    start = 0 if side[0] + side[2] <= side[1] + side[3] else 1
    # the side from order[start] and the one opposite are the short sides; put the higher one on top
    order = order[start:] + order[:start]
    if ys[order[0]] + ys[order[1]] > ys[order[2]] + ys[order[3]]:
        order = order[2:] + order[:2]
    out: FloatArray = p[order]
    return out


def card_side_lengths(corners: npt.ArrayLike) -> tuple[float, float]:
    """(short, long) mean side lengths in pixels of an ordered quad."""
    p = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    s = np.linalg.norm(p - np.roll(p, -1, axis=0), axis=1)
    a, b = (s[0] + s[2]) / 2.0, (s[1] + s[3]) / 2.0
    return (min(a, b), max(a, b))


def quad_aspect(corners: npt.ArrayLike) -> float:
    """Mean short side over mean long side of a quad whose corners run around it (a card seen straight
    on: 63 / 88 = 0.72; 1 for a square, or for a degenerate quad)."""
    short, long_ = card_side_lengths(corners)
    return short / long_ if long_ > 0 else 1.0


def rectify_card(
    frame: npt.NDArray[np.uint8], corners: npt.ArrayLike, size: int = CROP_SIZE
) -> npt.NDArray[np.uint8]:
    """Warp the quad ``corners`` (any order) of ``frame`` to a ``size`` x ``size`` upright crop."""
    p = order_card_corners(corners).astype(np.float32)
    _, long_side = card_side_lengths(p)
    # Warping straight down from a 4K card aliases the thin index strokes; warp to 2x and area-resize.
    work = size * 2 if long_side > 2.5 * size else size
    dst = np.array([[0, 0], [work - 1, 0], [work - 1, work - 1], [0, work - 1]], dtype=np.float32)
    m = cv2.getPerspectiveTransform(p, dst)
    crop = cv2.warpPerspective(
        frame, m, (work, work), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    if work != size:
        crop = cv2.resize(crop, (size, size), interpolation=cv2.INTER_AREA)
    return as_image(crop)


def crops_to_tensor(crops: list[npt.NDArray[np.uint8]], size: int = CROP_SIZE) -> npt.NDArray[np.float32]:
    """BGR uint8 crops -> float32 NCHW RGB in [0, 1] (the ultralytics classification input)."""
    if not crops:
        return np.zeros((0, 3, size, size), dtype=np.float32)
    batch = np.stack([c if c.shape[:2] == (size, size) else
                      cv2.resize(c, (size, size), interpolation=cv2.INTER_AREA if c.shape[0] > size else
                                 cv2.INTER_LINEAR) for c in crops])
    return np.ascontiguousarray(batch[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32) / np.float32(255.0)


# The index corner of an upright crop: (width, height) shares of the card. Generous enough for the
# indices of the decks rendered and the vector deck (about 0.2 x 0.4), and the corner jitter of a
# rectified detection.
CORNER_SHARE = (0.36, 0.46)


def index_corner(
    crop: npt.NDArray[np.uint8], share: tuple[float, float] = CORNER_SHARE
) -> npt.NDArray[np.uint8]:
    """The top-left corner of an upright crop, where a card prints its index (rank and suit).

    A deck's index reads alike across designs far more than its pips and court art do (an unseen
    deck's nines were read as tens by their pip layout); a card turned 180 degrees shows its other
    index here, so the turned crop's corner is the second view of the same card.
    """
    h, w = crop.shape[:2]
    return crop[: max(1, round(h * share[1])), : max(1, round(w * share[0]))]
