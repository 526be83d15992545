"""Index-finder dataset: full-resolution windows of rendered tables with every readable card index
labeled by its four corner points (ultralytics pose: one class, four keypoints).

Cards in a fanned or overlapping hand show little more than an index, so the monitor finds indices
on their own (``perception/index_reader.py``) and reads each with the corner classifier. Labels:

- each face-up card has two index regions (``perception/index_geometry.index_quads``); a region is
  labeled when the printed index inside it (``INDEX_CORE``) is at least ``min_visible`` uncovered in
  the rendered id buffer and the whole region lies in the window
- keypoints in the region's order: the card's corner, along its top edge, the far corner, down its
  side, so the finder gives the index's orientation as well as its place
- windows are rendered at the camera's full resolution over a random face-up card (no downscaling:
  an index is about 18 x 32 pixels in a 1080p view of the whole table)

Layout under OUT: ``images/<split>/*.jpg``, ``labels/<split>/*.txt``
(``0 xc yc w h x1 y1 2 ... x4 y4 2``, normalized), ``identities/<split>/*.txt`` (the card of each
label line, to measure reading), ``cards/<split>/*.json`` (every face-up card in the window: its
outline in the card's own corner order, identity, and how much of each index is uncovered: an index
reader must also learn what a covered corner looks like), ``pose.yaml``, ``summary.json``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from monitor.perception.index_geometry import index_cores, index_quads, quad_share
from monitor.render.datasets import SplitSpec, run_chunks, sample_frames, write_image
from monitor.render.renderer import Frame, Renderer

# Showdowns put fans of face-up hands at the seats and the banker's place; scattered cards vary the
# identities and angles; the deal and set hands give face-down cards and piles to tell apart.
PHASES = {"showdown": 0.55, "scatter": 0.15, "deal": 0.1, "set": 0.1, "delivered": 0.1}
CHUNK_FRAMES = 40


@dataclass(frozen=True)
class IndexOptions:
    window: float = 0.22  # share of the frame's width and height rendered per image (416 x 232 at 1080p)
    min_visible: float = 0.85
    quality: int = 92
    oblique: float = 0.3
    h264: float = 0.4
    arms: float = 0.35
    card_px_1080: tuple[float, float] = (38.0, 75.0)


def index_labels(frame: Frame, min_visible: float) -> list[tuple[np.ndarray, str]]:
    """The labeled index regions of a frame: (4, 2) arrays of image points in keypoint order, each
    with its card's identity."""
    h, w = frame.image.shape[:2]
    ids = frame.id_map
    out = []
    for o in frame.objects:
        if o.kind != "card" or not o.face_up or len(o.polygon) != 4:
            continue
        for quad, core in zip(index_quads(o.polygon), index_cores(o.polygon), strict=True):
            if quad.min() < 0 or quad[:, 0].max() > w or quad[:, 1].max() > h:
                continue
            if quad_share(ids, core, o.oid) >= min_visible:
                out.append((quad, o.identity))
    return out


def card_records(frame: Frame) -> list[dict[str, object]]:
    """Every face-up card wholly in the frame: outline (card order), identity, and the uncovered
    share of each of its two printed indices (``index_quads`` order)."""
    h, w = frame.image.shape[:2]
    out: list[dict[str, object]] = []
    for o in frame.objects:
        if o.kind != "card" or not o.face_up or len(o.polygon) != 4:
            continue
        poly = np.asarray(o.polygon, np.float64)
        if poly.min() < 0 or poly[:, 0].max() > w or poly[:, 1].max() > h:
            continue
        shares = [round(quad_share(frame.id_map, core, o.oid), 3) for core in index_cores(poly)]
        outline = [[round(float(x), 2), round(float(y), 2)] for x, y in poly]
        out.append({"card": o.identity, "polygon": outline,
                    "index_visible": shares})
    return out


def pose_line(quad: np.ndarray, w: int, h: int) -> str:
    q = quad / (w, h)
    (x0, y0), (x1, y1) = q.min(axis=0), q.max(axis=0)
    kp = " ".join(f"{x:.6f} {y:.6f} 2" for x, y in q)
    return f"0 {(x0 + x1) / 2:.6f} {(y0 + y1) / 2:.6f} {x1 - x0:.6f} {y1 - y0:.6f} {kp}"


@dataclass(frozen=True)
class _Chunk:
    out: Path
    split: str
    split_index: int
    spec: SplitSpec
    seed: int
    opt: IndexOptions
    first: int
    n: int


_RENDERER: Renderer | None = None  # one per process: its texture caches outlive a chunk


def _render_chunk(c: _Chunk) -> tuple[_Chunk, Counter[str]]:
    global _RENDERER
    if _RENDERER is None:
        _RENDERER = Renderer()
    img_dir, lab_dir, id_dir, card_dir = (c.out / d / c.split
                                          for d in ("images", "labels", "identities", "cards"))
    stems = [f"{c.split}_{k:06d}" for k in range(c.first, c.first + c.n)]
    if all((img_dir / f"{s}.jpg").exists() for s in stems):  # done by an interrupted run: resume
        n = sum(len((lab_dir / f"{s}.txt").read_text().splitlines()) for s in stems)
        return c, Counter({"images": c.n, "indices": n})
    frames = sample_frames(_RENDERER, c.spec, np.random.default_rng([c.seed, c.split_index, 11, c.first]),
                           {"1080p": 1.0}, phases=PHASES, oblique=c.opt.oblique, arms=c.opt.arms,
                           card_px_1080=c.opt.card_px_1080, window=c.opt.window, h264=c.opt.h264)
    tally: Counter[str] = Counter()
    for k in range(c.first, c.first + c.n):
        f = next(frames).frame
        h, w = f.image.shape[:2]
        quads = index_labels(f, c.opt.min_visible)
        stem = f"{c.split}_{k:06d}"
        (lab_dir / f"{stem}.txt").write_text("".join(pose_line(q, w, h) + "\n" for q, _ in quads))
        (id_dir / f"{stem}.txt").write_text("".join(f"{card}\n" for _, card in quads))
        (card_dir / f"{stem}.json").write_text(json.dumps(card_records(f)))
        # the image last: an interrupted export never leaves an image without its labels
        write_image(img_dir / f"{stem}.jpg", f.image, [cv2.IMWRITE_JPEG_QUALITY, c.opt.quality])
        tally["images"] += 1
        tally["indices"] += len(quads)
    return c, tally


def write_pose_yaml(out: Path) -> Path:
    splits = sorted(p.name for p in (out / "images").iterdir() if p.is_dir())
    lines = [f"path: {out.resolve()}", *(f"{s}: images/{s}" for s in splits),
             "kpt_shape: [4, 3]", "flip_idx: [1, 0, 3, 2]", "names:", "  0: index"]
    path = out / "pose.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def export_indices(out: Path, counts: dict[str, int], splits: dict[str, SplitSpec], seed: int,
                   opt: IndexOptions | None = None, progress: Callable[[str, int], None] | None = None,
                   workers: int = 1, threads: int = 1) -> dict[str, Counter[str]]:
    """Write ``counts[split]`` windows per split; returns images and labeled indices per split. A chunk
    whose images all exist is kept (a rerun resumes an interrupted export)."""
    opt = opt or IndexOptions()
    chunks = []
    for split, n in counts.items():
        for d in ("images", "labels", "identities", "cards"):
            (out / d / split).mkdir(parents=True, exist_ok=True)
        idx = list(splits).index(split)
        chunks += [_Chunk(out, split, idx, splits[split], seed, opt, first, min(CHUNK_FRAMES, n - first))
                   for first in range(0, n, CHUNK_FRAMES)]
    done = run_chunks(_render_chunk, chunks, workers, threads,
                      (lambda r: progress(r[0].split, r[0].n)) if progress else None)
    result: dict[str, Counter[str]] = {s: Counter() for s in counts}
    for c, tally in done:
        result[c.split].update(tally)
    write_pose_yaml(out)
    (out / "summary.json").write_text(json.dumps(
        {"seed": seed, "options": opt.__dict__, "splits": {s: dict(t) for s, t in result.items()},
         "designs": {s: list(splits[s].designs) for s in counts},
         "tables": {s: list(splits[s].tables) for s in counts}}, indent=1, default=list))
    return result
