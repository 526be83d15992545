"""Make ultralytics train offline and on a fixed number of threads.

ultralytics would otherwise try to fetch fonts for plots, ``yolo11n.pt`` for the AMP check and its
hub/telemetry endpoints. With ``YOLO_OFFLINE=1``, ``amp=False`` and ``plots=False`` it needs nothing
from the network. It also sets ``OMP_NUM_THREADS=1`` on import and resets torch to ``cpu_count - 1``
threads when training starts, so both are overridden here.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

OFFLINE_TRAIN_ARGS: dict[str, Any] = {"amp": False, "plots": False, "device": "cpu"}


def prepare(threads: int = 2) -> None:
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ.setdefault("YOLO_VERBOSE", "True")
    import torch
    from ultralytics.utils import SETTINGS

    off = ("sync", "hub", "wandb", "tensorboard", "mlflow", "clearml", "comet", "dvc", "neptune", "raytune")
    settings: Any = SETTINGS  # typed loosely upstream, and not installed where CI type-checks
    settings.update({k: False for k in off if k in settings})
    torch.set_num_threads(threads)
    # select_device() resets torch to ultralytics' NUM_THREADS (cpu_count - 1 = 1 thread here) at train time.
    import ultralytics.utils.torch_utils as torch_utils

    torch_utils.NUM_THREADS = threads
    with contextlib.suppress(RuntimeError):  # it may be set only once per process
        torch.set_num_interop_threads(1)
