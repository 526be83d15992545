"""Calibrating a camera: point pairs (clicked, or from ArUco markers) -> a checked table calibration."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from monitor.calibration import homography as hg
from monitor.calibration.lens import Lens
from monitor.calibration.markers import FoundMarker, MarkerSet
from monitor.calibration.table_file import CalibrationInfo, TableCalibration, from_layout
from monitor.geometry import TableLayout

# a quarter of a card's width: beyond this a zone assignment near an edge would be wrong
DEFAULT_MAX_ERROR_MM = 15.0


class FitError(ValueError):
    """Point pairs that do not make a trustworthy calibration; the message names the bad pair."""


@dataclass(frozen=True, slots=True)
class PointPair:
    pixel: tuple[float, float]
    table_mm: tuple[float, float]
    label: str


@dataclass
class CalibrationResult:
    calibration: TableCalibration
    pairs: list[PointPair]
    fit: hg.Fit
    warnings: list[str] = field(default_factory=list)

    def report(self) -> str:
        lines = [
            f"{self.calibration.info.method}: {len(self.pairs)} point pairs, "
            f"RMS {self.fit.rms_mm:.2f} mm, worst {self.fit.max_mm:.2f} mm"
        ]
        for pair, err, ok in zip(self.pairs, self.fit.errors_mm, self.fit.inliers, strict=True):
            mark = "" if ok else "  (outlier, ignored)"
            lines.append(
                f"  {pair.label:<28} px ({pair.pixel[0]:7.1f}, {pair.pixel[1]:7.1f}) -> "
                f"({pair.table_mm[0]:7.1f}, {pair.table_mm[1]:7.1f}) mm  error {err:6.2f} mm{mark}"
            )
        lines += [f"warning: {w}" for w in self.warnings]
        return "\n".join(lines)


_NUM = r"-?\d+(?:\.\d+)?"


def parse_point(text: str, layout: TableLayout) -> PointPair:
    """``"U,V=ZONE"`` (the centre of a layout zone) or ``"U,V=X,Y"`` (table millimetres).

    >>> from monitor.geometry import default_layout
    >>> parse_point("812,540=seat4.bet", default_layout())
    PointPair(pixel=(812.0, 540.0), table_mm=(0.0, 560.0), label='seat4.bet')
    >>> parse_point("10,20=-815,330", default_layout()).table_mm
    (-815.0, 330.0)
    """
    m = re.fullmatch(rf"\s*({_NUM})\s*,\s*({_NUM})\s*=\s*(.+?)\s*", text)
    if m is None:
        raise FitError(f"point {text!r}: expected U,V=ZONE or U,V=X,Y (pixels = table mm or a zone name)")
    pixel = (float(m.group(1)), float(m.group(2)))
    target = m.group(3)
    xy = re.fullmatch(rf"({_NUM})\s*,\s*({_NUM})", target)
    if xy:
        return PointPair(pixel, (float(xy.group(1)), float(xy.group(2))), f"({xy.group(1)}, {xy.group(2)})")
    return PointPair(pixel, _zone_center(layout, target, f"point {text!r}"), target)


def _zone_center(layout: TableLayout, name: str, where: str) -> tuple[float, float]:
    try:
        cx, cy = layout.zone(name).shape.center
    except KeyError:
        hint = "e.g. seat1.bet, pile4, banker"
        raise FitError(f"{where}: no zone {name!r} in layout {layout.name} ({hint})") from None
    return (float(cx), float(cy))


def load_points(path: str | Path, layout: TableLayout) -> list[PointPair]:
    """A points file: ``points: [{pixel: [u, v], zone: seat1.bet} | {pixel: [u, v], table: [x, y]}, ...]``."""
    p = Path(path)
    try:
        data: Any = yaml.safe_load(p.read_text("utf-8"))
    except OSError as exc:
        raise FitError(f"points file {p}: cannot read it: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise FitError(f"points file {p}: not valid YAML: {exc}") from None
    items = data.get("points") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise FitError(f"points file {p}: expected a top-level 'points:' list")
    pairs = []
    for i, item in enumerate(items):
        where = f"points file {p}: points[{i}]"
        if not isinstance(item, dict) or not _pair_of_numbers(item.get("pixel")):
            raise FitError(f"{where}: needs pixel: [u, v] (two numbers), got {item!r}")
        pixel = (float(item["pixel"][0]), float(item["pixel"][1]))
        if "zone" in item:
            pairs.append(PointPair(pixel, _zone_center(layout, str(item["zone"]), where), str(item["zone"])))
        elif _pair_of_numbers(item.get("table")):
            mm = (float(item["table"][0]), float(item["table"][1]))
            pairs.append(PointPair(pixel, mm, f"({mm[0]:g}, {mm[1]:g})"))
        else:
            raise FitError(f"{where}: needs zone: NAME or table: [x, y] in mm")
    return pairs


def _pair_of_numbers(v: Any) -> bool:
    return (
        isinstance(v, list)
        and len(v) == 2
        and all(isinstance(c, int | float) and not isinstance(c, bool) for c in v)
    )


def marker_pairs(found: list[FoundMarker], markers: MarkerSet) -> tuple[list[PointPair], list[int]]:
    """Pairs for the markers whose place is known; also the ids seen that are not in the set."""
    pairs, unknown = [], []
    for m in found:
        place = markers.place(m.marker_id)
        if place is None:
            unknown.append(m.marker_id)
            continue
        pairs.append(PointPair(m.center_px, place.center_mm, f"marker {m.marker_id} ({place.zone})"))
    return pairs, unknown


def calibrate(
    pairs: list[PointPair],
    layout: TableLayout,
    image_size: tuple[int, int],
    method: str,
    table: str = "table-1",
    max_error_mm: float = DEFAULT_MAX_ERROR_MM,
    lens: Lens | None = None,
) -> CalibrationResult:
    """Fit and check: every pair must agree with the fit within ``max_error_mm`` (outliers are named).

    With a ``lens``, pixels are undistorted before the fit and the table file keeps the lens.
    """
    if len(pairs) < 4:
        have = ", ".join(p.label for p in pairs) or "none"
        raise FitError(f"{method}: need at least 4 known points, found {len(pairs)} ({have})")
    try:
        pixels = np.array([p.pixel for p in pairs], dtype=np.float64)
        fit = hg.fit(
            pixels if lens is None else lens.undistort(pixels),
            np.array([p.table_mm for p in pairs]),
            ransac_mm=max_error_mm if len(pairs) >= 6 else None,
        )
    except hg.HomographyError as exc:
        raise FitError(f"{method}: {exc}") from None
    w, h = image_size
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
    horizon = hg.horizon_problem(fit.homography, w, h, corners if lens is None else lens.undistort(corners))
    if horizon:
        raise FitError(f"{method}: {horizon}; the points are probably mismatched")
    warnings = []
    worst = int(np.argmax(np.where(fit.inliers, fit.errors_mm, -1)))
    if fit.errors_mm[worst] > max_error_mm:
        bad = pairs[worst]
        raise FitError(
            f"{method}: {bad.label} at pixel ({bad.pixel[0]:.0f}, {bad.pixel[1]:.0f}) is off by "
            f"{fit.errors_mm[worst]:.0f} mm from the fit of the others (limit {max_error_mm:g} mm): "
            "misplaced marker or misclicked point?"
        )
    if int(fit.inliers.sum()) < 4:
        raise FitError(f"{method}: fewer than 4 points agree with each other within {max_error_mm:g} mm")
    for pair, ok, err in zip(pairs, fit.inliers, fit.errors_mm, strict=True):
        if not ok:
            warnings.append(f"{pair.label} ignored: {err:.0f} mm from the fit (misplaced or misclicked?)")
    if len(pairs) == 4:
        warnings.append("exactly 4 points fit any homography: add more points so mistakes can be caught")
    info = CalibrationInfo(
        method=method,
        points=int(fit.inliers.sum()),
        rms_error_mm=fit.rms_mm,
        max_error_mm=fit.max_mm,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    calibration = from_layout(layout, fit.homography, image_size, table=table, info=info, lens=lens)
    outside = calibration.zones_outside_image()
    if outside:
        warnings.append(f"the camera does not see these zones: {', '.join(outside)}")
    return CalibrationResult(calibration, pairs, fit, warnings)
