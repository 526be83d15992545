"""Start training from a shipped ONNX model: rebuild its PyTorch module from the exported weights.

Nothing can be downloaded here and run directories do not outlive a machine, so the shipped ONNX file
is often the only trained copy of a model. Its export fused each batch norm into the convolution before
it (``W·x + b``). This module puts the weights back into a module built from the model's yaml and
un-fuses the norms from data: a forward pass over a few real frames measures each fused convolution's
per-channel mean ``m`` and variance ``v``, and the norm becomes ``γ = √(v+ε)``, ``β = m + b`` with running
statistics ``m, v``. In eval mode that is exactly the fused network; in train mode batch statistics are
close to ``m, v``, so training starts where the shipped model stands instead of from rescaled features.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from monitor.perception.imageio import load_image
from monitor.perception.yolo_post import letterbox


class OnnxInitError(ValueError):
    """The ONNX file cannot seed the requested model (a missing tensor, another family)."""


def onnx_weights(path: Path) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """The named initializers and the metadata of an ultralytics ONNX export."""
    import onnx
    from onnx import numpy_helper

    try:
        model = onnx.load(str(path))
    except Exception as exc:  # protobuf raises its own DecodeError
        raise OnnxInitError(f"{path}: not a readable ONNX model ({exc})") from exc
    weights = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    meta = {p.key: p.value for p in model.metadata_props}
    return weights, meta


def module_from_onnx(path: Path, base_yaml: str, images: Sequence[Path], imgsz: int = 512) -> Any:
    """An ultralytics model built from ``base_yaml`` with the class count of ``path``, carrying its weights.

    ``images``: a few frames of the kind the model sees, to measure the statistics the export folded away.
    """
    import torch
    import ultralytics.nn.tasks as tasks_module
    from ultralytics.nn.modules.conv import Conv

    weights, meta = onnx_weights(path)
    try:
        names = ast.literal_eval(meta["names"])
        task = meta["task"]
    except (KeyError, ValueError, SyntaxError) as exc:
        raise OnnxInitError(f"{path}: no ultralytics metadata (names, task): "
                            "not an ultralytics export") from exc
    if not images:
        raise OnnxInitError("un-fusing the batch norms needs at least one frame")
    tasks: Any = tasks_module  # untyped upstream
    families: dict[str, Any] = {"obb": tasks.OBBModel, "detect": tasks.DetectionModel,
                                "pose": tasks.PoseModel, "classify": tasks.ClassificationModel}
    if task not in families:
        raise OnnxInitError(f"{path}: task {task!r} is not one of {sorted(families)}")
    cfg = tasks.yaml_model_load(base_yaml)
    model = families[task](cfg, nc=len(names), verbose=False)
    model.names = names

    state = model.state_dict()
    convs = {n: m for n, m in model.named_modules() if isinstance(m, Conv) and hasattr(m, "bn")}
    fused_bias = {}
    with torch.no_grad():
        for key, value in weights.items():
            if key in state and tuple(state[key].shape) == value.shape:
                state[key].copy_(torch.from_numpy(value.copy()))  # the state's tensors are the module's
            elif key.endswith(".conv.bias") and key.removesuffix(".conv.bias") in convs:
                fused_bias[key.removesuffix(".conv.bias")] = torch.from_numpy(value.copy())
        missing = [n for n in convs if f"{n}.conv.weight" not in weights or n not in fused_bias]
        if missing:
            raise OnnxInitError(f"{path}: no fused weights for {len(missing)} convolutions of {base_yaml} "
                                f"(first: {missing[0]}): another model family?")
        # Identity norms with the fused bias: the eval-mode network is now exactly the exported one.
        for name, conv in convs.items():
            bn: Any = conv.bn  # torch types its running statistics as optional
            bn.weight.fill_(1.0)
            bn.bias.copy_(fused_bias[name])
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)

        stats: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}

        def hook(name: str) -> Any:
            def record(_module: Any, _inputs: Any, output: torch.Tensor) -> None:
                stats[name] = (output.mean(dim=(0, 2, 3)), output.var(dim=(0, 2, 3), unbiased=False))
            return record

        handles = [conv.conv.register_forward_hook(hook(n)) for n, conv in convs.items()]
        hw = ast.literal_eval(meta.get("imgsz", f"[{imgsz}, {imgsz}]"))
        # the runtime's own preprocessing (monitor.perception.yolo_post), so the statistics are of what
        # the model is fed
        batch = torch.from_numpy(np.concatenate([letterbox(load_image(p), (int(hw[0]), int(hw[1])))[0]
                                                 for p in images]))
        model.eval()
        model(batch)
        for h in handles:
            h.remove()
        for name, conv in convs.items():
            mean, var = stats[name]
            bn = conv.bn
            bn.weight.copy_(torch.sqrt(var + bn.eps))
            bn.bias.add_(mean)
            bn.running_mean.copy_(mean)
            bn.running_var.copy_(var)
    return model
