"""Rows of overlapping face-up cards in a table zone, found from the zone's picture alone.

A hand turned up for the showdown, the banker's above all, is spread in a row: each card laid a
step along from the one before, every card showing its index corner. The detector boxes such a row
badly (five or six boxes for seven cards, some turned: the banker's foul setting of the fault set),
and the fan reader, reading index corners along those boxes' edges, read three of its cards. The
row itself is plain to see: a white band one card long across, on felt. This module finds it in
the zone rectified to table millimetres (cards on felt: far from the felt's colour, thin paint
opened away, pips filled in), takes each band of the right size and shape, and gives the scans
that read its index corners: the upper-left corners from the row's first card along its top edge,
and the lower-right ones from its last card, turned, back along its bottom edge (a card's two
indices sit at those corners whichever way up it lies). A band without ink is backs and is not
read; one whose size does not say which way the cards lie across it (two cards barely spread are
nearly square) takes its way from the detector's boxes on it, or is not read (read sideways, a
card's side passes for an index).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from monitor.perception.classical import card_mask
from monitor.perception.imageio import as_image

F64 = npt.NDArray[np.float64]
ToImage = Callable[[F64], F64]  # table mm (n, 2) -> frame pixels (n, 2)

PX_PER_MM = 2.0  # the rectified picture's scale (a 1080p table view is ~0.7 px/mm): the rows' geometry only
CARD_MM = (63.0, 88.0)
LENGTH_TOLERANCE = 0.2  # a band's width across the row within this share of a card's length
MIN_FILL = 0.8  # a row is a rectangle: its blob fills at least this share of its bounding rectangle
FILL_MM = 6.0  # paint thinner than this is opened away (a zone's outline is ~4 mm)
PAPER_DARKER, PAPER_CHROMA = 40, 30  # paper: within this of the band's bright pixels, without colour
# a band of faces: this share of it printed, pips and indices on white paper (a pale back, the held-out
# deck's, ~1%; a coloured back is nearly all colour)
MIN_INK, MAX_INK = 0.05, 0.7
CLEAR_MM = 6.0  # a band's sides differ from a card's length by this much more one than the other: clear
SCAN_STEP = 0.05  # of a card's width: the fan reader learned an index within +-0.05 of a width
SCAN_SLACK = 0.1  # of a card's width, scanned past each end of the row (its edge found to ~2 mm)


@dataclass(frozen=True, slots=True)
class Scan:
    """Index corners to read along one edge of a row: ``card`` (frame pixels, card order: its top
    edge runs along the row) slid by each of ``shifts`` (shares of its top edge)."""

    card: F64
    shifts: tuple[float, ...]
    band: F64  # the row's outline in frame pixels (what it covers, for readers of other boxes there)


def card_white(picture: npt.NDArray[np.uint8], felt: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """Pixels of cards: far from the felt's colour, the layout's thin paint (zone outlines, lettering)
    opened away and the holes pips leave filled (0/255)."""
    k = max(3, round(FILL_MM * PX_PER_MM) | 1)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    mask = as_image(cv2.morphologyEx(card_mask(picture, felt), cv2.MORPH_OPEN, disc))
    filled = np.zeros_like(mask)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(filled, contours, -1, 255, cv2.FILLED)
    return filled


def row_axes(width: float, height: float, card: tuple[float, float] = CARD_MM) -> list[bool]:
    """Which ways cards may lie across a ``width`` x ``height`` band (mm, width along the first
    axis): True for a row along the first axis (the band's height is a card's length), False for a
    row along the second. Empty: no row of cards is that shape."""
    cw, ch = card
    tol = LENGTH_TOLERANCE * ch
    out = []
    if abs(height - ch) <= tol and width >= cw * (1 - LENGTH_TOLERANCE):
        out.append(True)
    if abs(width - ch) <= tol and height >= cw * (1 - LENGTH_TOLERANCE):
        out.append(False)
    return out


def band_scans(centre: F64, axis: F64, length: float, across: float, card: tuple[float, float] = CARD_MM,
               mirrored: bool = False) -> list[tuple[F64, tuple[float, ...]]]:
    """The two scans of a band (mm): its first card upright, slid along the band, and its last card
    turned, slid back. ``axis``: the row's unit direction; ``length``: the band along it, ``across``
    across it. ``mirrored``: the table's millimetres map to the image mirrored (the card order,
    TL TR BR BL, runs clockwise in the image)."""
    cw, ch = card
    u = axis / np.linalg.norm(axis)
    v = np.array([-u[1], u[0]]) * (-1.0 if mirrored else 1.0)
    half_len, half_across = length / 2, across / 2
    first = centre - u * half_len - v * half_across
    start = np.array([first, first + u * cw, first + u * cw + v * ch, first + v * ch])
    last = centre + u * half_len + v * half_across
    end = np.array([last, last - u * cw, last - u * cw - v * ch, last - v * ch])
    n = max(0.0, (length - cw) / cw)
    shifts = tuple(float(s) for s in np.round(np.arange(-SCAN_SLACK, n + SCAN_SLACK + 1e-9, SCAN_STEP), 3))
    return [(start, shifts), (end, shifts)]


def rectify_maps(to_image: ToImage, region_mm: tuple[float, float, float, float]
                  ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """``cv2.remap`` maps of ``region_mm`` (x0, y0, x1, y1 in table mm) at ``PX_PER_MM``: each picture
    pixel's place in the frame (``to_image``: table mm to frame pixels, a lens included)."""
    x0, y0, x1, y1 = region_mm
    w, h = max(1, round((x1 - x0) * PX_PER_MM)), max(1, round((y1 - y0) * PX_PER_MM))
    gx, gy = np.meshgrid(x0 + (np.arange(w) + 0.5) / PX_PER_MM, y0 + (np.arange(h) + 0.5) / PX_PER_MM)
    px = to_image(np.column_stack([gx.ravel(), gy.ravel()]))
    return (px[:, 0].reshape(h, w).astype(np.float32), px[:, 1].reshape(h, w).astype(np.float32))


def find_scans(frame: npt.NDArray[np.uint8], maps: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]],
               region_mm: tuple[float, float, float, float], to_image: ToImage,
               felt: npt.NDArray[np.uint8], boxes: Sequence[npt.ArrayLike] = (),
               card: tuple[float, float] = CARD_MM) -> list[Scan]:
    """The scans of every row of cards lying in ``region_mm`` of ``frame``: ``maps`` from
    :func:`rectify_maps`, ``to_image`` table mm to frame pixels, ``felt`` the felt's Lab colour
    (:func:`monitor.perception.classical.felt_colour`). A band that may lie either way (two cards
    barely spread) lies with its side nearer a card's length across the row, where the two sides
    differ clearly (``CLEAR_MM``); else it takes its way from the card ``boxes`` (frame pixels, the
    detector's) lying on it, and is left out where none does: read sideways, a card's side passes for
    an index (the joker, at 0.9)."""
    x0, y0, x1, y1 = region_mm
    # outside the frame is black, neither felt nor card white: it stays out of the mask
    picture = as_image(cv2.remap(frame, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT))
    lab = as_image(cv2.cvtColor(picture, cv2.COLOR_BGR2LAB))
    white = card_white(picture, felt)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(white)
    c = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    tri = to_image(c + np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    e1, e2 = tri[1] - tri[0], tri[2] - tri[0]
    mirrored = bool(e1[0] * e2[1] - e1[1] * e2[0] < 0)
    out: list[Scan] = []
    min_area = 0.5 * card[0] * card[1] * PX_PER_MM ** 2
    for k in range(1, n):
        area = int(stats[k, cv2.CC_STAT_AREA])
        if area < min_area:
            continue
        bx, by, bw_px, bh_px = (int(v) for v in stats[k, :4])
        own = labels[by:by + bh_px, bx:bx + bw_px] == k  # the blob's box, not the whole picture
        # the outline gives the same rectangle as every pixel (a big blob's took ~6 ms)
        contours, _ = cv2.findContours(own.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        outline = np.concatenate(contours).reshape(-1, 2).astype(np.float32) + np.array([bx, by], np.float32)
        (cx, cy), (bw, bh), angle = cv2.minAreaRect(outline)
        if area < MIN_FILL * bw * bh:
            continue
        if not MIN_INK <= ink_share(lab[by:by + bh_px, bx:bx + bw_px][own]) <= MAX_INK:
            continue  # backs (a hand set face down): no index to read
        ys, xs = np.nonzero(own)
        pts = np.column_stack([xs + bx, ys + by]).astype(np.float32)
        a = np.deg2rad(angle)
        first = np.array([np.cos(a), np.sin(a)])
        second = np.array([-first[1], first[0]])
        # the band's sides where most of its length (breadth) is card: paint touching the row (the
        # layout's lettering) would push a bounding rectangle's side out by its own height
        (lo1, hi1), (lo2, hi2) = (_extent(pts @ axis) for axis in (first, second))
        mid = first * (lo1 + hi1) / 2 + second * (lo2 + hi2) / 2
        centre = (mid + 0.5) / PX_PER_MM + (x0, y0)
        bw_mm, bh_mm = (hi1 - lo1) / PX_PER_MM, (hi2 - lo2) / PX_PER_MM
        cx, cy, bw, bh = float(mid[0]), float(mid[1]), hi1 - lo1, hi2 - lo2
        ways = row_axes(bw_mm, bh_mm, card)
        if len(ways) > 1:
            # the side nearer a card's length runs across the row, where the two differ clearly
            off_first, off_second = abs(bw_mm - card[1]), abs(bh_mm - card[1])
            if abs(off_first - off_second) > CLEAR_MM:
                ways = [off_second < off_first]
            else:
                ways = _ways_by_boxes(boxes, to_image, centre, first, bw_mm, bh_mm)
        for along_first in ways:
            axis, length, across = (first, bw_mm, bh_mm) if along_first else (second, bh_mm, bw_mm)
            band = to_image(np.array(cv2.boxPoints(((cx + 0.5, cy + 0.5), (bw, bh), angle)),
                                     np.float64) / PX_PER_MM + (x0, y0))
            for quad_mm, shifts in band_scans(centre, axis, length, across, card, mirrored):
                out.append(Scan(to_image(quad_mm), shifts, band))
    return out


def ink_share(lab: npt.NDArray[np.uint8]) -> float:
    """The share of a band's pixels (Lab, n x 3) printed on: darker than its paper (its bright pixels)
    or coloured. Faces are white paper with pips and indices; backs are one colour all over, or pale
    (the held-out deck's would otherwise pass for a row of faces)."""
    if len(lab) == 0:
        return 0.0
    light = lab[:, 0].astype(np.int16)
    chroma = np.abs(lab[:, 1].astype(np.int16) - 128) + np.abs(lab[:, 2].astype(np.int16) - 128)
    paper = (light >= np.percentile(light, 90) - PAPER_DARKER) & (chroma <= PAPER_CHROMA)
    return float(1.0 - paper.mean())


def _ways_by_boxes(boxes: Sequence[npt.ArrayLike], to_image: ToImage, centre: F64, first: F64,
                   length: float, across: float) -> list[bool]:
    """The way cards lie across a band (as :func:`row_axes`) that the boxes centred on it agree on:
    a box's long side runs across the row. Empty if no box lies on the band or they disagree."""
    c, along = to_image(np.array([centre, centre + first]))
    signs = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * (length / 2, across / 2)
    ends = to_image(centre + signs @ np.array([first, [-first[1], first[0]]]))
    d = (along - c) / max(float(np.linalg.norm(along - c)), 1e-9)
    lo, hi = ends.min(axis=0), ends.max(axis=0)
    votes = set()
    for b in boxes:
        q = np.asarray(b, np.float64).reshape(4, 2)
        m = q.mean(axis=0)
        if not (np.all(m >= lo) and np.all(m <= hi)):
            continue
        sides = [q[(i + 1) % 4] - q[i] for i in range(2)]
        long = max(sides, key=lambda v: float(np.linalg.norm(v)))
        cos = abs(float(np.dot(long, d))) / max(float(np.linalg.norm(long)), 1e-9)
        votes.add(cos < 0.5)  # the card's length across the first axis: the row runs along it
    return list(votes) if len(votes) == 1 else []


def _extent(coords: F64) -> tuple[float, float]:
    """The span of ``coords`` (pixels' places along one axis) over which the pixels at each place
    number at least half the most at any place."""
    c = np.floor(coords).astype(np.int64)
    counts = np.bincount(c - c.min())
    full = np.nonzero(counts >= 0.5 * counts.max())[0]
    return float(full[0] + c.min()), float(full[-1] + c.min() + 1)


def inside_band(point: F64, scans: list[Scan]) -> bool:
    """``point`` (frame pixels) lies on one of the scans' rows."""
    return any(cv2.pointPolygonTest(s.band.astype(np.float32), (float(point[0]), float(point[1])), False) >= 0
               for s in scans)
