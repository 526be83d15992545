"""Fan-index training sets (``train fan-crops``): the index corners of cards in fanned hands, cut
from card outlines the way the runtime cuts them from the detector's boxes.

In a fanned hand the detector boxes each card whole (its outline inferred under the cards above it),
but a box is a few pixels off (held-out fault recordings at 1080p, cards 45 px wide: along the top
edge a median 5 px, down the side 2.5 px, 7% too large), and an index is ~16 x 28 px: so the
runtime reads each corner at a few shifts along the top edge and keeps the one the reader is surest
shows an index (``perception/fan_reader.py``). Cut from the windows of ``render indices`` (with their
``cards/`` records), per face-up card and per corner:

- ``t``: the index region of the true outline, where that index is uncovered (>= ``VISIBLE``);
- ``j``: the same from the outline moved and scaled about as much as the reader's shifts leave it;
- ``c``: a corner whose index is covered (< ``COVERED``): ``back``, "no index here";
- ``s``: the region slid along the top edge by a quarter to a half of the card's width, where it
  shows no uncovered index: ``back`` too, so the reader's surest shift is the one on the index.

``view="card"`` cuts the fanned card whole instead, from its outline true (``t``) and moved as the
detector's boxes of a fan are (``j``), for every card with an index uncovered (the cards a fan reader
finds): a fanned card shows a strip of its face beside the index (pips, court art), evidence the
index crop alone lacks (``train cards`` at the whole-card classifier's size).

Layout: ``out/<split>/<CLASS>/<stem>_<k>_<kind>.jpg`` (a classification set for ``train cards``),
``out/summary.json`` with the counts per kind.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
from tqdm import tqdm

from monitor.perception.fan_reader import shifted_index_quads, turned
from monitor.perception.imageio import as_image
from monitor.perception.index_geometry import index_crop, index_quads
from monitor.perception.labels import BACK
from monitor.perception.rectify import rectify_card
from monitor.training.crop_log import CropWriter, log_window, open_log, read_done, split_counts

F64 = npt.NDArray[np.float64]
SPLITS = ("train", "val", "test")
KINDS = "tjcs"
VISIBLE = 0.85
COVERED = 0.25
EDGE_PX = 2
# the outline's error left after the runtime's shift search: shares of the card's width and height
JITTER_ALONG = 0.05
JITTER_DOWN = 0.03
JITTER_SCALE = 0.04
SLIDE = (0.25, 0.5)
SLIDE_SHARE = 0.5  # of the corners: "back" is already the largest class
# the detector's error on a fanned card's whole box (fault recordings: along the top edge a median
# 0.11 of the width, down the side 0.06, 7% too large)
BOX_ALONG, BOX_DOWN, BOX_SCALE = 0.1, 0.05, 0.06
VIEWS = ("index", "card")


def _inside(quad: F64, w: int, h: int) -> bool:
    return bool(quad.min() >= EDGE_PX and quad[:, 0].max() <= w - EDGE_PX and quad[:, 1].max() <= h - EDGE_PX)


def _overlap(a: F64, b: F64) -> float:
    """Intersection over the smaller area of two convex quads."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    small = min(abs(cv2.contourArea(a.astype(np.float32))), abs(cv2.contourArea(b.astype(np.float32))))
    return float(inter) / small if small > 0 else 0.0


def moved_card(card: F64, rng: np.random.Generator, along: float = JITTER_ALONG, down: float = JITTER_DOWN,
               scale: float = JITTER_SCALE) -> F64:
    """A card outline (card order: its corner, along the top edge, ...) moved along its own edges and
    scaled about its corner by the given shares of its width and height."""
    o, u, v = card[0], card[1] - card[0], card[3] - card[0]
    su, sv = 1.0 + rng.normal(0.0, scale), 1.0 + rng.normal(0.0, scale)
    o = o + rng.normal(0.0, along) * u + rng.normal(0.0, down) * v
    return np.array([o, o + su * u, o + su * u + sv * v, o + sv * v], np.float64)


def window_crops(cards: list[dict[str, object]], w: int, h: int, rng: np.random.Generator
                 ) -> list[tuple[str, str, F64]]:
    """(class, tag, index quad) of every crop of one window's ``cards`` records."""
    polys = [np.asarray(c["polygon"], np.float64) for c in cards]
    # any index that shows in part: a "no index here" crop must not hold one
    showing = [q for p, c in zip(polys, cards, strict=True)
               for q, s in zip(index_quads(p), c["index_visible"], strict=True)  # type: ignore[call-overload]
               if float(s) >= COVERED]

    def clear(q: F64) -> bool:
        return all(_overlap(q, o) < 0.3 for o in showing)

    out: list[tuple[str, str, F64]] = []
    for k, (poly, rec) in enumerate(zip(polys, cards, strict=True)):
        shares: list[float] = [float(s) for s in rec["index_visible"]]  # type: ignore[attr-defined]
        for side, share in enumerate(shares):
            card = poly if side == 0 else turned(poly)
            quad = index_quads(card)[0]
            if not _inside(quad, w, h):
                continue
            tag = f"{k}{side}"
            if share >= VISIBLE:
                out.append((str(rec["card"]), f"{tag}_t", quad))
                j = index_quads(moved_card(card, rng))[0]
                if _inside(j, w, h):
                    out.append((str(rec["card"]), f"{tag}_j", j))
            elif share < COVERED and clear(quad):
                out.append((BACK, f"{tag}_c", quad))
            if rng.random() < SLIDE_SHARE:
                slide = rng.uniform(*SLIDE) * rng.choice([-1.0, 1.0])
                (s,) = shifted_index_quads(card, [slide])
                if _inside(s, w, h) and clear(s):
                    out.append((BACK, f"{tag}_s", s))
    return out


def window_card_crops(cards: list[dict[str, object]], w: int, h: int, rng: np.random.Generator
                      ) -> list[tuple[str, str, F64]]:
    """(class, tag, card outline) of the whole-card crops of one window: each card with an index
    uncovered, from its true outline and from one moved as a fan's detector box is."""
    out: list[tuple[str, str, F64]] = []
    for k, rec in enumerate(cards):
        poly = np.asarray(rec["polygon"], np.float64)
        if max(float(s) for s in rec["index_visible"]) < VISIBLE or not _inside(poly, w, h):  # type: ignore[attr-defined]
            continue
        out.append((str(rec["card"]), f"{k}_t", poly))
        moved = moved_card(poly, rng, BOX_ALONG, BOX_DOWN, BOX_SCALE)
        if _inside(moved, w, h):
            out.append((str(rec["card"]), f"{k}_j", moved))
    return out


def derive_fan_crops(root: Path, out: Path, size: int = 64, seed: int = 0, splits: tuple[str, ...] = SPLITS,
                     quality: int = 95, limit: int | None = None, view: str = "index"
                     ) -> dict[str, dict[str, int]]:
    """Write the crops of every window of ``splits`` that has its ``cards/`` record; returns counts of
    each kind per split. Resumable: windows done are logged in ``out/<split>.done.jsonl``.
    ``view``: ``index`` (the index corners) or ``card`` (the fanned card whole, ``rectify_card``)."""
    if view not in VIEWS:
        raise ValueError(f"view must be one of {VIEWS}, got {view!r}")
    counts: dict[str, dict[str, int]] = {}
    out.mkdir(parents=True, exist_ok=True)
    for split in splits:
        images = [p for p in sorted((root / "images" / split).glob("*.jpg"))[:limit]
                  if (root / "cards" / split / f"{p.stem}.json").exists()]
        if not images:
            raise FileNotFoundError(f"{root}/images/{split}: no windows with card records "
                                    f"(make them with `render indices`)")
        done_log = out / f"{split}.done.jsonl"
        done = read_done(done_log)
        crops = CropWriter(out / split, quality)
        with open_log(done_log) as log:
            todo = [p for p in images if p.stem not in done]
            for path in tqdm(todo, desc=f"{split} fan crops", unit="window"):
                img = cv2.imread(str(path), cv2.IMREAD_COLOR)
                if img is None:
                    raise ValueError(f"cannot read window {path}")
                image = as_image(img)
                h, w = image.shape[:2]
                cards = json.loads((root / "cards" / split / f"{path.stem}.json").read_text())
                rng = np.random.default_rng([seed, SPLITS.index(split) if split in SPLITS else 9,
                                             int(path.stem.rsplit("_", 1)[-1])])
                tally: Counter[str] = Counter()
                if view == "card":
                    cut = [(label, tag, rectify_card(image, q, size)) for label, tag, q in
                           window_card_crops(cards, w, h, rng)]
                else:
                    cut = [(label, tag, index_crop(image, q, size)) for label, tag, q in
                           window_crops(cards, w, h, rng)]
                for label, tag, crop in cut:
                    crops.write(label, f"{path.stem}_{tag}", crop)
                    tally[tag.rsplit("_", 1)[-1]] += 1
                log_window(log, done, path.stem, tally, KINDS)
        counts[split] = split_counts(done, [p.stem for p in images], KINDS)
    summary = out / "summary.json"
    earlier = json.loads(summary.read_text()).get("counts", {}) if summary.exists() else {}
    summary.write_text(json.dumps({"source": str(root), "view": view, "size": size, "seed": seed,
                                   "visible": VISIBLE,
                                   "covered": COVERED, "jitter": [JITTER_ALONG, JITTER_DOWN, JITTER_SCALE],
                                   "slide": SLIDE, "counts": {**earlier, **counts}}, indent=1))
    return counts
