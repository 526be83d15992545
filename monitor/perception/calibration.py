"""Confidence calibration for the card classifier: temperature scaling and the "unknown" threshold.

Temperature scaling (Guo et al., 2017) divides the log-probabilities by one scalar T fitted to minimise
the negative log-likelihood on a validation split; it changes confidences, never the top-1 class. The
threshold is then the lowest calibrated confidence at which misread cards stay rare enough.
"""

from __future__ import annotations

import itertools

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
_EPS = 1e-12


def log_probs(scores: npt.ArrayLike, scores_are_probabilities: bool) -> FloatArray:
    s = np.asarray(scores, dtype=np.float64)
    if scores_are_probabilities:
        return np.log(np.clip(s, _EPS, 1.0))
    return s - _logsumexp(s)


def _logsumexp(z: FloatArray) -> FloatArray:
    m = z.max(axis=1, keepdims=True)
    out: FloatArray = m + np.log(np.exp(z - m).sum(axis=1, keepdims=True))
    return out


def softmax_t(logp: FloatArray, temperature: float) -> FloatArray:
    z = logp / temperature
    out: FloatArray = np.exp(z - _logsumexp(z))
    return out


def nll(logp: FloatArray, labels: npt.NDArray[np.int64], temperature: float) -> float:
    z = logp / temperature
    lse = _logsumexp(z)[:, 0]
    return float(np.mean(lse - z[np.arange(len(labels)), labels]))


def fit_temperature(logp: FloatArray, labels: npt.ArrayLike, lo: float = 0.05, hi: float = 20.0) -> float:
    """The T minimising validation NLL (golden-section search on log T; NLL is unimodal in T)."""
    y = np.asarray(labels, dtype=np.int64)
    if len(y) == 0:
        raise ValueError("cannot fit a temperature on an empty validation split")
    a, b = np.log(lo), np.log(hi)
    g = (np.sqrt(5.0) - 1.0) / 2.0
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = nll(logp, y, float(np.exp(c))), nll(logp, y, float(np.exp(d)))
    for _ in range(60):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = nll(logp, y, float(np.exp(c)))
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = nll(logp, y, float(np.exp(d)))
    return float(np.exp((a + b) / 2.0))


# Weights tried for each member after the first (the first stays 1: the temperature sets the scale)
MEMBER_WEIGHTS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0)


def fit_member_weights(member_logp: list[FloatArray], labels: npt.ArrayLike,
                       grid: tuple[float, ...] = MEMBER_WEIGHTS) -> list[float]:
    """Weights of an ensemble's members' log-probabilities (the first 1) giving the most right on
    validation; of equally good ones the nearest to equal weights. One member after another, each
    with the others as already chosen."""
    y = np.asarray(labels, dtype=np.int64)
    weights = [1.0] * len(member_logp)
    for k in range(1, len(member_logp)):
        def right(w: float, k: int = k) -> int:
            z = sum((w if i == k else weights[i]) * lp for i, lp in enumerate(member_logp))
            return int((np.asarray(z).argmax(axis=1) == y).sum())
        weights[k] = max(grid, key=lambda w: (right(w), -abs(np.log(w))))
    return weights


def choose_threshold(
    confidence: npt.ArrayLike, correct: npt.ArrayLike, max_false_rate: float = 0.0025, floor: float = 0.5
) -> float:
    """Lowest threshold whose accepted-and-wrong share of ALL samples is at most ``max_false_rate``.

    The default keeps half the 0.5% false-identity budget in reserve for the shift to unseen designs.
    """
    conf = np.asarray(confidence, dtype=np.float64)
    ok = np.asarray(correct, dtype=bool)
    if len(conf) == 0:
        raise ValueError("cannot choose a threshold on an empty validation split")
    order = np.argsort(-conf)
    wrong_cum = np.cumsum(~ok[order])
    allowed = wrong_cum <= max_false_rate * len(conf)
    # Accept the longest prefix (highest confidences) whose cumulative false count stays within budget.
    k = int(np.argmin(allowed)) if not allowed.all() else len(conf)
    if k == 0:
        return 1.0
    thr = float(conf[order[k - 1]]) if k < len(conf) else float(conf[order[-1]])
    return max(floor, thr)


def expected_calibration_error(confidence: npt.ArrayLike, correct: npt.ArrayLike, bins: int = 15) -> float:
    conf = np.asarray(confidence, dtype=np.float64)
    ok = np.asarray(correct, dtype=np.float64)
    edges = np.linspace(0.0, 1.0, bins + 1)
    ece = 0.0
    for lo, hi in itertools.pairwise(edges):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            ece += m.mean() * abs(conf[m].mean() - ok[m].mean())
    return float(ece)
