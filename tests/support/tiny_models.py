"""Tiny real ONNX models for tests: card readers (mean colour -> linear -> softmax) and a detector whose
output is fixed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from monitor.perception.labels import NOT_ONE_CARD


def tiny_reader(path: Path, classes: list[str], none_bias: float = 0.0, card: str = "As",
                strength: float = 10.0) -> None:
    """A bright crop reads as ``card`` (its logit ``strength`` per unit of mean colour, each channel);
    a dark one as "none" where the model has that class (a bias of ``none_bias``), else as nothing
    sure. Writes the model and its JSON (T 1, threshold 0.9)."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    n = len(classes)
    w = np.zeros((3, n), np.float32)
    w[:, classes.index(card)] = strength
    b = np.zeros(n, np.float32)
    if NOT_ONE_CARD in classes:
        b[classes.index(NOT_ONE_CARD)] = none_bias
    nodes = [
        helper.make_node("GlobalAveragePool", ["images"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"]),
        helper.make_node("MatMul", ["flat", "W"], ["mm"]),
        helper.make_node("Add", ["mm", "B"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["output0"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "tiny", [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["n", 3, 96, 96])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["n", n])],
        initializer=[numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    meta = {"classes": classes, "imgsz": 96, "temperature": 1.0, "threshold": 0.9}
    path.with_suffix(".json").write_text(json.dumps(meta))


def constant_obb_model(path: Path, raw: np.ndarray, input_hw: tuple[int, int]) -> None:
    """A real ONNX graph with a YOLO-OBB output layout whose output is ``raw`` whatever the image."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    const = numpy_helper.from_array(raw.astype(np.float32), "raw")
    zero = numpy_helper.from_array(np.zeros((1,), np.float32), "zero")
    nodes = [
        helper.make_node("ReduceMean", ["images"], ["m"], keepdims=0),
        helper.make_node("Mul", ["m", "zero"], ["z"]),
        helper.make_node("Add", ["raw", "z"], ["output0"]),
    ]
    graph = helper.make_graph(
        nodes, "obb", [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, *input_hw])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, list(raw.shape))],
        initializer=[const, zero])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
