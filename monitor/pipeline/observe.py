"""What the event extractor reads: each tracked object of one frame, placed on the table.

``Seen`` is the one value crossing from table state into event extraction. It is built from a
placed detection and its track id, whichever tracker gave it (ByteTrack on live detections, or the
truth's own ids in oracle replays), so the extractor never sees pixels or a model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from monitor.perception.labels import BACK, UNKNOWN
from monitor.tablestate.placement import Placed

# A face-up box the classifier gives at most this chance of being a back shows a face, read or not
# (a back is the reader's most certain class: 0.97-0.99 on the held-out deck's backs).
FACE_SURE_BACK_P = 0.05
KINDS = {"card_face_up": "card", "card_face_down": "card", "chip": "chips", "dice": "die", "pile": "pile",
         "hand": "hand"}


@dataclass(frozen=True, slots=True)
class Seen:
    """One tracked object in one frame.

    ``card`` is the identity of a face-up card when it was read (None face down or unread);
    ``value`` is a chip stack's worth in cents or a die's pips.
    """

    track: str
    kind: str  # card | chips | die | pile | hand
    zone: str  # calibration zone name: 'pile3', 'seat2.front', 'stub', 'banker', 'dice', 'felt', ...
    x: float
    y: float
    face_up: bool = False
    card: str | None = None
    value: int = 0
    confidence: float = 1.0
    # ``value`` is the whole worth; False: a lower bound (a stack seen from straight above shows its
    # top chip, not how many lie under it)
    exact: bool = True
    rank: str | None = None  # face up and unread: its rank when that was read (monitor.perception.ranks)
    # face up and surely a face: named, or the classifier all but rules out a back (an unread face)
    face_sure: bool = False
    back_p: float | None = None  # the classifier's chance that it is a back (None: not read)


@dataclass(frozen=True, slots=True)
class SpotChips:
    """The chips read in one settled picture (``version``) of a betting spot, at full resolution;
    ``alike``: for each chip, the spot's other pictures that look the same where it lies (it lay there
    in them too); ``away``: for each other picture, the share of the spot away from the chips of
    both that looks otherwise (an arm or a card resting there: much; chips put down or moved: none)."""

    version: int
    chips: tuple[Seen, ...]
    alike: tuple[frozenset[int], ...]
    away: Mapping[int, float]


def seen(track: str | int, p: Placed) -> Seen:
    d = p.detection
    kind = KINDS[d.kind]
    card = None
    if d.kind == "card_face_up" and d.identity not in (None, UNKNOWN, BACK):
        card = d.identity
    value = 0
    exact = True
    if kind == "chips":
        value = (d.denomination or 0) * (d.count or 1) * 100
        exact = d.count is not None
    elif kind == "die":
        value = d.count or 0
    conf = d.confidence if card is None else min(d.confidence, d.identity_confidence)
    x, y = p.center_mm
    # a "face-up" box the classifier reads as a back is a face-down card (the detector's face-up/down
    # call is the weaker of the two on a deck it never saw)
    face_up = d.kind == "card_face_up" and d.identity != BACK
    rank = d.rank if face_up and card is None else None
    face_sure = face_up and (card is not None or rank is not None or (
        d.back_probability is not None and d.back_probability <= FACE_SURE_BACK_P))
    return Seen(str(track), kind, p.zone, x, y, face_up, card, value, conf, exact, rank, face_sure,
                d.back_probability)
