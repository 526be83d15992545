"""Where the hand is in an arm's outline, as the renderer draws arms and the ground truth records them.

:func:`monitor.render.scene.arm_outline` makes 30 points: the forearm's two shoulder-side corners
first and last, the hand (wrist to wrist through the thumb and fingers) between. A detector learns
the hand (the part that lands and lifts cards), so the dataset exporter and the oracle perception
both box it here, along the forearm.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]
HAND_POINTS = slice(1, 29)
ARM_OUTLINE_POINTS = 30


def hand_of_arm(outline: F64) -> F64 | None:
    """The hand's points of an arm outline (3-D or projected); None for another outline."""
    return outline[HAND_POINTS] if len(outline) == ARM_OUTLINE_POINTS else None


def hand_box(outline: F64) -> F64 | None:
    """Four corners around the hand of a projected (2-D) arm outline, along the forearm."""
    pts = hand_of_arm(outline)
    if pts is None:
        return None
    u = pts.mean(axis=0) - (outline[0] + outline[-1]) / 2  # shoulder side to hand
    norm = float(np.hypot(u[0], u[1]))
    if norm < 1e-6:
        return None
    u = u / norm
    n = np.array([-u[1], u[0]])
    a, b = pts @ u, pts @ n
    return np.array([u * a.min() + n * b.min(), u * a.max() + n * b.min(),
                     u * a.max() + n * b.max(), u * a.min() + n * b.max()])
