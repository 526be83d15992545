"""Perceive a picture at the scale the models were trained for, whatever scale it was taken at.

The detector learned cards about ``TRAINED_CARD_PX`` long in a 1920 x 1080 table frame (it sees that frame
shrunk to its 512 x 288 input, where a card is about 19 px). A phone photo shows cards 200-400 px long, a
4K table view 140 px: seen as they are, the detector boxes pips and indices as little cards, or misses
cards it was never shown that large.

So a picture is first brought to the trained scale: shrunk (or enlarged) by ``factor`` and set in a canvas
of the trained frame's size, filled with the picture's own border colour so that the felt rules see a
background they know. The perceiver runs on that canvas; each card found is mapped back to the picture
and read again from the picture's own pixels (the readers rectify and shrink each card to their input,
so the larger the source the sharper the crop).

The trained length is the detector's own (``Detector.card_px``, from its metadata): the live chain's
detector learned a table camera's 64 px cards; the photo models' detector learned cards twice that long
in the same frame (34 px in its input), which leaves room to tell fanned and overlapping cards apart. A
picture brought to that scale and larger than a 4K frame's half is detected in tiles (``tiled_detect``).

Where the scale is unknown (a photo with no table file), ``find_card_scale`` looks for it first: the
detector runs over a few candidate scales, and the one whose card boxes come out nearest the trained
size, surest, gives the cards' length in the picture. Live, a table file knows its pixels per millimetre:
``factor_for_table``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import cv2
import numpy as np
import numpy.typing as npt

from monitor.perception.detections import Detection, Detections, corners_from_array
from monitor.perception.detector import TABLE_CARD_PX, Detector
from monitor.perception.imageio import as_image, check_frame
from monitor.perception.labels import CARD_FACE_DOWN, CARD_FACE_UP, PILE
from monitor.perception.rectify import (
    CROP_SIZE,
    card_side_lengths,
    order_card_corners,
    quad_aspect,
    rectify_card,
)
from monitor.perception.same_card import one_box_per_card
from monitor.perception.tiled_detect import TILE_FROM_WIDTH

if TYPE_CHECKING:
    from monitor.calibration.table_file import TableCalibration
    from monitor.perception.identity import CardClassifier, CardEnsemble
    from monitor.perception.pipeline import Perceiver

# A card's long side in the frames the live chain's detector and readers were trained on: 1080p renders
# of a table, where the default table's camera shows an 88 mm card 63 px long at the table's centre (60-75
# px over the table and the oblique cameras); the canvas a picture is set into at that scale. A detector
# that looks closer (the photo models') names its own length in its metadata (``Detector.card_px``)
TRAINED_CARD_PX = TABLE_CARD_PX
CANVAS_WH = (1920, 1080)
CARD_LONG_MM = 88.0
# Candidate card lengths (picture pixels) looked at to find an unknown scale: from a card smaller than
# the trained one (a wide table view) to one filling most of a phone photo, a factor of two apart
CANDIDATE_CARD_PX = (50.0, 100.0, 200.0, 400.0, 800.0)
# A card box counts for a candidate scale when it comes out within this factor of the trained length
SIZE_TOLERANCE = 1.6
# Candidates supported this well against the best stay in the running (the longest of them wins)
RIVAL_SHARE = 0.5
# Scales closer than this to 1 are not resized: a 1080p table camera's cards (56-75 px) are perceived
# as they are, as the end-to-end gate proved them; a 4K camera's (about 130 px) are halved
KEEP_AS_IS = 0.15
CARDS = (CARD_FACE_UP, CARD_FACE_DOWN)
CARD_SIZED = (*CARDS, PILE)  # a pile is a card's size seen from above: evidence of the scale too
# A table camera's frame whose cards are found up to this many times the trained length is perceived
# as it is (see perceive_any_scale)
FRAME_AS_IS = 2.5
# Less support than this at every candidate (one unsure box) says nothing of the scale: as it is
MIN_SUPPORT = 0.8


@dataclass(frozen=True, slots=True)
class ScaleFinding:
    """How long the cards are in a picture, and how sure the finding is."""

    card_px: float  # the cards' median long side in picture pixels
    factor: float  # picture -> trained scale (1: the picture is perceived as it is)
    support: float  # summed scores of the card boxes of trained size at the chosen candidate
    candidates: tuple[tuple[float, float], ...]  # (candidate card px, its support), every one tried


def factor_for_card_px(card_px: float, trained: float = TRAINED_CARD_PX) -> float:
    """The resize that brings cards ``card_px`` long to the ``trained`` length."""
    if not card_px > 0:
        raise ValueError(f"card length must be positive, got {card_px}")
    return trained / card_px


def factor_for_table(px_per_mm: float) -> float:
    """The resize that brings a table camera's cards (``px_per_mm`` from its table file) to the trained
    length."""
    if not px_per_mm > 0:
        raise ValueError(f"pixels per millimetre must be positive, got {px_per_mm}")
    return factor_for_card_px(CARD_LONG_MM * px_per_mm)


def card_px_on_table(table: TableCalibration) -> float:
    """The long side, in image pixels, of a card lying at the centre of a table camera's view (its table
    file's homography)."""
    w, h = table.image_size
    centre = table.image_to_table(np.array([[w / 2, h / 2]], dtype=np.float64))[0]
    card = np.array([[0, 0], [63, 0], [63, CARD_LONG_MM], [0, CARD_LONG_MM]], dtype=np.float64)
    px = table.table_to_image(card + centre - np.array([31.5, CARD_LONG_MM / 2]))
    return float((np.linalg.norm(px[1] - px[2]) + np.linalg.norm(px[3] - px[0])) / 2)


def live_factor(table: TableCalibration) -> float | None:
    """The resize that brings a table camera's frames to the trained card scale, or None where the
    camera already shows cards at it (within ``KEEP_AS_IS``)."""
    f = factor_for_card_px(card_px_on_table(table))
    return None if abs(f - 1.0) < KEEP_AS_IS else f


def scaled_back(dets: Detections, factor: float, size: tuple[int, int]) -> Detections:
    """Detections made on a frame resized by ``factor``, in the ``size`` (w, h) frame's own pixels."""
    w, h = size
    items = []
    for d in dets.items:
        c = np.asarray(d.corners, dtype=np.float64) / factor
        c[:, 0] = np.clip(c[:, 0], 0, w - 1)
        c[:, 1] = np.clip(c[:, 1], 0, h - 1)
        items.append(replace(d, corners=corners_from_array(c)))
    return Detections(w, h, tuple(items), dets.timings_ms)


def resized(frame: npt.NDArray[np.uint8], factor: float) -> npt.NDArray[np.uint8]:
    h, w = frame.shape[:2]
    size = (max(1, round(w * factor)), max(1, round(h * factor)))
    return as_image(cv2.resize(frame, size, interpolation=cv2.INTER_AREA if factor < 1 else cv2.INTER_LINEAR))


def _border_colour(img: npt.NDArray[np.uint8]) -> tuple[int, int, int]:
    edge = np.concatenate([img[0], img[-1], img[:, 0], img[:, -1]]).reshape(-1, 3)
    med = np.median(edge, axis=0)
    return (int(med[0]), int(med[1]), int(med[2]))


@dataclass(frozen=True, slots=True)
class Canvas:
    """A picture resized by ``factor`` and set at ``offset`` in a canvas (canvas = picture * factor +
    offset)."""

    image: npt.NDArray[np.uint8]
    factor: float
    offset: tuple[float, float]

    def to_picture(self, corners: npt.ArrayLike) -> npt.NDArray[np.float64]:
        c = np.asarray(corners, dtype=np.float64).reshape(-1, 2)
        out: npt.NDArray[np.float64] = (c - np.asarray(self.offset)) / self.factor
        return out


def to_canvas(picture: npt.NDArray[np.uint8], factor: float) -> Canvas:
    """``picture`` resized by ``factor`` in the middle of a trained-size canvas (larger if it does not
    fit), the rest filled with the picture's border colour."""
    picture = check_frame(picture, "picture")
    h, w = picture.shape[:2]
    nw, nh = max(1, round(w * factor)), max(1, round(h * factor))
    interp = cv2.INTER_AREA if factor < 1 else cv2.INTER_LINEAR
    small = cv2.resize(picture, (nw, nh), interpolation=interp) if (nw, nh) != (w, h) else picture
    cw, ch = max(CANVAS_WH[0], nw), max(CANVAS_WH[1], nh)
    canvas = np.empty((ch, cw, 3), dtype=np.uint8)
    canvas[:] = _border_colour(picture)
    x0, y0 = (cw - nw) // 2, (ch - nh) // 2
    canvas[y0:y0 + nh, x0:x0 + nw] = small
    # the exact factors of the integer resize, one per axis, averaged (they differ by under a pixel)
    real = (nw / w + nh / h) / 2
    return Canvas(as_image(canvas), real, (float(x0), float(y0)))


def _long_side(corners: npt.ArrayLike) -> float:
    return card_side_lengths(order_card_corners(corners))[1]


def find_card_scale(detector: Detector, picture: npt.NDArray[np.uint8],
                    candidates: tuple[float, ...] = CANDIDATE_CARD_PX,
                    reader: CardClassifier | CardEnsemble | None = None) -> ScaleFinding | None:
    """The cards' length in ``picture`` (None: too few card or pile boxes at every candidate scale).

    For each candidate length the picture is brought to the trained scale as if its cards were that
    long, and the detector looks; a candidate's support is the summed score of its card boxes of about
    the trained size (piles count: a pile is a card's size). A candidate shorter than the truth shows
    the cards too large, and the detector may box their pips and indices as little cards; so of the
    candidates supported at least ``RIVAL_SHARE`` as well as the best, the longest wins (its boxes hold
    the pips the shorter ones boxed). With a ``reader`` each box counts as surely as it reads as a card (a pip
    or an index boxed as a little card reads as no card surely; on the real valid photos the length
    found is within a quarter of the labelled boxes' in most). The median length of its boxes, mapped
    back to the picture, is the finding."""
    tried: list[tuple[float, float]] = []
    fitting: dict[float, list[float]] = {}
    trained = detector.card_px
    for card_px in candidates:
        canvas = to_canvas(picture, factor_for_card_px(card_px, trained))
        boxes = [b for b in detector.detect(canvas.image) if b.kind in CARD_SIZED]
        fits = [b for b in boxes
                if 1 / SIZE_TOLERANCE <= _long_side(b.corners) / trained <= SIZE_TOLERANCE]
        weights = [b.confidence for b in fits]
        if reader is not None and fits:
            # a box the reader names as a card (or a back) with confidence is a card; a pip or an index
            # boxed as a little card reads as no card surely
            crops = [rectify_card(picture, canvas.to_picture(b.corners), CROP_SIZE) for b in fits]
            weights = [w * i.confidence for w, i in zip(weights, reader.classify(crops), strict=True)]
        tried.append((card_px, float(sum(weights))))
        fitting[card_px] = [_long_side(b.corners) / canvas.factor for b in fits]
    best = max(support for _, support in tried)
    if best < MIN_SUPPORT:
        return None
    card_px, chosen = max((c, s) for c, s in tried if s >= RIVAL_SHARE * best)
    length = float(np.median(fitting[card_px]))
    return ScaleFinding(length, factor_for_card_px(length, trained), chosen, tuple(tried))


def reread_at_source(reader: CardClassifier | CardEnsemble | None, picture: npt.NDArray[np.uint8],
                     cards: list[tuple[int, npt.NDArray[np.float64]]],
                     items: list[Detection], shape_max: float) -> list[Detection]:
    """The card detections ``items[i]`` (``cards``: index and corners in the picture) read again from
    the picture's own pixels, with the perceiver's rules for what a reading makes of a card."""
    from monitor.perception.pipeline import card_reading

    if reader is None or not cards:
        return items
    crops = [rectify_card(picture, c, CROP_SIZE) for _, c in cards]
    aspects = [quad_aspect(order_card_corners(c)) for _, c in cards]
    out = list(items)
    for (i, _), aspect, ident in zip(cards, aspects, reader.classify(crops, aspects), strict=True):
        kind, label, rank = card_reading(out[i].kind, aspect, ident, shape_max)
        out[i] = replace(out[i], kind=kind, identity=label, identity_confidence=ident.confidence, rank=rank,
                         back_probability=ident.back_probability)
    return out


def perceive_at_factor(perceiver: Perceiver, picture: npt.NDArray[np.uint8], factor: float,
                       reread: bool = True) -> Detections:
    """Perceive ``picture`` brought to the trained scale by ``factor``; every object mapped back to the
    picture's pixels, each card read again from the picture's own pixels where ``reread`` (and the
    picture is the sharper: ``factor`` under 1)."""
    picture = check_frame(picture, "picture")
    h, w = picture.shape[:2]
    if abs(factor - 1.0) < KEEP_AS_IS:
        if w >= CANVAS_WH[0] and h >= CANVAS_WH[1]:
            return perceiver.perceive(picture)
        factor = 1.0  # its pixels at the trained scale, but a small picture still goes into the canvas:
        # seen alone, the detector would enlarge it to its whole input
    canvas = to_canvas(picture, factor)
    seen = perceiver.perceive(canvas.image)
    items: list[Detection] = []
    cards: list[tuple[int, npt.NDArray[np.float64]]] = []
    for d in seen.items:
        c = canvas.to_picture(d.corners)
        c[:, 0] = np.clip(c[:, 0], 0, w - 1)
        c[:, 1] = np.clip(c[:, 1], 0, h - 1)
        if float(np.ptp(c[:, 0])) < 1 or float(np.ptp(c[:, 1])) < 1:
            continue  # an object on the canvas's filler only
        if d.kind in CARDS:
            cards.append((len(items), c))
        items.append(replace(d, corners=corners_from_array(c)))
    if reread and canvas.factor < 1:
        items = reread_at_source(perceiver.classifier, picture, cards, items, perceiver.card_shape_max)
    return Detections(w, h, tuple(items), seen.timings_ms)


def perceive_any_scale(perceiver: Perceiver, picture: npt.NDArray[np.uint8],
                       card_px: float | None = None) -> tuple[Detections, ScaleFinding | None]:
    """Perceive a picture whose scale is ``card_px`` (its cards' long side in pixels), or unknown
    (None: found first with ``find_card_scale``; a picture whose cards are found within the sizes the
    detector learned, or found at no scale, is perceived as it is). A card two boxes named alike is
    kept once (``same_card``)."""
    dets, finding = _perceive_any_scale(perceiver, picture, card_px)
    return one_box_per_card(dets), finding


def _perceive_any_scale(perceiver: Perceiver, picture: npt.NDArray[np.uint8],
                        card_px: float | None) -> tuple[Detections, ScaleFinding | None]:
    finding: ScaleFinding | None = None
    trained = perceiver.detector.card_px if perceiver.detector is not None else TRAINED_CARD_PX
    if card_px is None:
        if perceiver.detector is None:
            return perceiver.perceive(picture), None
        finding = find_card_scale(perceiver.detector, picture, reader=perceiver.classifier)
        if finding is None:
            return perceive_at_factor(perceiver, picture, 1.0), None
        # cards found within the sizes the detector learned are perceived as they are: a resize would
        # only move them off the scale they were proven at. A table camera's frame (the canvas's size
        # or more) is taken as it is up to cards 2.5 times the trained length (the finder makes an
        # oblique or piled frame's 60-100 px cards up to 140), a 4K one up to twice that (the perceiver
        # detects it again in tiles twice as large): held-out rendered 1080p and 4K frames, recall
        # 0.991 as they are, 0.944 with every card brought to 64 px
        h, w = picture.shape[:2]
        frame = w >= CANVAS_WH[0] and h >= CANVAS_WH[1]
        tiled = 2.0 if w >= TILE_FROM_WIDTH and perceiver.tiles else 1.0
        most = (FRAME_AS_IS if frame else SIZE_TOLERANCE) * tiled
        near = 1 / SIZE_TOLERANCE <= finding.card_px / trained <= most
        return perceive_at_factor(perceiver, picture, 1.0 if near else finding.factor), finding
    return perceive_at_factor(perceiver, picture, factor_for_card_px(card_px, trained)), finding
