"""One card boxed twice in a still picture, named the same by both boxes: kept once.

The photo path gathers card boxes from several finders (the detector, the classical contour finder,
the card on top found inside a merged box), and each box is read alone. On the real valid photos a
card was often boxed twice, the second box shifted off the first (quad IoU 0.45-0.65), and both
named it: one named card over no labelled card, counted against identity precision, and in a
picture's card list the same card twice. Two distinct cards of the real sets' labels overlap that
much rarely (45 of 8,506 pairs over IoU 0.4, train and valid) and are then two identities of one deck,
so two overlapping boxes named alike are one card.

Stills only: a live table's duplicate-card rule must still see two equal cards fanned in one hand,
and the chain's tracker keeps one box per card there.
"""

from __future__ import annotations

import numpy as np

from monitor.perception.classical import quad_iou
from monitor.perception.detections import Detection, Detections
from monitor.perception.labels import BACK, UNKNOWN

SAME_CARD_IOU = 0.4
# The box kept is the one whose finder is surest of a card, then the surer reading
SOURCE_RANK = {"both": 0, "detector": 1, "split": 2, "second": 3, "pile": 4, "contour": 5}
CARD_KINDS = ("card_face_up", "card_face_down")


def _named(d: Detection) -> bool:
    return d.kind in CARD_KINDS and d.identity not in (None, UNKNOWN, BACK)


def one_box_per_card(dets: Detections, min_iou: float = SAME_CARD_IOU) -> Detections:
    """``dets`` less each named card box that overlaps a preferred box of the same name by ``min_iou``
    or more; every other object as it was, in its order."""
    named = [k for k, d in enumerate(dets.items) if _named(d)]
    order = sorted(named, key=lambda k: (SOURCE_RANK.get(dets.items[k].source, len(SOURCE_RANK)),
                                         -dets.items[k].identity_confidence, k))
    kept: list[int] = []
    dropped: set[int] = set()
    for k in order:
        d = dets.items[k]
        quad = np.asarray(d.corners, np.float64)
        if any(dets.items[j].identity == d.identity
               and quad_iou(quad, np.asarray(dets.items[j].corners, np.float64)) >= min_iou for j in kept):
            dropped.add(k)
        else:
            kept.append(k)
    if not dropped:
        return dets
    items = tuple(d for k, d in enumerate(dets.items) if k not in dropped)
    return Detections(dets.width, dets.height, items, dets.timings_ms)
