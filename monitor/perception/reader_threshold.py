"""The card reader's naming threshold chosen on whole frames as well as on crops.

The threshold is fitted on held-out crops of single cards (``train ensemble``: 0.05% false on val). On
whole frames a box may hold two cards, and its crop then reads as a third card: surely enough to be
named, and wrong (held-out frames, models/MODEL_CARD.md: every false face was such a box,
read 0.979-0.987 sure against a fitted 0.979). Crops of single cards cannot show that, so the threshold
is raised, never lowered, until the faces named on rendered whole frames are false no more often than
a budget allows. Pure: the caller perceives the frames.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def frame_threshold(verdicts: Sequence[tuple[float, bool]], budget: float, floor: float) -> float:
    """The least threshold, ``floor`` or over, at which the faces named (``verdicts``: confidence,
    right) are false at most ``budget`` of the time: just over the surest false read it must drop."""
    if not 0.0 <= budget < 1.0:
        raise ValueError(f"budget {budget} is not a share in [0, 1)")
    for t in sorted({floor, *(c for c, _ in verdicts if c > floor)}):
        named = [right for c, right in verdicts if c >= t]
        if not named or named.count(False) <= budget * len(named):
            return t
    # the surest reads are false beyond the budget: name nothing any of them reached
    return math.nextafter(max(c for c, _ in verdicts), 1.0)


def sweep(verdicts: Sequence[tuple[float, bool]],
          thresholds: Sequence[float]) -> list[tuple[float, int, int]]:
    """(threshold, named right, named falsely) at each threshold."""
    out = []
    for t in thresholds:
        named = [right for c, right in verdicts if c >= t]
        out.append((t, named.count(True), named.count(False)))
    return out
