"""Index-crop training sets from an index dataset (``train index-crops``): each labeled index cut
the way the runtime cuts it, for an index classifier trained on what it will read.

The index reader cuts each index the finder finds (``index_geometry.index_crop`` of the finder's four
points) from a full-resolution frame, where an index is ~18 x 32 pixels, often oblique and through
H.264. The corner classifier was trained on corners of upright whole-card crops instead, and on the
labeled quads themselves it reads only three in four right. So the crops here come from the windows
of ``render indices``:

- ``t``: the labeled quad (what a perfect finder would give);
- ``f``: the finder's own quad where it matches the label (the finder's real error), else ``j``: the
  labeled quad with its corners jittered about as much as the finder errs;
- ``back``: finds within the window that match no labeled index (a pip, a chip edge, an index more
  than 15% covered), so the classifier learns to say "no card" rather than guess (a misread card is
  worse than an unread one); ``back`` is also what the reader never names.

Layout: ``out/<split>/<CLASS>/<stem>_<k>_<kind>.jpg`` (a classification set for ``train cards``),
and ``out/summary.json`` with the counts.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np
import numpy.typing as npt
from tqdm import tqdm

from monitor.perception.imageio import as_image
from monitor.perception.index_geometry import index_crop
from monitor.perception.labels import BACK
from monitor.training.crop_log import CropWriter, log_window, open_log, read_done, split_counts
from monitor.training.evaluate_indices import match_finds, window_labels

F64 = npt.NDArray[np.float64]
SPLITS = ("train", "val", "test")
# Corner jitter as a share of the index region's height: about the finder's error on held-out renders
# (matches are accepted up to 0.3 of the height, most lie well under 0.1).
JITTER_SHARE = 0.06
EDGE_PX = 3
KINDS = "tfjb"  # true quad, the finder's quad, a jittered quad, a false find ("back")


class Finder(Protocol):
    """What is needed of the index finder (``perception.index_reader.IndexFinder``)."""

    path: Path

    def find(self, frame: npt.NDArray[np.uint8]) -> list[tuple[F64, float]]: ...


def _inside(quad: F64, w: int, h: int) -> bool:
    """Whether a quad lies within the window: an index cut by the window's edge is never labeled,
    so a find there may well be a real index and must not teach "no card"."""
    return bool(quad.min() >= EDGE_PX and quad[:, 0].max() <= w - EDGE_PX and quad[:, 1].max() <= h - EDGE_PX)


def jitter_quad(quad: F64, rng: np.random.Generator, share: float = JITTER_SHARE) -> F64:
    """The quad moved, scaled and its corners shaken, each by about ``share`` of its height."""
    h = float(np.linalg.norm(quad[3] - quad[0]))
    centre = quad.mean(axis=0)
    scale = 1.0 + rng.normal(0.0, share)
    moved = centre + (quad - centre) * scale + rng.normal(0.0, share * h, 2)
    return np.asarray(moved + rng.normal(0.0, share * h / 2, (4, 2)), np.float64)


def _window_crops(img: npt.NDArray[np.uint8], quads: list[F64], ids: list[str], finder: Finder | None,
                  rng: np.random.Generator) -> list[tuple[str, str, F64]]:
    """(class, tag, quad) of every crop of one window."""
    h, w = img.shape[:2]
    crops = [(card, f"{k}_t", q) for k, (q, card) in enumerate(zip(quads, ids, strict=True))]
    by_label: dict[int, F64] = {}
    spurious: list[F64] = []
    if finder is not None:
        found = [q for q, _ in finder.find(img)]
        for q, j in zip(found, match_finds(found, quads), strict=True):
            if j is not None:
                by_label[j] = q
            elif _inside(q, w, h):
                spurious.append(q)
    for k, (q, card) in enumerate(zip(quads, ids, strict=True)):
        seen = by_label.get(k)
        crops.append((card, f"{k}_f", seen) if seen is not None else (card, f"{k}_j", jitter_quad(q, rng)))
    return crops + [(BACK, f"s{k}_b", q) for k, q in enumerate(spurious)]


def derive_index_crops(root: Path, out: Path, finder: Finder | None, size: int = 64, seed: int = 0,
                       splits: tuple[str, ...] = SPLITS, quality: int = 95,
                       limit: int | None = None) -> dict[str, dict[str, int]]:
    """Write the crops of every window of ``splits`` (at most ``limit`` per split); returns counts of
    each kind per split. Without a finder only ``t`` and ``j`` crops are written (no ``back``).

    Resumable: each window done is logged in ``out/<split>.done.jsonl`` (after its crops are written),
    and a later call skips the windows logged, so an interrupted cut, or one started while the
    windows were still being rendered, goes on where it stopped."""
    counts: dict[str, dict[str, int]] = {}
    out.mkdir(parents=True, exist_ok=True)
    for split in splits:
        images = sorted((root / "images" / split).glob("*.jpg"))[:limit]
        if not images:
            raise FileNotFoundError(f"{root}/images/{split}: no windows (make them with `render indices`)")
        done_log = out / f"{split}.done.jsonl"
        done = read_done(done_log)
        todo = [p for p in images if p.stem not in done]
        crops = CropWriter(out / split, quality)
        with open_log(done_log) as log:
            for path in tqdm(todo, desc=f"{split} index crops", unit="window"):
                img = cv2.imread(str(path), cv2.IMREAD_COLOR)
                if img is None:
                    raise ValueError(f"cannot read window {path}")
                h, w = img.shape[:2]
                quads, ids = window_labels(root, split, path.stem, w, h)
                rng = np.random.default_rng([seed, SPLITS.index(split) if split in SPLITS else 9,
                                             int(path.stem.rsplit("_", 1)[-1])])
                tally: Counter[str] = Counter()
                image = as_image(img)
                for card, tag, q in _window_crops(image, quads, ids, finder, rng):
                    crops.write(card, f"{path.stem}_{tag}", index_crop(image, q, size))
                    tally[tag.rsplit("_", 1)[-1]] += 1
                log_window(log, done, path.stem, tally, KINDS)
        counts[split] = split_counts(done, [p.stem for p in images], KINDS)
    summary = out / "summary.json"
    earlier = json.loads(summary.read_text()).get("counts", {}) if summary.exists() else {}
    summary.write_text(json.dumps(  # splits cut by an earlier call (e.g. val and test first) are kept
        {"source": str(root), "finder": str(finder.path) if finder else None, "size": size, "seed": seed,
         "jitter_share": JITTER_SHARE, "counts": {**earlier, **counts}}, indent=1))
    return counts
