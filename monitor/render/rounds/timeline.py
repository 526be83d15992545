"""A round as moving things: each object's poses over time, and the scene at any instant.

A :class:`Track` holds one card, chip stack or die and its keyframes; between two keys the object
glides (eased), and it exists from its first key until it is removed. Arms are short-lived
:class:`ArmTrack` s whose hand follows a path. :meth:`Timeline.scene_at` stacks objects by height
(a card dealt onto a pile lies on the cards below it, a card in flight above everything) and gives a
signature so the video writer re-renders only when something moved.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from monitor.geometry import TableLayout
from monitor.render.scene import CardObj, ChipStack, Die, Occluder, Scene, arm_outline

Thing = CardObj | ChipStack | Die


@dataclass(frozen=True, slots=True)
class Pose:
    x: float
    y: float
    angle: float = 0.0
    z: float = 0.0
    face_up: bool = False
    value: int = 0  # a die's top face (0: keep the object's own)

    def moved(self, dx: float = 0.0, dy: float = 0.0, **kw: float | bool | int) -> Pose:
        return replace(self, x=self.x + dx, y=self.y + dy, **kw)  # type: ignore[arg-type]


def _ease(u: float) -> float:
    return u * u * (3 - 2 * u)


def _lerp_angle(a: float, b: float, u: float) -> float:
    d = (b - a + 180.0) % 360.0 - 180.0
    return a + d * u


@dataclass
class Track:
    obj: Thing
    times: list[float] = field(default_factory=list)
    poses: list[Pose] = field(default_factory=list)
    end: float = math.inf
    order: int = 0  # creation order: breaks ties in height

    def key(self, t: float, pose: Pose) -> None:
        if self.times and t < self.times[-1] - 1e-9:
            raise ValueError(f"key at {t:.3f}s is before the track's last key {self.times[-1]:.3f}s")
        self.times.append(t)
        self.poses.append(pose)

    @property
    def last(self) -> Pose:
        return self.poses[-1]

    def move(self, t0: float, t1: float, pose: Pose, lift: float = 0.0) -> None:
        """Hold the current pose until ``t0``, then glide to ``pose`` by ``t1`` (``lift`` mm up midway)."""
        self.key(t0, self.last)
        if lift > 0 and t1 - t0 > 0.05:
            mid = self.last
            tm = (t0 + t1) / 2
            self.key(
                tm,
                replace(
                    mid,
                    x=(mid.x + pose.x) / 2,
                    y=(mid.y + pose.y) / 2,
                    angle=_lerp_angle(mid.angle, pose.angle, 0.5),
                    z=max(mid.z, pose.z) + lift,
                ),
            )
        self.key(t1, pose)

    def alive(self, t: float) -> bool:
        return bool(self.times) and self.times[0] <= t < self.end

    def pose_at(self, t: float) -> Pose:
        i = bisect.bisect_right(self.times, t)
        if i == 0:
            return self.poses[0]
        if i >= len(self.times):
            return self.poses[-1]
        t0, t1 = self.times[i - 1], self.times[i]
        a, b = self.poses[i - 1], self.poses[i]
        if t1 - t0 < 1e-9 or a == b:
            return a
        u = _ease((t - t0) / (t1 - t0))
        # A card turns over half way; a die shows its new face once it lands.
        return Pose(
            a.x + (b.x - a.x) * u,
            a.y + (b.y - a.y) * u,
            _lerp_angle(a.angle, b.angle, u),
            a.z + (b.z - a.z) * u,
            b.face_up if u >= 0.5 else a.face_up,
            a.value,
        )


@dataclass
class ArmTrack:
    """A dealer's or player's arm from ``shoulder`` whose hand is at ``hand(t)`` during [t0, t1)."""

    t0: float
    t1: float
    shoulder: tuple[float, float, float]
    hand: Callable[[float], tuple[float, float, float]]
    skin: tuple[int, int, int] = (120, 150, 200)
    sleeve: tuple[int, int, int] | None = (40, 40, 40)
    width: float = 80.0
    seen: bool = True  # False: out of the camera's view (not drawn, not in the truth)

    def occluder(self, t: float) -> Occluder:
        outline, sleeve = arm_outline(self.shoulder, self.hand(t), width=self.width, spread=0.4)
        return Occluder(outline, self.skin, self.sleeve, sleeve if self.sleeve else None)


Signature = tuple[object, ...]


@dataclass
class Timeline:
    layout: TableLayout
    design: str = "classic"
    table_style: str = "green"
    tracks: list[Track] = field(default_factory=list)
    arms: list[ArmTrack] = field(default_factory=list)
    duration: float = 0.0

    def add(self, obj: Thing, t: float, pose: Pose) -> Track:
        tr = Track(obj, order=len(self.tracks))
        tr.key(t, pose)
        self.tracks.append(tr)
        return tr

    def arm(self, arm: ArmTrack) -> None:
        self.arms.append(arm)

    def _state(self, t: float) -> tuple[list[tuple[Track, Pose]], list[ArmTrack]]:
        live = [(tr, tr.pose_at(t)) for tr in self.tracks if tr.alive(t)]
        live.sort(key=lambda tp: (tp[1].z, tp[0].order))
        arms = [a for a in self.arms if a.seen and a.t0 <= t < a.t1]
        return live, arms

    def signature(self, t: float) -> Signature:
        """Equal signatures: the same picture (nothing moved, appeared or went)."""
        live, arms = self._state(t)
        sig: list[object] = [
            (tr.order, round(p.x, 2), round(p.y, 2), round(p.angle, 2), round(p.z, 2), p.face_up, p.value)
            for tr, p in live
        ]
        for a in arms:
            h = a.hand(t)
            sig.append(("arm", id(a), round(h[0], 1), round(h[1], 1), round(h[2], 1)))
        return tuple(sig)

    def motion_at(self, t: float, exposure: float) -> list[tuple[float, float]]:
        """For each object of :meth:`scene_at` (same order), the table-plane travel (mm) while a
        shutter open for ``exposure`` s around ``t`` is open; an arm moves with its hand."""
        live, arms = self._state(t)
        t0, t1 = t - exposure / 2, t + exposure / 2
        out: list[tuple[float, float]] = []
        for tr, _p in live:
            a, b = tr.pose_at(t0), tr.pose_at(t1)
            out.append((b.x - a.x, b.y - a.y))
        for arm in arms:
            h0, h1 = arm.hand(t0), arm.hand(t1)
            out.append((h1[0] - h0[0], h1[1] - h0[1]))
        return out

    def scene_at(self, t: float) -> tuple[Scene, list[int]]:
        """The scene at time ``t`` and, for each scene object, its track's order (-1 for an arm)."""
        live, arms = self._state(t)
        scene = Scene(layout=self.layout, table_style=self.table_style)
        orders: list[int] = []
        for tr, p in live:
            o = tr.obj
            if isinstance(o, CardObj):
                obj: Thing | Occluder = replace(o, x=p.x, y=p.y, angle_deg=p.angle, z=p.z, face_up=p.face_up)
            elif isinstance(o, ChipStack):
                obj = replace(o, x=p.x, y=p.y, z=p.z, angle_deg=p.angle)
            else:
                obj = replace(o, x=p.x, y=p.y, angle_deg=p.angle, value=p.value or o.value)
            scene.add(obj)
            orders.append(tr.order)
        for a in arms:
            scene.add(a.occluder(t))
            orders.append(-1)
        return scene, orders


def path(points: list[tuple[float, float, float, float]]) -> Callable[[float], tuple[float, float, float]]:
    """A hand path through (t, x, y, z) points, eased between them."""
    ts = [p[0] for p in points]

    def at(t: float) -> tuple[float, float, float]:
        i = bisect.bisect_right(ts, t)
        if i == 0:
            return points[0][1:]
        if i >= len(points):
            return points[-1][1:]
        a, b = points[i - 1], points[i]
        u = _ease((t - a[0]) / max(b[0] - a[0], 1e-9))
        return (a[1] + (b[1] - a[1]) * u, a[2] + (b[2] - a[2]) * u, a[3] + (b[3] - a[3]) * u)

    return at


def follow(track: Track, dy: float = -45.0, z: float = 40.0) -> Callable[[float], tuple[float, float, float]]:
    """A hand holding a moving object by its near edge (toward the dealer)."""

    def at(t: float) -> tuple[float, float, float]:
        p = track.pose_at(t)
        return (p.x, p.y + dy, max(z, p.z + 20.0))

    return at


def jitter(rng: np.random.Generator, sd: float) -> float:
    return float(rng.normal(0.0, sd))
