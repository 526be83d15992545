"""One file's review job and its result: plain, picklable data (it crosses processes and machines).

A session's files get disjoint sequence-number ranges (``seq_base``), so their events, rounds
("r<seq>") and alerts never collide when the session is merged and stored, whichever worker
reviewed which file, in whatever order.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SEQ_STRIDE = 100_000_000  # events per file at most: ~900 days of video at 30 fps, an event a frame

# A review's runtime: ONNX Runtime on one thread reviewed 1080p at 15 fps perceived 4.5-5.1x real time
# where OpenVINO on two threads reached 3.6-3.9x (the other core decodes and runs the chain;
# `bench review`, docs/benchmarks.md). The live monitor runs the same runtime on two threads: there a
# frame's latency counts, not throughput.
REVIEW_BACKEND = "onnxruntime"
REVIEW_THREADS = 1


@dataclass(frozen=True, slots=True)
class GateSettings:
    """Which frames are perceived: every ``stride``-th, and of those the ones the motion gate
    (:class:`monitor.sources.motion.MotionGate`) keeps (``enabled=False``: all of them)."""

    enabled: bool = True
    min_changed: float = 0.0005
    # frames kept this long after the last motion: the stub's picture must lie still 0.5 s before it is
    # counted (monitor.pipeline.chain.SPREAD_STILL_S), after the spot watcher's three still looks
    settle_s: float = 1.0
    keepalive_s: float = 2.0
    # Perceive every ``stride``-th frame at most; ``None``: the largest stride that still perceives
    # ``perceive_fps`` frames a second (never fewer). 15 is the rate the end-to-end proof covers (the
    # fault scripts and the hundred clean rounds are rendered at 15 fps and perceived frame by frame),
    # and a 30 fps recording at stride 2 or 3 raises the same alerts at the same times as at stride 1
    # (docs/benchmarks.md).
    stride: int | None = None
    perceive_fps: float = 15.0

    def stride_for(self, fps: float) -> int:
        """The stride for a recording of ``fps`` frames a second (29.97 fps counts as 30)."""
        if self.stride is not None:
            return max(1, self.stride)
        return max(1, int(fps / self.perceive_fps + 0.01))


@dataclass(frozen=True, slots=True)
class FileJob:
    index: int  # place in the session (sets the sequence range)
    video: str
    table: str  # table file (YAML)
    out: str  # the review's output folder
    table_id: str | None = None  # the session's table id in events and the store (default: the table file's)
    perception: str = "auto"  # auto | models | oracle
    truth: str | None = None
    events: str | None = None  # console and dice log
    models: str | None = None
    gate: GateSettings = field(default_factory=GateSettings)
    clip_before_s: float = 2.5
    clip_after_s: float = 2.5
    clips: bool = True
    threads: int = REVIEW_THREADS  # perception threads
    backend: str = REVIEW_BACKEND  # inference runtime of the models (monitor.perception.backends)
    detections_cache: str | None = None  # folder of recorded perception (models only), replayed on re-runs
    whole_frames: bool = False  # perceive every kept frame whole, not only where it changed

    @property
    def key(self) -> str:
        """A folder name for this file's outputs: its stem and a hash of where it is."""
        path = Path(self.video)
        digest = hashlib.blake2b(str(path.resolve()).encode(), digest_size=4).hexdigest()
        return f"{self.index:03d}-{path.stem[:40]}-{digest}"

    @property
    def seq_base(self) -> int:
        return self.index * SEQ_STRIDE

    @property
    def folder(self) -> Path:
        return Path(self.out) / "files" / self.key


@dataclass
class FileResult:
    """What one file's review found; also its checkpoint (``done`` False: resumable)."""

    video: str
    index: int
    key: str
    perception: str = ""
    fps: float = 30.0
    frames_total: int | None = None  # as the container announces
    next_frame: int = 0  # where a resumed review starts
    next_seq: int = 0
    outside_done: int = 0  # console and dice events already fed
    events: int = 0  # lines in this file's events.jsonl
    frames_read: int = 0
    frames_kept: int = 0  # through the motion gate
    stride: int = 1  # every n-th frame was perceived at most
    seconds: float = 0.0  # wall time spent reviewing (over every run)
    media_this_run_s: float = 0.0  # media time reviewed by the latest run (0 when it was already done)
    hands: list[dict[str, Any]] = field(default_factory=list)
    alerts: list[dict[str, Any]] = field(default_factory=list)
    done: bool = False
    error: str | None = None  # the file could not be read to its end (what was reviewed is kept)
    resumed_from: list[int] = field(default_factory=list)  # frames where an interrupted review resumed
    warnings: list[str] = field(default_factory=list)
    identity: dict[str, Any] = field(default_factory=dict)  # size and mtime of the video reviewed

    @property
    def media_s(self) -> float:
        """Media time reviewed."""
        return self.next_frame / self.fps if self.fps else 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileResult:
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})
