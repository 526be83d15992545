"""One card boxed twice in a still picture, named the same by both boxes: kept once.

The photo path gathers card boxes from several finders (the detector, the classical contour finder,
the card on top found inside a merged box), and each box is read alone. On the real valid photos a
card was often boxed twice, the second box shifted off the first or turned across it (a contour
finder's outline, a split box laid the wrong way round), and both named it: one named card over no
labelled card, counted against identity precision, and in a picture's card list the same card twice.
One deck holds each card once, so two overlapping boxes named alike are one card. On the real valid
photos with the Lite0 reader (its first epoch), at threshold 0.975, boxes named over no labelled
card or named wrong: 38 kept as found, 16 dropping a box overlapping a surer one by IoU 0.4, 11 by
a fifth of the smaller box (0.1: 11, 0.3: 12); no card named right was lost by any.

Stills only: a live table's duplicate-card rule must still see two equal cards fanned in one hand,
and the chain's tracker keeps one box per card there.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from monitor.perception.detections import Detection, Detections
from monitor.perception.labels import BACK, CARD_FACE_DOWN, CARD_FACE_UP, UNKNOWN

SAME_CARD_SHARE = 0.2  # of the smaller box's area covered by the other
# The box kept is the one whose finder is surest of a card, then the surer reading
SOURCE_RANK = {"both": 0, "detector": 1, "split": 2, "second": 3, "pile": 4, "contour": 5}


def _named(d: Detection) -> bool:
    return d.kind in (CARD_FACE_UP, CARD_FACE_DOWN) and d.identity not in (None, UNKNOWN, BACK)


def overlap_share(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> float:
    """The share of the smaller of two convex quads that the other covers."""
    pa, pb = a.astype(np.float32), b.astype(np.float32)
    inter, _ = cv2.intersectConvexConvex(pa, pb)
    smaller = min(cv2.contourArea(pa), cv2.contourArea(pb))
    return float(inter / smaller) if smaller > 0 else 0.0


def one_box_per_card(dets: Detections, min_share: float = SAME_CARD_SHARE) -> Detections:
    """``dets`` less each named card box that overlaps a preferred box of the same name by ``min_share``
    of the smaller box or more; every other object as it was, in its order."""
    named = [k for k, d in enumerate(dets.items) if _named(d)]
    order = sorted(named, key=lambda k: (SOURCE_RANK.get(dets.items[k].source, len(SOURCE_RANK)),
                                         -dets.items[k].identity_confidence, k))
    kept: list[int] = []
    dropped: set[int] = set()
    for k in order:
        d = dets.items[k]
        quad = np.asarray(d.corners, np.float64)
        if any(dets.items[j].identity == d.identity
               and overlap_share(quad, np.asarray(dets.items[j].corners, np.float64)) >= min_share
               for j in kept):
            dropped.add(k)
        else:
            kept.append(k)
    if not dropped:
        return dets
    items = tuple(d for k, d in enumerate(dets.items) if k not in dropped)
    return Detections(dets.width, dets.height, items, dets.timings_ms)
