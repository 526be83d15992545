"""Card outlines from the straight edges around a box: two edges meeting square at a corner start a
card of the nearby cards' size.

The top card of two lying crossed need not run along the box the detector drew round both (a card
laid askew on another, a back dropped across a face), so a card laid at the box's corners
(``merged_boxes.corner_candidates``) misses it. Its own corners still show: two straight edges of
at least a third of a card's short side, square to each other, whose lines meet near an end of each.
Each such pair gives the card going away from the corner along both edges, both ways round.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from monitor.perception.classical import quad_iou
from monitor.perception.merged_boxes import SAME_IOU

F64 = npt.NDArray[np.float64]

MIN_EDGE = 0.35  # of the card's short side: shorter segments are pips and index glyphs
SQUARE_COS = 0.14  # |cos| between two edges meeting at a card's corner (within ~8 degrees of square)
# Where the two edges' lines meet lies this far (of the short side) from an end of each at most: the
# card's corner is rounded, and a segment may stop short of it
CORNER_GAP = 0.2
PAD = 0.25  # of the card's long side: the box widened by this to look for edges (it may cut a card short)
MAX_CANDIDATES = 24  # per box, from the longest edges first: each is read (~1 ms)


def _segments(gray: npt.NDArray[np.uint8], min_len: float) -> F64:
    lines = cv2.createLineSegmentDetector().detect(gray)[0]
    if lines is None:
        return np.zeros((0, 4))
    seg = lines.reshape(-1, 4).astype(np.float64)
    length = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    keep = length >= min_len
    return seg[keep][np.argsort(-length[keep])]


def line_candidates(frame: npt.NDArray[np.uint8], box: F64, card: tuple[float, float]) -> list[F64]:
    """Card-sized quads (``card`` = short, long sides, in frame pixels) started at each square corner
    of straight edges in and around ``box`` (4 x 2) of ``frame`` (BGR or gray)."""
    short, long_ = card
    h, w = frame.shape[:2]
    pad = PAD * long_
    x0, y0 = np.maximum(np.floor(box.min(axis=0) - pad), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(box.max(axis=0) + pad), [w, h]).astype(int)
    if x1 - x0 < short or y1 - y0 < short:
        return []
    region = frame[y0:y1, x0:x1]
    gray = cv2.cvtColor(region, cv2.COLOR_BGR2GRAY) if region.ndim == 3 else region
    seg = _segments(np.ascontiguousarray(gray), MIN_EDGE * short)
    seg[:, [0, 2]] += x0
    seg[:, [1, 3]] += y0
    gap = CORNER_GAP * short
    n = len(seg)
    if n < 2:
        return []
    e0, e1 = seg[:, :2], seg[:, 2:]
    d = (e1 - e0) / np.maximum(np.linalg.norm(e1 - e0, axis=1), 1e-9)[:, None]
    # every pair at once: square to each other, and where their lines meet lies near an end of each
    i, j = np.triu_indices(n, 1)
    den = d[i, 0] * d[j, 1] - d[i, 1] * d[j, 0]
    ok = np.abs(np.einsum("pk,pk->p", d[i], d[j])) <= SQUARE_COS
    i, j, den = i[ok], j[ok], den[ok]
    rel = e0[j] - e0[i]
    s = (rel[:, 0] * d[j, 1] - rel[:, 1] * d[j, 0]) / den
    p = e0[i] + s[:, None] * d[i]

    def near_end(k: npt.NDArray[np.intp]) -> tuple[npt.NDArray[np.bool_], F64]:
        """Whether the meeting point lies within ``gap`` of an end of segment ``k``, and the unit
        direction from it along the segment toward its far end."""
        to0, to1 = np.linalg.norm(e0[k] - p, axis=1), np.linalg.norm(e1[k] - p, axis=1)
        far = np.where((to0 <= to1)[:, None], e1[k], e0[k])
        u = far - p
        return np.minimum(to0, to1) <= gap, u / np.maximum(np.linalg.norm(u, axis=1), 1e-9)[:, None]

    near_i, u = near_end(i)
    near_j, v = near_end(j)
    out: list[F64] = []
    for k in np.flatnonzero(near_i & near_j):  # pairs of the longest edges first
        for sa, sb in ((short, long_), (long_, short)):
            q = np.array([p[k], p[k] + sa * u[k], p[k] + sa * u[k] + sb * v[k], p[k] + sb * v[k]])
            if all(quad_iou(q, o) <= SAME_IOU for o in out):
                out.append(q)
                if len(out) >= MAX_CANDIDATES:
                    return out
    return out
