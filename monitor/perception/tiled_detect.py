"""The detector over overlapping tiles of a large frame, merged with its view of the whole frame.

The detector sees a frame shrunk to its input (512 px wide): a 4K frame 7.5x, where a card of a camera
that takes in the whole table is ~20 px long and cards beside chips or an arm go unseen (held-out 4K
frames: recall of unoccluded cards 0.935 test, 0.905 val; models/MODEL_CARD.md). Tiles a
little over half the frame each way show the cards twice as large, from pixels the frame has. The whole
frame still runs: it sees what no tile holds whole (an arm, a pile across a seam). For photos only: on
video the chain was proven on whole 1080p frames.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from monitor.perception.classical import quad_iou
from monitor.perception.detector import Box, Detector
from monitor.perception.labels import CARD_FACE_DOWN, CARD_FACE_UP

TILE_FROM_WIDTH = 2500  # px: frames this wide or wider may be detected in tiles (4K is 3840)
# Tiles when the median card box is shorter than this in the detector's input (px): the held-out
# 4K frames' cards measure 19.7-25.6 there (val's at most 25.6), and tiles found more of them; cards
# seen larger come out of a half-frame tile twice larger again, beyond what the detector learned, and
# boxed worse (project frames at 27-31 px: fewer named)
TILE_BELOW_PX = 26.0
OVERLAP = 0.125  # of a tile's share: wider than a card at 4K, so each card lies whole in some tile
EDGE_PX = 4  # a box this close to a tile's inner edge is cut by it: the neighbouring tile has it whole
SAME = 0.5  # IoU over which two boxes of one group are one object
COVERED = 0.3  # IoU over which a whole-frame box is taken as seen better by a tile
WHOLE_ONLY = frozenset({"hand"})  # arms reach across tiles: only the whole frame sees them whole
CARDS = frozenset({CARD_FACE_UP, CARD_FACE_DOWN})


def tile_windows(width: int, height: int) -> list[tuple[int, int, int, int]]:
    """(x0, y0, x1, y1) of a 2 x 2 grid of tiles over a frame, overlapping by ``OVERLAP``."""
    tw = min(width, math.ceil(width / 2 * (1 + OVERLAP)))
    th = min(height, math.ceil(height / 2 * (1 + OVERLAP)))
    return [(x, y, x + tw, y + th) for y in (0, height - th) for x in (0, width - tw)]


def _group(kind: str) -> str:
    return "card" if kind in CARDS else kind


def _cut_by_tile(c: npt.NDArray[np.float64], win: tuple[int, int, int, int], width: int, height: int) -> bool:
    """Whether a box (frame pixels) touches one of its tile's edges that lies inside the frame."""
    x0, y0, x1, y1 = win
    lo, hi = c.min(axis=0), c.max(axis=0)
    return bool((x0 > 0 and lo[0] < x0 + EDGE_PX) or (x1 < width and hi[0] > x1 - 1 - EDGE_PX)
                or (y0 > 0 and lo[1] < y0 + EDGE_PX) or (y1 < height and hi[1] > y1 - 1 - EDGE_PX))


def _overlaps(b: Box, boxes: list[Box], iou: float) -> bool:
    return any(_group(k.kind) == _group(b.kind) and quad_iou(k.corners, b.corners) > iou for k in boxes)


def merge_tiled(whole: list[Box], tiled: list[Box]) -> list[Box]:
    """One box per object: among the tiles' boxes the surest of each overlapping set (a card's face-up
    and face-down boxes are one set), then each whole-frame box no kept tile box covers."""
    kept: list[Box] = []
    for b in sorted(tiled, key=lambda b: -b.confidence):
        if not _overlaps(b, kept, SAME):
            kept.append(b)
    out = list(kept)
    for b in whole:
        if not _overlaps(b, kept, COVERED):
            out.append(b)
    return out


def card_length_in_input(boxes: list[Box], scale: float) -> float | None:
    """The median card box's larger extent across or down as the detector saw it (frame pixels x
    ``scale``), or None: what ``TILE_BELOW_PX`` was measured with."""
    sides = [float(np.ptp(np.asarray(b.corners), axis=0).max()) for b in boxes if b.kind in CARDS]
    return float(np.median(sides)) * scale if sides else None


def detect_tiled(detector: Detector, frame: npt.NDArray[np.uint8], floor: float | None = None) -> list[Box]:
    """The detector on the whole frame and, for a large frame whose cards it saw small (or none), on
    its tiles too. With ``floor``, the boxes under their class's threshold too, merged apart from those
    that pass (so a low box never stands in for one that passes)."""
    whole_all = detector.detect(frame, floor=floor)
    whole, low_whole = detector.partition(whole_all)
    h, w = frame.shape[:2]
    if w < TILE_FROM_WIDTH:
        return whole_all
    size = card_length_in_input(whole, detector.input_scale(w, h))
    if size is not None and size >= TILE_BELOW_PX:
        return whole_all
    windows = tile_windows(w, h)
    tiled: list[Box] = []
    for win in windows:
        x0, y0, x1, y1 = win
        for b in detector.detect(frame[y0:y1, x0:x1], floor=floor):
            c = np.asarray(b.corners, np.float64) + np.array([x0, y0], np.float64)
            if b.kind not in WHOLE_ONLY and not _cut_by_tile(c, win, w, h):
                tiled.append(Box(b.kind, b.confidence, c))
    passing, low = detector.partition(tiled)
    return merge_tiled(whole, passing) + merge_tiled(low_whole, low)
