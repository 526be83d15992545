"""Capture backends: the one place that talks to OpenCV's VideoCapture.

The source logic (state, reconnects, pacing, buffers) works against the small
``CaptureBackend`` protocol, so a camera that drops and returns can be tested
with a fake backend and a real file with the OpenCV one.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Protocol

import numpy as np


class SourceKind(StrEnum):
    USB = "usb"
    RTSP = "rtsp"
    FILE = "file"

    @property
    def is_live(self) -> bool:
        return self is not SourceKind.FILE


class OpenError(RuntimeError):
    """The device or file could not be opened; the message says which and why."""


class ReadError(RuntimeError):
    """The decoder failed on a frame (corrupt data)."""


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """Where frames come from, parsed from what a user types.

    >>> SourceSpec.parse("0")
    SourceSpec(kind=<SourceKind.USB: 'usb'>, target=0)
    >>> SourceSpec.parse("rtsp://cam-3.local/stream1").kind.value
    'rtsp'
    >>> SourceSpec.parse("recordings/table1.mp4").kind.value
    'file'
    """

    kind: SourceKind
    target: int | str

    @classmethod
    def parse(cls, text: str | int) -> SourceSpec:
        if isinstance(text, int) or re.fullmatch(r"\d+", text.strip()):
            return cls(SourceKind.USB, int(text))
        if re.match(r"^(rtsp|rtsps|rtmp|http|https|udp|tcp)://", text, re.IGNORECASE):
            return cls(SourceKind.RTSP, text)
        return cls(SourceKind.FILE, text)

    @property
    def label(self) -> str:
        if self.kind is SourceKind.USB:
            return f"usb:{self.target}"
        if self.kind is SourceKind.RTSP:
            # never put stream credentials into ids, logs or alerts
            return re.sub(r"//[^/@]*@", "//", str(self.target))
        return str(self.target)


class CaptureBackend(Protocol):
    """What a source needs from a capture device."""

    def open(self) -> None:
        """Open the device; raise ``OpenError`` with the reason if it cannot."""

    def read(self) -> np.ndarray | None:
        """The next frame (BGR), or None when no frame came (end of file, camera gone).

        Raise ``ReadError`` when the decoder fails on corrupt data.
        """

    def close(self) -> None: ...

    @property
    def fps(self) -> float | None:
        """Nominal frames per second, if the device or container says."""

    @property
    def frame_count(self) -> int | None:
        """Frames in a file according to its container, if known."""


class OpenCVCapture:
    """``cv2.VideoCapture`` behind the ``CaptureBackend`` protocol."""

    def __init__(self, spec: SourceSpec, open_timeout_ms: int = 5000, read_timeout_ms: int = 5000) -> None:
        self.spec = spec
        self._open_timeout_ms = open_timeout_ms
        self._read_timeout_ms = read_timeout_ms
        self._cap: object | None = None

    def open(self) -> None:
        import cv2

        if self.spec.kind is SourceKind.FILE:
            path = Path(str(self.spec.target))
            if not path.exists():
                raise OpenError(f"video file {path} does not exist")
            if not path.is_file():
                raise OpenError(f"video file {path} is not a regular file")
            if path.stat().st_size == 0:
                raise OpenError(f"video file {path} is empty (0 bytes)")
        params: list[int] = []
        if self.spec.kind is SourceKind.RTSP:
            # RTSP over TCP: UDP drops packets on busy networks and smears frames (unless the user chose)
            os.environ.setdefault("OPENCV_FFMPEG_CAPTURE_OPTIONS", "rtsp_transport;tcp")
            # without these a dead RTSP server blocks open/read for ~30 s
            params = [
                cv2.CAP_PROP_OPEN_TIMEOUT_MSEC,
                self._open_timeout_ms,
                cv2.CAP_PROP_READ_TIMEOUT_MSEC,
                self._read_timeout_ms,
            ]
        cap = cv2.VideoCapture(self.spec.target, cv2.CAP_ANY, params)
        if not cap.isOpened():
            cap.release()
            if self.spec.kind is SourceKind.FILE:
                raise OpenError(
                    f"video file {self.spec.target} cannot be opened: not a readable video "
                    "(unknown format, or corrupt/truncated header or index)"
                )
            raise OpenError(f"cannot open {self.spec.kind.value} source {self.spec.label}")
        self._cap = cap

    def read(self) -> np.ndarray | None:
        import cv2

        cap = self._cap
        if cap is None:
            return None
        assert isinstance(cap, cv2.VideoCapture)
        try:
            ok, image = cap.read()
        except cv2.error as exc:
            raise ReadError(str(exc).strip().splitlines()[-1]) from exc
        return image if ok and image is not None else None

    def grab(self) -> bool:
        """Decode the next frame without converting it (a frame that is not handed out); False at the end."""
        import cv2

        cap = self._cap
        if not isinstance(cap, cv2.VideoCapture):
            return False
        try:
            return bool(cap.grab())
        except cv2.error as exc:
            raise ReadError(str(exc).strip().splitlines()[-1]) from exc

    def seek(self, frame: int) -> bool:
        """Position a file so the next read returns frame number ``frame``; False if it cannot."""
        import cv2

        cap = self._cap
        if not isinstance(cap, cv2.VideoCapture) or self.spec.kind is not SourceKind.FILE:
            return False
        if not cap.set(cv2.CAP_PROP_POS_FRAMES, frame):
            return False
        return round(cap.get(cv2.CAP_PROP_POS_FRAMES)) == frame

    def close(self) -> None:
        import cv2

        if isinstance(self._cap, cv2.VideoCapture):
            self._cap.release()
        self._cap = None

    @property
    def fps(self) -> float | None:
        return self._prop("CAP_PROP_FPS", lambda v: 0 < v < 1000)

    @property
    def frame_count(self) -> int | None:
        if self.spec.kind is not SourceKind.FILE:
            return None
        count = self._prop("CAP_PROP_FRAME_COUNT", lambda v: v > 0)
        return int(count) if count is not None else None

    def _prop(self, name: str, valid: object) -> float | None:
        import cv2

        if not isinstance(self._cap, cv2.VideoCapture):
            return None
        value = float(self._cap.get(getattr(cv2, name)))
        if math.isnan(value) or not callable(valid) or not valid(value):
            return None
        return value
