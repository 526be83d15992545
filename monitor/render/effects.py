"""Camera and lighting effects: exposure, white balance, vignetting and uneven light, glare on
glossy cards, defocus and motion blur, sensor noise, and H.264 and JPEG artifacts (real encode/decode
round trips, :mod:`monitor.render.codec`).

Effects are split in two passes because the lens sits between them: :func:`apply_light` works on
the ideal image (light falls on the table), :func:`apply_sensor` on the final, distorted image.
All work is done with OpenCV's vectorized kernels on uint8/float32 frames (no per-pixel Python).
These two functions are the reference: the renderer runs the same operations strip by strip
(:mod:`monitor.render.develop`), which gives the same pixels with a fraction of the memory traffic.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

from monitor.perception.imageio import as_image
from monitor.render.codec import h264_roundtrip, jpeg_roundtrip

Image = NDArray[np.uint8]


@dataclass
class Effects:
    exposure: float = 1.0
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)  # B, G, R gains
    gamma: float = 1.0
    vignette: float = 0.0  # brightness lost at the image corners, 0..0.6
    unevenness: float = 0.0  # large-scale light variation across the table, 0..0.3
    glare: list[tuple[float, float, float, float]] = field(default_factory=list)  # (u, v, radius, strength)
    glare_felt: float = 0.25  # how much the matte felt shows of a glare (cards show all of it)
    defocus: float = 0.0  # Gaussian sigma, px
    motion_blur: tuple[float, float] | None = None  # (length px, angle deg), camera shake over the frame
    noise: float = 0.0  # Gaussian sensor noise sigma in 8-bit levels (the same at every brightness)
    jpeg_quality: int | None = None  # JPEG round trip (a still grabbed and saved as JPEG)
    h264_crf: int | None = None  # H.264 round trip at this CRF (a camera's video stream), before JPEG
    seed: int = 0  # draws the uneven light and the noise
    frame: int = 0  # a video's frame number: fresh sensor noise each frame under the same light

    @staticmethod
    def none() -> Effects:
        return Effects()

    @staticmethod
    def random(rng: np.random.Generator, strength: float = 1.0, h264: float = 0.0) -> Effects:
        """Domain randomization: each effect drawn over a realistic range, scaled by ``strength``."""
        s = strength
        wb = tuple(float(x) for x in np.exp(rng.normal(0, 0.045 * s, 3)))
        glare = []
        for _ in range(int(rng.integers(0, 3))):
            glare.append(
                (
                    float(rng.uniform(0.1, 0.9)),
                    float(rng.uniform(0.1, 0.9)),
                    float(rng.uniform(0.05, 0.25)),
                    float(rng.uniform(20, 110) * s),
                )
            )
        blur = None
        if rng.random() < 0.1 * s:  # camera shake; hands moving are the scripted rounds' business
            blur = (float(rng.uniform(1.5, 5)), float(rng.uniform(0, 180)))
        return Effects(
            exposure=float(np.exp(rng.normal(0, 0.18 * s))),
            white_balance=(wb[0], wb[1], wb[2]),
            gamma=float(np.exp(rng.normal(0, 0.08 * s))),
            vignette=float(rng.uniform(0, 0.35 * s)),
            unevenness=float(rng.uniform(0, 0.18 * s)),
            glare=glare,
            glare_felt=float(rng.uniform(0.1, 0.4)),
            defocus=float(rng.choice([0.0, 0.0, rng.uniform(0.3, 0.9 * s)])),
            motion_blur=blur,
            # in steps of 0.25 levels (invisible): frames then share a few cached noise scalings
            noise=round(float(rng.uniform(0.5, 5.0 * s)) * 4) / 4,
            jpeg_quality=int(rng.integers(55, 96)) if rng.random() < 0.85 else None,
            seed=int(rng.integers(2**31)),
            # drawn only when asked for, so streams that never use H.264 keep their random sequence
            h264_crf=int(rng.integers(18, 36)) if h264 > 0 and rng.random() < h264 else None,
        )


def _gain_field(e: Effects, w: int, h: int, rng: np.random.Generator) -> NDArray[np.float32]:
    """Low-resolution (h/16) per-channel gain: exposure x white balance x vignette x uneven light."""
    gw, gh = max(2, w // 16), max(2, h // 16)
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    r2 = ((xx / (gw - 1) - 0.5) ** 2 + (yy / (gh - 1) - 0.5) ** 2) / 0.5
    g = (1.0 - e.vignette * r2).astype(np.float32)
    if e.unevenness > 0:
        small = rng.normal(0, 1, (3, 4)).astype(np.float32)
        g *= 1.0 + e.unevenness * cv2.resize(small, (gw, gh), interpolation=cv2.INTER_CUBIC) / 2
    gains = np.array(e.white_balance, np.float32) * e.exposure
    return np.asarray(g[..., None] * gains[None, None, :], np.float32)


_LIGHT: OrderedDict[tuple[object, ...], tuple[Image, Image | None]] = OrderedDict()


def _light_maps(e: Effects, w: int, h: int) -> tuple[Image, Image | None]:
    """Full-size fixed-point gain (3 channels, 128 = 1.0) and glare (1 channel) maps, cached by the
    light's parameters: a video keeps one light, so its frames reuse them."""
    key = (w, h, e.exposure, e.white_balance, e.vignette, e.unevenness, e.seed, tuple(e.glare))
    got = _LIGHT.get(key)
    if got is not None:
        _LIGHT.move_to_end(key)
        return got
    rng = np.random.default_rng(e.seed)
    g = _gain_field(e, w, h, rng)
    gain = as_image(
        cv2.resize(np.clip(g * 128, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
    )
    glare = None
    if e.glare:
        gw, gh = max(2, w // 8), max(2, h // 8)
        yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
        gl = np.zeros((gh, gw), np.float32)
        for u, v, rad, strength in e.glare:
            d2 = (xx / gw - u) ** 2 + (yy / gh - v) ** 2 * (h / w) ** 2
            gl += strength * np.exp(-d2 / (2 * rad * rad * 0.25))
        glare = as_image(
            cv2.resize(np.clip(gl, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
        )
    got = (gain, glare)
    _LIGHT[key] = got
    if len(_LIGHT) > 2:
        _LIGHT.popitem(last=False)
    return got


def apply_light(img: Image, gloss: NDArray[np.uint8] | None, e: Effects) -> Image:
    """Light on the scene (ideal image): gains, then glare (strong on glossy cards, weak on felt).

    Everything stays in saturating uint8 arithmetic (gain maps are fixed point, 128 = 1.0): a
    1080p frame costs a few milliseconds.
    """
    h, w = img.shape[:2]
    gain, glare = _light_maps(e, w, h)
    out = np.empty_like(img)
    light_rows(img, gain, glare, gloss, e, gamma_lut(e.gamma), out)
    return out


def light_rows(
    img: Image,
    gain: Image,
    glare: Image | None,
    gloss: NDArray[np.uint8] | None,
    e: Effects,
    lut: Image | None,
    out: Image,
) -> None:
    """The light on rows of the ideal image (the whole frame, or a strip of it, with the same rows
    of the maps): out = tone(img x gain + glare x surface). ``out`` may be ``img``."""
    cv2.multiply(img, gain, dst=out, scale=1.0 / 128)
    if glare is not None:
        if gloss is not None:
            # felt shows glare_felt of the sheen, cards (gloss 255) all of it
            k = cv2.addWeighted(gloss, (1 - e.glare_felt), gloss, 0, 255 * e.glare_felt)
            glf = cv2.multiply(glare, k, scale=1.0 / 255)
        else:
            glf = cv2.convertScaleAbs(glare, alpha=e.glare_felt)
        cv2.add(out, cv2.cvtColor(glf, cv2.COLOR_GRAY2BGR), dst=out)
    if lut is not None:
        cv2.LUT(out, lut, dst=out)


def gamma_lut(gamma: float) -> Image | None:
    """The tone curve as a 256-entry table, or None when it is (nearly) the identity."""
    if abs(gamma - 1.0) <= 1e-3:
        return None
    return (np.clip((np.arange(256) / 255.0) ** gamma, 0, 1) * 255 + 0.5).astype(np.uint8)


def shake_kernel(length: float, angle_deg: float) -> NDArray[np.float32]:
    """A camera shake's blur over the exposure: a line ``length`` px long at ``angle_deg``, normalised."""
    n = max(3, round(length) | 1)
    k = np.zeros((n, n), np.float32)
    c = n // 2
    dx, dy = math.cos(math.radians(angle_deg)) * c, math.sin(math.radians(angle_deg)) * c
    cv2.line(k, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1, cv2.LINE_AA)
    return cast(NDArray[np.float32], k / k.sum())


_NOISE: dict[tuple[int, int], tuple[Image, Image]] = {}
_NOISE_SCALE = 16  # stored noise is |N(0, 1)| x 16, split into its positive and negative parts
_SCALED: OrderedDict[tuple[int, int, float], tuple[Image, Image]] = OrderedDict()
_SCALED_SEEN: dict[tuple[int, int, float], int] = {}
_SCALED_BYTES = 280 * 2**20


def _noise_buffer(h: int, w: int) -> tuple[Image, Image]:
    """A frame-and-a-bit of Gaussian noise, made once per size, as two uint8 planes (the positive and
    the negative part) so adding it is two saturating uint8 operations; frames take it at random
    offsets."""
    key = (h, w)
    buf = _NOISE.get(key)
    if buf is None:
        rng = np.random.default_rng(12345)
        n = rng.normal(0, _NOISE_SCALE, (h + 64, w + 64, 3)).astype(np.float32)
        buf = (np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8))
        _NOISE[key] = buf
    return buf


def _scaled_noise(h: int, w: int, sigma: float, oy: int, ox: int) -> tuple[Image, Image]:
    """The noise planes at ``sigma`` for an h x w frame at offset (oy, ox). A video keeps its sigma,
    so the whole scaled buffer is cached and a frame only slices it."""
    key = (h, w, sigma)
    got = _SCALED.get(key)
    if got is not None:
        _SCALED.move_to_end(key)
        return got[0][oy : oy + h, ox : ox + w], got[1][oy : oy + h, ox : ox + w]
    pos, neg = _noise_buffer(h, w)
    s = sigma / _NOISE_SCALE
    if _SCALED_SEEN.get(key, 0) < 1:  # first time at this sigma: scale only the slice needed
        _SCALED_SEEN[key] = 1
        if len(_SCALED_SEEN) > 64:
            _SCALED_SEEN.clear()
        return (
            as_image(cv2.convertScaleAbs(pos[oy : oy + h, ox : ox + w], alpha=s)),
            as_image(cv2.convertScaleAbs(neg[oy : oy + h, ox : ox + w], alpha=s)),
        )
    got = (as_image(cv2.convertScaleAbs(pos, alpha=s)), as_image(cv2.convertScaleAbs(neg, alpha=s)))
    _SCALED[key] = got
    # a video keeps one sigma; a dataset draws from 19 (Effects.random, 0.5-5 in 0.25 steps): ~260 MB at 1080p
    while len(_SCALED) > 1 and sum(a.nbytes + b.nbytes for a, b in _SCALED.values()) > _SCALED_BYTES:
        _SCALED.popitem(last=False)
    return got[0][oy : oy + h, ox : ox + w], got[1][oy : oy + h, ox : ox + w]


def warm_noise(h: int, w: int, sigmas: Iterable[float]) -> None:
    """Scale and cache the noise planes of these sigmas now, as a long dataset run has them after
    its first few hundred frames (the cache's steady state; a benchmark of a few dozen frames would
    otherwise time each sigma's first scaling)."""
    for sigma in sorted({float(s) for s in sigmas if s > 0}):
        key = (h, w, sigma)
        if key not in _SCALED:
            _SCALED_SEEN[key] = 1
            _scaled_noise(h, w, sigma, 0, 0)


def apply_sensor(img: Image, e: Effects) -> Image:
    """The camera itself: defocus, shake blur, Gaussian noise, then the stream's compression (H.264,
    JPEG)."""
    rng = np.random.default_rng(e.seed + 1 if e.frame == 0 else [e.seed, e.frame])
    out = img
    if e.defocus > 0.05:
        out = as_image(cv2.GaussianBlur(out, (0, 0), e.defocus))
    if e.motion_blur is not None:
        out = as_image(cv2.filter2D(out, -1, shake_kernel(*e.motion_blur)))
    if e.noise > 0:
        h, w = out.shape[:2]
        oy, ox = int(rng.integers(64)), int(rng.integers(64))
        pos, neg = _scaled_noise(h, w, e.noise, oy, ox)
        out = as_image(cv2.subtract(cv2.add(out, pos), neg))
    if e.h264_crf is not None:
        out = h264_roundtrip(out, e.h264_crf)
    if e.jpeg_quality is not None:
        out = jpeg_roundtrip(out, e.jpeg_quality)
    return out
