"""Card boxes over bare felt: dropped from photos.

The card reader takes plain felt for a card's back, and surely (an empty box painted on the layout, or
the felt beside a card the detector boxed twice, read "back" at 1.00). Held-out test photos
(models/MODEL_CARD.md, session 44): of 53 boxes read as a back over no card, and 3 read as a back over
a face-up card, the inner part of 20 and of all 3 was the felt's own colour, while no box over a card
was. A box whose inner part is mostly within ``FELT_NEAR`` of the felt's colour is felt, not a card,
unless the reader named a face in it.

Unlike ``second_look``'s test (most of the box far from the felt), this one keeps a back whose colour
is near the felt's: a red back on red felt (val: real backs as near as 30) is still a card.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from monitor.perception.detections import Detection
from monitor.perception.labels import BACK, CARD_FACE_DOWN, CARD_FACE_UP, UNKNOWN

# Median L1 distance (CIE Lab, 8-bit) from the felt's colour under which a box's inner part is felt:
# half the nearest real back on the val photos (30, a red back on red felt); the felt boxes on test
# measured 2-12 (read over a card) and 0-15 (over none)
FELT_NEAR = 15.0
INSET = 0.8  # the inner part: the quad shrunk about its centre, clear of its edges and neighbours


def felt_distance(frame: npt.NDArray[np.uint8], corners: npt.ArrayLike, felt: npt.NDArray[np.uint8],
                  inset: float = INSET) -> float:
    """The median L1 distance (Lab) from the felt's colour ``felt`` of a quad's inner part (``inset`` of
    it about its centre); 0 for a quad with no pixel inside the frame."""
    q = np.asarray(corners, np.float64).reshape(4, 2)
    q = q.mean(axis=0) + (q - q.mean(axis=0)) * inset
    h, w = frame.shape[:2]
    x0, y0 = np.clip(np.floor(q.min(axis=0)).astype(int), 0, [w - 1, h - 1])
    x1, y1 = np.clip(np.ceil(q.max(axis=0)).astype(int) + 1, 1, [w, h])
    if x1 <= x0 or y1 <= y0:
        return 0.0
    inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(inside, [np.round(q - [x0, y0]).astype(np.int32)], 1)
    if not inside.any():
        return 0.0
    lab = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2LAB)[inside > 0].astype(np.int16)
    return float(np.median(np.abs(lab - felt.astype(np.int16)).sum(axis=1)))


def is_felt(frame: npt.NDArray[np.uint8], d: Detection, felt: npt.NDArray[np.uint8]) -> bool:
    """Whether a card detection is bare felt: no face named in it, and its inner part the felt's colour."""
    if d.kind not in (CARD_FACE_UP, CARD_FACE_DOWN):
        return False
    if d.identity not in (None, UNKNOWN, BACK):
        return False
    return felt_distance(frame, d.corners, felt) < FELT_NEAR


def without_felt(frame: npt.NDArray[np.uint8], items: list[Detection],
                 felt: npt.NDArray[np.uint8]) -> list[Detection]:
    """``items`` less the card boxes over bare felt (:func:`is_felt`)."""
    return [d for d in items if not is_felt(frame, d, felt)]
