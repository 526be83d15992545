"""The one type that crosses the perception boundary: what was seen in one frame.

Image coordinates are pixels of the full-resolution frame, x to the right and y down. Every object
has a 4-corner polygon (for a card: its corners, ordered top-left, top-right, bottom-right,
bottom-left of the upright card as seen; for round objects: their min-area rectangle) and the
axis-aligned box around it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from monitor.perception.labels import DETECTOR_CLASSES, IDENTITY_CLASSES, UNKNOWN
from monitor.rules.cards import RANK_CHARS

Corners = tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]]


def corners_from_array(pts: npt.ArrayLike) -> Corners:
    a = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    if a.shape != (4, 2) or not np.all(np.isfinite(a)):
        raise ValueError(f"a polygon needs 4 finite (x, y) corners, got array of shape {a.shape}")
    c = [(float(x), float(y)) for x, y in a]
    return (c[0], c[1], c[2], c[3])


@dataclass(frozen=True, slots=True)
class Detection:
    """One object in one frame.

    ``identity`` is set for cards only: a card text (``As``, ``Td``, ``Jk``), ``back``, or ``unknown``
    when the classifier's calibrated confidence is below the threshold (an unread card is safer than a
    misread one). ``identity_confidence`` is the calibrated probability of the top class even when the
    identity is ``unknown``, so a reviewer sees how close it was; then ``rank`` may still say the
    rank (its suits' summed probability cleared the threshold: monitor.perception.ranks).
    ``back_probability`` is the classifier's probability that the crop shows a back (None: no
    classifier looked), which tells a face nobody could read from a back. Chips carry ``denomination`` (from
    color) and ``count`` when a stack or spread shows it.
    """

    kind: str
    confidence: float
    corners: Corners
    identity: str | None = None
    identity_confidence: float = 0.0
    denomination: int | None = None
    count: int | None = None
    # "detector", "contour" (classical), "both", "pile" (a pile's top card, photos), "split" (the card
    # on top found inside a box that held two, photos) or "second" (a box the detector scored under its
    # threshold, kept as surely a card, photos)
    source: str = "detector"
    rank: str | None = None
    back_probability: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in DETECTOR_CLASSES:
            raise ValueError(f"unknown detection kind {self.kind!r} (kinds: {', '.join(DETECTOR_CLASSES)})")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"confidence {self.confidence} outside [0, 1]")
        if self.identity is not None and self.identity != UNKNOWN and self.identity not in IDENTITY_CLASSES:
            raise ValueError(f"unknown card identity {self.identity!r}")
        if self.rank is not None and (len(self.rank) != 1 or self.rank not in RANK_CHARS):
            raise ValueError(f"unknown card rank {self.rank!r} (ranks: {RANK_CHARS})")
        if self.back_probability is not None and not 0.0 <= self.back_probability <= 1.0:
            raise ValueError(f"back probability {self.back_probability} outside [0, 1]")

    @property
    def box(self) -> tuple[float, float, float, float]:
        """Axis-aligned (x1, y1, x2, y2) around the corners."""
        xs = [p[0] for p in self.corners]
        ys = [p[1] for p in self.corners]
        return (min(xs), min(ys), max(xs), max(ys))

    @property
    def center(self) -> tuple[float, float]:
        return (sum(p[0] for p in self.corners) / 4.0, sum(p[1] for p in self.corners) / 4.0)

    @property
    def is_known_card(self) -> bool:
        return self.identity is not None and self.identity not in (UNKNOWN, "back")

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "kind": self.kind,
            "confidence": round(self.confidence, 4),
            "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners],
            "source": self.source,
        }
        if self.identity is not None:
            d["identity"] = self.identity
            d["identity_confidence"] = round(self.identity_confidence, 4)
        if self.rank is not None:
            d["rank"] = self.rank
        if self.back_probability is not None:
            d["back_p"] = round(self.back_probability, 4)
        if self.denomination is not None:
            d["denomination"] = self.denomination
        if self.count is not None:
            d["count"] = self.count
        return d


@dataclass(frozen=True, slots=True)
class Detections:
    """Everything seen in one frame, plus how long each stage took (milliseconds)."""

    width: int
    height: int
    items: tuple[Detection, ...]
    timings_ms: dict[str, float] = field(default_factory=dict)

    def of_kind(self, kind: str) -> tuple[Detection, ...]:
        return tuple(d for d in self.items if d.kind == kind)

    @property
    def cards(self) -> tuple[Detection, ...]:
        return tuple(d for d in self.items if d.kind in ("card_face_up", "card_face_down"))

    def to_dict(self) -> dict[str, Any]:
        return {
            "width": self.width,
            "height": self.height,
            "detections": [d.to_dict() for d in self.items],
            "timings_ms": {k: round(v, 2) for k, v in self.timings_ms.items()},
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Detections:
        """The inverse of :meth:`to_dict`; a malformed record raises ValueError saying what is wrong."""
        try:
            items = tuple(
                Detection(
                    kind=str(x["kind"]),
                    confidence=float(x["confidence"]),
                    corners=corners_from_array(x["corners"]),
                    identity=x.get("identity"),
                    identity_confidence=float(x.get("identity_confidence", 0.0)),
                    denomination=None if x.get("denomination") is None else int(x["denomination"]),
                    count=None if x.get("count") is None else int(x["count"]),
                    source=str(x.get("source", "detector")),
                    rank=x.get("rank"),
                    back_probability=None if x.get("back_p") is None else float(x["back_p"]),
                )
                for x in d["detections"]
            )
            timings = {str(k): float(v) for k, v in dict(d.get("timings_ms") or {}).items()}
            return cls(int(d["width"]), int(d["height"]), items, timings)
        except (KeyError, TypeError) as e:
            raise ValueError(f"not a detections record ({type(e).__name__}: {e})") from None
