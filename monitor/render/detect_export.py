"""Detection dataset: downscaled frames with oriented boxes (ultralytics OBB), axis-aligned boxes
(ultralytics detect) and COCO JSON, plus optional full-resolution frames with complete ground truth.

Classes (ids in this order): card_face_up, card_face_down, pile, chip, dice. Labeling rules:

- a card is labeled by its four image corners (its whole outline, even where something covers part
  of it) if at least ``min_visible`` of it is visible; cards of a squared pile of two or more are
  not labeled one by one: the pile is, by the minimum-area rectangle around its cards
- a chip stack (a spread is several stacks of one) and a die: minimum-area rectangle of its outline
- objects mostly outside the frame are dropped; partly outside ones are clipped to the frame
- arms and hands are never labeled (they are occluders)

Layout under OUT: ``images/<split>/*.jpg`` + ``labels/<split>/*.txt`` (OBB: ``cls x1 y1 ... x4 y4``
normalized), ``aabb/labels/<split>/*.txt`` (``cls xc yc w h``) with ``aabb/images`` linking to the same
images, ``obb.yaml`` / ``aabb.yaml`` for ultralytics, ``coco_<split>.json``, and ``fullres/<split>/``
(full-resolution frames, PNG, with their ground truth JSON).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from monitor.render.datasets import Sample, SplitSpec, sample_frames, write_image
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
    x, y = p[:, 0], p[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


def _quad(obj: ObjectTruth, w: int, h: int) -> F64 | None:
    """The labeled quadrilateral of an object in frame pixels, or None when it is not labeled."""
    poly = np.asarray(obj.polygon, np.float64)
    if obj.kind != "card":
        poly = cv2.convexHull(poly.astype(np.float32)).reshape(-1, 2).astype(np.float64)
    full = _area(poly)
    if full <= 1.0:
        return None
    clipped = _clip_poly(poly, w, h)
    inside = _area(clipped)
    if inside / full < 0.999:
        if inside / full < DetectOptions.min_in_frame:
            return None
        poly = clipped
    elif obj.kind == "card":
        return poly
    box = cv2.boxPoints(cv2.minAreaRect(poly.astype(np.float32)))
    return np.clip(box.astype(np.float64), 0, (w, h))


def labeled_objects(frame: Frame, min_visible: float = 0.25) -> list[tuple[str, F64, ObjectTruth]]:
    """(class name, quad in frame px, truth) for every object the detector should find."""
    h, w = frame.image.shape[:2]
    out = []
    for o in frame.objects:
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


def export_detect(
    out: Path,
    counts: dict[str, int],
    splits: dict[str, SplitSpec],
    seed: int,
    opt: DetectOptions | None = None,
    progress: Callable[[str, int], None] | None = None,
    start: int = 0,
) -> dict[str, Counter[str]]:
    """Write ``counts[split]`` frames per split. ``start`` > 0 numbers the frames from there and draws
    a different random stream, so a second process can add frames to a split without collisions."""
    opt = opt or DetectOptions()
    renderer = Renderer()
    out.mkdir(parents=True, exist_ok=True)
    result: dict[str, Counter[str]] = {}
    for split, n in counts.items():
        if n <= 0:
            continue
        spec = splits[split]
        img_dir, lab_dir, aabb_dir = (
            out / "images" / split,
            out / "labels" / split,
            out / "aabb" / "labels" / split,
        )
        for d in (img_dir, lab_dir, aabb_dir):
            d.mkdir(parents=True, exist_ok=True)
        full_dir = out / "fullres" / split
        stream = [seed, list(splits).index(split), 7] + ([start] if start else [])
        rng = np.random.default_rng(stream)
        frames = sample_frames(
            renderer,
            spec,
            rng,
            opt.resolutions or {"1080p": 0.8, "4k": 0.2},
            oblique=opt.oblique,
            arms=0.45,
            h264=opt.h264,
        )
        coco: dict[str, Any] = {
            "images": [],
            "annotations": [],
            "categories": [{"id": i, "name": n} for i, n in enumerate(LABELS)],
        }
        tally: Counter[str] = Counter()
        for k in range(n):
            sample = next(frames)
            f = sample.frame
            h, w = f.image.shape[:2]
            s = opt.imgsz / max(w, h)
            small = cv2.resize(f.image, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
            stem = f"{split}_{start + k:06d}"
            obb_lines, aabb_lines = [], []
            coco["images"].append(
                {
                    "id": start + k,
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
                c = CLASS_ID[name]
                qn = quad / (w, h)
                obb_lines.append(f"{c} " + " ".join(f"{v:.6f}" for v in qn.ravel()))
                x0, y0 = qn.min(axis=0)
                x1, y1 = qn.max(axis=0)
                aabb_lines.append(f"{c} {(x0 + x1) / 2:.6f} {(y0 + y1) / 2:.6f} {x1 - x0:.6f} {y1 - y0:.6f}")
                qs = quad * s
                bx0, by0 = qs.min(axis=0)
                bx1, by1 = qs.max(axis=0)
                coco["annotations"].append(
                    {
                        "id": len(coco["annotations"]),
                        "image_id": start + k,
                        "category_id": c,
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
                tally[name] += 1
            (lab_dir / f"{stem}.txt").write_text("\n".join(obb_lines) + ("\n" if obb_lines else ""))
            (aabb_dir / f"{stem}.txt").write_text("\n".join(aabb_lines) + ("\n" if aabb_lines else ""))
            # the image last: an interrupted export never leaves an image without its labels (which a
            # trainer would take for an empty table)
            write_image(img_dir / f"{stem}.jpg", small, [cv2.IMWRITE_JPEG_QUALITY, opt.quality])
            if k < opt.fullres:
                full_dir.mkdir(parents=True, exist_ok=True)
                write_image(full_dir / f"{stem}.png", f.image)
                (full_dir / f"{stem}.json").write_text(json.dumps(_truth_json(sample)))
            if progress:
                progress(split, 1)
        name = f"coco_{split}.json" if not start else f"coco_{split}_from{start}.json"
        (out / name).write_text(json.dumps(coco))
        result[split] = tally
    link = out / "aabb" / "images"
    if not link.exists():
        os.symlink(os.path.relpath(out / "images", out / "aabb"), link)
    done = sorted(p.name for p in (out / "images").iterdir() if p.is_dir())
    _write_yaml(out / "obb.yaml", out.resolve(), done)
    _write_yaml(out / "aabb.yaml", (out / "aabb").resolve(), done)
    return result
