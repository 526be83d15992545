"""Reading the cards of a fanned hand by their index corners, from the detector's card boxes.

A set hand turned up lies fanned: each card shows little more than the corner where its index is
printed, ~16 x 28 px at 1080p. The detector still boxes each card of the fan whole (its outline
inferred under the cards above), a few pixels off: along the card's top edge a median 5 px of a
45 px card (held-out fault recordings), which is a third of the index's width. So each of a box's
two index corners is cut at a few shifts along the top edge and read by the fan-index classifier
(``train fan-crops`` then ``train cards``), which also learned "no index here" (``back``: a covered
corner, or a cut slid off the index); the shift it is surest shows an index is read. What comes
out is the same as the index finder's (``IndexRead``), for ``tablestate.index_cards``.

``fan_reader.json`` beside the models: ``{"reader": "fan_index.onnx", "peaks": true, "shifts": [...],
"min_index": p, "rank_threshold": r, "colour_threshold": c, "members": [...], "threshold": t}``
(``train fan-reader`` fits and writes it); the classifier's own JSON holds its classes, temperature
and (alone) naming threshold.

``members``: more classifiers over the same classes that read the cuts the reader chose (not every
shift: their cost is a few crops a card). On a deck none of them saw, their mistakes differ more than
their right answers: the card is named on the normalised geometric mean of all their card
probabilities (held-out vector deck crops, the fan classifier with the corner member: names at 0.1%
false 5.0% -> 8.1%, false names 0.18% -> 0%). Whether an index shows at all stays the reader's call
(only it learned "no index here"). ``threshold`` is then the ensemble's, fitted with it.

``box_member``: a classifier of the fanned card whole (``train fan-crops --view card``): a fanned card
shows a strip of its face beside its index (pips, court art), which the index cut leaves out. Each
index read has its card cut whole from the outline the read implies (the index region is a known
share of the card from its corner: the read sits within ~0.05 of a width of the index, where the
detector's boxes of a fan are a median 0.11 and at p90 0.3 of a width off). It is a second opinion:
folded into every read as a member (the geometric mean) it pulled down the names the index alone
was sure of (held-out fault frames: 16% -> 4% named), so the index's read stands and the card's
probabilities, folded in, only add what the index left: a name, a rank or an ink, at the box
thresholds (``box_thresholds``: name, rank, ink), fitted on the val crops the index leaves without
them (``train fan-reader --box-member``).

``spread_rows`` (``off``, ``add``, ``first``), ``spread_zones``, ``row_agree``: hand zones whose rows
of cards are found from the zone's picture (:mod:`monitor.perception.spread_rows`) and read along
their edges (:meth:`FanReader.read_scans`), beside the detector's boxes or before them; a row's read
stands only where the box member gives its rank at least ``row_agree``.

``count_threshold``: a rank the index reads at least this surely marks its read ``sure``: counted by
rank and ink for rule 60 (a third red king turned up in a deal is a duplicate, whatever the suits).
It is fitted at a tighter budget than the rank's (``train fan-reader --max-false-count-rate``, 0.5%:
the held-out vector deck's crops 0.36% false, 0.08% with the agreement below): a rank read wrongly
there is a false misdeal, where
at the rank's 1% a jack read as a queen made a third red queen in the hundred clean rounds. A name is
always sure; a rank only the second opinion gave is not (its budget was not fitted for counting), and
with a box member a rank counts only where the second reading (the card whole folded in) gives the same
rank at its own thresholds: two readings that must agree (clean_1047's three in a fan read as a five at
0.97 by the index, 0.16 with the card whole: a third black five).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from monitor.perception.backends import DEFAULT_BACKEND, Backend, load_backend
from monitor.perception.calibration import log_probs, softmax_t
from monitor.perception.errors import ModelFileError
from monitor.perception.identity import ClassifierMeta
from monitor.perception.index_geometry import index_crop, index_quads
from monitor.perception.index_reader import IndexRead
from monitor.perception.labels import BACK
from monitor.perception.ranks import ink_of, rank_of, read_colours, read_ranks
from monitor.perception.rectify import (
    CORNER_SHARE,
    CROP_SIZE,
    crops_to_tensor,
    order_card_corners,
    rectify_card,
)
from monitor.rules.cards import JOKER_TEXT

F64 = npt.NDArray[np.float64]
Region = tuple[int, int, int, int]  # x0, y0, x1, y1 in frame pixels
FAN_READER_FILE = "fan_reader.json"
# shares of the card's width along its top edge: the detector's box error (p50 0.12, p90 0.3 of the
# width); wider would reach the next card's index, a fan's step being ~0.3 of the width
DEFAULT_SHIFTS = (-0.15, -0.075, 0.0, 0.075, 0.15)
# a cut less sure of an index is not counted as a card at all (slid along a box's edge, cuts across a
# card's pips peak at 0.6-0.8; indices at 0.99 and over, the fault recordings' fans)
DEFAULT_MIN_INDEX = 0.95
# with ``peaks``: every index a box's top edge passes (the fan's other cards too), a twentieth of a
# width apart (the classifier learned an index within +-0.05 of a width as that index)
PEAK_SHIFTS = tuple(round(0.05 * k, 2) for k in range(-9, 10))
# reads of one index closer than this share of a width are one (a fan steps ~0.3 of a width)
POOL_NEAR = 0.12
# hand zones' rows of cards found from their pictures (:mod:`monitor.perception.spread_rows`): not
# looked for, read beside the detector's boxes, or read first (a box centred on a row found is left)
SPREAD_ROWS = ("off", "add", "first")
SPREAD_ZONES = ("banker", "front", "back")  # where (the banker's place, the seats' hand areas)
# a row's read stands where the box member gives its rank this much (held-out fault and clean rounds'
# banker rows: 19 of 20 wrong ranks below 0.05, 9 of 653 right ones)
ROW_AGREE = 0.05


@dataclass(frozen=True, slots=True)
class CornerRead:
    """One index corner of a card box, read at the shift surest to show an index."""

    quad: F64  # the index region read (card order: the card's corner first)
    index_p: float  # 1 - P(back): how sure an index is there
    probs: F64  # calibrated class probabilities there


def turned(card: F64) -> F64:
    """An outline in card order read from its other corner (the card turned 180 degrees)."""
    return np.roll(card, -2, axis=0)


def corner_cards(card: npt.ArrayLike) -> list[F64]:
    """A card box as its two readings: the outline from each printed-index corner (upright, and
    turned 180 degrees)."""
    q = order_card_corners(card)
    return [q, turned(q)]


def _cards_only(probs: F64, back: int) -> F64:
    """Probabilities with "no index" (class ``back``) set aside and the cards' renormalised."""
    p = np.array(probs, np.float64)
    p[:, back] = 0.0
    p /= np.clip(p.sum(axis=1, keepdims=True), 1e-12, None)
    return p


def card_probabilities(probs: F64, back: int) -> F64:
    """Each cut's card probabilities as the reader uses them: "no index" (class ``back``) set aside,
    the rest scaled by how sure the cut is of an index (a card named is also sure to be an index)."""
    return _cards_only(probs, back) * (1.0 - probs[:, [back]])


def ensemble_probabilities(primary: F64, members: Sequence[F64], back: int) -> F64:
    """The reader's probabilities with its card columns replaced by the normalised geometric mean of
    every model's card probabilities (each with ``back`` set aside); the reader's ``back`` kept (the
    members were not taught "no index here")."""
    if not members:
        return primary
    logs = [np.log(np.clip(_cards_only(p, back), 1e-12, None)) for p in (primary, *members)]
    out = _cards_only(np.exp(np.mean(logs, axis=0)), back) * (1.0 - primary[:, [back]])
    out[:, back] = primary[:, back]
    return out


def implied_card(quad: F64) -> F64:
    """The card outline (card order) an index region read implies: the region is ``CORNER_SHARE`` of
    the card from its corner, along its top edge and down its side."""
    o = quad[0]
    u = (quad[1] - o) / CORNER_SHARE[0]
    v = (quad[3] - o) / CORNER_SHARE[1]
    return np.array([o, o + u, o + u + v, o + v], np.float64)


# Ranks a second reading adds only where the index's own best guess has that rank too: a card read
# whole may be seen turned, and a six turned is a nine (the box member on the held-out deck: 6 read as
# 9 41 times in 3,147 crops; a false foul in the hundred clean rounds), where an index cut is always
# upright
TURNED_RANKS = frozenset({"6", "9"})


def second_opinion(first: IndexRead, second: IndexRead) -> IndexRead:
    """An index read (``first``) completed by a second reading of it (``second``): a name it lacks
    where the second names the card of its rank (or it read no rank), else a rank or an ink it lacks;
    what the first read stands. A six or a nine comes from the second only where the first's best
    guess (its ``top``, read or not) is of that rank (``TURNED_RANKS``)."""
    if first.card is not None:
        return first
    said = second.rank if second.card is None else rank_of(second.card)
    if first.rank is None and said in TURNED_RANKS and rank_of(first.top) != said:
        second = IndexRead(second.quad, second.score, None, None, second.top, second.confidence,
                           second.colour if second.card is None else ink_of(second.card))
    if second.card is not None and (first.rank is None or rank_of(second.card) == first.rank) and (
            first.colour is None or ink_of(second.card) in (None, first.colour)):
        return second
    rank = first.rank if first.rank is not None else second.rank
    colour = first.colour if first.colour is not None else second.colour
    # a rank is counted (``sure``) as the index read it: the second opinion's ranks are not fitted to
    # the count budget
    return IndexRead(first.quad, first.score, None, rank, first.top, first.confidence, colour,
                     first.sure and rank == first.rank)


def agreed(read: IndexRead, box_p: F64, classes: Sequence[str], least: float) -> IndexRead:
    """``read`` as it stands if the card read whole (``box_p``, over ``classes``) gives its rank at
    least ``least`` (a six or a nine: either, the card may lie turned); else not read at all (a card
    found, nothing said of it)."""
    said = read.rank if read.card is None else (rank_of(read.card) or read.card)  # the joker: itself
    if said is None:
        return read
    want = TURNED_RANKS if said in TURNED_RANKS else {said}
    p = sum(float(box_p[i]) for i, c in enumerate(classes) if (rank_of(c) or c) in want)
    if p >= least:
        return read
    return IndexRead(read.quad, read.score, None, None, read.top, read.confidence, None)


def in_classes(probs: F64, have: Sequence[str], want: Sequence[str]) -> F64:
    """Probabilities over classes ``have`` put in the order of ``want`` (a class ``have`` lacks, such as
    a box member's "no index here", at 0)."""
    out = np.zeros((len(probs), len(want)))
    where = {c: k for k, c in enumerate(have)}
    for j, c in enumerate(want):
        if c in where:
            out[:, j] = probs[:, where[c]]
    return out


def with_box_reads(probs: F64, owners: Sequence[int | None], box_probs: F64, back: int) -> F64:
    """Index reads with the card probabilities of the box each belongs to folded in (a member's
    geometric mean); a read with no box is left as it is."""
    out = np.array(probs, np.float64)
    pairs = [(i, k) for i, k in enumerate(owners) if k is not None]
    if pairs:
        rows = [i for i, _ in pairs]
        boxes = box_probs[[k for _, k in pairs]]
        out[rows] = ensemble_probabilities(out[rows], [boxes], back)
    return out


def shifted_index_quads(card: F64, shifts: Sequence[float]) -> list[F64]:
    """The index region of ``card`` (card order) with the outline slid along its top edge."""
    u = card[1] - card[0]
    return [index_quads(card + s * u)[0] for s in shifts]


def pooled(reads: list[CornerRead], near: float = POOL_NEAR) -> list[CornerRead]:
    """One read per index: reads whose index corners lie within ``near`` of a card's width of each
    other, facing the same way, are the same index cut along different boxes' edges (a fan's boxes
    pass each other's indices); their probabilities are averaged, weighted by how sure each is of
    an index (cuts that differ a little read as test-time augmentation), the surest cut kept."""
    groups: list[list[CornerRead]] = []
    for r in sorted(reads, key=lambda r: -r.index_p):
        width = float(np.linalg.norm(r.quad[1] - r.quad[0])) / CORNER_SHARE[0]
        side = r.quad[3] - r.quad[0]
        for g in groups:
            a = g[0].quad
            if (np.linalg.norm(a[0] - r.quad[0]) <= near * width
                    and float(np.dot(a[3] - a[0], side)) > 0):
                g.append(r)
                break
        else:
            groups.append([r])
    out = []
    for g in groups:
        w = np.array([r.index_p for r in g])
        probs = np.average(np.stack([r.probs for r in g]), axis=0, weights=w)
        out.append(CornerRead(g[0].quad, g[0].index_p, probs))
    return out


class FanReader:
    """Index corners of card boxes -> ``IndexRead``s (the fan-index classifier, shift-searched)."""

    def __init__(self, path: str | Path, backend: str = DEFAULT_BACKEND, threads: int = 2) -> None:
        self.path = Path(path)
        try:
            raw: dict[str, Any] = json.loads(self.path.read_text())
            reader = str(raw["reader"])
            self.peaks = bool(raw.get("peaks", False))
            default = PEAK_SHIFTS if self.peaks else DEFAULT_SHIFTS
            self.shifts = tuple(float(s) for s in raw.get("shifts", default))
            self.min_index = float(raw.get("min_index", DEFAULT_MIN_INDEX))
            self.peak_gap = float(raw.get("peak_gap", 0.2))
            self.spread_rows = str(raw.get("spread_rows", "off"))
            self.spread_zones = tuple(str(z) for z in raw.get("spread_zones", SPREAD_ZONES))
            self.row_agree = float(raw.get("row_agree", ROW_AGREE))
            rank_threshold = raw.get("rank_threshold")
            count_threshold = raw.get("count_threshold")
            colour_threshold = raw.get("colour_threshold")
            threshold = raw.get("threshold")
            members = [str(m) for m in raw.get("members", [])]
            box_member = raw.get("box_member")
            box_thresholds = raw.get("box_thresholds")
        except FileNotFoundError as exc:
            raise ModelFileError(f"fan reader file not found: {self.path}") from exc
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ModelFileError(f"fan reader file {self.path} is malformed: {exc!r}") from exc
        if not self.shifts or any(abs(s) > 0.5 for s in self.shifts) or not 0.0 < self.min_index < 1.0:
            raise ModelFileError(f"fan reader file {self.path}: need shifts within +-0.5 of a card's width "
                                 f"and min_index in (0, 1)")
        if self.spread_rows not in SPREAD_ROWS:
            raise ModelFileError(f"fan reader file {self.path}: spread_rows must be one of "
                                 f"{', '.join(SPREAD_ROWS)}, not {self.spread_rows!r}")
        if not 0.0 <= self.row_agree < 1.0:
            raise ModelFileError(f"fan reader file {self.path}: row_agree must lie in [0, 1)")
        unknown = sorted(set(self.spread_zones) - set(SPREAD_ZONES))
        if unknown:
            raise ModelFileError(f"fan reader file {self.path}: spread_zones may name "
                                 f"{', '.join(SPREAD_ZONES)}, not {unknown}")
        self.reader_path = self.path.parent / reader
        self.meta = ClassifierMeta.load(self.reader_path.with_suffix(".json"))
        if BACK not in self.meta.classes:
            raise ModelFileError(f"{self.reader_path}: a fan reader needs a '{BACK}' class (no index here)")
        self.classes = self.meta.classes
        self.threshold = self.meta.threshold if threshold is None else float(threshold)
        if not 0.0 < self.threshold <= 1.0:
            raise ModelFileError(f"fan reader file {self.path}: threshold must lie in (0, 1]")
        # a rank is read at its own threshold (fitted alone: a foul is judged on ranks)
        self.rank_threshold = self.threshold if rank_threshold is None else float(rank_threshold)
        if not 0.0 < self.rank_threshold <= 1.0:
            raise ModelFileError(f"fan reader file {self.path}: rank_threshold must lie in (0, 1]")
        # a rank sure enough to count a card for rule 60 (None: only names are): fitted at a tighter
        # budget than the rank's (a third red king is a misdeal)
        self.count_threshold = None if count_threshold is None else float(count_threshold)
        if self.count_threshold is not None and not self.rank_threshold <= self.count_threshold <= 1.0:
            raise ModelFileError(f"fan reader file {self.path}: count_threshold must lie in "
                                 f"[rank_threshold, 1]")
        # the ink of a card not named, at its own threshold (None: inks are not read); two inks in a
        # five-card hand rule out a flush (rule 50a)
        self.colour_threshold = None if colour_threshold is None else float(colour_threshold)
        if self.colour_threshold is not None and not 0.5 < self.colour_threshold <= 1.0:
            raise ModelFileError(f"fan reader file {self.path}: colour_threshold must lie in (0.5, 1]")
        self.backend: Backend = load_backend(self.reader_path, backend, threads)
        self._back = self.classes.index(BACK)
        self.members: list[tuple[ClassifierMeta, Backend]] = []
        for name in members:
            path = self.path.parent / name
            meta = ClassifierMeta.load(path.with_suffix(".json"))
            if meta.classes != self.classes:
                raise ModelFileError(f"fan reader file {self.path}: member {name} has other classes than "
                                     f"{reader} (an ensemble averages class by class)")
            self.members.append((meta, load_backend(path, backend, threads)))
        self.box_member: tuple[ClassifierMeta, Backend] | None = None
        if box_member is not None:
            path = self.path.parent / str(box_member)
            meta = ClassifierMeta.load(path.with_suffix(".json"))
            if set(meta.classes) - {BACK} != set(self.classes) - {BACK}:
                raise ModelFileError(f"fan reader file {self.path}: box member {box_member} has other "
                                     f"classes than {reader}")
            self.box_member = (meta, load_backend(path, backend, threads))
        # the second reading's name, rank and ink thresholds ([name, rank, ink or null])
        self.box_thresholds: tuple[float, float, float | None] | None = None
        if box_member is not None:
            try:
                name_t, rank_t, ink_t = box_thresholds  # type: ignore[misc]
                self.box_thresholds = (float(name_t), float(rank_t), None if ink_t is None else float(ink_t))
            except (TypeError, ValueError) as exc:
                raise ModelFileError(f"fan reader file {self.path}: a box member needs box_thresholds "
                                     f"[name, rank, ink] (train fan-reader --box-member fits them)") from exc
            if not all(0.0 < t <= 1.0 for t in self.box_thresholds if t is not None):
                raise ModelFileError(f"fan reader file {self.path}: box_thresholds must lie in (0, 1]")

    def box_probabilities(self, frame: npt.NDArray[np.uint8], cards: Sequence[npt.ArrayLike]) -> F64:
        """The box member's calibrated probabilities (the reader's classes) of each card outline, read
        whole."""
        if self.box_member is None or not cards:
            return np.zeros((len(cards), len(self.classes)))
        meta, backend = self.box_member
        crops = [rectify_card(frame, c, CROP_SIZE) for c in cards]
        lp = log_probs(backend.run(crops_to_tensor(crops, meta.imgsz))[0], meta.outputs_are_probabilities)
        return in_classes(softmax_t(lp, meta.temperature), meta.classes, self.classes)

    def corners(self, frame: npt.NDArray[np.uint8], cards: Sequence[npt.ArrayLike]) -> list[CornerRead]:
        """Both index corners of every card box, each at its surest shift (corners sure of no index
        are left out)."""
        return self.scanned(frame, [(card, self.shifts) for c in cards for card in corner_cards(c)],
                            self.peaks)

    def scanned(self, frame: npt.NDArray[np.uint8], scans: Sequence[tuple[F64, Sequence[float]]],
                peaks: bool = True) -> list[CornerRead]:
        """The index corners read along each scan (a card outline in card order, slid along its top
        edge by each shift): every peak of "an index here" (``peaks``) or the surest shift, sure enough."""
        quads = [q for card, shifts in scans for q in shifted_index_quads(card, shifts)]
        if not quads:
            return []
        crops = [index_crop(frame, q, self.meta.imgsz) for q in quads]
        lp = log_probs(self.backend.run(crops_to_tensor(crops, self.meta.imgsz))[0],
                       self.meta.outputs_are_probabilities)
        p = softmax_t(lp, self.meta.temperature)
        kept = []  # (cut number, its probabilities)
        first = 0
        for _card, shifts in scans:
            rows = p[first:first + len(shifts)]
            index_p = 1.0 - rows[:, self._back]
            for k in (self.index_peaks(index_p, shifts) if peaks else [int(np.argmax(index_p))]):
                if index_p[k] >= self.min_index:
                    kept.append((first + k, rows[k]))
            first += len(shifts)
        if not kept:
            return []
        cuts = [r for r, _ in kept]
        probs = self._with_members(frame, [quads[r] for r in cuts], [crops[r] for r in cuts],
                                   np.stack([q for _, q in kept]))
        out = [CornerRead(np.asarray(quads[r], np.float64), float(1.0 - q[self._back]), q)
               for r, q in zip(cuts, probs, strict=True)]
        return pooled(out) if peaks else out

    def _with_members(self, frame: npt.NDArray[np.uint8], quads: list[F64],
                      crops: list[npt.NDArray[np.uint8]], probs: F64) -> F64:
        """The chosen cuts' probabilities with the members' card reads folded in."""
        if not self.members:
            return probs
        member_p = []
        for meta, backend in self.members:
            cut = crops if meta.imgsz == self.meta.imgsz else [index_crop(frame, q, meta.imgsz)
                                                                for q in quads]
            lp = log_probs(backend.run(crops_to_tensor(cut, meta.imgsz))[0], meta.outputs_are_probabilities)
            member_p.append(softmax_t(lp, meta.temperature))
        return ensemble_probabilities(probs, member_p, self._back)

    def index_peaks(self, index_p: F64, shifts: Sequence[float]) -> list[int]:
        """Shifts where an index shows, surest first, at least ``peak_gap`` of a width apart: slid along
        a box's top edge, the cut passes the indices of the fan's other cards too (found again from
        their own boxes, the same index is one card: ``tablestate.index_cards``)."""
        order = np.argsort(-index_p)
        kept: list[int] = []
        for k in order:
            if all(abs(shifts[k] - shifts[j]) >= self.peak_gap for j in kept):
                kept.append(int(k))
        return kept

    def read_cards(self, frame: npt.NDArray[np.uint8], cards: Sequence[npt.ArrayLike]) -> list[IndexRead]:
        """The readable index corners of ``cards`` (box outlines in frame pixels), read: named when the
        classifier is ``threshold`` sure of the card (the index alone), else maybe its rank. With a
        box member, what the index leaves unread is read again with its card whole folded in, at the
        box thresholds (fitted on what the index alone leaves): it adds a name or a rank, never
        overrules one."""
        return self.decided(frame, self.corners(frame, cards))

    def read_scans(self, frame: npt.NDArray[np.uint8], scans: Sequence[tuple[F64, Sequence[float]]]
                   ) -> list[IndexRead]:
        """The index corners found along ``scans`` (a spread row's edges,
        :mod:`monitor.perception.spread_rows`), read as :meth:`read_cards` reads a box's; with a box
        member, a rank (or name) stands only where the card read whole gives that rank at least
        ``row_agree`` (a scan passes more than indices: the held-out deck's ten read as a nine
        beside its index, at 0.88)."""
        found = self.scanned(frame, scans)
        if self.box_member is None or not found or self.row_agree <= 0.0:
            return self.decided(frame, found)
        # every card read whole once: the second opinion and the agreement both take it
        box_p = self.box_probabilities(frame, [implied_card(c.quad) for c in found])
        reads = self.decided(frame, found, box_p)
        return [agreed(r, p, self.classes, self.row_agree) for r, p in zip(reads, box_p, strict=True)]

    def decided(self, frame: npt.NDArray[np.uint8], found: list[CornerRead], box_p: F64 | None = None
                ) -> list[IndexRead]:
        """Index corners found, read: named at the threshold, else maybe a rank and an ink; what the
        index leaves, read again with its card whole (the box member), if there is one (``box_p``:
        the box member's reads of every one of ``found``, where the caller has them)."""
        if not found:
            return []
        probs = np.stack([c.probs for c in found])
        out = self._decide(found, card_probabilities(probs, self._back),
                           (self.threshold, self.rank_threshold, self.colour_threshold), self.count_threshold)
        if self.box_member is None or self.box_thresholds is None:
            return out
        # a name the index read stands: only the others are cut whole and read again
        todo = [i for i, r in enumerate(out) if r.card is None]
        if not todo:
            return out
        todo_p = (self.box_probabilities(frame, [implied_card(found[i].quad) for i in todo])
                  if box_p is None else box_p[todo])
        fused = with_box_reads(probs[todo], list(range(len(todo))), todo_p, self._back)
        second = self._decide([found[i] for i in todo], card_probabilities(fused, self._back),
                              self.box_thresholds)
        for i, b in zip(todo, second, strict=True):
            # a rank is counted (rule 60) only where the card read whole gives it too
            if out[i].sure and (b.rank if b.card is None else rank_of(b.card)) != out[i].rank:
                out[i] = dataclasses.replace(out[i], sure=False)
            out[i] = second_opinion(out[i], b)
        return out

    def _decide(self, found: list[CornerRead], p: F64, thresholds: tuple[float, float, float | None],
                count_threshold: float | None = None) -> list[IndexRead]:
        """Each cut named at ``thresholds``' name threshold, else its rank and ink at theirs; ``sure``
        where named, or its rank reaches ``count_threshold`` (None: only names are sure)."""
        threshold, rank_threshold, colour_threshold = thresholds
        ranks = read_ranks(p, self.classes, rank_threshold)
        counted = ([None] * len(p) if count_threshold is None
                   else read_ranks(p, self.classes, count_threshold))
        colours = ([None] * len(p) if colour_threshold is None
                   else read_colours(p, self.classes, colour_threshold))
        out = []
        for c, row, rank, count_rank, colour in zip(found, p, ranks, counted, colours, strict=True):
            k = int(row.argmax())
            top, conf = self.classes[k], float(row[k])
            # the joker has no suit to doubt: its name is its rank, read at the rank threshold
            named = conf >= (rank_threshold if top == JOKER_TEXT else threshold)
            out.append(IndexRead(c.quad, c.index_p, top if named else None, None if named else rank,
                                 top, conf, None if named else colour,
                                 named or (rank is not None and count_rank == rank)))
        return out

    def read(self, frame: npt.NDArray[np.uint8], regions: Sequence[Region] | None = None,
             cards: Sequence[npt.ArrayLike] = ()) -> list[IndexRead]:
        """The index corners of the ``cards`` (box outlines) centred in ``regions`` (default: all), read."""
        def inside(c: npt.ArrayLike) -> bool:
            x, y = np.asarray(c, np.float64).reshape(4, 2).mean(axis=0)
            return any(x0 <= x < x1 and y0 <= y < y1 for x0, y0, x1, y1 in regions or ())
        return self.read_cards(frame, [c for c in cards if not regions or inside(c)])


def load_fan_reader(models_dir: Path, backend: str = DEFAULT_BACKEND, threads: int = 2) -> FanReader | None:
    """The fan reader a models folder holds, if it has one."""
    path = models_dir / FAN_READER_FILE
    return FanReader(path, backend, threads) if path.exists() else None
