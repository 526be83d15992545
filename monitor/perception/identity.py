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
from monitor.perception.labels import NOT_ONE_CARD, UNKNOWN, is_identity_class
from monitor.perception.ranks import back_probabilities, read_ranks
from monitor.perception.rectify import CORNER_SHARE, crops_to_tensor, index_corner

TTA_MODES = ("none", "rot180")
# A reader taught NOT_ONE_CARD (two cards boxed as one, a box across two, an empty painted box) leaves a
# crop unnamed where that class is at least this likely: its card classes then describe no one card
NONE_THRESHOLD = 0.5
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
    # a reader taught the class NOT_ONE_CARD calls a crop "not one card" at this probability or over
    none_threshold: float = NONE_THRESHOLD

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
                none_threshold=_none_threshold(raw, path),
            )
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ModelFileError(f"classifier metadata {path} is malformed: {exc!r}") from exc
        bad = [c for c in classes if not is_identity_class(c) and c != NOT_ONE_CARD]
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


def _none_threshold(raw: dict[str, Any], path: Path) -> float:
    """The optional ``none_threshold`` of a reader's JSON: a probability in (0, 1]."""
    value = float(raw.get("none_threshold", NONE_THRESHOLD))
    if not 0.0 < value <= 1.0:
        raise ModelFileError(f"{path}: none_threshold {value} is not in (0, 1]")
    return value


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
    none_threshold: float = NONE_THRESHOLD

    @abstractmethod
    def raw_read(
        self, crops: list[npt.NDArray[np.uint8]], tta: str | None = None
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64] | None]:
        """Normalised log-probabilities of every card class for each crop, before the temperature; and
        the probability that the crop holds no single card (None: the reader was not taught that)."""

    def raw_log_probs(
        self, crops: list[npt.NDArray[np.uint8]], tta: str | None = None
    ) -> npt.NDArray[np.float64]:
        """Normalised log-probabilities of every card class for each crop, before the temperature."""
        return self.raw_read(crops, tta)[0]

    def read(
        self, crops: list[npt.NDArray[np.uint8]], aspects: Sequence[float] | None = None
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64] | None]:
        """``raw_read`` of each crop; ``aspects`` (short over long side of each crop's quad in the
        frame) lets the squarest be read turned 90 degrees too, the surer read kept (``turn_aspect``);
        such a crop is not one card only if both ways round say so."""
        lp, none = self.raw_read(crops)
        if not crops or aspects is None or self.turn_aspect is None:
            return lp, none
        if len(aspects) != len(crops):
            raise ValueError(f"{len(aspects)} aspects for {len(crops)} crops")
        square = [i for i, a in enumerate(aspects) if a >= self.turn_aspect]
        if square:
            # one way round suffices: the members read a card both ways up
            turned, turned_none = self.raw_read([np.ascontiguousarray(np.rot90(crops[i])) for i in square])
            for n, (row, i) in enumerate(zip(turned, square, strict=True)):
                if row.max() > lp[i].max():  # normalised: the likelier top class is the surer read
                    lp[i] = row
                if none is not None and turned_none is not None:
                    none[i] = min(none[i], turned_none[n])
        return lp, none

    def read_log_probs(
        self, crops: list[npt.NDArray[np.uint8]], aspects: Sequence[float] | None = None
    ) -> npt.NDArray[np.float64]:
        """The card classes' log-probabilities of :meth:`read`."""
        return self.read(crops, aspects)[0]

    def calibrated_probabilities(
        self, crops: list[npt.NDArray[np.uint8]], aspects: Sequence[float] | None = None
    ) -> npt.NDArray[np.float64]:
        if not crops:
            return np.zeros((0, len(self.classes)))
        return softmax_t(self.read_log_probs(crops, aspects), self.temperature)

    def classify(
        self, crops: list[npt.NDArray[np.uint8]], aspects: Sequence[float] | None = None
    ) -> list[Identity]:
        if not crops:
            return []
        lp, none = self.read(crops, aspects)
        p = softmax_t(lp, self.temperature)
        ranks = read_ranks(p, self.classes, self.threshold)
        backs = back_probabilities(p, self.classes)
        out = []
        for i, (row, rank, back) in enumerate(zip(p, ranks, backs, strict=True)):
            k = int(np.argmax(row))
            conf = float(row[k])
            top = self.classes[k]
            if none is not None and none[i] >= self.none_threshold:
                # no single card in the crop: its card classes name nothing (nor a rank)
                out.append(Identity(UNKNOWN, float(none[i]), NOT_ONE_CARD, None, float(back)))
                continue
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
        # the card classes; a NOT_ONE_CARD output, if the model has one, is read apart (``raw_read``)
        self.classes = tuple(c for c in self.meta.classes if c != NOT_ONE_CARD)
        self._none = self.meta.classes.index(NOT_ONE_CARD) if NOT_ONE_CARD in self.meta.classes else None
        self.temperature = self.meta.temperature
        self.turn_aspect = self.meta.turn_aspect
        self.none_threshold = self.meta.none_threshold
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

    @property
    def taught_none(self) -> bool:
        """Whether the model has the class NOT_ONE_CARD."""
        return self._none is not None

    def raw_read(
        self, crops: list[npt.NDArray[np.uint8]], tta: str | None = None
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64] | None]:
        """The card classes' normalised log-probabilities before the temperature, and the probability
        of NOT_ONE_CARD where the model has that class (None where not)."""
        full = self._full_log_probs(crops, tta)
        if self._none is None:
            return full, None
        none = np.exp(full[:, self._none])
        return _normalised(np.delete(full, self._none, axis=1)), none

    def _full_log_probs(
        self, crops: list[npt.NDArray[np.uint8]], tta: str | None = None
    ) -> npt.NDArray[np.float64]:
        """Normalised log-probabilities of the model's every output before the temperature; with
        ``rot180`` test-time augmentation the mean of the crop's and its 180-degree turn's (a card is
        the same card either way up)."""
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


@dataclass(frozen=True, slots=True)
class Cascade:
    """An ensemble's cheap first pass: the members ``first`` read every crop, summed as weighted and
    calibrated with their own ``temperature``; a crop they put at ``threshold`` or over is decided by
    them, the others are read by every member. Fitted on val so that the first pass names no val crop
    falsely, then raised until whole frames name no more falsely (``table-monitor fit-cascade``); JSON
    ``"cascade": {"first": [0], "temperature": T, "threshold": p}``. A crop is decided only where it is
    named too: at the ensemble's threshold, where that is higher."""

    first: tuple[int, ...]
    temperature: float
    threshold: float

    @classmethod
    def from_json(cls, raw: Any, members: int, path: Path) -> Cascade | None:
        if raw is None:
            return None
        try:
            first = tuple(int(k) for k in raw["first"])
            cascade = cls(first, float(raw["temperature"]), float(raw["threshold"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelFileError(f"ensemble file {path}: cascade is malformed: {exc!r}") from exc
        if not first or len(set(first)) != len(first) or not all(0 <= k < members for k in first) \
                or len(first) >= members:
            raise ModelFileError(f"ensemble file {path}: cascade's first members {list(first)} must be "
                                 f"distinct indices of fewer than all {members} members")
        if cascade.temperature <= 0 or not 0.0 < cascade.threshold <= 1.0:
            raise ModelFileError(f"ensemble file {path}: cascade needs temperature > 0 and threshold "
                                 "in (0, 1]")
        return cascade

    def to_json(self) -> dict[str, Any]:
        return {"first": list(self.first), "temperature": self.temperature, "threshold": self.threshold}


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
        self.none_threshold = _none_threshold(raw, self.path)
        for m in self.members[1:]:
            if m.classes != self.classes:
                raise ModelFileError(f"ensemble {self.path}: {m.path.name} has other classes than "
                                     f"{self.members[0].path.name}")
        self.threshold = fitted if threshold is None else threshold
        self.cascade = Cascade.from_json(raw.get("cascade"), len(self.members), self.path)
        if self.cascade is not None:
            taught = [m.path.name for k, m in enumerate(self.members)
                      if k not in self.cascade.first and m.taught_none]
            if taught:
                # a crop the first members decide is never shown to the rest: their "not one card" unheard
                raise ModelFileError(f"ensemble file {self.path}: cascade skips members taught "
                                     f"{NOT_ONE_CARD!r}: {taught}")

    @property
    def imgsz(self) -> int:
        return self.members[0].imgsz

    def raw_read(
        self, crops: list[npt.NDArray[np.uint8]], tta: str | None = None
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64] | None]:
        """The members' card classes summed as weighted; a crop is not one card as surely as the surest
        member taught that class says (the whole card shows two cards where an index corner may show
        one card's index). With a ``cascade``, crops the first members read surely are decided by them
        alone, the rest read by all."""
        if not crops:
            return np.zeros((0, len(self.classes))), None
        if self.cascade is not None:
            return self._cascaded(self.cascade, crops, tta)
        reads = [m.raw_read(crops, tta) for m in self.members]
        lp = _normalised(np.sum([w * r[0] for w, r in zip(self.weights, reads, strict=True)], axis=0))
        nones = [r[1] for r in reads if r[1] is not None]
        return lp, (np.max(nones, axis=0) if nones else None)

    def _cascaded(self, cascade: Cascade, crops: list[npt.NDArray[np.uint8]], tta: str | None,
                  ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64] | None]:
        first = [self.members[k] for k in cascade.first]
        reads = [m.raw_read(crops, tta) for m in first]
        weights = [self.weights[k] for k in cascade.first]
        lp1 = _normalised(np.sum([w * r[0] for w, r in zip(weights, reads, strict=True)], axis=0))
        q1 = softmax_t(lp1, cascade.temperature)
        sure = q1.max(axis=1) >= max(cascade.threshold, self.threshold)
        # a decided crop's log-probabilities are the first members' calibrated probabilities, scaled so
        # the ensemble's own temperature gives them back (softmax(T log q / T) = q)
        lp = _normalised(self.temperature * np.log(np.clip(q1, 1e-300, 1.0)))
        rest_at = np.flatnonzero(~sure)
        if len(rest_at):
            rest = [k for k in range(len(self.members)) if k not in cascade.first]
            sub = [crops[i] for i in rest_at]
            later = [self.members[k].raw_read(sub, tta)[0] for k in rest]
            total = np.sum([w * r[0][rest_at] for w, r in zip(weights, reads, strict=True)]
                           + [self.weights[k] * r for k, r in zip(rest, later, strict=True)], axis=0)
            lp[rest_at] = _normalised(total)
        nones = [r[1] for r in reads if r[1] is not None]
        return lp, (np.max(nones, axis=0) if nones else None)


def load_card_reader(models_dir: Path, backend: str = DEFAULT_BACKEND, threads: int = 2,
                     threshold: float | None = None) -> CardClassifier | CardEnsemble | None:
    """The card reader a models folder holds: the ensemble if it has one, else ``cards.onnx``, else none."""
    if (models_dir / ENSEMBLE_FILE).exists():
        return CardEnsemble(models_dir / ENSEMBLE_FILE, backend, threads, threshold)
    path = models_dir / "cards.onnx"
    return CardClassifier(path, backend, threads, threshold) if path.exists() else None
