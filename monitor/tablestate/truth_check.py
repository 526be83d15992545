"""How well a calibration puts objects in zones, measured on a rendered recording's ground truth.

The renderer writes, per frame, every object's image polygon and the zone it truly lies in
(``truth.jsonl``, see docs/renderer.md). Placing those polygons through a table file and
comparing zones checks the table file (and the placement code) end to end, with no model.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from monitor.calibration import TableCalibration
from monitor.perception.detections import Detection, Detections, corners_from_array
from monitor.tablestate.placement import place

# the renderer's object kinds -> detection kinds (zone placement does not depend on the face)
KINDS = {"card": "card_face_down", "chips": "chip", "die": "dice"}


@dataclass
class ZoneAgreement:
    total: Counter[str] = field(default_factory=Counter)
    agree: Counter[str] = field(default_factory=Counter)
    confusions: Counter[tuple[str, str, str]] = field(default_factory=Counter)  # (kind, truth, placed)

    def share(self, kind: str | None = None) -> float:
        total = sum(self.total.values()) if kind is None else self.total[kind]
        agree = sum(self.agree.values()) if kind is None else self.agree[kind]
        return agree / total if total else float("nan")


def zone_agreement(truth: str | Path, calibration: TableCalibration, size: tuple[int, int] | None = None
                   ) -> ZoneAgreement:
    """Compare every card, chip and die of ``truth`` with the zone the calibration places it in."""
    import cv2

    width, height = size or calibration.image_size
    result = ZoneAgreement()
    with Path(truth).open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{truth} line {number}: not JSON ({exc.msg})") from None
            objects, dets = [], []
            for obj in record.get("objects", []):
                kind = KINDS.get(obj.get("kind", ""))
                if kind is None or not obj.get("zone"):
                    continue
                poly = np.asarray(obj["polygon"], np.float32)
                if len(poly) != 4:  # round things: their min-area rectangle, as perception reports them
                    poly = np.asarray(cv2.boxPoints(cv2.minAreaRect(poly)), np.float32)
                objects.append(obj)
                dets.append(Detection(kind, 1.0, corners_from_array(poly)))
            # one frame at a time: placement is vectorised over a frame's detections
            placed_all = place(Detections(width, height, tuple(dets)), calibration)
            for obj, placed in zip(objects, placed_all, strict=True):
                result.total[obj["kind"]] += 1
                if placed.zone == obj["zone"]:
                    result.agree[obj["kind"]] += 1
                else:
                    result.confusions[(obj["kind"], obj["zone"], placed.zone)] += 1
    return result
