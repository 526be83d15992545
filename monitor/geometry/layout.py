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

``center``, ``banker``, ``tray`` and ``dice`` are optional: a table that lacks one leaves it out, and
the layout names it in :attr:`TableLayout.absent` ("not on this table"). Which zone a point is in
where zones overlap, and where a delivered pile rests, are the layout's zone rules
(:mod:`monitor.geometry.zone_rules`, the file's ``rules:`` section). The format and the rules are
written in docs/layout.md.
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
from monitor.geometry.zone_rules import DEFAULT_RULES, ZoneRules, lookup_order, parse_zone_rules
from monitor.rules.table_profile import FieldProblem

OFF_TABLE = "off_table"
FELT = "felt"
SEAT_COUNT = 7
PILE_COUNT = 7

Point = tuple[float, float]
# the zones a table may lack, and what each is (for "not on this table")
OPTIONAL_PARTS: dict[str, str] = {
    "center": "the centre area around the pile slots",
    "banker": "the banker's place",
    "tray": "the dealer's chip tray",
    "dice": "the dice area",
}


class LayoutError(ValueError):
    """A layout file is missing, unreadable or describes an impossible table; ``problems`` names each
    bad field (empty where the file could not be read at all)."""

    def __init__(self, message: str, problems: list[FieldProblem] | None = None) -> None:
        self.problems = list(problems or [])
        super().__init__(message)


def invalid_layout(source: str, problems: list[FieldProblem], what: str = "table layout") -> LayoutError:
    """Every problem of a file, one line each (``what``: the kind of file, for the first line)."""
    lines = "\n".join(f"  - {p}" for p in problems)
    return LayoutError(f"bad {what} {source} ({len(problems)} problem(s)):\n{lines}", problems)


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


def shape_from_data(data: Any) -> Shape:
    """One shape in the layout file's form (``{rect: {...}}``, ``{circle: ...}``, ``{polygon: ...}``)."""
    try:
        return _ShapeSpec.model_validate(data).build()
    except ValidationError as e:
        raise LayoutError(f"bad shape {data!r}: {e.errors()[0]['msg']}") from None


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
    tray: _ShapeSpec | None = None


class _BankerSpec(_Strict):
    place: _ShapeSpec


class _CenterSpec(_Strict):
    area: _ShapeSpec | None = None
    piles: list[_PileSpec]
    stub: _ShapeSpec


class _LayoutSpec(_Strict):
    name: Annotated[str, Field(min_length=1)]
    description: str = ""
    outline: list[Point]
    dealer: _DealerSpec
    banker: _BankerSpec | None = None
    dice: _ShapeSpec | None = None
    center: _CenterSpec
    seats: list[_SeatSpec]
    rules: Any = None  # read by monitor.geometry.zone_rules (its problems name rules.KEY)


def _numbering(spec: _LayoutSpec) -> list[FieldProblem]:
    """Seats and pile slots are numbered 1..7 once each; the outline is a polygon."""
    out = []
    if len(spec.outline) < 3:
        out.append(FieldProblem("outline", f"needs at least 3 points, got {len(spec.outline)}"))
    for path, nums, n in (("seats", [s.number for s in spec.seats], SEAT_COUNT),
                          ("center.piles", [p.number for p in spec.center.piles], PILE_COUNT)):
        if sorted(nums) != list(range(1, n + 1)):
            out.append(FieldProblem(path, f"must number 1..{n} once each, got {sorted(nums)}"))
    return out


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
    """A whole table in millimetres. See the module docstring for the zone names; ``None``: a zone
    this table does not have."""

    name: str
    description: str
    outline: Polygon
    dealer_position: Point
    tray: Shape | None
    banker_place: Shape | None
    dice: Shape | None
    center_area: Shape | None
    piles: tuple[Shape, ...]  # index 0 is pile 1 (dealer's left)
    stub: Shape
    seats: tuple[Seat, ...]  # index 0 is seat 1 (dealer's left, numbering clockwise from above)
    source: str = field(default="", compare=False)
    rules: ZoneRules = DEFAULT_RULES

    @cached_property
    def zones(self) -> tuple[Zone, ...]:
        """Every named zone in lookup order: where zones overlap, :meth:`zone_at` gives the first
        (by the layout's rules; by default the smallest in area first)."""
        return tuple(lookup_order(self._all_zones(), lambda z: z.kind, lambda z: z.shape.area, self.rules))

    @property
    def absent(self) -> tuple[str, ...]:
        """The optional zones this table does not have ("not on this table")."""
        have = {"center": self.center_area, "banker": self.banker_place, "tray": self.tray, "dice": self.dice}
        return tuple(name for name in OPTIONAL_PARTS if have[name] is None)

    def _all_zones(self) -> list[Zone]:
        zs: list[Zone] = []
        for s in self.seats:
            zs.append(Zone(f"seat{s.number}.bet", s.betting_spot, "bet", seat=s.number))
            zs.append(Zone(f"seat{s.number}.front", s.front_hand, "front", seat=s.number))
            zs.append(Zone(f"seat{s.number}.back", s.back_hand, "back", seat=s.number))
            zs.append(Zone(f"seat{s.number}", s.area, "seat", seat=s.number))
        for i, p in enumerate(self.piles, start=1):
            zs.append(Zone(f"pile{i}", p, "pile", pile=i))
        zs.append(Zone("stub", self.stub, "stub"))
        if self.center_area is not None:
            zs.append(Zone("center", self.center_area, "center"))
        if self.banker_place is not None:
            zs.append(Zone("banker", self.banker_place, "banker"))
        if self.tray is not None:
            zs.append(Zone("tray", self.tray, "tray"))
        if self.dice is not None:
            zs.append(Zone("dice", self.dice, "dice"))
        return zs

    @cached_property
    def zone_names(self) -> tuple[str, ...]:
        return (*tuple(z.name for z in self.zones), FELT, OFF_TABLE)

    def zone(self, name: str) -> Zone:
        for z in self.zones:
            if z.name == name:
                return z
        if name in OPTIONAL_PARTS:
            raise KeyError(f"layout {self.name!r} has no {name} zone: "
                           f"{OPTIONAL_PARTS[name]} is not on this table")
        raise KeyError(f"no zone {name!r} in layout {self.name!r} (zones: {', '.join(self.zone_names)})")

    def has(self, name: str) -> bool:
        return any(z.name == name for z in self.zones)

    def spot(self, name: str) -> Point:
        """Where the dealer works the banker's hand (``banker``), opens the dice cup (``dice``) or lays
        a card off the piles (``center``): the zone's centre, or on a table without that zone the place
        by the pile row it usually has (the renderer draws the deal there; the monitor reads no zone
        there)."""
        if self.has(name):
            cx, cy = self.zone(name).shape.center
            return (float(cx), float(cy))
        xs = [p.outline(8)[:, 0] for p in self.piles]
        left = float(min(x.min() for x in xs))
        row_x = float(np.mean([p.center[0] for p in self.piles]))
        row_y = float(np.mean([p.center[1] for p in self.piles]))
        if name == "center":
            return (row_x, row_y)
        if name == "banker":
            return (row_x, row_y - 155.0)
        if name == "dice":
            return (left - 150.0, row_y - 160.0)
        raise KeyError(f"no working spot {name!r} (spots: banker, center, dice)")

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
            inbox[hit, i + 1 :] = False  # the first zone holding a point (in lookup order) wins
        return out

    def zones_at(self, points: FloatArray) -> list[str]:
        return [self.zone_names[i] for i in self.zone_index(points)]

    def zone_at(self, x: float, y: float) -> str:
        """The zone containing table point (x, y) mm that wins by the layout's rules (by default the
        smallest), ``felt`` or ``off_table``."""
        return self.zone_names[int(self.zone_index(np.array([[x, y]]))[0])]

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """(xmin, ymin, xmax, ymax) of the table outline."""
        a = self.outline.array
        return (float(a[:, 0].min()), float(a[:, 1].min()), float(a[:, 0].max()), float(a[:, 1].max()))


def _build(spec: _LayoutSpec, source: str, rules: ZoneRules) -> TableLayout:
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

    def opt(shape: _ShapeSpec | None) -> Shape | None:
        return None if shape is None else shape.build()

    return TableLayout(
        name=spec.name,
        description=spec.description,
        outline=Polygon(tuple(spec.outline)),
        dealer_position=spec.dealer.position,
        tray=opt(spec.dealer.tray),
        banker_place=None if spec.banker is None else spec.banker.place.build(),
        dice=opt(spec.dice),
        center_area=opt(spec.center.area),
        piles=piles,
        stub=spec.center.stub.build(),
        seats=seats,
        source=source,
        rules=rules,
    )


def _field(loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as a key path: ``seats[2].back_hand.rect.size``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _message(err: Any) -> str:
    if err["type"] == "extra_forbidden":
        return "unknown key"
    if err["type"] == "missing":
        return "required, but missing"
    return str(err["msg"]).removeprefix("Value error, ")


def parse_layout(data: Any, source: str = "<data>") -> TableLayout:
    """Build a layout from already-parsed YAML/JSON data; errors name the source and every bad field."""
    rules, problems = parse_zone_rules(data.get("rules") if isinstance(data, dict) else None)
    try:
        spec = _LayoutSpec.model_validate(data)
    except ValidationError as e:
        problems += [FieldProblem(_field(tuple(err["loc"])), _message(err)) for err in e.errors()]
        raise invalid_layout(source, problems) from None
    problems += _numbering(spec)
    if problems or rules is None:
        raise invalid_layout(source, problems)
    layout = _build(spec, source, rules)
    problems = _check_inside(layout, _zone_fields(spec))
    if problems:
        raise invalid_layout(source, problems)
    return layout


def _zone_fields(spec: _LayoutSpec) -> dict[str, str]:
    """Where in the file each zone is written (zone name -> key path), for errors."""
    out = {"center": "center.area", "stub": "center.stub", "banker": "banker.place", "tray": "dealer.tray",
           "dice": "dice"}
    for i, p in enumerate(spec.center.piles):
        out[f"pile{p.number}"] = f"center.piles[{i}].shape"
    for i, s in enumerate(spec.seats):
        for part, key in (("bet", "betting_spot"), ("front", "front_hand"), ("back", "back_hand")):
            out[f"seat{s.number}.{part}"] = f"seats[{i}].{key}"
        out[f"seat{s.number}"] = f"seats[{i}].area"
    return out


def _check_inside(layout: TableLayout, fields: dict[str, str]) -> list[FieldProblem]:
    # Every zone's centre must be on the table: catches a sign slip in a hand-written layout.
    out = []
    for z in layout.zones:
        cx, cy = z.shape.center
        if not bool(layout.outline.contains(np.array([[cx, cy]]))[0]):
            why = f"zone {z.name} centre ({cx:.0f}, {cy:.0f}) is outside the table outline"
            out.append(FieldProblem(fields.get(z.name, z.name), why))
    return out


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
