"""The overhead detector at runtime: frame -> oriented (or axis-aligned) boxes of cards, piles, chips, dice.

It sees a shrunk frame (the model's input size); identity is read later from the full-resolution frame.
Beside ``detector.onnx`` a JSON file names the classes, the task (``obb`` or ``detect``) and imgsz.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from monitor.perception.backends import DEFAULT_BACKEND, Backend, load_backend
from monitor.perception.errors import ModelFileError
from monitor.perception.labels import DETECTOR_CLASSES
from monitor.perception.yolo_post import STRIDE, crop_input, decode, letterbox

Region = tuple[int, int, int, int]  # x0, y0, x1, y1 in frame pixels


@dataclass(frozen=True, slots=True)
class Box:
    kind: str
    confidence: float
    corners: npt.NDArray[np.float64]  # (4, 2) full-frame pixels


def input_shape_for(width: int, height: int, imgsz: int, stride: int = STRIDE) -> tuple[int, int]:
    """(h, w) network input: long side ``imgsz``, short side rounded up to the stride (rect inference)."""
    if width >= height:
        short = int(np.ceil(height * imgsz / width / stride) * stride)
        return (min(short, imgsz), imgsz)
    short = int(np.ceil(width * imgsz / height / stride) * stride)
    return (imgsz, min(short, imgsz))

# A card's long side in the 1920 x 1080 table frames the live chain's detector learned (the default
# table's camera shows an 88 mm card 63 px long at the table's centre)
TABLE_CARD_PX = 64.0


class Detector:
    def __init__(self, model_path: str | Path, backend: str = DEFAULT_BACKEND, threads: int = 2,
                 conf: float = 0.35, iou: float = 0.6) -> None:
        self.path = Path(model_path)
        meta_path = self.path.with_suffix(".json")
        if not meta_path.exists():
            raise ModelFileError(f"detector metadata not found: {meta_path} (written beside the .onnx)")
        try:
            meta: dict[str, Any] = json.loads(meta_path.read_text())
            self.classes: tuple[str, ...] = tuple(meta["classes"])
            self.imgsz = int(meta["imgsz"])
            self.oriented = meta["task"] == "obb"
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ModelFileError(f"detector metadata {meta_path} is malformed: {exc!r}") from exc
        unknown = [c for c in self.classes if c not in DETECTOR_CLASSES]
        if unknown:
            raise ModelFileError(f"detector metadata {meta_path} names unknown classes {unknown}")
        # per-class score thresholds (``class_conf`` in the metadata): a class the detector scores
        # low but the extractor needs often (the dealer's hand) may be kept lower than the rest
        per = meta.get("class_conf", {})
        if not isinstance(per, dict) or any(
            c not in self.classes or not isinstance(v, int | float) or not 0.0 < v < 1.0
            for c, v in per.items()
        ):
            raise ModelFileError(f"detector metadata {meta_path}: class_conf must map its classes to"
                                 f" scores in (0, 1), got {per!r}")
        # the score from which a box may start a track (monitor.tablestate.tracking): calibrated per
        # detector on held-out frames (``calibrate-detector``), since scores differ from model to model
        # (None: the tracker's own, monitor.tablestate.tracking.ACTIVATION_CONFIDENCE)
        track = meta.get("track_conf")
        if track is not None and (not isinstance(track, int | float) or not 0.0 < track < 1.0):
            raise ModelFileError(f"detector metadata {meta_path}: track_conf must be a score in (0, 1),"
                                 f" got {track!r}")
        self.track_conf: float | None = None if track is None else float(track)
        # the cards' long side (px) in the 1920 x 1080 frames it learned from: a table camera's for the
        # live chain's detector; a detector that looks closer (the photo models') says so here
        card_px = meta.get("card_px", TABLE_CARD_PX)
        if not isinstance(card_px, int | float) or not 8.0 <= card_px <= 1080.0:
            raise ModelFileError(f"detector metadata {meta_path}: card_px must be a card's length in"
                                 f" pixels (8-1080), got {card_px!r}")
        self.card_px = float(card_px)
        self.backend: Backend = load_backend(self.path, backend, threads)
        self.conf, self.iou = conf, iou
        self.class_conf = np.array([float(per.get(c, conf)) for c in self.classes])
        self._fixed_shape = self._probe_input_shape(meta)

    def _probe_input_shape(self, meta: dict[str, Any]) -> tuple[int, int] | None:
        """A model exported with a fixed input (``input_hw`` in its metadata) only takes that size."""
        fixed = meta.get("input_hw")
        shape = (int(fixed[0]), int(fixed[1])) if fixed else (self.imgsz, self.imgsz)
        try:
            self.backend.run(np.zeros((1, 3, *shape), dtype=np.float32))
        except Exception as exc:
            raise ModelFileError(
                f"{self.path}: model does not accept a 1x3x{shape[0]}x{shape[1]} image: {exc}"
            ) from exc
        return shape if fixed else None

    @cached_property
    def takes_any_size(self) -> bool:
        """The model takes inputs of other sizes than its full frame (exported with dynamic axes), so a
        region of a frame can be detected alone, at the full frame's scale."""
        try:
            self.backend.run(np.zeros((1, 3, STRIDE, 2 * STRIDE), dtype=np.float32))
        except Exception:  # each runtime raises its own shape error
            return False
        return True

    def _shape(self, w: int, h: int) -> tuple[int, int]:
        return self._fixed_shape or input_shape_for(w, h, self.imgsz)

    def input_scale(self, w: int, h: int) -> float:
        """How much a whole w x h frame is scaled to the network's input."""
        shape = self._shape(w, h)
        return min(shape[0] / h, shape[1] / w)

    def passes(self, box: Box) -> bool:
        """Whether a box is scored at its class's threshold or above (a box under it came from ``floor``)."""
        return bool(box.confidence >= self.class_conf[self.classes.index(box.kind)])

    def partition(self, boxes: list[Box]) -> tuple[list[Box], list[Box]]:
        """(the boxes that pass their class's threshold, those under it), in their order."""
        ok = [self.passes(b) for b in boxes]
        return ([b for b, p in zip(boxes, ok, strict=True) if p],
                [b for b, p in zip(boxes, ok, strict=True) if not p])

    def detect(self, frame: npt.NDArray[np.uint8], region: Region | None = None,
               floor: float | None = None) -> list[Box]:
        """Boxes in ``frame``; with ``region`` (x0, y0, x1, y1 pixels) only in that part of it, seen at
        the scale the whole frame is seen at (so objects look to the model as they always do). With
        ``floor``, boxes scored under their class's threshold but at ``floor`` or above come too (the
        boxes that pass are the same: a box under the threshold suppresses none scored higher)."""
        h, w = frame.shape[:2]
        shape = self._shape(w, h)
        if region is None:
            x, lb = letterbox(frame, shape)
            offset = (0.0, 0.0)
        else:
            if not self.takes_any_size:
                raise ValueError(f"{self.path} takes only {shape[1]}x{shape[0]} inputs: export it with "
                                 "dynamic axes to detect regions")
            x0, y0, x1, y1 = region
            scale = self.input_scale(w, h)
            x, lb = crop_input(frame[y0:y1, x0:x1], scale)
            offset = (float(x0), float(y0))
        out = self.backend.run(x)[0]
        least = self.class_conf if floor is None else np.minimum(self.class_conf, floor)
        raw = decode(out, len(self.classes), self.oriented, float(least.min()), self.iou)
        corners = lb.to_image(raw.corners)
        corners[..., 0] = np.clip(corners[..., 0] + offset[0], 0, w - 1)
        corners[..., 1] = np.clip(corners[..., 1] + offset[1], 0, h - 1)
        return [Box(self.classes[int(c)], float(s), corners[i])
                for i, (s, c) in enumerate(zip(raw.scores, raw.classes, strict=True))
                if s >= least[int(c)]]
