"""Writing a table layout back to its YAML form: what ``table-monitor layout make`` saves, and what
:func:`monitor.geometry.load_layout` reads back as the same layout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from monitor.geometry.layout import TableLayout
from monitor.geometry.shapes import Circle, Polygon, Rect, Shape
from monitor.geometry.zone_rules import DEFAULT_RULES, zone_rules_data

HEADER = (
    "# table-monitor table layout: the zones of one table in millimetres (docs/layout.md).\n"
    "# Check it with `table-monitor layout explain FILE` and `table-monitor layout draw FILE`.\n"
)


def _num(v: float) -> float | int:
    r = round(float(v), 1)
    return int(r) if r == int(r) else r


def _pt(p: tuple[float, float]) -> list[float | int]:
    return [_num(p[0]), _num(p[1])]


def shape_data(shape: Shape) -> dict[str, Any]:
    """One shape as the layout file writes it (``{rect: ...}``, ``{circle: ...}``, ``{polygon: ...}``)."""
    if isinstance(shape, Rect):
        return {"rect": {"center": _pt((shape.cx, shape.cy)), "size": [_num(shape.w), _num(shape.h)],
                         "angle_deg": _num(shape.angle_deg)}}
    if isinstance(shape, Circle):
        return {"circle": {"center": _pt((shape.cx, shape.cy)), "radius": _num(shape.r)}}
    if isinstance(shape, Polygon):
        return {"polygon": [_pt(p) for p in shape.points]}
    raise TypeError(f"cannot write a {type(shape).__name__} into a layout file")


def layout_data(layout: TableLayout) -> dict[str, Any]:
    """The layout as a mapping in the file's form; optional zones the table lacks are left out."""
    dealer: dict[str, Any] = {"position": _pt(layout.dealer_position)}
    if layout.tray is not None:
        dealer["tray"] = shape_data(layout.tray)
    center: dict[str, Any] = {}
    if layout.center_area is not None:
        center["area"] = shape_data(layout.center_area)
    center["piles"] = [{"number": i, "shape": shape_data(p)} for i, p in enumerate(layout.piles, start=1)]
    center["stub"] = shape_data(layout.stub)
    out: dict[str, Any] = {
        "name": layout.name,
        "description": layout.description,
        "outline": [_pt(p) for p in layout.outline.points],
        "dealer": dealer,
    }
    if layout.banker_place is not None:
        out["banker"] = {"place": shape_data(layout.banker_place)}
    if layout.dice is not None:
        out["dice"] = shape_data(layout.dice)
    out["center"] = center
    out["seats"] = [
        {"number": s.number, "position": _pt(s.position), "betting_spot": shape_data(s.betting_spot),
         "back_hand": shape_data(s.back_hand), "front_hand": shape_data(s.front_hand),
         "area": shape_data(s.area)}
        for s in layout.seats
    ]
    if layout.rules != DEFAULT_RULES:
        out["rules"] = zone_rules_data(layout.rules)
    return out


def dump_layout(data: dict[str, Any]) -> str:
    """YAML text of a layout mapping: points and shapes on one line each, so a file stays readable."""

    class Dumper(yaml.SafeDumper):
        pass

    def represent_list(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.Node:
        flow = all(not isinstance(v, dict) for v in value)
        return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flow)

    def represent_dict(dumper: yaml.SafeDumper, value: dict[str, Any]) -> yaml.Node:
        # a shape's own mapping ({rect: {...}}, {center: ..., size: ...}) on one line
        keys = set(value)
        flow = keys <= {"center", "size", "angle_deg", "radius"} or keys == {"number", "shape"} or (
            len(value) == 1 and next(iter(value)) in ("rect", "circle"))
        return dumper.represent_mapping("tag:yaml.org,2002:map", value, flow_style=flow)

    Dumper.add_representer(list, represent_list)
    Dumper.add_representer(dict, represent_dict)
    return yaml.dump(data, Dumper=Dumper, sort_keys=False, width=110)


def save_layout(layout: TableLayout, path: str | Path, header: str = "") -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    intro = HEADER + "".join(f"# {line}\n" for line in header.splitlines() if line)
    p.write_text(intro + dump_layout(layout_data(layout)), "utf-8")
    return p
