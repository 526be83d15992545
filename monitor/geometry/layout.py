"""The table layout: where everything is on the felt, in table millimetres, loaded from YAML.

The default layout ships as ``monitor/geometry/data/paigow_table.yaml`` (its header documents the
table frame and the seat and pile numbering). A room with a different table writes its own file
in the same form and passes it to :func:`load_layout`.

Zones have stable names that the rest of the product uses:

- ``seat{n}.bet``, ``seat{n}.front``, ``seat{n}.back``: a seat's betting spot and its 2-card (front)
  and 5-card (back) hand areas; ``seat{n}``: the rest of that seat's wedge of felt
- ``pile{n}``: the seven pile slots in the centre, ``stub``: where the stub is counted,
  ``center``: the rest of the centre area
- ``banker``: where the player-dealer's (banker's) hand is exposed and set
- ``tray``: the dealer's chip tray, ``dice``: where the dice cup is opened
- ``felt``: any other point on the table, ``off_table``: outside the table outline
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import yaml
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from monitor.geometry.shapes import Circle, FloatArray, Polygon, Rect, Shape

OFF_TABLE = "off_table"
FELT = "felt"
SEAT_COUNT = 7
PILE_COUNT = 7

Point = tuple[float, float]


class LayoutError(ValueError):
    """A layout file is missing, unreadable or describes an impossible table."""


# ---- YAML schema (pydantic: its errors name the exact path of a bad field) ----------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _RectSpec(_Strict):
    center: Point
    size: tuple[Annotated[float, Field(gt=0)], Annotated[float, Field(gt=0)]]
    angle_deg: float = 0.0


class _CircleSpec(_Strict):
    center: Point
    radius: Annotated[float, Field(gt=0)]


class _ShapeSpec(_Strict):
    rect: _RectSpec | None = None
    circle: _CircleSpec | None = None
    polygon: list[Point] | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> _ShapeSpec:
        given = [k for k in ("rect", "circle", "polygon") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"a shape is exactly one of rect, circle, polygon (got {given or 'none'})")
        if self.polygon is not None and len(self.polygon) < 3:
            raise ValueError(f"a polygon needs at least 3 points, got {len(self.polygon)}")
        return self

    def build(self) -> Shape:
        if self.rect is not None:
            r = self.rect
            return Rect(r.center[0], r.center[1], r.size[0], r.size[1], r.angle_deg)
        if self.circle is not None:
            return Circle(self.circle.center[0], self.circle.center[1], self.circle.radius)
        assert self.polygon is not None
        return Polygon(tuple(self.polygon))


class _SeatSpec(_Strict):
    number: Annotated[int, Field(ge=1, le=SEAT_COUNT)]
    position: Point
    betting_spot: _ShapeSpec
    back_hand: _ShapeSpec
    front_hand: _ShapeSpec
    area: _ShapeSpec


class _PileSpec(_Strict):
    number: Annotated[int, Field(ge=1, le=PILE_COUNT)]
    shape: _ShapeSpec


class _DealerSpec(_Strict):
    position: Point
    tray: _ShapeSpec


class _BankerSpec(_Strict):
    place: _ShapeSpec


class _CenterSpec(_Strict):
    area: _ShapeSpec
    piles: list[_PileSpec]
    stub: _ShapeSpec

    @model_validator(mode="after")
    def _seven_piles(self) -> _CenterSpec:
        nums = sorted(p.number for p in self.piles)
        if nums != list(range(1, PILE_COUNT + 1)):
            raise ValueError(f"center.piles must number 1..{PILE_COUNT} once each, got {nums}")
        return self


class _LayoutSpec(_Strict):
    name: str
    description: str = ""
    outline: list[Point]
    dealer: _DealerSpec
    banker: _BankerSpec
    dice: _ShapeSpec
    center: _CenterSpec
    seats: list[_SeatSpec]

    @model_validator(mode="after")
    def _checks(self) -> _LayoutSpec:
        if len(self.outline) < 3:
            raise ValueError("outline needs at least 3 points")
        nums = sorted(s.number for s in self.seats)
        if nums != list(range(1, SEAT_COUNT + 1)):
            raise ValueError(f"seats must number 1..{SEAT_COUNT} once each, got {nums}")
        return self


# ---- the typed layout ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Zone:
    name: str
    shape: Shape
    kind: Literal["bet", "front", "back", "seat", "pile", "stub", "center", "banker", "tray", "dice"]
    seat: int | None = None
    pile: int | None = None


@dataclass(frozen=True, slots=True)
class Seat:
    number: int
    position: Point  # where the player sits, outside the rail
    betting_spot: Shape
    front_hand: Shape
    back_hand: Shape
    area: Shape


@dataclass(frozen=True)
class TableLayout:
    """A whole table in millimetres. See the module docstring for the zone names."""

    name: str
    description: str
    outline: Polygon
    dealer_position: Point
    tray: Shape
    banker_place: Shape
    dice: Shape
    center_area: Shape
    piles: tuple[Shape, ...]  # index 0 is pile 1 (dealer's left)
    stub: Shape
    seats: tuple[Seat, ...]  # index 0 is seat 1 (dealer's left, numbering clockwise from above)
    source: str = field(default="", compare=False)

    @cached_property
    def zones(self) -> tuple[Zone, ...]:
        """Every named zone, smallest area first (the order :meth:`zone_at` resolves overlaps in)."""
        zs: list[Zone] = []
        for s in self.seats:
            zs.append(Zone(f"seat{s.number}.bet", s.betting_spot, "bet", seat=s.number))
            zs.append(Zone(f"seat{s.number}.front", s.front_hand, "front", seat=s.number))
            zs.append(Zone(f"seat{s.number}.back", s.back_hand, "back", seat=s.number))
            zs.append(Zone(f"seat{s.number}", s.area, "seat", seat=s.number))
        for i, p in enumerate(self.piles, start=1):
            zs.append(Zone(f"pile{i}", p, "pile", pile=i))
        zs.append(Zone("stub", self.stub, "stub"))
        zs.append(Zone("center", self.center_area, "center"))
        zs.append(Zone("banker", self.banker_place, "banker"))
        zs.append(Zone("tray", self.tray, "tray"))
        zs.append(Zone("dice", self.dice, "dice"))
        return tuple(sorted(zs, key=lambda z: z.shape.area))

    @cached_property
    def zone_names(self) -> tuple[str, ...]:
        return (*tuple(z.name for z in self.zones), FELT, OFF_TABLE)

    def zone(self, name: str) -> Zone:
        for z in self.zones:
            if z.name == name:
                return z
        raise KeyError(f"no zone {name!r} in layout {self.name!r} (zones: {', '.join(self.zone_names)})")

    def seat(self, number: int) -> Seat:
        if not 1 <= number <= len(self.seats):
            raise KeyError(f"no seat {number} (seats 1..{len(self.seats)})")
        return self.seats[number - 1]

    def pile(self, number: int) -> Shape:
        if not 1 <= number <= len(self.piles):
            raise KeyError(f"no pile slot {number} (piles 1..{len(self.piles)})")
        return self.piles[number - 1]

    @cached_property
    def _zone_boxes(self) -> NDArray[np.float64]:
        """Each zone's bounding box (xmin, ymin, xmax, ymax), a little wide (a circle's outline is
        inscribed): a point outside it cannot be in the zone, so most zones need no exact test."""
        boxes = []
        for z in self.zones:
            o = z.shape.outline(96)
            lo, hi = o.min(axis=0), o.max(axis=0)
            pad = 1.0 + 0.01 * float((hi - lo).max())
            boxes.append((lo[0] - pad, lo[1] - pad, hi[0] + pad, hi[1] + pad))
        return np.array(boxes, np.float64).reshape(-1, 4)

    def zone_index(self, points: FloatArray) -> NDArray[np.int64]:
        """Vectorized lookup: an index into :attr:`zone_names` for each (x, y) row of ``points``."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        out = np.full(len(p), len(self.zones), dtype=np.int64)  # FELT
        on_table = self.outline.contains(p)
        out[~on_table] = len(self.zones) + 1  # OFF_TABLE
        b = self._zone_boxes
        # only the zones whose box holds a point get the exact test, on those points only
        inbox = (
            (p[:, 0:1] >= b[None, :, 0])
            & (p[:, 0:1] <= b[None, :, 2])
            & (p[:, 1:2] >= b[None, :, 1])
            & (p[:, 1:2] <= b[None, :, 3])
            & on_table[:, None]
        )
        for i in np.flatnonzero(inbox.any(axis=0)):
            idx = np.flatnonzero(inbox[:, i])
            if not idx.size:
                continue
            hit = idx[self.zones[i].shape.contains(p[idx])]
            out[hit] = i
            inbox[hit, i + 1 :] = False  # the smallest zone holding a point wins
        return out

    def zones_at(self, points: FloatArray) -> list[str]:
        return [self.zone_names[i] for i in self.zone_index(points)]

    def zone_at(self, x: float, y: float) -> str:
        """The name of the smallest zone containing table point (x, y) mm, ``felt`` or ``off_table``."""
        return self.zone_names[int(self.zone_index(np.array([[x, y]]))[0])]

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """(xmin, ymin, xmax, ymax) of the table outline."""
        a = self.outline.array
        return (float(a[:, 0].min()), float(a[:, 1].min()), float(a[:, 0].max()), float(a[:, 1].max()))


def _build(spec: _LayoutSpec, source: str) -> TableLayout:
    seats = tuple(
        Seat(
            s.number,
            s.position,
            s.betting_spot.build(),
            s.front_hand.build(),
            s.back_hand.build(),
            s.area.build(),
        )
        for s in sorted(spec.seats, key=lambda s: s.number)
    )
    piles = tuple(p.shape.build() for p in sorted(spec.center.piles, key=lambda p: p.number))
    return TableLayout(
        name=spec.name,
        description=spec.description,
        outline=Polygon(tuple(spec.outline)),
        dealer_position=spec.dealer.position,
        tray=spec.dealer.tray.build(),
        banker_place=spec.banker.place.build(),
        dice=spec.dice.build(),
        center_area=spec.center.area.build(),
        piles=piles,
        stub=spec.center.stub.build(),
        seats=seats,
        source=source,
    )


def parse_layout(data: Any, source: str = "<data>") -> TableLayout:
    """Build a layout from already-parsed YAML/JSON data; errors name the source and the field."""
    try:
        spec = _LayoutSpec.model_validate(data)
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(x) for x in err['loc']) or '(top)'}: {err['msg']}" for err in e.errors()
        )
        raise LayoutError(f"bad table layout {source}: {problems}") from None
    layout = _build(spec, source)
    _check_inside(layout)
    return layout


def _check_inside(layout: TableLayout) -> None:
    # Every zone's centre must be on the table: catches a sign slip in a hand-written layout.
    for z in layout.zones:
        cx, cy = z.shape.center
        if not bool(layout.outline.contains(np.array([[cx, cy]]))[0]):
            raise LayoutError(
                f"bad table layout {layout.source}: zone {z.name} centre ({cx:.0f}, {cy:.0f}) "
                "is outside the table outline"
            )


def load_layout(path: str | Path | None = None) -> TableLayout:
    """Load a layout YAML file; with no path, the default seven-seat Pai Gow table."""
    if path is None:
        text = resources.files("monitor.geometry").joinpath("data/paigow_table.yaml").read_text("utf-8")
        source = "default paigow_table.yaml"
    else:
        p = Path(path)
        try:
            text = p.read_text("utf-8")
        except OSError as e:
            raise LayoutError(f"cannot read table layout {p}: {e.strerror or e}") from None
        source = str(p)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise LayoutError(f"table layout {source} is not valid YAML: {e}") from None
    if not isinstance(data, dict):
        raise LayoutError(f"table layout {source} must be a mapping at the top, got {type(data).__name__}")
    return parse_layout(data, source)


_DEFAULT: TableLayout | None = None


def default_layout() -> TableLayout:
    """The shipped seven-seat Pai Gow layout (loaded once)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load_layout()
    return _DEFAULT
