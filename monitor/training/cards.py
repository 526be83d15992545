"""Train the card-identity classifier (54 classes: 52 cards, the joker, the back) on rectified crops."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from monitor.training import env
from monitor.training.onnx_init import module_from_onnx
from monitor.training.runs import RunLog, last_checkpoint, run_dir

# Cards must never be mirrored (a mirrored index is not a card); crops keep the whole card so the
# random-resized-crop only trims a little; colour jitter stays moderate so red and black suits survive.
# RandAugment is left out: on 2 shared cores it costs more than the model, and the renderer already
# randomises blur, glare, noise, JPEG and lighting.
CARD_AUGMENT: dict[str, Any] = {
    "fliplr": 0.0, "flipud": 0.0, "scale": 0.12, "erasing": 0.15,
    "hsv_h": 0.015, "hsv_s": 0.4, "hsv_v": 0.4, "auto_augment": None,
}


CLASSIFIER_YAML = "yolo11n-cls.yaml"  # the family of every shipped classifier (an ONNX base is rebuilt in it)


def _train_crops(data: Path, n: int) -> list[Path]:
    """``n`` training crops spread over the classes (to un-fuse an ONNX base's batch norms)."""
    folders = sorted(p for p in (data / "train").iterdir() if p.is_dir())
    crops = [next(iter(sorted(f.glob("*.jpg"))), None) for f in folders]
    return [c for c in crops if c is not None][:n]


def check_crop_dataset(data: Path) -> dict[str, int]:
    """Count images per split; raise with a clear message if the folder is not a classification set."""
    if not (data / "train").is_dir():
        raise FileNotFoundError(f"{data} has no train/ folder: expected ROOT/{{train,val,test}}/CLASS/*.jpg")
    counts = {}
    for split in ("train", "val", "test"):
        d = data / split
        if d.is_dir():
            counts[split] = sum(1 for _ in d.glob("*/*") if _.suffix.lower() in (".jpg", ".jpeg", ".png"))
    if counts.get("train", 0) == 0:
        raise FileNotFoundError(f"{data}/train holds no images")
    return counts


def train_cards(
    data: Path,
    project: Path,
    name: str,
    epochs: int,
    imgsz: int = 96,
    batch: int = 128,
    threads: int = 2,
    workers: int = 1,
    resume: bool = False,
    base: str = "yolo11n-cls.yaml",
    lr0: float = 0.002,
    fraction: float = 1.0,
) -> Path:
    """Train (or resume) and return the run directory; checkpoints every epoch in ``weights/last.pt``."""
    env.prepare(threads)
    from ultralytics import YOLO

    project = project.resolve()  # ultralytics nests a relative project under its own runs_dir/<task>/

    counts = check_crop_dataset(data)
    args = {"data": data, "epochs": epochs, "imgsz": imgsz, "batch": batch, "threads": threads,
            "base": base, "lr0": lr0, "fraction": fraction, "counts": counts, "resume": resume}
    log = RunLog(project, name, args)
    ckpt = last_checkpoint(project, name)
    try:
        if resume and ckpt is not None:
            YOLO(str(ckpt)).train(resume=True, workers=workers)
        else:
            if base.endswith(".onnx"):
                # a shipped export (run folders do not outlive a machine): its weights rebuilt into the
                # yaml's module, the folded batch norms measured again on a few training crops (onnx_init)
                model = YOLO(CLASSIFIER_YAML)
                model.load(module_from_onnx(Path(base), CLASSIFIER_YAML, _train_crops(data, 16), imgsz))
            else:
                model = YOLO(base)
            model.train(
                data=str(data), epochs=epochs, imgsz=imgsz, batch=batch, workers=workers,
                project=str(project), name=name, exist_ok=True, optimizer="AdamW", lr0=lr0, cos_lr=True,
                warmup_epochs=1, patience=max(5, epochs), fraction=fraction, save_period=-1, val=True,
                cache="ram",
                **CARD_AUGMENT, **env.OFFLINE_TRAIN_ARGS,
            )
    except BaseException as exc:
        log.finish(f"interrupted: {type(exc).__name__}")
        raise
    log.finish("finished")
    return run_dir(project, name)
