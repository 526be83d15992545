"""Card-crop dataset for the identity classifier (54 classes: 52 cards, ``Jk``, ``back``).

Each crop is cut from a full-resolution rendered frame the way the runtime does it
(:func:`monitor.perception.rectify.rectify_card`: the four corners, long side vertical, stretched
to a square), from corners jittered like a real corner estimate, turned 180 degrees half the time.
JPEG artifacts of the camera stream are reproduced on the card's own region of the frame (8-px
aligned, so the blocks are those of a whole-frame encode). Layout: ``OUT/<split>/<class>/*.jpg``
(ultralytics classification) plus ``OUT/manifest.csv`` with each crop's provenance.
"""

from __future__ import annotations

import csv
import json
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from monitor.perception.imageio import as_image
from monitor.perception.rectify import quad_aspect, rectify_card
from monitor.render.datasets import SplitSpec, sample_frames, write_image
from monitor.render.deck import CLASS_KEYS
from monitor.render.renderer import ObjectTruth, Renderer

F64 = NDArray[np.float64]
MANIFEST_FIELDS = (
    "split",
    "cls",
    "file",
    "design",
    "table",
    "resolution",
    "card_px",
    "visible_share",
    "quad_aspect",
    "turned",
    "jitter",
    "jpeg",
    "seed",
    "oid",
)


@dataclass
class CropOptions:
    size: int = 96
    min_visible: float = 0.6
    jitter: tuple[float, float] = (0.01, 0.035)  # corner jitter sigma as a fraction of the card's long side
    resolutions: dict[str, float] = field(default_factory=lambda: {"1080p": 0.7, "4k": 0.3})
    quality: int = 90  # JPEG quality of the saved crop
    edge_margin: float = 2.0  # px: a card must lie this far inside the frame
    window: float | None = 0.5  # render only this fraction of the frame around the cards (speed)


def jitter_corners(poly: F64, rng: np.random.Generator, frac: tuple[float, float]) -> tuple[F64, float]:
    p = np.asarray(poly, np.float64)
    long_side = max(np.linalg.norm(p[1] - p[2]), np.linalg.norm(p[0] - p[1]))
    sigma = rng.uniform(*frac)
    if rng.random() < 0.08:  # now and then a poor estimate
        sigma *= 2.0
    return p + rng.normal(0, sigma * long_side, p.shape), float(sigma)


def jpeg_region(
    img: NDArray[np.uint8], box: tuple[int, int, int, int], quality: int
) -> tuple[NDArray[np.uint8], int, int]:
    """JPEG round trip of an 8-px aligned region (same blocks as a whole-frame encode): (region, x0, y0)."""
    x0, y0, x1, y1 = box
    x0, y0 = max(0, x0 // 8 * 8), max(0, y0 // 8 * 8)
    x1, y1 = min(img.shape[1], -(-x1 // 8) * 8), min(img.shape[0], -(-y1 // 8) * 8)
    region = img[y0:y1, x0:x1]
    ok, buf = cv2.imencode(".jpg", region, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        return region.copy(), x0, y0
    return as_image(cv2.imdecode(buf, cv2.IMREAD_COLOR)), x0, y0


def quad_turn(corners: F64) -> tuple[float, bool]:
    """(short / long side of a card's quad ``corners`` as the rectifier measures it, whether the
    rectifier stands the card on its side). ``corners`` run as the renderer's polygons do (top-left,
    top-right, bottom-right, bottom-left as printed: edges 0-1 and 2-3 are the short sides). Under an
    oblique camera a card's long side can look the shorter: the rectifier then takes it for the top,
    and the crop shows the card turned 90 degrees."""
    c = np.asarray(corners, np.float64)
    s = np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)
    return round(quad_aspect(c), 3), bool(s[0] + s[2] > s[1] + s[3])


def crop_card(
    img: NDArray[np.uint8], obj: ObjectTruth, rng: np.random.Generator, opt: CropOptions, jpeg: int | None
) -> tuple[NDArray[np.uint8], float, F64]:
    """One training crop of a card from the final frame: jitter, optional stream JPEG, rectify; with
    the jittered corners it was cut by."""
    corners, sigma = jitter_corners(np.asarray(obj.polygon), rng, opt.jitter)
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 4
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 4
    if jpeg is not None:
        region, ox, oy = jpeg_region(img, (int(x0), int(y0), int(x1), int(y1)), jpeg)
        crop = rectify_card(region, corners - (ox, oy), opt.size)
    else:
        crop = rectify_card(img, corners, opt.size)
    # rectify_card puts the higher short side on top; cards at seats mostly face one way in the image,
    # so turn half the crops 180 degrees to show the classifier both ways up equally
    if rng.random() < 0.5:
        crop = np.ascontiguousarray(crop[::-1, ::-1])
    return crop, sigma, corners


def _in_frame(obj: ObjectTruth, w: int, h: int, margin: float) -> bool:
    p = np.asarray(obj.polygon)
    return bool(
        (p[:, 0] >= margin).all()
        and (p[:, 1] >= margin).all()
        and (p[:, 0] <= w - 1 - margin).all()
        and (p[:, 1] <= h - 1 - margin).all()
    )


def export_crops(
    out: Path,
    counts: dict[str, int],
    splits: dict[str, SplitSpec],
    seed: int,
    opt: CropOptions | None = None,
    progress: Callable[[str, int], None] | None = None,
) -> dict[str, Counter[str]]:
    """Write ``counts[split]`` crops per split, classes kept balanced all along the way: a crop is
    taken only while its class is no more than a small slack ahead of the scarcest class, so a run
    stopped early is balanced too (face-down cards, plentiful in every scene, would swamp ``back``)."""
    opt = opt or CropOptions()
    renderer = Renderer()
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / f"manifest_{'_'.join(counts)}.csv"
    new = not manifest_path.exists()
    result: dict[str, Counter[str]] = {}
    with manifest_path.open("a", newline="") as mf:
        writer = csv.DictWriter(mf, fieldnames=MANIFEST_FIELDS)
        if new:
            writer.writeheader()
        for _si, (split, n) in enumerate(counts.items()):
            if n <= 0:
                continue
            spec = splits[split]
            for k in CLASS_KEYS:
                (out / split / k).mkdir(parents=True, exist_ok=True)
            quota = math.ceil(n / len(CLASS_KEYS) * 1.08)
            slack = max(8, math.ceil(n / len(CLASS_KEYS) * 0.1))
            have: Counter[str] = Counter()
            rng = np.random.default_rng([seed, list(splits).index(split)])
            frames = sample_frames(
                renderer,
                spec,
                rng,
                opt.resolutions,
                phases={"showdown": 0.4, "scatter": 0.35, "set": 0.1, "deal": 0.1, "delivered": 0.05},
                window=opt.window,
            )
            total = 0
            for sample in frames:
                if total >= n:
                    break
                f = sample.frame
                h, w = f.image.shape[:2]
                jpeg = int(rng.integers(60, 96)) if rng.random() < 0.85 else None
                cards = [
                    o
                    for o in f.objects
                    if o.kind == "card"
                    and o.visible_share >= opt.min_visible
                    and _in_frame(o, w, h, opt.edge_margin)
                ]
                rng.shuffle(cards)
                for o in cards:
                    cls = o.identity if o.face_up else "back"
                    floor = min(have[k] for k in CLASS_KEYS)
                    if have[cls] >= quota or have[cls] >= floor + slack or total >= n:
                        continue
                    crop, sigma, corners = crop_card(f.image, o, rng, opt, jpeg)
                    aspect, turned = quad_turn(corners)
                    name = f"{split}_{sample.seed:010d}_{o.oid:03d}.jpg"
                    write_image(out / split / cls / name, crop, [cv2.IMWRITE_JPEG_QUALITY, opt.quality])
                    p = np.asarray(o.polygon)
                    card_px = float(min(np.linalg.norm(p[0] - p[1]), np.linalg.norm(p[1] - p[2])))
                    writer.writerow(
                        {
                            "split": split,
                            "cls": cls,
                            "file": f"{split}/{cls}/{name}",
                            "design": sample.design,
                            "table": sample.table,
                            "resolution": sample.resolution,
                            "card_px": round(card_px, 1),
                            "visible_share": round(o.visible_share, 3),
                            "quad_aspect": aspect,
                            "turned": int(turned),
                            "jitter": round(sigma, 4),
                            "jpeg": jpeg or "",
                            "seed": sample.seed,
                            "oid": o.oid,
                        }
                    )
                    mf.flush()  # the manifest keeps up with the files, even if the export is stopped
                    have[cls] += 1
                    total += 1
                    if progress:
                        progress(split, 1)
            result[split] = have
    (out / "classes.json").write_text(json.dumps(list(CLASS_KEYS)))
    return result
