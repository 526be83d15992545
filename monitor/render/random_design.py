"""Procedurally randomised card designs: ``proc:<seed>`` is one whole deck, the same for the same seed.

Two drawn designs teach a classifier those two designs: it read 26% of an unseen deck right. Real
rooms use many decks, so training draws from hundreds of generated ones (domain randomisation): the
index typeface, size and place, suit shapes (curves of several proportions: plump or narrow hearts,
diamonds with straight, hollow or bulging sides, spade and club stems of three cuts; or a font's
glyphs), inks (red/black, sometimes a four-colour poker deck), pip size and layout (the 7 to 10 are
laid out as printed decks differ: a nine's odd pip at the centre or up between the first rows, a ten's
centre pips high or low, an eight in two columns), aces (plain, shaded, outlined, a big ace of
spades), paper tint, court pictures (random shapes, drawn figures or a lettered emblem, each rank with
its own headwear and attributes in one of several styles), jokers (full-colour jesters, four suits,
hats, stars, with the word JOKER in several places and typefaces) and the back. What stays fixed is
what every deck shares and what the classifier should learn: the rank and suit in the corner index,
pips for number cards, a court picture for J, Q, K.

Seeds drawn before the pip layouts, suit shapes, court and joker styles were added keep the draws
they had (the new ones come from a second stream), but their faces changed: pips are now kept clear
of the corner index and of one another, and most decks got new suit shapes, courts and jokers.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

import cv2
import numpy as np
from numpy.typing import NDArray

from monitor.perception.imageio import as_image
from monitor.render.card_art import (
    CARD_H_MM,
    CARD_W_MM,
    PIP_LAYOUT,
    PIP_LAYOUTS,
    Canvas,
    draw_jester,
    draw_lattice,
    draw_ring_grid,
    star_points,
)
from monitor.render.deck import BACK, CLASS_KEYS, CardDesign, DesignError, _mips
from monitor.render.fonts import blend_mask, draw_text, glyph_mask, index_fonts, suit_fonts, suit_glyph
from monitor.render.suits import SUIT_ASPECT, Color, draw_suit, fill_poly
from monitor.rules.cards import JOKER, RANK_CHARS, Card, parse_card

Image = NDArray[np.uint8]
Parts = list[NDArray[np.float64]]
Pt = tuple[float, float]
PREFIX = "proc:"
HERSHEY = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
)
BACK_KINDS = ("lattice", "rings", "dots", "stripes", "checks", "frames", "solid", "noise")
STEMS = ("flared", "straight", "foot")
# How often each pip layout of card_art.PIP_LAYOUTS is drawn (in that table's order).
LAYOUT_WEIGHTS: dict[int, tuple[float, ...]] = {
    7: (0.5, 0.25, 0.25),
    8: (0.55, 0.25, 0.2),
    9: (0.45, 0.4, 0.15),
    10: (0.5, 0.15, 0.2, 0.15),
}
ACE_STYLES = ("plain", "shaded", "outline", "double")
COURT_STYLES = ("shapes", "figure", "emblem")
COURT_SUIT_PLACES = ("random", "corner", "chest", "none")
LETTER_PLACES = ("centre", "panel", "beside")
JOKER_ARTS = ("legacy", "jester", "suits", "hat", "word")
JOKER_WORDS = ("bottom", "top-bottom", "side", "rotated", "arc", "none")
# headwear, one of three per rank in a deck: kings' crowns, queens' crowns or veils, jacks' hats
HEADWEAR = {
    13: ("points", "closed", "fleurs"),
    12: ("coronet", "arches", "veil"),
    11: ("cap", "beret", "hat"),
}
GOLD = (40, 185, 235)


@dataclass(frozen=True)
class SuitShapes:
    """One deck's suit symbols, in units of a round lobe's radius (the heart's and spade's lobes, the
    club's leaves); :func:`suit_parts` turns them into polygons."""

    heart: tuple[float, float, float]  # lobe centres' offset from the middle, tip depth, side fullness
    spade: tuple[float, float, float]
    club_spread: float  # leaf centres' distance from the middle
    stem: str  # spade and club stems: "flared" | "straight" | "foot"
    stem_len: float
    stem_foot: float  # half-width of the stem's foot
    diamond: tuple[float, float]  # width / height, side bend (< 0: hollow sides, > 0: bulging)


def _random_shapes(rng: np.random.Generator) -> SuitShapes:
    ha, sa = float(rng.uniform(0.65, 1.0)), float(rng.uniform(0.6, 1.0))
    stem_len = float(rng.uniform(0.3, 1.0))
    # tip depth from a width/height ratio printed hearts and spades keep (0.85..1.3 and 0.8..1.05)
    hd = (2 * ha + 2) / float(rng.uniform(0.85, 1.3)) - 1
    sd = max(1.4, (2 * sa + 2) / float(rng.uniform(0.8, 1.05)) - 1 - stem_len)
    return SuitShapes(
        heart=(ha, hd, float(rng.uniform(0.3, 0.7))),
        spade=(sa, sd, float(rng.uniform(0.3, 0.8))),
        club_spread=float(rng.uniform(0.95, 1.3)),
        stem=str(rng.choice(STEMS)),
        stem_len=stem_len,
        stem_foot=float(rng.uniform(0.35, 0.85)),
        diamond=(float(rng.uniform(0.55, 0.85)), float(rng.uniform(-0.25, 0.08))),
    )


def _bez(a: Pt, c: Pt, b: Pt, n: int = 16) -> NDArray[np.float64]:
    """A quadratic Bezier curve from a to b pulled towards c, n points."""
    t = np.linspace(0.0, 1.0, n)[:, None]
    pa, pc, pb = np.array(a, np.float64), np.array(c, np.float64), np.array(b, np.float64)
    return np.asarray((1 - t) ** 2 * pa + 2 * t * (1 - t) * pc + t * t * pb, np.float64)


def _ring(cx: float, cy: float, r: float, n: int = 40) -> NDArray[np.float64]:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], axis=1)


def _lobes(a: float, d: float, full: float) -> Parts:
    """A heart: round lobes of radius 1 centred at (+-a, 0) and a body down to its point at (0, d),
    its sides bulging by ``full``."""
    body = np.concatenate(
        [_bez((-a - 1, 0), (-a - 1, full * d), (0, d)), _bez((0, d), (a + 1, full * d), (a + 1, 0))[1:]]
    )
    return [_ring(-a, 0, 1), _ring(a, 0, 1), body]


def _stem(top: float, foot: float, kind: str, w: float) -> Parts:
    if kind == "straight":
        return [np.array([[0.0, top], [-w, foot], [w, foot]])]
    if kind == "foot":  # a narrow stem on a flat base
        return [
            np.array([[-0.16, top], [0.16, top], [0.16, foot - 0.2], [-0.16, foot - 0.2]]),
            np.array([[-w * 0.6, foot - 0.32], [w * 0.6, foot - 0.32], [w, foot], [-w, foot]]),
        ]
    left = _bez((-0.1, top), (-0.1, foot), (-w, foot))
    right = _bez((w, foot), (0.1, foot), (0.1, top))
    return [np.concatenate([left, right])]


def _normalise(parts: Parts) -> Parts:
    """Scale a symbol so its bounding box is 1 tall, centred on (0, 0)."""
    allp = np.concatenate(parts)
    lo, hi = allp.min(axis=0), allp.max(axis=0)
    c, h = (lo + hi) / 2, hi[1] - lo[1]
    return [(q - c) / h for q in parts]


@lru_cache(maxsize=2048)
def suit_parts(shapes: SuitShapes) -> dict[str, Parts]:
    """Polygons (1 tall, centred, point of the heart down) of one deck's four suits."""
    heart = _lobes(*shapes.heart)
    spade = [q * (1.0, -1.0) for q in _lobes(*shapes.spade)]
    spade += _stem(-0.2, 1 + shapes.stem_len, shapes.stem, shapes.stem_foot)
    s = shapes.club_spread
    centres = [(0.0, -1.05 * s), (-1.0 * s, 0.5 * s), (1.0 * s, 0.5 * s)]
    club = [_ring(x, y, 1.0) for x, y in centres] + [np.array(centres, np.float64)]
    club += _stem(0.0, 0.5 * s + 1 + shapes.stem_len, shapes.stem, shapes.stem_foot)
    hw, bend = shapes.diamond
    corners = [np.array(c, np.float64) for c in ((0.0, -1.0), (hw, 0.0), (0.0, 1.0), (-hw, 0.0))]
    sides = []
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        m = (a + b) / 2 * (1 + bend)
        sides.append(_bez((a[0], a[1]), (m[0], m[1]), (b[0], b[1]))[:-1])
    return {
        "h": _normalise(heart),
        "s": _normalise(spade),
        "c": _normalise(club),
        "d": _normalise([np.concatenate(sides)]),
    }


@lru_cache(maxsize=256)
def _glyph_ratio(font: Path, suit: str) -> float:
    m = glyph_mask(suit_glyph(font, suit), str(font), 100)
    return float(m.shape[1] / m.shape[0])


@dataclass(frozen=True)
class DesignParams:
    """Everything one generated deck fixes; drawn from the seed by :func:`design_params`."""

    seed: int
    paper: Color
    inks: dict[str, Color]  # suit -> BGR
    index_font: Path | None  # None: a Hershey font
    hershey: int
    index_h: float  # rank height, mm
    index_cx: float  # index centre from the left edge, mm
    index_top: float
    index_suit_h: float
    suit_beside: bool  # suit symbol to the right of the rank rather than under it
    four_index: bool
    squeeze_ten: float
    suit_font: Path | None  # None: the polygon suits
    suit_aspect: float
    pip_h: float
    pip_dx: float  # column offset from the centre, mm
    pip_top: float
    pip_bottom: float
    ace_h: float
    ace_ring: bool
    face_frame: bool
    court_mirror: bool
    court_palette: tuple[Color, ...]
    court_letter: bool
    joker_corner: str  # "vertical" | "star" | "none"
    joker_color: Color
    back_kind: str
    back_colors: tuple[Color, Color]
    back_margin: float
    back_step: float
    # drawn from a second stream (the draws above keep their order)
    suit_shapes: SuitShapes | None  # None: monitor.render.suits' shapes
    pip_layouts: dict[int, str]  # rank 7..10 -> a layout name in card_art.PIP_LAYOUTS
    ace_style: str  # ACE_STYLES
    ace_spade_big: bool  # the ace of spades larger and ornamented, as many decks print it
    court_style: str  # COURT_STYLES
    court_heads: tuple[int, int, int]  # HEADWEAR choice for K, Q, J
    court_suit: str  # COURT_SUIT_PLACES: where a court's picture carries its suit
    court_split: str  # "horizontal" | "diagonal": how a double-headed court is divided
    court_outline: bool  # dark outlines round the picture's shapes
    court_ground: Color | None  # the picture frame's background (None: paper)
    letter_place: str  # LETTER_PLACES, for decks with the rank letter in the court picture
    joker_art: str  # JOKER_ARTS
    joker_word: str  # JOKER_WORDS: where the word JOKER is printed on the face
    joker_text: str  # "JOKER" | "Joker"
    joker_font: Path | None  # None: the deck's Hershey font
    joker_mirror: bool  # a double-headed joker picture
    # drawn from a third stream
    pip_gap: float = 0.6  # mm kept between the pip field and the corner index box
    # drawn from a fourth stream (_pale_and_ornate)
    ace_ornate: bool = False  # the big ace of spades filled with light scrollwork, as most decks print it


# A crowded face: big pips up against an index hugging the corner, as some modern and digital decks
# print them. The index crop of such a card is half pip: the fan classifier took crops like it for
# "no index here" (slid onto the pips) until decks like this were rendered (models/MODEL_CARD.md).
CROWDED_SHARE = 0.3


def _ink(rng: np.random.Generator, red: bool) -> Color:
    if red:
        return (int(rng.integers(0, 70)), int(rng.integers(0, 50)), int(rng.integers(150, 235)))
    dark = int(rng.integers(0, 45))
    tint = rng.integers(0, 3)  # black, navy, dark brown
    if tint == 1:
        return (dark + 60, dark + 15, dark)
    if tint == 2:
        return (dark, dark + 15, dark + 45)
    return (dark, dark, dark)


def _colour(rng: np.random.Generator) -> Color:
    # np.uint8 of a nested list builds an array; the stubs know only the scalar
    hsv: Image = cast(Any, np.uint8)([[[rng.integers(0, 180), rng.integers(90, 256), rng.integers(70, 240)]]])
    b, g, r = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0]
    return (int(b), int(g), int(r))


def _jitter(rng: np.random.Generator, c: Color, d: int = 25) -> Color:
    return (
        int(np.clip(c[0] + rng.integers(-d, d + 1), 0, 255)),
        int(np.clip(c[1] + rng.integers(-d, d + 1), 0, 255)),
        int(np.clip(c[2] + rng.integers(-d, d + 1), 0, 255)),
    )


def _traditional_palette(rng: np.random.Generator) -> tuple[Color, ...]:
    """Court colours of the traditional pattern: red, blue, yellow, black (and sometimes green)."""
    base = [(40, 30, 200), (170, 90, 30), (40, 200, 240), (30, 30, 30)]
    if rng.random() < 0.3:
        base.append((60, 140, 40))
    return tuple(_jitter(rng, c) for c in base)


def suit_ratio(p: DesignParams, suit: str) -> float:
    """A suit symbol's width / height in this deck."""
    if p.suit_font is not None:
        return _glyph_ratio(p.suit_font, suit)
    if p.suit_shapes is None:
        return SUIT_ASPECT[suit] * p.suit_aspect
    return float(np.ptp(np.concatenate(suit_parts(p.suit_shapes)[suit])[:, 0])) * p.suit_aspect


@lru_cache(maxsize=4096)
def _ink_width(text: str, font: Path | None, hershey: int) -> float:
    """Width of ``text`` in the index font (None: the Hershey font), per unit of its height."""
    if font is not None:
        try:
            m = glyph_mask(text, str(font), 100)
            return float(m.shape[1] / 100)
        except ValueError:
            pass
    (tw, th), _ = cv2.getTextSize(text, hershey, 1.0, 1)
    return tw / th + 0.12


def index_box(p: DesignParams) -> tuple[float, float]:
    """Width and height (mm) of the corner index region, the part copied to the other corners."""
    h = p.index_h
    half = max(_ink_width(t, p.index_font, p.hershey) * h for t in ("A", "K", "Q", "J", "8")) / 2
    half = max(half, _ink_width("10", p.index_font, p.hershey) * h * 0.9 * p.squeeze_ten / 2)
    if p.suit_beside:
        w = p.index_cx + max(h * 0.8 + p.index_suit_h, half) + 1.0
        hh = p.index_top + h + 1.5
    else:
        w = p.index_cx + max(half, p.index_suit_h * 0.6) + 1.2
        hh = p.index_top + h + 1.0 + 1.6 + p.index_suit_h
    return min(w, CARD_W_MM / 2 - 1), min(hh, CARD_H_MM / 2 - 1)


def _fit_pips(p: DesignParams) -> DesignParams:
    """Keep the pip field on the card and clear of the corner indices: first the columns move in,
    then the rows move towards the middle, else the pips shrink."""
    iw, ih = index_box(p)
    ratio = max(suit_ratio(p, s) for s in "cdhs")
    h, dx, top, bottom = p.pip_h, p.pip_dx, p.pip_top, p.pip_bottom
    gap = p.pip_gap
    for _ in range(40):
        w = h * ratio
        dx = min(dx, CARD_W_MM / 2 - 2.0 - w / 2)
        top, bottom = max(top, 2.0 + h / 2), min(bottom, CARD_H_MM - 2.0 - h / 2)
        if 31.5 - dx - w / 2 >= iw + gap or (
            top - h / 2 >= ih + gap and bottom + h / 2 <= CARD_H_MM - ih - gap
        ):
            break
        dx_in = 31.5 - w / 2 - iw - gap
        if dx_in >= max(0.85 * dx, 0.9 * w, 8.0):
            dx = dx_in
            continue
        top_in = ih + gap + h / 2
        bottom_in = CARD_H_MM - top_in
        if bottom_in - top_in >= 3.1 * h:
            top, bottom = max(top, top_in), min(bottom, bottom_in)
            continue
        h *= 0.93
    return replace(p, pip_h=h, pip_dx=dx, pip_top=top, pip_bottom=bottom)


def design_params(seed: int) -> DesignParams:
    rng = np.random.default_rng([seed, 0x5EED])
    red, black = _ink(rng, True), _ink(rng, False)
    inks = {"h": red, "d": red, "s": black, "c": black}
    if rng.random() < 0.08:  # four-colour poker deck: blue diamonds, green clubs
        inks["d"] = (int(rng.integers(150, 220)), int(rng.integers(40, 110)), int(rng.integers(0, 40)))
        inks["c"] = (int(rng.integers(20, 60)), int(rng.integers(110, 170)), int(rng.integers(0, 50)))
    upright, slanted = index_fonts()
    pool = slanted if (slanted and rng.random() < 0.08) else upright
    index_font = pool[int(rng.integers(len(pool)))] if pool and rng.random() < 0.85 else None
    sfonts = suit_fonts()
    suit_font = sfonts[int(rng.integers(len(sfonts)))] if sfonts and rng.random() < 0.35 else None
    index_h = float(rng.uniform(5.5, 12.0))
    tone = int(rng.integers(228, 256))
    paper = (
        min(255, tone + int(rng.integers(-6, 4))),
        min(255, tone + int(rng.integers(-3, 3))),
        min(255, tone + int(rng.integers(-2, 5))),
    )
    palette = tuple(_colour(rng) for _ in range(int(rng.integers(2, 5))))
    bg = _colour(rng) if rng.random() < 0.8 else _ink(rng, bool(rng.random() < 0.5))
    accent = (255, 255, 255) if rng.random() < 0.5 else _colour(rng)
    # the rest in the order they were always drawn, so that old seeds keep their values
    hershey = int(HERSHEY[int(rng.integers(len(HERSHEY)))])
    index_cx = float(rng.uniform(4.3, 7.0))
    index_top = float(rng.uniform(2.5, 5.0))
    index_suit_h = float(rng.uniform(3.5, 7.0))
    suit_beside = bool(rng.random() < 0.06)
    four_index = bool(rng.random() < 0.2)
    squeeze_ten = float(rng.uniform(0.7, 1.0))
    suit_aspect = float(rng.uniform(0.85, 1.15))
    pip_h = float(rng.uniform(7.0, 15.0))
    pip_dx = float(rng.uniform(9.5, 14.0))
    pip_top = float(rng.uniform(14.0, 20.0))
    pip_bottom = float(rng.uniform(68.0, 74.0))
    ace_h = float(rng.uniform(11.0, 28.0))
    ace_ring = bool(rng.random() < 0.25)
    face_frame = bool(rng.random() < 0.15)
    court_mirror = bool(rng.random() < 0.8)
    court_letter = bool(rng.random() < 0.3)
    joker_corner = str(rng.choice(["vertical", "vertical", "vertical", "star", "none"]))
    joker_color = red if rng.random() < 0.4 else (black if rng.random() < 0.6 else palette[0])
    back_kind = str(rng.choice(BACK_KINDS))
    back_margin = float(rng.uniform(0.0, 5.0))
    back_step = float(rng.uniform(2.0, 7.0))

    x = np.random.default_rng([seed, 0x5EED, 2])  # the second stream: what was added later
    shapes = _random_shapes(x) if x.random() < 0.75 else None
    layouts = {
        r: str(x.choice(list(PIP_LAYOUTS[r]), p=np.array(LAYOUT_WEIGHTS[r]) / sum(LAYOUT_WEIGHTS[r])))
        for r in (7, 8, 9, 10)
    }
    if x.random() < 0.3:  # large pips from edge to edge beside a small index, as many modern decks
        pip_h = float(x.uniform(13.0, 19.0))
        pip_dx = float(x.uniform(10.5, 13.0))
        pip_top = float(x.uniform(9.0, 14.0))
        pip_bottom = CARD_H_MM - pip_top + float(x.uniform(-1.0, 1.0))
        index_h = min(index_h, float(x.uniform(6.0, 9.0)))
        index_suit_h = min(index_suit_h, float(x.uniform(3.5, 5.5)))
    ace_style = str(x.choice(ACE_STYLES, p=[0.45, 0.25, 0.15, 0.15]))
    if x.random() < 0.2:  # a big ace, most of the card
        ace_h = float(x.uniform(26.0, 40.0))
    if x.random() < 0.4:
        palette = _traditional_palette(x)
    light = _jitter(x, (215, 235, 245), 20)
    p = DesignParams(
        seed=seed,
        paper=paper,
        inks=inks,
        index_font=index_font,
        hershey=hershey,
        index_h=index_h,
        index_cx=index_cx + max(0.0, index_h - 9) * 0.35,
        index_top=index_top,
        index_suit_h=index_suit_h,
        suit_beside=suit_beside,
        four_index=four_index,
        squeeze_ten=squeeze_ten,
        suit_font=suit_font,
        suit_aspect=suit_aspect,
        pip_h=pip_h,
        pip_dx=pip_dx,
        pip_top=pip_top,
        pip_bottom=pip_bottom,
        ace_h=ace_h,
        ace_ring=ace_ring,
        face_frame=face_frame,
        court_mirror=court_mirror,
        court_palette=palette,
        court_letter=court_letter,
        joker_corner=joker_corner,
        joker_color=joker_color,
        back_kind=back_kind,
        back_colors=(bg, accent),
        back_margin=back_margin,
        back_step=back_step,
        suit_shapes=shapes,
        pip_layouts=layouts,
        ace_style=ace_style,
        ace_spade_big=bool(x.random() < 0.3),
        court_style=str(x.choice(COURT_STYLES, p=[0.25, 0.5, 0.25])),
        court_heads=(int(x.integers(3)), int(x.integers(3)), int(x.integers(3))),
        court_suit=str(x.choice(COURT_SUIT_PLACES, p=[0.3, 0.35, 0.2, 0.15])),
        court_split=str(x.choice(["horizontal", "diagonal"], p=[0.65, 0.35])),
        court_outline=bool(x.random() < 0.5),
        court_ground=light if x.random() < 0.3 else None,
        letter_place=str(x.choice(LETTER_PLACES)),
        joker_art=str(x.choice(JOKER_ARTS, p=[0.2, 0.35, 0.15, 0.15, 0.15])),
        joker_word=str(x.choice(JOKER_WORDS, p=[0.25, 0.15, 0.2, 0.15, 0.1, 0.15])),
        joker_text="JOKER" if x.random() < 0.7 else "Joker",
        joker_font=_pick_font(x),
        joker_mirror=bool(x.random() < 0.3),
    )
    p = _crowded(p, np.random.default_rng([seed, 0x5EED, 3]))
    return _fit_pips(_pale_and_ornate(p, np.random.default_rng([seed, 0x5EED, 4])))


# Backs printed pale on white (PALE_BACK_SHARE of decks): at 50 px a card wide their pattern fades
# and the back reads as a blank face; the held-out deck's back is one (models/MODEL_CARD.md).
PALE_BACK_SHARE = 0.15
ORNATE_ACE_SHARE = 0.35  # of all decks: a big ace of spades with scrollwork inside


def _pale_and_ornate(p: DesignParams, rng: np.random.Generator) -> DesignParams:
    """Some decks' backs made pale, some big aces of spades made ornate (a fourth stream, so that
    every earlier draw of a seed keeps its value)."""
    pale = rng.random() < PALE_BACK_SHARE
    ornate = rng.random() < ORNATE_ACE_SHARE
    light = int(rng.integers(150, 225))
    ace_h = float(rng.uniform(20.0, 29.0))  # drawn 1.4x: most of the card's width
    tint = _jitter(rng, (light, light, light), 18)
    if pale:
        p = replace(p, back_colors=(p.paper, tint), back_step=float(rng.uniform(1.2, 4.0)))
    if ornate:
        p = replace(p, ace_spade_big=True, ace_ornate=True, ace_style="plain", ace_h=max(p.ace_h, ace_h))
    return p


def _crowded(p: DesignParams, rng: np.random.Generator) -> DesignParams:
    """Some decks (``CROWDED_SHARE``) made crowded: big pips at the edges, beside a corner index."""
    if rng.random() >= CROWDED_SHARE:
        return p
    index_h = float(rng.uniform(6.5, 10.5))
    top = float(rng.uniform(7.0, 12.0))
    return replace(
        p,
        index_h=index_h,
        index_cx=float(rng.uniform(3.0, 4.6)),
        index_top=float(rng.uniform(1.5, 3.0)),
        index_suit_h=float(rng.uniform(3.5, 5.5)),
        suit_beside=False,
        pip_h=float(rng.uniform(14.0, 21.0)),
        pip_dx=float(rng.uniform(15.5, 18.0)),  # rather too far out: _fit_pips brings them in flush
        pip_top=top,
        pip_bottom=CARD_H_MM - top + float(rng.uniform(-1.0, 1.0)),
        pip_gap=float(rng.uniform(0.0, 0.4)),
    )


def _pick_font(rng: np.random.Generator) -> Path | None:
    upright, slanted = index_fonts()
    pool = (*upright, *slanted)
    return pool[int(rng.integers(len(pool)))] if pool and rng.random() < 0.85 else None


def pip_centres(p: DesignParams, rank: int) -> list[Pt]:
    """Pip centres (mm) of a number card (2..10) in this deck: its layout remapped from the standard
    frame (columns 19.5/31.5/43.5, rows 17..71) to the deck's proportions."""
    layout = PIP_LAYOUTS[rank][p.pip_layouts[rank]] if rank in p.pip_layouts else PIP_LAYOUT[rank]
    return [
        (31.5 + (x - 31.5) / 12.0 * p.pip_dx, p.pip_top + (y - 17.0) / 54.0 * (p.pip_bottom - p.pip_top))
        for x, y in layout
    ]


def pip_height(p: DesignParams, rank: int, suit: str) -> float:
    """The deck's pip height, made smaller where this card's layout would make pips touch (their
    boxes keep apart by 7% of a pip)."""
    pts = pip_centres(p, rank)
    w = p.pip_h * suit_ratio(p, suit)
    room = 1.0
    for i, (xa, ya) in enumerate(pts):
        for xb, yb in pts[i + 1 :]:
            room = min(room, max(abs(xa - xb) / w, abs(ya - yb) / p.pip_h) * 0.93)
    return p.pip_h * room


class _Painter:
    """Draws one face of a generated deck on a supersampled canvas."""

    def __init__(self, p: DesignParams, key: str) -> None:
        self.p = p
        self.cv = Canvas(p.paper)
        # per-card randomness (court artwork, joker) fixed by the design seed and the card
        self.rng = np.random.default_rng([p.seed, CLASS_KEYS.index(key), 0xFACE])
        self.line: Color | None = (25, 25, 30) if p.court_outline else None

    # -- primitives, in millimetres ---------------------------------------------------------------

    def _suit_into(
        self, img: Image, s: str, cx: float, cy: float, h: float, color: Color, flip: bool
    ) -> None:
        cv, p = self.cv, self.p
        if p.suit_font is not None:
            top = cv.px(cy - h / 2) if not flip else cv.px(cy + h / 2)
            glyph = suit_glyph(p.suit_font, s)
            draw_text(img, glyph, p.suit_font, cv.px(cx), top, cv.px(h), color, flip=flip)
        elif p.suit_shapes is None:
            draw_suit(img, s, cv.px(cx), cv.px(cy), cv.px(h), color, flip, p.suit_aspect)
        else:
            sign = -1.0 if flip else 1.0
            scale = np.array([cv.px(h) * sign * p.suit_aspect, cv.px(h) * sign])
            for part in suit_parts(p.suit_shapes)[s]:
                fill_poly(img, part * scale + (cv.px(cx), cv.px(cy)), color)

    def suit(
        self, s: str, cx: float, cy: float, h: float, color: Color, flip: bool = False, angle: float = 0.0
    ) -> None:
        if not angle:
            self._suit_into(self.cv.img, s, cx, cy, h, color, flip)
            return
        # turned: drawn white into a tile, rotated, and painted through it
        k = self.cv.k
        n = int(h * 1.6 * k) | 1
        tile = np.zeros((n, n, 3), np.uint8)
        self._suit_into(tile, s, n / 2 / k, n / 2 / k, h, (255, 255, 255), flip)
        rot = cv2.getRotationMatrix2D((n / 2, n / 2), angle, 1.0)
        m = as_image(cv2.warpAffine(tile[..., 0], rot, (n, n), flags=cv2.INTER_LINEAR))
        blend_mask(self.cv.img, m, round(cx * k - n / 2), round(cy * k - n / 2), color)

    def poly(self, pts: Sequence[Pt] | NDArray[np.float64], color: Color, outline: bool = True) -> None:
        arr = np.asarray(pts, np.float64) * self.cv.k
        fill_poly(self.cv.img, arr, color)
        if outline and self.line is not None:
            cv2.polylines(
                self.cv.img,
                [np.round(arr * 16).astype(np.int32)],
                True,
                self.line,
                max(1, round(self.cv.k * 0.3)),
                cv2.LINE_AA,
                shift=4,
            )

    def ellipse(
        self,
        cx: float,
        cy: float,
        rx: float,
        ry: float,
        color: Color,
        angle: float = 0.0,
        arc: tuple[float, float] = (0.0, 360.0),
        thick: float = -1.0,
        outline: bool = True,
    ) -> None:
        k = self.cv.k
        c, ax = (round(cx * k * 16), round(cy * k * 16)), (round(rx * k * 16), round(ry * k * 16))
        t = -1 if thick < 0 else max(1, round(thick * k))
        cv2.ellipse(self.cv.img, c, ax, angle, arc[0], arc[1], color, t, cv2.LINE_AA, shift=4)
        if t < 0 and outline and self.line is not None:
            cv2.ellipse(
                self.cv.img, c, ax, angle, arc[0], arc[1], self.line, max(1, round(k * 0.3)), cv2.LINE_AA, 4
            )

    def stroke(self, pts: Sequence[Pt] | NDArray[np.float64], color: Color, width: float) -> None:
        arr = np.round(np.asarray(pts, np.float64) * self.cv.k * 16).astype(np.int32)
        cv2.polylines(
            self.cv.img, [arr], False, color, max(1, round(width * self.cv.k)), cv2.LINE_AA, shift=4
        )

    def pick(self, colours: Sequence[Color], avoid: Color | None = None) -> Color:
        pool = [c for c in colours if c != avoid] or list(colours)
        return pool[int(self.rng.integers(len(pool)))]

    def word_mask(self, text: str, h: float, font: Path | None) -> Image:
        """Coverage mask of ``text``, its ink ``h`` mm tall, in ``font`` (None: the deck's Hershey)."""
        hpx = max(2, round(self.cv.px(h)))
        if font is not None:
            try:
                return glyph_mask(text, str(font), hpx)
            except ValueError:  # a face without these letters: fall back to Hershey
                pass
        f = self.p.hershey
        scale = hpx / max(1, cv2.getTextSize(text, f, 1.0, 1)[0][1])
        thick = max(1, round(hpx * 0.12))
        (tw, th), base = cv2.getTextSize(text, f, scale, thick)
        tmp = np.zeros((th + base + 4 * thick, tw + 4 * thick), np.uint8)
        cv2.putText(tmp, text, (2 * thick, th + 2 * thick), f, scale, 255, thick, cv2.LINE_AA)
        ys, xs = np.nonzero(tmp)
        crop = tmp[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
        w = max(1, round(crop.shape[1] * hpx / crop.shape[0]))
        return as_image(cv2.resize(crop, (w, hpx), interpolation=cv2.INTER_AREA))

    def blit(
        self, mask: Image, cx: float, cy: float, color: Color, angle: float = 0.0
    ) -> tuple[float, float]:
        """Paint ``color`` through ``mask`` centred at (cx, cy) mm, turned ``angle`` degrees
        (anticlockwise); returns the painted box's (width, height) in mm."""
        m = mask
        quarter = round(angle / 90)
        if abs(angle - 90 * quarter) < 1e-6:
            m = np.ascontiguousarray(np.rot90(mask, quarter % 4))
        else:
            h, w = mask.shape
            n = int(math.hypot(h, w)) + 2
            rot = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
            rot[:, 2] += (n / 2 - w / 2, n / 2 - h / 2)
            m = as_image(cv2.warpAffine(mask, rot, (n, n), flags=cv2.INTER_LINEAR))
        k = self.cv.k
        blend_mask(self.cv.img, m, round(cx * k - m.shape[1] / 2), round(cy * k - m.shape[0] / 2), color)
        return m.shape[1] / k, m.shape[0] / k

    # -- the corner index and the number cards ---------------------------------------------------

    def text(self, t: str, cx: float, top: float, h: float, color: Color, squeeze: float = 1.0) -> float:
        """Draw text, ink top at ``top`` mm, ``h`` mm tall; returns its bottom in mm."""
        cv, p = self.cv, self.p
        if p.index_font is not None:
            draw_text(cv.img, t, p.index_font, cv.px(cx), cv.px(top), cv.px(h), color, squeeze)
        else:
            font = p.hershey
            (_tw, th), _ = cv2.getTextSize(t, font, 1.0, 1)
            scale = cv.px(h) / th
            thick = max(1, round(cv.px(h) * 0.12))
            (tw, th), _ = cv2.getTextSize(t, font, scale, thick)
            x = cv.px(cx) - tw * squeeze / 2
            if squeeze < 0.999:  # squeeze by drawing wide and shrinking the glyph box horizontally
                tmp = np.full((th + 2 * thick + 4, tw + 2 * thick + 4, 3), 0, np.uint8)
                cv2.putText(
                    tmp, t, (thick + 2, th + thick + 2), font, scale, (255, 255, 255), thick, cv2.LINE_AA
                )
                size = (max(1, round(tmp.shape[1] * squeeze)), tmp.shape[0])
                mask = as_image(cv2.resize(tmp[..., 0], size))
                blend_mask(cv.img, mask, round(x) - thick - 2, round(cv.px(top)) - thick - 2, color)
            else:
                cv2.putText(
                    cv.img, t, (round(x), round(cv.px(top) + th)), font, scale, color, thick, cv2.LINE_AA
                )
        return top + h

    def index(self, rank_text: str, s: str, color: Color) -> None:
        p = self.p
        ten = rank_text == "10"
        h = p.index_h * (0.9 if ten else 1.0)
        if p.suit_beside:
            self.text(rank_text, p.index_cx, p.index_top, h, color, p.squeeze_ten if ten else 1.0)
            self.suit(
                s, p.index_cx + h * 0.75 + p.index_suit_h / 2, p.index_top + h / 2, p.index_suit_h, color
            )
        else:
            bottom = self.text(rank_text, p.index_cx, p.index_top, h, color, p.squeeze_ten if ten else 1.0)
            self.suit(s, p.index_cx, bottom + 1.0 + p.index_suit_h / 2, p.index_suit_h, color)
        w, hh = index_box(p)
        self.cv.copy_corner(w, hh, p.four_index)

    def pips(self, card: Card, color: Color) -> None:
        p = self.p
        h = pip_height(p, card.rank, card.suit)
        for nx, ny in pip_centres(p, card.rank):
            self.suit(card.suit, nx, ny, h, color, flip=ny > (p.pip_top + p.pip_bottom) / 2 + 0.1)

    def ace(self, card: Card, color: Color) -> None:
        p, cv = self.p, self.cv
        h = p.ace_h
        spade_big = p.ace_spade_big and card.suit == "s"
        if spade_big:
            h = min(40.0, max(h * 1.4, 24.0))
        cy = 44.0
        if p.ace_style == "shaded":  # a glossy symbol: lit from the upper left, darker below
            tile = np.zeros_like(cv.img)
            self._suit_into(tile, card.suit, 31.5, cy, h, (255, 255, 255), False)
            a = tile[..., 0].astype(np.float32)[..., None] / 255
            yy, xx = np.mgrid[0 : cv.img.shape[0], 0 : cv.img.shape[1]].astype(np.float32) / cv.k
            d = np.hypot(xx - 31.5 + h * 0.2, yy - cy + h * 0.25) / (h * 0.9)
            light = np.clip(1.0 - d, 0.0, 1.0)[..., None]
            base = np.array(color, np.float32)
            shade = base * (0.8 + 0.25 * light) + (255 - base) * 0.45 * light**2
            cv.img[:] = (cv.img * (1 - a) + np.clip(shade, 0, 255) * a + 0.5).astype(np.uint8)
        else:
            self.suit(card.suit, 31.5, cy, h, color)
            if p.ace_style in ("outline", "double"):  # an outlined symbol, sometimes with one inside
                self.suit(card.suit, 31.5, cy, h * 0.84, p.paper)
                if p.ace_style == "double":
                    self.suit(card.suit, 31.5, cy, h * 0.55, color)
        if spade_big and p.ace_ornate:
            self.scrollwork(cy, h)
        if (p.ace_ring or spade_big) and not p.ace_ornate:
            self.ellipse(31.5, cy, h * 0.7, h * 0.7, color, thick=0.5, outline=False)
        if spade_big:  # a few flourishes round the big spade
            for sx in (-1, 1):
                pts = [
                    (31.5 + sx * h * (0.72 + 0.1 * math.sin(t)), cy + h * 0.5 * math.cos(t))
                    for t in np.linspace(0, math.pi, 9)
                ]
                self.stroke(pts, color, 0.5)

    def scrollwork(self, cy: float, h: float) -> None:
        """Light scrolls inside the big spade, mirrored about its axis: curls from the stem up, a
        leaf or a lozenge on the axis (the engraved ace of spades of most decks)."""
        rng, paper = self.rng, self.p.paper
        w = max(0.25, h * float(rng.uniform(0.018, 0.032)))
        for _ in range(int(rng.integers(2, 5))):
            x0 = h * float(rng.uniform(0.04, 0.16))
            y0 = cy + h * float(rng.uniform(-0.05, 0.28))
            r = h * float(rng.uniform(0.07, 0.14))
            turns = float(rng.uniform(1.0, 1.8))
            up = float(rng.uniform(0.1, 0.3))
            t = np.linspace(0.0, turns * 2 * math.pi, 40)
            rr = r * (1 - t / (turns * 2 * math.pi + 1.0))
            xs = x0 + h * 0.12 + rr * np.cos(t + math.pi)  # a curl out to the side, winding inwards
            ys = y0 - h * up * t / t[-1] + rr * np.sin(t + math.pi)
            for sx in (-1, 1):
                self.stroke(np.stack([31.5 + sx * xs, ys], axis=1), paper, w)
        if rng.random() < 0.7:  # on the axis: a lozenge or a leaf
            a, b = h * float(rng.uniform(0.05, 0.09)), h * float(rng.uniform(0.12, 0.22))
            yc = cy + h * float(rng.uniform(-0.12, 0.08))
            pts = [(31.5, yc - b), (31.5 + a, yc), (31.5, yc + b), (31.5 - a, yc)]
            if rng.random() < 0.5:
                self.poly(pts, paper, outline=False)
            else:
                self.stroke([*pts, pts[0]], paper, w)
        for sx in (-1, 1):  # a fine line inside the outline
            t = np.linspace(0.15, 0.85, 12)
            xs = 31.5 + sx * h * (0.18 + 0.2 * np.sin(t * math.pi))
            self.stroke(np.stack([xs, cy - h * 0.35 + h * 0.65 * t], 1), paper, w * 0.7)

    # -- court cards ------------------------------------------------------------------------------

    def court(self, card: Card, color: Color) -> None:
        p, rng, cv = self.p, self.rng, self.cv
        iw, ih = index_box(p)
        x0, y0 = float(rng.uniform(9.5, 14.0)), float(rng.uniform(8.0, 14.0))
        if x0 < iw + 0.6:  # keep the picture beside or below the corner index
            if iw + 0.6 <= 21.0:  # a narrower picture beside a jumbo index
                x0 = iw + 0.6
            else:
                y0 = max(y0, ih + 0.6)
        x1, y1 = CARD_W_MM - x0, CARD_H_MM - y0
        framed = rng.random() < 0.7 or p.court_style != "shapes"
        if p.court_ground is not None and p.court_style != "shapes":
            self.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], p.court_ground, outline=False)
        if p.court_style == "figure":
            self.figure(card, color, x0, y0, x1, y1)
        elif p.court_style == "emblem":
            self.emblem(card, color, x0, y0, x1, y1)
        else:
            self.shapes(card, color, x0, y0, x1)
        self.court_suit(card, color, x0, y0, x1)
        if p.court_letter and p.letter_place != "centre":
            self.court_letter(card, color, x0, y0, x1)
        if p.court_mirror:
            if p.court_split == "diagonal" and p.court_style == "figure":
                self.mirror_diagonal()
            else:
                cv.mirror_half()
            if p.court_style != "shapes" and rng.random() < 0.5:  # a line where the halves meet
                if p.court_split == "diagonal" and p.court_style == "figure":
                    self.stroke(
                        [(x0, 44 + self.slope * (x0 - 31.5)), (x1, 44 + self.slope * (x1 - 31.5))], color, 0.3
                    )
                else:
                    self.stroke([(x0, 44.0), (x1, 44.0)], color, 0.3)
        if framed:
            k = cv.px
            cv2.rectangle(
                cv.img,
                (int(k(x0)), int(k(y0))),
                (int(k(x1)), int(k(y1))),
                color,
                max(1, int(k(rng.uniform(0.3, 0.8)))),
                cv2.LINE_AA,
            )
        if p.court_letter and p.letter_place == "centre":
            self.text(RANK_CHARS[card.rank - 2], 31.5, 44 - 7, 14.0, color)

    slope = 0.0

    def mirror_diagonal(self) -> None:
        """Double-headed along a slanting line through the centre: below it, the upper part turned."""
        img = self.cv.img
        h, w = img.shape[:2]
        self.slope = float(self.rng.uniform(0.12, 0.3)) * (1 if self.rng.random() < 0.5 else -1)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        below = (yy - h / 2) > (xx - w / 2) * self.slope
        img[below] = img[::-1, ::-1][below]

    def court_suit(self, card: Card, color: Color, x0: float, y0: float, x1: float) -> None:
        p, rng = self.p, self.rng
        place = p.court_suit
        if place == "random" and rng.random() < 0.6:
            self.suit(
                card.suit,
                float(rng.uniform(x0 + 5, x1 - 5)),
                float(rng.uniform(44 - 12, 44 - 4)),
                float(rng.uniform(4, 8)),
                color,
            )
        elif place == "corner":  # a large symbol in the picture's upper corner, as many decks
            s = float(rng.uniform(7.0, 11.0))
            self.suit(card.suit, x0 + s * 0.6 + 1.0, y0 + s * 0.5 + 1.2, s, color)
        elif place == "chest":
            self.suit(card.suit, 31.5 + float(rng.uniform(-4, 4)), float(rng.uniform(33, 39)), 6.5, color)

    def court_letter(self, card: Card, color: Color, x0: float, y0: float, x1: float) -> None:
        """The rank letter inside the picture, printed with the upper half (so it appears twice)."""
        p, rng = self.p, self.rng
        letter = RANK_CHARS[card.rank - 2]
        if p.letter_place == "panel":
            cx, top, h = 31.5, 44.0 - 12.0, 9.0
            self.poly([(cx - 6, top - 1.5), (cx + 6, top - 1.5), (cx + 6, 44 - 1), (cx - 6, 44 - 1)], p.paper)
            self.text(letter, cx, top, h, color)
        else:
            h = float(rng.uniform(6.5, 9.0))
            cx = x1 - h * 0.55 - 1 if p.court_suit == "corner" else x0 + h * 0.55 + 1.2
            self.text(letter, cx, y0 + 1.5, h, color)

    def shapes(self, card: Card, color: Color, x0: float, y0: float, x1: float) -> None:
        """Random bands, polygons and ellipses in the deck's palette, a head and a headdress."""
        p, rng, cv, k = self.p, self.rng, self.cv, self.cv.px
        pal = [*p.court_palette, color]
        mid = CARD_H_MM / 2
        for _ in range(int(rng.integers(3, 9))):
            c = pal[int(rng.integers(len(pal)))]
            kind = rng.integers(3)
            if kind == 0:
                ya = float(rng.uniform(y0 + 1, mid - 2))
                cv2.rectangle(
                    cv.img,
                    (int(k(x0 + 1)), int(k(ya))),
                    (int(k(x1 - 1)), int(k(min(mid, ya + rng.uniform(2, 9))))),
                    c,
                    -1,
                )
            elif kind == 1:
                n = int(rng.integers(3, 7))
                pts = [
                    (k(float(rng.uniform(x0 + 1, x1 - 1))), k(float(rng.uniform(y0 + 1, mid))))
                    for _ in range(n)
                ]
                hull = cast(NDArray[np.float32], cv2.convexHull(np.array(pts, np.float32))).reshape(-1, 2)
                fill_poly(cv.img, hull, c)
            else:
                cx, cy = float(rng.uniform(x0 + 4, x1 - 4)), float(rng.uniform(y0 + 4, mid - 2))
                ax = (int(k(rng.uniform(1.5, 7))), int(k(rng.uniform(1.5, 7))))
                cv2.ellipse(
                    cv.img,
                    (int(k(cx)), int(k(cy))),
                    ax,
                    float(rng.uniform(0, 180)),
                    0,
                    360,
                    c,
                    -1,
                    cv2.LINE_AA,
                )
        hx, hy = float(rng.uniform(26, 37)), float(rng.uniform(y0 + 9, mid - 10))
        self.behind_head(card.rank, hx, hy, 4.5, 5.5, (40, 60, 90))
        self.ellipse(hx, hy, 4.5, 5.5, self.skin(), outline=False)
        if card.rank == 13 and rng.random() < 0.7:
            self.beard(hx, hy, 4.5, 5.5, (90, 90, 100))
        self.headwear(
            card.rank, hx, hy - 5.0, float(rng.uniform(8, 12)), pal[int(rng.integers(len(pal)))], color
        )

    def skin(self) -> Color:
        rng = self.rng
        return (int(rng.integers(150, 215)), int(rng.integers(185, 225)), int(rng.integers(215, 250)))

    def beard(self, hx: float, hy: float, rx: float, ry: float, c: Color) -> None:
        long = float(self.rng.uniform(4.0, 8.0))
        self.poly(
            [
                (hx - rx, hy),
                (hx - rx * 0.6, hy + ry * 0.9),
                (hx, hy + ry + long),
                (hx + rx * 0.6, hy + ry * 0.9),
                (hx + rx, hy),
                (hx + rx * 0.5, hy + ry * 0.45),
                (hx - rx * 0.5, hy + ry * 0.45),
            ],
            c,
        )

    def _band(self, hx: float, base: float, w: float, height: float, color: Color) -> None:
        """A crown's band: ``w`` wide, from just below ``base`` to ``height`` above it."""
        self.poly([(hx - w / 2, base + 1), (hx + w / 2, base + 1), (hx + w / 2, base - height),
                   (hx - w / 2, base - height)], color)

    def headwear(self, rank: int, hx: float, base: float, w: float, c: Color, ink: Color) -> None:
        """What tells the courts apart besides the index: each rank's headwear, in the deck's style
        (HEADWEAR), ``base`` the top of the head."""
        kind = HEADWEAR[rank][self.p.court_heads[13 - rank]]
        gold = c
        jewel = ink
        if kind == "points":  # a king's tall crown, five points with balls
            pts = [(hx - w / 2, base + 1), (hx - w / 2, base - 2.5)]
            for i in range(9):
                pts.append((hx - w / 2 + i * w / 8, base - 2.5 - (5.0 if i % 2 == 0 else 1.0)))
            pts += [(hx + w / 2, base - 2.5), (hx + w / 2, base + 1)]
            self.poly(pts, gold)
            for i in range(0, 9, 2):
                self.ellipse(hx - w / 2 + i * w / 8, base - 8.0, 0.8, 0.8, jewel, outline=False)
        elif kind == "closed":  # band, a dome under gold arches, an orb and cross on top
            self.ellipse(hx, base - 2.0, w * 0.45, 5.0, jewel, arc=(180, 360))
            self._band(hx, base, w, 2, gold)
            for sx in (hx - w * 0.45, hx + w * 0.45):
                self.stroke(_bez((sx, base - 2), ((sx + hx) / 2, base - 7.5), (hx, base - 7)), gold, 0.6)
            self.ellipse(hx, base - 8.0, 1.3, 1.3, gold)
            self.stroke([(hx, base - 9.2), (hx, base - 12.0)], gold, 0.6)
            self.stroke([(hx - 1.2, base - 11.0), (hx + 1.2, base - 11.0)], gold, 0.6)
        elif kind == "fleurs":  # three fleurons on a band
            self._band(hx, base, w, 2.5, gold)
            for f in (-0.35, 0.0, 0.35):
                fx = hx + f * w
                self.poly([(fx - 1.4, base - 2.5), (fx, base - 6.5), (fx + 1.4, base - 2.5)], gold)
                self.ellipse(fx, base - 7.2, 1.0, 1.4, gold)
                self.ellipse(fx - 1.5, base - 5.6, 0.9, 0.9, gold)
                self.ellipse(fx + 1.5, base - 5.6, 0.9, 0.9, gold)
        elif kind == "coronet":  # a low band with a row of pearls, one jewel
            self.poly(
                [
                    (hx - w * 0.45, base + 0.8),
                    (hx + w * 0.45, base + 0.8),
                    (hx + w * 0.42, base - 1.8),
                    (hx - w * 0.42, base - 1.8),
                ],
                gold,
            )
            for i in range(7):
                self.ellipse(hx - w * 0.4 + i * w * 0.8 / 6, base - 2.6, 0.85, 0.85, (235, 235, 240))
            self.ellipse(hx, base - 0.5, 1.0, 1.0, jewel, outline=False)
        elif kind == "arches":  # rounded arches with balls, lower than a king's crown
            self._band(hx, base, w, 2, gold)
            for i in range(3):
                ax = hx - w / 3 + i * w / 3
                self.ellipse(ax, base - 2, w / 6, 3.2, gold, arc=(180, 360))
                self.ellipse(ax, base - 5.6, 0.8, 0.8, jewel, outline=False)
        elif kind == "veil":  # a small tiara (the veil is behind the head: behind_head)
            self.poly([(hx - w * 0.35, base + 0.5), (hx, base - 4.0), (hx + w * 0.35, base + 0.5)], gold)
        elif kind == "cap":  # a slanted cap with a feather
            self.poly(
                [
                    (hx - w / 2, base + 1),
                    (hx - w / 3, base - 4),
                    (hx + w / 2.2, base - 5.5),
                    (hx + w / 2, base + 1),
                ],
                gold,
            )
            self.stroke(
                _bez((hx + w / 3, base - 4), (hx + w / 2 + 4, base - 6), (hx + w / 2 + 5, base - 12)),
                jewel,
                0.9,
            )
        elif kind == "beret":  # a flat, tilted beret with a button and a feather
            self.ellipse(hx + 1.0, base - 1.0, w * 0.62, 2.4, gold, angle=-8)
            self.ellipse(hx + 1.0, base - 3.2, 0.9, 0.9, jewel, outline=False)
            self.stroke(
                _bez((hx - w * 0.3, base - 2), (hx - w * 0.6, base - 7), (hx - w * 0.2, base - 11)),
                jewel,
                1.0,
            )
        else:  # "hat": a wide brim and a rounded crown with a band
            self.poly(
                [
                    (hx - w * 0.35, base),
                    (hx - w * 0.3, base - 6),
                    (hx + w * 0.3, base - 6),
                    (hx + w * 0.35, base),
                ],
                gold,
            )
            self.stroke([(hx - w * 0.33, base - 1.5), (hx + w * 0.33, base - 1.5)], jewel, 1.0)
            self.ellipse(hx, base + 0.3, w * 0.75, 1.3, gold)

    def behind_head(self, rank: int, hx: float, hy: float, rx: float, ry: float, hair: Color) -> None:
        """A queen's long hair, or her veil if the deck's queens wear one."""
        if rank != 12:
            return
        if HEADWEAR[12][self.p.court_heads[1]] == "veil":
            veil = _jitter(self.rng, (225, 225, 235), 20)
            self.poly(
                [
                    (hx - rx * 0.9, hy - ry),
                    (hx - rx * 2.0, hy + ry + 8),
                    (hx + rx * 2.0, hy + ry + 8),
                    (hx + rx * 0.9, hy - ry),
                ],
                veil,
            )
        else:
            self.poly(
                [
                    (hx - rx - 1.5, hy - 2),
                    (hx - rx - 2.5, hy + ry + 7),
                    (hx + rx + 2.5, hy + ry + 7),
                    (hx + rx + 1.5, hy - 2),
                ],
                hair,
            )

    def figure(self, card: Card, color: Color, x0: float, y0: float, x1: float, y1: float) -> None:
        """A drawn court figure in the deck's colours: robe with a pattern, collar, head with a face,
        hair, the rank's headwear and attribute (king: beard and sword, sceptre or orb; queen: long
        hair and flower or fan; jack: halberd, staff or feather)."""
        p, rng = self.p, self.rng
        pal = list(p.court_palette)
        double = p.court_mirror
        bottom = 44.0 + (9.0 if p.court_split == "diagonal" else 0.0) if double else y1 - 1
        cx = 31.5 + float(rng.uniform(-3, 3))
        rx = float(rng.uniform(4.0, 5.0))
        ry = rx * 1.2
        hy = y0 + 9.0 + ry + float(rng.uniform(0, 2.5))
        robe = self.pick(pal)
        trim = self.pick([*pal, color, GOLD], avoid=robe)
        hair_c = self.pick([(30, 45, 70), (40, 150, 210), (35, 35, 35), (60, 90, 140)])
        if card.rank == 13 and rng.random() < 0.4:
            hair_c = (150, 150, 160)
        self.behind_head(card.rank, cx, hy, rx, ry, hair_c)
        sh_y = hy + ry + 1.0
        sw = float(rng.uniform(8.5, 12.0))
        body = [
            (cx - sw, sh_y + 2),
            (cx - sw + 3, sh_y),
            (cx + sw - 3, sh_y),
            (cx + sw, sh_y + 2),
            (x1 - 1, bottom),
            (x0 + 1, bottom),
        ]
        self.pattern(body, robe, trim, str(rng.choice(["plain", "stripes", "checks", "dots", "band"])))
        # the collar
        collar = self.pick([*pal, GOLD, (235, 235, 240)], avoid=robe)
        if rng.random() < 0.5:  # a ruff
            pts = [
                (
                    cx + (rx + 2.5 if i % 2 else rx + 0.5) * math.cos(t),
                    sh_y + 1.5 + (2.5 if i % 2 else 1.2) * math.sin(t),
                )
                for i, t in enumerate(np.linspace(0, 2 * math.pi, 24, endpoint=False))
            ]
            self.poly(pts, collar)
        else:
            self.poly([(cx - rx - 2, sh_y - 0.5), (cx + rx + 2, sh_y - 0.5), (cx, sh_y + 5)], collar)
        # the head and face
        self.ellipse(cx, hy, rx, ry, self.skin())
        if card.rank != 12:
            self.ellipse(cx, hy - ry * 0.55, rx * 0.95, ry * 0.5, hair_c, arc=(180, 360), outline=False)
        ink_d = (40, 40, 50)
        for ex in (cx - rx * 0.4, cx + rx * 0.4):
            self.ellipse(ex, hy - 0.6, 0.5, 0.4, ink_d, outline=False)
        self.stroke([(cx, hy - 0.3), (cx - 0.5, hy + 1.6), (cx + 0.2, hy + 1.8)], ink_d, 0.25)
        self.ellipse(cx, hy + 2.8, 1.2, 0.5, (60, 60, 170), outline=False)
        if card.rank == 13 and rng.random() < 0.85:
            self.beard(cx, hy + 1.5, rx * 0.95, ry * 0.5, hair_c)
        elif card.rank == 11 and rng.random() < 0.3:
            self.stroke([(cx - 1.8, hy + 2.2), (cx, hy + 1.9), (cx + 1.8, hy + 2.2)], hair_c, 0.6)
        if card.rank == 12 and rng.random() < 0.5:  # a necklace
            for t in np.linspace(0.15, 0.85, 7):
                self.ellipse(
                    cx - 4 + 8 * t,
                    sh_y + 3 + 2 * math.sin(t * math.pi),
                    0.6,
                    0.6,
                    (235, 235, 240),
                    outline=False,
                )
        self.headwear(card.rank, cx, hy - ry * 0.8, rx * 2.3, self.pick([GOLD, *pal]), color)
        # an arm and what the hand holds
        side = 1 if rng.random() < 0.5 else -1
        hand = (cx + side * float(rng.uniform(6.5, 9.5)), sh_y + float(rng.uniform(7, 11)))
        self.poly(
            [
                (cx + side * (sw - 2.5), sh_y + 1),
                (cx + side * (sw - 0.5), sh_y + 4),
                (hand[0] + side * 1.6, hand[1] + 1.0),
                (hand[0] - side * 1.2, hand[1] - 1.0),
            ],
            trim,
        )
        self.attribute(card.rank, hand, side, y0, self.pick([*pal, GOLD, color], avoid=trim))
        self.ellipse(hand[0], hand[1], 1.5, 1.3, self.skin())

    def attribute(self, rank: int, hand: Pt, side: int, y0: float, c: Color) -> None:
        rng = self.rng
        hx, hy = hand
        steel = (200, 195, 190)
        choice = int(rng.integers(3))
        if rank == 13:
            if choice == 0:  # a sword held up
                self.poly(
                    [
                        (hx - 0.7, hy - 1.5),
                        (hx + 0.7, hy - 1.5),
                        (hx + 0.5, y0 + 3),
                        (hx, y0 + 1.5),
                        (hx - 0.5, y0 + 3),
                    ],
                    steel,
                )
                self.stroke([(hx - 2.5, hy - 1.8), (hx + 2.5, hy - 1.8)], GOLD, 0.9)
            elif choice == 1:  # a sceptre
                self.stroke([(hx, hy + 3), (hx, y0 + 5)], GOLD, 0.8)
                self.ellipse(hx, y0 + 4, 1.6, 1.6, c)
                self.stroke([(hx - 1.4, y0 + 2.0), (hx + 1.4, y0 + 2.0)], GOLD, 0.6)
            else:  # an orb with a cross
                self.ellipse(hx, hy - 2.5, 2.6, 2.6, GOLD)
                self.stroke([(hx - 2.6, hy - 2.5), (hx + 2.6, hy - 2.5)], c, 0.5)
                self.stroke([(hx, hy - 5.1), (hx, hy - 7.6)], GOLD, 0.6)
                self.stroke([(hx - 1.0, hy - 6.6), (hx + 1.0, hy - 6.6)], GOLD, 0.6)
        elif rank == 12:
            if choice < 2:  # a flower on a stem
                bloom = (hx - side * 2.5, hy - 9.0)
                self.stroke(_bez((hx, hy), (hx + side * 1.5, hy - 5), bloom), (50, 130, 40), 0.5)
                self.ellipse(
                    bloom[0] + side * 1.5, hy - 5.5, 1.3, 0.6, (50, 130, 40), angle=30, outline=False
                )
                for t in np.linspace(0, 2 * math.pi, 5, endpoint=False):
                    self.ellipse(bloom[0] + 1.3 * math.cos(t), bloom[1] + 1.3 * math.sin(t), 1.0, 1.0, c)
                self.ellipse(bloom[0], bloom[1], 0.7, 0.7, GOLD, outline=False)
            else:  # a fan
                self.ellipse(hx, hy - 1, 4.5, 4.5, c, angle=-90 - side * 20, arc=(-50, 50))
                for t in np.linspace(-50, 50, 5):
                    a = math.radians(-90 - side * 20 + t)
                    self.stroke(
                        [(hx, hy - 1), (hx + 4.5 * math.cos(a), hy - 1 + 4.5 * math.sin(a))],
                        (40, 40, 40),
                        0.2,
                    )
        elif choice == 0:  # a halberd: a long staff, an axe blade and a spike
            top = y0 + 2.0
            self.stroke([(hx, hy + 4), (hx, top)], (40, 80, 120), 0.8)
            self.poly(
                [(hx, top + 3), (hx + side * 3.5, top + 1.5), (hx + side * 3.5, top + 6), (hx, top + 5)],
                steel,
            )
            self.poly([(hx - 0.6, top + 1), (hx, top - 1.5), (hx + 0.6, top + 1)], steel)
        elif choice == 1:  # a staff with a knob
            self.stroke([(hx, hy + 4), (hx + side * 1.5, y0 + 4)], (40, 80, 120), 0.9)
            self.ellipse(hx + side * 1.5, y0 + 3.5, 1.2, 1.2, c)
        else:  # a feather or leaf held up
            tip = (hx - side * 3.0, hy - 11.0)
            self.poly(
                np.concatenate(
                    [
                        _bez((hx, hy), (hx + side * 2.5, hy - 6), tip),
                        _bez(tip, (hx - side * 3.0, hy - 4), (hx, hy))[1:],
                    ]
                ),
                c,
            )

    def pattern(self, poly: Sequence[Pt], c1: Color, c2: Color, kind: str) -> None:
        """Fill ``poly`` (mm) with ``c1`` and a pattern in ``c2``: stripes, harlequin checks, dots or a
        centre band; then outline it."""
        k = self.cv.k
        arr = np.asarray(poly, np.float64) * k
        x_lo, y_lo = np.floor(arr.min(axis=0)).astype(int)
        x_hi, y_hi = np.ceil(arr.max(axis=0)).astype(int) + 1
        x_lo, y_lo = max(0, x_lo), max(0, y_lo)
        sub = self.cv.img[y_lo:y_hi, x_lo:x_hi]
        h, w = sub.shape[:2]
        tile = np.empty_like(sub)
        tile[:] = c1
        step = max(4, int(k * float(self.rng.uniform(2.5, 4.5))))
        if kind == "stripes":
            for xx in range(0, w, 2 * step):
                tile[:, xx : xx + step] = c2
        elif kind == "checks":
            for j, yy in enumerate(range(0, h + 2 * step, 2 * step)):
                for xx in range(-(j % 2) * step, w + 2 * step, 2 * step):
                    diamond = np.array([[xx, yy - step], [xx + step, yy], [xx, yy + step], [xx - step, yy]])
                    fill_poly(tile, diamond.astype(np.float64), c2)
        elif kind == "dots":
            for j, yy in enumerate(range(step // 2, h, step)):
                for xx in range((j % 2) * step // 2, w, step):
                    cv2.circle(tile, (xx, yy), max(1, step // 5), c2, -1, cv2.LINE_AA)
        elif kind == "band":
            mx = int(w / 2)
            tile[:, max(0, mx - step) : mx + step] = c2
        mask = np.zeros((h, w, 3), np.uint8)
        fill_poly(mask, arr - (x_lo, y_lo), (255, 255, 255))
        a = mask[..., :1].astype(np.float32) / 255
        sub[:] = (sub * (1 - a) + tile * a + 0.5).astype(np.uint8)
        if self.line is not None:
            cv2.polylines(
                self.cv.img,
                [np.round(arr * 16).astype(np.int32)],
                True,
                self.line,
                max(1, round(k * 0.3)),
                cv2.LINE_AA,
                shift=4,
            )

    def emblem(self, card: Card, color: Color, x0: float, y0: float, x1: float, y1: float) -> None:
        """A geometric court: bands across the frame, a medallion with the big rank letter and the
        rank's headwear above it, suit symbols at its sides."""
        p, rng = self.p, self.rng
        pal = list(p.court_palette)
        mid = 44.0
        n = int(rng.integers(1, 4))
        for i in range(n):
            ya = y0 + 2 + i * (mid - y0 - 2) / n
            self.poly(
                [
                    (x0 + 1, ya),
                    (x1 - 1, ya),
                    (x1 - 1, ya + (mid - y0 - 2) / n * 0.7),
                    (x0 + 1, ya + (mid - y0 - 2) / n * 0.7),
                ],
                pal[i % len(pal)],
                outline=False,
            )
        my = mid - float(rng.uniform(10, 13))
        ground = p.court_ground or p.paper
        if rng.random() < 0.5:
            self.ellipse(31.5, my, 9.0, 9.5, ground)
            self.ellipse(31.5, my, 9.0, 9.5, color, thick=0.5, outline=False)
        else:  # a shield
            pts = [(22.5, my - 9), (40.5, my - 9), (40.5, my + 2), (31.5, my + 10), (22.5, my + 2)]
            self.poly(pts, ground)
            self.stroke([*pts, pts[0]], color, 0.5)
        letter = RANK_CHARS[card.rank - 2]
        m = self.word_mask(letter, float(rng.uniform(10, 13)), p.index_font or p.joker_font)
        self.blit(m, 31.5, my + 0.5, color)
        self.headwear(card.rank, 31.5, my - 9.5, 12.0, self.pick([GOLD, *pal]), color)
        if p.court_suit in ("random", "none"):
            for sx in (x0 + 5.5, x1 - 5.5):
                self.suit(card.suit, sx, my + 3, 5.5, color)

    # -- jokers -----------------------------------------------------------------------------------

    def joker(self) -> None:
        p, rng, cv = self.p, self.rng, self.cv
        c = p.joker_color
        word = p.joker_text
        lo, hi = 10.0, CARD_W_MM - 10.0  # the picture's room across the card
        place = p.joker_word
        if place == "side":  # big letters stacked down the left edge, turned at the right edge
            h = float(rng.uniform(4.5, 6.2))
            top, wmax = 3.0, 0.0
            for ch in word:
                hh = h * (0.72 if ch in "oer" else 1.0)
                mw, _ = self.blit(self.word_mask(ch, hh, p.joker_font), 5.8, top + h - hh / 2, c)
                wmax = max(wmax, mw)
                top += h * 1.25
            cv.copy_corner(5.8 + wmax / 2 + 1.5, top + 0.5, p.four_index)
            lo, hi = 5.8 + wmax / 2 + 3.0, CARD_W_MM - 5.8 - wmax / 2 - 3.0
        elif place == "rotated":  # the word along the left edge, reading upwards, turned at the right
            h = float(rng.uniform(3.5, 5.5))
            m = self.word_mask(word, h, p.joker_font)
            length = m.shape[1] / cv.k
            self.blit(m, 3.5 + h / 2, 4.0 + length / 2, c, angle=90)
            cv.copy_corner(5.0 + h, 5.0 + length, p.four_index)
            lo, hi = 6.5 + h, CARD_W_MM - 6.5 - h
        elif p.joker_corner == "vertical":
            top = p.index_top
            h = float(rng.uniform(2.8, 4.2))
            for ch in "JOKER":
                top = self.text(ch, p.index_cx - 0.5, top, h, c) + h * 0.25
            cv.copy_corner(p.index_cx + 3.0, top + 0.5, p.four_index)
            lo = max(lo, p.index_cx + 4.0)
            hi = CARD_W_MM - lo
        elif p.joker_corner == "star":
            self._star(p.index_cx, p.index_top + 4, 3.5, c)
            cv.copy_corner(p.index_cx + 4.5, p.index_top + 8.5, p.four_index)
        has_word = place in ("bottom", "top-bottom", "arc")
        y_lo, y_hi = 12.0, (62.0 if has_word else 76.0)
        if place == "top-bottom":
            y_lo = 22.0
        art = p.joker_art
        if art == "legacy":
            self.joker_legacy(c)
        elif art == "jester":
            self.jester_picture(lo, hi, y_lo, y_hi)
        elif art == "suits":
            self.joker_suits(lo, hi, y_lo, y_hi)
        elif art == "hat":
            pal = p.court_palette
            draw_jester(
                cv,
                31.5,
                (y_lo + y_hi) / 2 - 2,
                (y_lo + y_hi) / 2 + 6,
                pal[0],
                GOLD if rng.random() < 0.5 else pal[-1],
            )
            if rng.random() < 0.6:
                self._star(31.5, y_hi - 6, 5.0, pal[min(1, len(pal) - 1)])
        else:  # "word": the word big and slanted across the card, with stars
            m = self.word_mask(word, float(rng.uniform(9, 13)), p.joker_font)
            wmm = m.shape[1] / cv.k
            scale = min(1.0, (hi - lo + 8) / wmm)
            if scale < 1.0:
                m = as_image(
                    cv2.resize(
                        m,
                        (max(1, int(m.shape[1] * scale)), max(1, int(m.shape[0] * scale))),
                        interpolation=cv2.INTER_AREA,
                    )
                )
            self.blit(
                m, 31.5, (y_lo + y_hi) / 2, self.pick([c, *p.court_palette]), angle=float(rng.uniform(35, 60))
            )
            for sy in (y_lo + 6, y_hi - 6):
                self._star(
                    31.5 + float(rng.uniform(-8, 8)),
                    sy,
                    float(rng.uniform(3, 5)),
                    self.pick([c, *p.court_palette]),
                )
        if place in ("bottom", "top-bottom"):
            h = float(rng.uniform(4, 7))
            m = self.word_mask(word, h, p.joker_font)
            wmm = m.shape[1] / cv.k
            if wmm > hi - lo + 10:
                m = as_image(
                    cv2.resize(
                        m,
                        (int(cv.px(hi - lo + 10)), max(1, int(m.shape[0] * (hi - lo + 10) / wmm))),
                        interpolation=cv2.INTER_AREA,
                    )
                )
            y = float(rng.uniform(66, 74))
            self.blit(m, 31.5, y, c)
            if place == "top-bottom":
                self.blit(m, 31.5, CARD_H_MM - y, c, angle=180)
        elif place == "arc":
            self.arc_word(word, c)

    def arc_word(self, word: str, c: Color) -> None:
        """The word's letters along an arc under the picture."""
        rng = self.rng
        h = float(rng.uniform(4.5, 6.5))
        r = float(rng.uniform(24, 34))
        cy = 70.0 - r
        span = min(100.0, h * 1.05 * len(word) / r * 180 / math.pi)
        for i, ch in enumerate(word):
            a = math.radians(90 + span / 2 - i * span / max(1, len(word) - 1))
            hh = h * (0.72 if ch in "oer" else 1.0)
            self.blit(
                self.word_mask(ch, hh, self.p.joker_font),
                31.5 + r * math.cos(a),
                cy + r * math.sin(a),
                c,
                angle=90 - math.degrees(a),
            )

    def joker_legacy(self, c: Color) -> None:
        p, rng, cv, k = self.p, self.rng, self.cv, self.cv.px
        cx = 31.5
        kind = rng.integers(3)
        if kind == 0:  # jester hat
            draw_jester(cv, cx, 36, 44, p.court_palette[0], p.court_palette[-1])
        elif kind == 1:
            self._star(cx, 44, float(rng.uniform(8, 14)), c)
        else:
            for _ in range(int(rng.integers(3, 7))):
                col = p.court_palette[int(rng.integers(len(p.court_palette)))]
                cv2.circle(
                    cv.img,
                    (int(k(rng.uniform(18, 45))), int(k(rng.uniform(20, 68)))),
                    int(k(rng.uniform(2, 8))),
                    col,
                    -1,
                    cv2.LINE_AA,
                )

    def joker_suits(self, lo: float, hi: float, y_lo: float, y_hi: float) -> None:
        """The four suits in their inks: a square, a diamond or a column, sometimes tilted."""
        p, rng = self.p, self.rng
        cx, cy = (lo + hi) / 2, (y_lo + y_hi) / 2
        room = min(hi - lo, y_hi - y_lo)
        s = float(rng.uniform(0.26, 0.36)) * room
        arrangement = int(rng.integers(3))
        order = ["h", "s", "c", "d"] if rng.random() < 0.5 else ["s", "h", "d", "c"]
        if arrangement == 0:
            d = s * 0.62
            spots = [(cx - d, cy - d), (cx + d, cy - d), (cx - d, cy + d), (cx + d, cy + d)]
        elif arrangement == 1:
            d = s * 0.85
            spots = [(cx, cy - d), (cx - d, cy), (cx + d, cy), (cx, cy + d)]
        else:
            s = min(s, (y_hi - y_lo) / 4.6)
            spots = [(cx, y_lo + (i + 0.5) * (y_hi - y_lo) / 4) for i in range(4)]
        tilt = float(rng.uniform(-25, 25)) if rng.random() < 0.5 else 0.0
        for (x, y), st in zip(spots, order, strict=True):
            self.suit(st, x, y, s, p.inks[st], angle=tilt * (1 if st in "hd" else -1))

    def jester_picture(self, lo: float, hi: float, y_lo: float, y_hi: float) -> None:
        """A full-colour jester: a hat of two to four floppy points with bells, a face, a ruff, motley
        or harlequin clothes, and a bauble stick; sometimes in a medallion or double-headed."""
        p, rng, cv = self.p, self.rng, self.cv
        pal = [*p.court_palette, p.inks["h"], GOLD]
        double = p.joker_mirror and p.joker_word not in ("bottom", "top-bottom", "arc")
        if double:
            y_lo, y_hi = 8.0, 44.0
        s = min((hi - lo) / 42.0, (y_hi - y_lo) / 52.0)
        cx = (lo + hi) / 2
        top = y_lo + 1.0
        if rng.random() < 0.3 and not double:  # a medallion behind the bust
            r = min(hi - lo, y_hi - y_lo) / 2
            self.ellipse(cx, (y_lo + y_hi) / 2, r, r, _jitter(rng, (200, 230, 245), 30))
        hy = top + 21 * s
        rx, ry = 6.0 * s, 7.0 * s
        c1 = self.pick(pal)
        c2 = self.pick(pal, avoid=c1)
        # the body: motley (halves of two colours) or harlequin checks
        sh = hy + ry + 1.0 * s
        bottom = y_hi if not double else 44.0
        body = [(cx - 9 * s, sh), (cx + 9 * s, sh), (cx + 17 * s, bottom), (cx - 17 * s, bottom)]
        if rng.random() < 0.5:
            self.pattern(body, c1, c2, "checks")
        else:
            self.poly([body[0], (cx, sh), (cx, bottom), body[3]], c1)
            self.poly([(cx, sh), body[1], body[2], (cx, bottom)], c2)
        # the ruff: points round the neck, bells on them sometimes
        ruff_c = self.pick([*pal, (240, 240, 245)], avoid=c1)
        n = int(rng.integers(5, 9))
        pts: list[Pt] = [(cx - 9 * s, sh - 1 * s)]
        for i in range(n):
            x_a = cx - 9 * s + (i + 0.5) * 18 * s / n
            pts += [(x_a, sh + 6 * s), (cx - 9 * s + (i + 1) * 18 * s / n, sh)]
        pts.append((cx + 9 * s, sh - 1 * s))
        self.poly(pts, ruff_c)
        if rng.random() < 0.5:
            for i in range(n):
                self.ellipse(cx - 9 * s + (i + 0.5) * 18 * s / n, sh + 6.5 * s, 0.9 * s, 0.9 * s, GOLD)
        # the hat: floppy points from the head's top, alternating colours, bells at the tips
        npts = int(rng.integers(2, 5))
        base_y = hy - ry * 0.55
        spread = float(rng.uniform(0.75, 1.0))
        for i in range(npts):
            f = (i - (npts - 1) / 2) / max(1, (npts - 1) / 2)  # -1 .. 1
            tip = (cx + f * 17 * s * spread, hy - ry - (12 - 5 * abs(f)) * s)
            droop = (cx + f * 19 * s * spread, hy - ry * 0.3 + (2 * s if abs(f) > 0.5 else -6 * s))
            end = droop if abs(f) > 0.3 and rng.random() < 0.7 else tip
            bx = cx + f * 4 * s
            side_a = _bez(
                (bx - 3.5 * s, base_y), ((bx + end[0]) / 2 - 3 * s, min(base_y, end[1]) - 6 * s), end
            )
            side_b = _bez(
                end, ((bx + end[0]) / 2 + 3 * s, min(base_y, end[1]) - 3 * s), (bx + 3.5 * s, base_y)
            )
            self.poly(np.concatenate([side_a, side_b[1:]]), c1 if i % 2 == 0 else c2)
            self.ellipse(end[0], end[1], 1.6 * s, 1.6 * s, GOLD)
        # the face
        self.ellipse(cx, hy, rx, ry, self.skin())
        band_c = self.pick(pal, avoid=c1)
        self.poly(
            [
                (cx - rx * 1.05, hy - ry * 0.45),
                (cx + rx * 1.05, hy - ry * 0.45),
                (cx + rx * 0.9, hy - ry * 0.8),
                (cx - rx * 0.9, hy - ry * 0.8),
            ],
            band_c,
        )
        ink_d = (40, 40, 50)
        for ex in (cx - rx * 0.38, cx + rx * 0.38):
            self.ellipse(ex, hy - ry * 0.1, 0.7 * s, 0.9 * s, ink_d, outline=False)
        self.ellipse(cx, hy + ry * 0.2, 1.1 * s, 1.1 * s, (50, 50, 200), outline=False)
        self.ellipse(
            cx, hy + ry * 0.45, rx * 0.5, ry * 0.25, (50, 40, 150), arc=(0, 180), thick=0.5 * s, outline=False
        )
        for ex in (cx - rx * 0.6, cx + rx * 0.6):
            self.ellipse(ex, hy + ry * 0.3, 1.2 * s, 0.8 * s, (150, 150, 240), outline=False)
        # the bauble stick (a marotte) in one hand
        if rng.random() < 0.6:
            side = 1 if rng.random() < 0.5 else -1
            hand = (cx + side * 12 * s, sh + 12 * s)
            head = (cx + side * 15 * s, sh - 6 * s)
            self.stroke([hand, head], (40, 80, 120), 0.8 * s)
            self.ellipse(head[0], head[1], 2.2 * s, 2.4 * s, self.skin())
            self.poly(
                [
                    (head[0] - 2.5 * s, head[1] - 1.5 * s),
                    (head[0] - 3.5 * s, head[1] - 6 * s),
                    (head[0], head[1] - 2.5 * s),
                    (head[0] + 3.5 * s, head[1] - 6 * s),
                    (head[0] + 2.5 * s, head[1] - 1.5 * s),
                ],
                c2,
            )
            self.ellipse(hand[0], hand[1], 1.6 * s, 1.4 * s, self.skin())
        if double:
            cv.mirror_half()

    def _star(self, cx: float, cy: float, r: float, color: Color) -> None:
        k = self.cv.px
        pts = star_points(cx, cy, r, r * 0.42)
        fill_poly(self.cv.img, [(k(x), k(y)) for x, y in pts], color)

    def back(self) -> None:
        p, cv, k = self.p, self.cv, self.cv.px
        m = p.back_margin
        x0, y0, x1, y1 = int(k(m)), int(k(m)), int(k(CARD_W_MM - m)), int(k(CARD_H_MM - m))
        bg, acc = p.back_colors
        cv.img[y0:y1, x0:x1] = bg
        sub = cv.img[y0:y1, x0:x1]
        h, w = sub.shape[:2]
        step = max(4, int(k(p.back_step)))
        th = max(1, int(k(0.4)))
        kind = p.back_kind
        if kind == "lattice":
            draw_lattice(sub, step, acc, th)
        elif kind in ("rings", "dots"):
            draw_ring_grid(sub, step, acc, th if kind == "rings" else -1)
        elif kind == "stripes":
            for off in range(-h, w + h, step):
                cv2.line(sub, (off, 0), (off + h, h), acc, max(1, step // 3), cv2.LINE_AA)
        elif kind == "checks":
            for yy in range(0, h, step):
                for xx in range((yy // step) % 2 * step, w, 2 * step):
                    sub[yy : yy + step, xx : xx + step] = acc
        elif kind == "frames":
            for i in range(0, min(w, h) // 2, step):
                cv2.rectangle(sub, (i, i), (w - 1 - i, h - 1 - i), acc, th, cv2.LINE_AA)
        elif kind == "noise":
            rng = np.random.default_rng([p.seed, 0xBAC])
            n = rng.normal(0, 1, (h // 8 + 1, w // 8 + 1, 1)).astype(np.float32)
            n = cast(NDArray[np.float32], cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC))[..., None]
            mix = (np.tanh(n) + 1) / 2
            sub[:] = (np.array(bg, np.float32) * (1 - mix) + np.array(acc, np.float32) * mix).astype(np.uint8)
        else:  # solid with a centre emblem
            cv2.ellipse(sub, (w // 2, h // 2), (w // 4, h // 5), 0, 0, 360, acc, max(th, 2), cv2.LINE_AA)
        if m > 1.0:
            cv2.rectangle(sub, (th, th), (w - 1 - th, h - 1 - th), acc, th, cv2.LINE_AA)

    def face(self, key: str) -> Image:
        p = self.p
        if key == BACK:
            self.back()
            return self.cv.finish()
        card = parse_card(key)
        if card == JOKER:
            self.joker()
            return self.cv.finish()
        color = p.inks[card.suit]
        if p.face_frame:
            k = self.cv.px
            cv2.rectangle(
                self.cv.img,
                (int(k(2.2)), int(k(2.2))),
                (int(k(CARD_W_MM - 2.2)), int(k(CARD_H_MM - 2.2))),
                color,
                max(1, int(k(0.3))),
                cv2.LINE_AA,
            )
        if card.rank in (11, 12, 13):
            self.court(card, color)
        elif card.rank == 14:
            self.ace(card, color)
        else:
            self.pips(card, color)
        self.index("10" if card.rank == 10 else RANK_CHARS[card.rank - 2], card.suit, color)
        return self.cv.finish()


def draw_random_face(params: DesignParams, key: str) -> Image:
    """One BGRA texture (TEX_H x TEX_W) of a generated deck."""
    return _Painter(params, key).face(key)


# Generated decks are many (hundreds in one dataset): their textures share one bounded cache rather
# than each deck holding all 54 for the life of the process.
_TEXTURES: OrderedDict[tuple[int, str], tuple[Image, ...]] = OrderedDict()
_TEXTURE_LIMIT = 2500  # ~0.75 MB each with mips: ~1.9 GB at most
_LOCK = threading.Lock()


class ProceduralDesign(CardDesign):
    def __init__(self, seed: int) -> None:
        super().__init__(f"{PREFIX}{seed}")
        self.params = design_params(seed)

    def mips(self, key: str, variant: int = 0) -> tuple[Image, ...]:
        if key not in CLASS_KEYS:
            raise KeyError(f"no card {key!r} in a design (keys: 52 cards like 'As', 'Jk', 'back')")
        ck = (self.params.seed, key)
        with _LOCK:
            got = _TEXTURES.get(ck)
            if got is not None:
                _TEXTURES.move_to_end(ck)
                return got
        got = _mips(draw_random_face(self.params, key))
        with _LOCK:
            _TEXTURES[ck] = got
            while len(_TEXTURES) > _TEXTURE_LIMIT:
                _TEXTURES.popitem(last=False)
        return got


def parse_spec(spec: str) -> list[int]:
    """Seeds in ``proc:7`` or a range ``proc:0-199``."""
    body = spec[len(PREFIX) :]
    try:
        if "-" in body:
            a, b = (int(x) for x in body.split("-", 1))
            if b < a:
                raise ValueError
            return list(range(a, b + 1))
        return [int(body)]
    except ValueError:
        raise DesignError(
            f"generated design {spec!r}: expected proc:SEED or proc:FIRST-LAST (seeds are integers)"
        ) from None
