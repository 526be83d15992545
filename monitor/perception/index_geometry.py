"""Where a card prints its index, as a quadrilateral in the image, and the crop the corner reader takes.

A card prints its index (rank and suit) in two opposite corners. In a fanned or overlapping hand
the rest of the card is hidden, so an index is found and read on its own: its region is the same
``CORNER_SHARE`` of the card the corner classifier was trained on (``rectify.index_corner`` of an
upright crop), given by four points in this order: the card's corner, along the card's top edge,
the far corner, down the card's side. Renders label it so (``render indices``); the index finder
predicts those four points (``perception/index_reader.py``).
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from monitor.perception.imageio import as_image
from monitor.perception.rectify import CORNER_SHARE

F64 = npt.NDArray[np.float64]
# Where the printed index itself lies inside the card (shares of width and height): the part that
# must be uncovered for the index to be read (rendered decks and the vector deck stay within it).
INDEX_CORE = ((0.03, 0.2), (0.03, 0.38))


def _sub_quad(card: F64, corner: int, xs: tuple[float, float], ys: tuple[float, float]) -> F64:
    """Points of the card at shares ``xs`` across and ``ys`` down from ``corner`` (0: the card's
    top-left, 2: its bottom-right, seen with the card turned 180 degrees); the card's outline is
    ``card`` in its own order (top-left, top-right, bottom-right, bottom-left)."""
    o, a, b = card[corner], card[(corner + 1) % 4], card[(corner + 3) % 4]
    u, v = a - o, b - o
    return np.array([o + xs[0] * u + ys[0] * v, o + xs[1] * u + ys[0] * v,
                     o + xs[1] * u + ys[1] * v, o + xs[0] * u + ys[1] * v])


def index_quads(card: npt.ArrayLike, share: tuple[float, float] = CORNER_SHARE) -> list[F64]:
    """The two index regions of a card outline given in the card's own corner order."""
    c = np.asarray(card, np.float64).reshape(4, 2)
    return [_sub_quad(c, k, (0.0, share[0]), (0.0, share[1])) for k in (0, 2)]


def index_cores(card: npt.ArrayLike) -> list[F64]:
    """The printed indices themselves, in the order of ``index_quads``."""
    c = np.asarray(card, np.float64).reshape(4, 2)
    return [_sub_quad(c, k, *INDEX_CORE) for k in (0, 2)]


def quad_share(id_map: npt.NDArray[np.uint16], quad: F64, oid: int) -> float:
    """Share of the pixels inside ``quad`` that show object ``oid`` (0 if the quad leaves the image)."""
    h, w = id_map.shape[:2]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int)
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h or x1 <= x0 or y1 <= y0:
        return 0.0
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad - (x0, y0)).astype(np.int32), 1)
    inside = mask.astype(bool)
    n = int(inside.sum())
    return float((id_map[y0:y1, x0:x1][inside] == oid).sum()) / n if n else 0.0


def index_crop(image: npt.NDArray[np.uint8], quad: npt.ArrayLike, size: int = 64) -> npt.NDArray[np.uint8]:
    """The index region warped upright to ``size`` x ``size``: what the corner classifier reads."""
    src = np.asarray(quad, np.float32).reshape(4, 2)
    dst = np.array([[0, 0], [size - 1, 0], [size - 1, size - 1], [0, size - 1]], np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    return as_image(cv2.warpPerspective(image, m, (size, size), flags=cv2.INTER_LINEAR,
                                        borderMode=cv2.BORDER_REPLICATE))
