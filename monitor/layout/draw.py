"""A layout drawn from above, dealer at the bottom: every zone filled where it wins the zone lookup,
outlined where it lies whole, and labelled with its name; the delivered-pile region hatched; a legend
of the zone kinds, the overlap rule and the zones the table does not have.

The fill is the layout's own zone lookup (``TableLayout.zone_index``) run on every pixel, so the
picture shows the zone rules at work: where two zones overlap, the colour is the winner's.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from monitor.geometry import TableLayout
from monitor.geometry.layout import OPTIONAL_PARTS
from monitor.geometry.zone_rules import priority_text

Image = NDArray[np.uint8]
BGR = tuple[int, int, int]

KIND_COLOURS: dict[str, BGR] = {
    "bet": (40, 170, 240),  # amber
    "front": (230, 160, 60),  # blue
    "back": (180, 90, 30),  # dark blue
    "seat": (120, 150, 90),  # sage
    "pile": (200, 200, 200),  # light grey
    "stub": (150, 110, 210),  # pink
    "center": (110, 120, 70),  # teal
    "banker": (60, 60, 200),  # red
    "tray": (70, 70, 70),  # charcoal
    "dice": (210, 230, 250),  # cream
}
KIND_WORDS: dict[str, str] = {
    "bet": "betting circle", "front": "front (2-card) hand", "back": "back (5-card) hand",
    "seat": "seat's own felt", "pile": "pile slot", "stub": "stub spot", "center": "centre area",
    "banker": "banker's place", "tray": "chip tray", "dice": "dice area",
}
FELT: BGR = (50, 105, 40)
OFF: BGR = (38, 38, 42)
FONT = cv2.FONT_HERSHEY_SIMPLEX
LEGEND_H = 150  # px below the table for the legend
HATCH_PX = 12


def _blend(a: BGR, b: BGR, t: float) -> BGR:
    return (int(a[0] * (1 - t) + b[0] * t), int(a[1] * (1 - t) + b[1] * t), int(a[2] * (1 - t) + b[2] * t))


def zone_fill(kind: str) -> BGR:
    """The colour a zone of ``kind`` is filled with on the picture: its kind's colour over the felt."""
    return _blend(FELT, KIND_COLOURS[kind], 0.7)


def _text(img: Image, text: str, center: tuple[float, float], scale: float, colour: BGR = (255, 255, 255),
          thickness: int = 1) -> None:
    """Text centred on ``center``, on a dark box so it reads on any fill."""
    (w, h), base = cv2.getTextSize(text, FONT, scale, thickness)
    org = (round(center[0] - w / 2), round(center[1] + h / 2))
    x0, y0, x1, y1 = org[0] - 3, org[1] - h - 3, org[0] + w + 3, org[1] + base
    box = img[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)]
    box[:] = (box * 0.35).astype(np.uint8)  # darkened, the fill still showing through
    cv2.putText(img, text, org, FONT, scale, colour, thickness, cv2.LINE_AA)


def _left_text(img: Image, text: str, org: tuple[int, int], scale: float = 0.5) -> None:
    cv2.putText(img, text, org, FONT, scale, (235, 235, 235), 1, cv2.LINE_AA)


class _Canvas:
    """Table millimetres <-> picture pixels: +x to the right, +y (toward the players) up."""

    def __init__(self, layout: TableLayout, px_per_mm: float, margin_mm: float) -> None:
        people = [layout.dealer_position, *(s.position for s in layout.seats)]
        xs = [layout.bounds[0], layout.bounds[2], *(p[0] for p in people)]
        ys = [layout.bounds[1], layout.bounds[3], *(p[1] for p in people)]
        self.s = px_per_mm
        self.x0, self.y1 = min(xs) - margin_mm, max(ys) + margin_mm
        self.w = int(np.ceil((max(xs) + margin_mm - self.x0) * px_per_mm))
        self.h = int(np.ceil((self.y1 - (min(ys) - margin_mm)) * px_per_mm))

    def px(self, pts: NDArray[np.float64]) -> NDArray[np.float64]:
        p = np.asarray(pts, np.float64).reshape(-1, 2)
        return np.stack([(p[:, 0] - self.x0) * self.s, (self.y1 - p[:, 1]) * self.s], axis=1)

    def mm_grid(self) -> NDArray[np.float64]:
        u, v = np.meshgrid(np.arange(self.w) + 0.5, np.arange(self.h) + 0.5)
        return np.stack([self.x0 + u.ravel() / self.s, self.y1 - v.ravel() / self.s], axis=1)


@dataclass(frozen=True)
class LayoutPicture:
    """The drawing, the zone that won each pixel of the table part (indices into the layout's
    ``zone_names``), and where each zone's label is (pixel; None: the zone is wholly covered)."""

    image: Image
    zone_of_pixel: NDArray[np.int64]
    labels: dict[str, tuple[int, int] | None]


def draw_layout(layout: TableLayout, px_per_mm: float = 0.6, margin_mm: float = 160.0) -> Image:
    """The layout as a BGR picture (see the module docstring)."""
    return picture(layout, px_per_mm, margin_mm).image


def picture(layout: TableLayout, px_per_mm: float = 0.6, margin_mm: float = 160.0) -> LayoutPicture:
    cv = _Canvas(layout, px_per_mm, margin_mm)
    labels = layout.zone_index(cv.mm_grid()).reshape(cv.h, cv.w)
    fills = [zone_fill(z.kind) for z in layout.zones]
    palette = np.array([*fills, FELT, OFF], np.uint8)  # indexed as zone_index answers: zones, felt, off
    img: Image = np.ascontiguousarray(palette[labels])
    _hatch(img, labels, layout)
    for z in layout.zones:  # each zone's whole outline, also where a winning zone covers it
        ring = np.round(cv.px(z.shape.outline(96)) * 16).astype(np.int32)
        dark = _blend(KIND_COLOURS[z.kind], (0, 0, 0), 0.45)
        cv2.polylines(img, [ring], True, dark, 1, cv2.LINE_AA, shift=4)
    edge = np.round(cv.px(layout.outline.array) * 16).astype(np.int32)
    cv2.polylines(img, [edge], True, (20, 20, 20), 3, cv2.LINE_AA, shift=4)
    free = labels >= len(layout.zones)  # plain felt, or off the table
    spots = {z.name: _label(img, labels, i, free, z.name, cv.px(np.array([z.shape.center]))[0])
             for i, z in enumerate(layout.zones)}
    for who, (x, y) in (("dealer", layout.dealer_position), *((f"player {s.number}", s.position)
                                                             for s in layout.seats)):
        u, v = cv.px(np.array([[x, y]]))[0]
        cv2.circle(img, (int(u), int(v)), 5, (255, 255, 255), -1, cv2.LINE_AA)
        _text(img, who, (u, v + 14), 0.4)
    return LayoutPicture(np.concatenate([img, _legend(layout, cv.w)], axis=0), labels, spots)


def _hatch(img: Image, labels: NDArray[np.int64], layout: TableLayout) -> None:
    """Stripes over the zones a delivered pile rests on (the rules' ``delivered_pile``)."""
    kinds = layout.rules.delivery_kinds
    ids = [i for i, z in enumerate(layout.zones) if z.kind in kinds]
    if not ids:
        return
    v, u = np.indices(labels.shape)
    stripe = ((u + v) % HATCH_PX) < 2
    img[np.isin(labels, ids) & stripe] = (235, 235, 235)


def _label(img: Image, labels: NDArray[np.int64], index: int, free: NDArray[np.bool_], name: str,
           center_px: NDArray[np.float64]) -> tuple[int, int] | None:
    """The zone's name centred on a point of its visible part, nearest its centre, where the whole name
    fits over the zone and plain felt (covering no other zone); smaller where it does not fit; where
    it fits nowhere, at the point deepest inside. A zone wholly covered by others is named at its
    centre, in brackets."""
    mask = labels == index
    if not mask.any():
        _text(img, f"({name})", (float(center_px[0]), float(center_px[1])), 0.35, (200, 200, 200))
        return None
    room = (mask | free).astype(np.uint8)
    for scale in (0.5, 0.45, 0.4, 0.35):
        (w, h), _ = cv2.getTextSize(name, FONT, scale, 1)
        fits = cv2.erode(room, np.ones((h + 8, w + 8), np.uint8)).astype(bool) & mask
        if fits.any():
            break
    else:
        dist = cv2.distanceTransform(mask.astype(np.uint8), cv2.DIST_L2, 3)
        fits = dist >= 0.85 * float(dist.max())
    vs, us = np.nonzero(fits)
    k = int(np.argmin((us - center_px[0]) ** 2 + (vs - center_px[1]) ** 2))
    u, v = int(us[k]), int(vs[k])
    _text(img, name, (float(u), float(v)), scale)
    return (u, v)


def _legend(layout: TableLayout, width: int) -> Image:
    out = np.full((LEGEND_H, width, 3), OFF, np.uint8)
    _left_text(out, f"layout {layout.name}: zones seen from above, the dealer at the bottom", (12, 22), 0.55)
    kinds = [k for k in KIND_COLOURS if any(z.kind == k for z in layout.zones)]
    col_w = max(1, width // 5)
    for i, k in enumerate(kinds):
        x, y = 12 + (i % 5) * col_w, 48 + (i // 5) * 26
        cv2.rectangle(out, (x, y - 12), (x + 18, y + 4), zone_fill(k), -1)
        _left_text(out, f"{k}: {KIND_WORDS[k]}", (x + 26, y + 2), 0.45)
    y = 48 + ((len(kinds) + 4) // 5) * 26
    swatch = np.full((16, 18, 3), FELT, np.uint8)
    sv, su = np.indices(swatch.shape[:2])
    swatch[((su + sv) % (HATCH_PX // 2)) < 2] = (235, 235, 235)
    out[y - 12:y + 4, 12:30] = swatch
    delivered = layout.rules.delivered_pile.value
    _left_text(out, f"hatched: where a delivered pile rests (delivered_pile: {delivered}); "
                    f"{priority_text(layout.rules)}", (38, y + 2), 0.45)
    absent = [f"{z} ({OPTIONAL_PARTS[z]})" for z in layout.absent]
    lacks = ", ".join(absent) if absent else "none (every optional zone is there)"
    _left_text(out, f"not on this table: {lacks}", (12, y + 28), 0.45)
    return out
