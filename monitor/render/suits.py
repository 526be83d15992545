"""Suit symbols as filled polygons, drawn anti-aliased with OpenCV at any size and either way up."""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

Color = tuple[int, int, int]
_SHIFT = 4  # fixed-point bits for sub-pixel polygon vertices
_ONE = 1 << _SHIFT


def _heart(n: int = 72) -> NDArray[np.float64]:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    return np.stack([x, y], axis=1)


def _normalize(parts: list[NDArray[np.float64]]) -> list[NDArray[np.float64]]:
    """Scale a symbol so its bounding box is 1 tall, centred on (0, 0)."""
    allp = np.concatenate(parts)
    lo, hi = allp.min(axis=0), allp.max(axis=0)
    c, h = (lo + hi) / 2, hi[1] - lo[1]
    return [(p - c) / h for p in parts]


def _circle(cx: float, cy: float, r: float, n: int = 40) -> NDArray[np.float64]:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], axis=1)


def _symbol_parts() -> dict[str, list[NDArray[np.float64]]]:
    heart = _heart()
    spade_body = heart * np.array([1.0, -1.0]) + np.array([0.0, 0.0])
    stem = np.array([[0.0, 8.0], [-6.0, 22.0], [6.0, 22.0]])
    t = np.linspace(0, 1, 12)
    # A diamond with slightly concave sides, like a printed card.
    corners = np.array([[0, -1.0], [0.72, 0], [0, 1.0], [-0.72, 0]])
    dpts = []
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        mid = (a + b) / 2
        inward = -mid / (np.linalg.norm(mid) + 1e-9) * 0.06
        for tt in t[:-1]:
            dpts.append(a * (1 - tt) ** 2 + 2 * (mid + inward) * tt * (1 - tt) + b * tt * tt)
    club = [
        _circle(0, -6.2, 5.2),
        _circle(-6.0, 2.8, 5.2),
        _circle(6.0, 2.8, 5.2),
        np.array([[-2.6, -2.0], [2.6, -2.0], [3.4, 3.5], [-3.4, 3.5]]),
        np.array([[0.0, 1.0], [-4.5, 13.5], [4.5, 13.5]]),
    ]
    return {
        "h": _normalize([heart]),
        "s": _normalize([spade_body, stem]),
        "d": _normalize([np.array(dpts)]),
        "c": _normalize(club),
    }


_PARTS = _symbol_parts()
SUIT_ASPECT = {k: float(np.ptp(np.concatenate(v)[:, 0])) for k, v in _PARTS.items()}  # width / height


def draw_suit(
    img: NDArray[np.uint8],
    suit: str,
    cx: float,
    cy: float,
    height: float,
    color: Color,
    upside_down: bool = False,
    aspect: float = 1.0,
) -> None:
    """Fill suit ``suit`` ('c', 'd', 'h', 's') centred at (cx, cy) px, ``height`` px tall, ``aspect``
    times its usual width (printed decks differ: narrow diamonds, plump hearts)."""
    sign = -1.0 if upside_down else 1.0
    scale = np.array([height * sign * aspect, height * sign])
    polys = [np.round((p * scale + (cx, cy)) * _ONE).astype(np.int32) for p in _PARTS[suit]]
    for p in polys:  # separate fills: the club's circles overlap, and fillPoly with many would XOR them
        cv2.fillPoly(img, [p], color, lineType=cv2.LINE_AA, shift=_SHIFT)


def fill_poly(
    img: NDArray[np.uint8],
    pts: NDArray[np.float64] | NDArray[np.float32] | list[tuple[float, float]],
    color: Color,
) -> None:
    p = np.round(np.asarray(pts, dtype=np.float64) * _ONE).astype(np.int32)
    cv2.fillPoly(img, [p], color, lineType=cv2.LINE_AA, shift=_SHIFT)
