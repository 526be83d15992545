"""Calibration from ArUco markers and from clicked points, against known ground truth; the CLI."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from monitor.calibration import load_table
from monitor.calibration.fitting import FitError, PointPair, calibrate, load_points, marker_pairs, parse_point
from monitor.calibration.homography import apply
from monitor.calibration.markers import MarkerSet, diagonal_center, find_markers, write_sheets
from monitor.calibration.overlay import draw_overlay
from monitor.calibration.synthetic import marker_scene, plain_texture
from monitor.cli import app
from monitor.geometry import default_layout

LAYOUT = default_layout()
SIZE = (1280, 720)
# an oblique camera: the table's bounding box corners -> these pixels
BOX_MM = np.array([[-1200, -572], [1200, -572], [1200, 750], [-1200, 750]], np.float32)
BOX_PX = np.array([[200, 640], [1100, 660], [1010, 90], [280, 70]], np.float32)
TABLE_TO_IMAGE = cv2.getPerspectiveTransform(BOX_MM, BOX_PX).astype(np.float64)


@pytest.fixture(scope="module")
def scene() -> np.ndarray:
    texture, to_tex = plain_texture(LAYOUT, 0.8)
    markers = MarkerSet.for_layout(LAYOUT)
    return marker_scene(markers, TABLE_TO_IMAGE, SIZE, texture, to_tex, rotations_deg={0: 25, 2: -60, 4: 90})


def truth_pairs(labels: list[str], noise_px: float = 0.0) -> list[PointPair]:
    rng = np.random.default_rng(3)
    pairs = []
    for name in labels:
        c = LAYOUT.zone(name).shape.center
        px = apply(TABLE_TO_IMAGE, np.array([c]))[0] + rng.normal(0, noise_px, 2)
        pairs.append(PointPair((float(px[0]), float(px[1])), (float(c[0]), float(c[1])), name))
    return pairs


def test_markers_found_and_calibration_matches_truth(scene: np.ndarray) -> None:
    markers = MarkerSet.for_layout(LAYOUT)
    found = find_markers(scene)
    assert [m.marker_id for m in found] == [0, 1, 2, 3, 4, 5]
    pairs, unknown = marker_pairs(found, markers)
    assert unknown == []
    result = calibrate(pairs, LAYOUT, SIZE, "aruco")
    cal = result.calibration
    assert result.fit.max_mm < 3.0 and cal.info.method == "aruco" and cal.info.points == 6
    # every zone centre lands within a few mm of where the true camera puts it
    centres = np.array([z.center for z in cal.zones.values()])
    pixels = apply(TABLE_TO_IMAGE, centres)
    assert np.abs(cal.image_to_table(pixels) - centres).max() < 5.0
    assert cal.zones_at_pixels(apply(TABLE_TO_IMAGE, np.array([[0.0, 230.0]]))) == ["seat4.front"]


def test_diagonal_center_is_exact_under_perspective() -> None:
    square = np.array([[0, 0], [100, 0], [100, 100], [0, 100]], np.float64)
    seen = apply(TABLE_TO_IMAGE, square)
    assert np.allclose(diagonal_center(seen), apply(TABLE_TO_IMAGE, np.array([[50.0, 50.0]]))[0])


def test_clicked_points_with_one_misclick_are_refused_by_name() -> None:
    pairs = truth_pairs(["seat1.bet", "seat4.bet", "seat7.bet", "pile1", "pile7"], noise_px=0.3)
    good = calibrate(pairs, LAYOUT, SIZE, "points")
    assert good.fit.max_mm < 5.0 and not good.warnings
    wrong = [*pairs[:4], PointPair((pairs[4].pixel[0] + 60, pairs[4].pixel[1]), pairs[4].table_mm, "pile7")]
    with pytest.raises(FitError, match=r"off by \d+ mm .*misclicked"):
        calibrate(wrong, LAYOUT, SIZE, "points")


def test_ransac_names_an_outlier_with_enough_points() -> None:
    pairs = truth_pairs(["seat1.bet", "seat4.bet", "seat7.bet", "pile1", "pile7", "dice", "stub", "banker"])
    pairs[5] = PointPair((pairs[5].pixel[0] + 80, pairs[5].pixel[1] + 40), pairs[5].table_mm, "dice")
    result = calibrate(pairs, LAYOUT, SIZE, "points")
    assert any(w.startswith("dice ignored") for w in result.warnings)
    assert result.calibration.info.points == 7


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        (["seat1.bet", "seat4.bet", "seat7.bet"], "need at least 4 known points, found 3"),
        (["pile1", "pile3", "pile5", "pile7"], "on one line"),
    ],
)
def test_unusable_point_sets(labels: list[str], expected: str) -> None:
    with pytest.raises(FitError, match=expected):
        calibrate(truth_pairs(labels), LAYOUT, SIZE, "points")


def test_four_points_warn_about_no_redundancy() -> None:
    result = calibrate(truth_pairs(["seat1.bet", "seat7.bet", "dice", "stub"]), LAYOUT, SIZE, "points")
    assert any("exactly 4 points" in w for w in result.warnings)


def test_point_syntax_and_points_file(tmp_path: Path) -> None:
    assert parse_point(" 10.5, 20 = seat2.bet ", LAYOUT).pixel == (10.5, 20.0)
    with pytest.raises(FitError, match="expected U,V=ZONE"):
        parse_point("10;20=seat1.bet", LAYOUT)
    with pytest.raises(FitError, match=r"no zone 'seat8\.bet'"):
        parse_point("1,2=seat8.bet", LAYOUT)
    f = tmp_path / "points.yaml"
    f.write_text("points:\n  - {pixel: [1, 2], zone: pile3}\n  - {pixel: [3, 4], table: [10, -20]}\n")
    pairs = load_points(f, LAYOUT)
    assert pairs[0].table_mm == (-125.0, -40.0) and pairs[1].table_mm == (10.0, -20.0)
    f.write_text("points:\n  - {pixel: [1], zone: pile3}\n")
    with pytest.raises(FitError, match=r"points\[0\]: needs pixel"):
        load_points(f, LAYOUT)


def test_overlay_draws_zones_where_they_belong(scene: np.ndarray) -> None:
    cal = calibrate(marker_pairs(find_markers(scene), MarkerSet.for_layout(LAYOUT))[0], LAYOUT, SIZE,
                    "aruco").calibration
    drawn = draw_overlay(scene, cal)
    assert drawn.shape == scene.shape and drawn.dtype == np.uint8
    # pixels on the outline of pile 4 (projected by the true camera) were painted
    edge = apply(TABLE_TO_IMAGE, np.asarray(LAYOUT.zone("pile4").shape.outline(), np.float64))
    u, v = np.round(edge[0]).astype(int)
    assert not np.array_equal(drawn[v - 2 : v + 3, u - 2 : u + 3], scene[v - 2 : v + 3, u - 2 : u + 3])


def test_marker_sheets_are_detectable(tmp_path: Path) -> None:
    pages = write_sheets(MarkerSet.for_layout(LAYOUT), tmp_path, dpi=100)
    assert len(pages) == 3
    seen = [m.marker_id for p in pages for m in find_markers(cv2.imread(str(p)))]
    assert sorted(seen) == [0, 1, 2, 3, 4, 5]


def test_cli_calibrate_from_markers_and_check(scene: np.ndarray, tmp_path: Path) -> None:
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), scene)
    out = tmp_path / "table.yaml"
    runner = CliRunner()
    result = runner.invoke(app, ["calibrate", str(frame), "--out", str(out), "--table", "t7"])
    assert result.exit_code == 0, result.output
    assert "aruco: 6 point pairs" in result.output
    assert load_table(out).table == "t7" and out.with_suffix(".png").is_file()
    checked = runner.invoke(app, ["check-table", str(out), "--image", str(frame)])
    assert checked.exit_code == 0 and "ok - table t7" in checked.output
    assert "profile livermore: Livermore Casino Pai Gow Poker" in checked.output
    # a camera recalibrated into its table file keeps the table's rule profile
    data = yaml.safe_load(out.read_text("utf-8"))
    data["profile"] = {"name": "room-cw", "dice": {"direction": "clockwise"}}
    out.write_text(yaml.safe_dump(data), "utf-8")
    again = runner.invoke(app, ["calibrate", str(frame), "--out", str(out), "--table", "t7"])
    assert again.exit_code == 0 and "kept" in again.output and load_table(out).profile.name == "room-cw"
    data["profile"] = {"name": "room-cw", "dice": {"direction": "sideways"}}
    out.write_text(yaml.safe_dump(data), "utf-8")
    refused = runner.invoke(app, ["calibrate", str(frame), "--out", str(out), "--table", "t7"])
    assert refused.exit_code == 2 and "profile.dice.direction: 'sideways' is not allowed" in refused.output


def test_cli_calibrate_from_points_of_a_video(tmp_path: Path, scene: np.ndarray) -> None:
    video = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, SIZE)
    for _ in range(3):
        writer.write(scene)
    writer.release()
    args = ["calibrate", str(video), "--frame", "2", "--out", str(tmp_path / "t.yaml")]
    for p in truth_pairs(["seat1.bet", "seat4.bet", "seat7.bet", "dice", "stub"]):
        args += ["--point", f"{p.pixel[0]:.2f},{p.pixel[1]:.2f}={p.label}"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "points: 5 point pairs" in result.output


def test_cli_errors_are_clear(tmp_path: Path) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.zeros((100, 100, 3), np.uint8))
    runner = CliRunner()
    result = runner.invoke(app, ["calibrate", str(blank), "--out", str(tmp_path / "x.yaml")])
    assert result.exit_code == 2 and "need at least 4 known points, found 0" in result.output
    missing = runner.invoke(app, ["calibrate", str(tmp_path / "none.png")])
    assert missing.exit_code == 2 and "does not exist" in missing.output
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\n")
    checked = runner.invoke(app, ["check-table", str(bad)])
    assert checked.exit_code == 2 and "zones: must be a mapping" in checked.output
