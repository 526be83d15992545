"""Fitting an ensemble's cascade (``identity.Cascade``) on val from its members' log-probabilities.

Every member reads every crop in a plain ensemble, though most crops are cards any one member reads
surely. The cascade lets the cheapest members decide those alone, at a threshold no val crop they
decide is wrong at, and shows the rest to all. A pure function of the arrays: the command measures
what it does on the held-out splits by reading them again with the cascade on.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from monitor.perception.calibration import fit_temperature, log_probs, softmax_t
from monitor.perception.identity import Cascade

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class CascadeFit:
    cascade: Cascade
    decided_share: float  # of val crops, decided by the first members alone
    cost_share: float  # expected reading cost against every member reading every crop


def _summed(member_logp: Sequence[FloatArray], weights: Sequence[float], ks: Sequence[int]) -> FloatArray:
    """The members ``ks``' log-probabilities summed as weighted, normalised again."""
    return log_probs(np.sum([weights[k] * member_logp[k] for k in ks], axis=0), False)


def cost_of(cascade: Cascade, member_logp: Sequence[FloatArray], weights: Sequence[float],
            costs: Sequence[float] | None = None) -> CascadeFit:
    """The share of val ``cascade`` decides, and its expected cost against every member reading every
    crop."""
    cost = list(costs) if costs is not None else [1.0] * len(member_logp)
    q = softmax_t(_summed(member_logp, weights, cascade.first), cascade.temperature)
    decided = float(np.mean(q.max(axis=1) >= cascade.threshold)) if len(q) else 0.0
    first_cost = sum(cost[k] for k in cascade.first)
    total = sum(cost)
    return CascadeFit(cascade, decided, (first_cost + (1.0 - decided) * (total - first_cost)) / total)


def fit_cascade(member_logp: Sequence[FloatArray], labels: npt.ArrayLike, weights: Sequence[float],
                floor: float, costs: Sequence[float] | None = None,
                max_first: int | None = None) -> CascadeFit | None:
    """The first members (each subset of fewer than all, up to ``max_first``) that cut the expected
    cost most: each subset's own temperature fitted on val, its threshold the lowest at which no val
    crop it would decide is wrong, and never under ``floor`` (the ensemble's threshold: a decided crop
    is named). ``costs``: each member's cost a crop (equal if None). None if no subset decides any
    val crop, or none saves anything."""
    y = np.asarray(labels, dtype=np.int64)
    n = len(member_logp)
    if n < 2 or len(y) == 0:
        return None
    cost = list(costs) if costs is not None else [1.0] * n
    best: CascadeFit | None = None
    for size in range(1, min(n - 1, max_first or n - 1) + 1):
        for first in itertools.combinations(range(n), size):
            lp = _summed(member_logp, weights, first)
            temperature = fit_temperature(lp, y)
            q = softmax_t(lp, temperature)
            conf, right = q.max(axis=1), q.argmax(axis=1) == y
            wrong = conf[~right]
            # just above the surest wrong read: none of val's wrong reads decided
            threshold = max(floor, float(np.nextafter(wrong.max(), 2.0)) if len(wrong) else floor)
            if threshold > 1.0:
                continue
            fit = cost_of(Cascade(first, temperature, threshold), member_logp, weights, cost)
            saves = fit.decided_share > 0.0 and fit.cost_share < 1.0
            if saves and (best is None or fit.cost_share < best.cost_share):
                best = fit
    return best
