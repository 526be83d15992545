"""A contact sheet: a grid of picture crops, each with a caption (every missed or misnamed card)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from monitor.perception.imageio import as_image

TILE = 150  # px, a tile's side
CAPTION_PX = 34
PER_SHEET = 120  # tiles per sheet image; more spill into numbered sheets


@dataclass(frozen=True, slots=True)
class Tile:
    image: Path
    box: tuple[float, float, float, float]  # the crop's box in the image (x1, y1, x2, y2)
    lines: tuple[str, ...]  # caption, one or two short lines
    colour: tuple[int, int, int] = (0, 0, 255)  # BGR of the box drawn on the crop


def _tile(img: npt.NDArray[np.uint8], t: Tile) -> npt.NDArray[np.uint8]:
    h, w = img.shape[:2]
    x1, y1, x2, y2 = t.box
    m = 0.15 * max(x2 - x1, y2 - y1)
    cx1, cy1 = max(0, int(x1 - m)), max(0, int(y1 - m))
    cx2, cy2 = min(w, math.ceil(x2 + m)), min(h, math.ceil(y2 + m))
    crop: npt.NDArray[np.uint8] = img[cy1:cy2, cx1:cx2].copy()
    if crop.size == 0:
        crop = np.zeros((8, 8, 3), np.uint8)
    cv2.rectangle(crop, (int(x1 - cx1), int(y1 - cy1)), (int(x2 - cx1), int(y2 - cy1)), t.colour, 2)
    s = (TILE - CAPTION_PX) / max(crop.shape[:2])
    crop = as_image(cv2.resize(crop, (max(1, round(crop.shape[1] * s)), max(1, round(crop.shape[0] * s))),
                               interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR))
    out = np.full((TILE, TILE, 3), 255, np.uint8)
    oy, ox = 0, (TILE - crop.shape[1]) // 2
    out[oy:oy + crop.shape[0], ox:ox + crop.shape[1]] = crop
    for k, line in enumerate(t.lines[:2]):
        cv2.putText(out, line[:24], (3, TILE - CAPTION_PX + 13 + 15 * k), cv2.FONT_HERSHEY_SIMPLEX, 0.42,
                    (0, 0, 0), 1, cv2.LINE_AA)
    return out


def write_sheets(tiles: Sequence[Tile], out: Path, title: str, columns: int = 12) -> list[Path]:
    """Write ``out`` (and ``out``-2, -3... past ``PER_SHEET`` tiles); returns the files written."""
    out.parent.mkdir(parents=True, exist_ok=True)
    if not tiles:
        blank = np.full((60, 600, 3), 255, np.uint8)
        cv2.putText(blank, f"{title}: none", (8, 38), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 1,
                    cv2.LINE_AA)
        cv2.imwrite(str(out), blank)
        return [out]
    cache: dict[Path, npt.NDArray[np.uint8]] = {}
    written: list[Path] = []
    for k in range(0, len(tiles), PER_SHEET):
        chunk = tiles[k:k + PER_SHEET]
        rows = math.ceil(len(chunk) / columns)
        sheet = np.full((40 + rows * TILE, columns * TILE, 3), 255, np.uint8)
        pages = math.ceil(len(tiles) / PER_SHEET)
        page = f" ({k // PER_SHEET + 1}/{pages})" if pages > 1 else ""
        cv2.putText(sheet, f"{title}{page}", (8, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 2,
                    cv2.LINE_AA)
        for n, t in enumerate(chunk):
            if t.image not in cache:
                img = cv2.imread(str(t.image), cv2.IMREAD_COLOR)
                cache[t.image] = as_image(img) if img is not None else np.zeros((8, 8, 3), np.uint8)
            r, c = divmod(n, columns)
            sheet[40 + r * TILE:40 + (r + 1) * TILE, c * TILE:(c + 1) * TILE] = _tile(cache[t.image], t)
        path = out if k == 0 else out.with_name(f"{out.stem}-{k // PER_SHEET + 1}{out.suffix}")
        cv2.imwrite(str(path), sheet)
        written.append(path)
    return written
