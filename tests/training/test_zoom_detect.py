"""Closer views of a detector dataset: windows cut from frames, labels moved, cut objects clipped or
dropped."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from monitor.training.zoom_detect import ZoomError, window_labels, windows, zoom_dataset


def _line(cls: int, quad: list[tuple[float, float]], w: int, h: int) -> str:
    return f"{cls} " + " ".join(f"{x / w:.6f} {y / h:.6f}" for x, y in quad) + "\n"


def test_window_labels_move_clip_and_drop() -> None:
    inside = (0, np.array([[10, 10], [30, 10], [30, 40], [10, 40]], np.float64))
    mostly = (3, np.array([[90, 10], [110, 10], [110, 40], [90, 40]], np.float64))  # half out
    outside = (1, np.array([[150, 10], [170, 10], [170, 40], [150, 40]], np.float64))
    lines = window_labels([inside, mostly, outside], (0, 0, 100, 50), min_inside=0.6)
    assert len(lines) == 1  # the half-cut box is under 0.6 inside, the far one out
    vals = [float(v) for v in lines[0].split()[1:]]
    assert lines[0].split()[0] == "0"
    assert vals == pytest.approx([0.1, 0.2, 0.3, 0.2, 0.3, 0.8, 0.1, 0.8])
    kept = window_labels([mostly], (0, 0, 100, 50), min_inside=0.4)
    assert [float(v) for v in kept[0].split()[1:]][2] == pytest.approx(1.0)  # clipped to the edge


def test_windows_are_a_zoomed_share_of_the_frame() -> None:
    rng = np.random.default_rng(0)
    for x0, y0, x1, y1 in windows(1024, 576, 2.0, 20, rng):
        assert (x1 - x0, y1 - y0) == (512, 288)
        assert x0 >= 0 and x1 <= 1024 and y0 >= 0 and y1 <= 576


def test_zoom_dataset_writes_windows_and_yaml(tmp_path: Path) -> None:
    src = tmp_path / "src"
    for split in ("train", "val"):
        (src / "images" / split).mkdir(parents=True)
        (src / "labels" / split).mkdir(parents=True)
        img = np.full((120, 200, 3), 60, np.uint8)
        img[40:80, 90:110] = 255
        cv2.imwrite(str(src / "images" / split / "f0.png"), img)
        card = [(90.0, 40.0), (110.0, 40.0), (110.0, 80.0), (90.0, 80.0)]
        (src / "labels" / split / "f0.txt").write_text(_line(0, card, 200, 120))
    counts = zoom_dataset(src, tmp_path / "out", zoom=1.25, crops=3, seed=1)
    assert counts == {"train": 3, "val": 3}
    out = tmp_path / "out"
    crops = sorted((out / "images" / "train").glob("*.jpg"))
    assert len(crops) == 3
    h, w = cv2.imread(str(crops[0])).shape[:2]
    assert (w, h) == (160, 96)
    # a 20 x 40 card can only be cut off by windows 160 wide far to one side: where kept, its size holds
    for lab in (out / "labels" / "train").glob("*.txt"):
        for line in lab.read_text().splitlines():
            q = np.array([float(v) for v in line.split()[1:]]).reshape(4, 2) * [w, h]
            assert np.ptp(q[:, 0]) <= 20.5 and np.ptp(q[:, 1]) <= 40.5
    assert "train: images/train" in (out / "obb.yaml").read_text()


def test_zoom_dataset_bad_input_says_where(tmp_path: Path) -> None:
    with pytest.raises(ZoomError, match="no images/ folder"):
        zoom_dataset(tmp_path, tmp_path / "out")
    (tmp_path / "images" / "train").mkdir(parents=True)
    (tmp_path / "labels" / "train").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "images" / "train" / "a.png"), np.zeros((10, 10, 3), np.uint8))
    (tmp_path / "labels" / "train" / "a.txt").write_text("0 0.1 0.1 0.2\n")
    with pytest.raises(ZoomError, match=r"a\.txt:1: .*8 coordinates"):
        zoom_dataset(tmp_path, tmp_path / "out")
    with pytest.raises(ZoomError, match="zoom must be 1 or more"):
        zoom_dataset(tmp_path, tmp_path / "out", zoom=0.5)
