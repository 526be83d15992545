"""What is on the table at one instant, in table millimetres: the renderer's input.

A :class:`Scene` is a table (layout + felt style) and an ordered list of objects; the list order
is the stacking order (later objects lie on top), so a script that deals a card simply appends it.
Every object carries its truth (a face-down card still knows which card it is), and the renderer
reports for each one where it landed in the image and how much of it is visible.

Conventions: positions are object centres on the table plane (``x``, ``y`` mm, the frame of
``monitor/geometry/data/paigow_table.yaml``), ``z`` the height of the object's base above the felt,
``angle_deg`` a counter-clockwise turn seen from above (0: a card's long side along +y).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from monitor.geometry import TableLayout, default_layout
from monitor.render.card_art import CARD_H_MM, CARD_W_MM

F64 = NDArray[np.float64]
CHIP_DIAMETER_MM = 39.0
CHIP_THICKNESS_MM = 3.3
DIE_SIZE_MM = 19.0
DENOMINATIONS = (1, 5, 25, 100, 500, 1000)


@dataclass
class CardObj:
    """One card. ``key``: 'As'..'Jk' (its true identity even face down)."""

    key: str
    x: float
    y: float
    angle_deg: float = 0.0
    face_up: bool = True
    design: str = "classic"
    z: float = 0.0
    variant: int = 0  # which image, where a design has two (a folder deck's two jokers)
    pile: str | None = None  # cards sharing a pile id are also reported together as one "pile"
    bend: float = 0.0  # -1..1: shading of a bowed card (light across its length)
    motion: tuple[float, float] = (0.0, 0.0)  # table mm travelled while the shutter is open (blur)
    kind: str = field(default="card", init=False)

    def corners(self, w: float = CARD_W_MM, h: float = CARD_H_MM) -> F64:
        """Four table-space corners (x, y, z): the card's top-left, top-right, bottom-right, bottom-left
        as printed (top = the end with the upright index)."""
        a = math.radians(self.angle_deg)
        ca, sa = math.cos(a), math.sin(a)
        # half-extents along the card's +x (its right as printed) and its "up" as printed
        rx, ry = w / 2 * ca, w / 2 * sa
        ux, uy = -h / 2 * sa, h / 2 * ca
        x, y, z = self.x, self.y, self.z
        return np.array(
            [
                [x - rx + ux, y - ry + uy, z],
                [x + rx + ux, y + ry + uy, z],
                [x + rx - ux, y + ry - uy, z],
                [x - rx - ux, y - ry - uy, z],
            ]
        )


@dataclass
class ChipStack:
    """``count`` chips of one denomination stacked at (x, y); a spread is several stacks of 1."""

    x: float
    y: float
    denomination: int = 5
    count: int = 1
    z: float = 0.0
    angle_deg: float = 0.0  # turn of the edge-spot pattern
    kind: str = field(default="chips", init=False)

    def __post_init__(self) -> None:
        if self.denomination not in DENOMINATIONS:
            raise ValueError(f"no chip denomination {self.denomination} (known: {DENOMINATIONS})")
        if self.count < 1:
            raise ValueError(f"a chip stack needs at least one chip, got {self.count}")

    @property
    def height(self) -> float:
        return self.count * CHIP_THICKNESS_MM


# The 24 proper rotations of a cube: signed permutation matrices with determinant +1.
def _cube_rotations() -> list[F64]:
    import itertools

    out = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1, -1), repeat=3):
            m = np.zeros((3, 3))
            for i, (p, s) in enumerate(zip(perm, signs, strict=True)):
                m[i, p] = s
            if np.linalg.det(m) > 0:
                out.append(m)
    return out


CUBE_ROTATIONS = _cube_rotations()
# Face value -> outward normal in the die's own frame; opposite faces sum to 7.
DIE_FACES: dict[int, tuple[float, float, float]] = {
    1: (0, 0, 1),
    6: (0, 0, -1),
    2: (0, 1, 0),
    5: (0, -1, 0),
    3: (1, 0, 0),
    4: (-1, 0, 0),
}

# The four rotations that put each face on top, in CUBE_ROTATIONS order.
_UP_ROTATIONS: dict[int, list[F64]] = {
    v: [r for r in CUBE_ROTATIONS if np.allclose(r @ np.array(n, float), (0, 0, 1))]
    for v, n in DIE_FACES.items()
}


@dataclass
class Die:
    x: float
    y: float
    value: int = 1  # the face on top
    angle_deg: float = 0.0
    size: float = DIE_SIZE_MM
    roll: int = 0  # which of the 4 ways the top face can sit (sets the side faces)
    kind: str = field(default="die", init=False)

    def __post_init__(self) -> None:
        if not 1 <= self.value <= 6:
            raise ValueError(f"a die shows 1..6, got {self.value}")

    def rotation(self) -> F64:
        """Die frame -> table frame: the chosen value faces up, then the yaw."""
        cands = _UP_ROTATIONS[self.value]
        r = cands[self.roll % len(cands)]
        a = math.radians(self.angle_deg)
        yaw = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
        return np.asarray(yaw @ r, np.float64)


@dataclass
class Occluder:
    """A player's or dealer's arm and hand above the table: a 3-D outline (N, 3) mm, filled."""

    points: F64
    color: tuple[int, int, int] = (120, 150, 200)  # BGR skin tone
    sleeve: tuple[int, int, int] | None = (60, 40, 30)  # BGR, None for a bare arm
    sleeve_points: F64 | None = None  # the sleeve's outline, drawn over the arm
    motion: tuple[float, float] = (0.0, 0.0)  # table mm the hand travels while the shutter is open
    kind: str = field(default="arm", init=False)


SceneObject = CardObj | ChipStack | Die | Occluder


@dataclass
class Scene:
    objects: list[SceneObject] = field(default_factory=list)
    layout: TableLayout = field(default_factory=default_layout)
    table_style: str = "green"
    table_variant: int = 0
    light_dir: tuple[float, float, float] = (0.25, -0.2, 1.0)  # toward the main light, for shadows

    def add(self, obj: SceneObject) -> SceneObject:
        self.objects.append(obj)
        return obj

    def cards(self) -> list[CardObj]:
        return [o for o in self.objects if isinstance(o, CardObj)]


def arm_outline(
    start: tuple[float, float, float],
    end: tuple[float, float, float],
    width: float = 85.0,
    hand_len: float = 150.0,
    spread: float = 0.5,
) -> tuple[F64, F64]:
    """An arm from ``start`` (shoulder side, mm) reaching so the hand's centre is at ``end``.

    Returns (outline of arm + hand, outline of the sleeve on the forearm) as (N, 3) arrays.
    ``spread`` 0..1 opens the fingers.
    """
    s, e = np.asarray(start, float), np.asarray(end, float)
    d = e[:2] - s[:2]
    length = float(np.linalg.norm(d))
    if length < 1:
        raise ValueError("an arm needs distinct start and end points")
    u = d / length
    n = np.array([-u[1], u[0]])
    wrist = e[:2] - u * hand_len * 0.45
    pts: list[tuple[float, float, float]] = []

    def z_at(p: F64) -> float:
        t = float(np.clip(np.dot(p - s[:2], u) / length, 0, 1))
        return float(s[2] + (e[2] - s[2]) * t)

    # forearm: tapering toward the wrist
    w0, w1 = width / 2, width * 0.36
    left = [s[:2] + n * w0, wrist + n * w1]
    right = [wrist - n * w1, s[:2] - n * w0]
    # hand: palm and four fingers plus thumb, as a polyline around the outside
    palm_c = e[:2] - u * hand_len * 0.1
    hand = []
    fing = [(-0.30, 0.85), (-0.10, 1.0), (0.10, 0.98), (0.28, 0.8)]
    hand.append(palm_c + n * width * 0.42 - u * hand_len * 0.25)
    thumb_dir = u * 0.6 + n * (0.8 + 0.4 * spread)
    hand.append(palm_c + n * width * 0.45 + thumb_dir * hand_len * 0.45)
    hand.append(palm_c + n * width * 0.35 + thumb_dir * hand_len * 0.45 + u * 8)
    hand.append(palm_c + n * width * 0.42 + u * hand_len * 0.15)
    for off, ln in reversed(fing):
        base = palm_c + u * hand_len * 0.25 + n * off * width * -1.0 * -1
        tip_dir = u + n * off * spread * 1.2
        tip_dir /= np.linalg.norm(tip_dir)
        tip = base + tip_dir * hand_len * 0.5 * ln
        fw = width * 0.09
        hand += [base + n * fw, tip + n * fw, tip + tip_dir * fw * 0.6, tip - n * fw, base - n * fw]
    hand.append(palm_c - n * width * 0.42 + u * hand_len * 0.1)
    hand.append(palm_c - n * width * 0.40 - u * hand_len * 0.25)
    outline2 = [left[0], left[1], *hand, right[0], right[1]]
    pts = [(float(p[0]), float(p[1]), z_at(np.asarray(p))) for p in outline2]
    sleeve_end = s[:2] + u * length * 0.55
    sl = [
        s[:2] + n * w0 * 1.08,
        sleeve_end + n * w0 * 0.95,
        sleeve_end - n * w0 * 0.95,
        s[:2] - n * w0 * 1.08,
    ]
    sleeve = [(float(p[0]), float(p[1]), z_at(np.asarray(p)) + 4) for p in sl]
    return np.array(pts), np.array(sleeve)
