"""Calibrate and evaluate an exported card classifier through the runtime path (ONNX, no torch).

The validation split fits the temperature and the "unknown" threshold (written into the model's JSON
metadata); the held-out split (unseen design and table) gives the metrics of the model card.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
from tqdm import tqdm

from monitor.perception.calibration import (
    choose_threshold,
    expected_calibration_error,
    fit_member_weights,
    fit_temperature,
    softmax_t,
)
from monitor.perception.identity import CardClassifier, CardEnsemble
from monitor.perception.imageio import as_image
from monitor.perception.labels import CRITICAL_RANK_PAIRS, NOT_ONE_CARD
from monitor.perception.ranks import rank_of, read_ranks

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


def write_meta(onnx_path: Path, classes: list[str], imgsz: int, temperature: float = 1.0,
               threshold: float = 0.0, extra: dict[str, Any] | None = None) -> Path:
    meta_path = onnx_path.with_suffix(".json")
    meta: dict[str, Any] = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    meta.update({"task": "classify", "model": onnx_path.name, "classes": classes, "imgsz": imgsz,
                 "outputs": "probabilities", "temperature": temperature, "threshold": threshold})
    meta.update(extra or {})
    meta_path.write_text(json.dumps(meta, indent=2))
    return meta_path


def list_split(split_dir: Path, classes: list[str]) -> tuple[list[Path], npt.NDArray[np.int64]]:
    """The card crops of a split and their class indices; a ``none`` folder (crops of no single card,
    :func:`not_one_card_rates`) is no card class and is left out."""
    paths, labels = [], []
    index = {c: i for i, c in enumerate(classes)}
    for class_dir in sorted(p for p in split_dir.iterdir() if p.is_dir()):
        if class_dir.name == NOT_ONE_CARD and NOT_ONE_CARD not in index:
            continue
        if class_dir.name not in index:
            raise ValueError(f"{class_dir}: class {class_dir.name!r} is not one the model knows")
        for f in sorted(class_dir.iterdir()):
            if f.suffix.lower() in IMAGE_SUFFIXES:
                paths.append(f)
                labels.append(index[class_dir.name])
    return paths, np.asarray(labels, dtype=np.int64)


def load_crop_aspects(manifests: Sequence[Path]) -> dict[str, float]:
    """Each crop's quad aspect (short over long side, as the rectifier measured it in the frame) by
    file name, from ``render crops`` manifests (their ``quad_aspect`` column)."""
    aspects: dict[str, float] = {}
    for path in manifests:
        try:
            with path.open(newline="") as f:
                for line, row in enumerate(csv.DictReader(f), start=2):
                    try:
                        aspects[Path(row["file"]).name] = float(row["quad_aspect"])
                    except (KeyError, TypeError, ValueError) as exc:
                        raise ValueError(f"crop manifest {path}, line {line}: no file or quad_aspect "
                                         f"({exc!r}; manifests written before the column have none)") from exc
        except OSError as exc:
            raise ValueError(f"crop manifest {path}: {exc!r}") from exc
    return aspects


def raw_log_probs(
    clf: CardClassifier | CardEnsemble, paths: list[Path], batch: int = 256, desc: str = "",
    tta: str | None = "none", aspects: Mapping[str, float] | None = None,
) -> npt.NDArray[np.float64]:
    """Uncalibrated log-probabilities (temperature 1) for every image, as the runtime computes them;
    with ``aspects`` (by file name; crops not in it count as card-shaped) the squarest crops are also
    read turned 90 degrees, as the runtime reads them (``turn_aspect``)."""
    out = []
    for names, crops in _crop_batches(paths, batch, desc):
        if aspects is None:
            probs = softmax_t(clf.raw_log_probs(crops, tta), 1.0)
        else:
            probs = softmax_t(clf.read_log_probs(crops, [aspects.get(p.name, 0.0) for p in names]), 1.0)
        out.append(np.log(np.clip(probs, 1e-12, 1.0)))
    return np.concatenate(out) if out else np.zeros((0, len(clf.classes)))


def _crop_batches(paths: list[Path], batch: int, desc: str
                  ) -> Iterator[tuple[list[Path], list[npt.NDArray[np.uint8]]]]:
    """The crops at ``paths``, ``batch`` at a time with their paths; an unreadable one is an error."""
    for i in tqdm(range(0, len(paths), batch), desc=desc, unit="batch"):
        names = paths[i:i + batch]
        crops = []
        for p in names:
            img = cv2.imread(str(p), cv2.IMREAD_COLOR)
            if img is None:
                raise ValueError(f"cannot read crop {p}")
            crops.append(as_image(img))
        yield names, crops


@dataclass
class CardMetrics:
    n: int
    top1: float
    accepted_share: float
    false_identity_rate: float  # accepted and wrong, over all samples
    accuracy_when_accepted: float
    ece: float
    # cards not named whose rank was read (their suits' summed probability over the threshold), of
    # all crops; and those whose rank was wrong, of all (monitor.perception.ranks)
    rank_read_share: float
    false_rank_rate: float
    per_class: dict[str, dict[str, float]]
    critical: dict[str, int]
    worst_confusions: list[tuple[str, str, int]]
    confusion: list[list[int]]

    def to_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


def card_metrics(probs: npt.NDArray[np.float64], labels: npt.NDArray[np.int64], classes: list[str],
                 threshold: float) -> CardMetrics:
    pred = probs.argmax(axis=1)
    conf = probs.max(axis=1)
    ok = pred == labels
    acc = conf >= threshold
    k = len(classes)
    cm = np.zeros((k, k), dtype=np.int64)
    np.add.at(cm, (labels, pred), 1)
    per_class = {}
    for i, c in enumerate(classes):
        tp = cm[i, i]
        support = cm[i].sum()
        predicted = cm[:, i].sum()
        per_class[c] = {"precision": float(tp / predicted) if predicted else float("nan"),
                        "recall": float(tp / support) if support else float("nan"), "support": int(support)}
    critical: dict[str, int] = {}
    for a, b in CRITICAL_RANK_PAIRS:
        ia = [i for i, c in enumerate(classes) if c[0] == a and len(c) == 2]
        ib = [i for i, c in enumerate(classes) if c[0] == b and len(c) == 2]
        critical[f"{a}->{b}"] = int(cm[np.ix_(ia, ib)].sum())
        critical[f"{b}->{a}"] = int(cm[np.ix_(ib, ia)].sum())
    if "Jk" in classes:
        j = classes.index("Jk")
        critical["joker->other"] = int(cm[j].sum() - cm[j, j])
        critical["other->joker"] = int(cm[:, j].sum() - cm[j, j])
    off = cm.copy()
    np.fill_diagonal(off, 0)
    rows, cols = np.unravel_index(np.argsort(-off, axis=None)[:10], off.shape)
    worst = [(classes[i], classes[j], int(off[i, j])) for i, j in zip(rows, cols, strict=True) if off[i, j]]
    n = len(labels)
    read = read_ranks(probs, tuple(classes), threshold)
    truth = [rank_of(classes[int(k)]) for k in labels]
    by_rank = [r is not None and not a for r, a in zip(read, acc, strict=True)]
    rank_read = float(np.mean(by_rank)) if n else float("nan")
    rank_false = float(np.mean([b and r != t for b, r, t in zip(by_rank, read, truth, strict=True)])) if n \
        else float("nan")
    return CardMetrics(
        n=n, top1=float(ok.mean()) if n else float("nan"),
        accepted_share=float(acc.mean()) if n else float("nan"),
        false_identity_rate=float((acc & ~ok).mean()) if n else float("nan"),
        accuracy_when_accepted=float(ok[acc].mean()) if acc.any() else float("nan"),
        ece=expected_calibration_error(conf, ok), rank_read_share=rank_read, false_rank_rate=rank_false,
        per_class=per_class, critical=critical,
        worst_confusions=worst, confusion=cm.tolist(),
    )


def plot_confusion(cm: list[list[int]], classes: list[str], out: Path, title: str) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    a = np.asarray(cm, dtype=np.float64)
    norm = a / np.maximum(a.sum(axis=1, keepdims=True), 1)
    fig, ax = plt.subplots(figsize=(13, 12), dpi=80)
    ax.imshow(np.sqrt(norm), cmap="viridis")  # sqrt so that rare confusions stay visible
    ax.set_xticks(range(len(classes)), classes, rotation=90, fontsize=7)
    ax.set_yticks(range(len(classes)), classes, fontsize=7)
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    ax.set_title(title)
    for i, j in zip(*np.nonzero((a > 0) & ~np.eye(len(classes), dtype=bool)), strict=True):
        ax.text(j, i, str(int(a[i, j])), ha="center", va="center", fontsize=6, color="white")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)
    return out


def _fit_on_val(reader: CardClassifier | CardEnsemble, classes: list[str], data: Path, tta: str | None,
                max_false_rate: float, aspects: Mapping[str, float] | None = None,
                ) -> tuple[float, float, dict[str, Any]]:
    """The temperature and the "unknown" threshold fitted on ``data/val``, and val's metrics with them."""
    vpaths, vlabels = list_split(data / "val", classes)
    vlogp = raw_log_probs(reader, vpaths, desc="val", tta=tta, aspects=aspects)
    temperature = fit_temperature(vlogp, vlabels)
    vprob = softmax_t(vlogp, temperature)
    threshold = choose_threshold(vprob.max(axis=1), vprob.argmax(axis=1) == vlabels, max_false_rate)
    return temperature, threshold, card_metrics(vprob, vlabels, classes, threshold).to_dict()


def _evaluate_splits(reader: CardClassifier | CardEnsemble, classes: list[str], data: Path, out_dir: Path,
                     splits: tuple[str, ...], tta: str | None, temperature: float, threshold: float,
                     title: str, result: dict[str, Any],
                     aspects: Mapping[str, float] | None = None) -> dict[str, Any]:
    """Each held-out split's metrics into ``result``, a confusion picture each; writes the JSON."""
    for split in splits:
        if not (data / split).is_dir():
            continue
        paths, labels = list_split(data / split, classes)
        prob = softmax_t(raw_log_probs(reader, paths, desc=split, tta=tta, aspects=aspects), temperature)
        m = card_metrics(prob, labels, classes, threshold)
        result[split] = m.to_dict()
        plot_confusion(m.confusion, classes, out_dir / f"cards_confusion_{split}.png",
                       f"{title}, held-out split '{split}' (n={m.n}, top-1 {m.top1:.4f})")
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "cards_metrics.json").write_text(json.dumps(result, indent=1))
    return result


def calibrate_and_evaluate(onnx_path: Path, classes: list[str], imgsz: int, data: Path, out_dir: Path,
                           test_splits: tuple[str, ...] = ("test",), backend: str = "onnxruntime",
                           max_false_rate: float = 0.0025, tta: str = "none",
                           view: str = "card") -> dict[str, Any]:
    """Fit T and the threshold on ``data/val``; evaluate each held-out split; write JSON + pictures."""
    extra = {"tta": tta, "view": view}
    write_meta(onnx_path, classes, imgsz, extra=extra)
    clf = CardClassifier(onnx_path, backend=backend)
    cards = list(clf.classes)  # a model taught NOT_ONE_CARD: that class is read apart, not calibrated
    temperature, threshold, val = _fit_on_val(clf, cards, data, tta, max_false_rate)
    write_meta(onnx_path, classes, imgsz, temperature, threshold, extra=extra)
    result: dict[str, Any] = {"temperature": temperature, "threshold": threshold, "tta": tta, "view": view,
                              "val": val}
    rates = not_one_card_rates(clf, data, ("val", *test_splits), tta)
    if rates:
        result["not_one_card"] = rates
    return _evaluate_splits(clf, cards, data, out_dir, test_splits, tta, temperature, threshold,
                            "card identity", result)


def not_one_card_rates(reader: CardClassifier | CardEnsemble, data: Path, splits: Sequence[str],
                       tta: str | None = None, batch: int = 256) -> dict[str, dict[str, float]]:
    """For a reader taught NOT_ONE_CARD, per split: the share of card crops it calls no single card
    (left unnamed for it), and, where the split has a ``none`` folder, the share of those crops it calls
    so. Empty for a reader not taught the class."""
    probe = np.zeros((8, 8, 3), np.uint8)
    if reader.raw_read([probe])[1] is None:
        return {}
    out: dict[str, dict[str, float]] = {}
    for split in splits:
        if not (data / split).is_dir():
            continue
        cards, _ = list_split(data / split, list(reader.classes))
        row = {"cards": float(len(cards)), "cards_called_none": _share_called_none(reader, cards, tta, batch)}
        shown = data / split / NOT_ONE_CARD
        if shown.is_dir():
            nones = sorted(f for f in shown.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
            row["none_crops"] = float(len(nones))
            row["none_called_none"] = _share_called_none(reader, nones, tta, batch)
        out[split] = row
    return out


def _share_called_none(reader: CardClassifier | CardEnsemble, paths: list[Path], tta: str | None,
                       batch: int) -> float:
    called = 0
    for _, crops in _crop_batches(paths, batch, "none"):
        none = reader.raw_read(crops, tta)[1]
        called += int(np.count_nonzero(none >= reader.none_threshold)) if none is not None else 0
    return called / len(paths) if paths else 0.0


def calibrate_and_evaluate_ensemble(ensemble_path: Path, data: Path, out_dir: Path,
                                    test_splits: tuple[str, ...] = ("test",), backend: str = "onnxruntime",
                                    max_false_rate: float = 0.0025,
                                    fit_weights: bool = True, turn_aspect: float | None = None,
                                    aspects: Mapping[str, float] | None = None) -> dict[str, Any]:
    """As :func:`calibrate_and_evaluate` for an ensemble file (each member with its own view and TTA):
    the members' weights (``fit_weights``; else equal), then the temperature and threshold of the
    weighted sum of log-probabilities, are fitted on ``data/val`` and written into the ensemble file.
    ``turn_aspect`` goes into the file; ``aspects`` (:func:`load_crop_aspects`) let the crops be read
    as the runtime reads them with it (the squarest turned 90 degrees too)."""
    raw = json.loads(ensemble_path.read_text())
    raw.pop("weights", None)
    raw.pop("turn_aspect", None)
    if turn_aspect is not None:
        raw["turn_aspect"] = turn_aspect
    ensemble_path.write_text(json.dumps(raw, indent=2))
    ens = CardEnsemble(ensemble_path, backend=backend)
    classes = list(ens.classes)
    if fit_weights:
        vpaths, vlabels = list_split(data / "val", classes)
        member_logp = [raw_log_probs(m, vpaths, desc=f"val {m.path.name}", tta=None) for m in ens.members]
        raw["weights"] = fit_member_weights(member_logp, vlabels)
        ensemble_path.write_text(json.dumps(raw, indent=2))
        ens = CardEnsemble(ensemble_path, backend=backend)
    temperature, threshold, val = _fit_on_val(ens, classes, data, None, max_false_rate, aspects)
    raw.update({"weights": ens.weights, "temperature": temperature, "threshold": threshold})
    ensemble_path.write_text(json.dumps(raw, indent=2))
    result: dict[str, Any] = {"temperature": temperature, "threshold": threshold, "members": raw["members"],
                              "weights": ens.weights, "val": val, "turn_aspect": turn_aspect,
                              "aspects_known": len(aspects or {})}
    rates = not_one_card_rates(ens, data, ("val", *test_splits))
    if rates:
        result["not_one_card"] = rates
    return _evaluate_splits(ens, classes, data, out_dir, test_splits, None, temperature, threshold,
                            "card identity (ensemble)", result, aspects)
