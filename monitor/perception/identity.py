"""Card identity: rectified crops -> card text (or ``back``) with a calibrated confidence, or ``unknown``.

The model is an ONNX classifier exported by ``table-monitor train cards``; beside it a JSON metadata file
(same stem) names its classes in output order, its input size, the fitted temperature and the threshold.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from monitor.perception.backends import DEFAULT_BACKEND, Backend, load_backend
from monitor.perception.calibration import log_probs, softmax_t
from monitor.perception.errors import ModelFileError
from monitor.perception.labels import UNKNOWN, is_identity_class
from monitor.perception.ranks import back_probabilities, read_ranks
from monitor.perception.rectify import CORNER_SHARE, crops_to_tensor, index_corner

TTA_MODES = ("none", "rot180")
VIEWS = ("card", "corner")  # what of the rectified crop the model sees: the whole card, or its index


@dataclass(frozen=True, slots=True)
class ClassifierMeta:
    classes: tuple[str, ...]
    imgsz: int
    temperature: float
    threshold: float
    outputs_are_probabilities: bool
    tta: str = "none"  # "rot180": average with the crop turned 180 degrees (a card reads both ways up)
    view: str = "card"  # "corner": the model reads the index corner only (rectify.index_corner)
    corner: tuple[float, float] = CORNER_SHARE
    turn_aspect: float | None = None  # see _Reads.turn_aspect

    @classmethod
    def load(cls, path: Path) -> ClassifierMeta:
        if not path.exists():
            raise ModelFileError(f"classifier metadata not found: {path} (written beside the .onnx)")
        try:
            raw: dict[str, Any] = json.loads(path.read_text())
            classes = tuple(str(c) for c in raw["classes"])
            meta = cls(
                classes=classes,
                imgsz=int(raw["imgsz"]),
                temperature=float(raw.get("temperature", 1.0)),
                threshold=float(raw.get("threshold", 0.9)),
                outputs_are_probabilities=raw.get("outputs", "probabilities") == "probabilities",
                tta=str(raw.get("tta", "none")),
                view=str(raw.get("view", "card")),
                corner=(float(raw.get("corner", CORNER_SHARE)[0]), float(raw.get("corner", CORNER_SHARE)[1])),
                turn_aspect=_turn_aspect(raw, path),
            )
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ModelFileError(f"classifier metadata {path} is malformed: {exc!r}") from exc
        bad = [c for c in classes if not is_identity_class(c)]
        if bad:
            raise ModelFileError(f"classifier metadata {path} names unknown classes: {bad[:5]}")
        if meta.tta not in TTA_MODES:
            raise ModelFileError(f"classifier metadata {path}: tta {meta.tta!r} is not one of {TTA_MODES}")
        if meta.view not in VIEWS:
            raise ModelFileError(f"classifier metadata {path}: view {meta.view!r} is not one of {VIEWS}")
        if not all(0.05 <= c <= 1.0 for c in meta.corner):
            raise ModelFileError(f"classifier metadata {path}: corner shares {meta.corner} not in [0.05, 1]")
        if meta.temperature <= 0 or not 0.0 <= meta.threshold <= 1.0:
            raise ModelFileError(f"classifier metadata {path}: need temperature > 0 and threshold in [0, 1]")
        return meta


@dataclass(frozen=True, slots=True)
class Identity:
    label: str  # card text, "back", or "unknown"
    confidence: float  # calibrated probability of the top class
    top_class: str  # the top class even when it was not trusted
    # the rank when the card is not named but its suits' summed probability clears the threshold
    # (monitor.perception.ranks); None when the card is named, or the rank is in doubt too
    rank: str | None = None
    back_probability: float = 0.0  # calibrated probability that the crop shows a back


def _turn_aspect(raw: dict[str, Any], path: Path) -> float | None:
    """The optional ``turn_aspect`` of a reader's JSON: None (absent) or a share in (0.5, 1]."""
    value = raw.get("turn_aspect")
    if value is None:
        return None
    aspect = float(value)
    if not 0.5 < aspect <= 1.0:
        raise ModelFileError(f"{path}: turn_aspect {aspect} is not in (0.5, 1] (short over long side)")
    return aspect


class _Reads(ABC):
    """Calibrated probabilities and identities from ``raw_log_probs`` (shared by a model and an ensemble)."""

    classes: tuple[str, ...]
    temperature: float
    threshold: float
    # Quads this square or squarer (short over long side) are read both ways round as well: under an
    # oblique camera a card's long side can look the shorter, and the rectifier then stands the card
    # on its side (held-out crops: 1.3-1.8% of the unseen deck's, two-thirds of them misread). The
    # turned crop's read is kept where it is surer. None: never (a reader's JSON sets it).
    turn_aspect: float | None = None

    @abstractmethod
    def raw_log_probs(
        self, crops: list[npt.NDArray[np.uint8]], tta: str | None = None
    ) -> npt.NDArray[np.float64]:
        """Normalised log-probabilities of every class for each crop, before the temperature."""

    def read_log_probs(
        self, crops: list[npt.NDArray[np.uint8]], aspects: Sequence[float] | None = None
    ) -> npt.NDArray[np.float64]:
        """``raw_log_probs`` of each crop; ``aspects`` (short over long side of each crop's quad in the
        frame) lets the squarest be read turned 90 degrees too, the surer read kept (``turn_aspect``)."""
        lp = self.raw_log_probs(crops)
        if not crops or aspects is None or self.turn_aspect is None:
            return lp
        if len(aspects) != len(crops):
            raise ValueError(f"{len(aspects)} aspects for {len(crops)} crops")
        square = [i for i, a in enumerate(aspects) if a >= self.turn_aspect]
        if square:
            # one way round suffices: the members read a card both ways up
            turned = self.raw_log_probs([np.ascontiguousarray(np.rot90(crops[i])) for i in square])
            for row, i in zip(turned, square, strict=True):
                if row.max() > lp[i].max():  # normalised: the likelier top class is the surer read
                    lp[i] = row
        return lp

    def calibrated_probabilities(
        self, crops: list[npt.NDArray[np.uint8]], aspects: Sequence[float] | None = None
    ) -> npt.NDArray[np.float64]:
        if not crops:
            return np.zeros((0, len(self.classes)))
        return softmax_t(self.read_log_probs(crops, aspects), self.temperature)

    def classify(
        self, crops: list[npt.NDArray[np.uint8]], aspects: Sequence[float] | None = None
    ) -> list[Identity]:
        p = self.calibrated_probabilities(crops, aspects)
        ranks = read_ranks(p, self.classes, self.threshold)
        backs = back_probabilities(p, self.classes)
        out = []
        for row, rank, back in zip(p, ranks, backs, strict=True):
            k = int(np.argmax(row))
            conf = float(row[k])
            top = self.classes[k]
            named = conf >= self.threshold
            out.append(Identity(top if named else UNKNOWN, conf, top, None if named else rank, float(back)))
        return out


def _normalised(lp: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    m = lp.max(axis=1, keepdims=True)
    return np.asarray(lp - (m + np.log(np.exp(lp - m).sum(axis=1, keepdims=True))), np.float64)


class CardClassifier(_Reads):
    def __init__(self, model_path: str | Path, backend: str = DEFAULT_BACKEND, threads: int = 2,
                 threshold: float | None = None) -> None:
        self.path = Path(model_path)
        self.meta = ClassifierMeta.load(self.path.with_suffix(".json"))
        self.backend: Backend = load_backend(self.path, backend, threads)
        self.threshold = self.meta.threshold if threshold is None else threshold
        self.classes = self.meta.classes
        self.temperature = self.meta.temperature
        self.turn_aspect = self.meta.turn_aspect
        self._check_output_width()

    def _check_output_width(self) -> None:
        probe = np.zeros((1, 3, self.meta.imgsz, self.meta.imgsz), dtype=np.float32)
        try:
            out = self.backend.run(probe)[0]
        except Exception as exc:
            raise ModelFileError(
                f"{self.path}: model does not accept a 1x3x{self.meta.imgsz}x{self.meta.imgsz} crop: {exc}"
            ) from exc
        if out.ndim != 2 or out.shape[1] != len(self.meta.classes):
            raise ModelFileError(
                f"{self.path}: output shape {out.shape} does not match {len(self.meta.classes)} classes in "
                f"{self.path.with_suffix('.json').name}: not a card classifier"
            )

    @property
    def imgsz(self) -> int:
        return self.meta.imgsz

    def raw_log_probs(
        self, crops: list[npt.NDArray[np.uint8]], tta: str | None = None
    ) -> npt.NDArray[np.float64]:
        """Normalised log-probabilities before the temperature; with ``rot180`` test-time augmentation
        the mean of the crop's and its 180-degree turn's (a card is the same card either way up)."""
        if not crops:
            return np.zeros((0, len(self.meta.classes)))
        turn = (tta or self.meta.tta) == "rot180"
        if self.meta.view == "corner":
            # the index corner of the crop and of the crop turned 180 degrees: the card's two indices
            views = [index_corner(c, self.meta.corner) for c in crops]
            if turn:
                views += [index_corner(np.ascontiguousarray(c[::-1, ::-1]), self.meta.corner) for c in crops]
            x = crops_to_tensor(views, self.meta.imgsz)
        else:
            x = crops_to_tensor(crops, self.meta.imgsz)
            if turn:
                x = np.concatenate([x, np.ascontiguousarray(x[..., ::-1, ::-1])])
        lp = log_probs(self.backend.run(x)[0], self.meta.outputs_are_probabilities)
        if not turn:
            return lp
        n = len(crops)
        return _normalised((lp[:n] + lp[n:]) / 2)


ENSEMBLE_FILE = "cards_ensemble.json"


class CardEnsemble(_Reads):
    """Classifiers that read different parts of the card (the whole card, the index corner) as one:
    the sum of their log-probabilities (a product of experts), with its own fitted temperature and
    threshold. An unseen deck's pips or court art can fool the whole-card model while its indices
    still read, and the other way round; a card both agree on is more likely right than either
    alone says.

    ``cards_ensemble.json``: ``{"members": ["cards.onnx", "cards_corner.onnx"], "weights": [1, w],
    "temperature": T, "threshold": p, "turn_aspect": a}`` (``weights`` optional: equal; ``turn_aspect``
    optional: see ``_Reads``); each member keeps its own JSON (view, TTA, classes).
    """

    def __init__(self, path: str | Path, backend: str = DEFAULT_BACKEND, threads: int = 2,
                 threshold: float | None = None) -> None:
        self.path = Path(path)
        try:
            raw: dict[str, Any] = json.loads(self.path.read_text())
            names = [str(m) for m in raw["members"]]
            # each member's log-probabilities weighted (fitted on val, ``train ensemble``); equal if absent
            self.weights = [float(w) for w in raw.get("weights", [1.0] * len(names))]
            self.temperature = float(raw.get("temperature", 1.0))
            fitted = float(raw.get("threshold", 0.9))
            self.turn_aspect = _turn_aspect(raw, self.path)
        except FileNotFoundError as exc:
            raise ModelFileError(f"ensemble file not found: {self.path}") from exc
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ModelFileError(f"ensemble file {self.path} is malformed: {exc!r}") from exc
        if len(names) < 2:
            raise ModelFileError(f"ensemble file {self.path}: needs two members or more, got {names}")
        if len(self.weights) != len(names) or not all(w > 0 for w in self.weights):
            raise ModelFileError(f"ensemble file {self.path}: need one weight > 0 per member, got "
                                 f"{self.weights} for {names}")
        if self.temperature <= 0 or not 0.0 <= fitted <= 1.0:
            raise ModelFileError(f"ensemble file {self.path}: need temperature > 0 and threshold in [0, 1]")
        self.members = [CardClassifier(self.path.parent / n, backend, threads) for n in names]
        self.classes = self.members[0].classes
        for m in self.members[1:]:
            if m.classes != self.classes:
                raise ModelFileError(f"ensemble {self.path}: {m.path.name} has other classes than "
                                     f"{self.members[0].path.name}")
        self.threshold = fitted if threshold is None else threshold

    @property
    def imgsz(self) -> int:
        return self.members[0].imgsz

    def raw_log_probs(
        self, crops: list[npt.NDArray[np.uint8]], tta: str | None = None
    ) -> npt.NDArray[np.float64]:
        if not crops:
            return np.zeros((0, len(self.classes)))
        return _normalised(np.sum([w * m.raw_log_probs(crops, tta)
                                   for w, m in zip(self.weights, self.members, strict=True)], axis=0))


def load_card_reader(models_dir: Path, backend: str = DEFAULT_BACKEND, threads: int = 2,
                     threshold: float | None = None) -> CardClassifier | CardEnsemble | None:
    """The card reader a models folder holds: the ensemble if it has one, else ``cards.onnx``, else none."""
    if (models_dir / ENSEMBLE_FILE).exists():
        return CardEnsemble(models_dir / ENSEMBLE_FILE, backend, threads, threshold)
    path = models_dir / "cards.onnx"
    return CardClassifier(path, backend, threads, threshold) if path.exists() else None
