"""The shipped default table file agrees with the shipped test image and the renderer's camera."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from monitor.calibration import load_table
from monitor.calibration.fitting import calibrate, marker_pairs
from monitor.calibration.markers import MarkerSet, find_markers
from monitor.geometry import default_layout
from tests.support.paths import ROOT, TABLE_FILE


def test_test_image_calibrates_to_the_shipped_table() -> None:
    shipped = load_table(TABLE_FILE)
    frame = cv2.imread(str(ROOT / "calibration" / "default-camera-markers.jpg"))
    assert frame is not None and (frame.shape[1], frame.shape[0]) == shipped.image_size
    layout = default_layout()
    pairs, _ = marker_pairs(find_markers(frame), MarkerSet.for_layout(layout))
    assert len(pairs) == 6
    fitted = calibrate(pairs, layout, shipped.image_size, "aruco").calibration
    grid = np.stack(np.meshgrid(np.linspace(100, 1820, 12), np.linspace(100, 980, 8)), -1).reshape(-1, 2)
    # the same pixel lands within 3 mm on the table either way
    assert np.abs(fitted.image_to_table(grid) - shipped.image_to_table(grid)).max() < 3.0


def test_shipped_table_matches_the_renderer_camera() -> None:
    camera = pytest.importorskip("monitor.render.camera")
    cam = camera.default_camera()
    shipped = load_table(TABLE_FILE)
    pts = np.array([[-900.0, 400.0, 0.0], [0.0, -195.0, 0.0], [700.0, 200.0, 0.0]])
    assert np.allclose(shipped.table_to_image(pts[:, :2]), cam.project(pts), atol=0.05)
