"""Outline fonts for procedurally drawn card designs, and glyphs drawn with them into BGR images.

Card indices in real decks come in many typefaces; the identity classifier must not learn one.
Fonts are found on the machine (the Debian font packages ``scripts/setup.sh train`` installs:
URW base 35, Liberation, FreeFont, DejaVu). A machine with none falls back to OpenCV's Hershey
fonts, so rendering never fails for want of a font; the dataset is then less varied.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))
# Script, symbol and maths faces are not what a card index is printed in.
_NOT_INDEX = re.compile(r"Z003|D050000L|StandardSymbols|MathTeX|LastResort|cmex|cmsy|STIXSiz|STIXNonUni")
_SLANTED = re.compile(r"Italic|Oblique|Ita\b|BdIta", re.IGNORECASE)
SUIT_CODEPOINTS = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}

Color = tuple[int, int, int]


@cache
def font_files() -> tuple[Path, ...]:
    """Every TrueType/OpenType file in the system font folders, sorted (stable design seeds)."""
    out: list[Path] = []
    for d in FONT_DIRS:
        if d.is_dir():
            out += [p for p in d.rglob("*") if p.suffix.lower() in (".ttf", ".otf")]
    return tuple(sorted(set(out), key=lambda p: p.name))


@cache
def index_fonts() -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """(upright, slanted) fonts fit for a card index."""
    fonts = [p for p in font_files() if not _NOT_INDEX.search(p.name)]
    return (
        tuple(p for p in fonts if not _SLANTED.search(p.stem)),
        tuple(p for p in fonts if _SLANTED.search(p.stem)),
    )


@cache
def suit_fonts() -> tuple[Path, ...]:
    """Fonts whose suit glyphs (U+2660..2666) are real shapes, not the missing-glyph box."""
    from PIL import ImageFont

    out = []
    for p in index_fonts()[0]:
        try:
            f = ImageFont.truetype(str(p), 48)
        except OSError:
            continue
        missing = f.getmask("\uffff").getbbox()
        if all(f.getmask(ch).getbbox() not in (None, missing) for ch in SUIT_CODEPOINTS.values()):
            out.append(p)
    return tuple(out)


@lru_cache(maxsize=256)
def _font(path: str, size: int):  # type: ignore[no-untyped-def]
    from PIL import ImageFont

    return ImageFont.truetype(path, size)


@lru_cache(maxsize=4096)
def glyph_mask(text: str, path: str, height_px: int, squeeze: float = 1.0) -> NDArray[np.uint8]:
    """An 8-bit coverage mask of ``text`` cropped to its ink, scaled so the ink is ``height_px`` tall
    (and ``squeeze`` times its natural width)."""
    import cv2

    from monitor.perception.imageio import as_image

    probe = 200
    f = _font(path, probe)
    bb = f.getmask(text).getbbox()
    if bb is None:
        raise ValueError(f"font {Path(path).name} draws nothing for {text!r}")
    ink_h = bb[3] - bb[1]
    size = max(4, round(probe * height_px / max(1, ink_h)))
    f = _font(path, size)
    m = f.getmask(text, mode="L")
    arr = np.asarray(m, np.uint8).reshape(m.size[1], m.size[0])
    ys, xs = np.nonzero(arr)
    if ys.size == 0:
        raise ValueError(f"font {Path(path).name} draws nothing for {text!r}")
    arr = arr[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    w = max(1, round(arr.shape[1] * squeeze * height_px / arr.shape[0]))
    return as_image(cv2.resize(arr, (w, max(1, height_px)), interpolation=cv2.INTER_AREA))


def looks_like_a_club(mask: NDArray[np.uint8]) -> bool:
    """Whether a black-suit glyph's mask is a club's (three round leaves) rather than a spade's (one
    point up): the top tenth of a club is the cap of its top leaf, a fifth to a third of the glyph's
    width; a spade's is its point (under a tenth). The 40 suit fonts of the training machines measure
    0.20-0.34 and 0.03-0.08."""
    ink = np.asarray(mask) > 127
    rows = [np.nonzero(r)[0] for r in ink]
    extent = np.array([r[-1] - r[0] + 1 if r.size else 0 for r in rows], np.float64)
    if extent.size < 10 or extent.max() <= 0:
        return False
    top = extent[: max(1, round(0.1 * extent.size))]
    return bool(top.mean() / extent.max() > 0.14)


@lru_cache(maxsize=256)
def suit_glyph(font: Path, suit: str) -> str:
    """The character that draws ``suit`` (s, h, d, c) in ``font``: its codepoint, but spade and club
    swapped where the font draws them swapped (FreeSerifBold does: its U+2660 is a club, its U+2663
    a spade; decks drawn with it were once labelled with the wrong black suit)."""
    if suit not in ("s", "c"):
        return SUIT_CODEPOINTS[suit]
    spade_is_club = looks_like_a_club(glyph_mask(SUIT_CODEPOINTS["s"], str(font), 64))
    club_is_club = looks_like_a_club(glyph_mask(SUIT_CODEPOINTS["c"], str(font), 64))
    swapped = spade_is_club and not club_is_club
    return SUIT_CODEPOINTS[{"s": "c", "c": "s"}[suit] if swapped else suit]


def blend_mask(img: NDArray[np.uint8], mask: NDArray[np.uint8], x0: int, y0: int, color: Color) -> None:
    """Paint ``color`` into ``img`` through ``mask`` placed with its top-left at (x0, y0), clipped."""
    h, w = mask.shape
    H, W = img.shape[:2]
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(W, x0 + w), min(H, y0 + h)
    if xa >= xb or ya >= yb:
        return
    m = mask[ya - y0 : yb - y0, xa - x0 : xb - x0].astype(np.float32)[..., None] / 255
    region = img[ya:yb, xa:xb].astype(np.float32)
    img[ya:yb, xa:xb] = (region * (1 - m) + np.array(color, np.float32) * m + 0.5).astype(np.uint8)


def draw_text(
    img: NDArray[np.uint8],
    text: str,
    font: Path,
    cx: float,
    top: float,
    height: float,
    color: Color,
    squeeze: float = 1.0,
    flip: bool = False,
) -> tuple[float, float]:
    """Draw ``text`` with its ink centred on ``cx``, ink top at ``top``, ``height`` px tall (turned 180
    degrees when ``flip``, then ``top`` is the ink's bottom edge as seen). Returns the ink (width, height)."""
    m = glyph_mask(text, str(font), max(2, round(height)), squeeze)
    if flip:
        m = m[::-1, ::-1]
        blend_mask(img, m, round(cx - m.shape[1] / 2), round(top - m.shape[0]), color)
    else:
        blend_mask(img, m, round(cx - m.shape[1] / 2), round(top), color)
    return float(m.shape[1]), float(m.shape[0])
