"""The project's own card designs, drawn with OpenCV at true size (63 x 88 mm, rounded corners).

Two designs ship: ``classic`` (serif index, standard pips, red-and-black court figures, red lattice
back) and ``jumbo`` (the large-index style casinos use for overhead cameras, navy ink, geometric
court cards, blue ring back). Each face is drawn at ``2 * PX_PER_MM`` and area-downsampled, which
anti-aliases the pips and glyphs. Images are BGRA uint8; alpha carries the rounded corners.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from monitor.perception.imageio import as_image
from monitor.render.suits import Color, draw_suit, fill_poly
from monitor.rules.cards import JOKER, RANK_CHARS, Card

CARD_W_MM = 63.0
CARD_H_MM = 88.0
CORNER_R_MM = 3.2
PX_PER_MM = 5  # texture density: 315 x 440 px; enough for a 4K close-up, mip-mapped for smaller views
TEX_W = int(CARD_W_MM * PX_PER_MM)
TEX_H = int(CARD_H_MM * PX_PER_MM)
_SS = 2  # supersampling factor for drawing

Image = NDArray[np.uint8]


@dataclass(frozen=True)
class DrawnStyle:
    name: str
    red: Color  # BGR
    black: Color
    font: int
    index_height_mm: float
    index_thickness: float
    index_suit_mm: float
    pip_mm: float
    court_colors: tuple[Color, Color, Color]  # robe, trim, skin-ish (BGR)
    back_color: Color
    back_accent: Color
    back_kind: str  # "lattice" | "rings"


STYLES: dict[str, DrawnStyle] = {
    "classic": DrawnStyle(
        "classic",
        red=(40, 25, 200),
        black=(25, 25, 25),
        font=cv2.FONT_HERSHEY_TRIPLEX,
        index_height_mm=7.5,
        index_thickness=1.35,
        index_suit_mm=5.2,
        pip_mm=10.0,
        court_colors=((60, 40, 180), (40, 190, 230), (190, 210, 240)),
        back_color=(45, 35, 170),
        back_accent=(235, 235, 245),
        back_kind="lattice",
    ),
    "jumbo": DrawnStyle(
        "jumbo",
        red=(50, 40, 220),
        black=(70, 35, 20),
        font=cv2.FONT_HERSHEY_DUPLEX,
        index_height_mm=11.0,
        index_thickness=2.0,
        index_suit_mm=6.2,
        pip_mm=8.5,
        court_colors=((150, 90, 30), (60, 170, 240), (170, 200, 235)),
        back_color=(140, 80, 25),
        back_accent=(230, 220, 200),
        back_kind="rings",
    ),
}


def rounded_card_alpha(w: int, h: int, px_per_mm: float) -> Image:
    """An anti-aliased alpha mask of a card with rounded corners."""
    ss = 4
    m = np.zeros((h * ss, w * ss), np.uint8)
    r = round(CORNER_R_MM * px_per_mm * ss)
    cv2.rectangle(m, (r, 0), (w * ss - 1 - r, h * ss - 1), 255, -1)
    cv2.rectangle(m, (0, r), (w * ss - 1, h * ss - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w * ss - 1 - r, r), (r, h * ss - 1 - r), (w * ss - 1 - r, h * ss - 1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1)
    return as_image(cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA))


class _Canvas:
    """A card face (white unless ``paper`` says) at supersampled resolution, addressed in millimetres."""

    def __init__(self, paper: Color = (255, 255, 255)) -> None:
        self.k = PX_PER_MM * _SS
        self.img = np.full((TEX_H * _SS, TEX_W * _SS, 3), paper, np.uint8)

    def px(self, mm: float) -> float:
        return mm * self.k

    def text(
        self, s: str, cx_mm: float, top_mm: float, height_mm: float, color: Color, font: int, thick_mm: float
    ) -> float:
        """Draw ``s`` centred on cx, its cap top at top_mm, cap height height_mm; returns its bottom (mm)."""
        (tw, th), _ = cv2.getTextSize(s, font, 1.0, 1)
        scale = self.px(height_mm) / th
        thick = max(1, round(self.px(thick_mm)))
        (tw, th), _ = cv2.getTextSize(s, font, scale, thick)
        x = self.px(cx_mm) - tw / 2
        y = self.px(top_mm) + th
        cv2.putText(self.img, s, (round(x), round(y)), font, scale, color, thick, cv2.LINE_AA)
        return top_mm + height_mm

    def suit(
        self, suit: str, cx_mm: float, cy_mm: float, h_mm: float, color: Color, flip: bool = False
    ) -> None:
        draw_suit(self.img, suit, self.px(cx_mm), self.px(cy_mm), self.px(h_mm), color, flip)

    def mirror_half(self) -> None:
        """Make the lower half the upper half turned 180 degrees (court cards, corner indices)."""
        h = self.img.shape[0]
        top = self.img[: h // 2]
        self.img[h - h // 2 :] = top[::-1, ::-1]

    def copy_corner(self, w_mm: float, h_mm: float, four: bool = False) -> None:
        """Copy the top-left corner index, turned 180 degrees, to the bottom-right corner (and, for
        four-index decks, as printed to the top-right and turned to the bottom-left)."""
        w, h = int(self.px(w_mm)), int(self.px(h_mm))
        tl = self.img[:h, :w].copy()
        self.img[-h:, -w:] = tl[::-1, ::-1]
        if four:
            self.img[:h, -w:] = tl
            self.img[-h:, :w] = tl[::-1, ::-1]

    def finish(self, border: Color = (150, 150, 150)) -> Image:
        small = cv2.resize(self.img, (TEX_W, TEX_H), interpolation=cv2.INTER_AREA)
        alpha = rounded_card_alpha(TEX_W, TEX_H, PX_PER_MM)
        # a faint printed edge line, like the slightly grey cut edge of a real card
        edge = cv2.erode(alpha, np.ones((3, 3), np.uint8))
        ring = (alpha.astype(np.int16) - edge.astype(np.int16)).clip(0, 255).astype(np.float32)[
            ..., None
        ] / 255
        small = (small * (1 - 0.5 * ring) + np.array(border, np.float32) * 0.5 * ring).astype(np.uint8)
        return np.dstack([small, alpha])


def star_points(cx: float, cy: float, r_out: float, r_in: float) -> list[tuple[float, float]]:
    """A five-pointed star's ten vertices (mm), point up."""
    return [
        (
            cx + (r_out if i % 2 == 0 else r_in) * math.sin(i * math.pi / 5),
            cy - (r_out if i % 2 == 0 else r_in) * math.cos(i * math.pi / 5),
        )
        for i in range(10)
    ]


def draw_jester(cv: _Canvas, cx: float, hat_y: float, face_y: float, hat: Color, bells: Color) -> None:
    """A jester's three-pointed hat with bells (its brim at ``hat_y`` mm) over a face at ``face_y``."""
    k = cv.px
    pts = [(cx - 12, hat_y), (cx - 17, hat_y - 16), (cx - 5, hat_y - 6), (cx, hat_y - 20),
           (cx + 5, hat_y - 6), (cx + 17, hat_y - 16), (cx + 12, hat_y)]
    fill_poly(cv.img, [(k(x), k(y)) for x, y in pts], hat)
    for x, y in ((cx - 17, hat_y - 16), (cx, hat_y - 20), (cx + 17, hat_y - 16)):
        cv2.circle(cv.img, (int(k(x)), int(k(y))), int(k(1.8)), bells, -1, cv2.LINE_AA)
    cv2.ellipse(cv.img, (int(k(cx)), int(k(face_y))), (int(k(8)), int(k(8.5))), 0, 0, 360, (190, 210, 240),
                -1, cv2.LINE_AA)


def draw_lattice(sub: Image, step: int, color: Color, thick: int) -> None:
    """Diagonal lines both ways across ``sub`` every ``step`` px (a card back)."""
    h, w = sub.shape[:2]
    for off in range(-h, w + h, step):
        cv2.line(sub, (off, 0), (off + h, h), color, thick, cv2.LINE_AA)
        cv2.line(sub, (off, h), (off + h, 0), color, thick, cv2.LINE_AA)


def draw_ring_grid(sub: Image, step: int, color: Color, thick: int) -> None:
    """Circles on a staggered grid every ``step`` px (``thick`` -1: filled dots), a card back."""
    h, w = sub.shape[:2]
    for yy in range(0, h + step, step):
        for xx in range(0, w + step, step):
            cv2.circle(sub, (xx + (step // 2 if (yy // step) % 2 else 0), yy), step // 3, color, thick,
                       cv2.LINE_AA)


# Pip centres (x, y in mm) for ranks 2..10; pips below the middle (y > 44) are printed upside down.
_L, _C, _R = 19.5, 31.5, 43.5
_T, _B, _M = 17.0, 71.0, 44.0
_Q1, _Q3 = _T + (_B - _T) / 3, _T + 2 * (_B - _T) / 3
PIP_LAYOUT: dict[int, list[tuple[float, float]]] = {
    2: [(_C, _T), (_C, _B)],
    3: [(_C, _T), (_C, _M), (_C, _B)],
    4: [(_L, _T), (_R, _T), (_L, _B), (_R, _B)],
    5: [(_L, _T), (_R, _T), (_C, _M), (_L, _B), (_R, _B)],
    6: [(_L, _T), (_R, _T), (_L, _M), (_R, _M), (_L, _B), (_R, _B)],
    7: [(_L, _T), (_R, _T), (_C, (_T + _M) / 2), (_L, _M), (_R, _M), (_L, _B), (_R, _B)],
    8: [(_L, _T), (_R, _T), (_C, (_T + _M) / 2), (_L, _M), (_R, _M), (_C, (_M + _B) / 2), (_L, _B), (_R, _B)],
    9: [(_L, _T), (_R, _T), (_L, _Q1), (_R, _Q1), (_C, _M), (_L, _Q3), (_R, _Q3), (_L, _B), (_R, _B)],
    10: [
        (_L, _T),
        (_R, _T),
        (_C, (_T + _Q1) / 2),
        (_L, _Q1),
        (_R, _Q1),
        (_L, _Q3),
        (_R, _Q3),
        (_C, (_Q3 + _B) / 2),
        (_L, _B),
        (_R, _B),
    ],
}


def _pairs(*rows: float) -> list[tuple[float, float]]:
    return [pt for y in rows for pt in ((_L, y), (_R, y))]


def _between(a: float, b: float, f: float) -> float:
    return a + (b - a) * f


# Pip layouts printed decks use for the 7 to 10, in the same standard frame as PIP_LAYOUT; a generated
# deck (monitor.render.random_design) picks one per rank. Decks disagree mostly on where the odd
# centre pips sit: a nine's odd pip at the exact centre or up between the first two rows, a ten's
# two centre pips near the outer rows or near the middle, an eight as two columns of four.
_G5 = [_T + i * (_B - _T) / 4 for i in range(5)]
_ROWS4 = _pairs(_T, _Q1, _Q3, _B)  # four rows of two, as the 9 and 10 have them
PIP_LAYOUTS: dict[int, dict[str, list[tuple[float, float]]]] = {
    7: {
        "standard": PIP_LAYOUT[7],
        "odd-high": [*_pairs(_T, _M, _B), (_C, _between(_T, _M, 0.4))],
        "odd-low": [*_pairs(_T, _M, _B), (_C, _between(_T, _M, 0.6))],
    },
    8: {
        "standard": PIP_LAYOUT[8],
        "columns": _pairs(_T, _Q1, _Q3, _B),  # two columns of four
        "centres-in": [*_pairs(_T, _M, _B), (_C, _between(_T, _M, 0.6)), (_C, _between(_B, _M, 0.6))],
    },
    9: {
        "centre": PIP_LAYOUT[9],  # the odd pip at the card's centre
        "upper": [*_ROWS4, (_C, (_T + _Q1) / 2)],  # between the first two rows
        "grid": [(x, y) for y in (_T, _M, _B) for x in (_L, _C, _R)],  # three by three
    },
    10: {
        "standard": PIP_LAYOUT[10],
        # the two centre pips nearer the outer rows, or nearer the middle
        "centres-out": [*_ROWS4, (_C, _between(_T, _Q1, 0.4)), (_C, _between(_B, _Q3, 0.4))],
        "centres-in": [*_ROWS4, (_C, _between(_T, _Q1, 0.6)), (_C, _between(_B, _Q3, 0.6))],
        "columns": _pairs(*_G5),  # two columns of five
    },
}


def _rank_text(rank: int) -> str:
    return "10" if rank == 10 else RANK_CHARS[rank - 2]


def _draw_index(cv: _Canvas, st: DrawnStyle, card: Card, color: Color) -> None:
    text = _rank_text(card.rank)
    h = st.index_height_mm
    cx = 6.0 if st.name == "classic" else 6.6
    # "10" is wide: squeeze it a little so it stays inside the corner like a printed deck.
    bottom = cv.text(text, cx, 3.2, h * (0.86 if text == "10" else 1.0), color, st.font, st.index_thickness)
    cv.suit(card.suit, cx, bottom + 1.2 + st.index_suit_mm / 2, st.index_suit_mm, color)
    cv.copy_corner(11.0, bottom + 1.6 + st.index_suit_mm)


def _draw_pips(cv: _Canvas, st: DrawnStyle, card: Card, color: Color) -> None:
    if card.rank == 14:
        big = 24.0 if card.suit == "s" else 16.0
        cv.suit(card.suit, 31.5, 44.0, big, color)
        if card.suit == "s" and st.name == "classic":  # the ornate ace of spades
            cv2.circle(
                cv.img,
                (int(cv.px(31.5)), int(cv.px(44.0))),
                int(cv.px(15.5)),
                color,
                max(1, int(cv.px(0.5))),
                cv2.LINE_AA,
            )
        return
    for x, y in PIP_LAYOUT[card.rank]:
        cv.suit(card.suit, x, y, st.pip_mm, color, flip=y > _M + 0.1)


def _crown(cv: _Canvas, cx: float, base: float, w: float, kind: int, color: Color, trim: Color) -> None:
    """Headwear that tells the courts apart: king's 5-point crown, queen's rounded crown, jack's cap."""
    k = cv.px
    if kind == 13:
        pts = [
            (cx - w / 2, base),
            (cx - w / 2, base - 7),
            (cx - w / 4, base - 3.5),
            (cx, base - 9),
            (cx + w / 4, base - 3.5),
            (cx + w / 2, base - 7),
            (cx + w / 2, base),
        ]
        fill_poly(cv.img, [(k(x), k(y)) for x, y in pts], trim)
        for x in (cx - w / 2, cx, cx + w / 2):
            cv2.circle(
                cv.img, (int(k(x)), int(k(base - (9 if x == cx else 7)))), int(k(1.0)), color, -1, cv2.LINE_AA
            )
    elif kind == 12:
        pts = [(cx - w / 2, base), (cx - w / 2.4, base - 5), (cx + w / 2.4, base - 5), (cx + w / 2, base)]
        fill_poly(cv.img, [(k(x), k(y)) for x, y in pts], trim)
        for i in range(5):
            x = cx - w / 2.4 + i * (w / 1.2) / 4
            cv2.circle(cv.img, (int(k(x)), int(k(base - 6))), int(k(1.3)), trim, -1, cv2.LINE_AA)
            cv2.circle(cv.img, (int(k(x)), int(k(base - 6))), int(k(0.6)), color, -1, cv2.LINE_AA)
    else:
        pts = [(cx - w / 2, base), (cx - w / 3, base - 5), (cx + w / 2.2, base - 6.5), (cx + w / 2, base)]
        fill_poly(cv.img, [(k(x), k(y)) for x, y in pts], color)
        cv2.line(
            cv.img,
            (int(k(cx + w / 2.6)), int(k(base - 6))),
            (int(k(cx + w / 2 + 4)), int(k(base - 11))),
            trim,
            max(1, int(k(0.9))),
            cv2.LINE_AA,
        )


def _draw_court(cv: _Canvas, st: DrawnStyle, card: Card, color: Color) -> None:
    k = cv.px
    robe, trim, skin = st.court_colors
    x0, y0, x1, y1 = 11.0, 10.0, 52.0, 78.0
    cv2.rectangle(
        cv.img, (int(k(x0)), int(k(y0))), (int(k(x1)), int(k(y1))), color, max(1, int(k(0.5))), cv2.LINE_AA
    )
    cx = (x0 + x1) / 2
    if st.name == "classic":
        # torso and shoulders, head, headwear; a suit symbol held on the chest
        fill_poly(
            cv.img,
            [
                (k(x), k(y))
                for x, y in [
                    (x0 + 2, 44),
                    (x0 + 4, 31),
                    (cx - 6, 27),
                    (cx + 6, 27),
                    (x1 - 4, 31),
                    (x1 - 2, 44),
                ]
            ],
            robe if card.rank != 11 else trim,
        )
        fill_poly(
            cv.img, [(k(x), k(y)) for x, y in [(cx - 4, 44), (cx - 6, 28), (cx + 6, 28), (cx + 4, 44)]], color
        )
        cv2.ellipse(
            cv.img, (int(k(cx)), int(k(21.5))), (int(k(5.2)), int(k(6.0))), 0, 0, 360, skin, -1, cv2.LINE_AA
        )
        cv2.ellipse(
            cv.img,
            (int(k(cx)), int(k(21.5))),
            (int(k(5.2)), int(k(6.0))),
            0,
            0,
            360,
            (40, 40, 40),
            max(1, int(k(0.3))),
            cv2.LINE_AA,
        )
        for ex in (cx - 2, cx + 2):
            cv2.circle(cv.img, (int(k(ex)), int(k(21))), max(1, int(k(0.5))), (30, 30, 30), -1, cv2.LINE_AA)
        if card.rank == 13:  # the king's beard
            fill_poly(cv.img, [(k(x), k(y)) for x, y in [(cx - 5, 23), (cx + 5, 23), (cx, 30)]], (80, 80, 90))
        _crown(cv, cx, 16.0, 11.0, card.rank, color, trim)
        cv.suit(card.suit, cx + 9, 36, 7.0, color)
        cv.text(_rank_text(card.rank), x0 + 5, 12.0, 6.0, color, st.font, 0.6)
    else:
        # geometric court: a tall shield with bands, the big letter, and the headwear
        band = (
            [robe, trim, robe]
            if card.rank == 13
            else [trim, robe, trim]
            if card.rank == 12
            else [robe, robe, trim]
        )
        for i, c in enumerate(band):
            yy = y0 + 4 + i * 11
            cv2.rectangle(cv.img, (int(k(x0 + 3)), int(k(yy))), (int(k(x1 - 3)), int(k(yy + 9))), c, -1)
        cv.text(_rank_text(card.rank), cx, 17.0, 15.0, (255, 255, 255), st.font, 2.2)
        cv.text(_rank_text(card.rank), cx, 17.0, 15.0, color, st.font, 1.4)
        _crown(cv, cx, 15.5, 14.0, card.rank, color, (255, 255, 255))
        cv.suit(card.suit, x0 + 7, 40, 6.0, color)
        cv.suit(card.suit, x1 - 7, 40, 6.0, color)
    cv.mirror_half()


def _draw_joker(cv: _Canvas, st: DrawnStyle) -> None:
    k = cv.px
    color = st.black if st.name == "classic" else st.red
    # "JOKER" down the corner, as printed decks do (there is no rank letter)
    top = 3.0
    for ch in "JOKER":
        top = cv.text(ch, 5.6, top, 3.6, color, st.font, 0.6) + 1.0
    cv.copy_corner(10.0, top + 0.5)
    cx, _cy = 31.5, 44.0
    if st.name == "classic":
        # jester: three-pointed hat with bells over a face, a star below
        draw_jester(cv, cx, 34, 41, st.red, (30, 190, 240))
        cv2.ellipse(
            cv.img,
            (int(k(cx)), int(k(44))),
            (int(k(4)), int(k(2.2))),
            0,
            0,
            180,
            (40, 40, 160),
            max(1, int(k(0.6))),
            cv2.LINE_AA,
        )
        star_y = 62.0
    else:
        star_y = 44.0
    star = star_points(cx, star_y, 11.0, 4.5)
    fill_poly(cv.img, [(k(x), k(y)) for x, y in star], color)
    cv.text("JOKER", cx, 75.0 if st.name == "classic" else 64.0, 5.0, color, st.font, 0.7)


def _draw_back(cv: _Canvas, st: DrawnStyle) -> None:
    k = cv.px
    m = 3.5  # white margin
    x0, y0, x1, y1 = int(k(m)), int(k(m)), int(k(CARD_W_MM - m)), int(k(CARD_H_MM - m))
    cv.img[y0:y1, x0:x1] = st.back_color
    sub = cv.img[y0:y1, x0:x1]
    h, w = sub.shape[:2]
    step = int(k(4.0))
    thick = max(1, int(k(0.45)))
    if st.back_kind == "lattice":
        draw_lattice(sub, step, st.back_accent, thick)
    else:
        draw_ring_grid(sub, step, st.back_accent, thick)
    cv2.rectangle(
        sub,
        (int(k(1.5)), int(k(1.5))),
        (w - 1 - int(k(1.5)), h - 1 - int(k(1.5))),
        (255, 255, 255),
        max(1, int(k(0.8))),
        cv2.LINE_AA,
    )


def draw_face(style_name: str, key: str) -> Image:
    """One texture of a drawn design: ``key`` is a card text ('As', 'Td', 'Jk') or 'back'. BGRA uint8."""
    st = STYLES[style_name]
    cv = _Canvas()
    if key == "back":
        _draw_back(cv, st)
        return cv.finish()
    from monitor.rules.cards import parse_card

    card = parse_card(key)
    if card == JOKER:
        _draw_joker(cv, st)
        return cv.finish()
    color = st.red if card.suit in "dh" else st.black
    if card.rank in (11, 12, 13):
        _draw_court(cv, st, card, color)
        _draw_index(cv, st, card, color)
    else:
        _draw_pips(cv, st, card, color)
        _draw_index(cv, st, card, color)
    return cv.finish()


Canvas = _Canvas  # the drawing surface, for other design generators (monitor.render.random_design)
