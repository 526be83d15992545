"""The score from which a detector's boxes start tracks, matched to a peer's precision.

Each detector scores boxes its own way: ``detector_v8`` (trained 15 epochs from the shipped one, with
a ``hand`` class) boxes a face-down pile at a seat 0.37 where the shipped detector said 0.48, below
the tracker's 0.4, so a delivery went unseen (session 19). Rather than a number tuned on the fault
scripts, the candidate's threshold is the lowest score at which its boxes are at least as precise
as the peer's (the shipped detector) at the peer's threshold, measured on held-out frames.

Pure functions; ``table-monitor calibrate-detector`` runs the models and writes the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

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


def _bounds(corners: npt.NDArray[np.float64]) -> tuple[float, float, float, float]:
    return (float(corners[:, 0].min()), float(corners[:, 1].min()),
            float(corners[:, 0].max()), float(corners[:, 1].max()))


def _iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def match(boxes: Sequence[Box], truth: Sequence[Truth], iou_min: float = 0.5) -> list[Scored]:
    """Each box, best score first, takes the unmatched true object of its class it overlaps most
    (bounds IoU >= ``iou_min``): a hit; else a false box."""
    free = [(cls, _bounds(c)) for cls, c in truth]
    taken = [False] * len(free)
    out = []
    for cls, score, corners in sorted(boxes, key=lambda b: -b[1]):
        b = _bounds(corners)
        best, best_iou = -1, iou_min
        for i, (tcls, tb) in enumerate(free):
            if taken[i] or tcls != cls:
                continue
            iou = _iou(b, tb)
            if iou >= best_iou:
                best, best_iou = i, iou
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
