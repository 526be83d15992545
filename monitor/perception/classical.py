"""Classical card finder: cards are quadrilaterals that stand out from a uniformly coloured felt.

Separate everything that is not felt (colour distance), take external contours, approximate each
by a polygon and keep convex four-sided ones with a card's proportions. Corners are then refined by
fitting a line to each side (skipping the rounded corners) and intersecting neighbours, which gives
the card's virtual sharp corners to sub-pixel precision. Exact where cards do not touch; touching or
fanned cards merge into one blob and are left to the detector. Needs no model at all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

from monitor.perception.imageio import as_image
from monitor.perception.rectify import card_side_lengths, order_card_corners

F64 = npt.NDArray[np.float64]

MIN_ASPECT, MAX_ASPECT = 1.1, 1.9  # a card is 88/63 = 1.40; perspective widens the range
MIN_FILL = 0.9  # contour area / quad area (rounded corners lose ~1%)
MAX_FILL = 1.3
WORK_LONG_SIDE = 960
OPEN_PX = 5  # at the working scale: removes printed lines and lettering up to ~4 px (at 1080p: ~8 px)
# A card touching a painted line, a numeral, the rail or a chip merges with it into one blob: such
# blobs are eroded by discs these shares of a card's short side (a thin touch; a corner's overlap),
# sized by the cards found whole (at least SPLIT_MIN_CARDS of them), and the parts of a card's shape
# and SPLIT_AREA of its area kept
SPLIT_SHARES = (0.45, 0.6)
SPLIT_MIN_CARDS = 2
SPLIT_SHORT_PX = 18
SPLIT_FELT_AROUND = 0.5  # share of a side, just outside a cut card, that must be felt (3 sides of 4)
SPLIT_FILL = 0.93  # share of a cut card's box its blob must cover
SPLIT_AREA = (0.6, 1.7)
SPLIT_REFINED_AREA = (0.75, 1.3)  # of a free card's area, once the sides are fitted at full resolution


@dataclass(frozen=True, slots=True)
class Quad:
    corners: F64  # (4, 2) ordered TL, TR, BR, BL of the upright card
    fill: float  # contour area / quad area: how card-like the blob is, used as the shape score
    area: float


def background_lab(lab: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """The felt's colour: the per-channel median of a coarse grid (the felt covers most of a table view)."""
    step = max(1, min(lab.shape[:2]) // 64)
    med = np.median(lab[::step, ::step].reshape(-1, 3), axis=0)
    return np.asarray(np.round(med), dtype=np.uint8)


def card_mask(img: npt.NDArray[np.uint8], felt: npt.NDArray[np.uint8] | None = None,
              min_distance: int = 48, open_px: int = 3) -> npt.NDArray[np.uint8]:
    """Pixels that are not felt: far (L1 in CIE Lab) from the felt colour.

    Working from the felt rather than from "white" keeps face cards with saturated art, and card backs,
    in one blob each; the dark pips inside a face become holes, which are skipped.
    """
    lab = as_image(cv2.cvtColor(img, cv2.COLOR_BGR2LAB))
    if felt is None:
        felt = background_lab(lab)
    diff = cv2.absdiff(lab, (float(felt[0]), float(felt[1]), float(felt[2]), 0.0))  # type: ignore[call-overload]
    dist = cv2.transform(diff, np.ones((1, 3), dtype=np.float32))  # saturating uint8 L1 distance
    mask = cv2.compare(dist, min_distance, cv2.CMP_GT)  # type: ignore[call-overload]  # a scalar: stubs omit it
    # Open away thin printed lines and speckle so a card touching a line keeps its outline.
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (open_px, open_px))
    return as_image(cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel))


def _line_intersection(l1: tuple[F64, F64], l2: tuple[F64, F64]) -> F64 | None:
    (p, d), (q, e) = l1, l2
    den = d[0] * e[1] - d[1] * e[0]
    if abs(den) < 1e-9:
        return None
    t = ((q[0] - p[0]) * e[1] - (q[1] - p[1]) * e[0]) / den
    return np.asarray(p + t * d, np.float64)


def outer_contours(mask: npt.NDArray[np.uint8]) -> list[npt.NDArray[np.int32]]:
    """Outer boundaries of every white component, also those lying inside a hole of another one
    (cards sit in the felt, which is a hole in the rail-and-floor component)."""
    contours, hier = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    if hier is None:
        return []
    # findContours gives int32 points; its stubs say any array (a cast, no copy per contour)
    outer = [c for c, h in zip(contours, hier[0], strict=True) if h[3] == -1]
    return cast(list[npt.NDArray[np.int32]], outer)


def refine_corners(contour: F64, quad: F64) -> F64:
    """Fit a line to the middle 70% of each side's contour points and intersect adjacent sides."""
    lines: list[tuple[F64, F64]] = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        d = b - a
        length = float(np.linalg.norm(d))
        if length < 4:
            return quad
        u = d / length
        rel = contour - a
        t = rel @ u / length
        dist = np.abs(rel[:, 0] * u[1] - rel[:, 1] * u[0])
        sel = contour[(t > 0.15) & (t < 0.85) & (dist < max(2.0, 0.05 * length))]
        if len(sel) < 5:
            return quad
        vx, vy, x0, y0 = cv2.fitLine(sel.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], dtype=np.float64), np.array([vx, vy], dtype=np.float64)))
    out = np.empty((4, 2))
    for i in range(4):
        pt = _line_intersection(lines[i - 1], lines[i])  # corner i joins side i-1 and side i
        if pt is None or np.linalg.norm(pt - quad[i]) > 0.2 * np.linalg.norm(quad[i] - quad[i - 1]):
            return quad
        out[i] = pt
    return out


def _own_blob(frame: npt.NDArray[np.uint8], quad: F64, felt: npt.NDArray[np.uint8],
              open_r: float | None = None) -> tuple[npt.NDArray[np.int32], F64, npt.NDArray[np.int64]] | None:
    """The card's own blob in its neighbourhood re-segmented at full resolution: the smallest one
    around its centre that is big enough (a blob touching the ROI border, like the rail, would also
    contain the centre). With ``open_r`` the neighbourhood's pips and art are filled in and it is
    opened by a disc of that radius (a line or numeral the card touches cut off). Returns the blob
    (ROI pixels), its outline in frame pixels and the ROI's offset, or None."""
    h, w = frame.shape[:2]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int)
    m = max(4, int(0.15 * max(x1 - x0, y1 - y0)))
    if open_r is not None:
        m = max(m, int(2 * open_r))
    x0, y0, x1, y1 = max(0, x0 - m), max(0, y0 - m), min(w, x1 + m), min(h, y1 + m)
    area = cv2.contourArea(quad.astype(np.float32))
    mask = card_mask(frame[y0:y1, x0:x1], felt)
    if open_r is not None:
        mask = _opened(_holes_filled(mask, 0.5 * area), open_r)
    center = tuple(float(v) for v in quad.mean(axis=0) - (x0, y0))
    inside = [c for c in outer_contours(mask)
              if cv2.pointPolygonTest(c, center, False) >= 0 and cv2.contourArea(c) >= 0.5 * area]
    if not inside:
        return None
    blob = min(inside, key=cv2.contourArea)
    offset = np.array([x0, y0])
    return blob, blob.reshape(-1, 2).astype(np.float64) + offset, offset


def refine_quad_full_resolution(frame: npt.NDArray[np.uint8], quad: F64, felt: npt.NDArray[np.uint8]) -> F64:
    """Re-segment the card's neighbourhood at full resolution and fit its sides there."""
    found = _own_blob(frame, quad, felt)
    if found is None:
        return quad
    blob, c, offset = found
    # Start from the blob's own four-sided outline when it has one: the detector's box only says
    # where the card is (it comes from a shrunk frame and is a rotated rectangle, not a perspective quad).
    own = card_quad_of(blob)
    if own is not None:
        own = order_card_corners(own + offset)
        if is_card_like_quad(own) and quad_iou(own, quad) > 0.75:
            return refine_corners(c, own)
    return refine_corners(c, quad)


def refine_split_full_resolution(frame: npt.NDArray[np.uint8], quad: F64, felt: npt.NDArray[np.uint8],
                                 k: float) -> F64:
    """A card cut from a merged blob (:func:`_split_cards`), its sides fitted at full resolution: the
    neighbourhood opened by the same disc (``k`` full-resolution pixels wide) so the line or numeral
    it touched does not pull its sides."""
    found = _own_blob(frame, quad, felt, open_r=k / 2)
    if found is None:
        return quad
    blob, c, offset = found
    # the opening rounded the card's corners by the disc: its rotated bounding box still touches the
    # straight middles of its sides, a closer start than a polygon cut across the rounded corners
    own = order_card_corners(cv2.boxPoints(cv2.minAreaRect(blob)).astype(np.float64) + offset)
    return refine_corners(c, own if is_card_like_quad(own) and quad_iou(own, quad) > 0.6 else quad)


def is_card_like_quad(q: F64, min_angle: float = 40.0, min_side_ratio: float = 0.5) -> bool:
    """A rectangle under a table camera's perspective: opposite sides of similar length, no sharp angle.

    Rejects lettering and glyphs printed on the felt whose outline happens to have four vertices.
    """
    # plain floats: called for every candidate outline, and numpy's overhead dwarfs four points
    pts = np.asarray(q, np.float64).reshape(4, 2).tolist()
    sides = [math.sqrt((pts[i][0] - pts[(i + 1) % 4][0]) ** 2 + (pts[i][1] - pts[(i + 1) % 4][1]) ** 2)
             for i in range(4)]
    if min(sides[0], sides[2]) < min_side_ratio * max(sides[0], sides[2]):
        return False
    if min(sides[1], sides[3]) < min_side_ratio * max(sides[1], sides[3]):
        return False
    limit = math.cos(math.radians(min_angle))
    for i in range(4):
        (px, py), (ax, ay), (bx, by) = pts[i], pts[i - 1], pts[(i + 1) % 4]
        ax, ay, bx, by = ax - px, ay - py, bx - px, by - py
        cos = (ax * bx + ay * by) / (math.sqrt(ax * ax + ay * ay) * math.sqrt(bx * bx + by * by) + 1e-9)
        if abs(cos) > limit:
            return False
    return True


def card_quad_of(contour: npt.NDArray[np.int32]) -> F64 | None:
    """Four corners approximating a blob's outline, or None if it is not four-sided.

    Small cards have rounded corners a few pixels across, so the approximation tolerance grows until
    four vertices remain; a blob that fills its minimum-area rectangle falls back to that rectangle.
    """
    hull = cv2.convexHull(contour)
    perimeter = cv2.arcLength(hull, True)
    for eps in (0.02, 0.03, 0.045, 0.06):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True).reshape(-1, 2)
        if len(approx) == 4 and cv2.isContourConvex(approx):
            return approx.astype(np.float64)
        if len(approx) < 4:
            break
    rect = cv2.minAreaRect(hull)
    box = cv2.boxPoints(rect).astype(np.float64)
    if cv2.contourArea(hull) >= MIN_FILL * rect[1][0] * rect[1][1]:
        return box
    return None


def work_scale(width: int, height: int) -> float:
    """The segmentation scale of a ``width`` x ``height`` frame (at most ``WORK_LONG_SIDE`` wide)."""
    return min(1.0, WORK_LONG_SIDE / max(height, width))


def felt_colour(frame: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """The felt's Lab colour as :func:`find_card_quads` judges it on the whole ``frame``."""
    h, w = frame.shape[:2]
    scale = work_scale(w, h)
    img = frame if scale == 1.0 else cv2.resize(frame, (round(w * scale), round(h * scale)),
                                                interpolation=cv2.INTER_AREA)
    return background_lab(as_image(cv2.cvtColor(img, cv2.COLOR_BGR2LAB)))


def inner_part(frame: npt.NDArray[np.uint8], corners: npt.ArrayLike, inset: float = 0.8,
               hole: float | None = None) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.bool_]]:
    """A quad's inner part (``inset`` of it about its centre, clear of its edges and neighbours; over 1,
    the quad and a margin around it): the frame cut to its bounds (clipped to the frame) and where in
    that cut the part lies. With ``hole``, the part less the quad scaled by ``hole``: a ring."""
    q0 = np.asarray(corners, np.float64).reshape(4, 2)
    centre = q0.mean(axis=0)
    q = centre + (q0 - centre) * inset
    h, w = frame.shape[:2]
    x0, y0 = np.clip(np.floor(q.min(axis=0)).astype(int), 0, [w - 1, h - 1])
    x1, y1 = np.clip(np.ceil(q.max(axis=0)).astype(int) + 1, 1, [w, h])
    inside = np.zeros((max(0, y1 - y0), max(0, x1 - x0)), np.uint8)
    cv2.fillPoly(inside, [np.round(q - [x0, y0]).astype(np.int32)], 1)
    if hole is not None:
        cv2.fillPoly(inside, [np.round(centre + (q0 - centre) * hole - [x0, y0]).astype(np.int32)], 0)
    return frame[y0:y1, x0:x1], inside > 0


def card_share(frame: npt.NDArray[np.uint8], corners: npt.ArrayLike, felt: npt.NDArray[np.uint8],
               inset: float = 0.8) -> float:
    """The share of a quad's inner part (:func:`inner_part`) that is not felt (:func:`card_mask`): a
    card's face or back covers nearly all of it, an empty box painted on the layout almost none."""
    cut, inside = inner_part(frame, corners, inset)
    if cut.shape[0] < 3 or cut.shape[1] < 3:  # off the frame, or too small to show a card
        return 0.0
    n = int(inside.sum())
    return float(np.count_nonzero(card_mask(cut, felt)[inside])) / n if n else 0.0


def find_card_quads(frame: npt.NDArray[np.uint8], min_area_px: float = 250.0,
                    max_area_frac: float = 0.5, felt: npt.NDArray[np.uint8] | None = None,
                    scale: float | None = None, card_area: float | None = None) -> list[Quad]:
    """Card-shaped quadrilaterals in ``frame`` (BGR), corners in full-frame pixels.

    Segmentation runs on a copy at most ``WORK_LONG_SIDE`` wide (cheap); each candidate's corners are
    then refined on the full-resolution frame around it. A crop of a larger frame passes that frame's
    ``felt`` colour and ``scale`` (a crop full of arm would misjudge the felt, and a crop segmented at
    another scale would find other blobs than its frame does), and ``card_area`` (full-frame pixels,
    :func:`typical_card_area` of the whole frame's quads) when the crop may hold no free card to size
    a split by.
    """
    h, w = frame.shape[:2]
    scale = work_scale(w, h) if scale is None else scale
    img = frame if scale == 1.0 else as_image(cv2.resize(
        frame, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA))
    if felt is None:
        felt = background_lab(as_image(cv2.cvtColor(img, cv2.COLOR_BGR2LAB)))
    mask = card_mask(img, felt, open_px=OPEN_PX)
    max_area = max_area_frac * img.shape[0] * img.shape[1]
    quads: list[Quad] = []
    whole: list[float] = []  # areas of the card outlines found whole, at the working scale
    merged: list[npt.NDArray[np.int32]] = []  # blobs that are no card's shape: maybe a card and a line
    for c in outer_contours(mask):
        area = cv2.contourArea(c)
        if area < min_area_px * scale * scale or area > max_area:
            continue
        found = _card_outline(c, area)
        if found is None:
            merged.append(c)
            continue
        ordered, fill = found
        whole.append(cv2.contourArea(ordered.astype(np.float32)))
        if scale < 1.0:
            refined = refine_quad_full_resolution(frame, ordered / scale, felt)
        else:
            refined = refine_corners(c.reshape(-1, 2).astype(np.float64), ordered)
        quads.append(Quad(order_card_corners(refined), fill, float(area / (scale * scale))))
    ref = card_area * scale * scale if card_area else _median_area(whole)
    if not ref or not merged:
        return quads
    for ordered, fill, _, k in _split_cards(mask, merged, ref):
        refined = order_card_corners(refine_split_full_resolution(frame, ordered / scale, felt, k / scale))
        # cut at a coarse scale, a card is judged again by its sides fitted at full resolution
        area = cv2.contourArea(refined.astype(np.float32))
        share = area * scale * scale / ref
        if is_card_like_quad(refined) and SPLIT_REFINED_AREA[0] <= share <= SPLIT_REFINED_AREA[1]:
            quads.append(Quad(refined, fill, float(area)))
    return quads


def _card_outline(c: npt.NDArray[np.int32], area: float) -> tuple[F64, float] | None:
    """A blob's card outline (ordered corners at the blob's scale) and its fill (the shape score, at
    most 1), or None if it is no card's shape."""
    approx = card_quad_of(c)
    if approx is None:
        return None
    quad_area = cv2.contourArea(approx.astype(np.float32))
    fill = area / quad_area if quad_area > 0 else 0.0
    # Above 1 when the fitted quad cuts rounded corners (up to ~1.2); a disc around its inscribed
    # square gives ~1.5.
    if not MIN_FILL <= fill <= MAX_FILL:
        return None
    ordered = order_card_corners(approx)
    short, long = card_side_lengths(ordered)
    if short <= 0 or not MIN_ASPECT <= long / short <= MAX_ASPECT or not is_card_like_quad(ordered):
        return None
    return ordered, float(min(fill, 1.0))


def _median_area(areas: list[float]) -> float | None:
    """The median area of the cards found whole (the size a card has in this view), if enough were."""
    return float(np.median(areas)) if len(areas) >= SPLIT_MIN_CARDS else None


def typical_card_area(quads: list[Quad]) -> float | None:
    """The median area (full-frame pixels) of a frame's cards found whole, to size splits of its crops."""
    return _median_area([q.area for q in quads])


def _split_cards(mask: npt.NDArray[np.uint8], blobs: list[npt.NDArray[np.int32]],
                 card_area: float) -> list[tuple[F64, float, float, int]]:
    """Cards inside blobs that are not one card: a card touching a painted line or numeral, the rail,
    a chip or an arm merges with it into one blob. Each blob (pips and art filled in) is eroded by a
    disc a share of a card's short side wide, which cuts what is thinner than that (lines,
    lettering, a corner's touch); each core left is a card if, widened back, it has a card's shape
    and this view's card size. Each as (outline, fill, area, disc), at the mask's scale. The
    erosion is a threshold of a distance transform (a disc kernel costs its area per pixel), each
    blob in its own box (the mask is mostly felt)."""
    short = float(np.sqrt(card_area / 1.4))  # a card is 63 x 88 mm
    # cut at a scale where a card is SPLIT_SHORT_PX wide: the corners are fitted afresh at full
    # resolution anyway
    f = min(1.0, SPLIT_SHORT_PX / short)
    out: list[tuple[F64, float, float, int]] = []
    for blob in blobs:
        x, y, bw, bh = cv2.boundingRect(blob)
        if min(bw, bh) < short or cv2.contourArea(blob) < SPLIT_AREA[0] * card_area:
            continue  # too small to hold a card (a chip, a stack of them)
        m = round(short / 2) + 2
        x0, y0 = max(0, x - m), max(0, y - m)
        x1, y1 = min(mask.shape[1], x + bw + m), min(mask.shape[0], y + bh + m)
        own = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.drawContours(own, [blob - np.array([x0, y0], np.int32)], -1, 255, thickness=cv2.FILLED)
        own &= mask[y0:y1, x0:x1]  # the blob's own pixels (the rail's outline encloses the felt)
        own = _holes_filled(own, 0.5 * card_area)
        if f < 1.0:
            small = cv2.resize(own, (max(1, round(own.shape[1] * f)), max(1, round(own.shape[0] * f))),
                               interpolation=cv2.INTER_AREA)
            own = np.where(small > 127, 255, 0).astype(np.uint8)
        # how far inside the blob each pixel lies
        depth = np.asarray(cv2.distanceTransform(own, cv2.DIST_L2, 5), np.float32)
        for share in SPLIT_SHARES:
            k = max(3, round(share * short) | 1)
            for outline, fill, area in _cores_as_cards(own, depth, f * k / 2, f * f * card_area):
                o = outline / f + np.array([x0, y0], np.float64)
                if all(quad_iou(o, q[0]) < 0.5 for q in out):
                    out.append((o, fill, area / (f * f), k))
    return out


def _cores_as_cards(own: npt.NDArray[np.uint8], depth: npt.NDArray[np.float32], r: float,
                    card_area: float) -> list[tuple[F64, float, float]]:
    """The cards among blobs (their ``depth``) eroded by a disc of radius ``r``. A card eroded by a
    disc is the card less ``r`` on each side, corners still sharp (what the disc cut, a line or a
    numeral, is gone, and growing the core back would round the corners): each core's rotated box
    widened by ``r`` on each side is the card, if it has a card's proportions and size and felt
    along three of its sides (a card touches a line or the rail at a side or a corner; a box cut
    from the rail's edge, an arm or a word painted on the layout has no felt along two)."""
    core = np.where(depth > r, 255, 0).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(core)
    out: list[tuple[F64, float, float]] = []
    for i in range(1, n):
        cx, cy, cw, ch = (int(v) for v in stats[i, :4])
        # the rail's, an arm's or a chip's core is far from a card's
        if not SPLIT_AREA[0] * card_area <= (cw + 2 * r) * (ch + 2 * r) <= 2.5 * card_area:
            continue
        alone = np.where(labels[cy:cy + ch, cx:cx + cw] == i, 255, 0).astype(np.uint8)
        pts = cv2.findNonZero(alone)
        (mx, my), (w, h), angle = cv2.minAreaRect(pts)
        w, h = w + 1 + 2 * r, h + 1 + 2 * r  # pixel centres to edges, then the disc's width back
        short, long = min(w, h), max(w, h)
        if (not MIN_ASPECT <= long / short <= MAX_ASPECT
                or not SPLIT_AREA[0] * card_area <= w * h <= SPLIT_AREA[1] * card_area):
            continue
        centre = (mx + cx, my + cy)
        ring = cv2.boxPoints((centre, (w + 2 * r, h + 2 * r), angle)).astype(np.int32)
        if sum(_felt_share(own, ring[j], ring[(j + 1) % 4]) >= SPLIT_FELT_AROUND for j in range(4)) < 3:
            continue
        box = cv2.boxPoints((centre, (w, h), angle)).astype(np.float64)
        # a card fills its box to the corners; chips side by side, or a painted letter, leave gaps
        # (the box less a margin: a pixel is a lot at this scale)
        inner = np.round(cv2.boxPoints((centre, (0.85 * w, 0.85 * h), angle))).astype(np.int32)
        x0, y0 = np.maximum(inner.min(axis=0), 0)
        x1, y1 = np.minimum(inner.max(axis=0) + 1, (own.shape[1], own.shape[0]))
        if x1 <= x0 or y1 <= y0:
            continue
        inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(inside, inner - (x0, y0), 255)
        n_in = int(np.count_nonzero(inside))
        fill = np.count_nonzero(inside & own[y0:y1, x0:x1]) / n_in if n_in else 0.0
        if fill < SPLIT_FILL:
            continue
        out.append((order_card_corners(box), float(fill), float(w * h)))
    return out


def _opened(mask: npt.NDArray[np.uint8], r: float) -> npt.NDArray[np.uint8]:
    """``mask`` opened by a disc of radius ``r`` (as thresholds of distance transforms: a disc kernel
    costs its area per pixel)."""
    core = np.where(cv2.distanceTransform(mask, cv2.DIST_L2, 5) > r, 0, 255).astype(np.uint8)
    return np.where(cv2.distanceTransform(core, cv2.DIST_L2, 5) <= r, 255, 0).astype(np.uint8)


def _felt_share(mask: npt.NDArray[np.uint8], a: npt.NDArray[np.int32], b: npt.NDArray[np.int32]) -> float:
    """The share of the segment ``a``-``b`` that lies on felt (off ``mask``; outside the frame counts
    as not felt)."""
    n = max(2, int(np.hypot(*(b - a))) + 1)
    xs = np.round(np.linspace(a[0], b[0], n)).astype(int)
    ys = np.round(np.linspace(a[1], b[1], n)).astype(int)
    ok = (xs >= 0) & (ys >= 0) & (xs < mask.shape[1]) & (ys < mask.shape[0])
    if not ok.any():
        return 0.0
    return float(np.count_nonzero(mask[ys[ok], xs[ok]] == 0)) / n


def _holes_filled(mask: npt.NDArray[np.uint8], max_area: float) -> npt.NDArray[np.uint8]:
    """``mask`` with its holes smaller than ``max_area`` filled (a face's pips and art, not the felt)."""
    contours, hier = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return mask
    holes = [c for c, h in zip(contours, hier[0], strict=True)
             if h[3] != -1 and cv2.contourArea(c) < max_area]
    out = mask.copy()
    cv2.drawContours(out, holes, -1, 255, thickness=cv2.FILLED)
    return out


def quad_iou(a: F64, b: F64) -> float:
    """Intersection over union of two convex quads."""
    pa, pb = a.astype(np.float32), b.astype(np.float32)
    inter, _ = cv2.intersectConvexConvex(pa, pb)
    union = cv2.contourArea(pa) + cv2.contourArea(pb) - inter
    return float(inter / union) if union > 0 else 0.0
