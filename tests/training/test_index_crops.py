"""Index-crop sets for the index classifier: each labeled index cut as the runtime cuts it."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from monitor.perception.index_geometry import index_crop
from monitor.render.index_export import pose_line
from monitor.training.index_crops import derive_index_crops, jitter_quad

W, H = 200, 120
SEVEN = np.array([[20, 20], [40, 20], [40, 56], [20, 56]], float)  # an index region: 20 wide, 36 high
KING = np.array([[150, 90], [130, 90], [130, 54], [150, 54]], float)  # read from the card's far corner


def _window(root: Path, split: str, stem: str) -> np.ndarray:
    img = np.full((H, W, 3), 40, np.uint8)
    cv2.rectangle(img, (22, 22), (30, 34), (0, 0, 255), -1)  # something to read in the first region
    cv2.rectangle(img, (140, 70), (148, 88), (255, 0, 0), -1)
    for d in ("images", "labels", "identities"):
        (root / d / split).mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(root / "images" / split / f"{stem}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 100])
    (root / "labels" / split / f"{stem}.txt").write_text(
        "".join(pose_line(q, W, H) + "\n" for q in (SEVEN, KING)))
    (root / "identities" / split / f"{stem}.txt").write_text("7h\nKs\n")
    return cv2.imread(str(root / "images" / split / f"{stem}.jpg"))


class _Finder:
    """The finder's answer for every window: the seven found a little off, a find of no index
    inside the window, one cut by the window's edge; the king missed."""

    path = Path("finder.onnx")
    near_seven = SEVEN + 1.5
    nothing = np.array([[80, 40], [100, 40], [100, 76], [80, 76]], float)
    at_edge = np.array([[185, 10], [205, 10], [205, 46], [185, 46]], float)

    def find(self, frame: np.ndarray) -> list[tuple[np.ndarray, float]]:
        return [(self.near_seven, 0.9), (self.nothing, 0.5), (self.at_edge, 0.5)]


def test_each_index_is_cut_true_and_as_found_and_false_finds_are_no_card(tmp_path: Path) -> None:
    data, out = tmp_path / "indices", tmp_path / "crops"
    img = _window(data, "train", "train_000000")
    counts = derive_index_crops(data, out, _Finder(), size=32, splits=("train",))
    # two true quads, the seven as the finder cut it, the missed king jittered, one false find
    # (the one at the window's edge may be a real index cut off by the window: not taught as "back")
    assert counts["train"] == {"windows": 1, "t": 2, "f": 1, "j": 1, "b": 1}
    assert sorted(p.relative_to(out / "train").as_posix() for p in (out / "train").rglob("*.jpg")) == [
        "7h/train_000000_0_f.jpg", "7h/train_000000_0_t.jpg", "Ks/train_000000_1_j.jpg",
        "Ks/train_000000_1_t.jpg", "back/train_000000_s0_b.jpg"]
    found = cv2.imread(str(out / "train" / "7h" / "train_000000_0_f.jpg")).astype(int)
    assert np.abs(found - index_crop(img, _Finder.near_seven, 32).astype(int)).mean() < 4  # JPEG only
    # the king was labeled from its far corner: stood upright, its mark is at the crop's top left
    king = cv2.imread(str(out / "train" / "Ks" / "train_000000_1_t.jpg"))
    assert king[2:10, 2:10, 0].mean() > 150 and king[20:, 20:, 0].mean() < 80


def test_without_a_finder_every_index_is_cut_true_and_jittered(tmp_path: Path) -> None:
    data, out = tmp_path / "indices", tmp_path / "crops"
    for split in ("val", "test"):
        _window(data, split, f"{split}_000000")
    derive_index_crops(data, out, None, size=32, splits=("val",))
    derive_index_crops(data, out, None, size=32, splits=("test",))
    summary = json.loads((out / "summary.json").read_text())
    # a later call keeps the counts of splits cut before
    assert summary["counts"] == {s: {"windows": 1, "t": 2, "f": 0, "j": 2, "b": 0} for s in ("val", "test")}
    assert not (out / "val" / "back").exists()


def test_a_cut_goes_on_where_it_stopped(tmp_path: Path) -> None:
    data, out = tmp_path / "indices", tmp_path / "crops"
    _window(data, "train", "train_000000")
    derive_index_crops(data, out, None, size=32, splits=("train",))
    first = (out / "train" / "7h" / "train_000000_0_j.jpg").read_bytes()
    (out / "train" / "7h" / "train_000000_0_j.jpg").unlink()  # would come back if the window were redone
    _window(data, "train", "train_000001")  # rendered after the first cut began
    with (out / "train.done.jsonl").open("a") as f:
        f.write('{"stem": "train_0000')  # a line cut by an interruption: that window is redone
    counts = derive_index_crops(data, out, None, size=32, splits=("train",))
    assert counts["train"] == {"windows": 2, "t": 4, "f": 0, "j": 4, "b": 0}
    assert not (out / "train" / "7h" / "train_000000_0_j.jpg").exists()
    assert (out / "train" / "7h" / "train_000001_0_j.jpg").read_bytes() != first  # its own jitter


def test_a_split_without_windows_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no windows"):
        derive_index_crops(tmp_path, tmp_path / "out", None, splits=("train",))


def test_jitter_moves_a_quad_about_as_far_as_the_finder_errs() -> None:
    rng = np.random.default_rng(0)
    moves = [float(np.linalg.norm(jitter_quad(SEVEN, rng) - SEVEN, axis=1).mean()) for _ in range(500)]
    height = 36.0
    # mean corner distance a few percent of the index's height, well inside the match radius (0.3)
    assert 0.02 * height < float(np.mean(moves)) < 0.15 * height
    assert max(moves) < 0.3 * height
