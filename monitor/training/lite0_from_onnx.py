"""Start the Lite0 photo reader from its shipped ONNX export: rebuild the timm module from its weights.

Run directories do not outlive a machine, so the shipped ``cards.onnx`` is often the only trained copy
of the reader. Its export folded each batch norm into the convolution before it (``W·x + b``), and the
initializers carry graph names, not module names. They come in the module's order, one weight and one
bias per convolution, then the classifier, so they are put back by position. Each norm is un-folded
from data, as ``onnx_init`` does for the detector: over a few crops the folded convolution's raw
output ``W·x`` has per-channel mean ``m`` and variance ``v``; the norm with running statistics ``m, v``,
``γ = √(v+ε)`` and ``β = b + m`` is exactly the folded network in eval mode, and in train mode its batch
statistics start close to ``m, v``, so a fine-tune starts where the shipped reader stands.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from monitor.training.onnx_init import OnnxInitError


def _conv_norm_pairs(model: Any) -> list[tuple[Any, Any]]:
    """Every convolution with the batch norm after it, in module order (timm's EfficientNet pairs
    each ``conv_*`` with a ``bn*`` in the same parent)."""
    import torch

    convs = [m for m in model.modules() if isinstance(m, torch.nn.Conv2d)]
    norms = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    if len(convs) != len(norms):
        raise OnnxInitError(f"{len(convs)} convolutions but {len(norms)} batch norms: not a Lite0 body")
    for conv, norm in zip(convs, norms, strict=True):
        if conv.out_channels != norm.num_features:
            raise OnnxInitError(f"a convolution of {conv.out_channels} channels meets a norm of "
                                f"{norm.num_features}")
    return list(zip(convs, norms, strict=True))


def lite0_from_onnx(path: Path, classes: list[str], crops: Sequence[np.ndarray], imgsz: int) -> Any:
    """The timm EfficientNet-Lite0 (``classes`` outputs) carrying the weights of the export ``path``.

    ``crops``: a few BGR crops of the kind the reader sees, to measure the statistics the export
    folded away."""
    import onnx
    import torch
    from onnx import numpy_helper

    from monitor.training.pretrained_reader import MEAN, STD, build, to_tensor

    try:
        graph = onnx.load(str(path)).graph
    except Exception as exc:  # protobuf raises its own DecodeError
        raise OnnxInitError(f"{path}: not a readable ONNX model ({exc})") from exc
    if not crops:
        raise OnnxInitError("un-folding the batch norms needs at least one crop")
    tensors = [(t.name, numpy_helper.to_array(t)) for t in graph.initializer]
    named = dict(tensors)
    head_w, head_b = named.get("inner.classifier.weight"), named.get("inner.classifier.bias")
    if head_w is None or head_b is None:
        raise OnnxInitError(f"{path}: no inner.classifier weights: not an export of the Lite0 reader")
    if head_w.shape[0] != len(classes):
        raise OnnxInitError(f"{path}: {head_w.shape[0]} outputs, the reader has {len(classes)} classes")
    body = [a for n, a in tensors if not n.startswith("inner.classifier")]
    model = build(len(classes), pretrained=False)
    pairs = _conv_norm_pairs(model)
    if len(body) != 2 * len(pairs):
        raise OnnxInitError(f"{path}: {len(body)} body tensors, Lite0 has {len(pairs)} convolutions "
                            "(a weight and a folded bias each)")
    biases = []
    with torch.no_grad():
        for k, (conv, _) in enumerate(pairs):
            w, b = body[2 * k], body[2 * k + 1]
            if tuple(w.shape) != tuple(conv.weight.shape) or b.shape != (conv.out_channels,):
                raise OnnxInitError(f"{path}: tensor {2 * k} is {w.shape}, convolution {k} wants "
                                    f"{tuple(conv.weight.shape)}")
            conv.weight.copy_(torch.from_numpy(w.copy()))
            biases.append(torch.from_numpy(b.copy()))
        model.classifier.weight.copy_(torch.from_numpy(head_w.copy()))
        model.classifier.bias.copy_(torch.from_numpy(head_b.copy()))
    _unfold_norms(model, pairs, biases, crops, imgsz, MEAN, STD, to_tensor)
    return model


def _unfold_norms(model: Any, pairs: list[tuple[Any, Any]], biases: list[Any], crops: Sequence[np.ndarray],
                  imgsz: int, mean: float, std: float, to_tensor: Any) -> None:
    """Set each norm so that eval mode computes ``W·x + b``, its running statistics measured on
    ``crops``. An identity norm (``γ = 1``, ``β = b``, statistics 0 and ``1 - ε``) already computes the
    folded network, and so does the measured one, so one pass measures every layer."""
    import cv2
    import torch

    x = to_tensor([cv2.resize(c, (imgsz, imgsz), interpolation=cv2.INTER_AREA) for c in crops])
    model.eval()
    seen: dict[int, Any] = {}
    hooks = []
    with torch.no_grad():
        for k, ((conv, norm), b) in enumerate(zip(pairs, biases, strict=True)):
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
            norm.weight.fill_(1.0)
            norm.bias.copy_(b)
            hooks.append(conv.register_forward_hook(
                lambda _m, _i, out, k=k: seen.__setitem__(k, out.transpose(0, 1).flatten(1))))
        model((x - mean) / std)
        for h in hooks:
            h.remove()
        for k, ((_, norm), b) in enumerate(zip(pairs, biases, strict=True)):
            m, v = seen[k].mean(dim=1), seen[k].var(dim=1, unbiased=False)
            norm.running_mean.copy_(m)
            norm.running_var.copy_(v)
            norm.weight.copy_(torch.sqrt(v + norm.eps))
            norm.bias.copy_(b + m)
