"""The perception pipeline: one frame -> ``Detections``.

1. Find objects: the trained detector on a shrunk frame, and/or the classical card finder.
2. Make card corners exact: each detector card is re-segmented around itself at full resolution.
3. Read each card: rectify it from the FULL-resolution frame and classify the crop (calibrated, with
   an honest ``unknown``). The classifier also settles face up vs face down (``back``).
4. Chips: denomination from colour; stack height where an oblique view shows it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Literal, TypeVar

import cv2
import numpy as np
import numpy.typing as npt

from monitor.perception.backends import DEFAULT_BACKEND
from monitor.perception.change_regions import Region
from monitor.perception.chips import DEFAULT_PALETTE, chip_denomination, stack_count
from monitor.perception.classical import (
    Quad,
    background_lab,
    felt_colour,
    find_card_quads,
    is_card_like_quad,
    quad_iou,
    refine_quad_full_resolution,
    typical_card_area,
    work_scale,
)
from monitor.perception.detections import Detection, Detections, corners_from_array
from monitor.perception.detector import Box, Detector
from monitor.perception.edge_snap import snap_all_to_edges
from monitor.perception.identity import CardClassifier, CardEnsemble, Identity, load_card_reader
from monitor.perception.identity_cache import IdentityCache
from monitor.perception.imageio import as_image, check_frame
from monitor.perception.labels import BACK, CARD_FACE_DOWN, CARD_FACE_UP, CHIP, PILE, UNKNOWN
from monitor.perception.line_corners import line_candidates
from monitor.perception.merged_boxes import (
    corner_candidates,
    holds_more_than_one,
    local_card_sides,
    pick_readings,
    worth_reading,
)
from monitor.perception.models_home import SHIPPED_MODELS, models_home, require_models
from monitor.perception.models_home import photo_models as photo_models  # re-exported: the commands' import
from monitor.perception.not_cards import median_card_area, only_cards
from monitor.perception.rectify import CROP_SIZE, order_card_corners, quad_aspect, rectify_card
from monitor.perception.second_look import SECOND_LOOK_CONF, confirmed, uncovered
from monitor.perception.tiled_detect import detect_tiled

ClassicalMode = Literal["off", "refine", "full", "auto"]
_T = TypeVar("_T")
# the models shipped in the package; every default is monitor.perception.models_home's
DEFAULT_MODELS = SHIPPED_MODELS
# A card is 63 x 88 mm (short side 0.72 of the long); a box much squarer than that is two cards under
# one box, or a card and the felt: its crop is no card to name (held-out full-resolution frames: of 95
# cards named right one was boxed squarer than 0.85, of the wrong names two: the 9d of a 4d and a 3d
# boxed together, and a joker read in a 20-pixel box)
CARD_SHAPE_MAX = 0.85
# ... unless the picture's own shape says nothing: a photo resized to another aspect (the shared real set's
# 640 x 640 squares of 3:4 phone photos) shows one card anywhere from 0.54 to 1.0 by its turn. Photos take
# any quad as one card's (the reader, the size check and the one-box-per-card step still judge it): on
# the set's valid photos 0.729 -> 0.782 of cards with their index in view named, the same 4 named wrongly
# (models/MODEL_CARD.md "Real photographs")
ANY_SHAPE = 1.0
# A snapped outline overlapping its box less than this went to another card's edges: the box stays
SNAP_MIN_IOU = 0.6
PILE_COVERED = 0.3  # IoU with a card box over which a pile's top card is already being read


@dataclass
class _Card:
    kind: str
    confidence: float
    corners: npt.NDArray[np.float64]
    source: str


class Perceiver:
    def __init__(self, detector: Detector | None, classifier: CardClassifier | CardEnsemble | None,
                 classical: ClassicalMode = "auto", palette: dict[int, tuple[int, int, int]] | None = None,
                 camera_tilt_deg: float | None = None, cache: IdentityCache | None = None,
                 snap_edges: bool = True, pile_tops: bool = True, tiles: bool = True,
                 split_merged: bool = True, second_look: bool = True, drop_strays: bool = True,
                 overlap: bool = True, drop_oversized: bool = True,
                 card_shape_max: float = CARD_SHAPE_MAX) -> None:
        if detector is None and classical in ("off", "refine"):
            raise ValueError("with no detector the classical finder must run ('full' or 'auto')")
        self.detector = detector
        self.classifier = classifier
        # "auto" runs both finders: the detector finds what the classical finder misses (touching cards,
        # cards on unfamiliar felt, chips, dice), while the classical finder's exact corners read better
        # than the detector's (found on a frame shrunk 3.75x: a median 8-10 px off at 1080p, measured on
        # held-out renders, models/MODEL_CARD.md), so where both find a card its corners win.
        self.mode: ClassicalMode = "full" if classical == "auto" else classical
        self.palette = palette or DEFAULT_PALETTE
        self.camera_tilt_deg = camera_tilt_deg
        # Frames of one camera in order (live, review) reuse readings of unchanged cards; separate
        # photos (``detect``) must not, so the cache is opt-in.
        self.cache = cache
        self.card_area: float | None = None  # a free card's area in the last whole frame (pixels)
        # The detector's own boxes moved onto their cards' edges before reading (``edge_snap``;
        # ``from_models`` leaves it off for video)
        self.snap_edges = snap_edges
        # A pile's top card is a card in full view: read where no other card box covers the pile
        # (held-out oblique frames: the detector boxes the top of a pile, or a single card lying in a
        # hand's box, as a pile; recall of unoccluded cards 0.810 -> 0.976 by this alone,
        # models/MODEL_CARD.md)
        self.pile_tops = pile_tops
        # A 4K frame whose cards the detector saw small also detected in tiles, which show them twice as
        # large (``tiled_detect``)
        self.tiles = tiles
        # Card boxes scored under the detector's threshold read, and kept where they are surely cards
        # (``second_look``): found lost otherwise; photos only, as the tiles
        self.second_look = second_look
        # A box holding two cards (bigger than its neighbours, or squarer than a card) searched for the
        # card on top (``merged_boxes``)
        self.split_merged = split_merged
        # Card boxes the reader named no face in that are no card dropped (``not_cards``): over bare
        # felt, or a blob only the classical finder saw much smaller than a card; the reader takes
        # felt, dice and lamps for backs
        self.drop_strays = drop_strays
        # ... and, with ``drop_strays``, boxes far larger than a card named no face in (``not_cards``):
        # photos only, since the live chain takes a face-down box over a fan of backs as a set hand
        self.drop_oversized = drop_oversized
        self.card_box_area: float | None = None  # the median card box in the last whole frame (pixels)
        # the felt's Lab colour in the last whole frame, where that frame needed it (else None)
        self.felt: npt.NDArray[np.uint8] | None = None
        # The classical finder runs on a second thread while the detector runs, and the chips are read
        # there while the cards are: each side's heavy work (OpenCV, the runtime) frees the GIL, so on
        # two cores a frame takes the longer side's time, not the sum (the same detections either way;
        # `bench perception`, docs/benchmarks.md)
        self.overlap = overlap
        # the squarest quad (short over long side) taken as one card's (``ANY_SHAPE``: any)
        if not 0.5 < card_shape_max <= ANY_SHAPE:
            raise ValueError(f"card_shape_max {card_shape_max}: a short-over-long share in (0.5, 1]")
        self.card_shape_max = card_shape_max

    @classmethod
    def from_models(cls, models_dir: Path | None = None, backend: str = DEFAULT_BACKEND, threads: int = 2,
                    classical: ClassicalMode = "auto", use_detector: bool = True,
                    threshold: float | None = None, video: bool = False,
                    snap_edges: bool | None = None, pile_tops: bool | None = None,
                    tiles: bool | None = None, split_merged: bool | None = None,
                    second_look: bool | None = None, drop_strays: bool | None = None,
                    overlap: bool | None = None, drop_oversized: bool | None = None,
                    shape_check: bool | None = None) -> Perceiver:
        """Load ``detector.onnx`` and ``cards.onnx`` from ``models_dir`` (default: ``models_home()``; each
        optional, but a folder with neither is refused: ``ModelsMissingError``). ``video``:
        frames come in order from one camera, so unchanged cards keep their readings. Each of these
        defaults to on for photos and off for video: ``snap_edges``, the detector's boxes moved onto their
        cards' edges; ``pile_tops``, each pile's top card read as a card; ``tiles``, a frame much larger
        than 1080p also detected in tiles; ``split_merged``, a box holding two cards searched for the
        card on top; ``second_look``, card boxes scored under the detector's threshold kept where the
        reader is sure they are cards; ``overlap``, the classical finder and the chips run on a second
        thread beside the detector and the card reader (video: the live chain and the review already keep
        both cores busy with their own stages and workers). ``drop_strays`` (photos and video): card boxes
        that are no card dropped (over bare felt, or a blob much smaller than a card), and with
        ``drop_oversized`` (photos) boxes far larger than a card. ``shape_check`` (video): a box much squarer
        than a card taken as two cards' and its face not named; off for photos, whose aspect may have
        been changed (``ANY_SHAPE``)."""
        models_dir = require_models(models_home() if models_dir is None else models_dir)
        det_path = models_dir / "detector.onnx"
        detector = Detector(det_path, backend, threads) if use_detector and det_path.exists() else None
        classifier = load_card_reader(models_dir, backend, threads, threshold)
        # Not on video yet: the live chain's fan reader cuts fanned cards' indices along the detector's
        # boxes, and boxes snapped onto the edges of the cards under them lost two faults and raised
        # five false alerts on the gate's rounds (scripts/gate.sh)
        # The pile tops and the tiles are off on video too: the chain follows piles as piles and was
        # proven (the gate) on what the detector finds in a whole 1080p frame.
        return cls(detector, classifier, classical, cache=IdentityCache() if video else None,
                   snap_edges=not video if snap_edges is None else snap_edges,
                   pile_tops=not video if pile_tops is None else pile_tops,
                   tiles=not video if tiles is None else tiles,
                   split_merged=not video if split_merged is None else split_merged,
                   second_look=not video if second_look is None else second_look,
                   drop_strays=drop_strays is None or drop_strays,
                   overlap=not video if overlap is None else overlap,
                   drop_oversized=not video if drop_oversized is None else drop_oversized,
                   card_shape_max=CARD_SHAPE_MAX if (video if shape_check is None else shape_check)
                   else ANY_SHAPE)

    def perceive(self, frame: npt.NDArray[np.uint8]) -> Detections:
        frame = check_frame(frame)
        timings: dict[str, float] = {}
        start = t = time.perf_counter()
        finding = self._beside(find_card_quads, frame) if self.mode == "full" else None
        boxes: list[Box] = []
        low: list[Box] = []  # card boxes under the detector's threshold, for the second look
        if self.detector is not None:
            floor = SECOND_LOOK_CONF if self.second_look else None
            found = (detect_tiled(self.detector, frame, floor) if self.tiles
                     else self.detector.detect(frame, floor=floor))
            boxes, low = self.detector.partition(found)
        timings["detect"] = (time.perf_counter() - t) * 1000
        chips = self._beside(self._others, frame, boxes)

        t = time.perf_counter()
        quads: list[Quad] | None = None
        if finding is not None:
            quads = finding.result()
            # a region's crop may hold no card lying free to size a split by: the frame's stands
            self.card_area = typical_card_area(quads) or self.card_area
        cards = self._card_candidates(frame, boxes, quads)
        timings["corners"] = (time.perf_counter() - t) * 1000

        t = time.perf_counter()
        items = self._identify(frame, cards)
        if self.split_merged:
            items = self._split_merged(frame, items)
        felt = self.felt = felt_colour(frame) if low or self.drop_strays else None
        if low and felt is not None:
            items += self._second_look(frame, low, items, boxes, felt)
        self.card_box_area = median_card_area(
            [b.corners for b in boxes if b.kind in (CARD_FACE_UP, CARD_FACE_DOWN)]) or self.card_box_area
        if self.drop_strays and felt is not None:
            items = only_cards(frame, items, felt, self.card_box_area, self.drop_oversized)
        timings["identify"] = (time.perf_counter() - t) * 1000

        t = time.perf_counter()
        items += chips.result()
        timings["chips"] = (time.perf_counter() - t) * 1000  # the wait for them, where they ran beside
        # the frame's own time: with ``overlap`` less than the stages' sum, which hides work run beside
        timings["total"] = (time.perf_counter() - start) * 1000
        return Detections(frame.shape[1], frame.shape[0], tuple(items), timings)

    def _beside(self, fn: Callable[..., _T], *args: object) -> Future[_T]:
        """``fn(*args)`` on the second thread with ``overlap``, else here and now (as a done future)."""
        if self.overlap:
            return _second_thread().submit(fn, *args)
        done: Future[_T] = Future()
        done.set_result(fn(*args))
        return done

    def perceive_regions(self, frame: npt.NDArray[np.uint8], regions: list[Region],
                         felt: npt.NDArray[np.uint8] | None = None) -> Detections:
        """What touches the regions' cores, each region perceived alone (the detector sees it at the
        whole frame's scale; the classical finder segments it with the whole frame's ``felt`` colour
        and scale). Objects elsewhere are not reported."""
        frame = check_frame(frame)
        h, w = frame.shape[:2]
        timings: dict[str, float] = {}
        start = t = time.perf_counter()
        finding = self._beside(self._region_quads, frame, regions, felt) if self.mode == "full" else None
        boxes: list[Box] = []
        if self.detector is not None:
            for reg in regions:
                found = self.detector.detect(frame, reg.box)
                boxes += [b for b in found if reg.touches(_bounds(b.corners))]
        timings["detect"] = (time.perf_counter() - t) * 1000
        chips = self._beside(self._others, frame, boxes)
        t = time.perf_counter()
        cards = self._card_candidates(frame, boxes, None if finding is None else finding.result())
        timings["corners"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        # the cache keeps the readings of cards it was not shown (away from the changes)
        items = self._identify(frame, cards, keep=lambda x, y: not any(r.holds(x, y) for r in regions))
        if self.drop_strays:
            items = only_cards(frame, items, felt_colour(frame) if felt is None else felt, self.card_box_area)
        timings["identify"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        items += chips.result()
        timings["chips"] = (time.perf_counter() - t) * 1000
        timings["total"] = (time.perf_counter() - start) * 1000
        return Detections(w, h, tuple(items), timings)

    def _region_quads(self, frame: npt.NDArray[np.uint8], regions: list[Region],
                      felt: npt.NDArray[np.uint8] | None) -> list[Quad]:
        """The classical finder's quads touching each region's core, each region segmented alone with
        the whole frame's ``felt`` colour and scale."""
        h, w = frame.shape[:2]
        scale = work_scale(w, h)
        quads: list[Quad] = []
        for reg in regions:
            x0, y0, x1, y1 = reg.box
            for q in find_card_quads(frame[y0:y1, x0:x1], felt=felt, scale=scale, card_area=self.card_area):
                corners = q.corners + np.array([x0, y0], dtype=np.float64)
                if reg.touches(_bounds(corners)):
                    quads.append(Quad(corners, q.fill, q.area))
        return quads

    def _others(self, frame: npt.NDArray[np.uint8], boxes: list[Box]) -> list[Detection]:
        """Chips (denomination from colour, height where a tilt shows it), then hands, dice, piles."""
        items: list[Detection] = []
        for b in one_box_per_chip(boxes):
            if b.kind == CHIP:
                reading = chip_denomination(frame, b.corners, self.palette)
                items.append(Detection(CHIP, b.confidence, corners_from_array(b.corners),
                                       denomination=reading.denomination,
                                       count=stack_count(b.corners, self.camera_tilt_deg)))
            elif b.kind not in (CARD_FACE_UP, CARD_FACE_DOWN):
                items.append(Detection(b.kind, b.confidence, corners_from_array(b.corners)))
        return items

    def _card_candidates(self, frame: npt.NDArray[np.uint8], boxes: list[Box],
                         quads: list[Quad] | None) -> list[_Card]:
        """Cards from the detector's boxes and the classical finder's quads (with ``mode`` "full")."""
        cards = [_Card(b.kind, b.confidence, b.corners, "detector")
                 for b in boxes if b.kind in (CARD_FACE_UP, CARD_FACE_DOWN)]
        if self.mode == "refine" and cards:
            small = cv2.resize(frame, (frame.shape[1] // 4, frame.shape[0] // 4),
                               interpolation=cv2.INTER_AREA)
            felt = background_lab(as_image(cv2.cvtColor(small, cv2.COLOR_BGR2LAB)))
            for c in cards:
                refined = refine_quad_full_resolution(frame, order_card_corners(c.corners), felt)
                if refined is not c.corners and quad_iou(refined, c.corners) > 0.6:
                    c.corners, c.source = refined, "both"
        elif self.mode == "full":
            for q in quads or []:
                best = max(cards, key=lambda c: quad_iou(q.corners, c.corners), default=None)
                if best is not None and quad_iou(q.corners, best.corners) > 0.5:
                    best.corners, best.source = q.corners, "both"
                else:
                    cards.append(_Card(CARD_FACE_UP, q.fill, q.corners, "contour"))
        if self.pile_tops:
            cards += [_Card(CARD_FACE_DOWN, b.confidence, np.asarray(b.corners, np.float64), "pile")
                      for b in boxes if b.kind == PILE
                      and not any(quad_iou(b.corners, c.corners) > PILE_COVERED for c in cards)]
        if self.snap_edges:
            _snapped_to_edges(frame, cards, self.card_shape_max)
        return cards

    def _identify(self, frame: npt.NDArray[np.uint8], cards: list[_Card],
                  keep: Callable[[float, float], bool] | None = None) -> list[Detection]:
        """Read each card (the cache's reading where the card has not changed). ``keep``: the cache
        also keeps its readings of cards centred where this says (cards not looked at this time)."""
        if self.classifier is None:
            return [Detection(c.kind, c.confidence, corners_from_array(order_card_corners(c.corners)),
                              source=c.source) for c in cards]
        # Cut at the dataset's crop size, then let the classifier shrink it (as its training data was).
        crops = [rectify_card(frame, c.corners, CROP_SIZE) for c in cards]
        ordered = [order_card_corners(c.corners) for c in cards]
        # as the rectifier sees each quad: the squarest are read turned 90 degrees too, and not named
        aspects = [quad_aspect(q) for q in ordered]
        if self.cache is None:
            identities = self.classifier.classify(crops, aspects)
        else:
            corners = [np.asarray(c.corners, np.float64) for c in cards]
            cached, matched, thumbs = self.cache.lookup(corners, crops)
            todo = [i for i, ident in enumerate(cached) if ident is None]
            fresh = iter(self.classifier.classify([crops[i] for i in todo], [aspects[i] for i in todo]))
            identities = [ident if ident is not None else next(fresh) for ident in cached]
            self.cache.store(corners, thumbs, identities, matched, keep)
        out = []
        for c, q, aspect, ident in zip(cards, ordered, aspects, identities, strict=True):
            kind, label, rank = card_reading(c.kind, aspect, ident, self.card_shape_max)
            out.append(Detection(kind, c.confidence, corners_from_array(q),
                                 identity=label, identity_confidence=ident.confidence, source=c.source,
                                 rank=rank, back_probability=ident.back_probability))
        return out

    def _second_look(self, frame: npt.NDArray[np.uint8], low: list[Box], items: list[Detection],
                     boxes: list[Box], felt: npt.NDArray[np.uint8]) -> list[Detection]:
        """The low card boxes no card or pile found covers, read; those surely cards (``second_look``)."""
        found = [np.asarray(d.corners, np.float64) for d in items if d.kind in (CARD_FACE_UP, CARD_FACE_DOWN)]
        found += [np.asarray(b.corners, np.float64) for b in boxes if b.kind == PILE]
        cards = [_Card(b.kind, b.confidence, np.asarray(b.corners, np.float64), "second")
                 for b in uncovered(low, found)]
        if not cards:
            return []
        if self.snap_edges:
            _snapped_to_edges(frame, cards, self.card_shape_max)
        return confirmed(frame, self._identify(frame, cards), felt)

    def _split_merged(self, frame: npt.NDArray[np.uint8], items: list[Detection]) -> list[Detection]:
        """Each card box holding more than one card replaced by the cards read inside it, where any is
        (``merged_boxes``); the box stays as it was otherwise."""
        quads = [np.asarray(d.corners, np.float64) for d in items]
        is_card = [d.kind in (CARD_FACE_UP, CARD_FACE_DOWN) for d in items]
        # A box read as a card is not split: a face named is one card's (a face is not named in a box
        # squarer than a card), and a back says nothing of which card lies on top (a pile's offset backs
        # read as a back at every corner). Those of a card's shape size their neighbours'.
        named = [c and d.identity not in (None, UNKNOWN) for c, d in zip(is_card, items, strict=True)]
        single = [n and card_shaped(q, self.card_shape_max) for n, q in zip(named, quads, strict=True)]
        boxes: list[int] = []  # the boxes searched, and for each of its candidates:
        cands: list[list[npt.NDArray[np.float64]]] = []
        laid: list[list[bool]] = []  # laid at the box's corners (else started from edges meeting square)
        for i, q in enumerate(quads):
            if not is_card[i] or named[i]:
                continue
            card = local_card_sides(quads, single, q.mean(axis=0))
            if card is not None and holds_more_than_one(q, card, self.card_shape_max):
                at_corners, from_edges = corner_candidates(q, card), line_candidates(frame, q, card)
                boxes.append(i)
                cands.append(at_corners + from_edges)
                laid.append([True] * len(at_corners) + [False] * len(from_edges))
        raw = [c for cs in cands for c in cs]
        if not raw:
            return items
        # each candidate's sides onto the card's own edges, as the detector's boxes (a candidate is the
        # nearby cards' median size: a few pixels off); one laid at a corner that finds no edge is read
        # where it lay, one started from edges that finds none is dropped (it ran off the card)
        moved = iter(snap_all_to_edges(frame, raw))
        snapped: list[list[bool]] = []
        for n, (i, cs, lay) in enumerate(zip(boxes, cands, laid, strict=True)):
            ms = [next(moved) for _ in cs]
            oks = [m is not None and is_card_like_quad(m) and card_shaped(m, self.card_shape_max) for m in ms]
            cs = [m if ok and m is not None else c for c, m, ok in zip(cs, ms, oks, strict=True)]
            others = [quads[j] for j in range(len(items)) if j != i and is_card[j]]
            keep = [k for k in worth_reading(cs, others) if lay[k] or oks[k]]
            cands[n], laid[n] = [cs[k] for k in keep], [lay[k] for k in keep]
            snapped.append([oks[k] for k in keep])
        read = self._identify(frame, [_Card(CARD_FACE_UP, 0.0, c, "split") for cs in cands for c in cs])
        dropped: set[int] = set()
        added: list[Detection] = []
        k = 0
        for i, cs, lay, snap in zip(boxes, cands, laid, snapped, strict=True):
            mine, k = read[k:k + len(cs)], k + len(cs)
            others = [quads[j] for j in range(len(items)) if j != i and j not in dropped and is_card[j]]
            others += [np.asarray(d.corners, np.float64) for d in added]
            # a back is taken only from a candidate laid at the box's corner whose every side found the
            # card's edge: a back reads as a back wherever a candidate lies on it, askew or not
            kept = pick_readings(cs, [d.identity for d in mine], [d.identity_confidence or 0.0 for d in mine],
                                 others, [x and y for x, y in zip(lay, snap, strict=True)])
            if kept:
                dropped.add(i)
                added += [replace(mine[j], confidence=items[i].confidence) for j in kept]
        return [d for j, d in enumerate(items) if j not in dropped] + added


@cache
def _second_thread() -> ThreadPoolExecutor:
    """The one worker every perceiver's work beside runs on (one is all a second core takes)."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="perceive-beside")


def card_reading(kind: str, aspect: float, ident: Identity,
                 shape_max: float = CARD_SHAPE_MAX) -> tuple[str, str, str | None]:
    """(kind, identity, rank) of a card box of ``kind`` and quad ``aspect`` read as ``ident``; a face in
    a quad squarer than ``shape_max`` is not named."""
    # The face-up/down call: the classifier's best guess "back", even below its naming threshold,
    # outweighs the detector's, which learned few backs (an unseen deck's backs came out face up and
    # raised exposed-card alerts; the classifier's "back" is 97.5% precise on that deck,
    # models/cards_ensemble_report.md).
    label, rank = ident.label, ident.rank
    if label not in (BACK, UNKNOWN) and aspect > shape_max:  # not card_shaped
        label, rank = UNKNOWN, None  # a face, but not one card's: not named (a misread ace is worse)
    if label == BACK or (label == UNKNOWN and ident.top_class == BACK):
        kind = CARD_FACE_DOWN
    elif label != UNKNOWN:
        kind = CARD_FACE_UP
    return kind, label, rank


def card_shaped(corners: npt.ArrayLike, shape_max: float = CARD_SHAPE_MAX) -> bool:
    """Whether a quad's sides are a card's: its mean short side at most ``shape_max`` of its mean long
    side (a card 0.72; perspective and corner error spread it 0.55-0.80 on held-out frames)."""
    return quad_aspect(corners) <= shape_max


def _snapped_to_edges(frame: npt.NDArray[np.uint8], cards: list[_Card], shape_max: float) -> None:
    """The detector's own boxes moved onto their cards' edges where those are found (in place)."""
    # Where the classical finder cut a card out ("contour", "both"), its outline is the card's own
    # blob's; a box only the detector found (a card's, or a pile's read as its top card) comes from the
    # frame shrunk 3.75x and may take in felt or a neighbouring card along a side (held-out frames: mean
    # overlap with the truth 0.75-0.79 -> 0.88-0.89; snapping the matched outlines too named no more on
    # val, lost a card of recall and cost three times as much). A box squarer than a card holds two: no
    # one card's edges to go to.
    todo = [(c, quad) for c in cards
            if c.source in ("detector", "pile")
            and card_shaped(quad := order_card_corners(c.corners), shape_max)]
    snapped = snap_all_to_edges(frame, [quad for _, quad in todo])
    for (c, quad), moved in zip(todo, snapped, strict=True):
        if (moved is not None and is_card_like_quad(moved) and card_shaped(moved, shape_max)
                and quad_iou(moved, quad) > SNAP_MIN_IOU):
            c.corners = moved


def _bounds(corners: npt.NDArray[np.float64]) -> tuple[float, float, float, float]:
    c = np.asarray(corners, dtype=np.float64).reshape(-1, 2)
    return (float(c[:, 0].min()), float(c[:, 1].min()), float(c[:, 0].max()), float(c[:, 1].max()))


def one_box_per_chip(boxes: list[Box]) -> list[Box]:
    """Drop a second box on the same chip or stack: chips lie side by side a diameter apart, so two
    boxes whose centres are closer than 0.6 of a diameter see one stack (its top and its side, or
    two overlapping boxes the detector's NMS kept). The more confident box stays."""
    chips = sorted((b for b in boxes if b.kind == CHIP), key=lambda b: -b.confidence)
    kept: list[Box] = []
    centres: list[np.ndarray] = []
    for b in chips:
        c = np.asarray(b.corners, dtype=np.float64).reshape(4, 2)
        centre = c.mean(axis=0)
        size = min(np.linalg.norm(c[0] - c[1]), np.linalg.norm(c[1] - c[2]))
        if all(np.linalg.norm(centre - k) >= 0.6 * size for k in centres):
            kept.append(b)
            centres.append(centre)
    return [b for b in boxes if b.kind != CHIP] + kept
