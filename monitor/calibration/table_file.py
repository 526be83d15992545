"""The table file (YAML): the camera's homography into table millimetres and the named zones.

A table file is what ``table-monitor run --table FILE`` loads; ``table-monitor calibrate``
writes one. Loading validates everything and reports *all* problems at once, each with the
file and the field (``zones.seat3.front: polygon crosses itself (edges 0 and 2)``).

Format (version 1)::

    version: 1
    table: table-1                # id used in events and alerts
    layout: paigow-7-seat         # the geometry layout the zones came from (informational)
    image_size: [1920, 1080]      # the camera frame this calibration is for
    homography:                   # image pixel (u, v, 1) -> table mm (x, y, 1), up to scale
      - [h11, h12, h13]
      - [h21, h22, h23]
      - [h31, h32, h33]
    outline: [[x, y], ...]        # the table's edge in mm
    zones:                        # polygons in table mm, names as in monitor.geometry
      seat1.bet: [[x, y], ...]
      ...
    calibration: {method: aruco, points: 6, rms_error_mm: 0.9, max_error_mm: 1.6, created: ...}
    zone_rules:                   # optional: the layout's zone rules (docs/layout.md), copied from it
      zone_priority: smallest
      delivered_pile: seat_area
    profile:                      # optional: the table's rule profile (docs/table-profile.md)
      name: room-ccw
      dice: {direction: counterclockwise, start: banker}
      ...
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from numpy.typing import NDArray

from monitor.calibration import homography as hg
from monitor.calibration.lens import Lens, LensError
from monitor.calibration.polygons import distance_outside, self_intersection, signed_area
from monitor.calibration.zones import OPTIONAL_ZONES, REQUIRED_ZONES, layout_polygons, zone_kind
from monitor.geometry import FELT, OFF_TABLE, Polygon, TableLayout
from monitor.geometry.shapes import PolygonSet
from monitor.geometry.zone_rules import (
    DEFAULT_RULES,
    ZoneRules,
    lookup_order,
    parse_zone_rules,
    zone_rules_data,
)
from monitor.rules.profile import DEFAULT_PROFILE, PaiGowProfile
from monitor.rules.table_profile import FieldProblem, parse_profile, profile_data

FORMAT_VERSION = 1
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml parses a table file ~10x faster
# zone vertices may sit this far outside the outline (the outline itself is a sampled curve)
OUTLINE_TOLERANCE_MM = 25.0
MIN_SINGULARITY = 1e-9
KNOWN_FIELDS = frozenset(
    {"version", "table", "layout", "image_size", "homography", "lens", "outline", "zones", "calibration",
     "reference_image", "profile", "zone_rules"}
)

Point = tuple[float, float]
Problem = FieldProblem  # one bad key of a table file (the profile section's checks give the same shape)


class CalibrationError(ValueError):
    """A table file that cannot be used; ``problems`` lists every field that is wrong."""

    def __init__(self, source: str, problems: list[Problem]) -> None:
        self.source = source
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"table file {source} is invalid ({len(problems)} problem(s)):\n{lines}")


@dataclass(frozen=True, slots=True)
class CalibrationInfo:
    method: str = "unknown"
    points: int = 0
    rms_error_mm: float | None = None
    max_error_mm: float | None = None
    created: str = ""


@dataclass(frozen=True)
class TableCalibration:
    """A camera's view of one table: pixels <-> table millimetres, and which zone a point is in."""

    table: str
    layout: str
    image_size: tuple[int, int]
    homography: NDArray[np.float64]  # image -> table
    outline: Polygon
    zones: dict[str, Polygon]
    info: CalibrationInfo = field(default_factory=CalibrationInfo)
    source: str = field(default="<memory>", compare=False)
    lens: Lens | None = field(default=None, compare=False)  # None: a pinhole camera
    # the frame the calibration was made on (relative to the table file), for the camera-moved check
    reference_image: str | None = field(default=None, compare=False)
    # the rules the table is judged by (the file's ``profile:`` section; without one, today's default)
    profile: PaiGowProfile = field(default=DEFAULT_PROFILE, compare=False)
    # which zone wins where zones overlap, where a delivered pile rests (the file's ``zone_rules:``)
    zone_rules: ZoneRules = field(default=DEFAULT_RULES, compare=False)

    def reference_path(self) -> Path | None:
        if self.reference_image is None:
            return None
        base = Path(self.source).parent if self.source not in ("", "<memory>", "<data>") else Path(".")
        return base / self.reference_image

    @cached_property
    def inverse(self) -> NDArray[np.float64]:
        """table -> image."""
        return hg.normalized(np.asarray(np.linalg.inv(self.homography), dtype=np.float64))

    def image_to_table(self, pixels: NDArray[np.float64]) -> NDArray[np.float64]:
        if self.lens is not None:
            pixels = self.lens.undistort(pixels)
        return hg.apply(self.homography, pixels)

    def table_to_image(self, points_mm: NDArray[np.float64]) -> NDArray[np.float64]:
        ideal = hg.apply(self.inverse, points_mm)
        return ideal if self.lens is None else self.lens.distort(ideal)

    @cached_property
    def ordered_zones(self) -> tuple[tuple[str, Polygon], ...]:
        """The zones (name, polygon) in lookup order: a point is in the first that holds it (by default
        the smallest first, so a hand area wins over the seat wedge holding it; the ``zone_rules`` may
        put another kind first). ``zone_names`` and ``zone_index`` follow this order."""
        return tuple(lookup_order(self.zones.items(), lambda kv: zone_kind(kv[0]), lambda kv: kv[1].area,
                                  self.zone_rules))

    @cached_property
    def zone_names(self) -> tuple[str, ...]:
        return (*(name for name, _ in self.ordered_zones), FELT, OFF_TABLE)

    @cached_property
    def _zone_set(self) -> PolygonSet:
        return PolygonSet([poly for _, poly in self.ordered_zones])

    def zone_index(self, points_mm: NDArray[np.float64]) -> NDArray[np.int64]:
        """For each table point, an index into ``zone_names`` (the containing zone that wins by the
        zone rules: by default the smallest)."""
        p = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        out = np.full(len(p), len(self.ordered_zones), dtype=np.int64)
        on_table = self.outline.contains(p)
        out[~on_table] = len(self.ordered_zones) + 1
        if on_table.any() and self.ordered_zones:
            inside = self._zone_set.contains(p[on_table])  # (points, zones), zones in lookup order
            found = inside.any(axis=1)
            out[on_table] = np.where(found, inside.argmax(axis=1), len(self.ordered_zones))
        return out

    def zones_at(self, points_mm: NDArray[np.float64]) -> list[str]:
        return [self.zone_names[i] for i in self.zone_index(points_mm)]

    def zone_at(self, x_mm: float, y_mm: float) -> str:
        return self.zones_at(np.array([[x_mm, y_mm]]))[0]

    def zones_at_pixels(self, pixels: NDArray[np.float64]) -> list[str]:
        return self.zones_at(self.image_to_table(pixels))

    def zones_outside_image(self) -> list[str]:
        """Required zones whose centre the camera does not see (a hint that the view or H is off)."""
        w, h = self.image_size
        out = []
        for name in REQUIRED_ZONES:
            if name not in self.zones:
                continue
            c = self.table_to_image(np.array([self.zones[name].center]))[0]
            if not (0 <= c[0] < w and 0 <= c[1] < h):
                out.append(name)
        return out

    # -- files ------------------------------------------------------------------------

    def to_data(self) -> dict[str, Any]:
        info = self.info
        lens = {"lens": self.lens.to_data()} if self.lens is not None else {}
        return {
            "version": FORMAT_VERSION,
            "table": self.table,
            "layout": self.layout,
            "image_size": [int(self.image_size[0]), int(self.image_size[1])],
            "homography": [[_num(v, 12) for v in row] for row in self.homography],
            **lens,
            **({"reference_image": self.reference_image} if self.reference_image else {}),
            "outline": [[_num(x, 1), _num(y, 1)] for x, y in self.outline.points],
            "zones": {
                name: [[_num(x, 1), _num(y, 1)] for x, y in poly.points] for name, poly in self.zones.items()
            },
            **({"profile": profile_data(self.profile)} if self.profile != DEFAULT_PROFILE else {}),
            **({"zone_rules": zone_rules_data(self.zone_rules)} if self.zone_rules != DEFAULT_RULES else {}),
            "calibration": {
                "method": info.method,
                "points": info.points,
                "rms_error_mm": None if info.rms_error_mm is None else round(info.rms_error_mm, 3),
                "max_error_mm": None if info.max_error_mm is None else round(info.max_error_mm, 3),
                "created": info.created,
            },
        }

    def save(self, path: str | Path, header: str = "") -> Path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        text = _dump(self.to_data())
        intro = (
            "# table-monitor table file: the camera's homography (image px -> table mm) and the zones.\n"
            "# Check it with `table-monitor check-table FILE --image FRAME --overlay out.png`.\n"
        )
        p.write_text(intro + "".join(f"# {line}\n" for line in header.splitlines() if line) + text, "utf-8")
        return p


def _num(v: float, digits: int) -> float:
    r = round(float(v), digits)
    return 0.0 if r == 0 else r


def _dump(data: dict[str, Any]) -> str:
    # flow style for point lists keeps a 40-zone file readable
    class Dumper(yaml.SafeDumper):
        pass

    def represent_list(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.Node:
        # points ([x, y]) and lists of points on one line; the 3x3 homography one row per line
        flow = all(not isinstance(v, dict | list) or len(v) == 2 for v in value)
        return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flow)

    Dumper.add_representer(list, represent_list)
    return yaml.dump(data, Dumper=Dumper, sort_keys=False, width=110)


def from_layout(
    layout: TableLayout,
    homography: NDArray[np.float64],
    image_size: tuple[int, int],
    table: str = "table-1",
    info: CalibrationInfo | None = None,
    lens: Lens | None = None,
) -> TableCalibration:
    """A calibration whose zones are the geometry layout's, seen through ``homography``."""
    zones = {name: Polygon(tuple(pts)) for name, pts in layout_polygons(layout).items()}
    return TableCalibration(
        table=table,
        layout=layout.name,
        image_size=image_size,
        homography=hg.normalized(homography),
        outline=layout.outline,
        zones=zones,
        info=info or CalibrationInfo(created=datetime.now(UTC).isoformat(timespec="seconds")),
        lens=lens,
        zone_rules=layout.rules,
    )


# -- loading and validation ------------------------------------------------------------------


def load_table(path: str | Path) -> TableCalibration:
    """Load and validate a table file; raise ``CalibrationError`` naming every bad field."""
    p = Path(path)
    source = str(p)
    try:
        text = p.read_text("utf-8")
    except FileNotFoundError:
        raise CalibrationError(source, [Problem("", "file does not exist")]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CalibrationError(source, [Problem("", f"cannot read the file: {exc}")]) from None
    try:
        data = yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise CalibrationError(source, [Problem("", f"not valid YAML{where}: {problem}")]) from None
    return parse_table(data, source)


def parse_table(data: Any, source: str = "<data>") -> TableCalibration:
    problems: list[Problem] = []
    if not isinstance(data, dict):
        top = Problem("", f"must be a mapping at the top, got {type(data).__name__}")
        raise CalibrationError(source, [top])
    known = KNOWN_FIELDS
    for key in data:
        if key not in known:
            problems.append(Problem(str(key), f"unknown field (known: {', '.join(sorted(known))})"))
    version = data.get("version")
    if version != FORMAT_VERSION:
        problems.append(Problem("version", f"must be {FORMAT_VERSION}, got {version!r}"))
    table = data.get("table", "table-1")
    if not isinstance(table, str) or not table.strip():
        problems.append(Problem("table", f"must be a non-empty string, got {table!r}"))
    layout = data.get("layout", "")
    size = _image_size(data.get("image_size"), problems)
    lens = _lens(data.get("lens"), size, problems)
    h = _homography(data.get("homography"), size, lens, problems)
    outline = _polygon("outline", data.get("outline"), problems)
    zones: dict[str, Polygon] = {}
    raw_zones = data.get("zones")
    if not isinstance(raw_zones, dict):
        got = _type(raw_zones)
        problems.append(Problem("zones", f"must be a mapping of zone name to polygon, got {got}"))
    else:
        for name, pts in raw_zones.items():
            fname = f"zones.{name}"
            if not isinstance(name, str) or zone_kind(name) is None:
                valid = ", ".join((*REQUIRED_ZONES[:4], "...", *OPTIONAL_ZONES[-3:]))
                problems.append(Problem(fname, f"unknown zone name (zone names look like {valid})"))
                continue
            poly = _polygon(fname, pts, problems)
            if poly is None:
                continue
            if outline is not None:
                off = distance_outside(poly.points, outline.points)
                if off > OUTLINE_TOLERANCE_MM:
                    why = f"falls off the table: a vertex lies {off:.0f} mm outside the outline"
                    problems.append(Problem(fname, why))
            zones[name] = poly
        missing = [z for z in REQUIRED_ZONES if z not in raw_zones]
        if missing:
            problems.append(Problem("zones", f"missing required zone(s): {', '.join(missing)}"))
    info = _info(data.get("calibration"), problems)
    reference = data.get("reference_image")
    if reference is not None and (not isinstance(reference, str) or not reference.strip()):
        problems.append(Problem("reference_image", f"must be a file name, got {reference!r}"))
        reference = None
    profile, profile_problems = parse_profile(data.get("profile"))
    problems += [Problem(f"profile.{p.field}" if p.field else "profile", p.message) for p in profile_problems]
    zone_rules, rule_problems = parse_zone_rules(data.get("zone_rules"), "zone_rules")
    problems += rule_problems
    if problems or h is None or outline is None or size is None:
        raise CalibrationError(source, problems or [Problem("", "incomplete table file")])
    return TableCalibration(
        table=str(table), layout=str(layout), image_size=size, homography=h, outline=outline, zones=zones,
        info=info, source=source, lens=lens, reference_image=reference, profile=profile or DEFAULT_PROFILE,
        zone_rules=zone_rules or DEFAULT_RULES,
    )


def _type(v: Any) -> str:
    return "nothing" if v is None else type(v).__name__


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _image_size(v: Any, problems: list[Problem]) -> tuple[int, int] | None:
    if (
        not isinstance(v, list)
        or len(v) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in v)
    ):
        why = f"must be [width, height] in pixels (positive integers), got {v!r}"
        problems.append(Problem("image_size", why))
        return None
    return (v[0], v[1])


def _lens(v: Any, size: tuple[int, int] | None, problems: list[Problem]) -> Lens | None:
    if v is None:
        return None
    if not isinstance(v, dict) or set(v) != {"camera_matrix", "distortion"}:
        problems.append(Problem("lens", "must be a mapping with exactly camera_matrix and distortion"))
        return None
    try:
        lens = Lens.from_values(v["camera_matrix"], v["distortion"])
    except (LensError, ValueError, TypeError) as exc:
        problems.append(Problem("lens", str(exc)))
        return None
    if size is not None:
        why = lens.check_image(*size)
        if why:
            problems.append(Problem("lens.distortion", why))
            return None
    return lens


def _homography(
    v: Any, size: tuple[int, int] | None, lens: Lens | None, problems: list[Problem]
) -> NDArray[np.float64] | None:
    if not isinstance(v, list) or len(v) != 3 or not all(isinstance(r, list) and len(r) == 3 for r in v):
        problems.append(Problem("homography", f"must be a 3x3 list of numbers, got {_type(v)} {str(v)[:60]}"))
        return None
    bad = [f"[{i}][{j}]" for i, row in enumerate(v) for j, x in enumerate(row) if not _is_num(x)]
    if bad:
        problems.append(Problem("homography", f"entries {', '.join(bad)} are not finite numbers"))
        return None
    h = np.asarray(v, dtype=np.float64)
    ratio = hg.singularity(h)
    if ratio < MIN_SINGULARITY:
        why = f"is singular (condition ratio {ratio:.1e}): it flattens the image onto a line"
        problems.append(Problem("homography", why))
        return None
    if size is not None:
        w, hh = size
        corners = np.array([[0, 0], [w, 0], [w, hh], [0, hh]], dtype=np.float64)
        horizon = hg.horizon_problem(h, w, hh, corners if lens is None else lens.undistort(corners))
        if horizon:
            problems.append(Problem("homography", horizon))
            return None
    return hg.normalized(h)


def _polygon(fname: str, v: Any, problems: list[Problem]) -> Polygon | None:
    if not isinstance(v, list) or len(v) < 3:
        count = len(v) if isinstance(v, list) else _type(v)
        problems.append(Problem(fname, f"must be a list of at least 3 [x, y] points in mm, got {count}"))
        return None
    for i, pt in enumerate(v):
        if not isinstance(pt, list) or len(pt) != 2 or not all(_is_num(c) for c in pt):
            problems.append(Problem(f"{fname}[{i}]", f"must be [x, y] in mm (two numbers), got {pt!r}"))
            return None
    pts = [(float(x), float(y)) for x, y in v]
    crossing = self_intersection(pts)
    if crossing is not None:
        i, j = crossing
        problems.append(Problem(fname, f"polygon crosses itself (edges {i} and {j} meet)"))
        return None
    if abs(signed_area(pts)) < 1.0:
        problems.append(Problem(fname, "polygon has no area"))
        return None
    return Polygon(tuple(pts))


def _info(v: Any, problems: list[Problem]) -> CalibrationInfo:
    if v is None:
        return CalibrationInfo()
    if not isinstance(v, dict):
        problems.append(Problem("calibration", f"must be a mapping, got {_type(v)}"))
        return CalibrationInfo()
    for key in ("rms_error_mm", "max_error_mm"):
        if v.get(key) is not None and not _is_num(v.get(key)):
            problems.append(Problem(f"calibration.{key}", f"must be a number, got {v.get(key)!r}"))
            return CalibrationInfo()
    points = v.get("points", 0)
    if not isinstance(points, int) or isinstance(points, bool) or points < 0:
        problems.append(Problem("calibration.points", f"must be a non-negative integer, got {points!r}"))
        points = 0
    return CalibrationInfo(
        method=str(v.get("method", "unknown")),
        points=points,
        rms_error_mm=v.get("rms_error_mm"),
        max_error_mm=v.get("max_error_mm"),
        created=str(v.get("created", "")),
    )
