"""Make ultralytics train offline and on a fixed number of threads.

ultralytics would otherwise try to fetch fonts for plots, ``yolo11n.pt`` for the AMP check and its
hub/telemetry endpoints. With ``YOLO_OFFLINE=1``, ``amp=False`` and ``plots=False`` it needs nothing
from the network; it also sets ``OMP_NUM_THREADS=1`` on import, so torch threads are set afterwards.
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
    SETTINGS.update({k: False for k in off if k in SETTINGS})
    torch.set_num_threads(threads)
    with contextlib.suppress(RuntimeError):  # it may be set only once per process
        torch.set_num_interop_threads(1)
