"""Develop the ideal image into the camera's frame: light, lens, blur and sensor noise, strip by strip.

:func:`monitor.render.effects.apply_light`, the lens ``remap`` and :func:`~monitor.render.effects.
apply_sensor` each sweep the whole frame, eight to twelve passes that read and write 6 MB apiece at
1080p. This machine's memory is slow and shared by its two cores (one memory-bound OpenCV pass runs
1.08x faster with two processes than with one, a compute-bound loop 1.55x), so those passes cost a
third of a rendered frame and most of what a second render process should add. Here the same
OpenCV operations run on strips of rows small enough to stay in the core's cache (1 MB L2): every
pass after the first reads what the previous one just wrote. The result is bit for bit the
reference's (``tests/render/test_develop.py``); only the memory traffic changes.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
from numpy.typing import NDArray

from monitor.perception.imageio import as_image
from monitor.render.codec import h264_roundtrip, jpeg_roundtrip
from monitor.render.effects import Effects, _light_maps, _scaled_noise, gamma_lut, light_rows, shake_kernel

Image = NDArray[np.uint8]
LensMaps = tuple[NDArray[np.int16], NDArray[np.uint16]]

STRIP_ROWS = 32  # 32 x 1920 x 3 = 184 KB a buffer: the light's seven buffers fit in a 1 MB L2 cache


def _noise_strip(out: Image, pos: Image, neg: Image) -> None:
    cv2.add(out, pos, dst=out)
    cv2.subtract(out, neg, dst=out)


def _filtered(src: Image, dst: Image, fn: Callable[[Image], Image], margin: int, rows: int) -> None:
    """dst = fn(src) by strips, each filtered with ``margin`` real rows above and below it, so that
    only the frame's own top and bottom see the filter's border rule, as in one full-frame call."""
    h = src.shape[0]
    for y0 in range(0, h, rows):
        y1 = min(h, y0 + rows)
        a, b = max(0, y0 - margin), min(h, y1 + margin)
        dst[y0:y1] = fn(src[a:b])[y0 - a : y0 - a + (y1 - y0)]


def develop(
    ideal: Image,
    gloss: NDArray[np.uint8],
    e: Effects,
    lens: LensMaps | None = None,
    size: tuple[int, int] | None = None,
    rows: int = STRIP_ROWS,
) -> Image:
    """The camera's frame from the ideal image: ``apply_sensor(remap(apply_light(ideal)))``.

    ``gloss`` is the ideal image's glossy-card mask, ``lens`` the fixed-point maps from frame to ideal
    pixels (``cv2.convertMaps(..., CV_16SC2)``; None: no lens) and ``size`` the frame's (w, h). The
    ideal image is lit in place (it is the renderer's scratch canvas).
    """
    if ideal.dtype != np.uint8 or ideal.ndim != 3 or ideal.shape[2] != 3:
        raise ValueError(f"develop: the ideal image must be uint8 HxWx3, not {ideal.dtype} {ideal.shape}")
    ih, iw = ideal.shape[:2]
    w, h = size if size is not None else (iw, ih)
    if lens is None and (w, h) != (iw, ih):
        raise ValueError(f"develop: with no lens the frame is the ideal image's {iw}x{ih}, not {w}x{h}")
    if lens is not None and lens[0].shape[:2] != (h, w):
        raise ValueError(f"develop: lens maps are {lens[0].shape[1]}x{lens[0].shape[0]}, the frame {w}x{h}")
    gain, glare = _light_maps(e, iw, ih)
    lut = gamma_lut(e.gamma)
    rng = np.random.default_rng(e.seed + 1 if e.frame == 0 else [e.seed, e.frame])
    pos = neg = None
    if e.noise > 0:
        oy, ox = int(rng.integers(64)), int(rng.integers(64))
        pos, neg = _scaled_noise(h, w, e.noise, oy, ox)
    blur: list[tuple[Callable[[Image], Image], int]] = []
    if e.defocus > 0.05:
        sigma = e.defocus
        # OpenCV's kernel for uint8 reaches round(3 sigma) rows each way
        blur.append((lambda s: as_image(cv2.GaussianBlur(s, (0, 0), sigma)), int(np.ceil(3 * sigma)) + 1))
    if e.motion_blur is not None:
        k = shake_kernel(*e.motion_blur)
        blur.append((lambda s: as_image(cv2.filter2D(s, -1, k)), k.shape[0] // 2 + 1))
    noise_now = pos is not None and not blur  # noise is the sensor's: after any blur

    def lit(y0: int, y1: int, out: Image) -> None:
        g = None if glare is None else glare[y0:y1]
        light_rows(ideal[y0:y1], gain[y0:y1], g, gloss[y0:y1], e, lut, out)

    if lens is None:
        out = np.empty_like(ideal)
        for y0 in range(0, h, rows):
            y1 = min(h, y0 + rows)
            lit(y0, y1, out[y0:y1])
            if noise_now:
                assert pos is not None and neg is not None
                _noise_strip(out[y0:y1], pos[y0:y1], neg[y0:y1])
    else:
        for y0 in range(0, ih, rows):  # light falls on the table: lit in place, before the lens
            lit(y0, min(ih, y0 + rows), ideal[y0 : min(ih, y0 + rows)])
        out = np.empty((h, w, 3), np.uint8)
        mx, my = lens
        for y0 in range(0, h, rows):
            y1 = min(h, y0 + rows)
            cv2.remap(
                ideal, mx[y0:y1], my[y0:y1], cv2.INTER_LINEAR, dst=out[y0:y1], borderMode=cv2.BORDER_REPLICATE
            )
            if noise_now:
                assert pos is not None and neg is not None
                _noise_strip(out[y0:y1], pos[y0:y1], neg[y0:y1])
    for fn, margin in blur:
        src, out = out, np.empty_like(out)
        _filtered(src, out, fn, margin, rows * 4)
    if blur and pos is not None and neg is not None:
        for y0 in range(0, h, rows):
            _noise_strip(out[y0 : y0 + rows], pos[y0 : y0 + rows], neg[y0 : y0 + rows])
    if e.h264_crf is not None:
        out = h264_roundtrip(out, e.h264_crf)
    if e.jpeg_quality is not None:
        out = jpeg_roundtrip(out, e.jpeg_quality)
    return out
