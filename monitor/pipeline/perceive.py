"""Choosing the perception for a run: the trained models, the classical finder, or oracle ground truth.

- ``models``: ``models/detector.onnx`` and ``models/cards.onnx`` through ONNX Runtime / OpenVINO
  (:class:`monitor.perception.pipeline.Perceiver`); without the detector the classical card finder
  stands in; without the classifier no card is read (said at start-up: identity-based rules such as
  an exposed ace cannot fire).
- ``oracle``: a rendered recording's ``truth.jsonl`` replayed as detections, frame by frame, with the
  truth's track ids. For testing the chain downstream of perception, and labelled so everywhere.
- ``auto``: oracle when a truth file is given, else models.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

import numpy as np

from monitor.perception.backends import DEFAULT_BACKEND
from monitor.perception.detections import Detections
from monitor.pipeline.oracle import OracleOptions, oracle_frame, read_truth

log = logging.getLogger(__name__)
Choice = Literal["auto", "models", "oracle"]

# the runtime whose detections caches carry no runtime in their key (those recorded when it was the
# default); every other runtime's key names it, so a cache is never replayed for another runtime
UNNAMED_CACHE_BACKEND = "openvino"


class PerceptionError(ValueError):
    """Perception cannot start as asked; the message says what is missing."""


class Perception(Protocol):
    label: str
    sees_hands: bool  # the dealer's hand is found: the deal can be counted card by card
    # one box per face-down card, even fanned or squared under others (the truth's boxes): a hand
    # set face down can be counted from them. A detector's boxes cannot promise it.
    counts_face_down: bool

    def see(self, index: int, image: np.ndarray) -> tuple[Detections, tuple[str, ...] | None]:
        """Detections of one frame and, for oracle perception, the truth's track id of each."""
        ...


@dataclass
class OraclePerception:
    rows: list[dict]  # type: ignore[type-arg]
    size: tuple[int, int]
    options: OracleOptions
    label: str = "ORACLE (ground truth replayed; not a model)"
    sees_hands: bool = True
    counts_face_down: bool = True

    @classmethod
    def load(cls, truth: Path, size: tuple[int, int],
             options: OracleOptions | None = None) -> OraclePerception:
        rows = list(read_truth(truth))
        if not rows:
            raise PerceptionError(f"ground truth {truth} has no frames")
        return cls(rows, size, options or OracleOptions())

    def see(self, index: int, image: np.ndarray) -> tuple[Detections, tuple[str, ...] | None]:
        if not 0 <= index < len(self.rows):
            return Detections(image.shape[1], image.shape[0], ()), ()
        h, w = image.shape[:2]
        fr = oracle_frame(self.rows[index], (w, h), self.options)
        return fr.detections, fr.tracks


class ModelPerception:
    """The trained models on frames of one camera in order: each frame perceived where it changed
    (:mod:`monitor.perception.incremental`), or whole when ``whole_frames`` (or the detector takes only
    the full frame's size)."""

    def __init__(self, models_dir: Path, threads: int = 2, whole_frames: bool = False,
                 backend: str = DEFAULT_BACKEND, factor: float | None = None) -> None:
        from monitor.perception.incremental import IncrementalPerceiver
        from monitor.perception.pipeline import Perceiver

        self.backend = backend
        # frames resized by this before they are perceived (a camera whose cards the models never saw
        # that large: monitor.perception.card_scale.live_factor), the detections mapped back
        self.factor = factor
        self.perceiver = Perceiver.from_models(models_dir, backend=backend, threads=threads, video=True)
        self.incremental = None if whole_frames else IncrementalPerceiver(self.perceiver)
        if self.incremental is not None and not self.incremental.regional:
            log.warning("%s/detector.onnx takes only whole frames (exported without dynamic axes): every "
                        "frame is perceived whole", models_dir)
            self.incremental = None
        from monitor.perception.fan_reader import FanReader, load_fan_reader
        from monitor.perception.index_reader import IndexReader, load_index_reader

        # fanned hands read by their indices, in table state (models without a reader: not read): the
        # fan reader (the detector's card boxes' corners) where the models have one, else the finder
        self.index_reader: IndexReader | FanReader | None = (
            load_fan_reader(models_dir, backend=backend, threads=threads)
            or load_index_reader(models_dir, backend=backend, threads=threads))
        has_detector = self.perceiver.detector is not None
        self.sees_hands = has_detector and "hand" in self.perceiver.detector.classes  # type: ignore[union-attr]
        # the score from which the detector's boxes start tracks (None: the tracker's default)
        self.track_conf = self.perceiver.detector.track_conf if has_detector else None  # type: ignore[union-attr]
        self.counts_face_down = False
        parts = ["detector.onnx" if has_detector else "classical card finder (no detector)"]
        if self.perceiver.classifier is None:
            parts.append("NO card classifier: cards are not read, identity rules (exposed ace, duplicates, "
                         "fouls) cannot fire")
        else:
            parts.append("cards.onnx")
        if isinstance(self.index_reader, FanReader):
            parts.append("fan_reader.json")
        elif self.index_reader is not None:
            parts.append("index_reader.json")
        if not self.sees_hands:
            parts.append("the dealer's hand is not found: the deal is not counted card by card (the stub "
                         "and exposed cards are)")
        if factor is not None:
            parts.append(f"frames perceived at {factor:.2f}x, the scale the models were trained for")
        self.label = "models: " + ", ".join(parts) + f" ({self.mode})"
        self.warnings = [p for p in parts
                         if p.startswith("NO") or "no detector" in p or "hand is not found" in p]

    @property
    def mode(self) -> str:
        return "whole frames" if self.incremental is None else "changed regions"

    @property
    def cache_mode(self) -> str:
        """What recorded detections depend on besides the models (``perception_cache.fingerprint``)."""
        from monitor.perception.incremental import VERSION

        # the runtimes differ in the last digits, and a box near a threshold may differ with them
        mode = "whole frames" if self.incremental is None else f"changed regions v{VERSION}"
        if self.factor is not None:
            mode += f", at {self.factor:.3f}x"
        return mode if self.backend == UNNAMED_CACHE_BACKEND else f"{mode}, {self.backend}"

    def see(self, index: int, image: np.ndarray) -> tuple[Detections, tuple[str, ...] | None]:
        if self.factor is None:
            return self._see(image), None
        from monitor.perception.card_scale import resized, scaled_back

        return scaled_back(self._see(resized(image, self.factor)), self.factor,
                           (image.shape[1], image.shape[0])), None

    def _see(self, image: np.ndarray) -> Detections:
        if self.incremental is not None:
            return self.incremental.perceive(image)
        return self.perceiver.perceive(image)


def choose(choice: Choice, truth: Path | None, size: tuple[int, int], models_dir: Path,
           threads: int = 2, whole_frames: bool = False, backend: str = DEFAULT_BACKEND,
           factor: float | None = None) -> Perception:
    if choice == "oracle" or (choice == "auto" and truth is not None):
        if truth is None:
            raise PerceptionError("oracle perception needs the recording's ground truth "
                                  "(--truth truth.jsonl)")
        if not truth.exists():
            raise PerceptionError(f"ground truth file {truth} does not exist")
        return OraclePerception.load(truth, size)
    return ModelPerception(models_dir, threads, whole_frames, backend, factor)
