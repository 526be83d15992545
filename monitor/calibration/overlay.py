"""Drawing a calibration on a camera frame, so a person can see at a glance whether it fits."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from monitor.calibration.fitting import PointPair
from monitor.calibration.table_file import TableCalibration
from monitor.calibration.zones import zone_kind

COLORS: dict[str, tuple[int, int, int]] = {  # BGR
    "bet": (0, 215, 255),
    "front": (255, 160, 0),
    "back": (255, 80, 80),
    "seat": (140, 140, 140),
    "pile": (0, 255, 0),
    "stub": (0, 140, 255),
    "center": (120, 200, 120),
    "banker": (255, 0, 255),
    "tray": (200, 200, 0),
    "dice": (0, 0, 255),
}


def draw_overlay(
    frame: NDArray[np.uint8],
    calibration: TableCalibration,
    pairs: list[PointPair] | None = None,
    labels: bool = True,
) -> NDArray[np.uint8]:
    """A copy of ``frame`` with the table outline and every zone drawn where the calibration puts them.

    With ``pairs``, each calibration point is drawn as a circle (where it was seen) and a line to
    where the fit puts its table position: long lines are bad points.
    """
    import cv2

    out = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    scale = max(1.0, out.shape[1] / 1280)
    thick = max(1, round(2 * scale))

    def poly(points_mm: NDArray[np.float64]) -> NDArray[np.int32]:
        return np.round(calibration.table_to_image(points_mm)).astype(np.int32).reshape(-1, 1, 2)

    cv2.polylines(out, [poly(calibration.outline.array)], True, (255, 255, 255), thick, cv2.LINE_AA)
    for name, zone in calibration.zones.items():
        color = COLORS.get(zone_kind(name) or "", (255, 255, 255))
        cv2.polylines(out, [poly(zone.array)], True, color, thick, cv2.LINE_AA)
        if labels and zone_kind(name) != "seat":
            c = calibration.table_to_image(np.array([zone.center]))[0]
            text = name.replace("seat", "s")
            (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.4 * scale, 1)
            org = (round(c[0] - tw / 2), round(c[1] + th / 2))
            font = cv2.FONT_HERSHEY_SIMPLEX
            cv2.putText(out, text, org, font, 0.4 * scale, (0, 0, 0), thick + 1, cv2.LINE_AA)
            cv2.putText(out, text, org, font, 0.4 * scale, color, 1, cv2.LINE_AA)
    for pair in pairs or []:
        seen = np.round(pair.pixel).astype(int)
        fitted = np.round(calibration.table_to_image(np.array([pair.table_mm]))[0]).astype(int)
        cv2.circle(out, (int(seen[0]), int(seen[1])), round(6 * scale), (0, 0, 255), thick, cv2.LINE_AA)
        cv2.line(out, (int(seen[0]), int(seen[1])), (int(fitted[0]), int(fitted[1])), (0, 0, 255), thick)
    info = calibration.info
    if info.rms_error_mm is not None:
        text = f"{calibration.table}: {info.method}, {info.points} points, RMS {info.rms_error_mm:.1f} mm"
        org = (10, round(24 * scale))
        white = (255, 255, 255)
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale, white, thick, cv2.LINE_AA)
    return np.asarray(out, dtype=np.uint8)
