"""Judge the index finder and fit the index reader (``train index-reader``).

Over a dataset made by ``render indices``: the finder runs on each window; its indices are matched to
the labeled ones (mean corner distance under ``MATCH_SHARE`` of the index's height); the matched
ones are read by the index classifier. On ``val`` (training designs and tables) the temperature and
the "unknown" threshold are fitted (false identity at most ``max_false_rate`` of the reads); on the
held-out splits the same figures are measured: what share of indices the finder finds, how many of
its finds are no index, and, of the indices found, how many are named, named wrongly, or read to
their rank. Spurious finds named as a card are counted too (a false read the monitor would act on).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
from tqdm import tqdm

from monitor.perception.calibration import choose_threshold, fit_temperature, softmax_t
from monitor.perception.imageio import as_image
from monitor.perception.index_reader import INDEX_READER_FILE, IndexReader
from monitor.training.evaluate_cards import card_metrics, plot_confusion

F64 = npt.NDArray[np.float64]
MATCH_SHARE = 0.3  # of the index region's height


@dataclass
class SplitReads:
    labels: int = 0
    found: int = 0  # finder outputs
    matched: int = 0
    logp: list[F64] = field(default_factory=list)  # matched finds, in order
    truth: list[int] = field(default_factory=list)
    spurious_logp: list[F64] = field(default_factory=list)  # finds matching no label


def window_labels(root: Path, split: str, stem: str, w: int, h: int) -> tuple[list[F64], list[str]]:
    lines = (root / "labels" / split / f"{stem}.txt").read_text().splitlines()
    ids = (root / "identities" / split / f"{stem}.txt").read_text().splitlines()
    quads = [np.array([float(x) for x in ln.split()[5:]]).reshape(4, 3)[:, :2] * (w, h) for ln in lines]
    return quads, ids


def match_finds(pred: list[F64], truth: list[F64]) -> list[int | None]:
    """For each prediction (in score order), the label it finds, each label at most once."""
    used: set[int] = set()
    out: list[int | None] = []
    for q in pred:
        best, best_d = None, np.inf
        for j, t in enumerate(truth):
            if j in used:
                continue
            d = float(np.linalg.norm(q - t, axis=1).mean())
            if d < MATCH_SHARE * float(np.linalg.norm(t[3] - t[0])) and d < best_d:
                best, best_d = j, d
        if best is not None:
            used.add(best)
        out.append(best)
    return out


def collect(reader: IndexReader, root: Path, split: str, limit: int | None = None) -> SplitReads:
    """Find, match and read (log-probabilities before the temperature) every window of a split."""
    images = sorted((root / "images" / split).glob("*.jpg"))[:limit]
    r = SplitReads()
    classes = list(reader.classes)
    for path in tqdm(images, desc=f"{split} windows", unit="img"):
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is None:
            raise ValueError(f"cannot read {path}")
        image = as_image(img)
        h, w = image.shape[:2]
        truth, ids = window_labels(root, split, path.stem, w, h)
        found = reader.finder.find(image)
        r.labels += len(truth)
        r.found += len(found)
        if not found:
            continue
        logp = reader.raw_log_probs(reader.crops(image, [q for q, _ in found]))
        for k, j in enumerate(match_finds([q for q, _ in found], truth)):
            if j is None:
                r.spurious_logp.append(logp[k])
            elif ids[j] in classes:
                r.matched += 1
                r.logp.append(logp[k])
                r.truth.append(classes.index(ids[j]))
    return r


def _figures(r: SplitReads, classes: list[str], temperature: float, threshold: float) -> dict[str, Any]:
    prob = softmax_t(np.array(r.logp).reshape(-1, len(classes)), temperature)
    m = card_metrics(prob, np.array(r.truth, np.int64), classes, threshold)
    sp = softmax_t(np.array(r.spurious_logp).reshape(-1, len(classes)), temperature)
    back = classes.index("back")
    spurious_named = int(((sp.max(axis=1) >= threshold) & (sp.argmax(axis=1) != back)).sum())
    return {"labels": r.labels, "found": r.found, "matched": r.matched,
            "finder_recall": r.matched / r.labels if r.labels else float("nan"),
            "finder_precision": (r.found - len(r.spurious_logp)) / r.found if r.found else float("nan"),
            "spurious_named": spurious_named, "reading": m.to_dict()}


def write_reader_file(out_dir: Path, finder: str, reader: str, temperature: float, threshold: float,
                      finder_conf: float) -> Path:
    path = out_dir / INDEX_READER_FILE
    path.write_text(json.dumps({"finder": finder, "reader": reader, "temperature": temperature,
                                "threshold": threshold, "finder_conf": finder_conf}, indent=1))
    return path


def prepare_reader_dir(out_dir: Path, finder: Path, reader: Path, finder_conf: float = 0.4) -> Path:
    """``out_dir`` with the finder and the index classifier (and its JSON) under their runtime names,
    and a provisional reader file (temperature 1, threshold 0.99) until the fit."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for src, name in ((finder, "index_finder.onnx"), (reader, "index_corner.onnx"),
                      (reader.with_suffix(".json"), "index_corner.json")):
        if not src.exists():
            raise FileNotFoundError(f"{src}: not found")
        if src.resolve() != (out_dir / name).resolve():
            shutil.copy(src, out_dir / name)
    return write_reader_file(out_dir, "index_finder.onnx", "index_corner.onnx", 1.0, 0.99, finder_conf)


def fit_and_evaluate(reader: IndexReader, root: Path, out_dir: Path, splits: tuple[str, ...],
                     max_false_rate: float = 0.0025, limit: int | None = None) -> dict[str, Any]:
    """Fit T and the threshold on ``val``, measure every split, rewrite ``index_reader.json`` and write
    the metrics JSON and a confusion picture per held-out split into ``out_dir``."""
    classes = list(reader.classes)
    val = collect(reader, root, "val", limit)
    if not val.truth:
        raise ValueError(f"{root}/val: the finder matched no labeled index: nothing to fit on")
    vlogp = np.array(val.logp)
    temperature = fit_temperature(vlogp, np.array(val.truth))
    vprob = softmax_t(vlogp, temperature)
    correct = vprob.argmax(axis=1) == np.array(val.truth)
    threshold = choose_threshold(vprob.max(axis=1), correct, max_false_rate)
    result: dict[str, Any] = {"temperature": temperature, "threshold": threshold,
                              "val": _figures(val, classes, temperature, threshold)}
    for split in splits:
        if (root / "images" / split).is_dir():
            r = collect(reader, root, split, limit)
            result[split] = _figures(r, classes, temperature, threshold)
            plot_confusion(result[split]["reading"]["confusion"], classes,
                           out_dir / f"index_confusion_{split}.png",
                           f"index reader, held-out split '{split}' (n={r.matched})")
    out_dir.mkdir(parents=True, exist_ok=True)
    write_reader_file(out_dir, reader.finder.path.name, reader.reader_path.name, temperature, threshold,
                      reader.finder.conf)
    (out_dir / "index_reader_metrics.json").write_text(json.dumps(result, indent=1))
    return result
