"""Dataset exporters and card designs: layouts, labels, crops that show the right card."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from monitor.render.camera import Camera
from monitor.render.crops import CropOptions, crop_card, export_crops, quad_turn
from monitor.render.datasets import standard_splits
from monitor.render.deck import CLASS_KEYS, DesignError, FolderDesign, folder_filenames, load_design
from monitor.render.detect_export import export_detect
from monitor.render.renderer import LABELS, Renderer
from monitor.render.scene import CardObj, Scene


def test_class_keys_and_folder_names() -> None:
    assert len(CLASS_KEYS) == 54 and CLASS_KEYS[-2:] == ("Jk", "back") and len(set(CLASS_KEYS)) == 54
    assert folder_filenames("Td") == ["10_of_diamonds.png"]
    assert folder_filenames("Qs") == ["queen_of_spades.png"]
    assert folder_filenames("Jk") == ["black_joker.png", "red_joker.png"]


def test_folder_design_reports_missing_files(tmp_path: Path) -> None:
    img = np.zeros((323, 222, 4), np.uint8)
    img[20:300, 20:200] = (0, 0, 200, 255)
    for name in ("ace_of_spades.png", "back.png"):
        cv2.imwrite(str(tmp_path / name), img)
    with pytest.raises(DesignError, match=r"lacks 52 image\(s\): 2_of_clubs.png"):
        FolderDesign(tmp_path)
    with pytest.raises(DesignError, match="neither a drawn design"):
        load_design(str(tmp_path / "nope"))


def test_folder_design_draws_the_card_body(tmp_path: Path) -> None:
    art = np.zeros((323, 222, 4), np.uint8)  # transparent except a red square in the middle
    art[140:180, 90:130] = (0, 0, 220, 255)
    for key in CLASS_KEYS:
        cv2.imwrite(str(tmp_path / folder_filenames(key)[-1]), art)
    d = FolderDesign(tmp_path)
    t = d.texture("7h")
    assert t.shape == (440, 315, 4)
    assert tuple(t[20, 20, :3]) == (255, 255, 255) and t[220, 157, 2] > 200 and t[220, 157, 0] < 40
    assert t[0, 0, 3] == 0 and t[220, 157, 3] == 255  # rounded corner transparent, body opaque
    assert d.variants == {}


@pytest.mark.parametrize("design", ["classic", "jumbo"])
def test_crop_of_a_rendered_card_shows_that_card(design: str) -> None:
    r = Renderer()
    scene = Scene(table_style="grey")
    scene.add(CardObj("Qh", 0, 0, 27, design=design))
    cam = Camera.overhead((1280, 720), view_width_mm=900, height_mm=2000, center=(0, 0))
    frame = r.render(scene, cam)
    crop, _, _ = crop_card(
        frame.image, frame.objects[0], np.random.default_rng(0), CropOptions(jitter=(0.0, 0.0)), None
    )
    assert crop.shape == (96, 96, 3)
    tex = cv2.resize(load_design(design).texture("Qh")[..., :3], (96, 96), interpolation=cv2.INTER_AREA)
    err = min(float(np.abs(crop.astype(int) - t.astype(int)).mean()) for t in (tex, tex[::-1, ::-1]))
    other = cv2.resize(load_design(design).texture("4c")[..., :3], (96, 96), interpolation=cv2.INTER_AREA)
    err_other = min(
        float(np.abs(crop.astype(int) - t.astype(int)).mean()) for t in (other, other[::-1, ::-1])
    )
    assert err < 25 and err < err_other / 2


def test_quad_turn_tells_a_card_stood_on_its_side() -> None:
    card = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], np.float64)  # TL, TR, BR, BL as printed
    assert quad_turn(card) == (0.716, False)
    # an oblique camera squashing the card's length below its width: the rectifier turns it 90 degrees
    squashed = card * [1.0, 0.6]
    aspect, turned = quad_turn(squashed)
    assert turned and aspect == round(52.8 / 63, 3)
    # the same card lying across the view, seen straight on, is not turned
    across = np.array([[88, 0], [88, 63], [0, 63], [0, 0]], np.float64)
    assert quad_turn(across) == (0.716, False)


def test_export_crops_layout_and_manifest(tmp_path: Path) -> None:
    splits = standard_splits(["classic"], [])
    opt = CropOptions(resolutions={"720p": 1.0})
    got = export_crops(tmp_path, {"train": 40}, splits, seed=3, opt=opt)
    files = sorted(tmp_path.glob("train/*/*.jpg"))
    assert len(files) == 40 == sum(got["train"].values())
    assert max(got["train"].values()) <= 8  # balanced on the way: no class runs ahead of the scarcest by more
    assert {f.parent.name for f in files} <= set(CLASS_KEYS)
    assert cv2.imread(str(files[0])).shape == (96, 96, 3)
    rows = list(csv.DictReader((tmp_path / "manifest_train.csv").open()))
    assert len(rows) == 40 and all((tmp_path / r["file"]).exists() for r in rows)
    assert all(r["design"] == "classic" and float(r["visible_share"]) >= 0.6 for r in rows)
    assert all(0 < float(r["quad_aspect"]) <= 1 and r["turned"] in ("0", "1") for r in rows)
    assert json.loads((tmp_path / "classes.json").read_text()) == list(CLASS_KEYS)


def test_export_detect_labels(tmp_path: Path) -> None:
    from monitor.render.detect_export import DetectOptions

    splits = standard_splits(["jumbo"], [])
    got = export_detect(
        tmp_path,
        {"train": 2, "val": 1},
        splits,
        seed=4,
        opt=DetectOptions(imgsz=320, resolutions={"720p": 1.0}, fullres=1),
    )
    assert sum(got["train"].values()) > 5
    for split, n in (("train", 2), ("val", 1)):
        imgs = sorted((tmp_path / "images" / split).glob("*.jpg"))
        assert len(imgs) == n and max(cv2.imread(str(imgs[0])).shape[:2]) == 320
        coco = json.loads((tmp_path / f"coco_{split}.json").read_text())
        nlines = 0
        for img in imgs:
            obb = (tmp_path / "labels" / split / f"{img.stem}.txt").read_text().split("\n")
            aabb = (tmp_path / "aabb" / "labels" / split / f"{img.stem}.txt").read_text().split("\n")
            obb, aabb = [x for x in obb if x], [x for x in aabb if x]
            assert len(obb) == len(aabb)
            nlines += len(obb)
            for line in obb:
                v = line.split()
                assert len(v) == 9 and 0 <= int(v[0]) <= 5
                assert all(-1e-6 <= float(x) <= 1 + 1e-6 for x in v[1:])
        assert len(coco["annotations"]) == nlines and len(coco["images"]) == n
        # COCO ids from 1: categories are the YOLO class + 1, annotations 1..N, images frame + 1
        assert [c["id"] for c in coco["categories"]] == list(range(1, len(LABELS) + 1))
        assert [c["name"] for c in coco["categories"]] == list(LABELS)
        assert [a["id"] for a in coco["annotations"]] == list(range(1, nlines + 1))
        assert [im["id"] for im in coco["images"]] == list(range(1, n + 1))
        assert {a["image_id"] for a in coco["annotations"]} <= {im["id"] for im in coco["images"]}
        yolo_classes = sorted(
            int(line.split()[0])
            for img in imgs
            for line in (tmp_path / "labels" / split / f"{img.stem}.txt").read_text().split("\n")
            if line
        )
        assert sorted(a["category_id"] for a in coco["annotations"]) == [c + 1 for c in yolo_classes]
        assert (tmp_path / "fullres" / split / f"{split}_000000.json").exists()
    # a second process adds frames without overwriting the first one's
    export_detect(
        tmp_path,
        {"train": 1},
        splits,
        seed=4,
        opt=DetectOptions(imgsz=320, resolutions={"720p": 1.0}),
        start=5,
    )
    assert (tmp_path / "images" / "train" / "train_000005.jpg").exists()
    assert len(list((tmp_path / "images" / "train").glob("*.jpg"))) == 3
    from5 = json.loads((tmp_path / "coco_train_from5.json").read_text())
    assert from5["images"][0]["id"] == 6 and from5["images"][0]["file_name"].endswith("train_000005.jpg")
    assert "names:" in (tmp_path / "obb.yaml").read_text()
    assert (tmp_path / "aabb" / "images" / "train").is_dir()


def test_export_detect_two_workers_make_the_same_dataset(tmp_path: Path) -> None:
    from monitor.render.detect_export import DetectOptions

    splits = standard_splits(["jumbo"], [])
    opt = DetectOptions(imgsz=160, resolutions={"720p": 1.0}, h264=0.5)
    n = 4  # two chunks of two: the second process renders one of them
    one = export_detect(tmp_path / "one", {"train": n}, splits, seed=9, opt=opt, workers=1, chunk=2)
    two = export_detect(tmp_path / "two", {"train": n}, splits, seed=9, opt=opt, workers=2, chunk=2)
    assert one == two
    for name in ("coco_train.json",):
        a = json.loads((tmp_path / "one" / name).read_text())
        b = json.loads((tmp_path / "two" / name).read_text())
        assert a == b and [im["id"] for im in a["images"]] == list(range(1, n + 1))
        assert any(im["h264_crf"] for im in a["images"]) and any(not im["h264_crf"] for im in a["images"])
    for lab in sorted((tmp_path / "one" / "labels" / "train").glob("*.txt")):
        assert lab.read_text() == (tmp_path / "two" / "labels" / "train" / lab.name).read_text()


def test_the_hand_of_an_arm_is_labeled_where_it_is_drawn() -> None:
    from monitor.render.camera import default_camera
    from monitor.render.detect_export import labeled_objects
    from monitor.render.scene import Occluder, arm_outline

    cam = default_camera(1280, 720)
    outline, sleeve = arm_outline((0.0, -600.0, 300.0), (100.0, -100.0, 40.0), width=80.0)
    scene = Scene()
    scene.add(Occluder(outline, sleeve_points=sleeve))
    frame = Renderer().render(scene, cam)
    hands = [(q, o) for name, q, o in labeled_objects(frame) if name == "hand"]
    assert len(hands) == 1
    quad = hands[0][0].astype(np.float32)
    # the hand's centre (the arm's end point) is inside the box, the shoulder side far outside it
    centre = cam.project(np.array([[100.0, -100.0, 40.0]]))[0]
    elbow = cam.project(np.array([[50.0, -350.0, 170.0]]))[0]
    assert cv2.pointPolygonTest(quad, (float(centre[0]), float(centre[1])), False) >= 0
    assert cv2.pointPolygonTest(quad, (float(elbow[0]), float(elbow[1])), True) < -20
    # the box is about a hand long (150 mm at ~0.6 px/mm), not the whole arm
    side = max(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1]))
    mm_per_px = cam.mm_per_px(100.0, -100.0)
    assert 120 < side * mm_per_px < 260
