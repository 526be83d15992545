"""Move a card box's four sides onto the card's own edges, at full resolution.

The detector finds cards on a frame shrunk 3.75x and boxes them a median 8-10 px off at 1080p (a
card is ~50 px wide there), and a card lying on other cards, or on one of the layout's printed lines,
is not cut out by the classical finder. A crop cut from such a box shows felt or a neighbour along
one side, and the classifier reads it as a card with more pips (7d as 9d on the held-out frames).

Each side is searched as a straight line within ``REACH`` of the card's short side of where the box
put it, both of its ends moved independently, for the step from card to what lies beyond it: bright
inside, darker outside. The inside must be card *deep* inside as well (``DEPTH`` of the short side):
a printed line on the felt is bright for its width only, and the card's true edge inside it wins.
Two passes, the second with half the reach, let a side that was far off finish its move.

Not solved: a card lying on a bigger spread of cards, its box reaching over the card below. The
lower card's edge on the felt is a stronger step than the upper card's edge on the lower card, and
the side goes there.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]

REACH = 0.22  # of the short side: how far a side may move (the detector's error, with room)
DEPTH = 0.08  # of the short side, at least 3 px: where the inside must still be card
PASSES = 2
SAMPLES = 16  # points along each side (its middle 76%: the rounded corners are left out)
OFFSETS = 8  # offsets tried each way per pass (finer as the reach halves: 0.5 px apart at ~6 px)
STRIP = 1.5  # px each side of a candidate line where brightness is compared
# Gray levels the inside must be brighter than the outside, over most of a side, for the side to be
# taken as found; below it (a card on paper-white, a felt-coloured card) the box is left as it was.
MIN_CONTRAST = 12.0

_G = 2 * OFFSETS + 1
_T = np.linspace(0.12, 0.88, SAMPLES)
# Every line tried runs from end offset e0 (at the side's start) to e1 (at its end): for each pair and
# each sample along the side, the offset it passes at, as a flat index into an offsets x samples array.
_E = np.arange(_G)
_LINES = (np.rint(_E[:, None, None] + _T[None, None, :] * (_E[None, :, None] - _E[:, None, None]))
          .astype(np.intp) * SAMPLES + np.arange(SAMPLES)[None, None, :])


def _short_side(q: F64) -> float:
    s = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    return float(min((s[0] + s[2]) / 2, (s[1] + s[3]) / 2))


def _intersect(p: F64, d: F64, r: F64, e: F64) -> F64 | None:
    den = d[0] * e[1] - d[1] * e[0]
    if abs(den) < 1e-9:
        return None
    t = ((r[0] - p[0]) * e[1] - (r[1] - p[1]) * e[0]) / den
    return np.asarray(p + t * d, np.float64)


def _snap_once(gray: npt.NDArray[np.float32], q: F64, reach: float, depth: float) -> F64 | None:
    """Each side moved to the line near it with the strongest card-to-outside step (all four sides
    searched at once: one remap per sampled strip)."""
    a, b = q, np.roll(q, -1, axis=0)  # side i runs from corner i to corner i+1
    d = b - a
    length = np.linalg.norm(d, axis=1)
    if length.min() < 4:
        return None
    out_n = np.stack([d[:, 1], -d[:, 0]], axis=1) / length[:, None]
    flip = np.einsum("ij,ij->i", (a + b) / 2 - q.mean(axis=0), out_n) < 0
    out_n[flip] *= -1  # each side's normal pointing away from the card
    offs = np.linspace(-reach, reach, _G)
    base = a[:, None, :] + _T[None, :, None] * d[:, None, :]  # sides x samples x 2
    pts = base[:, None] + offs[None, :, None, None] * out_n[:, None, None, :]  # sides x offsets x samples x 2

    def at(shift: float) -> npt.NDArray[np.float32]:
        p = (pts + shift * out_n[:, None, None, :]).astype(np.float32).reshape(4 * _G, SAMPLES, 2)
        return np.asarray(cv2.remap(gray, p[..., 0], p[..., 1], cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE), np.float32).reshape(4, -1)

    step = np.minimum(at(-STRIP), at(-depth)) - at(STRIP)  # card on both inner points, darker out
    vals = np.take_along_axis(step, _LINES.reshape(1, -1), axis=1).reshape(4, _G * _G, SAMPLES)
    # the best three quarters: a finger, a chip or a pip across a quarter of the side does not count
    score = np.partition(vals, SAMPLES // 4, axis=2)[:, :, SAMPLES // 4:].mean(axis=2)
    best = score.argmax(axis=1)
    if float(score[np.arange(4), best].min()) < MIN_CONTRAST:
        return None
    p0 = a + offs[best // _G, None] * out_n
    p1 = b + offs[best % _G, None] * out_n
    out = np.empty((4, 2))
    for i in range(4):  # corner i joins side i-1 and side i
        pt = _intersect(p0[i - 1], p1[i - 1] - p0[i - 1], p0[i], p1[i] - p0[i])
        if pt is None:
            return None
        out[i] = pt
    return out


def snap_to_edges(frame: npt.NDArray[np.uint8], quad: npt.ArrayLike) -> F64 | None:
    """``quad`` (4 x 2, in order around the card) with its sides on the card's edges in ``frame``
    (BGR, full resolution), or None where a side has no edge to snap to."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    short = _short_side(q)
    if short < 8:
        return None
    reach, depth = max(4.0, REACH * short), max(3.0, DEPTH * short)
    # only the card's neighbourhood is made gray: a box moves by the reach at most, per pass
    h, w = frame.shape[:2]
    m = 2 * reach + depth + STRIP + 2
    x0, y0 = (max(0, int(v)) for v in np.floor(q.min(axis=0) - m))
    x1, y1 = int(min(w, np.ceil(q[:, 0].max() + m))), int(min(h, np.ceil(q[:, 1].max() + m)))
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    roi = frame[y0:y1, x0:x1]
    gray = (cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY) if roi.ndim == 3 else roi).astype(np.float32)
    offset = np.array([x0, y0], np.float64)
    cur = q - offset
    for k in range(PASSES):
        nxt = _snap_once(gray, cur, reach / 2 ** k, depth)
        if nxt is None:
            return None if k == 0 else cur + offset
        cur = nxt
    return cur + offset
