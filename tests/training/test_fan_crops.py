"""Fan-index training crops: index corners cut from card outlines, true, moved, covered and slid off."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from monitor.perception.index_geometry import index_quads
from monitor.render.camera import Camera
from monitor.render.index_export import card_records
from monitor.render.renderer import Renderer
from monitor.render.scene import CardObj, Scene
from monitor.training.fan_crops import (
    derive_fan_crops,
    moved_card,
    turned,
    window_card_crops,
    window_crops,
)

W, H = 400, 240
# two cards of a fan, 60 x 84 px, the second 20 px to the right and on top: the first shows only
# the index at its own corner, the second both of its indices
FIRST = np.array([[100, 60], [160, 60], [160, 144], [100, 144]], float)
SECOND = FIRST + np.array([20, 0])


def _records() -> list[dict[str, object]]:
    return [{"card": "7h", "polygon": FIRST.tolist(), "index_visible": [1.0, 0.0]},
            {"card": "Ks", "polygon": SECOND.tolist(), "index_visible": [1.0, 1.0]}]


def test_visible_indices_are_cut_true_and_moved_covered_ones_are_back() -> None:
    crops = window_crops(_records(), W, H, np.random.default_rng(0))
    tags = {tag: (label, q) for label, tag, q in crops}
    assert tags["00_t"][0] == "7h" and tags["00_j"][0] == "7h"
    assert np.allclose(tags["00_t"][1], index_quads(FIRST)[0])
    assert tags["01_c"][0] == "back"  # the seven's far corner lies under the king
    assert tags["10_t"][0] == "Ks" and tags["11_t"][0] == "Ks"
    # the king's far index is read from its far corner: the quad starts there
    assert np.allclose(tags["11_t"][1][0], SECOND[2])
    # a cut slid off an index never holds another index that shows
    for label, tag, q in crops:
        if tag.endswith("_s"):
            assert label == "back"
            for shown in (index_quads(FIRST)[0], *index_quads(SECOND)):
                inter, _ = cv2.intersectConvexConvex(q.astype(np.float32), shown.astype(np.float32))
                assert inter < 0.3 * cv2.contourArea(shown.astype(np.float32))


def test_a_moved_outline_stays_near_the_card_and_turned_starts_at_the_far_corner() -> None:
    rng = np.random.default_rng(1)
    moved = np.array([moved_card(FIRST, rng) for _ in range(200)])
    assert np.abs(moved[:, 0] - FIRST[0]).mean() < 0.1 * 60
    assert np.allclose(turned(FIRST)[0], FIRST[2]) and np.allclose(turned(turned(FIRST)), FIRST)


def test_corners_partly_covered_or_cut_by_the_window_are_left_out() -> None:
    rec = [{"card": "2c", "polygon": FIRST.tolist(), "index_visible": [0.5, 0.5]},
           {"card": "3d", "polygon": (FIRST - (99, 0)).tolist(), "index_visible": [1.0, 1.0]}]
    crops = window_crops(rec, W, H, np.random.default_rng(0))
    # in doubt (half covered): neither a card nor "no index"; off the window's edge: not cut
    assert not [t for _, t, _ in crops if t.startswith("0") and not t.endswith("_s")]
    assert not [t for _, t, _ in crops if t.startswith("10")]


def test_the_set_is_written_by_class_and_resumes(tmp_path: Path) -> None:
    data, out = tmp_path / "indices", tmp_path / "crops"
    for d in ("images", "cards"):
        (data / d / "train").mkdir(parents=True)
    cv2.imwrite(str(data / "images" / "train" / "train_000000.jpg"), np.full((H, W, 3), 200, np.uint8))
    (data / "cards" / "train" / "train_000000.json").write_text(json.dumps(_records()))
    counts = derive_fan_crops(data, out, size=32, splits=("train",))
    assert counts["train"]["windows"] == 1 and counts["train"]["t"] == 3 and counts["train"]["c"] == 1
    assert cv2.imread(str(out / "train" / "Ks" / "train_000000_10_t.jpg")).shape == (32, 32, 3)
    assert derive_fan_crops(data, out, size=32, splits=("train",)) == counts  # nothing cut twice
    assert len(list((out / "train").rglob("*.jpg"))) == sum(counts["train"][k] for k in "tjcs")


def test_fanned_cards_are_cut_whole_where_an_index_shows(tmp_path: Path) -> None:
    covered = {"card": "2c", "polygon": (FIRST + np.array([150, 0])).tolist(), "index_visible": [0.3, 0.1]}
    rec = [*_records(), covered]
    crops = window_card_crops(rec, W, H, np.random.default_rng(0))
    tags = {tag: (label, q) for label, tag, q in crops}
    # both fanned cards show an index: each cut whole, true and moved; the covered two of clubs is not
    assert sorted(tags) == ["0_j", "0_t", "1_j", "1_t"]
    assert tags["0_t"][0] == "7h" and np.allclose(tags["0_t"][1], FIRST)
    assert 0 < np.abs(tags["1_j"][1] - SECOND).max() < 0.5 * 60
    data, out = tmp_path / "indices", tmp_path / "crops"
    for d in ("images", "cards"):
        (data / d / "train").mkdir(parents=True)
    image = np.full((H, W, 3), 200, np.uint8)
    image[60:144, 100:140] = (0, 0, 255)  # the seven's strip beside the king
    cv2.imwrite(str(data / "images" / "train" / "train_000000.jpg"), image)
    (data / "cards" / "train" / "train_000000.json").write_text(json.dumps(rec))
    counts = derive_fan_crops(data, out, size=48, splits=("train",), view="card")
    assert counts["train"]["t"] == 2 and counts["train"]["c"] == 0
    seven = cv2.imread(str(out / "train" / "7h" / "train_000000_0_t.jpg"))
    assert seven.shape == (48, 48, 3)
    # the whole card rectified: its left two thirds are the red strip, the rest the king's (grey)
    assert seven[24, 8, 2] > 200 and seven[24, 8, 0] < 60 and abs(int(seven[24, 40, 2]) - 200) < 30
    with pytest.raises(ValueError, match="view"):
        derive_fan_crops(data, out, view="strip")


def test_rendered_fan_records_say_which_index_is_covered() -> None:
    scene = Scene(table_style="grey")
    scene.add(CardObj("Qh", 0, 0, 0, design="jumbo"))
    scene.add(CardObj("4c", 25, 0, 0, design="jumbo", z=0.3))  # over the queen's right side
    cam = Camera.overhead((1280, 720), view_width_mm=500, height_mm=2000, center=(10, 0))
    recs = {r["card"]: r for r in card_records(Renderer().render(scene, cam))}
    assert recs["Qh"]["index_visible"][0] > 0.85 and recs["Qh"]["index_visible"][1] < 0.25
    assert min(recs["4c"]["index_visible"]) > 0.85
