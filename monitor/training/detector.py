"""Train and evaluate the overhead detector (oriented boxes by default: they carry card corners)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from monitor.training import env
from monitor.training.onnx_init import module_from_onnx
from monitor.training.runs import RunLog, last_checkpoint, run_dir

# Tables are seen from above at any rotation: vertical flips are fine for boxes (identity is not read
# here); mosaic helps small objects; colour jitter stands in for lighting and white balance.
DETECT_AUGMENT: dict[str, Any] = {"fliplr": 0.5, "flipud": 0.5, "degrees": 0.0, "mosaic": 1.0,
                                  "close_mosaic": 2, "hsv_h": 0.02, "hsv_s": 0.5, "hsv_v": 0.4}
# A card index mirrored is no index (a flip would teach the finder to take mirror images for indices
# and scramble its corner order); indices are small, so scaling stays mild.
INDEX_AUGMENT: dict[str, Any] = {**DETECT_AUGMENT, "fliplr": 0.0, "flipud": 0.0, "scale": 0.25}


def train_detector(
    data: Path, project: Path, name: str, epochs: int, imgsz: int = 640, batch: int = 8, threads: int = 2,
    workers: int = 1, resume: bool = False, base: str = "yolo11n-obb.yaml", fraction: float = 1.0,
    augment: dict[str, Any] | None = None, init: Path | None = None,
) -> Path:
    """Train a run (or ``resume`` it). ``init``: a checkpoint of the same model family, perhaps of
    another task (the index finder's for a detector), whose layers of matching name and shape start
    the new model (nothing can be downloaded here, so this is the only pretraining there is). An
    ``.onnx`` init is a shipped export of the same family (the shipped detector), rebuilt by onnx_init."""
    if not data.exists():
        raise FileNotFoundError(f"dataset yaml not found: {data}")
    if init is not None and not init.is_file():
        raise FileNotFoundError(f"--init checkpoint not found: {init}")
    env.prepare(threads)
    from ultralytics import YOLO

    project = project.resolve()  # ultralytics nests a relative project under its own runs_dir/<task>/
    log = RunLog(project, name, {"data": data, "epochs": epochs, "imgsz": imgsz, "batch": batch,
                                 "threads": threads, "base": base, "fraction": fraction, "resume": resume,
                                 "init": init})
    ckpt = last_checkpoint(project, name)
    try:
        if resume and ckpt is not None:
            YOLO(str(ckpt)).train(resume=True, workers=workers)
        else:
            model = YOLO(base)
            if init is not None and init.suffix == ".onnx":
                # A shipped export, un-fused on a few training frames (see onnx_init).
                model.load(module_from_onnx(init, base, _train_images(data, 8), imgsz))
            elif init is not None:
                model.load(str(init))  # ultralytics transfers the layers whose names and shapes match
            model.train(
                data=str(data), epochs=epochs, imgsz=imgsz, batch=batch, workers=workers,
                project=str(project), name=name, exist_ok=True, optimizer="AdamW", lr0=0.002, cos_lr=True,
                warmup_epochs=1,
                patience=max(5, epochs), fraction=fraction, **(augment or DETECT_AUGMENT),
                **env.OFFLINE_TRAIN_ARGS,
            )
    except BaseException as exc:
        log.finish(f"interrupted: {type(exc).__name__}")
        raise
    log.finish("finished")
    return run_dir(project, name)


def _train_images(data: Path, n: int) -> list[Path]:
    """The first ``n`` training images of an ultralytics dataset yaml (to un-fuse an ONNX init)."""
    import yaml

    spec = yaml.safe_load(data.read_text())
    root = Path(spec.get("path") or data.parent)
    # ``train`` is one folder or a list of them (a mix of datasets): the images spread over them all
    entries = spec["train"] if isinstance(spec["train"], list) else [spec["train"]]
    folders = [Path(e) if Path(e).is_absolute() else root / e for e in entries]
    per = [sorted(p for p in f.glob("*") if p.suffix.lower() in {".jpg", ".jpeg", ".png"}) for f in folders]
    images = [p for k in range(n) for imgs in per if k < len(imgs) for p in [imgs[k]]][:n]
    if not images:
        raise FileNotFoundError(f"no training images in {', '.join(map(str, folders))} (from {data})")
    return images


def evaluate_detector(
    checkpoint: Path, onnx_path: Path, data: Path, imgsz: int, out_dir: Path, input_hw: tuple[int, int],
    card_px: float | None = None,
) -> dict[str, Any]:
    """ultralytics validation on the held-out ``test`` split (else ``val``); writes metadata and JSON."""
    env.prepare()
    import yaml
    from ultralytics import YOLO

    model = YOLO(str(checkpoint))
    names = [model.names[i] for i in range(len(model.names))]
    task = model.task
    spec = yaml.safe_load(data.read_text())
    split = "test" if spec.get("test") else "val"
    metrics = model.val(data=str(data), split=split, imgsz=imgsz, batch=8, plots=False, device="cpu",
                        conf=0.001, iou=0.6, workers=0)
    per_class = {}
    for i, c in enumerate(names):
        if i in list(metrics.box.ap_class_index):
            k = list(metrics.box.ap_class_index).index(i)
            p, r, ap50, ap = metrics.box.class_result(k)
            per_class[c] = {"precision": float(p), "recall": float(r), "mAP50": float(ap50),
                            "mAP50-95": float(ap)}
    result: dict[str, Any] = {
        "split": split, "task": task, "imgsz": imgsz, "precision": float(metrics.box.mp),
        "recall": float(metrics.box.mr), "mAP50": float(metrics.box.map50),
        "mAP50-95": float(metrics.box.map), "per_class": per_class,
        "training_seconds": RunLog.total_seconds(checkpoint.parents[2], checkpoint.parents[1].name),
    }
    if task == "pose":  # where the keypoints land (an index's corners), beside where its box does
        result |= {"pose_precision": float(metrics.pose.mp), "pose_recall": float(metrics.pose.mr),
                   "pose_mAP50": float(metrics.pose.map50), "pose_mAP50-95": float(metrics.pose.map)}
    meta: dict[str, Any] = {"task": task, "model": onnx_path.name, "classes": names, "imgsz": imgsz,
                            "input_hw": list(input_hw)}
    if card_px is not None:  # a detector trained closer than a table camera sees (perception.card_scale)
        meta["card_px"] = card_px
    onnx_path.with_suffix(".json").write_text(json.dumps(meta, indent=2))
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "detector_metrics.json").write_text(json.dumps(result, indent=1))
    return result
