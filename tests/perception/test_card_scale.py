"""Pictures brought to the trained card scale: the canvas, its mapping back, the scale found."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from monitor.perception.card_scale import (
    CANVAS_WH,
    TRAINED_CARD_PX,
    factor_for_card_px,
    factor_for_table,
    find_card_scale,
    to_canvas,
)
from tests.support.paths import MODELS, REAL_CARDS, TABLE_FILE, shared


def test_factors() -> None:
    assert factor_for_card_px(2 * TRAINED_CARD_PX) == pytest.approx(0.5)
    # a detector that learned cards twice as long (the photo models') takes a 300 px card to 128
    assert factor_for_card_px(300, trained=128) == pytest.approx(128 / 300)
    # a 4K table camera at 1.6 px/mm sees an 88 mm card 141 px long: about half again to the trained scale
    assert factor_for_table(1.6) == pytest.approx(TRAINED_CARD_PX / (88 * 1.6))
    with pytest.raises(ValueError, match="must be positive"):
        factor_for_table(0.0)
    with pytest.raises(ValueError, match="must be positive"):
        factor_for_card_px(-3)


def test_canvas_maps_back_to_the_picture() -> None:
    pic = np.zeros((640, 640, 3), np.uint8)
    pic[:] = (20, 120, 30)
    pic[100:400, 200:420] = 255
    c = to_canvas(pic, 0.25)
    assert c.image.shape[:2] == (CANVAS_WH[1], CANVAS_WH[0])
    # the filler is the picture's own border colour, not black
    assert tuple(int(v) for v in c.image[0, 0]) == (20, 120, 30)
    ys, xs = np.nonzero(c.image[..., 0] > 200)
    back = c.to_picture([[xs.min(), ys.min()], [xs.max() + 1, ys.max() + 1]])
    assert back[0] == pytest.approx([200, 100], abs=4.1)
    assert back[1] == pytest.approx([420, 400], abs=4.1)


def test_a_picture_larger_than_the_canvas_keeps_its_pixels() -> None:
    c = to_canvas(np.full((3000, 4000, 3), 7, np.uint8), 1.0)
    assert c.image.shape[:2] == (3000, 4000) and c.offset == (0.0, 0.0)


def test_the_scale_path_on_one_photo_at_three_sizes() -> None:
    """The cards' length found in one real photo is the same photo's cards at any of three sizes."""
    shared(REAL_CARDS)
    from monitor.perception.detector import Detector

    photo = sorted((REAL_CARDS / "test" / "images").glob("*.jpg"))[1]
    lines = (REAL_CARDS / "test" / "labels" / f"{photo.stem}.txt").read_text().split("\n")
    img = cv2.imread(str(photo))
    true = float(np.median([max(float(v.split()[3]), float(v.split()[4])) for v in lines if v.strip()]))
    true *= img.shape[0]
    det = Detector(MODELS / "detector.onnx", "onnxruntime", 1)
    found = []
    for s in (1.0, 0.5, 0.25):
        small = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
        f = find_card_scale(det, small)
        assert f is not None, f"no cards' scale found at size {s}"
        found.append(f.card_px / s)
    assert max(found) / min(found) < 1.25, found
    assert all(0.6 < f / true < 1.4 for f in found), (found, true)


def test_a_1080p_table_camera_is_perceived_as_it_is_and_a_4k_one_at_half() -> None:
    from monitor.calibration.table_file import load_table
    from monitor.perception.card_scale import card_px_on_table, live_factor

    table = load_table(TABLE_FILE)
    assert 56 < card_px_on_table(table) < 75
    assert live_factor(table) is None  # the scale the end-to-end gate proved
    # the same table seen by a 4K camera: every pixel coordinate doubled
    import dataclasses

    double = np.diag([0.5, 0.5, 1.0])
    four_k = dataclasses.replace(table, homography=table.homography @ double,
                                 image_size=(2 * table.image_size[0], 2 * table.image_size[1]))
    assert card_px_on_table(four_k) == pytest.approx(2 * card_px_on_table(table), rel=1e-6)
    assert live_factor(four_k) == pytest.approx(TRAINED_CARD_PX / (2 * card_px_on_table(table)), rel=1e-6)


def test_detections_on_a_resized_frame_map_back() -> None:
    from monitor.perception.card_scale import resized, scaled_back
    from monitor.perception.detections import Detection, Detections

    frame = np.zeros((2160, 3840, 3), np.uint8)
    assert resized(frame, 0.5).shape == (1080, 1920, 3)
    small = Detections(1920, 1080, (Detection("card_face_up", 0.9, ((10, 20), (50, 20), (50, 80), (10, 80)),
                                              identity="As", identity_confidence=0.99),))
    back = scaled_back(small, 0.5, (3840, 2160))
    assert (back.width, back.height) == (3840, 2160)
    assert back.items[0].corners == ((20, 40), (100, 40), (100, 160), (20, 160))
    assert back.items[0].identity == "As"
