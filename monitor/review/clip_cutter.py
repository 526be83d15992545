"""Alerts' clips cut while the review goes on, not after it.

A review keeps about one core and a half busy on two cores (one perception thread, the decoder and
the chain), and a clip costs about a CPU-second (5 s of 1080p decoded, scaled, encoded). Cut at the
end, five clips added a quarter to a 58 s review (`bench review`, docs/benchmarks.md); cut on a worker
thread as soon as the video has passed each clip's end, they use the core the review leaves.

The worker only runs ffmpeg; the alerts are touched on the review's own thread (:meth:`advance`,
:meth:`finish`), so a checkpoint never reads an alert being written. A clip that failed or was still
being cut when the review stopped is cut again by :func:`~monitor.review.clips.attach_media` at the
end, which reports it if it fails again.
"""

from __future__ import annotations

import logging
import subprocess
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from monitor.review.clips import ClipSpec, cut_clip

log = logging.getLogger(__name__)


class ClipCutter:
    """Clips of the alerts handed to :meth:`offer`, cut one at a time on a worker thread."""

    def __init__(self, video: Path, folder: Path, spec: ClipSpec) -> None:
        self._video = video
        self._folder = folder
        self._spec = replace(spec, threads=1)  # beside the review: one thread, not a core each
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clips")
        self._waiting: list[dict[str, Any]] = []
        self._running: list[tuple[dict[str, Any], Future[tuple[float, float]]]] = []

    def offer(self, alerts: list[dict[str, Any]]) -> None:
        """Alerts just raised; those with a media time get a clip once the video passes its end."""
        self._waiting += [a for a in alerts if a.get("media") and not a.get("clip")]

    def advance(self, media_s: float) -> None:
        """The review has read the video up to ``media_s``: start the clips that end before it and
        attach the ones done."""
        if self._waiting:
            later = []
            for alert in self._waiting:
                if self._trigger(alert) + self._spec.after_s <= media_s:
                    self._submit(alert)
                else:
                    later.append(alert)
            self._waiting = later
        if self._running and self._running[0][1].done():
            self._collect(wait=False)

    def finish(self, until_s: float) -> None:
        """Cut the clips of alerts up to ``until_s`` still waiting, wait for all and attach them."""
        for alert in self._waiting:
            if self._trigger(alert) <= until_s:
                self._submit(alert)
        self._waiting.clear()
        self._collect(wait=True)
        self._pool.shutdown(wait=True)

    def abandon(self) -> None:
        """The review stopped: drop what is not cut yet (a resumed review cuts it)."""
        self._waiting.clear()
        self._pool.shutdown(wait=False, cancel_futures=True)

    @property
    def waiting(self) -> list[str]:
        """The ids of the alerts whose clip waits for the video to pass its end."""
        return [str(a["id"]) for a in self._waiting]

    @property
    def cutting(self) -> list[str]:
        """The ids of the alerts whose clip was started and is not attached yet, in the order started."""
        return [str(a["id"]) for a, _ in self._running]

    @staticmethod
    def _trigger(alert: dict[str, Any]) -> float:
        return float(alert["media"]["trigger"])

    def _submit(self, alert: dict[str, Any]) -> None:
        out = self._folder / "clips" / f"{alert['id']}.mp4"
        self._running.append((alert, self._pool.submit(cut_clip, self._video, self._trigger(alert), out,
                                                       self._spec)))

    def _collect(self, wait: bool) -> None:
        still = []
        for alert, future in self._running:
            if not (wait or future.done()):
                still.append((alert, future))
                continue
            try:
                begin, end = future.result()
            except (OSError, subprocess.TimeoutExpired) as e:
                log.debug("clip for alert %s not cut beside the review: %s", alert.get("id"), e)
                continue
            alert["clip"] = {"path": f"{alert['id']}.mp4", "begin": round(begin, 3), "end": round(end, 3)}
        self._running = still
