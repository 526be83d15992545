"""Textures of the table's props: chip faces by denomination and die faces with pips (BGRA)."""

from __future__ import annotations

import math
from functools import cache

import cv2
import numpy as np
from numpy.typing import NDArray

from monitor.perception.imageio import as_image
from monitor.render.table_art import CHIP_COLORS

Image = NDArray[np.uint8]
CHIP_TEX = 160  # px across a chip face texture
DIE_TEX = 96
DIE_COLOR = (40, 30, 190)  # BGR: casino dice are translucent red with white pips


def _disc_alpha(n: int, ss: int = 4) -> Image:
    m = np.zeros((n * ss, n * ss), np.uint8)
    cv2.circle(m, (n * ss // 2, n * ss // 2), n * ss // 2 - ss, 255, -1, cv2.LINE_AA)
    return as_image(cv2.resize(m, (n, n), interpolation=cv2.INTER_AREA))


def spot_color(denomination: int) -> tuple[int, int, int]:
    base = CHIP_COLORS[denomination]
    return (30, 30, 180) if sum(base) > 600 else (235, 235, 235)


@cache
def chip_face(denomination: int) -> Image:
    """Top of a chip: body colour, six edge spots, a printed inlay ring and the value."""
    n = CHIP_TEX * 2
    img = np.zeros((n, n, 3), np.uint8)
    img[:] = CHIP_COLORS[denomination]
    c = n // 2
    spot = spot_color(denomination)
    for i in range(6):
        a0 = i * 60
        cv2.ellipse(img, (c, c), (c - 2, c - 2), 0, a0 - 11, a0 + 11, spot, -1, cv2.LINE_AA)
    cv2.circle(img, (c, c), int(c * 0.78), CHIP_COLORS[denomination], -1, cv2.LINE_AA)
    inlay = (235, 235, 230) if denomination != 1 else (200, 160, 90)
    cv2.circle(img, (c, c), int(c * 0.62), inlay, -1, cv2.LINE_AA)
    cv2.circle(img, (c, c), int(c * 0.62), (60, 60, 60), 2, cv2.LINE_AA)
    text = str(denomination)
    font = cv2.FONT_HERSHEY_DUPLEX
    scale = (c * 0.75) / cv2.getTextSize(text, font, 1.0, 2)[0][0] if len(text) > 2 else c * 0.45 / 22
    (tw, th), _ = cv2.getTextSize(text, font, scale, 3)
    cv2.putText(img, text, (c - tw // 2, c + th // 2), font, scale, (40, 40, 40), 3, cv2.LINE_AA)
    img = as_image(cv2.resize(img, (CHIP_TEX, CHIP_TEX), interpolation=cv2.INTER_AREA))
    return np.dstack([img, _disc_alpha(CHIP_TEX)])


_PIPS: dict[int, list[tuple[float, float]]] = {
    1: [(0.5, 0.5)],
    2: [(0.27, 0.27), (0.73, 0.73)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.27, 0.22), (0.73, 0.22), (0.27, 0.5), (0.73, 0.5), (0.27, 0.78), (0.73, 0.78)],
}


@cache
def die_face(value: int) -> Image:
    n = DIE_TEX * 2
    img = np.zeros((n, n, 3), np.uint8)
    img[:] = DIE_COLOR
    r = int(n * 0.085)
    for u, v in _PIPS[value]:
        cv2.circle(img, (int(u * n), int(v * n)), r, (240, 240, 240), -1, cv2.LINE_AA)
    img = as_image(cv2.resize(img, (DIE_TEX, DIE_TEX), interpolation=cv2.INTER_AREA))
    # slightly rounded corners and edges read as a real die
    m = np.zeros((n, n), np.uint8)
    cv2.rectangle(m, (0, 0), (n - 1, n - 1), 255, -1)
    rad = int(n * 0.08)
    m[:rad, :rad] = m[:rad, -rad:] = m[-rad:, :rad] = m[-rad:, -rad:] = 0
    for cx, cy in ((rad, rad), (n - 1 - rad, rad), (rad, n - 1 - rad), (n - 1 - rad, n - 1 - rad)):
        cv2.circle(m, (cx, cy), rad, 255, -1, cv2.LINE_AA)
    alpha = cv2.resize(m, (DIE_TEX, DIE_TEX), interpolation=cv2.INTER_AREA)
    return np.dstack([img, alpha])


def chip_side_color(denomination: int, angle: float) -> tuple[int, int, int]:
    """Edge colour of a chip at angle (radians) round its rim: spots repeat every 60 degrees."""
    deg = math.degrees(angle) % 60
    return spot_color(denomination) if deg < 11 or deg > 49 else CHIP_COLORS[denomination]
