"""Oracle perception: the renderer's ground truth turned into what a perfect detector would report.

The event extractor is judged on its own, independently of the models, by feeding it detections
built from ground truth: every object a camera could see (its visible share above a threshold),
face-down cards without identity (``back``), face-up cards with theirs, chips with denomination and
count, dice with the pips on top (carried in ``Detection.count``: the number of pips). Optional
noise (corner jitter) and dropouts (a detection missing from a frame) show how the extractor copes
with an imperfect detector. Each detection also carries the truth's track id, which the oracle
tracker uses in place of ByteTrack.

Ground truth comes either from a rendered recording's ``truth.jsonl`` (rows of
:func:`monitor.render.rounds.video.truth_objects`) or, for fast tests, straight from a played round's
timeline by :func:`timeline_truth`: the same objects and polygons, with the visible share from a
coarse z-ordered polygon fill instead of the textured render (about 100x faster).
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


# ---- truth straight from a timeline (no textured render) -----------------------------------------


def timeline_truth(rounds: list[Any], fps: int = 30, size: tuple[int, int] = (1920, 1080),
                   stride: int = 1, raster: float = 0.5) -> Iterator[TruthRow]:
    """Truth rows for played rounds (``monitor.render.rounds.play.PlayedRound``), frame by frame.

    Polygons are the default camera's projection (numpy arrays here, lists in a truth file); the
    visible share is each object's pixels left uncovered when every object is filled in drawing
    order on a raster ``raster`` times the image size.
    """
    from monitor.render.camera import default_camera
    from monitor.render.card_art import CARD_H_MM, CARD_W_MM
    from monitor.render.rounds.video import round_at, total_frames
    from monitor.render.scene import CardObj, ChipStack, Die

    cam = default_camera(*size)
    rw, rh = max(1, int(size[0] * raster)), max(1, int(size[1] * raster))
    ring_a = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    unit = np.array([[-0.5, 0.5], [0.5, 0.5], [0.5, -0.5], [-0.5, -0.5]])  # tl, tr, br, bl (card frame)
    n = total_frames(rounds, fps)
    for i in range(0, n, stride):
        t = i / fps
        k = round_at(rounds, t)
        scene, orders = rounds[k].timeline.scene_at(t)
        objs = scene.objects
        # every object's outline in table mm (z included), projected in one call
        outlines: list[np.ndarray] = []
        hull: list[bool] = []
        cards = [o for o in objs if isinstance(o, CardObj)]
        if cards:
            pose = np.array([(c.x, c.y, c.angle_deg, c.z) for c in cards])
            a = np.radians(pose[:, 2])[:, None]
            u = unit * (CARD_W_MM, CARD_H_MM)
            cx = u[None, :, 0] * np.cos(a) - u[None, :, 1] * np.sin(a) + pose[:, 0:1]
            cy = u[None, :, 0] * np.sin(a) + u[None, :, 1] * np.cos(a) + pose[:, 1:2]
            card_quads = iter(np.stack([cx, cy, np.repeat(pose[:, 3:4], 4, axis=1)], axis=2))
        for obj in objs:
            if isinstance(obj, CardObj):
                outlines.append(next(card_quads))
                hull.append(False)
            elif isinstance(obj, ChipStack):
                ring = np.column_stack([obj.x + 19.5 * np.cos(ring_a), obj.y + 19.5 * np.sin(ring_a)])
                outlines.append(np.concatenate([np.column_stack([ring, np.full(12, obj.z)]),
                                                np.column_stack([ring, np.full(12, obj.z + obj.height)])]))
                hull.append(True)
            elif isinstance(obj, Die):
                h = obj.size / 2
                a = np.radians(obj.angle_deg)
                rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
                sq = (unit * 2 * h) @ rot.T + (obj.x, obj.y)
                outlines.append(np.concatenate([np.column_stack([sq, np.zeros(4)]),
                                                np.column_stack([sq, np.full(4, obj.size)])]))
                hull.append(True)
            else:
                outlines.append(np.asarray(obj.points, dtype=np.float64).reshape(-1, 3))
                hull.append(False)
        sizes = [len(o) for o in outlines]
        projected = cam.project(np.concatenate(outlines)) if outlines else np.zeros((0, 2))
        ids = np.zeros((rh, rw), dtype=np.uint16)
        objects: list[dict[str, Any]] = []
        areas: list[float] = []
        start = 0
        for j, (obj, order, m, is_hull) in enumerate(zip(objs, orders, sizes, hull, strict=True), start=1):
            poly = projected[start:start + m]
            start += m
            if is_hull:
                poly = cv2.convexHull(poly.astype(np.float32)).reshape(-1, 2).astype(np.float64)
            if isinstance(obj, CardObj):
                label = "card_face_up" if obj.face_up else "card_face_down"
                o: dict[str, Any] = {"kind": "card", "label": label, "identity": obj.key,
                                     "face_up": obj.face_up}
            elif isinstance(obj, ChipStack):
                o = {"kind": "chips", "label": "chip", "identity": str(obj.denomination), "count": obj.count}
            elif isinstance(obj, Die):
                o = {"kind": "die", "label": "dice", "identity": str(obj.value)}
            else:
                o = {"kind": "arm", "label": "arm", "identity": "arm"}
            o["track"] = f"r{k}:{order}" if order >= 0 else f"r{k}:arm{j}"
            o["polygon"] = poly
            small = np.round(poly * raster).astype(np.int32)
            cv2.fillPoly(ids, [small], j)
            areas.append(max(float(cv2.contourArea(small.astype(np.float32))), 1.0))
            objects.append(o)
        counts = np.bincount(ids.ravel(), minlength=len(objects) + 1)
        for j, o in enumerate(objects, start=1):
            o["visible_share"] = min(1.0, float(counts[j]) / areas[j - 1])
        yield {"frame": i, "time": round(t, 4), "round": k, "objects": objects}
