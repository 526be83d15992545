"""Table geometry in millimetres: the layout (seats, hand areas, pile slots, stub, tray, banker's
place, dice area), flat shapes and zone lookup. Calibration, table state and the renderer build on it."""

from monitor.geometry.layout import (
    FELT,
    OFF_TABLE,
    LayoutError,
    Seat,
    TableLayout,
    Zone,
    default_layout,
    load_layout,
    parse_layout,
)
from monitor.geometry.shapes import Circle, Polygon, Rect, Shape

__all__ = [
    "FELT",
    "OFF_TABLE",
    "Circle",
    "LayoutError",
    "Polygon",
    "Rect",
    "Seat",
    "Shape",
    "TableLayout",
    "Zone",
    "default_layout",
    "load_layout",
    "parse_layout",
]
