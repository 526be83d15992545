"""Reading frames from image files with errors that say what was wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import cv2
import numpy as np
import numpy.typing as npt

from monitor.perception.errors import ImageReadError

Image = npt.NDArray[np.uint8]


def as_image(result: Any) -> Image:
    """An OpenCV result typed as the 8-bit image it is: OpenCV's stubs declare any numeric array."""
    return cast(Image, result)


def load_image(path: str | Path) -> Image:
    """Decode an image file to a BGR uint8 array (alpha dropped, grey expanded to 3 channels)."""
    p = Path(path)
    if not p.exists():
        raise ImageReadError(f"image file not found: {p}")
    if p.is_dir():
        raise ImageReadError(f"expected an image file, got a directory: {p}")
    data = p.read_bytes()
    if not data:
        raise ImageReadError(f"image file is empty: {p}")
    img = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        raise ImageReadError(
            f"cannot decode image file {p} ({len(data)} bytes, starts {data[:8]!r}): "
            "not a JPEG/PNG/BMP/TIFF/WebP image or the file is truncated"
        )
    return check_frame(img, str(p))


def check_frame(img: npt.NDArray[np.generic], where: str = "frame") -> Image:
    """Validate an in-memory frame: HxWx3 uint8 with a usable size."""
    if not isinstance(img, np.ndarray):
        raise ImageReadError(f"{where}: expected a numpy image array, got {type(img).__name__}")
    if img.dtype != np.uint8:
        raise ImageReadError(f"{where}: expected uint8 pixels, got {img.dtype}")
    if img.ndim == 2:
        img = as_image(cv2.cvtColor(as_image(img), cv2.COLOR_GRAY2BGR))
    if img.ndim != 3 or img.shape[2] not in (3, 4):
        raise ImageReadError(f"{where}: expected an HxWx3 BGR image, got shape {img.shape}")
    if img.shape[2] == 4:
        img = as_image(cv2.cvtColor(as_image(img), cv2.COLOR_BGRA2BGR))
    if img.shape[0] < 16 or img.shape[1] < 16:
        raise ImageReadError(f"{where}: image too small ({img.shape[1]}x{img.shape[0]} pixels)")
    return np.ascontiguousarray(img)
