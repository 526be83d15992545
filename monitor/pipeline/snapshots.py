"""Snapshots for alerts: the recent frames kept small, and the JPEG of the one that shows the fault.

The orchestrator keeps the last frames it processed (downscaled, in a bounded ring). The procedure
feed is wrapped so every alert it raises gets, before it is stored and pushed, the JPEG of the frame
nearest its trigger time, written under the API's snapshot directory and named by the alert id (so
a resent alert overwrites its own picture, never another's). Whoever else wants each picture (the
forwarder to a central server) is told once it is written (``on_written``).
"""

from __future__ import annotations

import bisect
import logging
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from monitor.alerts.model import Alert
from monitor.events.schema import Event
from monitor.procedure.feed_contract import FeedOutput, ProcedureFeed
from monitor.rules.profile import PaiGowProfile

log = logging.getLogger(__name__)


class FrameRing:
    """The last ``size`` frames (media time, frame index, image at most ``width`` px wide).

    Live, each frame is shrunk (and so copied: the source may reuse its buffer) as it is kept. With
    ``lazy`` the frames are kept as handed in and only the one a snapshot takes is shrunk: a review's
    source hands out a new array per frame, and shrinking every 1080p frame would cost more than the
    rest of its chain (monitor.review).
    """

    def __init__(self, size: int = 48, width: int = 960, lazy: bool = False) -> None:
        self.width = width
        self.lazy = lazy
        self._frames: deque[tuple[float, int, np.ndarray]] = deque(maxlen=size)
        self._lock = threading.Lock()

    def _shrink(self, image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        if w > self.width:
            return cv2.resize(image, (self.width, round(h * self.width / w)), interpolation=cv2.INTER_AREA)
        return image

    def add(self, media_time: float, index: int, image: np.ndarray) -> None:
        if not self.lazy:
            shrunk = self._shrink(image)
            image = shrunk if shrunk is not image else image.copy()
        with self._lock:
            self._frames.append((media_time, index, image))

    def nearest(self, media_time: float) -> tuple[float, int, np.ndarray] | None:
        with self._lock:
            frames = list(self._frames)
        if not frames:
            return None
        times = [f[0] for f in frames]
        i = bisect.bisect_left(times, media_time)
        t, index, image = min(frames[max(0, i - 1):i + 1], key=lambda f: abs(f[0] - media_time))
        return t, index, self._shrink(image) if self.lazy else image


class SnapshotFeed:
    """A :class:`ProcedureFeed` that attaches a snapshot to each alert it passes on."""

    def __init__(self, inner: ProcedureFeed, ring: FrameRing, folder: Path, max_gap_s: float = 2.0,
                 on_written: Callable[[str, Path], None] | None = None) -> None:
        self.inner = inner
        self.ring = ring
        self.folder = folder
        self.max_gap_s = max_gap_s
        self.on_written = on_written
        self.written = 0

    def warm_up(self) -> None:
        self.inner.warm_up()

    def profile_for(self, table_id: str) -> PaiGowProfile:
        return self.inner.profile_for(table_id)

    def push(self, event: Event) -> FeedOutput:
        return self._attach(self.inner.push(event))

    def flush(self) -> FeedOutput:
        return self._attach(self.inner.flush())

    def close(self) -> FeedOutput:
        return self._attach(self.inner.close())

    def _attach(self, out: FeedOutput) -> FeedOutput:
        out.alerts = [self._one(a) for a in out.alerts]
        return out

    def _one(self, alert: Alert) -> Alert:
        if alert.media is None or alert.snapshot_path is not None:
            return alert
        found = self.ring.nearest(alert.media.trigger)
        if found is None or abs(found[0] - alert.media.trigger) > self.max_gap_s:
            return alert  # no frame of that moment kept (e.g. a replayed old event)
        name = f"{alert.id}.jpg"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            ok, data = cv2.imencode(".jpg", found[2], [cv2.IMWRITE_JPEG_QUALITY, 85])
            if not ok:
                raise OSError("JPEG encoding failed")
            (self.folder / name).write_bytes(data.tobytes())
        except OSError as e:  # a full disk must not stop the alert itself
            log.warning("snapshot for alert %s not written: %s", alert.id, e)
            return alert
        self.written += 1
        if self.on_written is not None:
            try:
                self.on_written(alert.id, self.folder / name)
            except Exception:  # the alert is stored and pushed whatever a listener does
                log.exception("snapshot listener failed for alert %s", alert.id)
        details = {**alert.details, "snapshot_frame": found[1], "snapshot_media_time": round(found[0], 3)}
        return alert.model_copy(update={"snapshot_path": name, "details": details})
