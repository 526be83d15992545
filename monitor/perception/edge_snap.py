"""Move card boxes' four sides onto the cards' own edges, at full resolution.

The detector finds cards on a frame shrunk 3.75x and boxes them a median 8-10 px off at 1080p (a
card is ~50 px wide there), and a card lying on other cards, or on one of the layout's printed lines,
is not cut out by the classical finder. A crop cut from such a box shows felt or a neighbour along
one side, and the classifier reads it as a card with more pips (7d as 9d on the held-out frames).

Each side is searched as a straight line within ``REACH`` of the card's short side of where the box
put it, both of its ends moved independently, for the step from card to what lies beyond it: bright
inside, darker outside. The inside must be card *deep* inside as well (``DEPTH`` of the short side):
a printed line on the felt is bright for its width only, and the card's true edge inside it wins.
Two passes, the second with half the reach, let a side that was far off finish its move. All boxes
of a frame are searched together (one remap per sampled strip, one matrix product for every line of
every side): per box, numpy's call overhead would cost more than the search.

Not solved: a card lying on a bigger spread of cards, its box reaching over the card below. The
lower card's edge on the felt is a stronger step than the upper card's edge on the lower card, and
the side goes there.
"""

from __future__ import annotations

from collections.abc import Sequence

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
# Gray levels the inside must be brighter than the outside, on average along a side, for the side to
# be taken as found; below it (a card on paper-white, a felt-coloured card) the box is left as it was.
MIN_CONTRAST = 12.0
MIN_SHORT_SIDE = 8.0  # px: a smaller box has no sides to search
CANDIDATES = 12  # lines per side judged robustly, of the best by the plain mean

_G = 2 * OFFSETS + 1
_T = np.linspace(0.12, 0.88, SAMPLES)
_E = np.arange(_G)
# Every line tried runs from end offset e0 (at the side's start) to e1 (at its end). Summing a side's
# steps (offsets x samples, flattened) along each line is one product with this 0/1 matrix, a column
# per line (e0 * _G + e1) with one entry per sample: the offset the line passes there.
_ON_LINE = np.rint(_E[:, None, None] + _T[None, None, :] * (_E[None, :, None] - _E[:, None, None])
                   ).astype(np.intp)
_ON_FLAT = (_ON_LINE * SAMPLES + np.arange(SAMPLES)).reshape(_G * _G, SAMPLES)  # line -> its samples
_LINE_SUM = np.zeros((_G * SAMPLES, _G * _G), np.float32)
_LINE_SUM[_ON_FLAT, np.arange(_G * _G)[:, None]] = 1.0 / SAMPLES
_GRAY = np.array([0.114, 0.587, 0.299], np.float32)  # BGR weights, as cv2.COLOR_BGR2GRAY
_NO_TERM = np.empty((0, 0), np.float32)  # gemm's added matrix, unused (its weight is 0)


def _sample(frame: npt.NDArray[np.uint8], pts: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    """Gray levels of ``frame`` at ``pts`` (..., SAMPLES, 2), bilinear."""
    p = pts.astype(np.float32).reshape(-1, SAMPLES, 2)
    v = np.asarray(cv2.remap(frame, p[..., 0], p[..., 1], cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_REPLICATE), np.float32)
    if v.ndim == 3:
        v = v @ _GRAY
    return v.reshape(pts.shape[:-1])


def _snap_pass(frame: npt.NDArray[np.uint8], q: F64, reach: F64,
               depth: F64) -> tuple[F64, npt.NDArray[np.bool_]]:
    """Boxes ``q`` (M x 4 x 2) with each side moved to the line near it with the strongest
    card-to-outside step, and whether every side of a box found one."""
    m = len(q)
    a, b = q, np.roll(q, -1, axis=1)  # side i runs from corner i to corner i+1
    d = b - a
    length = np.maximum(np.linalg.norm(d, axis=2), 1e-9)
    out_n = np.stack([d[..., 1], -d[..., 0]], axis=2) / length[..., None]
    flip = np.einsum("msk,msk->ms", (a + b) / 2 - q.mean(axis=1, keepdims=True), out_n) < 0
    out_n[flip] *= -1  # each side's normal pointing away from its card
    offs = np.linspace(-1.0, 1.0, _G)[None, :] * reach[:, None]  # boxes x offsets
    base = a[:, :, None, :] + _T[None, None, :, None] * d[:, :, None, :]  # boxes x sides x samples x 2
    n5 = out_n[:, :, None, None, :]
    pts = base[:, :, None] + offs[:, None, :, None, None] * n5  # boxes x sides x offsets x samples x 2

    def at(shift: F64) -> npt.NDArray[np.float32]:
        return _sample(frame, pts + shift[:, None, None, None, None] * n5)

    strip = np.full(m, STRIP)
    step = np.minimum(at(-strip), at(-depth)) - at(strip)  # card on both inner points, darker out
    # a negative step (a finger or chip across the side, a dark pip inside) counts as none
    step = np.maximum(step, 0.0).reshape(m, 4, _G * SAMPLES)
    # Every line's mean step at once; then the best few judged by the mean of their best three
    # quarters, as a quarter of a side may lie under a finger or along an index (a plain mean pulls
    # the side outward, away from the pips near it).
    # (OpenCV's product: numpy's OpenBLAS would start threads that keep spinning into the models' turn)
    mean = np.asarray(cv2.gemm(step.reshape(m * 4, -1), _LINE_SUM, 1.0, _NO_TERM, 0.0))
    mean = mean.reshape(m, 4, _G * _G)
    cand = np.argpartition(mean, -CANDIDATES, axis=2)[..., -CANDIDATES:]  # boxes x sides x candidates
    vals = np.take_along_axis(step, _ON_FLAT[cand].reshape(m, 4, -1), axis=2)
    vals = vals.reshape(m, 4, CANDIDATES, SAMPLES)
    trimmed = np.partition(vals, SAMPLES // 4, axis=3)[..., SAMPLES // 4:].mean(axis=3)
    pick = trimmed.argmax(axis=2)[..., None]
    best = np.take_along_axis(cand, pick, axis=2)[..., 0]
    found = np.take_along_axis(trimmed, pick, axis=2)[..., 0].min(axis=1) >= MIN_CONTRAST
    found &= length.min(axis=1) >= 4
    e0 = np.take_along_axis(offs, best // _G, axis=1)[..., None]
    e1 = np.take_along_axis(offs, best % _G, axis=1)[..., None]
    p0, p1 = a + e0 * out_n, b + e1 * out_n
    # corner i joins side i-1 and side i
    p, r = np.roll(p0, 1, axis=1), p0
    u, v = np.roll(p1 - p0, 1, axis=1), p1 - p0
    den = u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]
    found &= np.abs(den).min(axis=1) > 1e-9
    cross = (r[..., 0] - p[..., 0]) * v[..., 1] - (r[..., 1] - p[..., 1]) * v[..., 0]
    t = cross / np.where(den == 0, 1.0, den)
    return p + t[..., None] * u, found


def snap_all_to_edges(frame: npt.NDArray[np.uint8], quads: Sequence[npt.ArrayLike]) -> list[F64 | None]:
    """Each quad (4 x 2, in order around its card) with its sides on the card's edges in ``frame``
    (BGR or gray, full resolution), or None where a side has no edge to snap to."""
    if not quads:
        return []
    q = np.stack([np.asarray(x, np.float64).reshape(4, 2) for x in quads])
    sides = np.linalg.norm(q - np.roll(q, -1, axis=1), axis=2)
    short = np.minimum((sides[:, 0] + sides[:, 2]) / 2, (sides[:, 1] + sides[:, 3]) / 2)
    alive = short >= MIN_SHORT_SIDE
    reach, depth = np.maximum(4.0, REACH * short), np.maximum(3.0, DEPTH * short)
    cur = q.copy()
    for k in range(PASSES):
        idx = np.flatnonzero(alive)
        if not len(idx):
            break
        moved, found = _snap_pass(frame, cur[idx], reach[idx] / 2 ** k, depth[idx])
        cur[idx[found]] = moved[found]
        if k == 0:  # no edge on the first pass: no snap; on a later one the first pass's stands
            alive[idx[~found]] = False
    return [cur[i] if alive[i] else None for i in range(len(q))]


def snap_to_edges(frame: npt.NDArray[np.uint8], quad: npt.ArrayLike) -> F64 | None:
    """One quad: :func:`snap_all_to_edges`."""
    return snap_all_to_edges(frame, [quad])[0]
