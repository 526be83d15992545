"""Detection dataset: downscaled frames with oriented boxes (ultralytics OBB), axis-aligned boxes
(ultralytics detect) and COCO JSON, plus optional full-resolution frames with complete ground truth.

Classes (ids in this order): card_face_up, card_face_down, pile, chip, dice, hand. Labeling rules:

- a card is labeled by its four image corners (its whole outline, even where something covers part
  of it) if at least ``min_visible`` of it is visible; cards of a squared pile of two or more are
  not labeled one by one: the pile is, by the minimum-area rectangle around its cards
- a chip stack (a spread is several stacks of one) and a die: minimum-area rectangle of its outline
- objects mostly outside the frame are dropped; partly outside ones are clipped to the frame
- an arm is not labeled (it is an occluder); its hand is, as the ``hand`` class

Layout under OUT: ``images/<split>/*.jpg`` + ``labels/<split>/*.txt`` (OBB: ``cls x1 y1 ... x4 y4``
normalized), ``aabb/labels/<split>/*.txt`` (``cls xc yc w h``) with ``aabb/images`` linking to the same
images, ``obb.yaml`` / ``aabb.yaml`` for ultralytics, ``coco_<split>.json``, and ``fullres/<split>/``
(full-resolution frames, PNG, with their ground truth JSON).

COCO ids start at 1, as COCO tools expect (several treat 0 as "none"): a category's id is its class
number + 1, an image's id its frame number + 1 (``train_000000.jpg`` is image 1), and annotations are
numbered 1, 2, ... in each file. The YOLO label files keep the 0-based class numbers ultralytics reads.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from monitor.geometry.hands import hand_box
from monitor.render.datasets import Sample, SplitSpec, run_chunks, sample_frames, write_image
from monitor.render.renderer import LABELS, Frame, ObjectTruth, Renderer

F64 = NDArray[np.float64]
CLASS_ID = {name: i for i, name in enumerate(LABELS)}


@dataclass
class DetectOptions:
    imgsz: int = 640  # long side of the saved image
    min_visible: float = 0.25
    min_in_frame: float = 0.5  # share of an object's outline area that must be inside the frame
    quality: int = 90
    resolutions: dict[str, float] | None = None
    oblique: float = 0.35
    fullres: int = 0  # full-resolution frames (with ground truth JSON) to keep per split
    h264: float = 0.3  # share of frames put through an H.264 round trip at full resolution (the stream)
    arms: float = 0.45  # arms reaching in per scene: Poisson mean 1.5x this (hands: the `hand` class)


def _clip_poly(poly: F64, w: int, h: int) -> F64:
    """Clip a convex polygon to the frame rectangle (Sutherland-Hodgman)."""
    pts = [tuple(p) for p in poly]
    for axis, bound, keep_less in (
        (0, 0.0, False),
        (0, float(w), True),
        (1, 0.0, False),
        (1, float(h), True),
    ):
        out: list[tuple[float, float]] = []
        n = len(pts)
        for i in range(n):
            a, b = pts[i], pts[(i + 1) % n]
            ina = a[axis] <= bound if keep_less else a[axis] >= bound
            inb = b[axis] <= bound if keep_less else b[axis] >= bound
            if ina:
                out.append(a)
            if ina != inb:
                t = (bound - a[axis]) / (b[axis] - a[axis])
                out.append((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])))
        pts = out
        if not pts:
            return np.zeros((0, 2))
    return np.asarray(pts, np.float64)


def _area(p: F64) -> float:
    if len(p) < 3:
        return 0.0
    x, y = p[:, 0], p[:, 1]  # the shoelace, with the wrap-around term apart (np.roll costs more)
    return float(abs(np.dot(x[:-1], y[1:]) + x[-1] * y[0] - np.dot(y[:-1], x[1:]) - y[-1] * x[0]) / 2)


def _quad(obj: ObjectTruth, w: int, h: int) -> F64 | None:
    """The labeled quadrilateral of an object in frame pixels, or None when it is not labeled."""
    poly = np.asarray(obj.polygon, np.float64)
    if obj.kind != "card":
        poly = cv2.convexHull(poly.astype(np.float32)).reshape(-1, 2).astype(np.float64)
    full = _area(poly)
    if full <= 1.0:
        return None
    cut = False
    if not (poly.min() >= 0.0 and poly[:, 0].max() <= w and poly[:, 1].max() <= h):  # crosses an edge
        clipped = _clip_poly(poly, w, h)
        share = _area(clipped) / full
        if share < 0.999:
            if share < DetectOptions.min_in_frame:
                return None
            poly, cut = clipped, True
    if obj.kind == "card" and not cut:
        return poly
    box = cv2.boxPoints(cv2.minAreaRect(poly.astype(np.float32)))
    return np.clip(box.astype(np.float64), 0, (w, h))


def _hand_quad(arm: ObjectTruth, w: int, h: int) -> F64 | None:
    """The hand of an arm (drawn on top of what it covers, so its own visibility is not the arm's)."""
    box = hand_box(np.asarray(arm.polygon, np.float64)[:, :2])
    return None if box is None else _quad(replace(arm, kind="hand", polygon=box.tolist()), w, h)


def labeled_objects(frame: Frame, min_visible: float = 0.25) -> list[tuple[str, F64, ObjectTruth]]:
    """(class name, quad in frame px, truth) for every object the detector should find."""
    h, w = frame.image.shape[:2]
    out = []
    for o in frame.objects:
        if o.label == "arm":
            hand = _hand_quad(o, w, h)
            if hand is not None:
                out.append(("hand", hand, o))
            continue
        if o.label not in CLASS_ID or o.visible_share < min_visible:
            continue
        if o.kind == "card" and o.pile is not None and _pile_size(frame, o.pile) >= 2:
            continue
        q = _quad(o, w, h)
        if q is not None:
            out.append((o.label, q, o))
    return out


def _pile_size(frame: Frame, pile: str) -> int:
    for o in frame.objects:
        if o.kind == "pile" and o.identity == pile:
            return o.count or 0
    return 1


def _write_yaml(path: Path, root: Path, splits: list[str]) -> None:
    lines = [f"path: {root}"] + [f"{s}: images/{s}" for s in splits] + ["names:"]
    lines += [f"  {i}: {n}" for i, n in enumerate(LABELS)]
    path.write_text("\n".join(lines) + "\n")


def _truth_json(sample: Sample) -> dict[str, Any]:
    cam = sample.frame.camera
    return {
        "design": sample.design,
        "table": sample.table,
        "resolution": sample.resolution,
        "seed": sample.seed,
        "camera": {
            "K": cam.K.tolist(),
            "R": cam.R.tolist(),
            "t": cam.t.tolist(),
            "dist": cam.dist.tolist(),
            "width": cam.width,
            "height": cam.height,
        },
        "objects": [o.to_json() for o in sample.frame.objects],
    }


CHUNK_FRAMES = 30  # frames one task renders from its own random stream: the same dataset for any worker count
_RENDERER: Renderer | None = None  # one per process: its texture and camera caches outlive a chunk


@dataclass(frozen=True)
class _Chunk:
    out: Path
    split: str
    split_index: int
    spec: SplitSpec
    seed: int
    opt: DetectOptions
    start: int  # the export's first frame number (``start``)
    first: int  # this chunk's first frame number
    n: int


@dataclass
class _ChunkResult:
    chunk: _Chunk
    images: list[dict[str, Any]]
    annotations: list[dict[str, Any]]  # COCO ids are given when the chunks are put together
    tally: Counter[str]


def _render_chunk(c: _Chunk) -> _ChunkResult:
    """Render and write one chunk's frames (images, OBB and AABB labels, full-resolution extras)."""
    global _RENDERER
    if _RENDERER is None:
        _RENDERER = Renderer()
    opt, split = c.opt, c.split
    img_dir, lab_dir, aabb_dir = (
        c.out / "images" / split,
        c.out / "labels" / split,
        c.out / "aabb" / "labels" / split,
    )
    full_dir = c.out / "fullres" / split
    frames = sample_frames(
        _RENDERER,
        c.spec,
        np.random.default_rng([c.seed, c.split_index, 7, c.first]),
        opt.resolutions or {"1080p": 0.8, "4k": 0.2},
        oblique=opt.oblique,
        arms=opt.arms,
        h264=opt.h264,
    )
    res = _ChunkResult(c, [], [], Counter())
    for k in range(c.first, c.first + c.n):
        sample = next(frames)
        f = sample.frame
        h, w = f.image.shape[:2]
        s = opt.imgsz / max(w, h)
        small = cv2.resize(f.image, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
        stem = f"{split}_{k:06d}"
        obb_lines, aabb_lines = [], []
        res.images.append(
            {
                "id": k + 1,  # COCO ids start at 1
                "file_name": f"images/{split}/{stem}.jpg",
                "width": small.shape[1],
                "height": small.shape[0],
                "source_resolution": [w, h],
                "design": sample.design,
                "table": sample.table,
                "seed": sample.seed,
                "h264_crf": sample.effects.h264_crf if sample.effects else None,
            }
        )
        for name, quad, o in labeled_objects(f, opt.min_visible):
            cls = CLASS_ID[name]
            qn = quad / (w, h)
            obb_lines.append(f"{cls} " + " ".join(f"{v:.6f}" for v in qn.ravel()))
            x0, y0 = qn.min(axis=0)
            x1, y1 = qn.max(axis=0)
            aabb_lines.append(f"{cls} {(x0 + x1) / 2:.6f} {(y0 + y1) / 2:.6f} {x1 - x0:.6f} {y1 - y0:.6f}")
            qs = quad * s
            bx0, by0 = qs.min(axis=0)
            bx1, by1 = qs.max(axis=0)
            res.annotations.append(
                {
                    "image_id": k + 1,
                    "category_id": cls + 1,
                    "bbox": [
                        round(float(bx0), 2),
                        round(float(by0), 2),
                        round(float(bx1 - bx0), 2),
                        round(float(by1 - by0), 2),
                    ],
                    "segmentation": [[round(float(v), 2) for v in qs.ravel()]],
                    "area": round(_area(qs), 2),
                    "iscrowd": 0,
                    "identity": o.identity,
                    "visible_share": round(o.visible_share, 4),
                    "zone": o.zone,
                }
            )
            res.tally[name] += 1
        (lab_dir / f"{stem}.txt").write_text("\n".join(obb_lines) + ("\n" if obb_lines else ""))
        (aabb_dir / f"{stem}.txt").write_text("\n".join(aabb_lines) + ("\n" if aabb_lines else ""))
        # the image last: an interrupted export never leaves an image without its labels (which a
        # trainer would take for an empty table)
        write_image(img_dir / f"{stem}.jpg", small, [cv2.IMWRITE_JPEG_QUALITY, opt.quality])
        if k - c.start < opt.fullres:
            full_dir.mkdir(parents=True, exist_ok=True)
            write_image(full_dir / f"{stem}.png", f.image)
            (full_dir / f"{stem}.json").write_text(json.dumps(_truth_json(sample)))
    return res


def export_detect(
    out: Path,
    counts: dict[str, int],
    splits: dict[str, SplitSpec],
    seed: int,
    opt: DetectOptions | None = None,
    progress: Callable[[str, int], None] | None = None,
    start: int = 0,
    workers: int = 1,
    threads: int = 1,
    chunk: int = CHUNK_FRAMES,
) -> dict[str, Counter[str]]:
    """Write ``counts[split]`` frames per split, in chunks of ``chunk`` frames each drawn from its own
    random stream (seed, split, first frame number), so the dataset is the same whatever ``workers``
    (processes rendering chunks side by side, one per core). ``start`` > 0 numbers the
    frames from there (new streams too), so another run can add frames to a split without collisions.
    """
    opt = opt or DetectOptions()
    out.mkdir(parents=True, exist_ok=True)
    chunks: list[_Chunk] = []
    for split, n in counts.items():
        if n <= 0:
            continue
        for d in (out / "images" / split, out / "labels" / split, out / "aabb" / "labels" / split):
            d.mkdir(parents=True, exist_ok=True)
        idx = list(splits).index(split)
        for first in range(start, start + n, chunk):
            m = min(chunk, start + n - first)
            chunks.append(_Chunk(out, split, idx, splits[split], seed, opt, start, first, m))
    done = run_chunks(_render_chunk, chunks, workers, threads,
                      (lambda r: progress(r.chunk.split, r.chunk.n)) if progress else None)
    result: dict[str, Counter[str]] = {}
    for split in counts:
        mine = sorted((r for r in done if r.chunk.split == split), key=lambda r: r.chunk.first)
        if not mine:
            continue
        coco: dict[str, Any] = {
            "images": [im for r in mine for im in r.images],
            "annotations": [],
            "categories": [{"id": i + 1, "name": n} for i, n in enumerate(LABELS)],
        }
        tally: Counter[str] = Counter()
        for r in mine:
            for a in r.annotations:
                coco["annotations"].append({"id": len(coco["annotations"]) + 1, **a})
            tally.update(r.tally)
        name = f"coco_{split}.json" if not start else f"coco_{split}_from{start}.json"
        (out / name).write_text(json.dumps(coco))
        result[split] = tally
    link = out / "aabb" / "images"
    if not link.exists():
        os.symlink(os.path.relpath(out / "images", out / "aabb"), link)
    done_splits = sorted(p.name for p in (out / "images").iterdir() if p.is_dir())
    _write_yaml(out / "obb.yaml", out.resolve(), done_splits)
    _write_yaml(out / "aabb.yaml", (out / "aabb").resolve(), done_splits)
    return result
