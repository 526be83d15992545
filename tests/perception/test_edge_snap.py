"""Card boxes snapped to the card's own edges (``monitor.perception.edge_snap``), and the pipeline
using it for the detector's boxes."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from monitor.perception.classical import quad_iou
from monitor.perception.detector import Box
from monitor.perception.edge_snap import snap_to_edges
from monitor.perception.identity import Identity
from monitor.perception.pipeline import Perceiver
from monitor.perception.rectify import order_card_corners
from tests.support.detector import FixedBoxes

FELT = (40, 110, 30)  # BGR green


def card_quad(cx: float, cy: float, w: float, h: float, angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    base = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return order_card_corners(base @ np.array([[c, s], [-s, c]]) + [cx, cy])


def draw(frame: np.ndarray, quad: np.ndarray, colour: tuple[int, int, int]) -> None:
    # drawn 8x supersampled so the card's edges are anti-aliased as a camera sees them
    cv2.fillPoly(frame, [np.round(quad * 8).astype(np.int32)], colour, cv2.LINE_AA, shift=3)


def table(*cards: np.ndarray, lines: tuple[np.ndarray, ...] = ()) -> np.ndarray:
    frame = np.zeros((360, 480, 3), np.uint8)
    frame[:] = FELT
    for ln in lines:
        cv2.polylines(frame, [np.round(ln).astype(np.int32)], False, (235, 235, 235), 2, cv2.LINE_AA)
    for q in cards:
        draw(frame, q, (245, 245, 240))
        # pips and an index: dark marks inside that must not pull the sides
        c = q.mean(axis=0)
        cv2.circle(frame, tuple(int(v) for v in c), 6, (20, 20, 200), -1)
        cv2.circle(frame, tuple(int(v) for v in (q[0] * 0.8 + c * 0.2)), 3, (20, 20, 200), -1)
    frame = cv2.GaussianBlur(frame, (0, 0), 0.8)
    return np.asarray(np.clip(frame + np.random.default_rng(3).normal(0, 3, frame.shape), 0, 255), np.uint8)


def corner_error(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(order_card_corners(a) - order_card_corners(b)).max())


@pytest.mark.parametrize("angle", [0.0, 0.35, 1.1, -0.6])
def test_a_box_off_by_several_pixels_lands_on_the_card(angle: float) -> None:
    truth = card_quad(240, 180, 52, 72, angle)
    frame = table(truth)
    # the detector's kind of error: too big, shifted and turned a little
    box = card_quad(244, 176, 60, 80, angle + 0.06)
    assert corner_error(box, truth) > 5
    snapped = snap_to_edges(frame, box)
    assert snapped is not None
    assert corner_error(snapped, truth) < 1.5
    assert quad_iou(snapped, truth) > 0.95


def test_a_printed_line_beside_the_card_does_not_take_its_side() -> None:
    truth = card_quad(240, 180, 52, 72, 0.0)
    # the layout's white line 6 px above the card's top, inside the box's reach
    line = np.array([[150.0, 138.0], [330.0, 138.0]])
    frame = table(truth, lines=(line,))
    box = card_quad(240, 174, 56, 86, 0.0)  # its top side beyond the line
    snapped = snap_to_edges(frame, box)
    assert snapped is not None
    assert corner_error(snapped, truth) < 1.5


def test_no_edges_leaves_the_box_alone() -> None:
    frame = table()
    assert snap_to_edges(frame, card_quad(240, 180, 52, 72, 0.2)) is None
    assert snap_to_edges(frame, card_quad(5, 5, 4, 6, 0.0)) is None  # too small to have sides


def test_a_box_at_the_frame_edge_is_handled() -> None:
    truth = card_quad(30, 40, 52, 72, 0.0)
    frame = table(truth)
    snapped = snap_to_edges(frame, card_quad(32, 38, 58, 78, 0.0))
    # the card's top-left corner lies at (4, 4): its sides there are next to the frame's border
    assert snapped is None or corner_error(snapped, truth) < 2.0


def test_the_pipeline_reads_the_card_from_its_snapped_outline() -> None:
    truth = card_quad(240, 180, 52, 72, 0.3)
    frame = table(truth)
    box = card_quad(245, 175, 60, 82, 0.36)

    one_box = FixedBoxes(Box("card_face_up", 0.9, box))  # a detector that boxed the card roughly

    class Reads:  # a classifier with a fixed answer
        def classify(self, crops: list[np.ndarray], aspects: object = None) -> list[Identity]:
            return [Identity("7d", 0.99, "7d") for _ in crops]

    d = Perceiver(one_box, Reads(), classical="off", snap_edges=True).perceive(frame).cards[0]  # type: ignore[arg-type]
    assert d.identity == "7d"
    assert corner_error(np.asarray(d.corners, np.float64), truth) < 1.5


def test_a_box_over_two_cards_keeps_its_corners() -> None:
    left, right = card_quad(222, 180, 52, 72, 0.0), card_quad(252, 180, 52, 72, 0.0)
    frame = table(left, right)
    # 88 x 78: squarer than a card
    two = np.array([[193.0, 141.0], [281.0, 141.0], [281.0, 219.0], [193.0, 219.0]])

    two_cards = FixedBoxes(Box("card_face_up", 0.9, two))

    class Reads:
        def classify(self, crops: list[np.ndarray], aspects: object = None) -> list[Identity]:
            return [Identity("7d", 0.99, "7d") for _ in crops]

    d = Perceiver(two_cards, Reads(), classical="off", snap_edges=True,  # type: ignore[arg-type]
                  split_merged=False).perceive(frame).cards[0]
    assert corner_error(np.asarray(d.corners, np.float64), two) < 1e-6
    assert d.identity == "unknown"  # and not named: no one card's outline


def test_the_pipeline_leaves_boxes_alone_when_told() -> None:
    truth = card_quad(240, 180, 52, 72, 0.3)
    box = card_quad(245, 175, 60, 82, 0.36)

    one_box = FixedBoxes(Box("card_face_up", 0.9, box))
    d = Perceiver(one_box, None, classical="off", snap_edges=False).perceive(table(truth)).cards[0]  # type: ignore[arg-type]
    assert corner_error(np.asarray(d.corners, np.float64), box) < 1e-6


def test_photos_are_snapped_and_video_is_not() -> None:
    from monitor.perception.pipeline import DEFAULT_MODELS

    assert Perceiver.from_models(DEFAULT_MODELS, backend="onnxruntime").snap_edges
    # the live chain's fan reader reads fanned cards along the detector's own boxes
    assert not Perceiver.from_models(DEFAULT_MODELS, backend="onnxruntime", video=True).snap_edges
    asked = Perceiver.from_models(DEFAULT_MODELS, backend="onnxruntime", video=True, snap_edges=True)
    assert asked.snap_edges
