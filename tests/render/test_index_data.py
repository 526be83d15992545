"""The index finder's data: where a card's indices lie, which are uncovered, the exported labels."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from monitor.perception.index_geometry import index_crop, index_quads, quad_share
from monitor.render.camera import Camera
from monitor.render.datasets import standard_splits
from monitor.render.index_export import IndexOptions, export_indices, index_labels
from monitor.render.renderer import Renderer
from monitor.render.scene import CardObj, Scene


def test_index_regions_start_at_the_card_corner_and_follow_its_edges() -> None:
    card = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], float)  # top-left, top-right, ...
    tl, br = index_quads(card, share=(0.5, 0.25))
    assert np.allclose(tl, [[0, 0], [31.5, 0], [31.5, 22], [0, 22]])
    # the second index is the first one of the card turned 180 degrees
    assert np.allclose(br, [[63, 88], [31.5, 88], [31.5, 66], [63, 66]])


def test_quad_share_counts_the_pixels_of_one_object() -> None:
    ids = np.zeros((20, 20), np.uint16)
    ids[:, :10] = 7
    half = np.array([[5, 0], [15, 0], [15, 19], [5, 19]], float)
    assert 0.4 < quad_share(ids, half, 7) < 0.6
    assert quad_share(ids, half + 100, 7) == 0.0  # off the image


def test_index_crop_is_the_region_stood_upright() -> None:
    img = np.zeros((40, 40, 3), np.uint8)
    img[10:20, 5:15] = 255  # a bright square; the region below is 10 wide, 20 high from (5, 10)
    crop = index_crop(img, [[5, 10], [15, 10], [15, 30], [5, 30]], size=20)
    assert crop[:9].mean() > 200 and crop[11:].mean() < 30
    # the same region given from its other corner (turned 180 degrees): the bright part is below
    turned = index_crop(img, [[15, 30], [5, 30], [5, 10], [15, 10]], size=20)
    assert turned[11:].mean() > 200 and turned[:9].mean() < 30


def test_a_card_covered_by_the_next_in_a_fan_keeps_one_index() -> None:
    scene = Scene(table_style="grey")
    scene.add(CardObj("Qh", 0, 0, 0, design="jumbo"))
    scene.add(CardObj("4c", 25, 0, 0, design="jumbo", z=0.3))  # over the queen's right side
    cam = Camera.overhead((1280, 720), view_width_mm=500, height_mm=2000, center=(10, 0))
    frame = Renderer().render(scene, cam)
    labels = index_labels(frame, min_visible=0.85)
    assert sorted(card for _, card in labels) == ["4c", "4c", "Qh"]
    queen = next(o for o in frame.objects if o.identity == "Qh")
    (quad, _), = [x for x in labels if x[1] == "Qh"]
    # the queen's uncovered index is at the corner on the side the four does not cover
    corner = np.asarray(queen.polygon[0], float)
    assert np.allclose(quad[0], corner)
    four = next(o for o in frame.objects if o.identity == "4c")
    assert np.asarray(four.polygon)[:, 0].mean() > corner[0] + 20


def test_export_writes_pose_labels_with_identities(tmp_path: Path) -> None:
    splits = standard_splits(["jumbo"], [])
    got = export_indices(tmp_path, {"train": 3, "val": 1}, splits, seed=5, opt=IndexOptions(window=0.3))
    assert got["train"]["images"] == 3 and got["val"]["images"] == 1
    assert got["train"]["indices"] + got["val"]["indices"] > 0
    n = 0
    for split in ("train", "val"):
        for img in sorted((tmp_path / "images" / split).glob("*.jpg")):
            lines = (tmp_path / "labels" / split / f"{img.stem}.txt").read_text().splitlines()
            ids = (tmp_path / "identities" / split / f"{img.stem}.txt").read_text().splitlines()
            assert len(lines) == len(ids)
            for line, card in zip(lines, ids, strict=True):
                v = [float(x) for x in line.split()]
                assert len(v) == 17 and v[0] == 0
                coords = v[1:5] + v[5::3] + v[6::3]  # box, then keypoint x and y
                assert all(-1e-6 <= x <= 1 + 1e-6 for x in coords)
                assert v[7::3] == [2.0] * 4  # every keypoint marked visible
                assert len(card) == 2
                n += 1
    assert n == got["train"]["indices"] + got["val"]["indices"]
    yaml = (tmp_path / "pose.yaml").read_text()
    assert "kpt_shape: [4, 3]" in yaml and "train: images/train" in yaml
