"""``VideoSource``: frames from a camera, a stream or a file, on a capture thread.

The source is a state machine (``state.py``); backpressure is two policies
(``policy.py``); faults are status events (``status.py``). A live source that
loses its camera reconnects with exponential backoff forever (unless told
otherwise); a file that stops decoding early ends in ERROR with a message naming
the file and the frame, and every frame read before that stays deliverable.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from types import TracebackType

import numpy as np

from monitor.sources.backend import CaptureBackend, OpenCVCapture, OpenError, ReadError, SourceSpec
from monitor.sources.backoff import Backoff
from monitor.sources.frame import Frame
from monitor.sources.picture_health import PictureHealth
from monitor.sources.policy import BoundedBuffer, ConsumePolicy, FillPolicy
from monitor.sources.state import READ_ALLOWED, START_ALLOWED, SourceState, StateMachine
from monitor.sources.status import (
    Counters,
    FrameDropped,
    PictureProblem,
    PictureRestored,
    SourceEnded,
    SourceFailed,
    SourceLost,
    SourceMetrics,
    SourceRecovered,
    SourceStatus,
    StateChanged,
    VideoBroken,
    utc_now,
)

log = logging.getLogger(__name__)
_SKIPPED = np.zeros((0, 0, 3), dtype=np.uint8)  # a frame decoded but not handed out (deliver_every)

StatusHandler = Callable[[SourceStatus], None]


@dataclass(frozen=True, slots=True)
class SourceOptions:
    """How a source behaves; ``None`` fields take the default for live or file sources.

    Live defaults: drop the oldest frame, hand out the newest, reconnect forever.
    File defaults: wait for the consumer, hand out every frame, no reconnect, and
    decode as fast as the consumer takes frames (``realtime=True`` paces at the
    file's frame rate, e.g. to play a recording as if it were a camera).
    """

    realtime: bool | None = None
    loop: bool = False
    fill: FillPolicy | None = None
    consume: ConsumePolicy | None = None
    buffer_size: int = 8
    reconnect: bool | None = None
    backoff: Backoff = field(default_factory=Backoff)
    fallback_fps: float = 30.0
    # consecutive empty reads before a live source counts as lost (USB cameras hiccup)
    failures_before_lost: int = 3
    # files: begin at this frame number (resuming an interrupted review); indices stay file frame numbers
    start_frame: int = 0
    # files: hand out only frames whose number is a multiple of this; the others are decoded (H.264
    # needs them) but not converted to BGR, which is ~40% of a 1080p frame's decode (a review at stride n)
    deliver_every: int = 1
    # live sources: report a frozen or blind picture (None: on for live sources, off for files)
    picture_check: bool | None = None
    frozen_after_s: float = 10.0
    blind_after_s: float = 5.0

    @classmethod
    def live_playback(cls, loop: bool = False, buffer_size: int = 2) -> SourceOptions:
        """A video file played as if it were a live camera (the demo): paced at its frame rate, the
        oldest frame dropped when the consumer lags, the newest handed out."""
        return cls(
            realtime=True,
            loop=loop,
            fill=FillPolicy.DROP_OLDEST,
            consume=ConsumePolicy.EAGER,
            buffer_size=buffer_size,
        )


class _Outcome(Enum):
    STOPPED = "stopped"
    END_OF_FILE = "end_of_file"
    LOST = "lost"
    BROKEN = "broken"


class VideoSource:
    """A running frame source. Use ``start()``/``stop()`` or ``with``; read with ``read()`` or iterate."""

    def __init__(
        self,
        spec: SourceSpec,
        options: SourceOptions | None = None,
        backend_factory: Callable[[], CaptureBackend] | None = None,
        source_id: str | None = None,
        status_handlers: list[StatusHandler] | None = None,
    ) -> None:
        self.spec = spec
        self.source_id = source_id or spec.label
        opts = options or SourceOptions()
        live = spec.kind.is_live
        self.live = live
        self.realtime = opts.realtime if opts.realtime is not None else live
        self.loop = opts.loop
        self.reconnect = opts.reconnect if opts.reconnect is not None else live
        self.options = opts
        self._backend_factory = backend_factory or (lambda: OpenCVCapture(spec))
        self._handlers: list[StatusHandler] = list(status_handlers or [])
        self._counters = Counters()
        self._machine = StateMachine(self.source_id, self._state_changed)
        self._buffer: BoundedBuffer[Frame] = BoundedBuffer(
            opts.buffer_size,
            opts.fill or (FillPolicy.DROP_OLDEST if live else FillPolicy.WAIT),
            opts.consume or (ConsumePolicy.EAGER if live else ConsumePolicy.LAZY),
            on_drop=self._frame_dropped,
        )
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._next_index = 0
        self._started_at = 0.0
        self._last_media_time = 0.0
        check = opts.picture_check if opts.picture_check is not None else live
        self._picture = PictureHealth(opts.frozen_after_s, opts.blind_after_s) if check else None
        self.error: str | None = None

    # -- public API -------------------------------------------------------------------

    @property
    def state(self) -> SourceState:
        return self._machine.state

    def media_time_now(self) -> float:
        """The media time of "now": for a live source, seconds since start (also while the camera
        is down); for a file, the media time of the newest frame read. Stamps events that arrive
        between frames, such as dice rolls."""
        if self.live:
            return time.monotonic() - self._started_at if self._started_at else 0.0
        return self._last_media_time

    def add_status_handler(self, handler: StatusHandler) -> None:
        self._handlers.append(handler)

    def start(self) -> VideoSource:
        self._machine.require("start", START_ALLOWED)
        self._started_at = time.monotonic()
        self._machine.move(SourceState.CONNECTING)
        self._thread = threading.Thread(target=self._capture, name=f"source-{self.source_id}", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float | None = 5.0) -> None:
        """Stop capturing; frames already queued can still be read. Idempotent once finished."""
        self._stop.set()
        self._machine.try_move(SourceState.ENDED)
        self._buffer.close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the capture thread to finish by itself (end of file or failure)."""
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True

    def read(self, timeout: float | None = None) -> Frame | None:
        """The next frame per the consume policy; None on timeout or once the source is done and drained."""
        self._machine.require("read", READ_ALLOWED)
        frame = self._buffer.get(timeout)
        if frame is not None:
            self._counters.add("consumed")
        return frame

    def frames(self) -> Iterator[Frame]:
        """Every frame until the source ends (or fails) and the buffer is drained."""
        self._machine.require("iterate", READ_ALLOWED)
        while True:
            frame = self.read(timeout=0.5)
            if frame is not None:
                yield frame
            elif self._buffer.closed and len(self._buffer) == 0:
                return

    def __iter__(self) -> Iterator[Frame]:
        return self.frames()

    def metrics(self) -> SourceMetrics:
        c = self._counters
        return SourceMetrics(
            source_id=self.source_id,
            state=self.state,
            captured=c.captured,
            dropped=c.dropped,
            consumed=c.consumed,
            reconnects=c.reconnects,
            queued=len(self._buffer),
        )

    def __enter__(self) -> VideoSource:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- capture thread -----------------------------------------------------------------

    def _capture(self) -> None:
        try:
            self._capture_loop()
        except Exception as exc:  # a bug must not take the process down: report and end in ERROR
            log.exception("source %s: capture thread crashed", self.source_id)
            self._fail(f"internal error in capture: {exc!r}")
        finally:
            self._buffer.close()

    def _capture_loop(self) -> None:
        attempts = 0
        lost_at: float | None = None
        media_offset = 0.0  # files that loop keep a monotonic media time
        while not self._stop.is_set():
            backend = self._backend_factory()
            try:
                backend.open()
            except OpenError as exc:
                if not self.reconnect:
                    self._fail(str(exc))
                    return
                if self.state is SourceState.CONNECTING:
                    # a camera that is not there at start is reported like one that was lost
                    lost_at = time.monotonic()
                    self._emit(SourceLost(source_id=self.source_id, reason=str(exc), last_frame_index=-1))
                    self._machine.try_move(SourceState.RECONNECTING)
                if self.options.backoff.exhausted(attempts + 1):
                    self._fail(f"gave up after {attempts + 1} attempts: {exc}")
                    return
                self._stop.wait(self.options.backoff.delay(attempts))
                attempts += 1
                continue
            if self.state is SourceState.RECONNECTING and lost_at is not None:
                self._counters.add("reconnects")
                self._emit(
                    SourceRecovered(
                        source_id=self.source_id,
                        attempts=attempts,
                        downtime_s=time.monotonic() - lost_at,
                    )
                )
            if not self._machine.try_move(SourceState.RUNNING) and self.state is not SourceState.RUNNING:
                backend.close()
                return  # stopped while connecting
            attempts = 0
            if self._picture is not None:  # a new connection is judged afresh
                self._picture = PictureHealth(self.options.frozen_after_s, self.options.blind_after_s)
            fps = backend.fps or self.options.fallback_fps
            first = self._skip_to_start(backend) if not self.live and self._next_index == 0 else 0
            outcome, detail, played = self._pump(backend, media_offset, first)
            backend.close()
            if outcome is _Outcome.STOPPED:
                return
            if outcome is _Outcome.BROKEN:
                self._emit(detail)
                assert isinstance(detail, VideoBroken)
                self._fail(detail.message, emit=False)
                return
            if outcome is _Outcome.END_OF_FILE:
                if self.loop and played > 0:
                    media_offset += played / fps
                    continue
                if self._machine.try_move(SourceState.ENDED):
                    self._emit(SourceEnded(source_id=self.source_id, frames=self._next_index))
                return
            # lost: a live source reconnects, a file that cannot reconnect fails
            assert isinstance(detail, str)
            if not self.reconnect:
                self._fail(detail)
                return
            lost_at = time.monotonic()
            self._emit(
                SourceLost(source_id=self.source_id, reason=detail, last_frame_index=self._next_index - 1)
            )
            self._machine.try_move(SourceState.RECONNECTING)
            self._stop.wait(self.options.backoff.delay(0))
            attempts = 1

    def _skip_to_start(self, backend: CaptureBackend) -> int:
        """Seek a file to ``start_frame`` (decoding forward if the container cannot seek)."""
        start = self.options.start_frame
        if start <= 0:
            return 0
        seek = getattr(backend, "seek", None)
        if not (callable(seek) and seek(start)):
            for skipped in range(start):
                if self._stop.is_set() or backend.read() is None:
                    return skipped
        self._next_index = start
        return start

    def _pump(
        self, backend: CaptureBackend, media_offset: float, first: int = 0
    ) -> tuple[_Outcome, VideoBroken | str | None, int]:
        fps = backend.fps or self.options.fallback_fps
        expected = backend.frame_count if not self.live else None
        played = first
        paced_from = time.monotonic() - first / fps
        failures = 0
        while not self._stop.is_set():
            try:
                image = backend.read() if self._wanted(self._next_index) else self._skip(backend)
            except ReadError as exc:
                if self.live:
                    return _Outcome.LOST, f"decoder error: {exc}", played
                return _Outcome.BROKEN, self._broken(played, expected, f"decoder error: {exc}"), played
            if image is None:
                if self.live:
                    failures += 1
                    if failures < self.options.failures_before_lost:
                        continue
                    return _Outcome.LOST, "no frame from the device", played
                # containers can disagree with the decoder by a frame; more than that is damage
                if expected is not None and expected - played > 1:
                    detail = "the decoder returned no frame before the end the container announces"
                    return _Outcome.BROKEN, self._broken(played, expected, detail), played
                return _Outcome.END_OF_FILE, None, played
            failures = 0
            if image is _SKIPPED:
                self._next_index += 1
                played += 1
                continue
            if self.live:
                media_time = time.monotonic() - self._started_at
            else:
                media_time = media_offset + played / fps
                if self.realtime:
                    # pace at the file's own rate; interruptible by stop()
                    delay = paced_from + played / fps - time.monotonic()
                    if delay > 0 and self._stop.wait(delay):
                        return _Outcome.STOPPED, None, played
            frame = Frame(
                image=image,
                index=self._next_index,
                media_time_s=media_time,
                wall_time=utc_now(),
                source_id=self.source_id,
            )
            self._next_index += 1
            self._last_media_time = media_time
            if self._picture is not None:
                self._check_picture(image, media_time)
            played += 1
            self._counters.add("captured")
            if not self._buffer.put(frame, cancelled=self._stop.is_set):
                return _Outcome.STOPPED, None, played
        return _Outcome.STOPPED, None, played

    def _wanted(self, index: int) -> bool:
        every = self.options.deliver_every
        return self.live or every <= 1 or index % every == 0

    @staticmethod
    def _skip(backend: CaptureBackend) -> np.ndarray | None:
        """Decode a frame that is not handed out without converting it (``grab`` when the backend has it)."""
        grab = getattr(backend, "grab", None)
        if callable(grab):
            return _SKIPPED if grab() else None
        return _SKIPPED if backend.read() is not None else None

    def _check_picture(self, image: np.ndarray, media_time: float) -> None:
        assert self._picture is not None
        was, since = self._picture.problem, self._picture.problem_since
        verdict = self._picture.update(image, media_time)
        if verdict == "ok" and was is not None:
            duration = media_time - (since if since is not None else media_time)
            self._emit(PictureRestored(source_id=self.source_id, problem=was, duration_s=duration))
        elif verdict is not None and verdict != "ok":
            self._emit(PictureProblem(source_id=self.source_id, problem=verdict))

    def _broken(self, played: int, expected: int | None, detail: str) -> VideoBroken:
        return VideoBroken(
            source_id=self.source_id,
            path=str(self.spec.target),
            frame_index=played,
            expected_frames=expected,
            detail=detail,
        )

    def _fail(self, reason: str, emit: bool = True) -> None:
        self.error = reason
        if self._machine.try_move(SourceState.ERROR) and emit:
            self._emit(SourceFailed(source_id=self.source_id, reason=reason))

    # -- reporting ----------------------------------------------------------------------

    def _frame_dropped(self, frame: Frame) -> None:
        self._counters.add("dropped")
        self._emit(FrameDropped(source_id=self.source_id, frame_index=frame.index))

    def _state_changed(self, old: SourceState, new: SourceState) -> None:
        self._emit(StateChanged(source_id=self.source_id, old=old, new=new))

    def _emit(self, status: SourceStatus | VideoBroken | str | None) -> None:
        if not isinstance(status, SourceStatus):
            return
        for handler in self._handlers:
            try:
                handler(status)
            except Exception:  # a broken handler must not stop capture
                log.exception("source %s: status handler %r failed", self.source_id, handler)


def open_source(
    target: str | int,
    options: SourceOptions | None = None,
    status_handlers: list[StatusHandler] | None = None,
) -> VideoSource:
    """A (not yet started) source for a USB index, an RTSP URL or a video file path."""
    return VideoSource(SourceSpec.parse(target), options=options, status_handlers=status_handlers)
