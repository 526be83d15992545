"""Stable ids for physical objects across frames: ByteTrack (Roboflow ``trackers``) on table boxes.

Tracking runs on the objects' boxes in table millimetres, so it does not care how the camera
looks at the table, and it is fed media time, so skipped frames (review skips still spans)
are handled as elapsed time rather than as one step. Face-up and face-down cards share one
tracker: a card turned over is the same card.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from monitor.tablestate.placement import Placed

# objects that can turn into each other are tracked together
GROUPS: dict[str, str] = {
    "card_face_up": "cards",
    "card_face_down": "cards",
    "pile": "piles",
    "chip": "chips",
    "dice": "dice",
    "hand": "hands",
}


@dataclass(frozen=True, slots=True)
class Tracked:
    track_id: int  # unique across groups within one ObjectTracker
    placed: Placed


# A detection starts a track from this score (ByteTrack's activation threshold; lower ones only extend
# tracks). A detector whose scores run lower says its own in its metadata (``track_conf``).
ACTIVATION_CONFIDENCE = 0.4


class ObjectTracker:
    """One ByteTrack per object group; ``update`` once per frame with that frame's placed detections."""

    def __init__(
        self,
        lost_after_s: float = 1.0,
        frame_rate: float = 30.0,
        activation_confidence: float = ACTIVATION_CONFIDENCE,
        confirm_frames: int = 2,
        min_iou: float = 0.1,
    ) -> None:
        self._settings: dict[str, Any] = {
            "lost_track_buffer": max(1, round(lost_after_s * frame_rate)),
            "frame_rate": frame_rate,
            "track_activation_threshold": activation_confidence,
            "minimum_consecutive_frames": confirm_frames,
            "minimum_iou_threshold": min_iou,
            "high_conf_det_threshold": activation_confidence,
        }
        self._trackers: dict[str, Any] = {}
        self._ids: dict[tuple[str, int], int] = {}
        self._next_id = 1

    def update(self, placed: list[Placed], media_time_s: float) -> list[Tracked]:
        """Objects confirmed as tracks in this frame (new objects appear after ``confirm_frames``)."""
        import supervision as sv

        out: list[Tracked] = []
        by_group: dict[str, list[int]] = {group: [] for group in set(GROUPS.values())}
        for i, p in enumerate(placed):
            by_group[GROUPS.get(p.kind, p.kind)].append(i)
        for group, indices in by_group.items():
            tracker = self._tracker(group)
            if indices:
                detections = sv.Detections(
                    xyxy=np.array([placed[i].box_mm for i in indices], dtype=np.float64),
                    confidence=np.array([placed[i].detection.confidence for i in indices], dtype=np.float64),
                    class_id=np.zeros(len(indices), dtype=int),
                    data={"index": np.array(indices, dtype=int)},
                )
            else:
                detections = sv.Detections.empty()
            result = tracker.update(detections, timestamp=media_time_s)
            if len(result) == 0:
                continue
            for tid, index in zip(result.tracker_id, result.data["index"], strict=True):
                if tid < 0:
                    continue  # not confirmed yet
                out.append(Tracked(self._global_id(group, int(tid)), placed[int(index)]))
        return sorted(out, key=lambda t: t.track_id)

    def _tracker(self, group: str) -> Any:
        if group not in self._trackers:
            from trackers import ByteTrackTracker

            self._trackers[group] = ByteTrackTracker(**self._settings)
        return self._trackers[group]

    def _global_id(self, group: str, local: int) -> int:
        key = (group, local)
        if key not in self._ids:
            self._ids[key] = self._next_id
            self._next_id += 1
        return self._ids[key]
