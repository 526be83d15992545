"""A round's table: its layout, the renderer's camera over it, and the table file the chain reads.

The default layout is seen by ``default_camera()`` and read through ``calibration/default-table.yaml``.
Any other layout is seen by an overhead camera framing its outline the same way (:func:`camera_for`),
and read through the table file :func:`table_for` makes for that camera (``table-monitor
render-table-file``). A table file given with a layout must be that layout seen by that camera: a
file made for another layout or another camera would put every object in the wrong zone, so
:func:`check_match` refuses it and says what differs, in which file.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from monitor.calibration import CalibrationError, CalibrationInfo, TableCalibration, from_layout, load_table
from monitor.calibration import homography as hg
from monitor.calibration.zones import layout_polygons
from monitor.geometry import LayoutError, TableLayout, default_layout, load_layout
from monitor.render.camera import Camera, default_camera
from monitor.rules.profile import PaiGowProfile

DEFAULT_SIZE = (1920, 1080)
# the default layout's table file as the package ships it (calibration/default-table.yaml's copy)
DEFAULT_TABLE = Path(__file__).resolve().parents[2] / "calibration" / "default-table.yaml"
ZONE_TOLERANCE_MM = 1.0  # a table file rounds vertices to 0.1 mm
CAMERA_TOLERANCE_MM = 2.0  # where the table file's and the camera's image corners may land apart
MARGIN = 1.125  # the default camera sees 2700 mm across a 2400-mm table


class RoomError(ValueError):
    """A layout or table file a round cannot be played or judged on; names the file and the key."""


@dataclass(frozen=True)
class Room:
    """A table to play rounds on: the layout the renderer draws and the table file the chain reads."""

    layout: TableLayout
    table: TableCalibration

    @property
    def profile(self) -> PaiGowProfile:
        return self.table.profile


def camera_for(layout: TableLayout, size: tuple[int, int] = DEFAULT_SIZE) -> Camera:
    """The renderer's camera over ``layout``: the default camera for the default layout, else one
    straight above the outline's middle seeing it whole with the default's margin and lens."""
    if layout == default_layout():
        return default_camera(*size)
    pts = layout.outline.outline(8)
    (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
    w, h = size
    view = max(MARGIN * float(x1 - x0), MARGIN * float(y1 - y0) * w / h)
    # the default's lens (2700 mm seen from 2600 mm): a smaller table is filmed from lower down
    height = 2600.0 * view / 2700.0
    return Camera.overhead(size, view_width_mm=view, height_mm=height,
                           center=(float(x0 + x1) / 2, float(y0 + y1) / 2))


def table_for(layout: TableLayout, size: tuple[int, int] = DEFAULT_SIZE, table_id: str = "table-1",
              profile: PaiGowProfile | None = None) -> TableCalibration:
    """The table file of ``layout`` seen by :func:`camera_for` (exact: from the camera model)."""
    info = CalibrationInfo(method="camera-model", points=0, created=f"renderer camera_for({layout.name})")
    cal = from_layout(layout, _image_to_table(camera_for(layout, size)), size, table=table_id, info=info)
    return cal if profile is None else replace(cal, profile=profile)


def _image_to_table(cam: Camera) -> np.ndarray:
    """The homography from ``cam``'s pixels to the felt in table mm."""
    return np.asarray(np.linalg.inv(cam.plane_homography()), np.float64)


def _corner_error(table: TableCalibration, cam: Camera) -> float:
    w, h = table.image_size
    corners = np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h], [w / 2, h / 2]])
    theirs = table.image_to_table(corners)
    ours = hg.apply(_image_to_table(cam), corners)
    return float(np.max(np.linalg.norm(theirs - ours, axis=1)))


def check_match(layout: TableLayout, table: TableCalibration) -> None:
    """``table`` is ``layout`` seen by the renderer's camera, or :class:`RoomError` says what differs."""
    src, lsrc = table.source, layout.source or layout.name
    if table.layout != layout.name:
        raise RoomError(f"table file {src}: layout: {table.layout!r} is not the layout {layout.name!r} "
                        f"({lsrc}): give the table file made for that layout "
                        "(table-monitor render-table-file)")
    want = layout_polygons(layout)
    missing = sorted(set(want) - set(table.zones))
    extra = sorted(set(table.zones) - set(want))
    if missing or extra:
        parts = ([f"lacks {', '.join(missing)}"] if missing else []) + (
            [f"has {', '.join(extra)}, which the layout has not"] if extra else [])
        raise RoomError(f"table file {src}: zones: {'; '.join(parts)} (layout {lsrc})")
    for name, pts in want.items():
        theirs = np.asarray(table.zones[name].points, np.float64)
        ours = np.asarray(pts, np.float64)
        off = np.inf if theirs.shape != ours.shape else float(np.max(np.abs(theirs - ours)))
        if off > ZONE_TOLERANCE_MM:
            shown = "has another shape" if off == np.inf else f"lies up to {off:.0f} mm from"
            raise RoomError(f"table file {src}: zones.{name} {shown} the layout's ({lsrc}): "
                            "the file was made from another version of the layout")
    err = _corner_error(table, camera_for(layout, table.image_size))
    if err > CAMERA_TOLERANCE_MM:
        raise RoomError(f"table file {src}: homography: its camera is not the renderer's camera over layout "
                        f"{layout.name!r} (the image lands up to {err:.0f} mm apart): make the file with "
                        "table-monitor render-table-file")


def _resolve(path: str, base: Path | None) -> Path:
    p = Path(path)
    if not p.is_absolute() and base is not None and (base / p).exists():
        return base / p
    return p


def load_room(layout: str | None, table: str | None, where: str = "<script>",
              base: Path | None = None) -> Room:
    """The room of a script's (or the command line's) ``layout`` and ``table``: either may be left out
    (the default layout; the table file made for the layout). Errors name ``where`` and the key."""
    if layout is None:
        lay = default_layout()
    else:
        try:
            lay = load_layout(_resolve(layout, base))
        except LayoutError as e:
            raise RoomError(f"{where}: layout: {e}") from None
    if table is None:
        if layout is None:
            return Room(lay, load_table(DEFAULT_TABLE))
        return Room(lay, table_for(lay))
    try:
        cal = load_table(_resolve(table, base))
    except CalibrationError as e:
        raise RoomError(f"{where}: table: {e}") from None
    try:
        check_match(lay, cal)
    except RoomError as e:
        hint = "" if layout is not None else " (no layout given: the default layout was assumed)"
        raise RoomError(f"{where}: {e}{hint}") from None
    return Room(lay, cal)


def room_of_scripts(scripts: list[tuple[Any, str]], layout: str | None = None,
                    table: str | None = None) -> Room:
    """The one room several scripts (``(Script, source)``) play in: the command line's ``layout`` and
    ``table`` where given, else the scripts' own fields, which must then agree."""
    rooms: dict[tuple[str | None, str | None], tuple[str, Path]] = {}
    for script, source in scripts:
        key = (layout or _abs(script.layout, source), table or _abs(script.table, source))
        rooms.setdefault(key, (source, Path(source).parent))
    if len(rooms) > 1:
        names = "; ".join(f"{src}: layout {k[0] or 'default'}, table {k[1] or 'made for it'}"
                          for k, (src, _) in rooms.items())
        raise RoomError(f"scripts of one recording must share a table: {names}")
    (lay, tab), (source, _) = next(iter(rooms.items()))
    return load_room(lay, tab, source)


def _abs(path: str | None, source: str) -> str | None:
    """A script's path field, read from the script's folder when it is there."""
    if path is None:
        return None
    return str(_resolve(path, Path(source).parent))
