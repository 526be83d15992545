"""Measuring a lens from ChArUco board views rendered through a known distorted camera."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from monitor.calibration.lens import Lens
from monitor.calibration.lens_fit import LensFitError, board_image, charuco_board, fit_lens
from monitor.calibration.synthetic import board_view, distortion_remap
from monitor.cli import app

SIZE = (960, 540)
TRUTH = Lens.from_values([[650, 0, 485], [0, 650, 265], [0, 0, 1]], [-0.25, 0.07, 0, 0, 0])
DPI = 150


@pytest.fixture(scope="module")
def views() -> list[tuple[str, np.ndarray]]:
    board = charuco_board()
    img = board_image(board, dpi=DPI, margin_mm=10)
    s = DPI / 25.4
    board_to_img = np.array([[s, 0, 10 * s], [0, s, 10 * s], [0, 0, 1]])
    maps = distortion_remap(TRUTH, SIZE)
    rng = np.random.default_rng(0)
    out = []
    for i in range(12):
        rvec = (rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5), rng.uniform(-0.3, 0.3))
        tvec = (rng.uniform(-250, 50), rng.uniform(-180, 30), rng.uniform(380, 520))
        out.append((f"view{i}", board_view(img, board_to_img, TRUTH, rvec, tvec, SIZE, maps)))
    return out


def test_lens_recovered_from_board_views(views: list[tuple[str, np.ndarray]]) -> None:
    fit = fit_lens(views)
    assert fit.views_used == 12 and fit.rms_px < 0.6
    k = fit.lens.camera_matrix
    assert k[0, 0] == pytest.approx(650, rel=0.02) and k[1, 1] == pytest.approx(650, rel=0.02)
    assert fit.lens.distortion[0] == pytest.approx(-0.25, abs=0.02)
    # what matters: pixels undistort to where the true lens puts them
    pixels = np.array([[20.0, 20.0], [940.0, 520.0], [480.0, 270.0], [900.0, 40.0]])
    assert np.abs(fit.lens.undistort(pixels) - TRUTH.undistort(pixels)).max() < 3.0


def test_too_few_views_says_why(views: list[tuple[str, np.ndarray]]) -> None:
    blank = np.full((SIZE[1], SIZE[0]), 128, np.uint8)
    with pytest.raises(LensFitError, match=r"at least 5 views .* got 3 .*blank: fewer than 8 board corners"):
        fit_lens([*views[:3], ("blank", blank)])


def test_cli_calibrate_lens(views: list[tuple[str, np.ndarray]], tmp_path: Path) -> None:
    files = []
    for name, img in views[:8]:
        path = tmp_path / f"{name}.png"
        cv2.imwrite(str(path), img)
        files.append(str(path))
    out = tmp_path / "lens.yaml"
    result = CliRunner().invoke(app, ["calibrate-lens", *files, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "8 views" in result.output
    lens = Lens.load(out)
    assert lens.camera_matrix[0, 0] == pytest.approx(650, rel=0.03)
    sheet = CliRunner().invoke(app, ["calibration-sheet", "--out", str(tmp_path / "sheet"), "--charuco"])
    assert sheet.exit_code == 0 and (tmp_path / "sheet" / "charuco-board.png").is_file()
