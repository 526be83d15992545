"""Identity-classifier crops rendered one card at a time: hundreds per second instead of a handful.

Cutting crops from whole rendered tables (:mod:`monitor.render.crops`) is faithful but slow: a
1080p frame costs ~0.1 s and gives a few crops of the classes still needed. Teaching identity
across hundreds of generated decks needs tens of thousands of crops, so this module renders only
the patch of table around one card: the card warped by a random perspective at the size a camera
sees it (short side 34-140 px: a 1080p table view to a 4K close-up), on felt of a training table
colour or on other cards (piles, fanned hands), partly hidden now and then by a hand, chips or
another card, then the same light and sensor effects the scene renderer applies (exposure, white
balance, uneven light, glare, defocus, motion blur, noise, JPEG), and finally the runtime's own cut
(:func:`monitor.perception.rectify.rectify_card` from jittered corners).

Held-out table colours (``TEST_STYLES``) never appear here, so the test splits stay unseen.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

from monitor.perception.imageio import as_image
from monitor.perception.labels import NOT_ONE_CARD
from monitor.perception.rectify import rectify_card
from monitor.render.card_art import TEX_H, TEX_W
from monitor.render.crops import jitter_corners
from monitor.render.datasets import write_image
from monitor.render.deck import BACK, CLASS_KEYS, CardDesign, load_design
from monitor.render.table_art import TABLE_STYLES, TRAIN_STYLES

Image = NDArray[np.uint8]
F64 = NDArray[np.float64]
FIELDS = ("split", "cls", "file", "design", "card_px", "jitter", "jpeg", "occluded", "seed")


@dataclass
class PatchOptions:
    size: int = 96
    short_px: tuple[float, float] = (34.0, 140.0)  # apparent card short side, px
    jitter: tuple[float, float] = (0.01, 0.035)
    occlude_p: float = 0.3
    neighbour_p: float = 0.45
    jpeg_p: float = 0.85
    quality: int = 90
    # Off by default so that a seed of earlier datasets still gives the same crops. What the held-out
    # crops still misread (models/MODEL_CARD.md) is mostly a card half covered by a neighbour's face, its pips
    # inside the crop, and a card smeared by a moving hand or camera.
    face_cover_p: float = 0.0  # of the occluding cards, the share that are real faces, not blank
    shake_p: float = 0.08  # chance of a motion smear
    shake_px: tuple[float, float] = (1.5, 5.0)  # its length, px at the patch's scale


def _randn(shape: tuple[int, ...], sigma: float, rng: np.random.Generator) -> NDArray[np.float32]:
    """Gaussian noise via OpenCV (several times faster than numpy for an image), seeded from ``rng``."""
    cv2.setRNGSeed(int(rng.integers(2**31)))
    out = np.empty(shape, np.float32)
    cv2.randn(out, 0.0, float(sigma))  # type: ignore[call-overload]  # stubs want arrays; scalars are valid
    return out


def _felt(rng: np.random.Generator, h: int, w: int) -> Image:
    style = TABLE_STYLES[str(rng.choice(TRAIN_STYLES))]
    base = np.array(style.felt, np.float32) * rng.uniform(0.8, 1.2) + rng.normal(0, 8, 3)
    small = rng.normal(0, rng.uniform(2, 8), (max(1, h // 6), max(1, w // 6))).astype(np.float32)
    tex = cast(NDArray[np.float32], cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR))
    tex += _randn((h, w), 2.0, rng)
    img = base.astype(np.float32) + tex[..., None]
    if rng.random() < 0.3:  # a printed line of the layout crossing the patch
        p0 = (int(rng.integers(0, w)), 0)
        p1 = (int(rng.integers(0, w)), h - 1)
        cv2.line(img, p0, p1, tuple(float(c) for c in style.line), int(rng.integers(1, 4)), cv2.LINE_AA)
    return img.clip(0, 255).astype(np.uint8)


def _card_quad(rng: np.random.Generator, cx: float, cy: float, short: float) -> F64:
    """Image corners of a card (TL, TR, BR, BL of the texture) with rotation and mild perspective."""
    long = short * 88.0 / 63.0
    ang = rng.uniform(0, 2 * math.pi)
    c, s = math.cos(ang), math.sin(ang)
    pts = np.array(
        [[-short / 2, -long / 2], [short / 2, -long / 2], [short / 2, long / 2], [-short / 2, long / 2]]
    )
    # an oblique camera foreshortens along one direction and tapers the far edge
    fore = rng.uniform(0.75, 1.0) if rng.random() < 0.35 else 1.0
    taper = rng.uniform(-0.08, 0.08) if rng.random() < 0.35 else 0.0
    pts[:, 1] *= fore
    pts[:, 0] *= 1 + taper * pts[:, 1] / (long / 2)
    pts = pts @ np.array([[c, s], [-s, c]])
    pts += rng.normal(0, short * 0.01, pts.shape)
    return cast(F64, pts + np.array([cx, cy]))


def _paste(img: Image, tex: Image, quad: F64, shade: float) -> None:
    """Composite a BGRA texture onto ``img`` at ``quad`` (premultiplied alpha, linear filtering)."""
    h, w = img.shape[:2]
    # pick a mip-like source size near the target to avoid aliasing the thin index strokes
    target_long = float(np.linalg.norm(quad[0] - quad[3]))
    scale = min(1.0, 2.0 * target_long / TEX_H)
    src = (
        tex
        if scale >= 0.99
        else cv2.resize(
            tex, (max(8, round(TEX_W * scale)), max(8, round(TEX_H * scale))), interpolation=cv2.INTER_AREA
        )
    )
    sh, sw = src.shape[:2]
    m = cv2.getPerspectiveTransform(
        np.array([[0, 0], [sw - 1, 0], [sw - 1, sh - 1], [0, sh - 1]], np.float32), quad.astype(np.float32)
    )
    warped = cv2.warpPerspective(src, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    a = warped[..., 3:4].astype(np.float32) / 255
    rgb = warped[..., :3].astype(np.float32) * shade
    img[:] = (img.astype(np.float32) * (1 - a) + rgb * a).clip(0, 255).astype(np.uint8)


def _paste_any_card(rng: np.random.Generator, img: Image, design: CardDesign, quad: F64) -> None:
    """Some card of ``design``, any way up, at ``quad``: a neighbour under the crop's card or over it."""
    k = str(rng.choice(CLASS_KEYS))
    _paste(img, design.mips(k, int(rng.integers(4)))[0], quad, float(rng.uniform(0.85, 1.0)))


def _occlude(
    rng: np.random.Generator, img: Image, quad: F64, short: float, design: CardDesign, face_cover_p: float,
    cards: bool = True,
) -> str:
    """Hide part of the card: a hand/arm, a chip stack or (``cards``) another card's corner (a face of
    the same deck ``face_cover_p`` of the time, else blank). Returns what."""
    centre = quad.mean(axis=0)
    edge = quad[int(rng.integers(4))]
    toward = centre + (edge - centre) * rng.uniform(0.55, 1.1)
    kind = (str(rng.choice(["hand", "chips", "card"], p=[0.45, 0.3, 0.25])) if cards
            else str(rng.choice(["hand", "chips"], p=[0.6, 0.4])))
    if kind == "hand":
        skin = np.array([rng.uniform(60, 190), rng.uniform(90, 200), rng.uniform(130, 240)]) * rng.uniform(
            0.8, 1.1
        )
        ax = (int(short * rng.uniform(0.35, 0.7)), int(short * rng.uniform(0.6, 1.2)))
        cv2.ellipse(
            img,
            (int(toward[0]), int(toward[1])),
            ax,
            float(rng.uniform(0, 180)),
            0,
            360,
            tuple(float(c) for c in skin.clip(0, 255)),
            -1,
            cv2.LINE_AA,
        )
    elif kind == "chips":
        col = tuple(float(c) for c in rng.integers(20, 240, 3))
        r = int(short * rng.uniform(0.3, 0.5))
        cv2.circle(img, (int(toward[0]), int(toward[1])), r, col, -1, cv2.LINE_AA)
        cv2.circle(
            img, (int(toward[0]), int(toward[1])), int(r * 0.7), (235, 235, 235), max(1, r // 6), cv2.LINE_AA
        )
    else:
        other = _card_quad(rng, float(toward[0]), float(toward[1]), short)
        # drawn only when asked, so that the default draws what earlier seeds drew
        if face_cover_p > 0 and rng.random() < face_cover_p:
            _paste_any_card(rng, img, design, other)
            return "card_face"
        cv2.fillConvexPoly(img, other.astype(np.int32), (int(rng.integers(200, 250)),) * 3, cv2.LINE_AA)
    return kind


def _light_and_sensor(rng: np.random.Generator, img: Image, opt: PatchOptions) -> tuple[Image, int | None]:
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    gain = math.exp(rng.normal(0, 0.18)) * np.exp(rng.normal(0, 0.045, 3))
    f *= gain.astype(np.float32)
    xx = np.arange(w, dtype=np.float32)[None, :]
    yy = np.arange(h, dtype=np.float32)[:, None]
    if rng.random() < 0.5:  # uneven light across the patch
        gx, gy = rng.normal(0, 0.15, 2)
        f *= (1 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5))[..., None]
    if rng.random() < 0.25:  # a glare spot from the ceiling lights on the glossy card
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(0.15, 0.6) * max(w, h)
        spot = np.exp(-((xx - cx) ** 2) / (2 * r * r)) * np.exp(-((yy - cy) ** 2) / (2 * r * r))
        f += (rng.uniform(20, 110) * spot)[..., None]
    gamma = math.exp(rng.normal(0, 0.08))
    lut = (255.0 * (np.arange(256) / 255.0) ** gamma).clip(0, 255).astype(np.uint8)
    out = as_image(cv2.LUT(f.clip(0, 255).astype(np.uint8), lut))
    sigma = rng.uniform(0, 1.1) if rng.random() < 0.8 else rng.uniform(1.1, 1.8)
    if sigma > 0.3:
        out = as_image(cv2.GaussianBlur(out, (0, 0), sigma))
    if rng.random() < opt.shake_p:
        length, ang = rng.uniform(*opt.shake_px), rng.uniform(0, 180)
        m = max(4, math.ceil(length / 2) + 1)  # the kernel's half width (9x9 up to 5 px, as before)
        k = np.zeros((2 * m + 1, 2 * m + 1), np.float32)
        c, s = math.cos(math.radians(ang)), math.sin(math.radians(ang))
        cv2.line(
            k,
            (int(m - c * length / 2), int(m - s * length / 2)),
            (int(m + c * length / 2), int(m + s * length / 2)),
            1.0,
            1,
            cv2.LINE_AA,
        )
        out = as_image(cv2.filter2D(out, -1, k / max(k.sum(), 1e-6)))
    noise = rng.uniform(0, 6)
    if noise > 0.5:
        out = (out.astype(np.float32) + _randn(out.shape, noise, rng)).clip(0, 255).astype(np.uint8)
    q = int(rng.integers(55, 96)) if rng.random() < 0.85 else None
    if q is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        if ok:
            out = as_image(cv2.imdecode(buf, cv2.IMREAD_COLOR))
    return out, q


def render_patch(
    rng: np.random.Generator, design: CardDesign, key: str, opt: PatchOptions
) -> tuple[Image, dict[str, object]]:
    """One rectified crop of card ``key`` ('back' for a face-down card) of ``design``."""
    short = float(math.exp(rng.uniform(math.log(opt.short_px[0]), math.log(opt.short_px[1]))))
    side = int(short * 88 / 63 * 1.45) // 8 * 8 + 16
    img = _felt(rng, side, side)
    c = side / 2 + rng.normal(0, short * 0.05, 2)
    if rng.random() < opt.neighbour_p:  # cards under or beside it: a pile, a fanned hand
        for _ in range(int(rng.integers(1, 4))):
            nq = _card_quad(
                rng, float(c[0] + rng.normal(0, short * 0.6)), float(c[1] + rng.normal(0, short * 0.6)), short
            )
            _paste_any_card(rng, img, design, nq)
    quad = _card_quad(rng, float(c[0]), float(c[1]), short)
    variants = design.variants.get(key, 1)
    _paste(img, design.mips(key, int(rng.integers(variants)))[0], quad, float(rng.uniform(0.85, 1.02)))
    occluded = (_occlude(rng, img, quad, short, design, opt.face_cover_p)
                if rng.random() < opt.occlude_p else "")
    img, q = _light_and_sensor(rng, img, opt)
    corners, sigma = jitter_corners(quad, rng, opt.jitter)
    crop = rectify_card(img, corners, opt.size)
    if rng.random() < 0.5:
        crop = np.ascontiguousarray(crop[::-1, ::-1])
    return crop, {
        "card_px": round(short, 1),
        "jitter": round(sigma, 4),
        "jpeg": q or "",
        "occluded": occluded,
    }


# What a card box holds when it is not one card (``render_not_one_card``): two cards boxed as one
# (lying one over the other, or side by side), a card-sized box lying across two cards (a merged box's
# candidate), an empty box painted on the layout, felt under a chip stack or a hand. The card reader
# names the first kinds as a third card or the joker, and the painted box as a back (held-out whole
# frames, models/MODEL_CARD.md): crops for a reader class that says "not one card".
NOT_ONE_CARD_KINDS = ("overlap", "across", "side_by_side", "painted_box", "bare")
NOT_ONE_CARD_P = (0.35, 0.25, 0.15, 0.15, 0.1)


def _face_key(rng: np.random.Generator) -> str:
    return str(rng.choice([k for k in CLASS_KEYS if k != BACK]))


def box_over(quads: Sequence[F64]) -> F64:
    """The smallest rotated rectangle over the quads' corners: the one box a detector draws over both."""
    pts = np.concatenate([np.asarray(q, np.float32) for q in quads])
    return cast(F64, cv2.boxPoints(cv2.minAreaRect(pts)).astype(np.float64))


def render_not_one_card(
    rng: np.random.Generator, design: CardDesign, opt: PatchOptions, kind: str | None = None
) -> tuple[Image, dict[str, object]]:
    """One rectified crop of a box that holds no single card (``NOT_ONE_CARD_KINDS``), cut as the
    runtime cuts a card's box."""
    kind = kind or str(rng.choice(NOT_ONE_CARD_KINDS, p=NOT_ONE_CARD_P))
    short = float(math.exp(rng.uniform(math.log(opt.short_px[0]), math.log(opt.short_px[1]))))
    long_ = short * 88 / 63
    side = int(long_ * 2.6) // 8 * 8 + 16
    img = _felt(rng, side, side)
    c = np.array([side / 2, side / 2]) + rng.normal(0, short * 0.05, 2)
    shade = float(rng.uniform(0.85, 1.02))
    if kind in ("overlap", "across", "side_by_side"):
        a = _card_quad(rng, float(c[0]), float(c[1]), short)
        if kind == "side_by_side":  # touching along a long side, or end to end, a little askew
            axis = (a[1] - a[0]) if rng.random() < 0.7 else (a[3] - a[0])
            shift = axis * rng.uniform(1.0, 1.15) + rng.normal(0, short * 0.05, 2)
        else:  # the second card lies over the first, offset by a share of a card either way
            ang = rng.uniform(0, 2 * math.pi)
            shift = np.array([math.cos(ang), math.sin(ang)]) * short * rng.uniform(0.3, 0.9)
        b = _card_quad(rng, float(c[0] + shift[0]), float(c[1] + shift[1]), short)
        keys = [_face_key(rng), _face_key(rng)]
        if rng.random() < 0.2:  # a back over a face, or a face over a back
            keys[int(rng.integers(2))] = BACK
        for quad, key in ((a, keys[0]), (b, keys[1])):
            variants = design.variants.get(key, 1)
            _paste(img, design.mips(key, int(rng.integers(variants)))[0], quad, shade)
        if kind == "across":  # a card-sized box half on each card
            box = _card_quad(rng, float(c[0] + shift[0] / 2), float(c[1] + shift[1] / 2), short)
        else:
            box = box_over([a, b])
        what = f"{kind}:{keys[0]}+{keys[1]}"
    else:
        box = _card_quad(rng, float(c[0]), float(c[1]), short * rng.uniform(0.9, 1.2))
        if kind == "painted_box":  # the layout's empty betting box, in its line colour
            style = TABLE_STYLES[str(rng.choice(TRAIN_STYLES))]
            grow = box.mean(axis=0) + (box - box.mean(axis=0)) * rng.uniform(0.8, 1.0)
            cv2.polylines(img, [np.round(grow).astype(np.int32)], True,
                          tuple(float(v) for v in style.line), int(rng.integers(1, 4)), cv2.LINE_AA)
        else:  # felt with a chip stack or a hand on it (no blank card: a pale back looks like one)
            _occlude(rng, img, box, short, design, 0.0, cards=False)
        what = kind
    img, q = _light_and_sensor(rng, img, opt)
    corners, sigma = jitter_corners(box, rng, opt.jitter)
    crop = rectify_card(img, corners, opt.size)
    if rng.random() < 0.5:
        crop = np.ascontiguousarray(crop[::-1, ::-1])
    return crop, {"card_px": round(short, 1), "jitter": round(sigma, 4), "jpeg": q or "", "occluded": what}


def export_patches(
    out: Path,
    split: str,
    n: int,
    designs: Sequence[str],
    seed: int,
    opt: PatchOptions | None = None,
    progress: Callable[[int], None] | None = None,
    per_design: int = 2 * len(CLASS_KEYS),
    classes: Sequence[str] = CLASS_KEYS,
) -> int:
    """Write ``n`` crops to ``OUT/<split>/<class>/``, the ``classes`` in turn (balanced by construction):
    the 54 card classes, or ``NOT_ONE_CARD`` (boxes holding no single card, ``render_not_one_card``).

    A design is kept for ``per_design`` crops in a row: its textures are drawn once and reused (a
    generated deck costs ~2 s to draw), while hundreds of decks still pass through a dataset."""
    opt = opt or PatchOptions()
    bad = [k for k in classes if k not in CLASS_KEYS and k != NOT_ONE_CARD]
    if bad or not classes:
        raise ValueError(f"patch classes must be card classes or {NOT_ONE_CARD!r}, got {list(classes)}")
    rng = np.random.default_rng([seed, 0xC0])
    for k in classes:
        (out / split / k).mkdir(parents=True, exist_ok=True)
    manifest = out / f"manifest_patches_{split}_{seed}.csv"
    new = not manifest.exists()
    with manifest.open("a", newline="") as mf:
        writer = csv.DictWriter(mf, fieldnames=FIELDS)
        if new:
            writer.writeheader()
        dname = str(designs[int(rng.integers(len(designs)))])
        for i in range(n):
            key = classes[i % len(classes)]
            if i % per_design == 0:
                dname = str(designs[int(rng.integers(len(designs)))])
            crop, info = (render_not_one_card(rng, load_design(dname), opt) if key == NOT_ONE_CARD
                          else render_patch(rng, load_design(dname), key, opt))
            name = f"{split}_p{seed}_{i:07d}.jpg"
            write_image(out / split / key / name, crop, [cv2.IMWRITE_JPEG_QUALITY, opt.quality])
            writer.writerow(
                {
                    "split": split,
                    "cls": key,
                    "file": f"{split}/{key}/{name}",
                    "design": dname,
                    "seed": seed,
                    **info,
                }
            )
            if progress:
                progress(1)
    return n


__all__ = ["BACK", "NOT_ONE_CARD", "PatchOptions", "export_patches", "render_not_one_card", "render_patch"]
