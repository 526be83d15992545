"""A table layout from a room's measurements: the measurements file (docs/layout.md) in, the layout out.

The file gives the table's edge, the seven seats (spread in a fan around one point, or one by one),
the seven pile slots (a row, or one by one), the stub spot and whichever of the chip tray, banker's
place, dice area and centre area the table has, in table millimetres. Any shape or point may be
clicked on a picture of the felt instead, given four or more points of the picture whose table
position was measured (``picture:``). Pure: parsed data in, layout data (the layout file's form) or
the problems out, each naming its key in the measurements file.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from monitor.calibration import homography as hg
from monitor.geometry.layout import (
    PILE_COUNT,
    SEAT_COUNT,
    LayoutError,
    TableLayout,
    invalid_layout,
    parse_layout,
    shape_from_data,
)
from monitor.geometry.shapes import Polygon
from monitor.rules.table_profile import FieldProblem

Point = tuple[float, float]
Shape = dict[str, Any]  # a shape in the layout file's form: {rect: ...}, {circle: ...}, {polygon: ...}

TOP_KEYS = ("name", "description", "table", "dealer", "tray", "banker_place", "dice_area", "center_area",
            "piles", "stub", "seats", "rules", "picture")
# a picture point this far from the fit of the others is a misclick (calibrate's limit)
PICTURE_MAX_ERROR_MM = 15.0
KIDNEY_SAMPLES = 72
MEASUREMENTS = "layout measurements"  # the file's kind, in error messages
DEALER_BEHIND_MM = 50.0  # the dealer stands this far behind the rail's lowest point by default
# a fan's seat area, by default: from this far inside the front hand area to this far past the circle
AREA_INSIDE_MM = 50.0
AREA_OUTSIDE_MM = 125.0
AREA_PAD_MM = 50.0  # a seat given one by one: its area is the box around its zones, this much wider


def _shown(v: Any) -> str:
    return "nothing" if v is None else repr(v)


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _r(v: float) -> float:
    return round(float(v), 1) + 0.0  # + 0.0: no -0.0 in a file


def rect(center: Point, size: tuple[float, float], angle_deg: float = 0.0) -> Shape:
    return {"rect": {"center": [_r(center[0]), _r(center[1])], "size": [_r(size[0]), _r(size[1])],
                     "angle_deg": _r(angle_deg)}}


def circle(center: Point, radius: float) -> Shape:
    return {"circle": {"center": [_r(center[0]), _r(center[1])], "radius": _r(radius)}}


def polygon(points: list[Point] | NDArray[np.float64]) -> Shape:
    return {"polygon": [[_r(x), _r(y)] for x, y in points]}


def shape_center(shape: Shape) -> Point:
    if "polygon" in shape:
        c = Polygon(tuple((float(x), float(y)) for x, y in shape["polygon"])).center
        return (float(c[0]), float(c[1]))
    spec = shape.get("rect") or shape["circle"]
    return (float(spec["center"][0]), float(spec["center"][1]))


class _Reader:
    """Reads the measurements, collecting every problem with its key path."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.problems: list[FieldProblem] = []
        self.picture: NDArray[np.float64] | None = None  # picture pixels -> table mm
        self.has_picture = "picture" in data and data["picture"] is not None
        self.told_no_picture = False

    def bad(self, path: str, message: str) -> None:
        self.problems.append(FieldProblem(path, message))

    def mapping(self, path: str, v: Any, keys: tuple[str, ...],
                required: tuple[str, ...] = ()) -> dict[str, Any]:
        if not isinstance(v, dict):
            self.bad(path, f"must be a mapping with keys {', '.join(keys)}, got {_shown(v)}")
            return {}
        for k in v:
            if k not in keys:
                self.bad(f"{path}.{k}", f"unknown key (allowed: {', '.join(keys)})")
        for k in required:
            if k not in v:
                self.bad(f"{path}.{k}", "required, but missing")
        return v

    def number(self, path: str, v: Any, positive: bool = False) -> float | None:
        if not _is_num(v) or (positive and v <= 0):
            self.bad(path, f"must be a {'positive ' if positive else ''}number (mm), got {_shown(v)}")
            return None
        return float(v)

    def pair(self, path: str, v: Any, what: str) -> Point | None:
        if not isinstance(v, list) or len(v) != 2 or not all(_is_num(c) for c in v):
            self.bad(path, f"must be {what} (two numbers), got {_shown(v)}")
            return None
        return (float(v[0]), float(v[1]))

    def clicked(self, path: str, v: Any) -> Point | None:
        """A pixel of the picture, mapped to table mm."""
        px = self.pair(path, v, "[u, v] in picture pixels")
        if px is None:
            return None
        if self.picture is None:
            if not self.has_picture and not self.told_no_picture:  # said once, at the first clicked pixel
                self.told_no_picture = True
                self.bad(path, "a clicked pixel needs a picture: section (four or more measured points); "
                               "so does every other clicked pixel")
            return None
        mm = hg.apply(self.picture, np.array([px], np.float64))[0]
        return (float(mm[0]), float(mm[1]))

    def point(self, path: str, v: Any) -> Point | None:
        """``[x, y]`` in mm, or ``{clicked: [u, v]}``."""
        if isinstance(v, dict) and set(v) == {"clicked"}:
            return self.clicked(f"{path}.clicked", v["clicked"])
        return self.pair(path, v, "[x, y] in mm, or {clicked: [u, v]}")

    def size(self, path: str, v: Any) -> tuple[float, float] | None:
        got = self.pair(path, v, "[width, depth] in mm")
        if got is not None and min(got) <= 0:
            self.bad(path, f"must be two positive numbers (mm), got {_shown(v)}")
            return None
        return got

    def shape(self, path: str, v: Any) -> Shape | None:
        """A rect ``{center, size, angle_deg}``, a circle ``{center, radius}``, a ``{polygon: [...]}``
        in mm, or corners ``{clicked: [[u, v], ...]}`` / a circle ``{clicked_circle: {center, edge}}``
        clicked on the picture."""
        forms = "{center, size[, angle_deg]}, {center, radius}, {polygon}, {clicked} or {clicked_circle}"
        if not isinstance(v, dict):
            self.bad(path, f"must be a shape ({forms}), got {_shown(v)}")
            return None
        keys = set(v)
        if keys in ({"center", "size"}, {"center", "size", "angle_deg"}):
            c, s = self.point(f"{path}.center", v["center"]), self.size(f"{path}.size", v["size"])
            a = self.number(f"{path}.angle_deg", v.get("angle_deg", 0.0))
            return None if c is None or s is None or a is None else rect(c, s, a)
        if keys == {"center", "radius"}:
            c, r = self.point(f"{path}.center", v["center"]), self.number(f"{path}.radius", v["radius"], True)
            return None if c is None or r is None else circle(c, r)
        if keys == {"polygon"}:
            pts = self.points(f"{path}.polygon", v["polygon"], self.point)
            return None if pts is None else polygon(pts)
        if keys == {"clicked"}:
            pts = self.points(f"{path}.clicked", v["clicked"], self.clicked)
            return None if pts is None else polygon(pts)
        if keys == {"clicked_circle"}:
            ends = ("center", "edge")
            m = self.mapping(f"{path}.clicked_circle", v["clicked_circle"], ends, ends)
            c = self.clicked(f"{path}.clicked_circle.center", m.get("center")) if "center" in m else None
            e = self.clicked(f"{path}.clicked_circle.edge", m.get("edge")) if "edge" in m else None
            return None if c is None or e is None else circle(c, math.dist(c, e))
        self.bad(path, f"must be one shape: {forms}; got the keys {', '.join(map(str, v)) or 'none'}")
        return None

    def points(self, path: str, v: Any, one: Callable[[str, Any], Point | None]) -> list[Point] | None:
        if not isinstance(v, list) or len(v) < 3:
            self.bad(path, f"must be a list of at least 3 points, got {_shown(v)}")
            return None
        pts = [one(f"{path}[{i}]", p) for i, p in enumerate(v)]
        return None if any(p is None for p in pts) else [p for p in pts if p is not None]

    def count(self, path: str, v: Any, need: int, what: str) -> None:
        if v != need:
            self.bad(path, f"{_shown(v)} is not allowed: the monitor judges Pai Gow tables of {need} {what}")


# ---- the parts ------------------------------------------------------------------------------------


def _picture(r: _Reader, v: Any) -> None:
    m = r.mapping("picture", v, ("file", "points"), ("points",))
    items = m.get("points")
    if "points" in m and (not isinstance(items, list) or len(items) < 4):
        r.bad("picture.points",
              f"must list 4 or more {{pixel: [u, v], table: [x, y]}} points, got {_shown(items)}")
        return
    if not isinstance(items, list):
        return
    pixels, table = [], []
    for i, item in enumerate(items):
        p = r.mapping(f"picture.points[{i}]", item, ("pixel", "table"), ("pixel", "table"))
        px = r.pair(f"picture.points[{i}].pixel", p.get("pixel"), "[u, v] in picture pixels") if p else None
        mm = r.pair(f"picture.points[{i}].table", p.get("table"), "[x, y] in mm") if p else None
        if px is not None and mm is not None:
            pixels.append(px)
            table.append(mm)
    if len(pixels) != len(items):
        return
    try:
        ransac = PICTURE_MAX_ERROR_MM if len(items) >= 6 else None  # six or more: a misclick stands out
        fit = hg.fit(np.array(pixels), np.array(table), ransac_mm=ransac)
    except hg.HomographyError as exc:
        r.bad("picture.points", str(exc))
        return
    worst = int(np.argmax(fit.errors_mm))  # a point the fit left out is named too: fix it or drop it
    if fit.errors_mm[worst] > PICTURE_MAX_ERROR_MM:
        r.bad(f"picture.points[{worst}]", f"is {fit.errors_mm[worst]:.0f} mm from the fit of the others "
                                          f"(limit {PICTURE_MAX_ERROR_MM:g} mm): misclicked or mismeasured?")
        return
    r.picture = fit.homography


def _kidney(width: float, depth: float, cutout: float, center: Point) -> list[Point]:
    """An ellipse ``width`` x ``depth`` whose dealer's side (-y) is pushed in by ``cutout`` at the
    middle, less toward the ends: the kidney's concave side, where the dealer stands."""
    a, b = width / 2, depth / 2
    out = []
    for k in range(KIDNEY_SAMPLES):
        t = 2 * math.pi * k / KIDNEY_SAMPLES
        x, y = a * math.cos(t), b * math.sin(t)
        if y < 0:
            y += cutout * (1 - (x / a) ** 2) ** 2
        out.append((center[0] + x, center[1] + y))
    return out


def _outline(r: _Reader, v: Any) -> list[Point] | None:
    m = r.mapping("table", v, ("outline", "kidney", "rectangle"))
    given = [k for k in ("outline", "kidney", "rectangle") if k in m]
    if len(given) != 1:
        if isinstance(v, dict):
            why = f"must give exactly one of outline, kidney, rectangle (got {', '.join(given) or 'none'})"
            r.bad("table", why)
        return None
    kind = given[0]
    if kind == "outline":
        return r.points("table.outline", m["outline"], r.point)
    keys = ("width", "depth", "center", "dealer_cutout") if kind == "kidney" else ("width", "depth", "center")
    s = r.mapping(f"table.{kind}", m[kind], keys, ("width", "depth"))
    w = r.number(f"table.{kind}.width", s.get("width"), True) if "width" in s else None
    d = r.number(f"table.{kind}.depth", s.get("depth"), True) if "depth" in s else None
    c = r.point(f"table.{kind}.center", s["center"]) if "center" in s else (0.0, 0.0)
    if w is None or d is None or c is None:
        return None
    if kind == "rectangle":
        return [(c[0] - w / 2, c[1] - d / 2), (c[0] + w / 2, c[1] - d / 2), (c[0] + w / 2, c[1] + d / 2),
                (c[0] - w / 2, c[1] + d / 2)]
    cut = r.number("table.kidney.dealer_cutout", s.get("dealer_cutout", 0.0))
    if cut is None:
        return None
    if not 0 <= cut < d / 2:
        r.bad("table.kidney.dealer_cutout",
              f"must be 0 or more and under half the depth ({d / 2:g}), got {cut:g}")
        return None
    return _kidney(w, d, cut, c)


def _piles(r: _Reader, v: Any) -> tuple[list[Shape], list[str]] | None:
    """Seven slots, pile 1 at the dealer's left (-x); also the key each was written under."""
    m = r.mapping("piles", v, ("count", "row", "slots"))
    if "count" in m:
        r.count("piles.count", m["count"], PILE_COUNT, "pile slots")
    if ("row" in m) == ("slots" in m):
        if isinstance(v, dict):
            r.bad("piles", "must give exactly one of row (seven slots in a row) or slots (a list of seven)")
        return None
    if "slots" in m:
        slots = m["slots"]
        if not isinstance(slots, list) or len(slots) != PILE_COUNT:
            r.bad("piles.slots", f"must list {PILE_COUNT} slot shapes, pile 1 first, got {_shown(slots)}")
            return None
        read = [r.shape(f"piles.slots[{i}]", s) for i, s in enumerate(slots)]
        return (None if any(s is None for s in read)
                else ([s for s in read if s is not None], [f"piles.slots[{i}]" for i in range(PILE_COUNT)]))
    need = ("center", "spacing", "size")
    row = r.mapping("piles.row", m["row"], (*need, "angle_deg"), need)
    c = r.point("piles.row.center", row["center"]) if "center" in row else None
    step = r.number("piles.row.spacing", row.get("spacing"), True) if "spacing" in row else None
    size = r.size("piles.row.size", row.get("size")) if "size" in row else None
    angle = r.number("piles.row.angle_deg", row.get("angle_deg", 0.0))
    if c is None or step is None or size is None or angle is None:
        return None
    if step < size[0]:
        r.bad("piles.row.spacing",
              f"{step:g} mm is less than a slot's width ({size[0]:g} mm): the slots overlap")
        return None
    a = math.radians(angle)
    mid = (PILE_COUNT + 1) / 2
    du, dv = step * math.cos(a), step * math.sin(a)
    shapes = [rect((c[0] + (k - mid) * du, c[1] + (k - mid) * dv), size, angle)
              for k in range(1, PILE_COUNT + 1)]
    return shapes, ["piles.row"] * PILE_COUNT


def _seat_angles(spacing: float) -> list[float]:
    """Each seat's direction from the fan's centre, degrees from +y: seat 1 at the dealer's left (-x),
    numbered clockwise seen from above."""
    mid = (SEAT_COUNT + 1) / 2
    return [(mid - k) * spacing for k in range(1, SEAT_COUNT + 1)]


def _along(c: Point, angle_deg: float, d: float) -> Point:
    a = math.radians(angle_deg)
    return (c[0] - d * math.sin(a), c[1] + d * math.cos(a))


def _clip_to(outline: Polygon, inner: Point, outer: Point) -> Point:
    """``outer``, or where the segment from ``inner`` (on the table) leaves the table before it."""
    if bool(outline.contains(np.array([outer]))[0]):
        return outer
    lo, hi = 0.0, 1.0
    for _ in range(40):  # bisection: the edge within a micrometre
        mid = (lo + hi) / 2
        p = (inner[0] + (outer[0] - inner[0]) * mid, inner[1] + (outer[1] - inner[1]) * mid)
        lo, hi = (mid, hi) if bool(outline.contains(np.array([p]))[0]) else (lo, mid)
    return (inner[0] + (outer[0] - inner[0]) * lo, inner[1] + (outer[1] - inner[1]) * lo)


_FAN_PARTS = {"betting_circle": ("distance", "radius"), "back_hand": ("distance", "size"),
              "front_hand": ("distance", "size"), "player": ("distance",), "area": ("inner", "outer")}


def _fan_part(r: _Reader, part: str, v: Any) -> dict[str, Any] | None:
    """One part of a fan (``betting_circle: {distance, radius}``, ...): its numbers, or None."""
    need = _FAN_PARTS[part]
    m = r.mapping(f"seats.fan.{part}", v, need, need)
    out: dict[str, Any] = {}
    for k in need:
        if k in m:
            path = f"seats.fan.{part}.{k}"
            out[k] = r.size(path, m[k]) if k == "size" else r.number(path, m[k], True)
    return out if len(out) == len(need) and None not in out.values() else None


def _fan(r: _Reader, v: Any, outline: Polygon | None) -> list[dict[str, Any]] | None:
    keys = ("center", "spacing_deg", *_FAN_PARTS)
    m = r.mapping("seats.fan", v, keys, tuple(k for k in keys if k != "area"))
    c = r.point("seats.fan.center", m["center"]) if "center" in m else None
    spacing = r.number("seats.fan.spacing_deg", m.get("spacing_deg"), True) if "spacing_deg" in m else None
    got = {part: _fan_part(r, part, m[part]) for part in _FAN_PARTS if part in m}
    if c is None or spacing is None or any(g is None for g in got.values()) or \
            any(part not in got for part in _FAN_PARTS if part != "area"):
        return None
    if spacing * SEAT_COUNT >= 180:
        r.bad("seats.fan.spacing_deg", f"{spacing:g} degrees x {SEAT_COUNT} seats is half a turn or more")
        return None
    bet, back, front, player = got["betting_circle"], got["back_hand"], got["front_hand"], got["player"]
    assert bet is not None and back is not None and front is not None and player is not None
    area = got.get("area") or {"inner": front["distance"] - front["size"][1] / 2 - AREA_INSIDE_MM,
                               "outer": bet["distance"] + bet["radius"] + AREA_OUTSIDE_MM}
    if not 0 < area["inner"] < area["outer"]:
        r.bad("seats.fan.area",
              f"inner ({area['inner']:g}) must be above 0 and below outer ({area['outer']:g})")
        return None
    seats = []
    for n, th in enumerate(_seat_angles(spacing), start=1):
        half = spacing / 2
        inner = [_along(c, th + f * half, area["inner"]) for f in (1, 1 / 3, -1 / 3, -1)]
        outer = [_along(c, th + f * half, area["outer"]) for f in (-1, -1 / 3, 1 / 3, 1)]
        if outline is not None:  # the area ends at the table's edge
            off = [p for p in inner if not bool(outline.contains(np.array([p]))[0])]
            if off:
                r.bad("seats.fan.area.inner" if "area" in got else "seats.fan.front_hand.distance",
                      f"seat {n}'s area starts off the table, at ({off[0][0]:.0f}, {off[0][1]:.0f})")
                return None
            outer = [_clip_to(outline, _along(c, th + f * half, area["inner"]), p)
                     for f, p in zip((-1, -1 / 3, 1 / 3, 1), outer, strict=True)]
        seats.append({
            "number": n,
            "position": [_r(x) for x in _along(c, th, player["distance"])],
            "betting_spot": circle(_along(c, th, bet["distance"]), bet["radius"]),
            "back_hand": rect(_along(c, th, back["distance"]), back["size"], th),
            "front_hand": rect(_along(c, th, front["distance"]), front["size"], th),
            "area": polygon(inner + outer),
        })
    return seats


def _box_around(shapes: list[Shape], angle_deg: float, pad: float) -> Shape:
    """The rect at ``angle_deg`` around the shapes, ``pad`` wider each side."""
    pts: list[NDArray[np.float64]] = []
    for s in shapes:
        if "polygon" in s:
            pts.append(np.asarray(s["polygon"], np.float64))
        elif "circle" in s:
            cx, cy = s["circle"]["center"]
            rr = s["circle"]["radius"]
            pts.append(np.array([[cx + i * rr, cy + j * rr] for i in (-1, 1) for j in (-1, 1)]))
        else:
            q = s["rect"]
            a = math.radians(q["angle_deg"])
            u, w = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
            hw, hh = q["size"][0] / 2, q["size"][1] / 2
            cc = np.array(q["center"], np.float64)
            pts.append(np.array([cc + i * hw * u + j * hh * w for i in (-1, 1) for j in (-1, 1)]))
    p = np.concatenate(pts)
    a = math.radians(angle_deg)
    u, w = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    pu, pw = p @ u, p @ w
    lo_u, hi_u, lo_w, hi_w = pu.min() - pad, pu.max() + pad, pw.min() - pad, pw.max() + pad
    center = u * (lo_u + hi_u) / 2 + w * (lo_w + hi_w) / 2
    return rect((float(center[0]), float(center[1])), (hi_u - lo_u, hi_w - lo_w), angle_deg)


def _listed(r: _Reader, v: Any) -> list[dict[str, Any]] | None:
    if not isinstance(v, list) or len(v) != SEAT_COUNT:
        r.bad("seats.list",
              f"must list {SEAT_COUNT} seats, seat 1 (the dealer's left) first, got {_shown(v)}")
        return None
    seats: list[dict[str, Any]] = []
    parts = ("betting_circle", "front_hand", "back_hand", "player", "area")
    for i, item in enumerate(v):
        path = f"seats.list[{i}]"
        m = r.mapping(path, item, parts, parts[:4])
        bet = r.shape(f"{path}.betting_circle", m["betting_circle"]) if "betting_circle" in m else None
        front = r.shape(f"{path}.front_hand", m["front_hand"]) if "front_hand" in m else None
        back = r.shape(f"{path}.back_hand", m["back_hand"]) if "back_hand" in m else None
        player = r.point(f"{path}.player", m["player"]) if "player" in m else None
        if bet is None or front is None or back is None or player is None:
            continue
        angle = float(back["rect"]["angle_deg"]) if "rect" in back else 0.0
        area = r.shape(f"{path}.area", m["area"]) if "area" in m else _box_around([bet, front, back], angle,
                                                                                  AREA_PAD_MM)
        if area is None:
            continue
        seats.append({"number": i + 1, "position": [_r(player[0]), _r(player[1])], "betting_spot": bet,
                      "back_hand": back, "front_hand": front, "area": area})
    if len(seats) != SEAT_COUNT:
        return None
    # a seat's area holding another seat's zones would give that seat's cards to this one
    for i, s in enumerate(seats):
        ring = _shape_polygon(s["area"])
        for o in seats:
            if o is s:
                continue
            held = [k for k in ("betting_spot", "front_hand", "back_hand")
                    if bool(ring.contains(np.array([shape_center(o[k])]))[0])]
            if held:
                r.bad(f"seats.list[{i}].area", f"holds seat {o['number']}'s {', '.join(held)}: give the seat "
                                                "an area that stops short of its neighbours")
                break
    return seats


def _shape_polygon(shape: Shape) -> Polygon:
    return Polygon(tuple((float(x), float(y)) for x, y in shape_from_data(shape).outline(48)))


def _seats(r: _Reader, v: Any, outline: Polygon | None) -> list[dict[str, Any]] | None:
    m = r.mapping("seats", v, ("count", "fan", "list"))
    if "count" in m:
        r.count("seats.count", m["count"], SEAT_COUNT, "seats")
    if ("fan" in m) == ("list" in m):
        if isinstance(v, dict):
            r.bad("seats",
                  "must give exactly one of fan (seats spread around one point) or list (seat by seat)")
        return None
    return _fan(r, m["fan"], outline) if "fan" in m else _listed(r, m["list"])


def _on_table(r: _Reader, outline: Polygon, placed: list[tuple[str, str, Shape]]) -> None:
    for path, what, shape in placed:
        c = shape_center(shape)
        if not bool(outline.contains(np.array([c]))[0]):
            r.bad(path, f"{what} centre ({c[0]:.0f}, {c[1]:.0f}) is off the table outline")


# ---- the whole file -------------------------------------------------------------------------------


def layout_from_measurements(data: Any, source: str = "<measurements>") -> dict[str, Any]:
    """The layout (in the layout file's form) the measurements describe; ``LayoutError`` naming every
    bad key of the measurements file otherwise."""
    if not isinstance(data, dict):
        raise invalid_layout(source, [FieldProblem("", f"must be a mapping at the top, got {_shown(data)}")],
                             MEASUREMENTS)
    r = _Reader(data)
    for k in data:
        if k not in TOP_KEYS:
            r.bad(str(k), f"unknown key (allowed: {', '.join(TOP_KEYS)})")
    for k in ("name", "table", "piles", "stub", "seats"):
        if k not in data:
            r.bad(k, "required, but missing")
    name = data.get("name")
    if "name" in data and (not isinstance(name, str) or not name.strip()):
        r.bad("name", f"must be a non-empty string, got {_shown(name)}")
    description = data.get("description", "")
    if not isinstance(description, str):
        r.bad("description", f"must be a string, got {_shown(description)}")
    if r.has_picture:
        _picture(r, data["picture"])
    outline = _outline(r, data["table"]) if "table" in data else None
    ring = Polygon(tuple(outline)) if outline is not None and len(outline) >= 3 else None
    piles = _piles(r, data["piles"]) if "piles" in data else None
    stub = r.shape("stub", data["stub"]) if "stub" in data else None
    optional = {k: r.shape(k, data[k]) for k in ("tray", "banker_place", "dice_area", "center_area")
                if data.get(k) is not None}
    seats = _seats(r, data["seats"], ring) if "seats" in data else None
    if "dealer" in data:
        dealer = r.point("dealer", data["dealer"])
    elif outline is not None:
        xs, ys = [p[0] for p in outline], [p[1] for p in outline]
        dealer = ((min(xs) + max(xs)) / 2, min(ys) - DEALER_BEHIND_MM)
    else:
        dealer = None
    if r.problems or outline is None or ring is None or piles is None or stub is None or seats is None \
            or dealer is None or any(v is None for v in optional.values()):
        raise invalid_layout(source, r.problems or [FieldProblem("", "incomplete measurements")],
                             MEASUREMENTS)
    placed = [(piles[1][i], f"pile {i + 1}'s slot", s) for i, s in enumerate(piles[0])]
    placed += [("stub", "the stub spot", stub)]
    placed += [(k, k.replace("_", " "), s) for k, s in optional.items() if s is not None]
    where = "seats.fan" if "fan" in data["seats"] else "seats.list"
    for i, s in enumerate(seats):
        for key, part, what in (("betting_spot", "betting_circle", "betting circle"),
                                ("front_hand", "front_hand", "front hand area"),
                                ("back_hand", "back_hand", "back hand area")):
            path = f"{where}.{part}" if where == "seats.fan" else f"{where}[{i}].{part}"
            placed.append((path, f"seat {s['number']}'s {what}", s[key]))
    _on_table(r, ring, placed)
    if r.problems:
        raise invalid_layout(source, r.problems, MEASUREMENTS)
    out: dict[str, Any] = {
        "name": str(name).strip(),
        "description": description,
        "outline": [[_r(x), _r(y)] for x, y in outline],
        "dealer": {"position": [_r(dealer[0]), _r(dealer[1])]},
    }
    if optional.get("tray") is not None:
        out["dealer"]["tray"] = optional["tray"]
    if optional.get("banker_place") is not None:
        out["banker"] = {"place": optional["banker_place"]}
    if optional.get("dice_area") is not None:
        out["dice"] = optional["dice_area"]
    center: dict[str, Any] = {}
    if optional.get("center_area") is not None:
        center["area"] = optional["center_area"]
    center["piles"] = [{"number": i, "shape": s} for i, s in enumerate(piles[0], start=1)]
    center["stub"] = stub
    out["center"] = center
    out["seats"] = seats
    if data.get("rules") is not None:
        out["rules"] = data["rules"]  # checked where the layout is read (its problems name rules.KEY)
    return out


def make_layout(data: Any, source: str = "<measurements>") -> TableLayout:
    """The measurements as a checked :class:`TableLayout` (``LayoutError`` naming the bad keys)."""
    made = layout_from_measurements(data, source)
    try:
        return parse_layout(made, source)
    except LayoutError as exc:  # the measured zones made an impossible table: say so in the file's terms
        raise invalid_layout(source, exc.problems, "layout made from the measurements") from None
