"""Flat shapes on the table plane (millimetres): rotated rectangles, circles and polygons.

Every shape answers the same questions: does it contain these points (vectorized over arrays),
what is its area, where is its centre, and what polygon outlines it (for drawing and for
projecting into a camera image).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]


class Shape(Protocol):
    @property
    def area(self) -> float: ...

    @property
    def center(self) -> tuple[float, float]: ...

    def contains(self, points: FloatArray) -> NDArray[np.bool_]: ...

    def outline(self, n: int = 48) -> FloatArray: ...


def _as_points(points: FloatArray | tuple[float, float] | list[float]) -> FloatArray:
    p = np.asarray(points, dtype=np.float64)
    if p.ndim == 1:
        p = p[None, :]
    if p.shape[-1] != 2:
        raise ValueError(f"points must have shape (N, 2), got {p.shape}")
    return p


@dataclass(frozen=True, slots=True)
class Rect:
    """A rectangle of ``size`` (w, h) centred on ``cx, cy``; its local x axis is rotated ``angle_deg``
    counter-clockwise from the table's +x (seen from above)."""

    cx: float
    cy: float
    w: float
    h: float
    angle_deg: float = 0.0

    @property
    def area(self) -> float:
        return self.w * self.h

    @property
    def center(self) -> tuple[float, float]:
        return (self.cx, self.cy)

    def to_local(self, points: FloatArray) -> FloatArray:
        p = _as_points(points) - (self.cx, self.cy)
        a = math.radians(self.angle_deg)
        c, s = math.cos(a), math.sin(a)
        return np.stack([p[:, 0] * c + p[:, 1] * s, -p[:, 0] * s + p[:, 1] * c], axis=1)

    def contains(self, points: FloatArray) -> NDArray[np.bool_]:
        q = self.to_local(points)
        return (np.abs(q[:, 0]) <= self.w / 2) & (np.abs(q[:, 1]) <= self.h / 2)

    def corners(self) -> FloatArray:
        """Four corners, counter-clockwise from the local (-w/2, -h/2) corner."""
        a = math.radians(self.angle_deg)
        ux = np.array([math.cos(a), math.sin(a)])
        uy = np.array([-math.sin(a), math.cos(a)])
        c = np.array([self.cx, self.cy])
        hw, hh = self.w / 2, self.h / 2
        return np.stack(
            [c - hw * ux - hh * uy, c + hw * ux - hh * uy, c + hw * ux + hh * uy, c - hw * ux + hh * uy]
        )

    def outline(self, n: int = 48) -> FloatArray:
        return self.corners()


@dataclass(frozen=True, slots=True)
class Circle:
    cx: float
    cy: float
    r: float

    @property
    def area(self) -> float:
        return math.pi * self.r * self.r

    @property
    def center(self) -> tuple[float, float]:
        return (self.cx, self.cy)

    def contains(self, points: FloatArray) -> NDArray[np.bool_]:
        p = _as_points(points)
        return (p[:, 0] - self.cx) ** 2 + (p[:, 1] - self.cy) ** 2 <= self.r * self.r

    def outline(self, n: int = 48) -> FloatArray:
        t = np.linspace(0, 2 * math.pi, n, endpoint=False)
        return np.stack([self.cx + self.r * np.cos(t), self.cy + self.r * np.sin(t)], axis=1)


@dataclass(frozen=True, slots=True)
class Polygon:
    """A simple polygon (no self-intersections); vertices in either winding order."""

    points: tuple[tuple[float, float], ...]

    def __post_init__(self) -> None:
        if len(self.points) < 3:
            raise ValueError(f"a polygon needs at least 3 points, got {len(self.points)}")

    @property
    def array(self) -> FloatArray:
        return np.asarray(self.points, dtype=np.float64)

    @property
    def area(self) -> float:
        p = self.array
        x, y = p[:, 0], p[:, 1]
        return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)

    @property
    def center(self) -> tuple[float, float]:
        p = self.array
        x, y = p[:, 0], p[:, 1]
        cross = x * np.roll(y, -1) - np.roll(x, -1) * y
        a = cross.sum() / 2
        if abs(a) < 1e-12:
            return (float(x.mean()), float(y.mean()))
        cx = ((x + np.roll(x, -1)) * cross).sum() / (6 * a)
        cy = ((y + np.roll(y, -1)) * cross).sum() / (6 * a)
        return (float(cx), float(cy))

    def contains(self, points: FloatArray) -> NDArray[np.bool_]:
        # Even-odd ray casting, vectorized over points; boundary points may go either way.
        p = _as_points(points)
        v = self.array
        x, y = p[:, 0:1], p[:, 1:2]
        x1, y1 = v[:, 0][None, :], v[:, 1][None, :]
        x2, y2 = np.roll(v[:, 0], -1)[None, :], np.roll(v[:, 1], -1)[None, :]
        crosses = (y1 > y) != (y2 > y)
        with np.errstate(divide="ignore", invalid="ignore"):
            xin = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
        hit = crosses & (x < xin)
        return np.asarray(hit.sum(axis=1) % 2 == 1)

    def outline(self, n: int = 48) -> FloatArray:
        return self.array


class PolygonSet:
    """Several polygons asked together: ``contains`` gives, for each point, whether each polygon holds
    it, exactly as each :meth:`Polygon.contains` would (the same arithmetic, edge by edge), in one pass
    over all their edges instead of one per polygon (a zone lookup per frame asked ~30 polygons)."""

    __slots__ = ("_starts", "_x1", "_x2", "_y1", "_y2", "count")

    def __init__(self, polygons: list[Polygon] | tuple[Polygon, ...]) -> None:
        self.count = len(polygons)
        arrays = [p.array for p in polygons]
        if not arrays:
            arrays = [np.zeros((0, 2))]
        v = np.concatenate(arrays)
        w = np.concatenate([np.roll(a, -1, axis=0) for a in arrays])
        self._x1, self._y1 = v[:, 0][None, :], v[:, 1][None, :]
        self._x2, self._y2 = w[:, 0][None, :], w[:, 1][None, :]
        self._starts = np.cumsum([0] + [len(a) for a in arrays[:-1]])

    def contains(self, points: FloatArray) -> NDArray[np.bool_]:
        """(points, polygons) booleans."""
        p = _as_points(points)
        if self.count == 0 or len(p) == 0:
            return np.zeros((len(p), self.count), dtype=bool)
        x, y = p[:, 0:1], p[:, 1:2]
        x1, y1, x2, y2 = self._x1, self._y1, self._x2, self._y2
        crosses = (y1 > y) != (y2 > y)
        with np.errstate(divide="ignore", invalid="ignore"):
            xin = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
        hit = (crosses & (x < xin)).astype(np.int64)
        return np.asarray(np.add.reduceat(hit, self._starts, axis=1) % 2 == 1)


def convex_hull(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The convex hull of a few points, counter-clockwise (Andrew's monotone chain)."""
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts

    def cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    upper: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def hull_distance(hull: list[tuple[float, float]], x: float, y: float) -> float:
    """How far (x, y) lies outside a convex hull (counter-clockwise, as :func:`convex_hull` gives it);
    0 inside."""
    if not hull:
        return math.inf
    if len(hull) == 1:
        return math.hypot(x - hull[0][0], y - hull[0][1])
    inside = len(hull) >= 3
    best = math.inf
    for (ax, ay), (bx, by) in zip(hull, hull[1:] + hull[:1], strict=True):
        ex, ey = bx - ax, by - ay
        if ex * (y - ay) - ey * (x - ax) < 0:
            inside = False  # right of a counter-clockwise edge: outside
        t = max(0.0, min(1.0, ((x - ax) * ex + (y - ay) * ey) / (ex * ex + ey * ey or 1.0)))
        best = min(best, math.hypot(x - ax - t * ex, y - ay - t * ey))
    return 0.0 if inside else best
