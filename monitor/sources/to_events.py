"""From source status and dice readings to contract events (``monitor.events.schema``).

Dice rolls become ``dice_rolled`` (values as read, also impossible ones: the procedure
monitor judges the range, Livermore rule 8); a camera or the dice reader going away and
coming back becomes ``device_lost`` / ``device_recovered``, once per outage however many
status events the outage produced. Everything else (bad lines, drops) stays in metrics.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

from monitor.events.schema import Device, DeviceLost, DeviceRecovered, DiceRolled, Source
from monitor.sources.dice_events import DiceEvent, InvalidDice, ReaderFailed, ReaderLost, ReaderRecovered
from monitor.sources.dice_events import DiceRolled as DiceReading
from monitor.sources.status import (
    PictureProblem,
    PictureRestored,
    SourceFailed,
    SourceLost,
    SourceRecovered,
    SourceStatus,
    VideoBroken,
    utc_now,
)

ContractEvent = DiceRolled | DeviceLost | DeviceRecovered


def short_name(name: str, limit: int = 64) -> str:
    """A device name within the contract's 64 characters: a long file path keeps its end (the file's
    own name and folder say which camera), cut at a folder and marked as cut.

    >>> short_name("/work/main/monitor/render/rounds/sample_recording/video.mp4 frames")
    '…/main/monitor/render/rounds/sample_recording/video.mp4 frames'
    """
    if len(name) <= limit:
        return name
    tail = name[-(limit - 1):]
    cut = tail.find("/")
    return "…" + (tail[cut:] if 0 <= cut < len(tail) - 1 else tail)


class SourceEventMapper:
    """Maps one table's source and dice events to contract events.

    ``media_now`` gives the media time to stamp on an event that has no frame of its own
    (a dice roll arrives between frames: it gets the media time of the newest frame).
    ``next_seq`` is the table's shared event counter; by default the mapper keeps its own.
    """

    def __init__(
        self,
        table_id: str,
        media_now: Callable[[], float],
        next_seq: Callable[[], int] | None = None,
    ) -> None:
        self.table_id = table_id
        self._media_now = media_now
        counter = itertools.count()
        self._next_seq = next_seq or (lambda: next(counter))
        self._lock = threading.Lock()
        self._down: set[tuple[Device, str]] = set()

    def from_dice(self, event: DiceEvent) -> ContractEvent | None:
        if isinstance(event, DiceReading | InvalidDice):
            values = [max(-100, min(100, v)) for v in event.values]  # the schema's bound; still impossible
            return DiceRolled(values=values, **self._common(event.wall_time, Source.DICE_READER))
        if isinstance(event, ReaderLost | ReaderFailed):
            return self._lost(Device.DICE_READER, event.port, event.reason, event.wall_time)
        if isinstance(event, ReaderRecovered):
            return self._recovered(Device.DICE_READER, event.port, event.wall_time)
        return None

    def from_source(self, status: SourceStatus) -> ContractEvent | None:
        if isinstance(status, SourceLost | SourceFailed):
            return self._lost(Device.CAMERA, status.source_id, status.reason, status.wall_time)
        if isinstance(status, VideoBroken):
            return self._lost(Device.CAMERA, status.source_id, status.message, status.wall_time)
        if isinstance(status, PictureProblem):
            return self._lost(Device.CAMERA, status.source_id, status.problem, status.wall_time)
        if isinstance(status, SourceRecovered | PictureRestored):
            return self._recovered(Device.CAMERA, status.source_id, status.wall_time)
        return None

    def frames_missed(self, camera: str, detail: str) -> DeviceLost | None:
        """The chain behind its camera (``FrameCoverage``): the camera works, but the monitor sees only
        part of its frames. A device of its own name, so the camera's own outages stay apart."""
        return self._lost(Device.CAMERA, f"{camera} frames", detail, utc_now())

    def frames_caught_up(self, camera: str) -> DeviceRecovered | None:
        return self._recovered(Device.CAMERA, f"{camera} frames", utc_now())

    def _lost(self, device: Device, name: str, detail: str, wall_time: Any) -> DeviceLost | None:
        with self._lock:
            if (device, name) in self._down:
                return None  # the same outage, reported again (e.g. gave up after reconnecting)
            self._down.add((device, name))
        return DeviceLost(
            device=device, name=short_name(name), detail=detail[:200],
            **self._common(wall_time, _source(device)),
        )

    def _recovered(self, device: Device, name: str, wall_time: Any) -> DeviceRecovered | None:
        with self._lock:
            if (device, name) not in self._down:
                return None
            self._down.discard((device, name))
        return DeviceRecovered(device=device, name=short_name(name),
                               **self._common(wall_time, _source(device)))

    def _common(self, wall_time: Any, source: Source) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "seq": self._next_seq(),
            "media_time": max(0.0, float(self._media_now())),
            "wall_time": wall_time,
            "source": source,
        }


def _source(device: Device) -> Source:
    return Source.DICE_READER if device is Device.DICE_READER else Source.VISION
