"""Index-corner training sets from whole-card crop sets (``train corners``).

Each upright crop gives two samples: its top-left corner and the corner of the crop turned 180 degrees
(the card's second index), stretched to a square as the runtime does (``CardClassifier`` with
``view: corner``). Only ``train`` and ``val`` are derived: calibration and the held-out splits are
measured on the whole-card crops through the runtime, so both models are judged on the same images.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from monitor.perception.imageio import as_image
from monitor.perception.rectify import CORNER_SHARE, index_corner
from monitor.training.evaluate_cards import IMAGE_SUFFIXES

SPLITS = ("train", "val")


def derive_corner_set(src: Path, out: Path, size: int = 64, share: tuple[float, float] = CORNER_SHARE,
                      quality: int = 95) -> dict[str, int]:
    """Write ``out/{train,val}/CLASS/*.jpg`` (both index corners of every crop); returns counts."""
    counts: dict[str, int] = {}
    for split in SPLITS:
        d = src / split
        if not d.is_dir():
            raise FileNotFoundError(f"{d}: no {split}/ folder in the crop set {src}")
        files = sorted(f for f in d.glob("*/*") if f.suffix.lower() in IMAGE_SUFFIXES)
        n = 0
        for f in tqdm(files, desc=f"{split} corners", unit="crop"):
            img = cv2.imread(str(f), cv2.IMREAD_COLOR)
            if img is None:
                raise ValueError(f"cannot read crop {f}")
            dst = out / split / f.parent.name
            dst.mkdir(parents=True, exist_ok=True)
            for tag, view in (("a", as_image(img)), ("b", as_image(np.ascontiguousarray(img[::-1, ::-1])))):
                corner = cv2.resize(index_corner(view, share), (size, size), interpolation=cv2.INTER_LINEAR)
                cv2.imwrite(str(dst / f"{f.stem}_{tag}.jpg"), corner, [cv2.IMWRITE_JPEG_QUALITY, quality])
                n += 1
        counts[split] = n
    return counts
