"""Inference backends behind one interface: ONNX Runtime and OpenVINO.

Both take the same ONNX file and a float32 NCHW array and return the model's outputs as numpy arrays,
so the detector and the classifier never know which runtime is underneath. Measured on this machine
by ``table-monitor bench-perception``.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from monitor.perception.errors import ModelFileError

BACKENDS = ("onnxruntime", "openvino")
# The one default, for the library as for every command's --backend (monitor.commands.choices): ONNX
# Runtime, its pool not spinning, served the live chain's stages better than OpenVINO on regions of
# changing sizes (`bench pipeline`) and reviewed faster on one thread (`bench review`,
# docs/benchmarks.md).
DEFAULT_BACKEND = "onnxruntime"


def unknown_backend(name: str) -> str | None:
    """What a command says of a ``--backend`` that is no runtime here, or None if it is one."""
    return None if name in BACKENDS else f"unknown backend {name!r}: {' or '.join(BACKENDS)}"


class Backend(Protocol):
    name: str
    path: Path

    def run(self, x: npt.NDArray[np.float32]) -> list[npt.NDArray[np.float32]]: ...


def _check_model_file(path: Path) -> None:
    if not path.exists():
        raise ModelFileError(f"model file not found: {path}")
    if path.is_dir():
        raise ModelFileError(f"expected an .onnx model file, got a directory: {path}")
    if path.stat().st_size < 64:
        raise ModelFileError(f"model file {path} is only {path.stat().st_size} bytes: not an ONNX model")


class OnnxRuntimeBackend:
    name = "onnxruntime"

    def __init__(self, path: str | Path, threads: int = 2) -> None:
        import onnxruntime as ort

        self.path = Path(path)
        _check_model_file(self.path)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.log_severity_level = 3
        # no busy-waiting between calls: the live chain's stages take turns on two cores, and a pool
        # spinning after its call takes the CPU from the stage whose turn it is
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self._session = ort.InferenceSession(str(self.path), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # ort raises its own Fail/InvalidProtobuf types
            raise ModelFileError(f"{self.path} is not a loadable ONNX model: {exc}") from exc
        self._input = self._session.get_inputs()[0].name

    def run(self, x: npt.NDArray[np.float32]) -> list[npt.NDArray[np.float32]]:
        out: list[Any] = self._session.run(None, {self._input: x})
        return [np.asarray(o, dtype=np.float32) for o in out]


class OpenVinoBackend:
    name = "openvino"

    def __init__(self, path: str | Path, threads: int = 2, precision: str = "f32") -> None:
        import openvino as ov

        self.path = Path(path)
        _check_model_file(self.path)
        core = ov.Core()
        # f32 always: on a CPU with AVX512_BF16 OpenVINO would otherwise run in bfloat16 (its default
        # there), and the models' thresholds and held-out figures were measured in float32 (a card box
        # kept by ONNX Runtime was lost in bf16 on such a machine).
        config: dict[str, Any] = {"INFERENCE_NUM_THREADS": threads, "PERFORMANCE_HINT": "LATENCY",
                                  "INFERENCE_PRECISION_HINT": precision}
        try:
            model = core.read_model(str(self.path))
            self._compiled = core.compile_model(model, "CPU", config)
        except Exception as exc:  # OpenVINO raises RuntimeError subclasses with long messages
            raise ModelFileError(f"{self.path} is not a loadable ONNX model for OpenVINO: {exc}") from exc
        # an infer request serves one call at a time: each thread gets its own (the live chain reads
        # the banker's place on a worker while the seats are read in the step)
        self._requests = threading.local()

    def run(self, x: npt.NDArray[np.float32]) -> list[npt.NDArray[np.float32]]:
        request = getattr(self._requests, "request", None)
        if request is None:
            request = self._requests.request = self._compiled.create_infer_request()
        res = request.infer({0: x})
        return [np.asarray(res[o], dtype=np.float32) for o in self._compiled.outputs]


def load_backend(path: str | Path, backend: str = DEFAULT_BACKEND, threads: int = 2) -> Backend:
    """Open an ONNX model with the named runtime (``onnxruntime`` or ``openvino``)."""
    if backend == "onnxruntime":
        return OnnxRuntimeBackend(path, threads)
    if backend == "openvino":
        return OpenVinoBackend(path, threads)
    raise ValueError(f"unknown inference backend {backend!r} (choose from: {', '.join(BACKENDS)})")
