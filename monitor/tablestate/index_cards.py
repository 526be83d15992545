"""Cards on the table from their indices alone (``perception/index_reader.py``): fanned hands.

Each index found says where its card lies: the index region is a known share of the card from the
card's corner (``rectify.CORNER_SHARE``), so its four corners, put in table millimetres, give the
card's corner, its two edge directions and so its centre. An index whose card would not be about
63 x 88 mm is no index. A card showing both its indices is one card: two indices whose cards'
centres fall together and which face opposite ways (the second index is printed turned 180 degrees)
are merged, keeping what both readings agree on (two names that differ name neither: a misread is
worse than an unread card). Neighbours in a fan face the same way and are never merged, however
close; the same index found twice is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from monitor.calibration import TableCalibration
from monitor.perception.index_reader import IndexRead
from monitor.perception.ranks import ink_of
from monitor.perception.rectify import CORNER_SHARE
from monitor.rules.cards import JOKER_TEXT
from monitor.tablestate.placement import CARD_MM

SIZE_TOLERANCE = 0.3  # a card implied by an index this far from 63 x 88 mm is not one
# A card's two indices: their cards' centres this close (an index's corner a few pixels off moves the
# centre it implies ~3x as far) and facing opposite ways within HEADING_DEG; one index found twice:
# the same way, within SAME_INDEX_MM (a fan steps 12 mm or more).
SAME_CARD_MM = 14.0  # 25 took a fan's neighbour (22 mm on) for the card's far index (the fault recordings)
# ... and up to this far where both read the same rank, no name or ink against it: one card's two
# indices lie 6.7 / 17.4 / 21.9 mm apart (median / p90 / p95, the fault recordings), two cards'
# opposite indices as close as 3 mm but seldom of one rank
SAME_RANK_CARD_MM = 22.0
SAME_INDEX_MM = 6.0
# one card read twice (the same name, or the same rank with one of them not named) facing the same way
# this close: the last card of a fan, its index read at two or three cuts (nothing beside it ends its
# index: fault recordings 13-16 mm apart; a fan steps ~22 mm)
SAME_NAME_MM = 18.0
# an unread cut this close to a card read, the same way: that card's index cut badly (two indices lie
# at least an index's width apart, ~12.6 mm, to be seen at all)
UNREAD_NEAR_MM = 12.0
HEADING_DEG = 45.0


@dataclass(frozen=True, slots=True)
class IndexCard:
    """A card seen by its index (or both): where its centre lies, and what was read of it."""

    x: float
    y: float
    zone: str
    card: str | None  # named
    rank: str | None  # rank read, card not named
    confidence: float
    indices: int = 1
    heading: float = 0.0  # degrees: the way the card's side runs from the index read (its "down")
    colour: str | None = None  # not named: its ink ("red", "black"), where read
    sure: bool = False  # named, or its rank read within the reader's count budget (rule 60 counts it)


def card_of_index(read: IndexRead, calibration: TableCalibration, frame_size: tuple[int, int]
                  ) -> tuple[float, float, float] | None:
    """The centre (table mm) of the card an index belongs to and the way it faces (degrees), or None
    if that card is no card."""
    cal_w, cal_h = calibration.image_size
    px = read.quad * (cal_w / frame_size[0], cal_h / frame_size[1])
    mm = calibration.image_to_table(np.asarray(px, np.float64))
    u = (mm[1] - mm[0]) / CORNER_SHARE[0]  # the card's top edge
    v = (mm[3] - mm[0]) / CORNER_SHARE[1]  # its side
    w, h = float(np.linalg.norm(u)), float(np.linalg.norm(v))
    if abs(w / CARD_MM[0] - 1) > SIZE_TOLERANCE or abs(h / CARD_MM[1] - 1) > SIZE_TOLERANCE:
        return None
    c = mm[0] + u / 2 + v / 2
    return float(c[0]), float(c[1]), float(np.degrees(np.arctan2(v[1], v[0])))


def _same_card(a: IndexCard, b: IndexCard) -> bool:
    d2 = (a.x - b.x) ** 2 + (a.y - b.y) ** 2
    turn = abs((a.heading - b.heading + 180.0) % 360.0 - 180.0)  # 0..180
    if turn >= 180.0 - HEADING_DEG:  # its two indices
        return d2 <= SAME_CARD_MM ** 2 or (d2 <= SAME_RANK_CARD_MM ** 2 and _one_rank(a, b))
    return turn <= HEADING_DEG and d2 <= SAME_INDEX_MM ** 2  # one index, found twice


def _one_rank(a: IndexCard, b: IndexCard) -> bool:
    """Both read to the same rank, and neither their names nor their inks say otherwise."""
    if _rank(a) is None or _rank(a) != _rank(b):
        return False
    if a.card is not None and b.card is not None and a.card != b.card:
        return False
    ink_a, ink_b = _colour(a), _colour(b)
    return not (ink_a and ink_b and ink_a != ink_b)


def _same_heading(a: IndexCard, b: IndexCard) -> bool:
    return abs((a.heading - b.heading + 180.0) % 360.0 - 180.0) <= HEADING_DEG


def _one_card_again(o: IndexCard, c: IndexCard) -> bool:
    """``c`` is card ``o`` read again: read the same close by (its name, or its rank where one of the
    two is not named), or an unread cut right beside it."""
    if not _same_heading(o, c):
        return False
    d2 = (o.x - c.x) ** 2 + (o.y - c.y) ** 2
    names_agree = c.card is None or o.card is None or c.card == o.card
    if _rank(c) is not None and _rank(c) == _rank(o) and names_agree:
        return d2 <= SAME_NAME_MM ** 2
    return c.card is None and _rank(c) is None and d2 <= UNREAD_NEAR_MM ** 2


def _agree(x: str | None, y: str | None) -> str | None:
    """What two readings agree on: the one given where the other read nothing; two that differ, nothing."""
    if x is None or y is None:
        return x or y
    return x if x == y else None


def _rank(c: IndexCard) -> str | None:
    return c.card[0] if c.card and c.card != JOKER_TEXT else c.rank


def _colour(c: IndexCard) -> str | None:
    return ink_of(c.card) if c.card else c.colour


def _merge(a: IndexCard, b: IndexCard) -> IndexCard:
    ink_a, ink_b = _colour(a), _colour(b)
    # a name the other reading's ink contradicts (a heart read black) is a suit in doubt: its rank stands
    card = None if ink_a and ink_b and ink_a != ink_b else _agree(a.card, b.card)
    rank = None if card is not None else _agree(_rank(a), _rank(b))
    colour = None if card is not None else _agree(ink_a, ink_b)
    # sure of what stands: a name, or the rank as a sure reading gave it
    sure = card is not None or (rank is not None and any(c.sure and _rank(c) == rank for c in (a, b)))
    return IndexCard((a.x + b.x) / 2, (a.y + b.y) / 2, a.zone, card, rank, max(a.confidence, b.confidence),
                     a.indices + b.indices, a.heading, colour, sure)


def index_cards(reads: Sequence[IndexRead], zone: str, calibration: TableCalibration,
                frame_size: tuple[int, int]) -> list[IndexCard]:
    """The cards of one zone's indices (found in that zone's picture), each index of a card merged."""
    out: list[IndexCard] = []
    for r in sorted(reads, key=lambda r: -r.score):
        c = card_of_index(r, calibration, frame_size)
        if c is None:
            continue
        new = IndexCard(c[0], c[1], zone, r.card, r.rank, r.confidence, heading=c[2], colour=r.colour,
                        sure=r.card is not None or (r.sure and r.rank is not None))
        near = [i for i, o in enumerate(out) if _same_card(o, new)]
        k = min(near, key=lambda i: (out[i].x - new.x) ** 2 + (out[i].y - new.y) ** 2) if near else None
        if k is None:
            out.append(new)
        else:
            out[k] = _merge(out[k], new)
    # a card named again once its readings were merged (each of its indices read at two cuts), or
    # an unread cut beside a card read: one card (read cards first, so the unread join them)
    merged: list[IndexCard] = []
    for card in sorted(out, key=lambda o: (o.card is None, _rank(o) is None, -o.confidence)):
        j = next((i for i, o in enumerate(merged) if _one_card_again(o, card)), None)
        if j is None:
            merged.append(card)
        else:
            merged[j] = _merge(merged[j], card)
    return merged
