"""What each tracked object did: appeared, settled in a zone, turned over, vanished.

Trackers say where every object is in each frame; table state needs *changes*, and only
the ones that last: a card dealt to pile 3 flies over the centre before it lands, and a
classifier may flicker between face-up and face-down for a frame. A zone or a face counts
once it has held for ``settle_s`` of media time; a track unseen for ``vanish_after_s`` is gone.
These changes are what deal counting, exposed cards and pile deliveries are built from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from monitor.tablestate.tracking import Tracked

ChangeKind = Literal["appeared", "settled", "flipped", "vanished"]
FACES = {"card_face_up": "up", "card_face_down": "down"}


@dataclass(frozen=True, slots=True)
class TrackChange:
    change: ChangeKind
    track_id: int
    kind: str  # the object's detection kind at the time (after a flip: the new face)
    zone: str  # appeared: where first seen; settled: the new zone; vanished: the last settled zone
    previous_zone: str | None
    media_time_s: float  # when the change began (a settle is dated from the first frame in the zone)


@dataclass
class _Track:
    kind: str
    settled_zone: str | None
    zone: str
    zone_since: float
    face: str | None
    face_candidate: str | None
    face_since: float
    last_seen: float


class TrackBook:
    def __init__(self, settle_s: float = 0.3, vanish_after_s: float = 1.0) -> None:
        self.settle_s = settle_s
        self.vanish_after_s = vanish_after_s
        self._tracks: dict[int, _Track] = {}

    def update(self, tracked: list[Tracked], media_time_s: float) -> list[TrackChange]:
        t = media_time_s
        out: list[TrackChange] = []
        for item in tracked:
            kind, zone = item.placed.kind, item.placed.zone
            face = FACES.get(kind)
            track = self._tracks.get(item.track_id)
            if track is None:
                self._tracks[item.track_id] = _Track(kind, None, zone, t, face, face, t, t)
                out.append(TrackChange("appeared", item.track_id, kind, zone, None, t))
                continue
            track.last_seen = t
            if zone != track.zone:
                track.zone, track.zone_since = zone, t
            if track.zone != track.settled_zone and t - track.zone_since >= self.settle_s:
                out.append(TrackChange("settled", item.track_id, kind, track.zone, track.settled_zone,
                                       track.zone_since))
                track.settled_zone = track.zone
            if face != track.face_candidate:
                track.face_candidate, track.face_since = face, t
            if (track.face_candidate != track.face and track.face_candidate is not None
                    and t - track.face_since >= self.settle_s):
                if track.face is not None:
                    out.append(TrackChange("flipped", item.track_id, kind, track.zone, track.settled_zone,
                                           track.face_since))
                track.face = track.face_candidate
            track.kind = kind
        for track_id, track in list(self._tracks.items()):
            if t - track.last_seen >= self.vanish_after_s:
                zone = track.settled_zone or track.zone
                out.append(TrackChange("vanished", track_id, track.kind, zone, None, track.last_seen))
                del self._tracks[track_id]
        return out

    @property
    def live(self) -> int:
        return len(self._tracks)
