"""The tracking threshold matched to a peer's precision (monitor/training/track_conf.py)."""

from __future__ import annotations

import numpy as np

from monitor.training.track_conf import Scored, curve, match, matching_threshold


def _sq(x: float, y: float, s: float = 10.0) -> np.ndarray:
    return np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], dtype=np.float64)


def test_boxes_match_once_by_class_and_overlap_best_score_first() -> None:
    truth = [("pile", _sq(0, 0)), ("card_face_down", _sq(50, 0))]
    boxes = [("pile", 0.5, _sq(1, 1)), ("pile", 0.9, _sq(0, 0)),  # two on one pile: the better scored hits
             ("card_face_up", 0.8, _sq(50, 0)),  # the right place, the wrong class
             ("card_face_down", 0.4, _sq(52, 1))]
    got = sorted((s.score, s.hit) for s in match(boxes, truth))
    assert got == [(0.4, True), (0.5, False), (0.8, False), (0.9, True)]


def test_precision_and_recall_by_threshold() -> None:
    scored = [Scored(0.9, True), Scored(0.6, True), Scored(0.45, False), Scored(0.38, True)]
    pts = curve(scored, n_truth=4, thresholds=[0.35, 0.5, 0.95])
    assert [(p.threshold, round(p.precision, 3), p.recall, p.boxes) for p in pts] == [
        (0.35, 0.75, 0.75, 4), (0.5, 1.0, 0.5, 2), (0.95, 1.0, 0.0, 0)]


def test_a_detector_scoring_lower_gets_a_lower_threshold_for_the_same_precision() -> None:
    rng = np.random.default_rng(0)
    # the peer: true boxes around 0.7, false ones around 0.38; the candidate: the same shapes 0.06 lower
    peer = [Scored(float(s), True) for s in rng.normal(0.7, 0.1, 400)] + \
           [Scored(float(s), False) for s in rng.normal(0.38, 0.04, 100)]
    cand = [Scored(s.score - 0.06, s.hit) for s in peer]
    grid = [round(0.30 + 0.01 * i, 2) for i in range(31)]
    t, target = matching_threshold(cand, peer, 0.40, grid)
    assert t == 0.34
    assert curve(cand, 0, [t])[0].precision >= target
    # a candidate never that precise: the highest threshold, not a lower one
    noisy = [Scored(0.5, False)] * 50 + [Scored(0.5, True)]
    assert matching_threshold(noisy, peer, 0.40, grid)[0] == max(grid)
