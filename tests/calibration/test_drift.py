"""The camera-moved check: a steady camera with things moving on the table passes, a bumped one fails."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from monitor.calibration import load_table
from monitor.calibration.drift import DriftCheck, DriftError
from monitor.cli import app
from tests.support.paths import ROOT, TABLE_FILE

CAL = load_table(TABLE_FILE)
REFERENCE = cv2.imread(str(ROOT / "calibration" / "default-camera-markers.jpg"))


def bump(image: np.ndarray, degrees: float, dx: float) -> np.ndarray:
    m = cv2.getRotationMatrix2D((image.shape[1] / 2, image.shape[0] / 2), degrees, 1.0)
    m[0, 2] += dx
    return cv2.warpAffine(image, m, (image.shape[1], image.shape[0]))


@pytest.fixture(scope="module")
def check() -> DriftCheck:
    return DriftCheck(REFERENCE, CAL)


def test_steady_camera_with_things_moving_on_the_table(check: DriftCheck) -> None:
    frame = REFERENCE.copy()
    cv2.rectangle(frame, (700, 500), (900, 640), (30, 30, 200), -1)  # a hand, cards: not the camera
    drift = check.check(frame)
    assert not drift.moved and drift.max_mm < 2.0 and drift.matches > 100
    assert "steady" in drift.message


def test_bumped_camera_is_caught(check: DriftCheck) -> None:
    drift = check.check(bump(REFERENCE, 1.5, 12))
    assert drift.moved and drift.max_mm > 15.0
    assert "recalibrate" in drift.message


def test_unusable_frames_say_why(check: DriftCheck) -> None:
    with pytest.raises(DriftError, match="too few features"):
        check.check(np.zeros_like(REFERENCE))
    with pytest.raises(DriftError, match="reference frame has too few features"):
        DriftCheck(np.zeros_like(REFERENCE), CAL)


def test_calibrate_keeps_a_reference_and_check_table_uses_it(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "t.yaml"
    frame = tmp_path / "frame.jpg"
    cv2.imwrite(str(frame), REFERENCE)
    made = runner.invoke(app, ["calibrate", str(frame), "--out", str(out)])
    assert made.exit_code == 0, made.output
    cal = load_table(out)
    assert cal.reference_image == "t.reference.jpg" and cal.reference_path() == tmp_path / "t.reference.jpg"
    steady = runner.invoke(app, ["check-table", str(out), "--image", str(frame)])
    assert steady.exit_code == 0 and "camera steady" in steady.output
    bumped = tmp_path / "bumped.jpg"
    cv2.imwrite(str(bumped), bump(REFERENCE, 1.5, 12))
    moved = runner.invoke(app, ["check-table", str(out), "--image", str(bumped)])
    assert moved.exit_code == 3 and "camera moved since calibration" in moved.output
