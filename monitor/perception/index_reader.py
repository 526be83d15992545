"""Reading cards by their indices alone: fanned and overlapping hands.

A player's opened hand and the banker's set hand lie fanned: each card shows little more than the
corner where its index (rank and suit) is printed, so the detector finds no card outline to cut and
the whole-card reader has nothing to read. The index finder (a small keypoint model trained on
renders, ``render indices`` / ``train indices``) finds each uncovered index at full resolution with
its four corners; each is stood upright (``index_geometry.index_crop``) and read by the index-corner
classifier, with a temperature and an "unknown" threshold fitted for one index seen alone
(``train index-reader``): a card is named only when its index alone is that sure, else its rank may
still be read (suits summed, ``ranks.py``).

``index_reader.json`` beside the models: ``{"finder": "index_finder.onnx", "reader":
"index_corner.onnx", "temperature": T, "threshold": p, "finder_conf": c}``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from monitor.perception.backends import DEFAULT_BACKEND, Backend, load_backend
from monitor.perception.calibration import log_probs, softmax_t
from monitor.perception.errors import ModelFileError
from monitor.perception.identity import ClassifierMeta
from monitor.perception.index_geometry import index_crop
from monitor.perception.labels import BACK
from monitor.perception.ranks import read_ranks
from monitor.perception.rectify import crops_to_tensor
from monitor.perception.yolo_post import crop_input, decode_pose

F64 = npt.NDArray[np.float64]
Region = tuple[int, int, int, int]  # x0, y0, x1, y1 in frame pixels
INDEX_READER_FILE = "index_reader.json"
KEYPOINTS = 4
# The finder was trained on 1080p views of the whole table (a card 38-75 px wide): a 4K frame's
# windows are shrunk to that scale before it looks.
TRAINED_FRAME_WIDTH = 1920


@dataclass(frozen=True, slots=True)
class IndexRead:
    quad: F64  # (4, 2) frame pixels: the card's corner, along its top edge, the far corner, down its side
    score: float  # the finder's
    card: str | None  # named: the reader is at least ``threshold`` sure of it
    rank: str | None  # not named, but the rank is that sure (suits summed)
    top: str  # the most likely class, named or not
    confidence: float  # its calibrated probability
    colour: str | None = None  # not named, but its ink ("red", "black") is that sure (suits summed)
    # its rank (or name) read within the reader's count budget: counted for rule 60 (a third card of
    # one rank and ink is a duplicate), where a wrong rank is a false misdeal
    sure: bool = False


class IndexFinder:
    """The keypoint model: each uncovered card index in a part of a frame, with its four corners."""

    def __init__(self, model_path: str | Path, backend: str = DEFAULT_BACKEND, threads: int = 2,
                 conf: float = 0.4, iou: float = 0.5) -> None:
        self.path = Path(model_path)
        if not self.path.exists():
            raise ModelFileError(f"index finder not found: {self.path}")
        self.backend: Backend = load_backend(self.path, backend, threads)
        self.conf, self.iou = conf, iou
        try:
            out = self.backend.run(np.zeros((1, 3, 64, 96), np.float32))[0]
        except Exception as exc:  # each runtime raises its own shape error
            raise ModelFileError(f"{self.path}: not a finder taking any input size: {exc}") from exc
        if out.shape[1] != 5 + 3 * KEYPOINTS:
            raise ModelFileError(f"{self.path}: output rows {out.shape[1]}, expected {5 + 3 * KEYPOINTS} "
                                 f"(one class, {KEYPOINTS} keypoints): not an index finder")

    def find(self, frame: npt.NDArray[np.uint8], region: Region | None = None) -> list[tuple[F64, float]]:
        """(quad in frame pixels, score) of every index found in ``region`` (default: the frame)."""
        h, w = frame.shape[:2]
        x0, y0, x1, y1 = region if region is not None else (0, 0, w, h)
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 - x0 < 8 or y1 - y0 < 8:
            return []
        scale = min(1.0, TRAINED_FRAME_WIDTH / w)
        x, lb = crop_input(frame[y0:y1, x0:x1], scale)
        raw = decode_pose(self.backend.run(x)[0], KEYPOINTS, self.conf, self.iou)
        quads = lb.to_image(raw.keypoints) + np.array([x0, y0], np.float64)
        return [(quads[i], float(s)) for i, s in enumerate(raw.scores)]


class IndexReader:
    """Finder + index classifier + the calibration fitted for one index seen alone."""

    def __init__(self, path: str | Path, backend: str = DEFAULT_BACKEND, threads: int = 2) -> None:
        self.path = Path(path)
        try:
            raw: dict[str, Any] = json.loads(self.path.read_text())
            finder, reader = str(raw["finder"]), str(raw["reader"])
            self.temperature = float(raw.get("temperature", 1.0))
            self.threshold = float(raw["threshold"])
            conf = float(raw.get("finder_conf", 0.4))
        except FileNotFoundError as exc:
            raise ModelFileError(f"index reader file not found: {self.path}") from exc
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ModelFileError(f"index reader file {self.path} is malformed: {exc!r}") from exc
        if self.temperature <= 0 or not 0.0 < self.threshold <= 1.0 or not 0.0 < conf < 1.0:
            raise ModelFileError(f"index reader file {self.path}: need temperature > 0, threshold in (0, 1]"
                                 f" and finder_conf in (0, 1)")
        self.finder = IndexFinder(self.path.parent / finder, backend, threads, conf)
        self.reader_path = reader_path = self.path.parent / reader
        self.meta = ClassifierMeta.load(reader_path.with_suffix(".json"))
        self.classes = self.meta.classes
        self.backend: Backend = load_backend(reader_path, backend, threads)

    def raw_log_probs(self, crops: list[npt.NDArray[np.uint8]]) -> F64:
        """Log-probabilities of every class for upright index crops, before the temperature."""
        if not crops:
            return np.zeros((0, len(self.classes)))
        x = crops_to_tensor(crops, self.meta.imgsz)
        return log_probs(self.backend.run(x)[0], self.meta.outputs_are_probabilities)

    def crops(self, frame: npt.NDArray[np.uint8], quads: list[F64]) -> list[npt.NDArray[np.uint8]]:
        return [index_crop(frame, q, self.meta.imgsz) for q in quads]

    def read_quads(self, frame: npt.NDArray[np.uint8], found: list[tuple[F64, float]]) -> list[IndexRead]:
        if not found:
            return []
        p = softmax_t(self.raw_log_probs(self.crops(frame, [q for q, _ in found])), self.temperature)
        ranks = read_ranks(p, self.classes, self.threshold)
        out = []
        for (quad, score), row, rank in zip(found, p, ranks, strict=True):
            k = int(row.argmax())
            top, conf = self.classes[k], float(row[k])
            named = conf >= self.threshold and top != BACK
            out.append(IndexRead(quad, score, top if named else None, None if named else rank, top, conf))
        return out

    def read(self, frame: npt.NDArray[np.uint8], regions: list[Region] | None = None,
             cards: Sequence[npt.ArrayLike] = ()) -> list[IndexRead]:
        """Every index found in ``regions`` (default: the whole frame), read (the finder finds its own:
        ``cards``, the card boxes the fan reader reads, are not needed)."""
        parts: list[Region | None] = list(regions) if regions else [None]
        found = [f for r in parts for f in self.finder.find(frame, r)]
        return self.read_quads(frame, found)


def load_index_reader(models_dir: Path, backend: str = DEFAULT_BACKEND, threads: int = 2
                      ) -> IndexReader | None:
    """The index reader a models folder holds, if it has one."""
    path = models_dir / INDEX_READER_FILE
    return IndexReader(path, backend, threads) if path.exists() else None
