"""Training data cut from labelled real photos: reader crops with their manifest, detector frames."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import cv2
import numpy as np

from monitor.training.real_cards import card_quad, export_crops, export_detect
from tests.support.paths import REAL_CARDS, shared


def _tiny(tmp_path: Path, n: int = 3) -> Path:
    shared(REAL_CARDS)
    root = tmp_path / "tiny"
    for split in ("train", "valid"):
        for sub in ("images", "labels"):
            (root / split / sub).mkdir(parents=True)
        for img in sorted((REAL_CARDS / split / "images").glob("*.jpg"))[:n]:
            shutil.copy(img, root / split / "images" / img.name)
            label = f"{img.stem}.txt"
            shutil.copy(REAL_CARDS / split / "labels" / label, root / split / "labels" / label)
    shutil.copy(REAL_CARDS / "data.yaml", root / "data.yaml")
    return root


def test_a_card_on_plain_cloth_is_cut_by_its_own_edges() -> None:
    img = np.full((300, 300, 3), (40, 90, 30), np.uint8)
    card = cv2.boxPoints(((150.0, 150.0), (90.0, 126.0), 20.0)).astype(np.int32)
    cv2.fillConvexPoly(img, card, (245, 245, 245))
    xs, ys = card[:, 0], card[:, 1]
    q = card_quad(img, (float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max())))
    assert q is not None
    assert np.abs(np.sort(q, axis=0) - np.sort(card, axis=0)).max() < 4
    # a box over bare cloth holds no card
    assert card_quad(np.full((300, 300, 3), (40, 90, 30), np.uint8), (50.0, 50.0, 150.0, 190.0)) is None


def test_reader_crops_and_detector_frames_from_real_photos(tmp_path: Path) -> None:
    root = _tiny(tmp_path)
    crops = tmp_path / "crops"
    counts = export_crops(root, crops, ("train", "valid"), None, copies=2)
    rows = list(csv.DictReader((crops / "manifest_real.csv").open()))
    labelled = sum(len((root / "train" / "labels" / f"{p.stem}.txt").read_text().split()) // 5
                   for p in (root / "train" / "images").glob("*.jpg"))
    assert sum(counts["train"].values()) == 2 * labelled  # each training card twice, held-out once
    assert len(rows) == sum(sum(c.values()) for c in counts.values())
    first = cv2.imread(str(crops / rows[0]["split"] / rows[0]["file"]))
    assert first is not None and first.shape == (96, 96, 3)

    det = tmp_path / "det"
    frames = export_detect(root, det, ("train", "valid"), None, photos_per_frame=3, seed=1, passes=2)
    assert frames == {"train": 2, "val": 1}
    for label in (det / "labels" / "train").glob("*.txt"):
        values = np.array([[float(v) for v in line.split()] for line in label.read_text().splitlines()])
        assert (values[:, 0] == 0).all() and values.shape[1] == 9  # a face-up card, four corners
        assert ((values[:, 1:] >= 0) & (values[:, 1:] <= 1)).all()
    assert "train: images/train" in (det / "real.yaml").read_text()
