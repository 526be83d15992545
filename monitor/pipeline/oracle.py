"""Oracle perception: the renderer's ground truth turned into what a perfect detector would report.

The event extractor is judged on its own, independently of the models, by feeding it detections
built from ground truth: every object a camera could see (its visible share above a threshold),
face-down cards without identity (``back``), face-up cards with theirs, chips with denomination and
count, dice with the pips on top (carried in ``Detection.count``: the number of pips). Optional
noise (corner jitter) and dropouts (a detection missing from a frame) show how the extractor copes
with an imperfect detector. Each detection also carries the truth's track id, which the oracle
tracker uses in place of ByteTrack.

Ground truth comes from a rendered recording's ``truth.jsonl`` (rows of the renderer's
``truth_objects``), or from any iterator of the same rows: the lab makes them straight from a played
round's timeline (:func:`monitor.lab.timeline_truth.timeline_truth`), without the textured render.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import cv2
import numpy as np

from monitor.geometry.hands import hand_box
from monitor.perception.detections import Detection, Detections, corners_from_array
from monitor.perception.labels import BACK

TruthRow = dict[str, Any]
MIN_VISIBLE = 0.25  # a card strip narrower than a quarter of the card is not reported


@dataclass(frozen=True, slots=True)
class OracleOptions:
    min_visible: float = MIN_VISIBLE
    dropout: float = 0.0  # probability that an object is missing from one frame
    jitter_px: float = 0.0  # standard deviation of corner noise
    seed: int = 0
    # detector classes never reported: what a room's camera cannot find (chips on a felt they match)
    unseen: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class OracleFrame:
    """One frame of oracle perception: detections and, index for index, the truth's track ids."""

    index: int
    media_time: float
    detections: Detections
    tracks: tuple[str, ...]


class TruthFileError(ValueError):
    """A ground-truth file that cannot be read; names the file and the line."""


def read_truth(path: Path) -> Iterator[TruthRow]:
    """Rows of a ``truth.jsonl`` (or ``.jsonl.gz``), with ``same_as`` rows resolved to full objects."""
    opener: Any = gzip.open if path.suffix == ".gz" else open
    last: TruthRow | None = None
    try:
        f: IO[str]
        with opener(path, "rt", encoding="utf-8") as f:
            for n, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    if "same_as" in row:
                        if last is None:
                            raise ValueError("'same_as' before any full frame")
                        row = {**last, "frame": row["frame"], "time": row["time"]}
                    int(row["frame"])
                    float(row["time"])
                    list(row["objects"])
                except (ValueError, KeyError, TypeError) as e:
                    raise TruthFileError(f"{path} line {n}: not a ground-truth frame ({e})") from None
                last = row
                yield row
    except OSError as e:
        raise TruthFileError(f"cannot read ground truth {path}: {e.strerror or e}") from None


def _four_corners(polygon: list[list[float]]) -> np.ndarray:
    pts = np.asarray(polygon, dtype=np.float32).reshape(-1, 2)
    if len(pts) == 4:
        return pts.astype(np.float64)
    return cv2.boxPoints(cv2.minAreaRect(pts)).astype(np.float64)


def oracle_frame(row: TruthRow, size: tuple[int, int], options: OracleOptions | None = None,
                 rng: np.random.Generator | None = None) -> OracleFrame:
    """Detections a perfect detector would give for one truth row."""
    opts = options or OracleOptions()
    items: list[Detection] = []
    tracks: list[str] = []
    for o in row["objects"]:
        label = o.get("label")
        if label == "arm":
            # a detector finds the hand (drawn over what it covers), not the whole arm
            quad = hand_box(np.asarray(o["polygon"], dtype=np.float64)[:, :2])
            if quad is None:
                continue
            label = "hand"
        elif label not in ("card_face_up", "card_face_down", "chip", "dice"):
            continue  # pile hulls: the extractor follows the cards themselves
        elif float(o.get("visible_share", 1.0)) < opts.min_visible:
            continue
        else:
            quad = _four_corners(o["polygon"])
        if label in opts.unseen:
            continue
        if rng is not None and opts.dropout > 0 and rng.random() < opts.dropout:
            continue
        if rng is not None and opts.jitter_px > 0:
            quad = quad + rng.normal(0.0, opts.jitter_px, quad.shape)
        corners = corners_from_array(quad)
        if label == "chip":
            det = Detection("chip", 1.0, corners, denomination=int(o["identity"]),
                            count=int(o.get("count") or 1), source="oracle")
        elif label == "dice":
            det = Detection("dice", 1.0, corners, count=int(o["identity"]), source="oracle")
        elif label == "hand":
            det = Detection("hand", 1.0, corners, source="oracle")
        elif label == "card_face_up":
            det = Detection("card_face_up", 1.0, corners, identity=o["identity"], identity_confidence=1.0,
                            source="oracle", back_probability=0.0)
        else:
            det = Detection("card_face_down", 1.0, corners, identity=BACK, identity_confidence=1.0,
                            source="oracle", back_probability=1.0)
        items.append(det)
        tracks.append(str(o["track"]))
    w, h = size
    return OracleFrame(int(row["frame"]), float(row["time"]), Detections(w, h, tuple(items)), tuple(tracks))


def oracle_frames(rows: Iterator[TruthRow], size: tuple[int, int],
                  options: OracleOptions | None = None, stride: int = 1) -> Iterator[OracleFrame]:
    opts = options or OracleOptions()
    rng = np.random.default_rng(opts.seed) if (opts.dropout > 0 or opts.jitter_px > 0) else None
    for row in rows:
        if int(row["frame"]) % stride:
            continue
        yield oracle_frame(row, size, opts, rng)
