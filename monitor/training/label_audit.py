"""Candidate label mistakes in a real photo set: where a reader disagrees with a label, surely.

Every labelled card (a raw ``train real-crops --copies 1 --no-corrections`` set, whose manifest names each
crop's photo and label line) is read by one or more readers; a crop whose readers agree on another card
than its label, each at ``min_confidence`` or more, is a candidate. Candidates are evidence, not
corrections: they go to a contact sheet and a YAML draft in the corrections file's form, to be looked at
one by one before any enters the project's corrections.
"""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import yaml

from monitor.evaluation.contact_sheet import Tile, write_sheets
from monitor.perception.identity import CardClassifier, CardEnsemble
from monitor.perception.imageio import as_image
from monitor.perception.labels import BACK

BATCH = 64
# A red card's ink (hearts, diamonds) is at least this share red; on the shared set's pip cards and aces
# 95% of red-labelled crops are over 0.17 and the black-labelled median is 0.01
RED_INK = 0.15
PIP_RANKS = "23456789TA"  # court cards print red and black alike


def ink_redness(crop: npt.NDArray[np.uint8]) -> float | None:
    """The share of a crop's ink (pixels much darker than the card's paper, or strongly coloured) that is
    red; None where the crop shows too little ink to tell."""
    h, w = crop.shape[:2]
    inner = crop[int(h * 0.06):int(h * 0.94), int(w * 0.06):int(w * 0.94)]
    hsv = cv2.cvtColor(inner, cv2.COLOR_BGR2HSV)
    v, sat, hue = hsv[..., 2].astype(np.float64), hsv[..., 1], hsv[..., 0]
    ink = (v < 0.75 * float(np.percentile(v, 90))) | (sat > 90)
    if int(ink.sum()) < 20:
        return None
    red = ((hue < 10) | (hue > 165)) & (sat > 70)
    return float((red & ink).sum() / ink.sum())


def black_ink_on_red_label(label: str, crop: npt.NDArray[np.uint8]) -> bool:
    """A pip card or ace labelled red (hearts, diamonds) whose ink is black."""
    if len(label) != 2 or label[0] not in PIP_RANKS or label[1] not in "hd":
        return False
    red = ink_redness(crop)
    return red is not None and red < RED_INK


@dataclass(frozen=True, slots=True)
class Disagreement:
    split: str
    crop: Path
    image: str
    line: int  # 1-based line of the box in its label file
    label: str
    said: str  # the readers' card ("?" where only the ink says the label is wrong)
    confidence: float  # the least sure reader's probability of ``said``
    evidence: str  # "readers", "ink" (a red label on black ink), or "readers+ink"


def _read_manifest(crops: Path) -> list[dict[str, str]]:
    path = crops / "manifest_real.csv"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not a `train real-crops` set (no manifest_real.csv)")
    with path.open() as f:
        return list(csv.DictReader(f))


def audit(crops: Path, readers: list[CardClassifier | CardEnsemble], min_confidence: float = 0.9,
          splits: tuple[str, ...] = ("train", "val", "test")) -> tuple[list[Disagreement], Counter[str]]:
    """The crops every reader names as one other card than the label at ``min_confidence`` or more, and
    how many crops each split had."""
    rows = [r for r in _read_manifest(crops) if r["split"] in splits]
    found: list[Disagreement] = []
    seen: Counter[str] = Counter()
    for k in range(0, len(rows), BATCH):
        chunk = rows[k:k + BATCH]
        imgs = []
        for r in chunk:
            img = cv2.imread(str(crops / r["split"] / r["file"]), cv2.IMREAD_COLOR)
            if img is None:
                raise ValueError(f"cannot read crop {crops / r['split'] / r['file']}")
            imgs.append(as_image(img))
        reads = [reader.classify(imgs) for reader in readers]
        for i, r in enumerate(chunk):
            seen[r["split"]] += 1
            tops = {read[i].top_class for read in reads}
            said = next(iter(tops))
            conf = min(read[i].confidence for read in reads)
            by_readers = len(tops) == 1 and said not in (r["identity"], BACK) and conf >= min_confidence
            by_ink = black_ink_on_red_label(r["identity"], imgs[i])
            if by_readers or by_ink:
                evidence = "readers+ink" if by_readers and by_ink else "readers" if by_readers else "ink"
                found.append(Disagreement(r["split"], crops / r["split"] / r["file"], r["image"],
                                          int(r["line"]), r["identity"], said, conf, evidence))
    return found, seen


def write_audit(found: list[Disagreement], out: Path, source_names: dict[str, str]) -> dict[str, Path]:
    """``out/candidates.yaml`` (the corrections file's form; ``was`` in the set's own class names) and
    ``out/candidates.png`` (each crop with its label and the readers' card)."""
    out.mkdir(parents=True, exist_ok=True)
    draft = {"dataset": "candidates", "corrections": [
        {"image": d.image, "line": d.line, "was": source_names.get(d.label, d.label), "label": d.said,
         "why": f"{d.evidence}: readers say {d.said} at {d.confidence:.2f} ({d.split})"} for d in found]}
    yaml_path = out / "candidates.yaml"
    yaml_path.write_text(yaml.safe_dump(draft, sort_keys=False, width=120))
    tiles = []
    for n, d in enumerate(found):
        img = cv2.imread(str(d.crop))
        h, w = (img.shape[:2] if img is not None else (96, 96))
        tiles.append(Tile(d.crop, (0.0, 0.0, float(w - 1), float(h - 1)),
                          (f"#{n} label {d.label} {d.evidence}", f"said {d.said} {d.confidence:.2f}"),
                          (0, 200, 0)))
    sheets = write_sheets(tiles, out / "candidates.png", "label vs readers (candidates, by number)")
    return {"yaml": yaml_path, "sheet": sheets[0]}


def per_split_share(found: list[Disagreement], seen: Counter[str]) -> dict[str, tuple[int, int]]:
    by = Counter(d.split for d in found)
    return {s: (by[s], n) for s, n in seen.items()}


def confusion_pairs(found: list[Disagreement]) -> list[tuple[str, str, int]]:
    c = Counter((d.label, d.said) for d in found)
    return [(a, b, n) for (a, b), n in c.most_common()]
