"""Procedurally randomised card designs: ``proc:<seed>`` is one whole deck, the same for the same seed.

Two drawn designs teach a classifier those two designs: it read 26% of an unseen deck right. Real
rooms use many decks, so training draws from hundreds of generated ones (domain randomisation): the
index typeface, size and place, suit shapes (polygons of several proportions, or a font's glyphs),
inks (red/black, sometimes a four-colour poker deck), pip layout, paper tint, court and joker
artwork and the back. What stays fixed is what every deck shares and what the classifier should
learn: the rank and suit in the corner index, pips for number cards, a court picture for J, Q, K.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from monitor.render.card_art import (
    CARD_H_MM,
    CARD_W_MM,
    PIP_LAYOUT,
    Canvas,
    Color,
    draw_jester,
    draw_lattice,
    draw_ring_grid,
    star_points,
)
from monitor.render.deck import BACK, CLASS_KEYS, CardDesign, DesignError, _mips
from monitor.render.fonts import SUIT_CODEPOINTS, draw_text, index_fonts, suit_fonts
from monitor.render.suits import draw_suit, fill_poly
from monitor.rules.cards import JOKER, RANK_CHARS, Card, parse_card

Image = NDArray[np.uint8]
PREFIX = "proc:"
HERSHEY = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
)
BACK_KINDS = ("lattice", "rings", "dots", "stripes", "checks", "frames", "solid", "noise")


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
    hsv = np.uint8([[[rng.integers(0, 180), rng.integers(90, 256), rng.integers(70, 240)]]])
    b, g, r = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0]
    return (int(b), int(g), int(r))


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
    return DesignParams(
        seed=seed,
        paper=paper,
        inks=inks,
        index_font=index_font,
        hershey=int(HERSHEY[int(rng.integers(len(HERSHEY)))]),
        index_h=index_h,
        index_cx=float(rng.uniform(4.3, 7.0)) + max(0.0, index_h - 9) * 0.35,
        index_top=float(rng.uniform(2.5, 5.0)),
        index_suit_h=float(rng.uniform(3.5, 7.0)),
        suit_beside=bool(rng.random() < 0.06),
        four_index=bool(rng.random() < 0.2),
        squeeze_ten=float(rng.uniform(0.7, 1.0)),
        suit_font=suit_font,
        suit_aspect=float(rng.uniform(0.85, 1.15)),
        pip_h=float(rng.uniform(7.0, 15.0)),
        pip_dx=float(rng.uniform(9.5, 14.0)),
        pip_top=float(rng.uniform(14.0, 20.0)),
        pip_bottom=float(rng.uniform(68.0, 74.0)),
        ace_h=float(rng.uniform(11.0, 28.0)),
        ace_ring=bool(rng.random() < 0.25),
        face_frame=bool(rng.random() < 0.15),
        court_mirror=bool(rng.random() < 0.8),
        court_palette=palette,
        court_letter=bool(rng.random() < 0.3),
        joker_corner=str(rng.choice(["vertical", "vertical", "vertical", "star", "none"])),
        joker_color=red if rng.random() < 0.4 else (black if rng.random() < 0.6 else palette[0]),
        back_kind=str(rng.choice(BACK_KINDS)),
        back_colors=(bg, accent),
        back_margin=float(rng.uniform(0.0, 5.0)),
        back_step=float(rng.uniform(2.0, 7.0)),
    )


class _Painter:
    """Draws one face of a generated deck on a supersampled canvas."""

    def __init__(self, p: DesignParams, key: str) -> None:
        self.p = p
        self.cv = Canvas(p.paper)
        # per-card randomness (court artwork, joker) fixed by the design seed and the card
        self.rng = np.random.default_rng([p.seed, CLASS_KEYS.index(key), 0xFACE])

    def suit(self, s: str, cx: float, cy: float, h: float, color: Color, flip: bool = False) -> None:
        cv, p = self.cv, self.p
        if p.suit_font is not None:
            top = cv.px(cy - h / 2) if not flip else cv.px(cy + h / 2)
            draw_text(cv.img, SUIT_CODEPOINTS[s], p.suit_font, cv.px(cx), top, cv.px(h), color, flip=flip)
        else:
            draw_suit(cv.img, s, cv.px(cx), cv.px(cy), cv.px(h), color, flip, p.suit_aspect)

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
                mask = cv2.resize(tmp[..., 0], (max(1, round(tmp.shape[1] * squeeze)), tmp.shape[0]))
                from monitor.render.fonts import blend_mask

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
            w, hh = p.index_cx + h * 0.8 + p.index_suit_h + 1.0, p.index_top + h + 1.5
        else:
            bottom = self.text(rank_text, p.index_cx, p.index_top, h, color, p.squeeze_ten if ten else 1.0)
            self.suit(s, p.index_cx, bottom + 1.0 + p.index_suit_h / 2, p.index_suit_h, color)
            w = p.index_cx + max(h * 0.55, p.index_suit_h * 0.6) + 1.2
            hh = bottom + 1.6 + p.index_suit_h
        self.cv.copy_corner(min(w, CARD_W_MM / 2 - 1), min(hh, CARD_H_MM / 2 - 1), p.four_index)

    def pips(self, card: Card, color: Color) -> None:
        p = self.p
        # remap the standard layout (columns 19.5/31.5/43.5, rows 17..71) to this deck's proportions
        for x, y in PIP_LAYOUT[card.rank]:
            nx = 31.5 + (x - 31.5) / 12.0 * p.pip_dx
            ny = p.pip_top + (y - 17.0) / 54.0 * (p.pip_bottom - p.pip_top)
            self.suit(card.suit, nx, ny, p.pip_h, color, flip=ny > (p.pip_top + p.pip_bottom) / 2 + 0.1)

    def ace(self, card: Card, color: Color) -> None:
        p = self.p
        self.suit(card.suit, 31.5, 44.0, p.ace_h, color)
        if p.ace_ring:
            k = self.cv.px
            cv2.circle(
                self.cv.img,
                (int(k(31.5)), int(k(44.0))),
                int(k(p.ace_h * 0.7)),
                color,
                max(1, int(k(0.5))),
                cv2.LINE_AA,
            )

    def court(self, card: Card, color: Color) -> None:
        """A random figure in a frame: bands, polygons and ellipses in the deck's palette, a head, a
        headdress; mirrored top to bottom like a double-headed court card."""
        p, rng, cv, k = self.p, self.rng, self.cv, self.cv.px
        x0, y0 = float(rng.uniform(9.5, 14.0)), float(rng.uniform(8.0, 14.0))
        x1, y1 = CARD_W_MM - x0, CARD_H_MM - y0
        pal = [*p.court_palette, color]
        if rng.random() < 0.7:
            cv2.rectangle(
                cv.img,
                (int(k(x0)), int(k(y0))),
                (int(k(x1)), int(k(y1))),
                color,
                max(1, int(k(rng.uniform(0.3, 0.8)))),
                cv2.LINE_AA,
            )
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
                hull = cv2.convexHull(np.array(pts, np.float32)).reshape(-1, 2)
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
        # a head and a headdress that differs by rank (crown points), as most courts have
        hx, hy = float(rng.uniform(26, 37)), float(rng.uniform(y0 + 9, mid - 10))
        skin = (int(rng.integers(150, 215)), int(rng.integers(185, 225)), int(rng.integers(215, 250)))
        cv2.ellipse(
            cv.img, (int(k(hx)), int(k(hy))), (int(k(4.5)), int(k(5.5))), 0, 0, 360, skin, -1, cv2.LINE_AA
        )
        pts_n = {11: 2, 12: 4, 13: 5}[card.rank]
        w = float(rng.uniform(8, 12))
        crown = [(hx - w / 2, hy - 5)]
        for i in range(pts_n * 2 + 1):
            crown.append((hx - w / 2 + i * w / (pts_n * 2), hy - 5 - (4.5 if i % 2 else 1.5)))
        crown.append((hx + w / 2, hy - 5))
        fill_poly(cv.img, [(k(x), k(y)) for x, y in crown], pal[int(rng.integers(len(pal)))])
        if rng.random() < 0.6:
            self.suit(
                card.suit,
                float(rng.uniform(x0 + 5, x1 - 5)),
                float(rng.uniform(mid - 12, mid - 4)),
                float(rng.uniform(4, 8)),
                color,
            )
        if p.court_mirror:
            cv.mirror_half()
        if p.court_letter:
            letter = RANK_CHARS[card.rank - 2]
            self.text(letter, 31.5, 44 - 7, 14.0, color)

    def joker(self) -> None:
        p, rng, cv, k = self.p, self.rng, self.cv, self.cv.px
        c = p.joker_color
        if p.joker_corner == "vertical":
            top = p.index_top
            h = float(rng.uniform(2.8, 4.2))
            for ch in "JOKER":
                top = self.text(ch, p.index_cx - 0.5, top, h, c) + h * 0.25
            cv.copy_corner(p.index_cx + 3.0, top + 0.5, p.four_index)
        elif p.joker_corner == "star":
            self._star(p.index_cx, p.index_top + 4, 3.5, c)
            cv.copy_corner(p.index_cx + 4.5, p.index_top + 8.5, p.four_index)
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
        if rng.random() < 0.6:
            self.text("JOKER", cx, float(rng.uniform(60, 72)), float(rng.uniform(4, 7)), c)

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
            n = cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)[..., None]
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
