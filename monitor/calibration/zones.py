"""Zone names in a table file, and turning the geometry layout's shapes into zone polygons.

Names are the geometry layout's (``monitor.geometry.layout``): ``seat{n}.bet``,
``seat{n}.front``, ``seat{n}.back``, ``seat{n}``, ``pile{n}``, ``stub``, ``center``,
``banker``, ``tray``, ``dice``. A table may lack the optional ones (``OPTIONAL_ZONES``); the zone
rules (``monitor.geometry.zone_rules``) say which zone wins where zones overlap and which zones a
delivered pile rests on (:func:`delivery_seat`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np

from monitor.geometry import TableLayout
from monitor.geometry.layout import OPTIONAL_PARTS
from monitor.geometry.zone_rules import DEFAULT_RULES, ZoneRules

SEATS = range(1, 8)
PILES = range(1, 8)

REQUIRED_ZONES: tuple[str, ...] = (
    *(f"seat{n}.{part}" for n in SEATS for part in ("bet", "front", "back")),
    *(f"pile{n}" for n in PILES),
    "stub",
)
# the seats' own felt, and the zones a table may not have (docs/layout.md: "not on this table")
OPTIONAL_ZONES: tuple[str, ...] = (*(f"seat{n}" for n in SEATS), *OPTIONAL_PARTS)

_NAME = re.compile(r"^(seat([1-7])(\.(bet|front|back))?|pile([1-7])|stub|center|banker|tray|dice)$")


def zone_kind(name: str) -> str | None:
    """The zone's kind ('bet', 'front', 'back', 'seat', 'pile', 'stub', ...) or None if not a zone name.

    >>> zone_kind("seat3.front"), zone_kind("pile7"), zone_kind("seat2"), zone_kind("seat9.bet")
    ('front', 'pile', 'seat', None)
    """
    m = _NAME.match(name)
    if m is None:
        return None
    if m.group(2):
        return m.group(4) or "seat"
    if m.group(5):
        return "pile"
    return name


def zone_number(name: str) -> int | None:
    """The seat or pile number in a zone name, if it has one."""
    m = re.match(r"^(?:seat|pile)([1-7])", name)
    return int(m.group(1)) if m else None


def delivery_seat(name: str, rules: ZoneRules = DEFAULT_RULES) -> int | None:
    """The seat a pile resting in zone ``name`` is delivered to, by the rules' ``delivered_pile``; None
    for a zone no delivered pile rests on.

    >>> delivery_seat("seat3"), delivery_seat("seat3.back"), delivery_seat("pile3")
    (3, None, None)
    >>> from monitor.geometry.zone_rules import DeliveredPile
    >>> delivery_seat("seat3.back", ZoneRules(delivered_pile=DeliveredPile.SEAT_OR_HANDS))
    3
    """
    return zone_number(name) if zone_kind(name) in rules.delivery_kinds else None


def absent_zones(names: Iterable[str]) -> tuple[str, ...]:
    """The optional zones (``center``, ``banker``, ``tray``, ``dice``) missing from ``names``: not on
    this table."""
    have = set(names)
    return tuple(z for z in OPTIONAL_PARTS if z not in have)


def layout_polygons(layout: TableLayout, circle_vertices: int = 32) -> dict[str, list[tuple[float, float]]]:
    """Every zone of a geometry layout as a polygon in mm (circles become regular polygons)."""
    out: dict[str, list[tuple[float, float]]] = {}
    for zone in sorted(layout.zones, key=lambda z: _order(z.name)):
        outline = np.asarray(zone.shape.outline(circle_vertices), dtype=np.float64)
        out[zone.name] = [(round(float(x), 1), round(float(y), 1)) for x, y in outline]
    return out


def _order(name: str) -> tuple[int, str]:
    """A reading order for files: seats by number, then the centre, then the dealer's side."""
    m = re.match(r"^seat(\d)", name)
    if m:
        return (int(m.group(1)), name)
    return (10, name)
