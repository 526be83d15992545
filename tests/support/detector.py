"""A stand-in for the detector in pipeline tests: the boxes it was given, every one passing."""

from __future__ import annotations

from typing import Any

import numpy as np

from monitor.perception.detector import Box


class FixedBoxes:
    """Reports the same boxes for any frame (a detector that saw them), all over its thresholds."""

    def __init__(self, *boxes: Box) -> None:
        self.boxes = list(boxes)

    def passes(self, box: Box) -> bool:
        return True

    def partition(self, boxes: list[Box]) -> tuple[list[Box], list[Box]]:
        return list(boxes), []

    def detect(self, frame: np.ndarray, region: Any = None, floor: float | None = None) -> list[Box]:
        return list(self.boxes)
