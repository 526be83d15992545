"""Calibration: a camera's homography into table millimetres and the table's named zones.

``load_table(path)`` reads and validates a table file; ``TableCalibration`` maps pixels to
table millimetres and points to zones. ``table-monitor calibrate`` builds one from ArUco
markers or clicked points (``fitting.py``) and draws an overlay to check it (``overlay.py``).
"""

from monitor.calibration.table_file import (
    CalibrationError,
    CalibrationInfo,
    Problem,
    TableCalibration,
    from_layout,
    load_table,
    parse_table,
)

__all__ = [
    "CalibrationError",
    "CalibrationInfo",
    "Problem",
    "TableCalibration",
    "from_layout",
    "load_table",
    "parse_table",
]
