"""A shipped ONNX detector can seed training: rebuilt, it computes what the export computes."""

from pathlib import Path

import numpy as np
import pytest

from monitor.training.onnx_init import OnnxInitError, module_from_onnx, onnx_weights
from tests.support.paths import DATA, MODELS

FRAMES = sorted(DATA.glob("*.jpg"))


def test_a_corrupt_onnx_file_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "detector.onnx"
    bad.write_bytes(b"\x00not a protobuf at all" * 10)
    with pytest.raises(OnnxInitError, match=r"detector\.onnx: not a readable ONNX model"):
        onnx_weights(bad)


def test_the_shipped_detector_carries_the_metadata_that_names_its_family() -> None:
    weights, meta = onnx_weights(MODELS / "detector.onnx")
    assert meta["task"] == "obb"
    assert "card_face_up" in meta["names"]
    assert weights["model.0.conv.weight"].shape == (16, 3, 3, 3)
    assert "model.0.conv.bias" in weights  # the fused batch norm


def test_an_onnx_file_without_ultralytics_metadata_is_refused(tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    path = tmp_path / "plain.onnx"
    onnx.save(helper.make_model(graph), str(path))
    pytest.importorskip("ultralytics")
    with pytest.raises(OnnxInitError, match=r"plain\.onnx: no ultralytics metadata"):
        module_from_onnx(path, "yolo11n-obb.yaml", FRAMES[:1])


def test_the_rebuilt_detector_reproduces_the_shipped_export(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("ultralytics")
    import onnxruntime as ort

    from monitor.perception.imageio import load_image
    from monitor.perception.yolo_post import letterbox

    assert FRAMES, "tests/data holds sample frames"
    model = module_from_onnx(MODELS / "detector.onnx", "yolo11n-obb.yaml", FRAMES)
    x, _ = letterbox(load_image(FRAMES[-1]), (288, 512))
    session = ort.InferenceSession(str(MODELS / "detector.onnx"), providers=["CPUExecutionProvider"])
    expected = session.run(None, {session.get_inputs()[0].name: x})[0]
    model.eval()
    with torch.no_grad():
        out = model(torch.from_numpy(x))
    got = (out[0] if isinstance(out, (list, tuple)) else out).numpy()
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, atol=1e-3 * float(np.abs(expected).max()))
    # In train mode the norms use batch statistics; on frames like those measured they stay close.
    assert all(m.bn.weight.min() > 0 for m in model.modules() if hasattr(m, "bn"))


def test_the_rebuilt_fan_classifier_reproduces_the_shipped_export() -> None:
    """``train cards --base models/fan_index.onnx``: its run folder is gone, the export goes on training."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("ultralytics")
    import onnxruntime as ort

    from monitor.perception.imageio import load_image
    from monitor.perception.yolo_post import letterbox

    path = MODELS / "fan_index.onnx"
    assert onnx_weights(path)[1]["task"] == "classify"
    # the sample frames stand in for crops: they only set the norms' statistics, not the eval output
    model = module_from_onnx(path, "yolo11n-cls.yaml", FRAMES[:4], imgsz=64)
    x, _ = letterbox(load_image(FRAMES[0])[100:164, 200:264], (64, 64))
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    expected = session.run(None, {session.get_inputs()[0].name: x})[0]
    model.eval()
    with torch.no_grad():
        out = model(torch.from_numpy(x))
    got = (out[0] if isinstance(out, (list, tuple)) else out).numpy()
    assert got.shape == expected.shape == (1, 54)
    np.testing.assert_allclose(got, expected, atol=1e-4)
