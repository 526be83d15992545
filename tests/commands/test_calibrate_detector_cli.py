"""``table-monitor calibrate-detector`` end to end on a one-frame detection set with constant models."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from monitor.cli import app
from tests.support.tiny_models import constant_obb_model

CLASSES = ["card_face_up", "card_face_down", "pile", "chip", "dice"]


def _model(folder: Path, boxes: list[tuple[float, float, float]]) -> Path:
    """A detector boxing piles 60 px square at (cx, cy) with the given scores, whatever the image."""
    folder.mkdir(parents=True)
    raw = np.zeros((1, 4 + len(CLASSES) + 1, len(boxes)), np.float32)
    for i, (cx, cy, score) in enumerate(boxes):
        raw[0, :4, i], raw[0, 4 + CLASSES.index("pile"), i] = (cx, cy, 60, 60), score
    constant_obb_model(folder / "detector.onnx", raw, (384, 640))
    (folder / "detector.json").write_text(json.dumps(
        {"task": "obb", "classes": CLASSES, "imgsz": 640, "input_hw": [384, 640]}))
    return folder


def test_the_candidate_gets_the_lowest_score_as_precise_as_the_peer(tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    data = tmp_path / "set"
    (data / "images" / "val").mkdir(parents=True)
    (data / "labels" / "val").mkdir(parents=True)
    (data / "obb.yaml").write_text("names:\n" + "".join(f"  {i}: {c}\n" for i, c in enumerate(CLASSES)))
    cv2.imwrite(str(data / "images" / "val" / "f0.png"), np.zeros((384, 640, 3), np.uint8))
    x0, y0, x1, y1 = 290 / 640, 162 / 384, 350 / 640, 222 / 384  # the one true pile, at (320, 192)
    (data / "labels" / "val" / "f0.txt").write_text(f"2 {x0} {y0} {x1} {y0} {x1} {y1} {x0} {y1}\n")
    # the peer: the pile at 0.6 and a false one at 0.45 (precision 0.5 from 0.40); the candidate
    # scores lower: the pile at 0.5, its false box at 0.37
    peer = _model(tmp_path / "peer", [(320, 192, 0.6), (100, 100, 0.45)])
    cand = _model(tmp_path / "cand", [(320, 192, 0.5), (500, 300, 0.37)])
    result = CliRunner().invoke(app, ["calibrate-detector", "--models", str(cand), "--peer", str(peer),
                                      "--data", str(data), "--write", "--threads", "1"])
    assert result.exit_code == 0, result.output
    assert "reaches it from 0.35" in result.output
    meta = json.loads((cand / "detector.json").read_text())
    assert meta["track_conf"] == 0.35 and meta["track_conf_from"]["precision"] == 0.5
    # a folder that is not a detection set: said so, nothing written
    bad = CliRunner().invoke(app, ["calibrate-detector", "--models", str(cand), "--peer", str(peer),
                                   "--data", str(tmp_path / "nothing")])
    assert bad.exit_code != 0 and "not a detection set" in bad.output
