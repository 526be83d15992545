"""Polygon checks for hand-edited zone files: self-intersection and containment.

>>> self_intersection([(0, 0), (10, 0), (10, 10), (0, 10)]) is None
True
>>> self_intersection([(0, 0), (10, 10), (10, 0), (0, 10)])  # a bow tie
(0, 2)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

Point = tuple[float, float]


def _orient(a: Point, b: Point, c: Point) -> float:
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def _on_segment(a: Point, b: Point, p: Point) -> bool:
    return min(a[0], b[0]) <= p[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= p[1] <= max(a[1], b[1])


def segments_cross(a: Point, b: Point, c: Point, d: Point) -> bool:
    """True if segment ab and segment cd share a point (touching counts)."""
    o1, o2, o3, o4 = _orient(a, b, c), _orient(a, b, d), _orient(c, d, a), _orient(c, d, b)
    if ((o1 > 0) != (o2 > 0)) and ((o3 > 0) != (o4 > 0)) and 0 not in (o1, o2, o3, o4):
        return True
    return (
        (o1 == 0 and _on_segment(a, b, c))
        or (o2 == 0 and _on_segment(a, b, d))
        or (o3 == 0 and _on_segment(c, d, a))
        or (o4 == 0 and _on_segment(c, d, b))
    )


def self_intersection(points: Sequence[Point]) -> tuple[int, int] | None:
    """The first pair of non-adjacent edges (by start vertex index) that cross, or None if simple.

    Edge i runs from vertex i to vertex i+1 (the last edge closes the ring). Repeated
    vertices count as a crossing (a zero-length edge touches both its neighbours' neighbours).
    """
    n = len(points)
    pts = [(float(x), float(y)) for x, y in points]
    for i in range(n):
        a, b = pts[i], pts[(i + 1) % n]
        for j in range(i + 1, n):
            if j == i + 1 or (i == 0 and j == n - 1):
                continue  # neighbouring edges share a vertex by construction
            if segments_cross(a, b, pts[j], pts[(j + 1) % n]):
                return (i, j)
    for i in range(n):
        if pts[i] == pts[(i + 1) % n]:
            return (i, (i + 1) % n)
    return None


def signed_area(points: Sequence[Point]) -> float:
    p = np.asarray(points, dtype=np.float64)
    x, y = p[:, 0], p[:, 1]
    return float((np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


def distance_outside(points: Sequence[Point], ring: Sequence[Point]) -> float:
    """How far (in the points' units) the farthest point lies outside the closed ring; 0 if all inside."""
    from monitor.geometry import Polygon

    outline = Polygon(tuple((float(x), float(y)) for x, y in ring))
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    inside = outline.contains(p)
    if inside.all():
        return 0.0
    r = outline.array
    a, b = r, np.roll(r, -1, axis=0)
    worst = 0.0
    for q in p[~inside]:
        ab = b - a
        t = np.clip(np.einsum("ij,ij->i", q - a, ab) / np.maximum(np.einsum("ij,ij->i", ab, ab), 1e-12), 0, 1)
        nearest = a + ab * t[:, None]
        worst = max(worst, float(np.min(np.linalg.norm(nearest - q, axis=1))))
    return worst
