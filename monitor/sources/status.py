"""Typed status events and counters that sources report to their status handlers.

Faults (a camera lost, a broken video file) are values here, never exceptions
into the pipeline: the monitor turns ``is_fault`` events into device alerts and
``SourceRecovered`` into the matching recovery.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime

from monitor.sources.state import SourceState


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceStatus:
    source_id: str
    wall_time: datetime = field(default_factory=utc_now)

    @property
    def is_fault(self) -> bool:
        return False

    @property
    def message(self) -> str:
        return f"source {self.source_id}: {type(self).__name__}"


@dataclass(frozen=True, slots=True, kw_only=True)
class StateChanged(SourceStatus):
    old: SourceState
    new: SourceState

    @property
    def message(self) -> str:
        return f"source {self.source_id}: {self.old.value} -> {self.new.value}"


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceLost(SourceStatus):
    """A live source stopped delivering (camera unplugged, stream down); reconnecting."""

    reason: str
    last_frame_index: int

    @property
    def is_fault(self) -> bool:
        return True

    @property
    def message(self) -> str:
        if self.last_frame_index < 0:
            return f"camera {self.source_id} unavailable: {self.reason}"
        return f"camera {self.source_id} lost after frame {self.last_frame_index}: {self.reason}"


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceRecovered(SourceStatus):
    attempts: int
    downtime_s: float

    @property
    def message(self) -> str:
        return (
            f"camera {self.source_id} recovered after {self.downtime_s:.1f} s "
            f"({self.attempts} reconnect attempt{'s' if self.attempts != 1 else ''})"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceFailed(SourceStatus):
    """The source gave up: cannot open, reconnect attempts exhausted, or a broken file."""

    reason: str

    @property
    def is_fault(self) -> bool:
        return True

    @property
    def message(self) -> str:
        return f"source {self.source_id} failed: {self.reason}"


@dataclass(frozen=True, slots=True, kw_only=True)
class VideoBroken(SourceStatus):
    """A video file that stops decoding before its end; the frames before it were delivered."""

    path: str
    frame_index: int
    expected_frames: int | None
    detail: str

    @property
    def is_fault(self) -> bool:
        return True

    @property
    def message(self) -> str:
        of = f" of {self.expected_frames}" if self.expected_frames is not None else ""
        return (
            f"video file {self.path} is corrupt or truncated: decoding broke at frame "
            f"{self.frame_index}{of} ({self.detail}); the frames before it were kept"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class PictureProblem(SourceStatus):
    """A connected live camera whose picture is unusable (frozen or blind); frames still flow."""

    problem: str

    @property
    def is_fault(self) -> bool:
        return True

    @property
    def message(self) -> str:
        return f"camera {self.source_id} shows no usable picture: {self.problem}"


@dataclass(frozen=True, slots=True, kw_only=True)
class PictureRestored(SourceStatus):
    problem: str
    duration_s: float

    @property
    def message(self) -> str:
        return f"camera {self.source_id} picture is back after {self.duration_s:.1f} s ({self.problem})"


@dataclass(frozen=True, slots=True, kw_only=True)
class FrameDropped(SourceStatus):
    frame_index: int

    @property
    def message(self) -> str:
        return f"source {self.source_id}: frame {self.frame_index} dropped (consumer too slow)"


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceEnded(SourceStatus):
    frames: int

    @property
    def message(self) -> str:
        return f"source {self.source_id} ended after {self.frames} frames"


@dataclass(frozen=True, slots=True)
class SourceMetrics:
    """A snapshot of a source's counters (health and metrics for the API)."""

    source_id: str
    state: SourceState
    captured: int
    dropped: int
    consumed: int
    reconnects: int
    queued: int


class Counters:
    """Thread-safe counters shared by the capture thread and consumers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.captured = 0
        self.dropped = 0
        self.consumed = 0
        self.reconnects = 0

    def add(self, name: str, n: int = 1) -> None:
        with self._lock:
            setattr(self, name, getattr(self, name) + n)
