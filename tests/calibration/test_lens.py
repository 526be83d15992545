"""Lens distortion in table files: exact round trips, better fits, bad lens values named."""

from __future__ import annotations

import copy
from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml

from monitor.calibration import CalibrationError, from_layout, load_table, parse_table
from monitor.calibration.fitting import PointPair, calibrate
from monitor.calibration.homography import apply
from monitor.calibration.lens import Lens, LensError
from monitor.geometry import default_layout
from tests.support.paths import TABLE_FILE

LAYOUT = default_layout()
SIZE = (1920, 1080)
LENS = Lens.from_values([[1300, 0, 955], [0, 1300, 545], [0, 0, 1]], [-0.28, 0.09, 0.0005, -0.0004, 0.0])
BOX_MM = np.array([[-1200, -572], [1200, -572], [1200, 750], [-1200, 750]], np.float32)
BOX_PX = np.array([[260, 980], [1660, 1000], [1540, 90], [380, 70]], np.float32)
TABLE_TO_IDEAL = cv2.getPerspectiveTransform(BOX_MM, BOX_PX).astype(np.float64)


def pairs(names: list[str]) -> list[PointPair]:
    out = []
    for name in names:
        c = np.array([LAYOUT.zone(name).shape.center], np.float64)
        px = LENS.distort(apply(TABLE_TO_IDEAL, c))[0]
        out.append(PointPair((float(px[0]), float(px[1])), (float(c[0, 0]), float(c[0, 1])), name))
    return out


NAMES = ["seat1.bet", "seat4.bet", "seat7.bet", "dice", "banker", "stub", "seat2.back", "seat6.back", "pile4"]


def test_round_trip_with_lens(tmp_path: Path) -> None:
    cal = from_layout(LAYOUT, np.linalg.inv(TABLE_TO_IDEAL), SIZE, lens=LENS)
    again = load_table(cal.save(tmp_path / "lens.yaml"))
    assert again.lens is not None and np.allclose(again.lens.distortion, LENS.distortion)
    mm = np.array([[-1000.0, 400.0], [0.0, 0.0], [1100.0, -500.0]])
    assert np.allclose(again.image_to_table(again.table_to_image(mm)), mm, atol=0.05)


def test_lens_makes_a_wide_camera_fit() -> None:
    with_lens = calibrate(pairs(NAMES), LAYOUT, SIZE, "points", lens=LENS)
    assert with_lens.fit.max_mm < 0.5
    # the same clicks without the lens model: millimetres off (here ~7 mm at the worst point)
    without = calibrate(pairs(NAMES), LAYOUT, SIZE, "points", max_error_mm=1000)
    assert without.fit.max_mm > 3.0


def test_matches_the_renderer_lens_model() -> None:
    camera = pytest.importorskip("monitor.render.camera")
    cam = camera.Camera.overhead(dist=(-0.2, 0.05, 0.0, 0.0, 0.0))
    lens = Lens.from_values(cam.K, cam.dist)
    cal = from_layout(LAYOUT, np.linalg.inv(cam.plane_homography()), (cam.width, cam.height), lens=lens)
    pts = np.array([[-1000.0, 420.0, 0.0], [0.0, -195.0, 0.0], [900.0, -400.0, 0.0]])
    assert np.allclose(cal.table_to_image(pts[:, :2]), cam.project(pts), atol=0.05)


@pytest.mark.parametrize(
    ("lens", "expected"),
    [
        ({"camera_matrix": [[1000, 0, 960], [0, 1000, 540], [0, 0, 1]], "distortion": [-2.5, 0, 0, 0, 0]},
         "lens.distortion: the distortion folds over"),
        ({"camera_matrix": [[1000, 0, 960], [0, 1000, 540]], "distortion": [0, 0, 0, 0]},
         "lens: camera_matrix must be 3x3"),
        ({"camera_matrix": [[-5, 0, 960], [0, 1000, 540], [0, 0, 1]], "distortion": [0, 0, 0, 0]},
         "fx, fy > 0"),
        ({"camera_matrix": [[1000, 0, 960], [0, 1000, 540], [0, 0, 1]], "distortion": [0.1]},
         "4 or 5 finite numbers"),
        ({"distortion": [0, 0, 0, 0]}, "lens: must be a mapping with exactly camera_matrix and distortion"),
    ],
)
def test_bad_lens_is_named(lens: dict, expected: str) -> None:
    data = yaml.safe_load(TABLE_FILE.read_text())
    data = copy.deepcopy(data)
    data["lens"] = lens
    with pytest.raises(CalibrationError) as info:
        parse_table(data, "x.yaml")
    assert expected in str(info.value)


def test_lens_constructor_errors() -> None:
    with pytest.raises(LensError, match="3x3"):
        Lens.from_values([[1, 0], [0, 1]], [0, 0, 0, 0])


def test_cli_calibrate_with_a_lens_file(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from monitor.cli import app

    lens_file = tmp_path / "lens.yaml"
    lens_file.write_text(yaml.safe_dump(LENS.to_data()))
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), np.zeros((SIZE[1], SIZE[0], 3), np.uint8))
    out = tmp_path / "t.yaml"
    args = ["calibrate", str(frame), "--out", str(out), "--lens", str(lens_file)]
    for p in pairs(NAMES[:6]):
        args += ["--point", f"{p.pixel[0]:.3f},{p.pixel[1]:.3f}={p.label}"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert load_table(out).lens is not None
    bad = CliRunner().invoke(app, [*args[:5], str(tmp_path / "missing.yaml"), *args[6:]])
    assert bad.exit_code == 2 and "lens file" in bad.output
