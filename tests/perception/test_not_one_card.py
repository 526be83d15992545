"""A reader taught the class "none" (a box holding no single card): its card classes then name nothing,
alone or as one member of an ensemble, and the class never leaks into what the monitor reports."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from monitor.perception.detector import Box
from monitor.perception.errors import ModelFileError
from monitor.perception.identity import CardClassifier, CardEnsemble, Identity
from monitor.perception.labels import IDENTITY_CLASSES, NOT_ONE_CARD, UNKNOWN
from monitor.perception.pipeline import Perceiver
from tests.support.detector import FixedBoxes
from tests.support.tiny_models import tiny_reader

WITH_NONE = [*IDENTITY_CLASSES, NOT_ONE_CARD]
BRIGHT = np.full((96, 96, 3), 255, np.uint8)  # the tiny models read this as the As
DARK = np.zeros((96, 96, 3), np.uint8)  # and this as no single card (the one taught "none")


def test_a_reader_taught_none_names_nothing_where_it_says_no_single_card(tmp_path: Path) -> None:
    tiny_reader(tmp_path / "cards.onnx", WITH_NONE, none_bias=10.0)
    clf = CardClassifier(tmp_path / "cards.onnx", "onnxruntime")
    assert clf.classes == IDENTITY_CLASSES  # the card classes: "none" is read apart
    lp, none = clf.raw_read([BRIGHT, DARK])
    assert lp.shape == (2, len(IDENTITY_CLASSES)) and np.allclose(np.exp(lp).sum(axis=1), 1.0)
    assert none is not None and none[0] < 1e-6 and none[1] > 0.99
    bright, dark = clf.classify([BRIGHT, DARK])
    assert bright.label == "As" and bright.top_class == "As"
    assert (dark.label, dark.top_class, dark.rank) == (UNKNOWN, NOT_ONE_CARD, None)
    assert dark.confidence == pytest.approx(float(none[1]))
    # turned reads (square quads) call a crop "none" only if both ways round do
    assert clf.read([DARK], [0.9])[1] is not None
    assert clf.classify([]) == []


def test_an_ensemble_takes_none_from_the_member_taught_it(tmp_path: Path) -> None:
    tiny_reader(tmp_path / "cards.onnx", WITH_NONE, none_bias=10.0)
    tiny_reader(tmp_path / "cards_corner.onnx", list(IDENTITY_CLASSES), none_bias=0.0)
    spec = {"members": ["cards.onnx", "cards_corner.onnx"], "temperature": 1.0, "threshold": 0.9}
    (tmp_path / "cards_ensemble.json").write_text(json.dumps(spec))
    ens = CardEnsemble(tmp_path / "cards_ensemble.json", "onnxruntime")
    assert ens.classes == IDENTITY_CLASSES
    bright, dark = ens.classify([BRIGHT, DARK])
    assert bright.label == "As"
    assert (dark.label, dark.top_class) == (UNKNOWN, NOT_ONE_CARD)
    # a stricter none_threshold than the member's 0.998 lets the card classes speak (unsure: unknown)
    (tmp_path / "cards_ensemble.json").write_text(json.dumps({**spec, "none_threshold": 0.9999}))
    dark = CardEnsemble(tmp_path / "cards_ensemble.json", "onnxruntime").classify([DARK])[0]
    assert dark.label == UNKNOWN and dark.top_class in IDENTITY_CLASSES
    # members without the class: no crop is ever called "none"
    plain = {**spec, "members": ["cards_corner.onnx", "cards_corner.onnx"]}
    (tmp_path / "cards_ensemble.json").write_text(json.dumps(plain))
    ens = CardEnsemble(tmp_path / "cards_ensemble.json", "onnxruntime")
    assert ens.raw_read([DARK])[1] is None and ens.classify([DARK])[0].top_class != NOT_ONE_CARD


def test_a_bad_none_threshold_or_class_is_refused_saying_where(tmp_path: Path) -> None:
    tiny_reader(tmp_path / "cards.onnx", WITH_NONE, none_bias=10.0)
    meta = json.loads((tmp_path / "cards.json").read_text())
    for bad in (0.0, 1.5, "x"):
        (tmp_path / "cards.json").write_text(json.dumps({**meta, "none_threshold": bad}))
        with pytest.raises(ModelFileError, match=r"cards\.json"):
            CardClassifier(tmp_path / "cards.onnx", "onnxruntime")
    (tmp_path / "cards.json").write_text(json.dumps({**meta, "classes": [*IDENTITY_CLASSES, "nothing"]}))
    with pytest.raises(ModelFileError, match="unknown classes"):
        CardClassifier(tmp_path / "cards.onnx", "onnxruntime")


def test_a_box_read_as_no_single_card_is_reported_unread() -> None:
    """The monitor reports the box as the detector saw it, unread: "none" is no card identity."""
    quad = np.array([[100.0, 100.0], [163.0, 100.0], [163.0, 188.0], [100.0, 188.0]])

    class SaysNone:
        def classify(self, crops: list[np.ndarray], aspects: object = None) -> list[Identity]:
            return [Identity(UNKNOWN, 0.99, NOT_ONE_CARD) for _ in crops]

    frame = np.full((720, 1280, 3), 90, np.uint8)
    frame[100:189, 100:164] = 240  # a card's face, not felt (a box over bare felt is dropped)
    for kind in ("card_face_up", "card_face_down"):
        d = Perceiver(FixedBoxes(Box(kind, 0.9, quad)), SaysNone(),  # type: ignore[arg-type]
                      classical="off").perceive(frame).cards[0]
        assert (d.kind, d.identity, d.rank) == (kind, UNKNOWN, None)


def test_the_none_class_is_measured_apart_from_the_card_classes(tmp_path: Path) -> None:
    """``train cards`` on a reader taught "none": calibrated and scored on the card classes, and how
    often it calls card crops and its own crops "none" reported per split."""
    import cv2

    from monitor.training.evaluate_cards import calibrate_and_evaluate, list_split, not_one_card_rates

    model = tmp_path / "m" / "cards.onnx"
    model.parent.mkdir()
    tiny_reader(model, WITH_NONE, none_bias=10.0)
    data = tmp_path / "data"
    for split in ("val", "test"):
        for cls, img in (("As", BRIGHT), (NOT_ONE_CARD, DARK)):
            (data / split / cls).mkdir(parents=True)
            for k in range(3):
                cv2.imwrite(str(data / split / cls / f"{k}.png"), img)
    paths, labels = list_split(data / "val", list(IDENTITY_CLASSES))
    assert len(paths) == 3 and set(labels.tolist()) == {IDENTITY_CLASSES.index("As")}
    result = calibrate_and_evaluate(model, WITH_NONE, 96, data, tmp_path / "eval", ("test",))
    assert result["test"]["n"] == 3 and result["test"]["top1"] == 1.0
    assert result["not_one_card"]["test"] == {"cards": 3.0, "cards_called_none": 0.0, "none_crops": 3.0,
                                              "none_called_none": 1.0}
    assert json.loads(model.with_suffix(".json").read_text())["classes"] == WITH_NONE
    tiny_reader(tmp_path / "plain.onnx", list(IDENTITY_CLASSES), none_bias=0.0)
    assert not_one_card_rates(CardClassifier(tmp_path / "plain.onnx", "onnxruntime"), data, ("val",)) == {}
