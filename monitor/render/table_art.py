"""The table as a texture seen from straight above: felt, printed lines and logos, rail, tray, floor.

Table styles are named so a dataset can hold one out: the ``test`` split uses styles the training
never saw (different felt hue, print colour and logo). A texture covers the table plus a margin of
room floor, at ``px_per_mm``; :func:`table_texture` caches the few variants a dataset uses.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

from monitor.geometry import Circle, Rect, Shape, TableLayout
from monitor.perception.imageio import as_image

Image = NDArray[np.uint8]
BGR = tuple[int, int, int]


@dataclass(frozen=True)
class TableStyle:
    name: str
    felt: BGR
    line: BGR
    rail: BGR
    floor: BGR
    logo: str
    split: str  # "train" or "test" (held out)
    print_piles: bool = True


TABLE_STYLES: dict[str, TableStyle] = {
    s.name: s
    for s in [
        TableStyle(
            "green", (40, 105, 25), (90, 200, 235), (25, 30, 40), (40, 45, 90), "PAI GOW POKER", "train"
        ),
        TableStyle(
            "forest",
            (35, 70, 20),
            (230, 235, 235),
            (20, 20, 25),
            (60, 50, 45),
            "DOUBLE HAND POKER",
            "train",
            False,
        ),
        TableStyle("blue", (120, 60, 20), (80, 200, 240), (30, 25, 30), (35, 35, 70), "PAI GOW", "train"),
        TableStyle("red", (35, 30, 150), (60, 190, 230), (20, 25, 35), (50, 40, 40), "CARDROOM", "train"),
        TableStyle(
            "grey", (95, 95, 90), (40, 200, 250), (25, 25, 25), (30, 60, 100), "PAI GOW POKER", "train", False
        ),
        TableStyle("tan", (95, 140, 170), (40, 40, 120), (30, 40, 60), (40, 40, 40), "HOUSE WAY", "train"),
        # held out: a felt hue and print style no training image has
        TableStyle(
            "purple", (110, 40, 90), (220, 220, 210), (25, 20, 25), (50, 70, 70), "DOUBLE HAND", "test"
        ),
        TableStyle(
            "teal", (100, 110, 20), (60, 130, 250), (20, 25, 20), (45, 40, 70), "PAI GOW POKER", "test", False
        ),
    ]
}
TRAIN_STYLES = tuple(n for n, s in TABLE_STYLES.items() if s.split == "train")
TEST_STYLES = tuple(n for n, s in TABLE_STYLES.items() if s.split == "test")

MARGIN_MM = 450.0  # floor shown around the table
RAIL_MM = 110.0


@dataclass(frozen=True)
class TableTexture:
    image: Image  # BGR
    px_per_mm: float
    x0: float  # table mm at texture column 0
    y1: float  # table mm at texture row 0 (rows go toward -y)
    floor: tuple[int, int, int] = (40, 40, 40)  # plain floor colour beyond the texture

    def table_to_tex(self) -> NDArray[np.float64]:
        """3x3 matrix: table (x, y, 1) mm -> texture (u, v, 1) px."""
        s = self.px_per_mm
        return np.array([[s, 0, -self.x0 * s], [0, -s, self.y1 * s], [0, 0, 1]], dtype=np.float64)


def _lowfreq(rng: np.random.Generator, h: int, w: int, cells: int, amp: float) -> NDArray[np.float32]:
    small = rng.normal(0, 1, (max(2, h * cells // max(h, w)), max(2, w * cells // max(h, w)))).astype(
        np.float32
    )
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC) * amp


def _text(
    img: Image,
    text: str,
    center: tuple[float, float],
    height_px: float,
    angle_deg: float,
    color: BGR,
    thick_px: float,
    font: int = cv2.FONT_HERSHEY_DUPLEX,
) -> None:
    """Draw rotated text by rendering a patch and blending it in with its own mask."""
    (tw, th), base = cv2.getTextSize(text, font, 1.0, 1)
    scale = height_px / th
    thick = max(1, round(thick_px))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    pad = thick + 4
    patch = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
    cv2.putText(patch, text, (pad, pad + th), font, scale, 255, thick, cv2.LINE_AA)
    ph, pw = patch.shape
    r = math.ceil(math.hypot(pw, ph) / 2) + 1
    x0, y0 = max(0, int(center[0]) - r), max(0, int(center[1]) - r)
    x1, y1 = min(img.shape[1], int(center[0]) + r), min(img.shape[0], int(center[1]) + r)
    if x1 <= x0 or y1 <= y0:
        return
    m = cast(NDArray[np.float64], cv2.getRotationMatrix2D((pw / 2, ph / 2), angle_deg, 1.0))
    m[:, 2] += (center[0] - pw / 2 - x0, center[1] - ph / 2 - y0)
    mask = cv2.warpAffine(patch, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    a = mask[..., None].astype(np.float32) / 255 * 0.9
    roi = img[y0:y1, x0:x1].astype(np.float32)
    img[y0:y1, x0:x1] = (roi * (1 - a) + np.array(color, np.float32) * a).astype(np.uint8)


def _shape_px(shape: Shape, tex: TableTexture) -> NDArray[np.int32]:
    pts = shape.outline(96)
    s = tex.px_per_mm
    uv = np.stack([(pts[:, 0] - tex.x0) * s, (tex.y1 - pts[:, 1]) * s], axis=1)
    return np.round(uv * 16).astype(np.int32)


def _stroke(img: Image, shape: Shape, tex: TableTexture, color: BGR, width_mm: float) -> None:
    cv2.polylines(
        img,
        [_shape_px(shape, tex)],
        True,
        color,
        max(1, round(width_mm * tex.px_per_mm)),
        cv2.LINE_AA,
        shift=4,
    )


def render_table_texture(layout: TableLayout, style: TableStyle, px_per_mm: float, seed: int) -> TableTexture:
    rng = np.random.default_rng(seed)
    xmin, ymin, xmax, ymax = layout.bounds
    x0, y1 = xmin - MARGIN_MM, ymax + MARGIN_MM
    w = math.ceil((xmax - xmin + 2 * MARGIN_MM) * px_per_mm)
    h = math.ceil((ymax - ymin + 2 * MARGIN_MM) * px_per_mm)
    tex = TableTexture(np.zeros((1, 1, 3), np.uint8), px_per_mm, x0, y1)  # for coordinates while drawing
    s = px_per_mm

    # The smooth parts (floor, felt, rail) are made at half resolution and scaled up once: they have
    # no fine detail, and full-resolution float passes made a texture cost seconds.
    hw, hh = (w + 1) // 2, (h + 1) // 2
    half = TableTexture(tex.image, px_per_mm / 2, x0, y1)
    table_mask = np.zeros((hh, hw), np.uint8)
    cv2.fillPoly(table_mask, [_shape_px(layout.outline, half)], 255, cv2.LINE_AA, shift=4)
    outside = cv2.distanceTransform((table_mask < 128).astype(np.uint8), cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
    rail_w = RAIL_MM * px_per_mm / 2

    floor = np.array(style.floor, np.float32) + rng.normal(0, 8, 3).astype(np.float32)
    img = floor + _lowfreq(rng, hh, hw, 60, 10.0)[..., None]
    # fade the carpet to its plain colour toward the texture's edge: beyond it the renderer fills the
    # floor with that colour (an oblique camera sees past any margin), so there is no seam
    yy, xx = np.mgrid[0:hh, 0:hw].astype(np.float32)
    edge = np.minimum(np.minimum(xx, hw - 1 - xx), np.minimum(yy, hh - 1 - yy)) / (
        MARGIN_MM * px_per_mm / 2 * 0.6
    )
    k = np.clip(edge, 0, 1)[..., None]
    img = img * k + floor * (1 - k)
    felt = np.array(style.felt, np.float32) * rng.uniform(0.9, 1.1) + rng.normal(0, 5, 3).astype(np.float32)
    felt_img = felt + _lowfreq(rng, hh, hw, 8, 6.0)[..., None]
    tm = table_mask[..., None].astype(np.float32) / 255
    img = img * (1 - tm) + felt_img * tm
    # Padded rail: leather shaded as a rounded cushion across its width.
    t = np.clip(outside / rail_w, 0, 1)
    ring = ((outside > 0) & (outside <= rail_w)).astype(np.float32)
    cushion = np.sin(t * math.pi)[..., None]
    rail_col = np.array(style.rail, np.float32) * (0.6 + 0.9 * cushion) + 12 * cushion
    rm = cv2.GaussianBlur(ring, (3, 3), 0)[..., None]
    img = img * (1 - rm) + rail_col * rm
    out = cv2.resize(np.clip(img, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)

    line = style.line
    lw = 3.0
    for seat in layout.seats:
        _stroke(out, seat.betting_spot, tex, line, lw)
        bs = seat.betting_spot
        if isinstance(bs, Circle):
            inner = Circle(bs.cx, bs.cy, bs.r - 9)
            _stroke(out, inner, tex, line, 1.2)
        for area, label in ((seat.back_hand, "HIGH"), (seat.front_hand, "LOW")):
            _stroke(out, area, tex, line, lw)
            if isinstance(area, Rect):
                # label just inside the area's player-side edge, reading from the player's seat
                a = math.radians(area.angle_deg)
                off = area.h / 2 - 12
                cx, cy = area.cx - off * math.sin(a) * -1 * 1, area.cy + off * math.cos(a)
                u, v = (cx - x0) * s, (y1 - cy) * s
                _text(out, label, (u, v), 9 * s, area.angle_deg + 180, line, 1.2 * s)
        _text(
            out,
            str(seat.number),
            ((seat.betting_spot.center[0] - x0) * s, (y1 - seat.betting_spot.center[1]) * s),
            40 * s,
            _seat_angle(seat.betting_spot.center) + 180,
            line,
            3 * s,
        )
    if style.print_piles:
        for p in layout.piles:
            _stroke(out, p, tex, line, 1.5)
    _stroke(out, layout.stub, tex, line, 1.5)
    if layout.banker_place is not None:  # a table without a banker's place prints none
        _stroke(out, layout.banker_place, tex, line, lw)
        bc = layout.banker_place.center
        _text(out, "BANKER", ((bc[0] - x0) * s, (y1 - bc[1] + 42) * s), 14 * s, 0, line, 1.6 * s)
    if layout.dice is not None:
        dc = layout.dice.center
        _stroke(out, Circle(dc[0], dc[1], 70), tex, line, 2.0)
    # Logo: the style's name across the felt between the piles and the seats, and two end emblems.
    _text(out, style.logo, ((0 - x0) * s, (y1 - 95) * s), 30 * s, 0, line, 3.2 * s)
    for ex in (-930.0, 930.0):
        _stroke(out, Circle(ex, -60, 95), tex, line, 4.0)
        _stroke(out, Circle(ex, -60, 80), tex, line, 1.5)
        _text(out, "7", ((ex - x0) * s, (y1 + 60) * s), 80 * s, 0, line, 7 * s)
    _draw_tray(out, layout, tex, rng)
    return TableTexture(out, px_per_mm, x0, y1, (int(floor[0]), int(floor[1]), int(floor[2])))


def _seat_angle(p: tuple[float, float]) -> float:
    return math.degrees(math.atan2(p[0], p[1] + 1000.0))


# Chip colours by denomination (BGR): white 1, red 5, green 25, black 100, purple 500, yellow 1000.
CHIP_COLORS: dict[int, BGR] = {
    1: (225, 225, 225),
    5: (40, 40, 190),
    25: (50, 140, 40),
    100: (30, 30, 30),
    500: (120, 40, 110),
    1000: (40, 200, 230),
}


def _draw_tray(out: Image, layout: TableLayout, tex: TableTexture, rng: np.random.Generator) -> None:
    tray = layout.tray
    if not isinstance(tray, Rect):
        return
    s = tex.px_per_mm
    corners = tray.corners()
    uv = np.stack([(corners[:, 0] - tex.x0) * s, (tex.y1 - corners[:, 1]) * s], axis=1)
    cv2.fillPoly(out, [np.round(uv * 16).astype(np.int32)], (25, 25, 28), cv2.LINE_AA, shift=4)
    # chip columns lying in the tray's grooves: seen from above, a run of coloured edges
    ncol = int(tray.w // 42)
    denoms = list(CHIP_COLORS)
    for i in range(ncol):
        x = tray.cx - tray.w / 2 + 21 + i * 42
        length = rng.uniform(0.3, 0.95) * (tray.h - 10)
        col = np.array(CHIP_COLORS[denoms[rng.integers(len(denoms))]], np.float32)
        ya, yb = tray.cy - (tray.h - 10) / 2, tray.cy - (tray.h - 10) / 2 + length
        u0, u1 = int((x - 18 - tex.x0) * s), int((x + 18 - tex.x0) * s)
        v1, v0 = int((tex.y1 - ya) * s), int((tex.y1 - yb) * s)
        if u1 <= u0 or v1 <= v0:
            continue
        xs = np.linspace(-1, 1, u1 - u0)
        shade = (0.55 + 0.45 * np.sqrt(np.clip(1 - xs**2, 0, 1)))[None, :, None]
        stripes = 1.0 - 0.25 * ((np.arange(v1 - v0) // max(1, int(3.3 * s))) % 2)[:, None, None]
        out[v0:v1, u0:u1] = (col * shade * stripes).clip(0, 255).astype(np.uint8)


@lru_cache(maxsize=12)
def _base_texture(layout: TableLayout, style_name: str, variant: int) -> TableTexture:
    if style_name not in TABLE_STYLES:
        raise KeyError(f"no table style {style_name!r} (styles: {', '.join(TABLE_STYLES)})")
    seed = zlib.crc32(f"{style_name}:{variant}".encode())  # stable across processes, unlike hash()
    return render_table_texture(layout, TABLE_STYLES[style_name], 1.0, seed=seed)


@lru_cache(maxsize=6)
def _scaled_texture(layout: TableLayout, style_name: str, px_per_mm: float, variant: int) -> TableTexture:
    base = _base_texture(layout, style_name, variant)
    h, w = base.image.shape[:2]
    size = (round(w * px_per_mm), round(h * px_per_mm))
    interp = cv2.INTER_AREA if px_per_mm < 1 else cv2.INTER_CUBIC
    return TableTexture(
        as_image(cv2.resize(base.image, size, interpolation=interp)), px_per_mm, base.x0, base.y1, base.floor
    )


def table_texture(layout: TableLayout, style_name: str, px_per_mm: float, variant: int) -> TableTexture:
    """A cached table texture. It is drawn once at 1 px/mm per style and variant (drawing costs
    seconds) and rescaled for other levels (the felt is smooth; lines soften a little at 2 px/mm)."""
    if px_per_mm == 1.0:
        return _base_texture(layout, style_name, variant)
    return _scaled_texture(layout, style_name, px_per_mm, variant)
