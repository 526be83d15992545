"""Card boxes that are no card are dropped (``not_cards``): over bare felt, or a blob much smaller than a
card only the classical finder saw; the reader takes felt, dice and lamps for backs."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from monitor.perception.classical import felt_colour
from monitor.perception.detections import Detection, corners_from_array
from monitor.perception.detector import Box
from monitor.perception.identity import Identity
from monitor.perception.labels import BACK, CARD_FACE_DOWN, CARD_FACE_UP, CHIP, UNKNOWN
from monitor.perception.not_cards import (
    BLOB_SHARE,
    FELT_NEAR,
    OVERSIZED_SHARE,
    felt_around,
    felt_distance,
    is_felt,
    is_oversized,
    is_small_blob,
    median_card_area,
    only_cards,
)
from monitor.perception.pipeline import Perceiver
from tests.support.detector import FixedBoxes
from tests.support.paths import DATA

FELT_BGR = (40, 110, 30)  # green baize
QUAD = np.array([[100.0, 100.0], [163.0, 100.0], [163.0, 188.0], [100.0, 188.0]])  # 63 x 88


def _table(back_bgr: tuple[int, int, int] | None = None) -> np.ndarray:
    """A 720p view of felt with a little noise, and where ``back_bgr`` is given a card of that colour at
    ``QUAD``."""
    rng = np.random.default_rng(3)
    noise = rng.integers(-4, 5, (720, 1280, 3))
    frame: np.ndarray = np.clip(np.array(FELT_BGR, np.int16) + noise, 0, 255).astype(np.uint8)
    if back_bgr is not None:
        frame[100:189, 100:164] = back_bgr
    return frame


class Reads:
    """A card reader with one answer for every crop."""

    def __init__(self, ident: Identity) -> None:
        self.ident = ident

    def classify(self, crops: list[np.ndarray], aspects: object = None) -> list[Identity]:
        return [self.ident for _ in crops]


def _detection(kind: str, identity: str | None, quad: np.ndarray = QUAD,
               source: str = "detector") -> Detection:
    return Detection(kind, 0.9, corners_from_array(quad), identity=identity, source=source)


def test_felt_distance_is_small_over_felt_and_large_over_a_card() -> None:
    bare, carded = _table(), _table((200, 60, 30))
    felt = felt_colour(bare)
    assert felt_distance(bare, QUAD, felt) < FELT_NEAR
    assert felt_distance(carded, QUAD, felt) > 4 * FELT_NEAR
    # a quad wholly off the frame has no inner part: nothing to call a card
    assert felt_distance(bare, QUAD + 5000, felt) == 0.0


def test_only_card_boxes_with_no_face_named_are_judged_felt() -> None:
    frame = _table()
    felt = felt_colour(frame)
    for kind, identity in ((CARD_FACE_DOWN, BACK), (CARD_FACE_DOWN, UNKNOWN), (CARD_FACE_UP, None)):
        assert is_felt(frame, _detection(kind, identity), felt), (kind, identity)
    # a face named is a card whatever lies around it; a chip is no card box
    assert not is_felt(frame, _detection(CARD_FACE_UP, "As"), felt)
    assert not is_felt(frame, _detection(CHIP, None), felt)
    kept = only_cards(frame, [_detection(CARD_FACE_DOWN, BACK), _detection(CARD_FACE_UP, "As")], felt, None)
    assert [d.identity for d in kept] == ["As"]


def test_felt_shaded_by_the_light_is_judged_against_the_felt_around_the_box() -> None:
    """The table's edge lies in shadow: a box over bare felt there is far from the frame's felt colour
    but near the felt just around it, and is dropped; a back lying there is kept."""
    frame = _table()
    frame[:, :400] = (frame[:, :400].astype(np.int16) * 0.8).astype(np.uint8)  # the shaded edge: 31 off
    felt = felt_colour(frame)
    shaded = _detection(CARD_FACE_DOWN, BACK)  # at QUAD, in the shade
    assert felt_distance(frame, QUAD, felt) > FELT_NEAR  # the frame's one colour misses it
    around = felt_around(frame, QUAD, felt)
    assert around is not None and felt_distance(frame, QUAD, around) < FELT_NEAR
    assert is_felt(frame, shaded, felt)
    with_back = frame.copy()
    with_back[100:189, 100:164] = (20, 45, 90)  # a brown back in the shade
    assert not is_felt(with_back, shaded, felt)
    # a box among other cards: its ring is no felt, so only the frame's felt colour counts
    crowded = frame.copy()
    crowded[60:240, 60:210] = (235, 235, 235)
    crowded[100:189, 100:164] = frame[100:189, 100:164]  # the shaded felt in the middle of a card's white
    assert felt_around(crowded, QUAD, felt) is None
    assert not is_felt(crowded, shaded, felt)
    assert felt_around(frame, QUAD + 5000, felt) is None  # off the frame


def test_a_blob_much_smaller_than_a_card_only_the_classical_finder_saw_is_no_card() -> None:
    card = float(63 * 88)
    die = QUAD[0] + (QUAD - QUAD[0]) * 0.5  # a quarter of the card's area
    assert median_card_area([QUAD, QUAD + 200, die]) == pytest.approx(card)
    assert median_card_area([]) is None
    assert is_small_blob(_detection(CARD_FACE_DOWN, BACK, die, "contour"), card)
    assert is_small_blob(_detection(CARD_FACE_UP, UNKNOWN, die, "contour"), card)
    # a card's size, a face named, a box the detector found too, or no card size known: kept
    assert not is_small_blob(_detection(CARD_FACE_DOWN, BACK, QUAD, "contour"), card)
    assert not is_small_blob(_detection(CARD_FACE_UP, "7h", die, "contour"), card)
    for source in ("detector", "both", "pile"):
        assert not is_small_blob(_detection(CARD_FACE_DOWN, BACK, die, source), card)
    assert not is_small_blob(_detection(CARD_FACE_DOWN, BACK, die, "contour"), None)
    # the share is the bound: just over it is a card partly hidden, still kept
    half = QUAD[0] + (QUAD - QUAD[0]) * np.sqrt(BLOB_SHARE + 0.02)
    assert not is_small_blob(_detection(CARD_FACE_DOWN, BACK, half, "contour"), card)
    frame = _table((30, 30, 160))
    kept = only_cards(frame, [_detection(CARD_FACE_DOWN, BACK, die, "contour"),
                              _detection(CARD_FACE_DOWN, BACK, QUAD, "contour")], felt_colour(frame), card)
    assert len(kept) == 1 and kept[0].corners == corners_from_array(QUAD)


@pytest.mark.parametrize("video", [False, True])
def test_a_box_over_bare_felt_read_as_a_back_is_dropped_and_a_real_back_kept(video: bool) -> None:
    one = FixedBoxes(Box(CARD_FACE_DOWN, 0.9, QUAD))
    back = Reads(Identity(BACK, 1.0, BACK, None, 1.0))
    # a back near the felt's colour: 27 from it (held-out val: a dark red back on red felt, 30)
    near_back = (30, 90, 30)
    for frame, kept in ((_table(), 0), (_table((30, 30, 160)), 1), (_table(near_back), 1)):
        p = Perceiver(one, back, classical="off", snap_edges=False, pile_tops=False,  # type: ignore[arg-type]
                      split_merged=False, second_look=False, tiles=False)
        cards = p.perceive(frame).cards
        assert len(cards) == kept
        if video:  # the live chain's way: only where the frame changed
            from monitor.perception.change_regions import Region

            region = Region((0, 0, 400, 400), ((0, 0, 400, 400),))
            assert len(p.perceive_regions(frame, [region]).cards) == kept
    p = Perceiver(one, back, classical="off", drop_strays=False)  # type: ignore[arg-type]
    assert [d.identity for d in p.perceive(_table()).cards] == [BACK]


def test_a_box_far_larger_than_a_card_named_no_face_boxes_no_card_on_photos() -> None:
    card = float(63 * 88)
    fan = QUAD[0] + (QUAD - QUAD[0]) * np.sqrt(OVERSIZED_SHARE + 0.3)  # a box over a fanned hand
    spread = QUAD[0] + (QUAD - QUAD[0]) * np.sqrt(OVERSIZED_SHARE - 0.1)  # several backs, kept
    for identity in (BACK, UNKNOWN, None):
        assert is_oversized(_detection(CARD_FACE_DOWN, identity, fan), card)
    assert not is_oversized(_detection(CARD_FACE_DOWN, BACK, spread), card)
    # a face named, a pile's box, or no card size known: kept
    assert not is_oversized(_detection(CARD_FACE_UP, "Kd", fan), card)
    assert not is_oversized(_detection("pile", None, fan), card)
    assert not is_oversized(_detection(CARD_FACE_DOWN, BACK, fan), None)
    frame = _table((30, 30, 160))
    frame[100:260, 100:270] = (30, 30, 160)  # the fan's cards: not felt
    felt = felt_colour(frame)
    items = [_detection(CARD_FACE_DOWN, BACK, fan), _detection(CARD_FACE_DOWN, BACK)]
    assert len(only_cards(frame, items, felt, card)) == 2  # video's way: the chain takes it for a set hand
    assert only_cards(frame, items, felt, card, oversized=True) == items[1:]


def test_photos_drop_boxes_far_larger_than_a_card_and_video_keeps_them() -> None:
    """The Perceiver sizes a card by the median of the detector's card boxes: with three cards and a box
    over 2.5 of them read as a back, photos keep the three, video all four."""
    fan = QUAD[0] + (QUAD - QUAD[0]) * 2.0 + np.array([0.0, 250.0])  # four cards' size
    others = [QUAD + np.array([dx, 0.0]) for dx in (300.0, 400.0, 500.0)]
    boxes = [Box(CARD_FACE_DOWN, 0.9, q) for q in (*others, fan)]
    frame = _table((30, 30, 160))
    for q in (*others, fan):  # each box over something card-coloured, not felt
        x0, y0 = q.min(axis=0).astype(int)
        x1, y1 = q.max(axis=0).astype(int)
        frame[y0:y1, x0:x1] = (30, 30, 160)
    back = Reads(Identity(BACK, 1.0, BACK, None, 1.0))
    found = {}
    for video in (False, True):
        p = Perceiver(FixedBoxes(*boxes), back, classical="off", snap_edges=False,  # type: ignore[arg-type]
                      pile_tops=False, split_merged=False, second_look=False, tiles=False,
                      drop_oversized=not video)
        found[video] = p.perceive(frame).cards
    assert len(found[False]) == 3 and len(found[True]) == 4
    assert all(abs(float(np.ptp(np.asarray(d.corners)[:, 0])) - 63) < 1 for d in found[False])
    from monitor.perception.pipeline import DEFAULT_MODELS

    assert Perceiver.from_models(DEFAULT_MODELS, "onnxruntime", 1).drop_oversized
    assert not Perceiver.from_models(DEFAULT_MODELS, "onnxruntime", 1, video=True).drop_oversized


def test_the_shipped_models_drop_only_boxes_over_no_card_on_the_oblique_sample() -> None:
    """On the committed oblique frame (rendered, with its truth), the boxes dropped are spurious ones
    (over no card): every card found and named without the rule is found and named with it."""

    from monitor.perception.imageio import load_image
    from monitor.perception.pipeline import DEFAULT_MODELS
    from monitor.perception.scoring import load_truth, score_frame

    path = DATA / "teal_oblique_1080p.jpg"
    frame, truth = load_image(path), load_truth(path.with_suffix(".json"))
    scores = {}
    for drop in (True, False):
        p = Perceiver.from_models(DEFAULT_MODELS, "onnxruntime", 1, drop_strays=drop)
        scores[drop] = score_frame(p.perceive(frame), truth)
    on, off = scores[True], scores[False]
    assert (on.unoccluded, on.found, on.identity_correct) == (off.unoccluded, off.found, off.identity_correct)
    assert on.found == on.unoccluded and on.named_faces == off.named_faces and on.false_names == []
    assert on.spurious < off.spurious


def test_the_felt_around_a_box_is_never_farther_from_the_frames_felt_than_the_shortcut_allows() -> None:
    """``is_felt`` does not look around a box farther than ``FAR_FROM_FELT`` from the frame's felt: the
    felt around any box, however the ring's pixels scatter within ``FELT_LIKE``, is nearer than that."""
    from monitor.perception.not_cards import FAR_FROM_FELT, FELT_LIKE

    rng = np.random.default_rng(7)
    felt = np.array([120, 140, 110], np.uint8)
    worst = 0
    for _ in range(200):
        frame = np.zeros((300, 300, 3), np.uint8)
        # ring pixels spread along the three axes, each as far from the felt as allowed
        share = rng.dirichlet((1, 1, 1), size=(300, 300))
        lab = (felt + np.round(share * (FELT_LIKE - 1) * rng.choice([-1, 1], 3))).clip(0, 255)
        frame[:] = cv2.cvtColor(lab.astype(np.uint8), cv2.COLOR_LAB2BGR)
        around = felt_around(frame, QUAD, felt)
        if around is not None:
            worst = max(worst, int(np.abs(around.astype(int) - felt.astype(int)).sum()))
    assert worst > 0 and worst + FELT_NEAR < FAR_FROM_FELT


def test_the_ring_around_a_box_is_its_margin_less_the_box() -> None:
    from monitor.perception.classical import inner_part

    frame = _table()
    cut, ring = inner_part(frame, QUAD, 1.4, hole=1.1)
    whole_cut, whole = inner_part(frame, QUAD, 1.4)
    assert cut.shape == whole_cut.shape and ring.shape == whole.shape
    assert not (ring & ~whole).any() and 0 < ring.sum() < whole.sum()
    h, w = ring.shape
    assert not ring[h // 2, w // 2] and whole[h // 2, w // 2]  # the box itself is the hole
    assert ring[h // 2, 1] and ring[1, w // 2]  # its margin is the ring
