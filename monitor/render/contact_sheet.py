"""A contact sheet of sample renders for the docs: frames, a ground-truth overlay, designs, crops."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from monitor.perception.imageio import as_image
from monitor.render.camera import Camera, default_camera
from monitor.render.crops import CropOptions, crop_card
from monitor.render.deck import load_design
from monitor.render.effects import Effects
from monitor.render.random_scene import random_camera, random_scene
from monitor.render.renderer import Frame, Renderer

Image = NDArray[np.uint8]
COLORS = {
    "card_face_up": (80, 255, 80),
    "card_face_down": (255, 160, 60),
    "pile": (0, 220, 255),
    "chip": (255, 80, 255),
    "dice": (60, 140, 255),
    "arm": (200, 200, 200),
}


def _label(img: Image, text: str) -> Image:
    out = img.copy()
    cv2.rectangle(out, (0, 0), (min(out.shape[1], 10 + 9 * len(text)), 22), (0, 0, 0), -1)
    cv2.putText(out, text, (5, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
    return out


def overlay_truth(frame: Frame) -> Image:
    img = frame.image.copy()
    for o in frame.objects:
        if o.kind == "card" and o.pile is not None:
            continue
        p = np.round(np.asarray(o.polygon) * 16).astype(np.int32)
        cv2.polylines(img, [p], True, COLORS.get(o.label, (255, 255, 255)), 2, cv2.LINE_AA, shift=4)
        if o.kind == "card" and o.face_up and o.visible_share > 0.5:
            x, y = np.asarray(o.polygon).min(axis=0)
            cv2.putText(
                img,
                o.identity,
                (int(x), int(y) - 2),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.5,
                (255, 255, 255),
                2,
                cv2.LINE_AA,
            )
            cv2.putText(
                img,
                o.identity,
                (int(x), int(y) - 2),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.5,
                (0, 0, 0),
                1,
                cv2.LINE_AA,
            )
    return img


def make_sheet(out: Path, seed: int = 0, tile_w: int = 640) -> Path:
    r = Renderer()
    np.random.default_rng(seed)
    tile_h = tile_w * 9 // 16
    specs: list[tuple[str, str, str, str, Camera | None]] = [
        ("showdown", "classic", "green", "overhead, showdown, classic deck", default_camera()),
        ("deal", "jumbo", "blue", "oblique, the deal, jumbo deck", None),
        ("set", "classic", "purple", "held-out felt, hands set, arms", None),
        ("scatter", "jumbo", "red", "4K close-up, exposed cards", None),
        ("delivered", "classic", "teal", "held-out felt, piles delivered", None),
    ]
    tiles = []
    gt_frame: Frame | None = None
    for i, (phase, design, table, caption, cam) in enumerate(specs):
        r_ = np.random.default_rng([seed, i])
        scene = random_scene(r_, design, table, 0, phase=phase, arms=0.8 if phase == "set" else 0.3)
        if cam is None:
            res = (3840, 2160) if "4K" in caption else (1920, 1080)
            cam = random_camera(r_, res, oblique=1.0 if "oblique" in caption else 0.0)
        f = r.render(scene, cam, Effects.random(r_))
        if gt_frame is None:
            gt_frame = f
        tiles.append(
            _label(as_image(cv2.resize(f.image, (tile_w, tile_h), interpolation=cv2.INTER_AREA)), caption)
        )
    assert gt_frame is not None
    # ground truth overlay on a close view of the first frame's centre
    ov = overlay_truth(gt_frame)
    h, w = ov.shape[:2]
    crop = ov[h // 2 - h // 4 - 120 : h // 2 + h // 4 - 120, w // 4 : 3 * w // 4]
    tiles.append(
        _label(
            as_image(cv2.resize(crop, (tile_w, tile_h), interpolation=cv2.INTER_AREA)),
            "ground truth: polygons, identities",
        )
    )
    grid = np.vstack([np.hstack(tiles[0:3]), np.hstack(tiles[3:6])])
    # the two drawn designs
    keys = ["As", "Kh", "Qs", "Jd", "Tc", "9h", "7s", "6d", "Jk", "back"]
    strip = []
    for name in ("classic", "jumbo"):
        d = load_design(name)
        for k in keys:
            t = d.texture(k)
            a = t[..., 3:4].astype(np.float32) / 255
            im = (t[..., :3] * a + np.array((40, 90, 30), np.float32) * (1 - a)).astype(np.uint8)
            strip.append(
                cv2.resize(
                    im,
                    (grid.shape[1] // 20, int(grid.shape[1] // 20 * 88 / 63)),
                    interpolation=cv2.INTER_AREA,
                )
            )
    strip_img = np.hstack(strip)
    strip_img = cv2.resize(strip_img, (grid.shape[1], strip_img.shape[0]))
    # rectified crops as the identity classifier sees them (96 x 96, from full-resolution frames)
    crops = []
    opt = CropOptions()
    for j in range(6):
        r_ = np.random.default_rng([seed, 100 + j])
        scene = random_scene(
            r_, ("classic", "jumbo")[j % 2], ("green", "red", "grey")[j % 3], 0, phase="showdown"
        )
        f = r.render(scene, random_camera(r_, (1920, 1080)), Effects.random(r_))
        hh, ww = f.image.shape[:2]
        for o in f.objects:
            p = np.asarray(o.polygon)
            if (
                o.kind == "card"
                and o.visible_share > 0.7
                and p.min() > 2
                and p[:, 0].max() < ww - 2
                and p[:, 1].max() < hh - 2
            ):
                crops.append(crop_card(f.image, o, r_, opt, int(r_.integers(60, 96)))[0])
            if len(crops) >= 20 * (j + 1):
                break
    n = grid.shape[1] // 96
    crops = crops[: 2 * n] + [np.zeros((96, 96, 3), np.uint8)] * max(0, 2 * n - len(crops))
    crow = np.vstack([np.hstack(crops[:n]), np.hstack(crops[n : 2 * n])])
    crow = as_image(cv2.copyMakeBorder(crow, 0, 0, 0, grid.shape[1] - crow.shape[1], cv2.BORDER_CONSTANT))
    sheet = np.vstack([grid, strip_img, _label(crow, "identity crops 96 x 96 (jittered corners, JPEG)")])
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), sheet, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return out


def make_codec_strip(out: Path, seed: int = 0) -> Path:
    """One card region of a 1080p overhead frame as the camera gives it: uncompressed, JPEG q60,
    H.264 CRF 28 and CRF 38 (real round trips of the whole frame), enlarged 3x without smoothing."""
    from monitor.render.codec import h264_roundtrip, jpeg_roundtrip

    rng = np.random.default_rng(seed)
    cam = default_camera()
    scene = random_scene(rng, "classic", "green", 0, phase="showdown", arms=0.0)
    img = Renderer().render(scene, cam, Effects(noise=2.0, vignette=0.1, seed=seed)).image
    ups = [c for c in scene.cards() if c.face_up] or scene.cards()
    u, v = cam.project(np.array([[ups[0].x, ups[0].y, ups[0].z]]))[0].astype(int)
    x0 = int(np.clip(u - 80, 0, img.shape[1] - 160))
    y0 = int(np.clip(v - 55, 0, img.shape[0] - 110))
    panels = []
    for name, coded in (
        ("uncompressed", img),
        ("JPEG q60", jpeg_roundtrip(img, 60)),
        ("H.264 CRF 28", h264_roundtrip(img, 28)),
        ("H.264 CRF 38", h264_roundtrip(img, 38)),
    ):
        crop = coded[y0 : y0 + 110, x0 : x0 + 160]
        panels.append(_label(as_image(cv2.resize(crop, (480, 330), interpolation=cv2.INTER_NEAREST)), name))
    strip = np.hstack(panels)
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), strip, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return out
