"""Closer views of an oriented-box detector dataset: windows cut from its frames, labels moved with them.

A detector that looks closer (cards twice as long in its input as a table camera's frame shrunk to it)
learns from the rendered table frames cut into windows of ``1 / zoom`` their size and saved at their own
pixels, so the trainer enlarges them ``zoom`` times to its input. An object the window cuts keeps its
box, clipped to the window, when most of it (``min_inside`` of its area) lies inside; the rest are
dropped with the window's edge.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
from tqdm import tqdm

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png"}
SPLITS = ("train", "val")


class ZoomError(ValueError):
    """A dataset that cannot be zoomed: what is wrong and where."""


def parse_obb_line(line: str, where: str) -> tuple[int, npt.NDArray[np.float64]]:
    """``class x1 y1 ... x4 y4`` (normalised corners) of one ultralytics OBB label line."""
    parts = line.split()
    if len(parts) != 9:
        raise ZoomError(f"{where}: an OBB label line has a class and 8 coordinates, got {len(parts)} fields")
    try:
        cls = int(parts[0])
        quad = np.array([float(v) for v in parts[1:]], dtype=np.float64).reshape(4, 2)
    except ValueError as exc:
        raise ZoomError(f"{where}: {exc}") from None
    return cls, quad


def window_labels(quads: list[tuple[int, npt.NDArray[np.float64]]], win: tuple[int, int, int, int],
                  min_inside: float) -> list[str]:
    """Label lines (normalised to the window) of the pixel ``quads`` that lie mostly in ``win``."""
    x0, y0, x1, y1 = win
    rect = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float32)
    ww, wh = x1 - x0, y1 - y0
    lines = []
    for cls, q in quads:
        poly = q.astype(np.float32)
        area = abs(float(cv2.contourArea(poly)))
        if area <= 0:
            continue
        inter, _ = cv2.intersectConvexConvex(poly, rect)
        if inter / area < min_inside:
            continue
        c = (q - np.array([x0, y0])) / np.array([ww, wh])
        lines.append(f"{cls} " + " ".join(f"{v:.6f}" for v in np.clip(c, 0, 1).reshape(-1)) + "\n")
    return lines


def windows(w: int, h: int, zoom: float, n: int, rng: np.random.Generator) -> list[tuple[int, int, int, int]]:
    """``n`` random windows ``1 / zoom`` of a ``w`` x ``h`` frame (the same aspect)."""
    ww, wh = max(1, round(w / zoom)), max(1, round(h / zoom))
    out = []
    for _ in range(n):
        x0 = int(rng.integers(0, w - ww + 1))
        y0 = int(rng.integers(0, h - wh + 1))
        out.append((x0, y0, x0 + ww, y0 + wh))
    return out


def zoom_dataset(src: Path, out: Path, zoom: float = 2.0, crops: int = 2, seed: int = 0,
                 min_inside: float = 0.6, names: list[str] | None = None) -> dict[str, int]:
    """``out/images/SPLIT`` + ``out/labels/SPLIT`` (and ``out/obb.yaml``): ``crops`` windows of each frame
    of ``src``'s train and val splits (ultralytics OBB layout), each ``1 / zoom`` of its frame."""
    if zoom < 1:
        raise ZoomError(f"zoom must be 1 or more, got {zoom}")
    if not (src / "images").is_dir():
        raise ZoomError(f"{src}: no images/ folder (an ultralytics OBB dataset, as `render detect` writes)")
    rng = np.random.default_rng(seed)
    counts: dict[str, int] = {}
    for split in SPLITS:
        img_dir, lab_dir = src / "images" / split, src / "labels" / split
        if not img_dir.is_dir():
            continue
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
        n = 0
        for path in tqdm(sorted(p for p in img_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES),
                         desc=f"zoom {split}", unit="frame"):
            img = cv2.imread(str(path))
            if img is None:
                raise ZoomError(f"{path}: not a readable image")
            h, w = img.shape[:2]
            label = lab_dir / f"{path.stem}.txt"
            text = label.read_text() if label.is_file() else ""
            quads = []
            for k, line in enumerate(text.splitlines(), 1):
                if line.strip():
                    cls, q = parse_obb_line(line, f"{label}:{k}")
                    quads.append((cls, q * np.array([w, h])))
            for j, win in enumerate(windows(w, h, zoom, crops, rng)):
                x0, y0, x1, y1 = win
                name = f"{path.stem}_z{j}"
                cv2.imwrite(str(out / "images" / split / f"{name}.jpg"), img[y0:y1, x0:x1],
                            [cv2.IMWRITE_JPEG_QUALITY, 92])
                (out / "labels" / split / f"{name}.txt").write_text(
                    "".join(window_labels(quads, win, min_inside)))
                n += 1
        counts[split] = n
    if not counts:
        raise ZoomError(f"{src}: no {' or '.join(SPLITS)} split under images/")
    names = names or ["card_face_up", "card_face_down", "pile", "chip", "dice", "hand"]
    (out / "obb.yaml").write_text(
        f"path: {out.resolve()}\n" + "".join(f"{s}: images/{s}\n" for s in counts)
        + "names:\n" + "".join(f"  {i}: {c}\n" for i, c in enumerate(names)))
    return counts
