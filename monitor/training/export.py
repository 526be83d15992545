"""Export a trained ultralytics checkpoint to ONNX (dynamic batch, simplified) at a chosen path."""

from __future__ import annotations

import shutil
from pathlib import Path

from monitor.training import env


def export_onnx(
    checkpoint: Path, out: Path, imgsz: int | tuple[int, int], dynamic: bool = True
) -> Path:
    env.prepare()
    from ultralytics import YOLO

    model = YOLO(str(checkpoint))
    produced = Path(model.export(format="onnx", imgsz=imgsz, dynamic=dynamic, simplify=True, opset=17))
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(produced), out)
    return out


def model_names(checkpoint: Path) -> list[str]:
    """Class names in output order, as stored in the checkpoint."""
    env.prepare()
    from ultralytics import YOLO

    names = YOLO(str(checkpoint)).names
    return [names[i] for i in range(len(names))]
