"""Calibration, chips, the Detections type, and clear errors on bad images and bad model files."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from monitor.perception.backends import load_backend
from monitor.perception.calibration import choose_threshold, fit_temperature, log_probs, softmax_t
from monitor.perception.chips import chip_denomination, spread_groups, stack_count
from monitor.perception.detections import Detection, Detections
from monitor.perception.errors import ImageReadError, ModelFileError
from monitor.perception.identity import CardClassifier
from monitor.perception.imageio import load_image
from monitor.perception.labels import IDENTITY_CLASSES
from tests.support.detector import FixedBoxes
from tests.support.frames import synthetic_table
from tests.support.paths import MODELS
from tests.support.tiny_models import constant_obb_model


def test_fit_temperature_recovers_overconfidence() -> None:
    rng = np.random.default_rng(0)
    n, k, true_t = 4000, 10, 3.0
    logits = rng.normal(0, 1, (n, k)) * 2
    # sample labels from softmax(logits), then report logits * true_t: an overconfident model
    p = softmax_t(log_probs(logits, False), 1.0)
    labels = np.array([rng.choice(k, p=row) for row in p])
    t = fit_temperature(log_probs(logits * true_t, False), labels)
    assert t == pytest.approx(true_t, rel=0.1)


def test_member_weights_favour_the_member_that_is_right_more_often() -> None:
    from monitor.perception.calibration import fit_member_weights

    rng = np.random.default_rng(5)
    n, k = 600, 10
    y = rng.integers(0, k, n)

    def member(right_share: float, sure: float) -> np.ndarray:
        # log-probabilities that put ``sure`` on the true class for ``right_share`` of samples, else on
        # another class
        lp = np.full((n, k), np.log((1 - sure) / (k - 1)))
        hit = rng.random(n) < right_share
        top = np.where(hit, y, (y + 1 + rng.integers(0, k - 1, n)) % k)
        lp[np.arange(n), top] = np.log(sure)
        return lp

    # the second member is right more often but less sure of itself: it needs more weight to win ties
    loose, strict = member(0.6, 0.9), member(0.85, 0.5)
    w = fit_member_weights([loose, strict], y)
    assert w[0] == 1.0 and w[1] > 1.0
    assert int(((loose + w[1] * strict).argmax(1) == y).sum()) >= int(((loose + strict).argmax(1) == y).sum())
    # two members alike: nothing to gain, equal weights
    same = member(0.8, 0.9)
    assert fit_member_weights([same, same.copy()], y) == [1.0, 1.0]


def test_choose_threshold_keeps_false_identities_within_budget() -> None:
    conf = np.array([0.99, 0.98, 0.97, 0.9, 0.8, 0.7, 0.6, 0.55])
    correct = np.array([True, True, True, False, True, True, False, True])
    thr = choose_threshold(conf, correct, max_false_rate=0.0, floor=0.5)
    assert thr == pytest.approx(0.97)  # everything below would accept the misread at 0.9
    accepted = conf >= thr
    assert not np.any(accepted & ~correct)
    assert choose_threshold(conf, correct, max_false_rate=0.2) <= 0.7


def test_bad_image_files_get_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ImageReadError, match="not found"):
        load_image(tmp_path / "missing.jpg")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    with pytest.raises(ImageReadError, match="empty"):
        load_image(empty)
    ok = tmp_path / "ok.jpg"
    cv2.imwrite(str(ok), np.full((64, 64, 3), 128, np.uint8))
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(ok.read_bytes()[:40])
    with pytest.raises(ImageReadError, match=r"cannot decode image file .*corrupt\.jpg"):
        load_image(corrupt)
    assert load_image(ok).shape == (64, 64, 3)


@pytest.mark.parametrize("backend", ["onnxruntime", "openvino"])
def test_wrong_model_files_get_clear_errors(tmp_path: Path, backend: str) -> None:
    with pytest.raises(ModelFileError, match="not found"):
        load_backend(tmp_path / "nope.onnx", backend)
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"this is not a protobuf model " * 10)
    with pytest.raises(ModelFileError, match=r"junk\.onnx"):
        load_backend(junk, backend)
    with pytest.raises(ValueError, match="unknown inference backend"):
        load_backend(junk, "tensorflow")


def _tiny_classifier(path: Path, n_out: int) -> None:
    """A real (untrained) ONNX classifier: mean-pool -> linear -> softmax."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    w = numpy_helper.from_array(np.random.default_rng(0).normal(size=(3, n_out)).astype(np.float32), "W")
    nodes = [
        helper.make_node("GlobalAveragePool", ["images"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"]),
        helper.make_node("MatMul", ["flat", "W"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["output0"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "tiny", [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["n", 3, 96, 96])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["n", n_out])], initializer=[w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))


def test_classifier_checks_its_metadata_against_the_model(tmp_path: Path) -> None:
    model = tmp_path / "cards.onnx"
    _tiny_classifier(model, 10)
    with pytest.raises(ModelFileError, match="metadata not found"):
        CardClassifier(model, "onnxruntime")
    meta = {"classes": list(IDENTITY_CLASSES), "imgsz": 96, "temperature": 1.0, "threshold": 0.9}
    (tmp_path / "cards.json").write_text(json.dumps(meta))
    with pytest.raises(ModelFileError, match="not a card classifier"):
        CardClassifier(model, "onnxruntime")
    (tmp_path / "cards.json").write_text("{broken")
    with pytest.raises(ModelFileError, match="malformed"):
        CardClassifier(model, "onnxruntime")
    (tmp_path / "cards.json").write_text(json.dumps({**meta, "classes": ["As", "Zz"]}))
    with pytest.raises(ModelFileError, match="unknown classes"):
        CardClassifier(model, "onnxruntime")


@pytest.mark.parametrize("backend", ["onnxruntime", "openvino"])
def test_classifier_reports_unknown_below_threshold(tmp_path: Path, backend: str) -> None:
    model = tmp_path / "cards.onnx"
    _tiny_classifier(model, len(IDENTITY_CLASSES))
    meta = {"classes": list(IDENTITY_CLASSES), "imgsz": 96, "temperature": 1.0, "threshold": 0.99}
    (tmp_path / "cards.json").write_text(json.dumps(meta))
    clf = CardClassifier(model, backend)
    crops = [np.full((96, 96, 3), v, np.uint8) for v in (0, 128, 255)]
    ids = clf.classify(crops)
    assert len(ids) == 3
    for i in ids:  # an untrained model is never 99% sure: every card is honestly unknown
        assert i.label == "unknown" and 0 < i.confidence < 0.99 and i.top_class in IDENTITY_CLASSES
    probs = clf.calibrated_probabilities(crops)
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)


def test_chip_denomination_from_colour() -> None:
    frame = np.full((200, 300, 3), (35, 105, 30), np.uint8)
    for x, bgr in ((60, (40, 40, 190)), (150, (30, 30, 30)), (240, (120, 40, 110))):
        cv2.circle(frame, (x, 100), 30, bgr, -1)
        cv2.circle(frame, (x, 100), 30, (240, 240, 240), 4)  # edge spots
    corners = lambda x: [(x - 30, 70), (x + 30, 70), (x + 30, 130), (x - 30, 130)]  # noqa: E731
    assert [chip_denomination(frame, corners(x)).denomination for x in (60, 150, 240)] == [5, 100, 500]


def test_stack_count_and_spread_groups() -> None:
    # 10 chips seen at 45 degrees: 60 px wide, 60*cos45 + 10*60*(3.3/39)*sin45 tall
    t = np.radians(45)
    height = 60 * np.cos(t) + 10 * 60 * (3.3 / 39) * np.sin(t)
    quad = [(0, 0), (60, 0), (60, height), (0, height)]
    assert stack_count(quad, 45.0) == 10
    assert stack_count(quad, None) is None and stack_count(quad, 5.0) is None
    groups = spread_groups([(0, 0), (50, 0), (500, 0), (60, 10)], [5, 5, 5, 25], diameter_px=45)
    assert sorted(map(len, groups)) == [1, 1, 2]


def test_detection_validation_and_json() -> None:
    d = Detection("card_face_up", 0.9, ((0, 0), (10, 0), (10, 14), (0, 14)), identity="As",
                  identity_confidence=0.995)
    assert d.box == (0, 0, 10, 14) and d.is_known_card
    dets = Detections(100, 100, (d,), {"total": 1.0})
    back = json.loads(dets.to_json())
    assert back["detections"][0]["identity"] == "As" and back["detections"][0]["corners"][2] == [10, 14]
    with pytest.raises(ValueError, match="unknown detection kind"):
        Detection("car", 0.9, d.corners)
    with pytest.raises(ValueError, match="unknown card identity"):
        Detection("card_face_up", 0.9, d.corners, identity="1s")
    with pytest.raises(ValueError, match="outside"):
        Detection("chip", 1.5, d.corners)
    # an unread face keeps its rank and how likely it is a back, through JSON and back
    u = Detection("card_face_up", 0.9, d.corners, identity="unknown", identity_confidence=0.66, rank="A",
                  back_probability=0.001)
    again = Detections.from_dict(json.loads(Detections(100, 100, (u,)).to_json())).items[0]
    assert (again.rank, again.back_probability, again.is_known_card) == ("A", 0.001, False)
    with pytest.raises(ValueError, match="unknown card rank 'Z'"):
        Detection("card_face_up", 0.9, d.corners, rank="Z")
    with pytest.raises(ValueError, match="back probability"):
        Detection("card_face_up", 0.9, d.corners, back_probability=1.2)


@pytest.mark.parametrize("backend", ["onnxruntime", "openvino"])
def test_detector_maps_oriented_boxes_back_to_the_full_frame(tmp_path: Path, backend: str) -> None:
    from monitor.perception.detector import Detector

    classes = ["card_face_up", "card_face_down", "pile", "chip", "dice"]
    raw = np.zeros((1, 4 + 5 + 1, 3), np.float32)
    raw[0, :4, 0], raw[0, 4 + 0, 0] = (320, 192, 30, 42), 0.9  # a face-up card in the middle
    raw[0, :4, 1], raw[0, 4 + 3, 1] = (100, 100, 12, 12), 0.8  # a chip
    raw[0, :4, 2], raw[0, 4 + 0, 2] = (500, 300, 30, 42), 0.1  # below the confidence threshold
    constant_obb_model(tmp_path / "detector.onnx", raw, (384, 640))
    (tmp_path / "detector.json").write_text(json.dumps(
        {"task": "obb", "classes": classes, "imgsz": 640, "input_hw": [384, 640]}))
    det = Detector(tmp_path / "detector.onnx", backend)
    boxes = det.detect(np.zeros((1080, 1920, 3), np.uint8))
    assert [b.kind for b in boxes] == ["card_face_up", "chip"]
    card = boxes[0]
    # letterbox 1920x1080 -> 640x360 (scale 1/3) padded to 384 (12 px on top)
    assert np.allclose(card.corners.mean(axis=0), (960, (192 - 12) * 3), atol=1e-3)
    sides = sorted(np.linalg.norm(card.corners - np.roll(card.corners, -1, axis=0), axis=1))
    assert np.allclose(sides, [90, 90, 126, 126], atol=1e-3)
    (tmp_path / "detector.json").write_text(json.dumps({"task": "obb", "classes": ["car"], "imgsz": 640}))
    with pytest.raises(ModelFileError, match="unknown classes"):
        Detector(tmp_path / "detector.onnx", backend)


def test_detector_keeps_a_class_at_its_own_score_threshold(tmp_path: Path) -> None:
    """``class_conf`` in the metadata: the dealer's hand, scored low by the detector, kept at 0.15."""
    from monitor.perception.detector import Detector

    classes = ["card_face_up", "card_face_down", "pile", "chip", "dice", "hand"]
    raw = np.zeros((1, 4 + 6 + 1, 3), np.float32)
    raw[0, :4, 0], raw[0, 4 + 5, 0] = (320, 192, 60, 60), 0.2  # a hand scored 0.2
    raw[0, :4, 1], raw[0, 4 + 3, 1] = (100, 100, 12, 12), 0.2  # a chip scored 0.2
    raw[0, :4, 2], raw[0, 4 + 5, 2] = (500, 300, 60, 60), 0.1  # a hand below even its own threshold
    constant_obb_model(tmp_path / "detector.onnx", raw, (384, 640))
    meta = {"task": "obb", "classes": classes, "imgsz": 640, "input_hw": [384, 640]}
    (tmp_path / "detector.json").write_text(json.dumps(meta))
    frame = np.zeros((1080, 1920, 3), np.uint8)
    assert Detector(tmp_path / "detector.onnx", "onnxruntime").detect(frame) == []
    (tmp_path / "detector.json").write_text(json.dumps({**meta, "class_conf": {"hand": 0.15}}))
    boxes = Detector(tmp_path / "detector.onnx", "onnxruntime").detect(frame)
    assert [(b.kind, round(b.confidence, 2)) for b in boxes] == [("hand", 0.2)]
    for bad in ({"car": 0.2}, {"hand": 1.5}, {"hand": "low"}, ["hand"]):
        (tmp_path / "detector.json").write_text(json.dumps({**meta, "class_conf": bad}))
        with pytest.raises(ModelFileError, match="class_conf"):
            Detector(tmp_path / "detector.onnx", "onnxruntime")
    # the score from which its boxes start tracks: its own when calibrated (calibrate-detector)
    (tmp_path / "detector.json").write_text(json.dumps(meta))
    assert Detector(tmp_path / "detector.onnx", "onnxruntime").track_conf is None
    (tmp_path / "detector.json").write_text(json.dumps({**meta, "track_conf": 0.35}))
    assert Detector(tmp_path / "detector.onnx", "onnxruntime").track_conf == 0.35
    for bad_t in (0, 1.2, "0.35"):
        (tmp_path / "detector.json").write_text(json.dumps({**meta, "track_conf": bad_t}))
        with pytest.raises(ModelFileError, match="track_conf"):
            Detector(tmp_path / "detector.onnx", "onnxruntime")
    # the cards' length it learned: a table camera's unless its metadata says it looks closer
    (tmp_path / "detector.json").write_text(json.dumps(meta))
    assert Detector(tmp_path / "detector.onnx", "onnxruntime").card_px == 64.0
    (tmp_path / "detector.json").write_text(json.dumps({**meta, "card_px": 128}))
    assert Detector(tmp_path / "detector.onnx", "onnxruntime").card_px == 128.0
    for bad_px in (0, 5000, "128"):
        (tmp_path / "detector.json").write_text(json.dumps({**meta, "card_px": bad_px}))
        with pytest.raises(ModelFileError, match="card_px"):
            Detector(tmp_path / "detector.onnx", "onnxruntime")


def test_pipeline_refines_detector_cards_at_full_resolution_and_reads_chips(tmp_path: Path) -> None:
    import cv2

    from monitor.perception.detector import Detector
    from monitor.perception.pipeline import Perceiver

    frame, truths = synthetic_table()  # 1280x720 -> letterbox scale 0.5, 640x360 + 12 px pad in 384
    card = truths[0]
    (cx, cy), (w, h), ang = cv2.minAreaRect(card.astype(np.float32))
    raw = np.zeros((1, 10, 2), np.float32)
    # the detector's rough box: centre 3 px off, 8% too big (a shrunk-frame detection)
    raw[0, :4, 0] = ((cx + 3) * 0.5, (cy - 2) * 0.5 + 12, w * 0.5 * 1.08, h * 0.5 * 1.08)
    raw[0, 9, 0], raw[0, 4, 0] = np.radians(ang), 0.9
    raw[0, :4, 1], raw[0, 4 + 3, 1] = (640 * 0.5, 480 * 0.5 + 12, 22, 22), 0.8  # the red chip
    constant_obb_model(tmp_path / "detector.onnx", raw, (384, 640))
    classes = ["card_face_up", "card_face_down", "pile", "chip", "dice"]
    (tmp_path / "detector.json").write_text(json.dumps(
        {"task": "obb", "classes": classes, "imgsz": 640, "input_hw": [384, 640]}))
    assert Perceiver(Detector(tmp_path / "detector.onnx", "onnxruntime"), None).mode == "full"  # auto
    perceiver = Perceiver(Detector(tmp_path / "detector.onnx", "onnxruntime"), None, classical="refine")
    dets = perceiver.perceive(frame)
    (found,) = dets.cards
    assert found.source == "both"  # detector box, corners re-fitted on the frame
    err = max(np.min(np.linalg.norm(np.array(found.corners) - p, axis=1)) for p in card)
    assert err < 1.5
    (chip,) = dets.of_kind("chip")
    assert chip.denomination == 5
    assert set(dets.timings_ms) >= {"detect", "corners", "identify", "total"}


def _flat_classifier(path: Path, n_out: int, size: int = 8, seed: int = 1) -> None:
    """A real ONNX classifier that sees where pixels are (flatten -> linear -> softmax)."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    w = np.random.default_rng(seed).normal(size=(3 * size * size, n_out)).astype(np.float32)
    nodes = [
        helper.make_node("Flatten", ["images"], ["flat"]),
        helper.make_node("MatMul", ["flat", "W"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["output0"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "flat", [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["n", 3, size, size])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["n", n_out])],
        initializer=[numpy_helper.from_array(w, "W")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))


def test_rot180_test_time_augmentation_reads_a_card_the_same_either_way_up(tmp_path: Path) -> None:
    model = tmp_path / "cards.onnx"
    _flat_classifier(model, len(IDENTITY_CLASSES))
    meta = {"classes": list(IDENTITY_CLASSES), "imgsz": 8, "temperature": 1.0, "threshold": 0.5,
            "tta": "rot180"}
    (tmp_path / "cards.json").write_text(json.dumps(meta))
    clf = CardClassifier(model, "onnxruntime")
    crop = np.random.default_rng(2).integers(0, 255, (8, 8, 3), dtype=np.uint8)
    turned = np.ascontiguousarray(crop[::-1, ::-1])
    both = clf.raw_log_probs([crop, turned])
    assert np.allclose(both[0], both[1], atol=1e-5)  # same card, same answer
    assert np.allclose(np.exp(both).sum(axis=1), 1.0, atol=1e-5)
    plain = clf.raw_log_probs([crop, turned], tta="none")
    assert not np.allclose(plain[0], plain[1], atol=1e-3)  # the model alone does see the difference
    (tmp_path / "cards.json").write_text(json.dumps({**meta, "tta": "mirror"}))
    with pytest.raises(ModelFileError, match="tta"):
        CardClassifier(model, "onnxruntime")


def test_corner_view_reads_only_the_index_corners_and_both_of_them(tmp_path: Path) -> None:
    model = tmp_path / "cards.onnx"
    _flat_classifier(model, len(IDENTITY_CLASSES))
    meta = {"classes": list(IDENTITY_CLASSES), "imgsz": 8, "temperature": 1.0, "threshold": 0.5,
            "tta": "rot180", "view": "corner", "corner": [0.25, 0.25]}
    (tmp_path / "cards.json").write_text(json.dumps(meta))
    clf = CardClassifier(model, "onnxruntime")
    rng = np.random.default_rng(3)
    crop = rng.integers(0, 255, (96, 96, 3), dtype=np.uint8)
    middle = crop.copy()
    middle[24:72] = rng.integers(0, 255, (48, 96, 3), dtype=np.uint8)  # new pips, same indices
    corner = crop.copy()
    corner[:24, :24] = 255 - corner[:24, :24]  # another index in one corner
    other = crop.copy()
    other[72:, 72:] = 255 - other[72:, 72:]  # ... or in the opposite one
    lp = clf.raw_log_probs([crop, middle, corner, other, np.ascontiguousarray(crop[::-1, ::-1])])
    assert np.allclose(lp[0], lp[1], atol=1e-6)  # the model never saw the middle of the card
    assert not np.allclose(lp[0], lp[2], atol=1e-3)  # it reads the top-left index...
    assert not np.allclose(lp[0], lp[3], atol=1e-3)  # ... and the bottom-right one, turned
    assert np.allclose(lp[0], lp[4], atol=1e-5)  # either way up, the same card
    (tmp_path / "cards.json").write_text(json.dumps({**meta, "view": "middle"}))
    with pytest.raises(ModelFileError, match="view"):
        CardClassifier(model, "onnxruntime")
    (tmp_path / "cards.json").write_text(json.dumps({**meta, "corner": [0.0, 2.0]}))
    with pytest.raises(ModelFileError, match="corner"):
        CardClassifier(model, "onnxruntime")


def test_corner_sets_hold_both_index_corners_of_each_crop(tmp_path: Path) -> None:
    from monitor.training.corner_crops import derive_corner_set

    rng = np.random.default_rng(4)
    for split in ("train", "val"):
        (tmp_path / "src" / split / "As").mkdir(parents=True)
        cv2.imwrite(str(tmp_path / "src" / split / "As" / "a.png"),
                    rng.integers(0, 255, (96, 96, 3), dtype=np.uint8))
    counts = derive_corner_set(tmp_path / "src", tmp_path / "out", size=32)
    assert counts == {"train": 2, "val": 2}
    got = sorted(p.name for p in (tmp_path / "out" / "train" / "As").iterdir())
    assert got == ["a_a.jpg", "a_b.jpg"]
    assert cv2.imread(str(tmp_path / "out" / "train" / "As" / "a_a.jpg")).shape == (32, 32, 3)
    with pytest.raises(FileNotFoundError, match="no val/"):
        import shutil

        shutil.rmtree(tmp_path / "src" / "val")
        derive_corner_set(tmp_path / "src", tmp_path / "out2")


@pytest.mark.parametrize("table", ["green", "teal"])
def test_chip_denomination_of_rendered_chips_whose_inlay_is_white(table: str) -> None:
    """The renderer's chips, like casino chips, have a white inlay over most of the centre: the body
    colour around it decides, whatever the felt, the light or a box a few pixels off."""
    from monitor.render.camera import default_camera
    from monitor.render.effects import Effects
    from monitor.render.renderer import Renderer
    from monitor.render.scene import ChipStack, Scene

    denoms = [1, 5, 25, 100, 500, 1000]
    scene = Scene(table_style=table)
    for i, dn in enumerate(denoms):
        scene.add(ChipStack(-250.0 + 100 * i, -300.0, dn, count=1 + i % 3, angle_deg=17.0 * i))
    rng = np.random.default_rng(5)
    for trial in range(3):
        eff = Effects.random(rng) if trial else None
        if eff is not None:  # light, white balance, noise, compression; a still chip (no blur)
            eff.defocus, eff.motion_blur = 0.0, None
        frame = Renderer().render(scene, default_camera(1920, 1080), eff)
        chips = [o for o in frame.objects if o.kind == "chips"]
        assert len(chips) == len(denoms)
        image = frame.image
        for o in chips:
            pts = np.asarray(o.polygon, np.float64)
            box = cv2.boxPoints(cv2.minAreaRect(pts.astype(np.float32))).astype(np.float64)
            # under an arm's shadow (the renderer's are 45% strong) or a warm light: same chip
            for k, tint in ((0.45, (1.0, 1.0, 1.0)), (0.8, (0.75, 0.9, 1.1))):
                dark = np.clip(image * (k * np.array(tint)), 0, 255).astype(np.uint8)
                got = chip_denomination(dark, box).denomination
                assert got == int(o.identity), (table, trial, o.identity, got, k, tint)
        for o in chips:
            pts = np.asarray(o.polygon, np.float64)
            box = cv2.boxPoints(cv2.minAreaRect(pts.astype(np.float32))).astype(np.float64)
            size = float(np.linalg.norm(box[0] - box[1]))
            # a detector's box is a few pixels off: up to a tenth of the chip's width (4 px here)
            for off in ((0.0, 0.0), (0.1, 0.05), (-0.07, -0.1), (0.0, 0.1)):
                got = chip_denomination(frame.image, box + np.array(off) * size).denomination
                assert got == int(o.identity), (table, trial, o.identity, got, off, size)


def test_two_boxes_on_one_chip_stack_are_one_and_neighbours_stay_two() -> None:
    from monitor.perception.detector import Box
    from monitor.perception.pipeline import one_box_per_chip

    def chip(x: float, y: float, conf: float) -> Box:
        return Box("chip", conf, np.array([[x - 15, y - 15], [x + 15, y - 15],
                                           [x + 15, y + 15], [x - 15, y + 15]]))

    # one stack: its top and a box shifted onto its side
    boxes = [chip(100, 100, 0.8), chip(100, 112, 0.5),
             chip(131, 100, 0.7)]  # the chip beside it in a spread (a diameter away)
    kept = one_box_per_chip(boxes)
    assert sorted(b.confidence for b in kept) == [0.7, 0.8]


def test_an_ensemble_reads_with_both_members_and_its_own_calibration(tmp_path: Path) -> None:
    from monitor.perception.identity import CardEnsemble, load_card_reader

    _flat_classifier(tmp_path / "cards.onnx", len(IDENTITY_CLASSES))
    _flat_classifier(tmp_path / "cards_corner.onnx", len(IDENTITY_CLASSES))
    base = {"classes": list(IDENTITY_CLASSES), "imgsz": 8, "temperature": 1.0, "threshold": 0.5,
            "tta": "rot180"}
    (tmp_path / "cards.json").write_text(json.dumps(base))
    (tmp_path / "cards_corner.json").write_text(json.dumps({**base, "view": "corner"}))
    assert isinstance(load_card_reader(tmp_path, "onnxruntime"), CardClassifier)  # no ensemble file yet
    (tmp_path / "cards_ensemble.json").write_text(json.dumps(
        {"members": ["cards.onnx", "cards_corner.onnx"], "temperature": 2.0, "threshold": 0.0}))
    ens = load_card_reader(tmp_path, "onnxruntime")
    assert isinstance(ens, CardEnsemble)
    crops = [np.random.default_rng(k).integers(0, 255, (96, 96, 3), dtype=np.uint8) for k in range(3)]
    a, b = (m.raw_log_probs(crops) for m in ens.members)
    want = a + b
    want -= np.log(np.exp(want).sum(axis=1, keepdims=True))
    assert np.allclose(ens.raw_log_probs(crops), want, atol=1e-6)  # the product of the two experts
    assert np.allclose(ens.calibrated_probabilities(crops), softmax_t(want, 2.0), atol=1e-6)
    assert [i.top_class for i in ens.classify(crops)] == [IDENTITY_CLASSES[k] for k in want.argmax(axis=1)]
    # weighted members (fitted on val by `train ensemble`): the corner member's log-probabilities count 1.5x
    (tmp_path / "cards_ensemble.json").write_text(json.dumps(
        {"members": ["cards.onnx", "cards_corner.onnx"], "weights": [1.0, 1.5], "temperature": 2.0}))
    weighted = load_card_reader(tmp_path, "onnxruntime")
    want = a + 1.5 * b
    want -= np.log(np.exp(want).sum(axis=1, keepdims=True))
    assert np.allclose(weighted.raw_log_probs(crops), want, atol=1e-6)
    for bad in ([1.0], [1.0, 0.0], [1.0, -2.0]):
        (tmp_path / "cards_ensemble.json").write_text(json.dumps(
            {"members": ["cards.onnx", "cards_corner.onnx"], "weights": bad}))
        with pytest.raises(ModelFileError, match="one weight > 0 per member"):
            load_card_reader(tmp_path, "onnxruntime")
    (tmp_path / "cards_ensemble.json").write_text(json.dumps(
        {"members": ["cards.onnx", "cards_corner.onnx"], "weights": ["heavy", 1]}))
    with pytest.raises(ModelFileError, match="malformed"):
        load_card_reader(tmp_path, "onnxruntime")
    (tmp_path / "cards_ensemble.json").write_text(json.dumps({"members": ["cards.onnx"]}))
    with pytest.raises(ModelFileError, match="two members"):
        load_card_reader(tmp_path, "onnxruntime")
    (tmp_path / "cards_ensemble.json").write_text("{not json")
    with pytest.raises(ModelFileError, match="malformed"):
        load_card_reader(tmp_path, "onnxruntime")


def test_a_face_up_box_the_classifier_takes_for_a_back_is_a_face_down_card() -> None:
    from monitor.perception.detector import Box
    from monitor.perception.identity import Identity
    from monitor.perception.pipeline import Perceiver

    quad = np.array([[100.0, 100.0], [150.0, 100.0], [150.0, 170.0], [100.0, 170.0]])

    one_card = FixedBoxes(Box("card_face_up", 0.9, quad))  # a detector that saw one face-up card

    class Reads:  # a classifier with a fixed answer
        def __init__(self, ident: Identity) -> None:
            self.ident = ident

        def classify(self, crops: list[np.ndarray], aspects: object = None) -> list[Identity]:
            return [self.ident for _ in crops]

    frame = np.full((720, 1280, 3), 90, np.uint8)
    frame[100:171, 100:151] = 240  # the card, not felt (a box over bare felt is dropped)
    kinds = {}
    for label, top in (("unknown", "back"), ("back", "back"), ("unknown", "As"), ("As", "As")):
        p = Perceiver(one_card, Reads(Identity(label, 0.6, top)), classical="off")  # type: ignore[arg-type]
        kinds[(label, top)] = p.perceive(frame).cards[0].kind
    assert kinds == {("unknown", "back"): "card_face_down", ("back", "back"): "card_face_down",
                     ("unknown", "As"): "card_face_up", ("As", "As"): "card_face_up"}


def test_a_face_in_a_box_not_shaped_like_one_card_is_not_named() -> None:
    # held-out frames: a 4d and the 3d under it boxed together (squarer than a card) read as 9d
    from monitor.perception.detector import Box
    from monitor.perception.identity import Identity
    from monitor.perception.pipeline import Perceiver, card_shaped

    card = np.array([[100.0, 100.0], [163.0, 100.0], [163.0, 188.0], [100.0, 188.0]])  # 63 x 88
    square = np.array([[100.0, 100.0], [180.0, 100.0], [180.0, 188.0], [100.0, 188.0]])  # 80 x 88
    assert card_shaped(card) and not card_shaped(square)
    assert card_shaped(card[[1, 2, 3, 0]]) and not card_shaped(np.zeros((4, 2)))

    class Reads:
        def classify(self, crops: list[np.ndarray], aspects: object = None) -> list[Identity]:
            return [Identity("9d", 0.97, "9d") for _ in crops]

    frame = np.full((720, 1280, 3), 90, np.uint8)
    frame[100:189, 100:181] = 240  # the cards, not felt (a box over bare felt is dropped)
    got = {}
    for name, quad in (("card", card), ("square", square)):
        one = FixedBoxes(Box("card_face_up", 0.9, quad))
        d = Perceiver(one, Reads(), classical="off").perceive(frame).cards[0]  # type: ignore[arg-type]
        got[name] = (d.kind, d.identity, d.rank)
    assert got == {"card": ("card_face_up", "9d", None), "square": ("card_face_up", "unknown", None)}


def test_photos_name_a_face_in_a_box_of_any_shape_video_does_not() -> None:
    # a photo resized to another aspect (the shared real set's 640 x 640 squares of 3:4 phone photos)
    # shows one card as squat as 80 x 88: the reader judges it, not its shape
    from monitor.perception.detector import Box
    from monitor.perception.identity import Identity
    from monitor.perception.pipeline import ANY_SHAPE, CARD_SHAPE_MAX, Perceiver, card_reading, photo_models

    squat = np.array([[100.0, 100.0], [180.0, 100.0], [180.0, 188.0], [100.0, 188.0]])  # 80 x 88
    nine = Identity("9d", 0.97, "9d")
    assert card_reading("card_face_up", 0.91, nine, ANY_SHAPE) == ("card_face_up", "9d", None)
    assert card_reading("card_face_up", 0.91, nine, CARD_SHAPE_MAX) == ("card_face_up", "unknown", None)

    class Reads:
        def classify(self, crops: list[np.ndarray], aspects: object = None) -> list[Identity]:
            return [nine for _ in crops]

    frame = np.full((720, 1280, 3), 90, np.uint8)
    frame[100:189, 100:181] = 240
    one = FixedBoxes(Box("card_face_up", 0.9, squat))
    d = Perceiver(one, Reads(), classical="off",  # type: ignore[arg-type]
                  card_shape_max=ANY_SHAPE).perceive(frame).cards[0]
    assert (d.kind, d.identity) == ("card_face_up", "9d")
    with pytest.raises(ValueError, match=r"card_shape_max 0\.3"):
        Perceiver(one, Reads(), classical="off", card_shape_max=0.3)  # type: ignore[arg-type]
    assert Perceiver.from_models(photo_models(), threads=1).card_shape_max == ANY_SHAPE
    assert Perceiver.from_models(photo_models(), threads=1, video=True).card_shape_max == CARD_SHAPE_MAX
    assert Perceiver.from_models(photo_models(), threads=1, shape_check=True).card_shape_max == CARD_SHAPE_MAX


def test_openvino_runs_the_models_in_float32_whatever_the_cpu_offers() -> None:
    # On a CPU with AVX512_BF16 OpenVINO's default is bfloat16, which lost a card box ONNX Runtime kept.
    detector = MODELS / "detector.onnx"
    backend = load_backend(detector, "openvino", threads=1)
    compiled = backend._compiled  # type: ignore[attr-defined]
    assert str(compiled.get_property("INFERENCE_PRECISION_HINT")) in ("f32", "<Type: 'float32'>")


def test_onnx_runtime_does_not_spin_between_calls() -> None:
    # the live chain's stages take turns on two cores: a pool busy-waiting after its call would take
    # the CPU from the stage whose turn it is
    detector = MODELS / "detector.onnx"
    backend = load_backend(detector, "onnxruntime", threads=2)
    opts = backend._session.get_session_options()  # type: ignore[attr-defined]
    assert opts.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    x = np.zeros((1, 3, 64, 64), np.float32)
    assert backend.run(x)[0].shape[0] == 1  # and it still runs


def _random_crop_set(data: Path, shape: tuple[int, int]) -> Path:
    """``data/{val,test}/CLASS/k.png``: four random crops of each of six classes (seeded)."""
    import cv2

    rng = np.random.default_rng(0)
    for split in ("val", "test"):
        for c in IDENTITY_CLASSES[:6]:
            (data / split / c).mkdir(parents=True)
            for k in range(4):
                crop = rng.integers(0, 255, (*shape, 3), dtype=np.uint8)
                cv2.imwrite(str(data / split / c / f"{k}.png"), crop)
    return data


def test_train_ensemble_fits_the_members_weights_then_the_calibration_on_val(tmp_path: Path) -> None:

    from monitor.perception.calibration import MEMBER_WEIGHTS
    from monitor.training.evaluate_cards import calibrate_and_evaluate_ensemble
    from monitor.training.report import cards_report

    _flat_classifier(tmp_path / "cards.onnx", len(IDENTITY_CLASSES), seed=1)
    _flat_classifier(tmp_path / "cards_corner.onnx", len(IDENTITY_CLASSES), seed=2)
    base = {"classes": list(IDENTITY_CLASSES), "imgsz": 8, "temperature": 1.0, "threshold": 0.5}
    (tmp_path / "cards.json").write_text(json.dumps(base))
    (tmp_path / "cards_corner.json").write_text(json.dumps({**base, "view": "corner"}))
    data = _random_crop_set(tmp_path / "crops", (32, 24))
    ens = tmp_path / "cards_ensemble.json"
    for fit in (True, False):
        ens.write_text(json.dumps({"members": ["cards.onnx", "cards_corner.onnx"], "weights": [1.0, 9.0]}))
        result = calibrate_and_evaluate_ensemble(ens, data, tmp_path / "eval", ("test",), fit_weights=fit)
        written = json.loads(ens.read_text())
        # an old file's weights never carry over: fitted from the grid, or equal
        assert written["weights"] == result["weights"]
        assert written["weights"][0] == 1.0 and written["weights"][1] in MEMBER_WEIGHTS
        if not fit:
            assert written["weights"] == [1.0, 1.0]
        assert written["temperature"] > 0 and 0.0 <= written["threshold"] <= 1.0
        assert result["test"]["n"] == 24
        assert "weighted 1, " in cards_report(result, ("test",))


def test_a_quad_squarer_than_turn_aspect_is_read_both_ways_round_and_the_surer_kept(tmp_path: Path) -> None:
    from monitor.perception.identity import load_card_reader

    _flat_classifier(tmp_path / "cards.onnx", len(IDENTITY_CLASSES))
    _flat_classifier(tmp_path / "cards_corner.onnx", len(IDENTITY_CLASSES), seed=2)
    base = {"classes": list(IDENTITY_CLASSES), "imgsz": 8, "temperature": 1.0, "threshold": 0.5}
    (tmp_path / "cards.json").write_text(json.dumps(base))
    (tmp_path / "cards_corner.json").write_text(json.dumps({**base, "view": "corner"}))
    ens = {"members": ["cards.onnx", "cards_corner.onnx"], "temperature": 1.5, "threshold": 0.0}
    (tmp_path / "cards_ensemble.json").write_text(json.dumps(ens))
    plain = load_card_reader(tmp_path, "onnxruntime")
    assert plain is not None and plain.turn_aspect is None
    crops = [np.random.default_rng(k).integers(0, 255, (96, 96, 3), dtype=np.uint8) for k in range(6)]
    aspects = [0.72, 0.79, 0.8, 0.9, 1.0, 1.3]
    upright = plain.calibrated_probabilities(crops)
    sideways = plain.calibrated_probabilities([np.ascontiguousarray(np.rot90(c)) for c in crops])
    # which read is surer is judged before the temperature (the read does not depend on it)
    up_raw = plain.raw_log_probs(crops).max(axis=1)
    side_raw = plain.raw_log_probs([np.ascontiguousarray(np.rot90(c)) for c in crops]).max(axis=1)
    # without the setting, aspects change nothing
    assert np.allclose(plain.calibrated_probabilities(crops, aspects), upright)
    (tmp_path / "cards_ensemble.json").write_text(json.dumps({**ens, "turn_aspect": 0.8}))
    reader = load_card_reader(tmp_path, "onnxruntime")
    assert reader is not None and reader.turn_aspect == 0.8
    got = reader.calibrated_probabilities(crops, aspects)
    for k, a in enumerate(aspects):
        surer = sideways[k] if a >= 0.8 and side_raw[k] > up_raw[k] else upright[k]
        assert np.allclose(got[k], surer, atol=1e-9), k
    assert any(not np.allclose(got[k], upright[k]) for k in range(2, 6))  # some turned read won
    assert np.allclose(got[:2], upright[:2])  # card-shaped quads are read one way only
    assert [i.top_class for i in reader.classify(crops, aspects)] == [
        IDENTITY_CLASSES[k] for k in got.argmax(axis=1)]
    assert np.allclose(reader.calibrated_probabilities(crops), upright)  # no aspects given: one way
    with pytest.raises(ValueError, match="2 aspects for 6 crops"):
        reader.calibrated_probabilities(crops, [0.9, 0.9])
    for bad in (0.3, 1.5, "square"):
        (tmp_path / "cards_ensemble.json").write_text(json.dumps({**ens, "turn_aspect": bad}))
        with pytest.raises(ModelFileError, match=r"turn_aspect|malformed"):
            load_card_reader(tmp_path, "onnxruntime")
    # a lone classifier takes the setting from its own JSON
    (tmp_path / "cards_ensemble.json").unlink()
    (tmp_path / "cards.json").write_text(json.dumps({**base, "turn_aspect": 0.85}))
    lone = load_card_reader(tmp_path, "onnxruntime")
    assert lone is not None and lone.turn_aspect == 0.85
    (tmp_path / "cards.json").write_text(json.dumps({**base, "turn_aspect": 0.2}))
    with pytest.raises(ModelFileError, match="turn_aspect"):
        load_card_reader(tmp_path, "onnxruntime")


def test_train_ensemble_reads_crops_as_the_runtime_does_given_their_quads_aspects(tmp_path: Path) -> None:
    import csv

    import cv2

    from monitor.perception.identity import CardEnsemble
    from monitor.training.evaluate_cards import (
        calibrate_and_evaluate_ensemble,
        list_split,
        load_crop_aspects,
        raw_log_probs,
    )
    from monitor.training.report import cards_report

    _flat_classifier(tmp_path / "cards.onnx", len(IDENTITY_CLASSES), seed=1)
    _flat_classifier(tmp_path / "cards_corner.onnx", len(IDENTITY_CLASSES), seed=2)
    base = {"classes": list(IDENTITY_CLASSES), "imgsz": 8, "temperature": 1.0, "threshold": 0.5}
    (tmp_path / "cards.json").write_text(json.dumps(base))
    (tmp_path / "cards_corner.json").write_text(json.dumps({**base, "view": "corner"}))
    data, rng, rows = tmp_path / "crops", np.random.default_rng(0), []
    for split in ("val", "test"):
        for c in IDENTITY_CLASSES[:6]:
            (data / split / c).mkdir(parents=True)
            for k in range(4):
                name = f"{split}_{c}_{k}.png"
                cv2.imwrite(str(data / split / c / name), rng.integers(0, 255, (24, 24, 3), dtype=np.uint8))
                rows.append({"file": f"{split}/{c}/{name}", "quad_aspect": 0.95 if k % 2 else 0.7})
    manifest = tmp_path / "manifest.csv"
    with manifest.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["file", "quad_aspect"])
        w.writeheader()
        w.writerows(rows)
    aspects = load_crop_aspects([manifest])
    assert len(aspects) == 48 and aspects["test_2c_1.png"] == 0.95
    ens = tmp_path / "cards_ensemble.json"
    ens.write_text(json.dumps({"members": ["cards.onnx", "cards_corner.onnx"]}))
    result = calibrate_and_evaluate_ensemble(ens, data, tmp_path / "eval", ("test",), turn_aspect=0.8,
                                             aspects=aspects)
    assert json.loads(ens.read_text())["turn_aspect"] == 0.8 and result["aspects_known"] == 48
    assert "0.8 or squarer read turned 90 degrees" in cards_report(result, ("test",))
    reader = CardEnsemble(ens, "onnxruntime")
    paths, _ = list_split(data / "test", list(reader.classes))
    crops = [cv2.imread(str(p)) for p in paths]
    want = reader.read_log_probs(crops, [aspects[p.name] for p in paths])
    # (the evaluation floors probabilities at 1e-12: compared as probabilities)
    read = raw_log_probs(reader, paths, tta=None, aspects=aspects)
    assert np.allclose(np.exp(read), np.exp(want), atol=1e-9)
    assert not np.allclose(np.exp(raw_log_probs(reader, paths, tta=None)), np.exp(want), atol=1e-6)
    # refitted without: the setting leaves the file
    calibrate_and_evaluate_ensemble(ens, data, tmp_path / "eval", ("test",))
    assert "turn_aspect" not in json.loads(ens.read_text())
    # a manifest without the column (written before it was added), or missing: a clear error naming it
    old = tmp_path / "old.csv"
    old.write_text("split,cls,file\ntest,2c,test/2c/a.jpg\n")
    with pytest.raises(ValueError, match=r"old\.csv, line 2: no file or quad_aspect"):
        load_crop_aspects([old])
    with pytest.raises(ValueError, match=r"crop manifest .*nowhere\.csv"):
        load_crop_aspects([tmp_path / "nowhere.csv"])


def test_train_ensemble_refuses_a_bad_turn_aspect_or_crop_manifest_before_writing(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from monitor.cli import app

    base = ["train", "ensemble", "--card", str(tmp_path / "c.onnx"), "--corner", str(tmp_path / "k.onnx"),
            "--data", str(tmp_path), "--out", str(tmp_path / "out")]
    got = CliRunner().invoke(app, [*base, "--turn-aspect", "0.3"])
    assert got.exit_code == 2 and "0.3:" in got.output  # (single words: the error box may wrap lines)
    bad = tmp_path / "manifest.csv"
    bad.write_text("split,cls,file\nval,2c,val/2c/x.jpg\n")
    got = CliRunner().invoke(app, [*base, "--turn-aspect", "0.8", "--crop-manifest", str(bad)])
    assert got.exit_code == 2 and "quad_aspect" in got.output
    assert not (tmp_path / "out").exists()  # nothing written


def test_train_ensemble_takes_two_corner_members_and_weights_all_three(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from monitor.cli import app
    from monitor.perception.identity import load_card_reader

    base = {"classes": list(IDENTITY_CLASSES), "imgsz": 8, "temperature": 1.0, "threshold": 0.5}
    src = tmp_path / "src"
    src.mkdir()
    for name, seed, view in (("whole", 1, "card"), ("corner_a", 2, "corner"), ("corner_b", 3, "corner")):
        _flat_classifier(src / f"{name}.onnx", len(IDENTITY_CLASSES), seed=seed)
        (src / f"{name}.json").write_text(json.dumps({**base, "view": view}))
    data = _random_crop_set(tmp_path / "crops", (24, 24))
    out = tmp_path / "ens"
    cmd = ["train", "ensemble", "--card", str(src / "whole.onnx"), "--corner", str(src / "corner_a.onnx")]
    got = CliRunner().invoke(app, [*cmd, "--corner", str(src / "corner_b.onnx"), "--data", str(data),
                                   "--out", str(out)])
    assert got.exit_code == 0, got.output
    written = json.loads((out / "cards_ensemble.json").read_text())
    assert written["members"] == ["cards.onnx", "cards_corner.onnx", "cards_corner_2.onnx"]
    assert len(written["weights"]) == 3 and written["weights"][0] == 1.0
    assert (out / "cards_corner_2.onnx").read_bytes() == (src / "corner_b.onnx").read_bytes()
    reader = load_card_reader(out, "onnxruntime")
    assert reader is not None and len(reader.members) == 3  # type: ignore[union-attr]
    # a missing member is refused before anything is written
    got = CliRunner().invoke(app, [*cmd, "--corner", str(src / "nowhere.onnx"), "--data", str(data),
                                   "--out", str(tmp_path / "ens2")])
    assert got.exit_code == 2 and not (tmp_path / "ens2" / "cards_corner.onnx").exists()


def test_the_pipeline_hands_the_reader_each_card_quads_aspect() -> None:
    from monitor.perception.detector import Box
    from monitor.perception.identity import Identity
    from monitor.perception.pipeline import Perceiver

    card = np.array([[100.0, 100.0], [150.0, 100.0], [150.0, 170.0], [100.0, 170.0]])  # 50 x 70
    square = np.array([[300.0, 100.0], [366.0, 100.0], [366.0, 170.0], [300.0, 170.0]])  # 66 x 70

    two_cards = FixedBoxes(Box("card_face_up", 0.9, card), Box("card_face_up", 0.9, square))

    class Reads:
        def __init__(self) -> None:
            self.seen: list[float] = []

        def classify(self, crops: list[np.ndarray], aspects: list[float] | None = None) -> list[Identity]:
            self.seen = list(aspects or [])
            return [Identity("unknown", 0.5, "As") for _ in crops]

    frame, reads = np.full((720, 1280, 3), 90, np.uint8), Reads()
    Perceiver(two_cards, reads, classical="off", snap_edges=False).perceive(frame)  # type: ignore[arg-type]
    assert sorted(round(a, 3) for a in reads.seen) == [round(50 / 70, 3), round(66 / 70, 3)]
