"""The second look (photos): card boxes the detector scored under its threshold are read, and kept only
where the reader is sure they are cards over a box that is not mostly felt."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from monitor.perception.classical import card_share, felt_colour, quad_iou
from monitor.perception.detections import Detection, corners_from_array
from monitor.perception.detector import Box, Detector
from monitor.perception.imageio import load_image
from monitor.perception.labels import BACK, CARD_FACE_DOWN, CARD_FACE_UP, CHIP, PILE, UNKNOWN
from monitor.perception.pipeline import DEFAULT_MODELS, Perceiver
from monitor.perception.scoring import load_truth
from monitor.perception.second_look import CARD_SHARE_MIN, SECOND_LOOK_CONF, confirmed, uncovered
from tests.support.paths import DATA, TABLE_1080P

OBLIQUE = DATA / "teal_oblique_1080p.jpg"  # a held-out table, seen askew: some boxes scored low
PURPLE = (120, 40, 90)  # BGR felt


def _quad(x: float, y: float, w: float = 60, h: float = 84) -> npt.NDArray[np.float64]:
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64)


def _felt_with_a_card_and_a_painted_box() -> npt.NDArray[np.uint8]:
    """Purple felt; a pale card at (100, 100); an empty box painted in white lines at (300, 100)."""
    img = np.zeros((400, 600, 3), np.uint8)
    img[:] = PURPLE
    img[100:184, 100:160] = (235, 240, 240)
    img[100:184, 300:360] = PURPLE
    img[100:184, 300:303] = img[100:184, 357:360] = 255
    img[100:103, 300:360] = img[181:184, 300:360] = 255
    return img


def test_a_card_covers_its_box_and_an_empty_painted_box_is_felt() -> None:
    img = _felt_with_a_card_and_a_painted_box()
    felt = felt_colour(img)
    assert card_share(img, _quad(100, 100), felt) == pytest.approx(1.0)
    assert card_share(img, _quad(300, 100), felt) < 0.05  # its lines lie outside the inner part read
    assert card_share(img, _quad(130, 100), felt) == pytest.approx(0.5, abs=0.1)  # half on the card
    assert card_share(img, _quad(-100, -100, 50, 50), felt) == 0.0  # off the frame: nothing to count


def _reading(identity: str, corners: npt.NDArray[np.float64]) -> Detection:
    kind = CARD_FACE_DOWN if identity == BACK else CARD_FACE_UP
    return Detection(kind, 0.3, corners_from_array(corners), identity=identity, source="second")


def test_only_cards_read_surely_over_no_felt_are_kept() -> None:
    img = _felt_with_a_card_and_a_painted_box()
    felt = felt_colour(img)
    card, painted = _quad(100, 100), _quad(300, 100)
    readings = [_reading(BACK, card), _reading("As", card), _reading(UNKNOWN, card),
                _reading(BACK, painted), _reading("Kd", painted)]
    kept = confirmed(img, readings, felt)
    assert [d.identity for d in kept] == [BACK, "As"]
    assert CARD_SHARE_MIN > 0.5  # a box half on a card is not taken for one


def test_a_low_box_is_looked_at_once_and_not_where_something_was_found() -> None:
    found = [_quad(0, 0)]
    low = [Box(CARD_FACE_UP, 0.30, _quad(5, 5)),  # the card found again
           Box(CARD_FACE_DOWN, 0.28, _quad(200, 0)),  # a new card, two boxes for it
           Box(CARD_FACE_UP, 0.31, _quad(204, 2)),
           Box(CHIP, 0.30, _quad(400, 0, 30, 30)),  # not a card
           Box(CARD_FACE_UP, 0.26, _quad(600, 0))]
    out = uncovered(low, found)
    assert [(b.kind, b.confidence) for b in out] == [(CARD_FACE_UP, 0.31), (CARD_FACE_UP, 0.26)]
    assert uncovered([], found) == []


@pytest.fixture(scope="module")
def detector() -> Detector:
    return Detector(DEFAULT_MODELS / "detector.onnx", backend="onnxruntime")


def test_the_detectors_floor_adds_lower_boxes_and_keeps_those_that_pass(detector: Detector) -> None:
    frame = load_image(OBLIQUE)
    plain = detector.detect(frame)
    floored = detector.detect(frame, floor=SECOND_LOOK_CONF)
    passing = [b for b in floored if detector.passes(b)]
    assert [(b.kind, b.confidence) for b in passing] == [(b.kind, b.confidence) for b in plain]
    assert all(np.allclose(a.corners, b.corners) for a, b in zip(passing, plain, strict=True))
    lower = [b for b in floored if not detector.passes(b)]
    assert lower, "the oblique frame has boxes scored between the floor and the thresholds"
    assert all(SECOND_LOOK_CONF <= b.confidence < detector.class_conf[detector.classes.index(b.kind)]
               for b in lower)


class OneCardScoredLow:
    """The shipped detector, except that it scores one card's box (nearest ``at``) ``score`` and adds a
    box at ``extra`` with that score: what a card the detector is unsure of looks like."""

    def __init__(self, real: Detector, at: npt.NDArray[np.float64], extra: npt.NDArray[np.float64],
                 score: float = 0.3) -> None:
        self.real, self.at, self.extra, self.score = real, at, extra, score

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def detect(self, frame: npt.NDArray[np.uint8], region: Any = None,
               floor: float | None = None) -> list[Box]:
        boxes = self.real.detect(frame, region, floor)
        cards = [b for b in boxes if b.kind in (CARD_FACE_UP, CARD_FACE_DOWN)]
        mine = min(cards, key=lambda b: float(np.linalg.norm(b.corners.mean(axis=0) - self.at)))
        boxes = [Box(b.kind, self.score, b.corners) if b is mine else b for b in boxes
                 if b is mine or quad_iou(b.corners, mine.corners) < 0.3]
        boxes.append(Box(CARD_FACE_UP, self.score, self.extra))
        return [b for b in boxes if floor is not None or self.real.passes(b)]


def test_a_card_the_detector_scored_low_is_found_and_read_and_felt_is_not(detector: Detector) -> None:
    """The table frame with the classical finder off: one card's box scored 0.3 (under the threshold)
    is found only with the second look, and read right; a low box on empty felt is not kept."""
    frame = load_image(TABLE_1080P)
    truth = [o for o in load_truth(TABLE_1080P.with_suffix(".json"))
             if o.get("face_up") and o.get("visible_share", 1.0) > 0.99]
    card = truth[0]
    poly = np.asarray(card["polygon"], np.float64)
    felt = felt_colour(frame)
    empty = next(_quad(x, y, 60, 84) for y in range(100, 900, 50) for x in range(100, 1700, 50)
                 if card_share(frame, _quad(x, y, 60, 84), felt) < 0.05
                 and all(quad_iou(_quad(x, y, 60, 84), np.asarray(o["polygon"])) == 0
                         for o in load_truth(TABLE_1080P.with_suffix(".json"))))
    stand_in = OneCardScoredLow(detector, poly.mean(axis=0), empty)
    found = {}
    for look in (False, True):
        perceiver = Perceiver.from_models(DEFAULT_MODELS, backend="onnxruntime", classical="off",
                                          second_look=look)
        perceiver.detector = stand_in  # type: ignore[assignment]
        found[look] = perceiver.perceive(frame).cards
    assert not any(quad_iou(np.asarray(d.corners), poly) > 0.5 for d in found[False])
    hits = [d for d in found[True] if quad_iou(np.asarray(d.corners), poly) > 0.5]
    assert len(hits) == 1 and hits[0].source == "second"
    assert hits[0].identity == card["identity"]
    assert not any(quad_iou(np.asarray(d.corners), empty) > 0.3 for d in found[True])
    # the rest is as it was: the second look only adds
    rest = [d for d in found[True] if d is not hits[0]]
    assert len(rest) == len(found[False])


def test_video_takes_no_second_look_and_photos_do() -> None:
    assert not Perceiver.from_models(DEFAULT_MODELS, backend="onnxruntime", video=True).second_look
    assert Perceiver.from_models(DEFAULT_MODELS, backend="onnxruntime").second_look
    assert PILE not in (CARD_FACE_UP, CARD_FACE_DOWN)
