"""A box holding two cards searched for the card on top (``monitor.perception.merged_boxes``), and the
pipeline using it for photos."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from monitor.perception.classical import quad_iou
from monitor.perception.detector import Box
from monitor.perception.identity import Identity
from monitor.perception.line_corners import MAX_CANDIDATES, line_candidates
from monitor.perception.merged_boxes import (
    FACE_MIN_CONFIDENCE,
    corner_candidates,
    holds_more_than_one,
    local_card_sides,
    pick_readings,
)
from monitor.perception.pipeline import DEFAULT_MODELS, Perceiver
from monitor.perception.rectify import order_card_corners
from tests.support.detector import FixedBoxes


def rect(x0: float, y0: float, w: float, h: float) -> np.ndarray:
    return np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], np.float64)


def test_a_box_squarer_or_bigger_than_its_neighbours_holds_more_than_one() -> None:
    card = (50.0, 70.0)
    assert not holds_more_than_one(rect(0, 0, 50, 70), card, 0.85)
    assert not holds_more_than_one(rect(0, 0, 53, 74), card, 0.85)  # the detector's few pixels
    assert holds_more_than_one(rect(0, 0, 80, 72), card, 0.85)  # two side by side: squarer
    assert holds_more_than_one(rect(0, 0, 50, 110), card, 0.85)  # one on another, offset lengthwise
    assert holds_more_than_one(rect(0, 0, 62, 86), card, 0.85)  # card-shaped, but too big


def test_the_expected_card_size_comes_from_the_nearest_single_cards() -> None:
    near = [rect(100 + 60 * k, 0, 50, 70) for k in range(3)]
    far = [rect(2000 + 60 * k, 0, 30, 42) for k in range(5)]
    quads = near + far
    sides = local_card_sides(quads, [True] * len(quads), np.array([160.0, 35.0]))
    assert sides is not None
    # the five nearest: the three near cards and two far ones; the median is a near card's
    assert sides == pytest.approx((50.0, 70.0))
    # boxes that are not single cards do not count, and too few give no size at all
    assert local_card_sides(quads, [True] + [False] * (len(quads) - 1), np.zeros(2)) is None


def test_candidates_lie_at_each_corner_both_ways_round() -> None:
    box = rect(0, 0, 100, 70)  # two 50 x 70 cards side by side
    cands = corner_candidates(box, (50.0, 70.0))
    left, right = rect(0, 0, 50, 70), rect(50, 0, 50, 70)
    assert max(quad_iou(c, left) for c in cands) > 0.99
    assert max(quad_iou(c, right) for c in cands) > 0.99
    for c in cands:  # every candidate is one card's size and lies inside the box
        s = np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)
        assert sorted([s[0], s[1]]) == pytest.approx([50.0, 70.0])
        assert c[:, 0].min() >= -1e-9 and c[:, 0].max() <= 100 + 1e-9
    # a card much bigger than the box does not fit: no candidate
    assert corner_candidates(rect(0, 0, 30, 40), (50.0, 70.0)) == []


def test_only_readings_of_cards_are_kept_surest_first_and_never_twice() -> None:
    a, a2, b, c = rect(0, 0, 50, 70), rect(3, 2, 50, 70), rect(50, 0, 50, 70), rect(0, 80, 50, 70)
    other = rect(0, 82, 50, 70)  # a card of the frame already read, where c lies
    ids = ["7d", "7d", "back", "Ks"]
    kept = pick_readings([a, a2, b, c], ids, [0.99, 0.995, 0.96, 0.999], [other], [True] * 4)
    # a2 (surer) wins over a; the back is kept at the reader's own threshold; c is the known card
    assert kept == [1, 2]
    # a back only where the caller trusts the candidate's outline (any candidate on a back reads "back")
    surer = [0.99, 0.995, 0.96, 0.999]
    assert pick_readings([a, a2, b, c], ids, surer, [other], [True, True, False, True]) == [1]
    # "unknown" never, and a face under the merged box's own bar not either
    assert pick_readings([a], ["unknown"], [0.999], [], [True]) == []
    assert pick_readings([a], ["7d"], [FACE_MIN_CONFIDENCE - 0.01], [], [True]) == []
    assert pick_readings([a], [None], [1.0], [], [True]) == []
    # a candidate across both cards of a box reads as the joker: never taken from one
    assert pick_readings([a, b], ["Jk", "7d"], [1.0, 0.99], [], [True, True]) == [1]


BLUE = (200, 60, 30)
WHITE = (235, 235, 235)


def _table() -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """Two single blue cards, and a white card partly under a blue one; the blue card on top."""
    frame = np.zeros((360, 560, 3), np.uint8)
    frame[:] = (40, 110, 30)
    singles = [rect(40, 40, 50, 70), rect(40, 200, 50, 70)]
    below, top = rect(250, 120, 50, 70), rect(290, 130, 50, 70)
    for q, colour in ((singles[0], BLUE), (singles[1], BLUE), (below, WHITE), (top, BLUE)):
        x0, y0 = q[0].astype(int)
        frame[y0:y0 + 70, x0:x0 + 50] = colour
    return frame, singles, top


class BoxesTogether(FixedBoxes):
    """A detector that boxes the two cards lying on each other as one."""

    def __init__(self, singles: list[np.ndarray]) -> None:
        super().__init__(*[Box("card_face_up", 0.9, q) for q in singles],
                         Box("card_face_up", 0.8, rect(250, 120, 90, 80)))


class ReadsBlue:
    """A reader that names a crop the Kh where it is nearly all blue card, and knows nothing else."""

    def classify(self, crops: list[np.ndarray], aspects: object = None) -> list[Identity]:
        out = []
        for c in crops:
            blue = np.mean(np.all(np.abs(c.astype(int) - BLUE) < 40, axis=2))
            out.append(Identity("Kh", 0.995, "Kh") if blue > 0.9 else Identity("unknown", 0.4, "Kh"))
        return out


def test_the_card_on_top_is_found_in_a_box_over_two_cards() -> None:
    frame, singles, top = _table()
    perceiver = Perceiver(BoxesTogether(singles), ReadsBlue(), classical="off")  # type: ignore[arg-type]
    cards = perceiver.perceive(frame).cards
    assert len(cards) == 3  # the two single cards, and the merged box replaced by the card on top
    found = [d for d in cards if quad_iou(np.asarray(d.corners, np.float64), top) > 0.9]
    assert len(found) == 1 and found[0].identity == "Kh"
    assert found[0].confidence == pytest.approx(0.8)  # the merged box's detection score
    assert np.abs(np.asarray(found[0].corners) - order_card_corners(top)).max() < 3


def test_a_merged_box_where_nothing_reads_stays_as_it_was() -> None:
    frame, singles, top = _table()
    x0, y0 = top[0].astype(int)
    frame[y0:y0 + 70, x0:x0 + 50] = WHITE  # the card on top is white too: nothing reads
    cards = Perceiver(BoxesTogether(singles), ReadsBlue(), classical="off").perceive(frame).cards  # type: ignore[arg-type]
    assert len(cards) == 3
    assert any(quad_iou(np.asarray(d.corners, np.float64), rect(250, 120, 90, 80)) > 0.99 for d in cards)


def test_split_can_be_turned_off_and_is_off_for_video() -> None:
    frame, singles, _ = _table()
    off = Perceiver(BoxesTogether(singles), ReadsBlue(), classical="off", split_merged=False)  # type: ignore[arg-type]
    cards = off.perceive(frame).cards
    assert any(quad_iou(np.asarray(d.corners, np.float64), rect(250, 120, 90, 80)) > 0.99 for d in cards)
    assert Perceiver.from_models(DEFAULT_MODELS, backend="onnxruntime").split_merged
    # the chain follows piles and hands as the detector boxes them (proven by the gate as it is)
    assert not Perceiver.from_models(DEFAULT_MODELS, backend="onnxruntime", video=True).split_merged


def test_a_card_laid_askew_on_another_is_started_from_its_own_square_corner() -> None:
    frame = np.zeros((300, 300, 3), np.uint8)
    frame[:] = (40, 110, 30)
    below = rect(100, 100, 50, 70)
    c, s = np.cos(0.5), np.sin(0.5)
    top = (rect(-25, -35, 50, 70) @ np.array([[c, s], [-s, c]])) + [150, 150]  # turned 0.5 rad, askew
    # in gray (what the edges are found in) felt 78, the card below 160, the one on top 192
    for q, colour in ((below, (160, 160, 160)), (top, (240, 200, 160))):
        cv2.fillPoly(frame, [np.round(q * 8).astype(np.int32)], colour, cv2.LINE_AA, shift=3)
    union = rect(100, 100, 95, 95)  # the box round both, along neither card's sides
    assert max(quad_iou(q, top) for q in corner_candidates(union, (50.0, 70.0))) < 0.5
    found = line_candidates(frame, union, (50.0, 70.0))
    assert max(quad_iou(q, top) for q in found) > 0.85
    assert len(found) <= MAX_CANDIDATES
    assert line_candidates(frame[:20, :20], rect(0, 0, 10, 10), (50.0, 70.0)) == []  # too small to hold one
