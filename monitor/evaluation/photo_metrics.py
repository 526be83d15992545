"""Card boxes and identities found in labelled photos, scored against the labels (pure: no I/O).

A found card matches a labelled one where their axis-aligned boxes overlap by IoU ``MATCH_IOU`` or more
(greedily, best overlap first; one to one). Box recall counts the labelled cards matched, box precision
the found card boxes that match one. Identity recall counts the labelled cards whose match names them
right; identity precision the named found cards (a card text, not ``back`` or ``unknown``) that name
their match right, a named card matching no label counting as false.

A labelled card is *overlapped* where another labelled box covers ``OVERLAP_SHARE`` of it or more (a fan,
a pile). Its index may then be under another card: a card prints its index in two opposite corners, so
where both of its box's index corners (top-left and bottom-right, ``INDEX_CORNER`` of the box each way)
lie mostly under other labelled boxes, its index is taken as *covered* and the card is counted apart
(the labels do not say which card lies on top, so this errs toward counting a card apart). The headline
figures are over cards whose index is in view (``index_visible``: clear cards and overlapped cards with
a free index corner).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

BoxXYXY = tuple[float, float, float, float]
MATCH_IOU = 0.5
OVERLAP_SHARE = 0.15
NOT_NAMED = ("back", "unknown", None)
GROUPS = ("all", "index_visible", "index_covered", "clear", "overlapped")
INDEX_CORNER = (0.3, 0.22)  # (width, height) shares of a box: where an upright card prints its index
CORNER_UNDER = 0.5  # an index corner this much under other boxes is taken as covered


@dataclass(frozen=True, slots=True)
class Truth:
    box: BoxXYXY
    identity: str


@dataclass(frozen=True, slots=True)
class Found:
    box: BoxXYXY
    identity: str | None  # card text, "back", "unknown" or None (not read)
    confidence: float = 0.0


@dataclass(frozen=True, slots=True)
class PhotoScore:
    """One photo's pairing: ``pairs[i]`` is the found index matched to truth ``i`` (or None)."""

    truths: tuple[Truth, ...]
    found: tuple[Found, ...]
    pairs: tuple[int | None, ...]
    overlapped: tuple[bool, ...]
    index_covered: tuple[bool, ...] = ()

    def missed(self) -> list[int]:
        """Truths no found card box matches."""
        return [i for i, j in enumerate(self.pairs) if j is None]

    def misnamed(self) -> list[tuple[int | None, int]]:
        """(truth or None, found) for every found card named wrongly (or named where no card is)."""
        by_found = {j: i for i, j in enumerate(self.pairs) if j is not None}
        out: list[tuple[int | None, int]] = []
        for j, f in enumerate(self.found):
            if f.identity in NOT_NAMED:
                continue
            i = by_found.get(j)
            if i is None or self.truths[i].identity != f.identity:
                out.append((i, j))
        return out

    def unnamed(self) -> list[int]:
        """Truths matched by a box that names no card (back, unknown)."""
        return [i for i, j in enumerate(self.pairs) if j is not None and self.found[j].identity in NOT_NAMED]


def iou(a: BoxXYXY, b: BoxXYXY) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def covered_share(a: BoxXYXY, b: BoxXYXY) -> float:
    """How much of box ``a`` box ``b`` covers."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    area = (a[2] - a[0]) * (a[3] - a[1])
    return ix * iy / area if area > 0 else 0.0


def overlapped_flags(truths: Sequence[Truth], share: float = OVERLAP_SHARE) -> tuple[bool, ...]:
    return tuple(any(covered_share(t.box, o.box) >= share for k, o in enumerate(truths) if k != i)
                 for i, t in enumerate(truths))


def _corner_boxes(b: BoxXYXY) -> tuple[BoxXYXY, BoxXYXY]:
    w, h = (b[2] - b[0]) * INDEX_CORNER[0], (b[3] - b[1]) * INDEX_CORNER[1]
    return ((b[0], b[1], b[0] + w, b[1] + h), (b[2] - w, b[3] - h, b[2], b[3]))


def _under_others(corner: BoxXYXY, others: list[BoxXYXY]) -> bool:
    """Whether ``CORNER_UNDER`` of a corner lies under the other boxes (sampled on a 6 x 6 grid)."""
    xs = [corner[0] + (corner[2] - corner[0]) * (k + 0.5) / 6 for k in range(6)]
    ys = [corner[1] + (corner[3] - corner[1]) * (k + 0.5) / 6 for k in range(6)]
    under = sum(any(o[0] <= x <= o[2] and o[1] <= y <= o[3] for o in others) for x in xs for y in ys)
    return under >= CORNER_UNDER * 36


def index_covered_flags(truths: Sequence[Truth]) -> tuple[bool, ...]:
    out = []
    for i, t in enumerate(truths):
        others = [o.box for k, o in enumerate(truths) if k != i]
        out.append(all(_under_others(c, others) for c in _corner_boxes(t.box)))
    return tuple(out)


def match(truths: Sequence[Truth], found: Sequence[Found], threshold: float = MATCH_IOU) -> PhotoScore:
    pairs_iou = sorted(((iou(t.box, f.box), i, j) for i, t in enumerate(truths) for j, f in enumerate(found)),
                       reverse=True)
    pairs: list[int | None] = [None] * len(truths)
    used: set[int] = set()
    for v, i, j in pairs_iou:
        if v < threshold:
            break
        if pairs[i] is None and j not in used:
            pairs[i] = j
            used.add(j)
    return PhotoScore(tuple(truths), tuple(found), tuple(pairs), overlapped_flags(truths),
                      index_covered_flags(truths))


@dataclass
class Tally:
    truths: int = 0
    boxed: int = 0
    named_right: int = 0
    named_wrong: int = 0
    unnamed: int = 0

    @property
    def box_recall(self) -> float:
        return self.boxed / self.truths if self.truths else float("nan")

    @property
    def identity_recall(self) -> float:
        return self.named_right / self.truths if self.truths else float("nan")


@dataclass
class Summary:
    """Figures over many photos; ``per_card`` keyed by card text."""

    photos: int = 0
    found_boxes: int = 0
    found_matched: int = 0
    named: int = 0  # found cards naming a card
    named_right: int = 0
    groups: dict[str, Tally] = field(default_factory=lambda: {g: Tally() for g in GROUPS})
    per_card: dict[str, dict[str, int]] = field(default_factory=dict)
    confusions: Counter[tuple[str, str]] = field(default_factory=Counter)

    @property
    def box_precision(self) -> float:
        return self.found_matched / self.found_boxes if self.found_boxes else float("nan")

    @property
    def identity_precision(self) -> float:
        return self.named_right / self.named if self.named else float("nan")

    def add(self, s: PhotoScore) -> None:
        self.photos += 1
        self.found_boxes += len(s.found)
        self.found_matched += sum(j is not None for j in s.pairs)
        by_found = {j: i for i, j in enumerate(s.pairs) if j is not None}
        for j, f in enumerate(s.found):
            if f.identity in NOT_NAMED:
                continue
            assert f.identity is not None
            self.named += 1
            k = by_found.get(j)
            truth = s.truths[k].identity if k is not None else "(no card)"
            card = self.per_card.setdefault(f.identity, _card_row())
            card["named"] += 1
            if truth == f.identity:
                self.named_right += 1
                card["named_right"] += 1
            else:
                self.confusions[(truth, f.identity)] += 1
        for n, (t, pair) in enumerate(zip(s.truths, s.pairs, strict=True)):
            row = self.per_card.setdefault(t.identity, _card_row())
            row["truths"] += 1
            said = None if pair is None else s.found[pair].identity
            covered = bool(s.index_covered) and s.index_covered[n]
            for g in ("all", "overlapped" if s.overlapped[n] else "clear",
                      "index_covered" if covered else "index_visible"):
                tally = self.groups[g]
                tally.truths += 1
                if pair is None:
                    continue
                tally.boxed += 1
                if said == t.identity:
                    tally.named_right += 1
                elif said in NOT_NAMED:
                    tally.unnamed += 1
                else:
                    tally.named_wrong += 1
            if pair is not None:
                row["boxed"] += 1
            if said == t.identity:
                row["recalled"] += 1
            elif pair is None:
                self.confusions[(t.identity, "(missed)")] += 1
            elif said in NOT_NAMED:
                self.confusions[(t.identity, f"({said})")] += 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "photos": self.photos,
            "box_recall": self.groups["all"].box_recall,
            "box_precision": self.box_precision,
            "identity_precision": self.identity_precision,
            "identity_recall": self.groups["all"].identity_recall,
            "box_recall_index_visible": self.groups["index_visible"].box_recall,
            "identity_recall_index_visible": self.groups["index_visible"].identity_recall,
            "found_boxes": self.found_boxes,
            "named": self.named,
            "named_right": self.named_right,
            "groups": {g: {"cards": t.truths, "boxed": t.boxed, "named_right": t.named_right,
                           "named_wrong": t.named_wrong, "unnamed": t.unnamed, "box_recall": t.box_recall,
                           "identity_recall": t.identity_recall} for g, t in self.groups.items()},
            "per_card": {c: {**r, "recall": r["recalled"] / r["truths"] if r["truths"] else None,
                             "precision": r["named_right"] / r["named"] if r["named"] else None}
                         for c, r in sorted(self.per_card.items())},
            "confusions": [{"truth": a, "said": b, "n": n} for (a, b), n in self.confusions.most_common()],
        }


def _card_row() -> dict[str, int]:
    return {"truths": 0, "boxed": 0, "recalled": 0, "named": 0, "named_right": 0}


def summarise(scores: Iterable[PhotoScore]) -> Summary:
    out = Summary()
    for s in scores:
        out.add(s)
    return out
