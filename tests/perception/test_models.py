"""The shipped weights (models/) on committed sample frames rendered by the project, through the runtime.

Thresholds sit below what the shipped models measured on these frames (see models/MODEL_CARD.md), so
a regression in the weights, the rectification or the pipeline fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from monitor.cli import app
from monitor.perception.imageio import load_image
from monitor.perception.pipeline import DEFAULT_MODELS, Perceiver
from monitor.perception.scoring import load_truth, score_frame
from tests.support.paths import DATA, TABLE_1080P

OBLIQUE = DATA / "teal_oblique_1080p.jpg"
# Measured with the first shipped detector.onnx and cards.onnx, both finders ("auto"): table frame
# recall 1.0 (classical finder alone 0.82), 12 of 19 face-up cards found named (top-1 0.63), the rest
# honestly "unknown", no misread; oblique frame on an unseen table recall 0.91 (alone 0.27).
RECALL_MIN = 0.95
TOP1_MIN = 0.55
FALSE_MAX = 0.0  # not one card named wrongly on these frames
OBLIQUE_RECALL_MIN = 0.8


@pytest.fixture(scope="module")
def perceiver() -> Perceiver:
    assert (DEFAULT_MODELS / "cards.onnx").exists(), "models/cards.onnx must ship with the repository"
    return Perceiver.from_models(DEFAULT_MODELS, backend="onnxruntime")


def test_shipped_models_find_and_read_cards_on_a_training_table(perceiver: Perceiver) -> None:
    dets = perceiver.perceive(load_image(TABLE_1080P))
    s = score_frame(dets, load_truth(TABLE_1080P.with_suffix(".json"))).summary()
    assert s["unoccluded_cards"] == 22
    assert s["recall"] >= RECALL_MIN
    assert s["identity_top1"] >= TOP1_MIN
    assert s["false_identity"] <= FALSE_MAX
    assert s["corner_error_px_median"] < 2.0
    for d in dets.cards:  # every card has a proper quad and a calibrated confidence
        assert len(d.corners) == 4 and 0.0 <= d.identity_confidence <= 1.0


def test_shipped_models_on_an_unseen_table_and_oblique_camera(perceiver: Perceiver) -> None:
    dets = perceiver.perceive(load_image(OBLIQUE))
    s = score_frame(dets, load_truth(OBLIQUE.with_suffix(".json"))).summary()
    assert s["recall"] >= OBLIQUE_RECALL_MIN
    assert s["false_identity"] <= FALSE_MAX


def test_backends_agree_on_identities() -> None:
    frame = load_image(TABLE_1080P)
    a = Perceiver.from_models(DEFAULT_MODELS, backend="onnxruntime").perceive(frame)
    b = Perceiver.from_models(DEFAULT_MODELS, backend="openvino").perceive(frame)
    assert [d.identity for d in a.cards] == [d.identity for d in b.cards]
    conf_a = np.array([d.identity_confidence for d in a.cards])
    conf_b = np.array([d.identity_confidence for d in b.cards])
    assert np.allclose(conf_a, conf_b, atol=0.02)


def test_detect_command_json_and_annotation(tmp_path: Path) -> None:
    out = tmp_path / "annotated.jpg"
    res = CliRunner().invoke(app, ["detect", str(TABLE_1080P), "--json", "--annotate", str(out),
                                   "--backend", "onnxruntime"])
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout[res.stdout.index("["):])
    assert payload[0]["width"] == 1920 and payload[0]["height"] == 1080
    cards = [d for d in payload[0]["detections"] if d["kind"].startswith("card")]
    assert len(cards) >= 15
    assert all(len(d["corners"]) == 4 and "identity" in d for d in cards)
    assert out.exists() and load_image(out).shape == (1080, 1920, 3)


def test_detect_command_reports_a_corrupt_image_and_goes_on(tmp_path: Path) -> None:
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(TABLE_1080P.read_bytes()[:300])
    res = CliRunner().invoke(app, ["detect", str(bad), str(TABLE_1080P), "--backend", "onnxruntime"])
    assert res.exit_code == 1
    assert "cannot decode image file" in res.output and "broken.jpg" in res.output
    assert "table_1080p.jpg:" in res.output  # the good image was still processed


def test_detect_command_rejects_a_wrong_model_folder(tmp_path: Path) -> None:
    (tmp_path / "cards.onnx").write_bytes(b"not a model at all" * 10)
    (tmp_path / "cards.json").write_text(json.dumps({"classes": ["As"], "imgsz": 64}))
    res = CliRunner().invoke(app, ["detect", str(TABLE_1080P), "--models", str(tmp_path)])
    assert res.exit_code == 2
    assert "cards.onnx" in res.output and "not a loadable ONNX model" in res.output


def test_boxes_snapped_to_edges_keep_the_figures_and_come_closer(perceiver: Perceiver) -> None:
    """Boxes snapped to edges (the default for photos) on the sample frames: the figures hold, and on
    the oblique frame (cards the classical finder does not cut out alone) the corners come closer to
    the truth (measured: median corner error 2.88 -> 1.02 px there, one of its ten face-up cards left
    unknown that was named; 0.91 -> 0.76 px on the table frame)."""
    for frame, recall_min, gain in ((TABLE_1080P, RECALL_MIN, 1.3), (OBLIQUE, OBLIQUE_RECALL_MIN, 0.6)):
        truth = load_truth(frame.with_suffix(".json"))
        scores = {}
        try:
            for snap in (False, True):
                perceiver.snap_edges = snap
                scores[snap] = score_frame(perceiver.perceive(load_image(frame)), truth).summary()
        finally:
            perceiver.snap_edges = True  # the module's perceiver, as loaded for photos
        assert scores[True]["recall"] >= recall_min
        assert scores[True]["false_identity"] <= FALSE_MAX
        assert scores[True]["corner_error_px_median"] <= gain * scores[False]["corner_error_px_median"]
    res = CliRunner().invoke(app, ["detect", str(TABLE_1080P), "--no-snap-edges", "--backend", "onnxruntime"])
    assert res.exit_code == 0, res.output


def test_the_shipped_reader_reads_a_card_the_rectifier_stood_on_its_side() -> None:
    # An oblique camera can foreshorten a card's long side below its width: the rectifier then takes
    # that side for the top, and the crop shows the card turned 90 degrees (1.3-1.8% of the held-out
    # crops; models/MODEL_CARD.md). Here a rendered card's frame squashed to 0.6 of its
    # height does it (quad 0.84 short over long): one way round none is named, both ways all are.
    import cv2

    from monitor.perception.identity import load_card_reader
    from monitor.perception.rectify import CROP_SIZE, quad_aspect, rectify_card
    from monitor.render.camera import Camera
    from monitor.render.renderer import Renderer
    from monitor.render.scene import CardObj, Scene

    reader = load_card_reader(DEFAULT_MODELS, "onnxruntime", threads=1)
    assert reader is not None and reader.turn_aspect == 0.8
    cam = Camera.overhead((1280, 720), view_width_mm=900, height_mm=2000, center=(0, 0))
    for key in ("6d", "9s", "Qh", "Ah"):
        scene = Scene(table_style="grey")
        scene.add(CardObj(key, 0, 0, 0, design="classic"))
        frame = Renderer().render(scene, cam)
        squashed = cv2.resize(frame.image, (1280, 432), interpolation=cv2.INTER_AREA)
        quad = np.asarray(frame.objects[0].polygon) * [1.0, 0.6]
        crop = rectify_card(squashed, quad, CROP_SIZE)
        assert quad_aspect(quad) > 0.8
        assert reader.classify([crop])[0].label != key  # read one way round: not named
        assert reader.classify([crop], [quad_aspect(quad)])[0].label == key, key
