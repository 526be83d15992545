"""The score from which a detector's boxes start tracks, matched to a peer's precision.

Each detector scores boxes its own way: ``detector_v8`` (trained 15 epochs from the shipped one, with
a ``hand`` class) boxes a face-down pile at a seat 0.37 where the shipped detector said 0.48, below
the tracker's 0.4, so a delivery went unseen (a pile_to_wrong_seat of the fault set). Rather than a
number tuned on the fault scripts, the candidate's threshold is the lowest score at which its boxes are
at least as precise as the peer's (the shipped detector) at the peer's threshold, measured on held-out frames.

Pure functions; ``table-monitor calibrate-detector`` runs the models and writes the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from monitor.perception.yolo_post import box_iou

Box = tuple[str, float, npt.NDArray[np.float64]]  # (class, score, (4, 2) corners in pixels)
Truth = tuple[str, npt.NDArray[np.float64]]  # (class, (4, 2) corners in pixels)


@dataclass(frozen=True, slots=True)
class Scored:
    score: float
    hit: bool  # matched a true object of its class not matched by a higher-scored box


@dataclass(frozen=True, slots=True)
class CurvePoint:
    threshold: float
    precision: float  # of the boxes scored at or above it (1.0 when there are none)
    recall: float  # share of the true objects found by them
    boxes: int


def _bounds(quads: list[npt.NDArray[np.float64]]) -> npt.NDArray[np.float64]:
    """(N, 4) xyxy bounds of (4, 2) corner arrays."""
    if not quads:
        return np.zeros((0, 4))
    c = np.stack(quads)
    return np.concatenate([c.min(axis=1), c.max(axis=1)], axis=1)


def match(boxes: Sequence[Box], truth: Sequence[Truth], iou_min: float = 0.5) -> list[Scored]:
    """Each box, best score first, takes the unmatched true object of its class it overlaps most
    (bounds IoU >= ``iou_min``): a hit; else a false box."""
    ranked = sorted(boxes, key=lambda b: -b[1])
    iou = box_iou(_bounds([c for _, _, c in ranked]), _bounds([c for _, c in truth]))
    classes = np.array([t for t, _ in truth], dtype=object)
    taken = np.zeros(len(truth), dtype=bool)
    out = []
    for i, (cls, score, _) in enumerate(ranked):
        free = ~taken & (iou[i] >= iou_min) & (classes == cls)
        best = int(np.argmax(np.where(free, iou[i], -1.0))) if free.any() else -1
        if best >= 0:
            taken[best] = True
        out.append(Scored(score, best >= 0))
    return out


def curve(scored: Sequence[Scored], n_truth: int, thresholds: Sequence[float]) -> list[CurvePoint]:
    points = []
    for t in thresholds:
        kept = [s for s in scored if s.score >= t - 1e-12]
        hits = sum(s.hit for s in kept)
        points.append(CurvePoint(t, hits / len(kept) if kept else 1.0, hits / n_truth if n_truth else 0.0,
                                 len(kept)))
    return points


def matching_threshold(candidate: Sequence[Scored], peer: Sequence[Scored], peer_threshold: float,
                       thresholds: Sequence[float]) -> tuple[float, float]:
    """The lowest of ``thresholds`` at which the candidate's boxes are at least as precise as the
    peer's at ``peer_threshold``, and that precision to match. None qualifies (no box that high is
    counted as precise): the highest."""
    target = curve(peer, 0, [peer_threshold])[0].precision
    for p in curve(candidate, 0, sorted(thresholds)):
        if p.boxes and p.precision >= target - 1e-12:
            return p.threshold, target
    return max(thresholds), target
