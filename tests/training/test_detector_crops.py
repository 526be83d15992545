"""Reader crops cut where the detector boxed the labelled cards of real photos."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import cv2
from typer.testing import CliRunner

from monitor.cli import app
from tests.support.paths import REAL_CARDS, shared


def _two_photos(tmp_path: Path) -> Path:
    shared(REAL_CARDS)
    root = tmp_path / "two"
    for sub in ("images", "labels"):
        (root / "valid" / sub).mkdir(parents=True)
    shutil.copy(REAL_CARDS / "data.yaml", root / "data.yaml")
    for img in sorted((REAL_CARDS / "valid" / "images").glob("*.jpg"))[:2]:
        shutil.copy(img, root / "valid" / "images" / img.name)
        label = f"{img.stem}.txt"
        shutil.copy(REAL_CARDS / "valid" / "labels" / label, root / "valid" / "labels" / label)
    return root


def test_detector_crops_are_named_by_the_label_their_box_matched(tmp_path: Path) -> None:
    from monitor.perception.models_home import models_home

    root = _two_photos(tmp_path)
    out = tmp_path / "crops"
    result = CliRunner().invoke(app, ["train", "detector-crops", "--out", str(out), "--root", str(root),
                                      "--splits", "valid", "--models", str(models_home() / "photos"),
                                      "--threads", "1", "--no-corrections"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader((out / "manifest_detector.csv").open()))
    labelled = sum(1 for p in (root / "valid" / "labels").glob("*.txt") for line in p.read_text().splitlines()
                   if line.strip())
    assert 0 < len(rows) <= labelled  # one crop at most per labelled card (held-out splits: one pass)
    for r in rows:
        assert r["split"] == "val" and r["file"].split("/")[0] == r["identity"]
        crop = cv2.imread(str(out / "val" / r["file"]))
        assert crop is not None and crop.shape[:2] == (96, 96)


def test_detector_crops_need_a_detector(tmp_path: Path) -> None:
    root = _two_photos(tmp_path)
    result = CliRunner().invoke(app, ["train", "detector-crops", "--out", str(tmp_path / "o"), "--root",
                                      str(root), "--splits", "valid", "--models", str(tmp_path / "none")])
    assert result.exit_code != 0
    assert "none" in result.output
