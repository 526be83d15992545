"""Perception recorded once per recording and replayed: re-review with new rules without the models.

Perception is nearly all of a review's cost (about 250 ms of a 1080p frame against a few for
tracking, extraction and the rules). Investigators re-run a review after a rule or a setting
changed, and engineers tune the tracker and the extractor on the same rendered rounds again and
again; neither needs the models run twice on the same frames. ``CachedPerception`` wraps a
perception: frames it has seen come from its file, the others are perceived and appended.

The file (JSON lines) starts with a header naming the recording (size, modification time) and the
models (size and content hash of each file: a fresh checkout gives the same models new modification
times, and must not throw an hour of perception away): a cache of another recording or other models is
not used (it is started afresh, with a warning). A line that does not parse (a review killed while
writing) ends what is trusted: the frames after it are perceived again.
"""

from __future__ import annotations

import hashlib
import json
import logging
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from monitor.perception.detections import Detections
from monitor.pipeline.perceive import Perception

log = logging.getLogger(__name__)
VERSION = 3  # 3: card detections carry rank and back_p


@lru_cache(maxsize=16)
def _digest(path: Path, size: int, mtime_ns: int) -> str:
    """A model file's content hash (once per process and version of the file: ~20 ms for 11 MB)."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()[:16]


def _ensemble_members(models_dir: Path) -> list[str]:
    """The member files ``cards_ensemble.json`` names (none if it is missing or malformed: the reader
    itself reports a malformed file when it loads)."""
    try:
        members = json.loads((models_dir / "cards_ensemble.json").read_text())["members"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    return [str(m) for m in members] if isinstance(members, list) else []


def fingerprint(video: Path, models_dir: Path | None, mode: str = "") -> dict[str, Any]:
    """What the cached detections depend on: the recording, the model files and how frames are
    perceived (``mode``: whole frames or changed regions)."""
    st = video.stat()
    models: dict[str, list[int | str]] = {}
    if models_dir is not None:
        # detector.json too: its per-class score thresholds decide which boxes are reported
        names = ["detector.onnx", "detector.json", "cards.onnx", "cards_corner.onnx", "cards_ensemble.json"]
        names += [m for m in _ensemble_members(models_dir) if m not in names]  # a third member and on
        for name in names:
            p = models_dir / name
            if p.exists():
                ms = p.stat()
                models[name] = [ms.st_size, _digest(p, ms.st_size, ms.st_mtime_ns)]
    out: dict[str, Any] = {"version": VERSION, "video": [video.name, st.st_size, st.st_mtime_ns],
                           "models": models}
    if mode:
        out["mode"] = mode
    return out


def _load(path: Path, header: dict[str, Any]) -> dict[int, Detections]:
    frames: dict[int, Detections] = {}
    with path.open(encoding="utf-8") as f:
        first = f.readline()
        try:
            head = json.loads(first)
        except ValueError:
            head = None
        if head != {"header": header}:
            log.warning("detections cache %s is of another recording or other models: perceiving afresh",
                        path)
            return {}
        for n, line in enumerate(f, start=2):
            try:
                row = json.loads(line)
                frames[int(row["frame"])] = Detections.from_dict(row["detections"])
            except (ValueError, KeyError, TypeError) as e:
                log.warning("detections cache %s line %d unreadable (%s): later frames perceived again",
                            path, n, e)
                break
    return frames


class CachedPerception:
    """A perception whose answers are kept in ``path`` and replayed on the next run of the same file."""

    def __init__(self, inner: Perception, path: Path, header: dict[str, Any]) -> None:
        self.inner = inner
        self.path = path
        self.frames = _load(path, header) if path.exists() else {}
        self.hits = 0
        self.label = inner.label
        self.sees_hands = getattr(inner, "sees_hands", True)
        self.track_conf = getattr(inner, "track_conf", None)
        self.counts_face_down = getattr(inner, "counts_face_down", True)
        self.index_reader = getattr(inner, "index_reader", None)  # reads from the frame, never cached
        self.warnings = list(getattr(inner, "warnings", []))
        path.parent.mkdir(parents=True, exist_ok=True)
        # rewrite what is trusted (drops a torn last line), then append as frames are perceived
        with path.open("w", encoding="utf-8") as f:
            f.write(json.dumps({"header": header}) + "\n")
            for i in sorted(self.frames):
                f.write(json.dumps({"frame": i, "detections": self.frames[i].to_dict()}) + "\n")
        self._out = path.open("a", encoding="utf-8")

    def see(self, index: int, image: np.ndarray) -> tuple[Detections, tuple[str, ...] | None]:
        got = self.frames.get(index)
        if got is not None:
            self.hits += 1
            return got, None
        detections, tracks = self.inner.see(index, image)
        self.frames[index] = detections
        self._out.write(json.dumps({"frame": index, "detections": detections.to_dict()}) + "\n")
        return detections, tracks

    def close(self) -> None:
        self._out.close()
