"""Video sources: state machine, files (real ones written with cv2.VideoWriter), live reconnects."""

from __future__ import annotations

import itertools
import threading
import time
from datetime import UTC
from pathlib import Path

import cv2
import numpy as np
import pytest

from monitor.sources import ConsumePolicy, FillPolicy, SourceState, SourceStateError, VideoSource
from monitor.sources.backend import OpenCVCapture, OpenError, SourceKind, SourceSpec
from monitor.sources.backoff import Backoff
from monitor.sources.policy import BoundedBuffer
from monitor.sources.status import (
    FrameDropped,
    SourceEnded,
    SourceFailed,
    SourceLost,
    SourceRecovered,
    SourceStatus,
    StateChanged,
    VideoBroken,
)
from monitor.sources.video_source import SourceOptions

FAST = Backoff(initial_s=0.01, factor=2.0, maximum_s=0.05)


def write_video(path: Path, frames: int = 40, fps: float = 25.0, fourcc: str = "MJPG") -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), fps, (160, 120))
    assert writer.isOpened()
    for i in range(frames):
        image = np.full((120, 160, 3), (i * 6) % 256, np.uint8)
        cv2.putText(image, str(i), (20, 80), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (0, 0, 255), 2)
        writer.write(image)
    writer.release()
    return path


def wait_until(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.005)


class Recorder:
    def __init__(self) -> None:
        self.events: list[SourceStatus] = []
        self._lock = threading.Lock()

    def __call__(self, status: SourceStatus) -> None:
        with self._lock:
            self.events.append(status)

    def of(self, kind: type) -> list:
        with self._lock:
            return [e for e in self.events if isinstance(e, kind)]


class FakeCamera:
    """A camera whose plug state the test controls; shared by every backend the source opens."""

    def __init__(self, frames_per_session: list[int], failed_opens_between: int = 0) -> None:
        self.sessions = list(frames_per_session)  # frames before each drop
        self.failed_opens_between = failed_opens_between
        self.opens = 0
        self.failed = 0
        self.halt = threading.Event()
        self.session = -1

    def factory(self) -> FakeCamera.Backend:
        return FakeCamera.Backend(self)

    class Backend:
        def __init__(self, cam: FakeCamera) -> None:
            self.cam = cam
            self.left = 0

        def open(self) -> None:
            cam = self.cam
            if cam.session >= 0 and cam.failed < cam.failed_opens_between:
                cam.failed += 1
                raise OpenError("fake camera unplugged")
            cam.failed = 0
            cam.session += 1
            cam.opens += 1
            self.left = cam.sessions[cam.session] if cam.session < len(cam.sessions) else 10**9

        def read(self) -> np.ndarray | None:
            if self.left <= 0:
                return None
            if self.cam.halt.is_set():
                self.cam.halt.wait()
                return None
            self.left -= 1
            return np.zeros((4, 4, 3), np.uint8)

        def close(self) -> None:
            pass

        @property
        def fps(self) -> float | None:
            return 30.0

        @property
        def frame_count(self) -> int | None:
            return None


def live_source(cam: FakeCamera, recorder: Recorder, **options: object) -> VideoSource:
    settings: dict[str, object] = {"backoff": FAST, "failures_before_lost": 1, **options}
    opts = SourceOptions(**settings)  # type: ignore[arg-type]
    return VideoSource(
        SourceSpec(SourceKind.USB, 0), opts, backend_factory=cam.factory, status_handlers=[recorder]
    )


def test_spec_parsing_hides_rtsp_credentials() -> None:
    spec = SourceSpec.parse("rtsp://admin:secret@10.0.0.5/stream")
    assert spec.kind is SourceKind.RTSP and spec.label == "rtsp://10.0.0.5/stream"
    assert SourceSpec.parse("2") == SourceSpec(SourceKind.USB, 2)


def test_wrong_calls_name_the_state(tmp_path: Path) -> None:
    source = VideoSource(SourceSpec.parse(str(write_video(tmp_path / "a.avi", frames=3))))
    with pytest.raises(SourceStateError, match="cannot read while not_started"):
        source.read()
    source.start()
    with pytest.raises(SourceStateError, match=r"cannot start while (connecting|running|ended)"):
        source.start()
    assert len(list(source)) == 3
    assert source.state is SourceState.ENDED
    with pytest.raises(SourceStateError, match="cannot start while ended"):
        source.start()


def test_file_delivers_every_frame_with_timestamps(tmp_path: Path) -> None:
    path = write_video(tmp_path / "round.avi", frames=40, fps=25.0)
    rec = Recorder()
    source = VideoSource(SourceSpec.parse(str(path)), SourceOptions(buffer_size=2), status_handlers=[rec])
    frames = []
    with source:
        for frame in source:
            frames.append(frame)
            time.sleep(0.002)  # a consumer slower than decoding: the file waits for it
    assert [f.index for f in frames] == list(range(40))
    assert frames[10].media_time_s == pytest.approx(10 / 25.0)
    assert all(f.wall_time.tzinfo is UTC for f in frames)
    assert frames[0].image.shape == (120, 160, 3)
    m = source.metrics()
    assert (m.captured, m.consumed, m.dropped) == (40, 40, 0)
    assert source.state is SourceState.ENDED and source.error is None
    assert rec.of(SourceEnded)[0].frames == 40
    assert source.media_time_now() == pytest.approx(39 / 25.0)
    transitions = [(e.old, e.new) for e in rec.of(StateChanged)]
    assert transitions == [
        (SourceState.NOT_STARTED, SourceState.CONNECTING),
        (SourceState.CONNECTING, SourceState.RUNNING),
        (SourceState.RUNNING, SourceState.ENDED),
    ]


def test_file_paced_and_looped_as_a_live_camera(tmp_path: Path) -> None:
    path = write_video(tmp_path / "loop.avi", frames=5, fps=100.0)
    source = VideoSource(SourceSpec.parse(str(path)), SourceOptions(realtime=True, loop=True))
    with source:
        frames = [source.read(timeout=5) for _ in range(12)]
    got = [f for f in frames if f is not None]
    assert [f.index for f in got] == list(range(12))
    # media time keeps running across the loop instead of jumping back to zero
    assert got[7].media_time_s == pytest.approx(0.07)
    assert all(b.media_time_s > a.media_time_s for a, b in itertools.pairwise(got))


def test_truncated_file_names_file_and_frame_and_keeps_frames(tmp_path: Path) -> None:
    path = write_video(tmp_path / "cut.avi", frames=60)
    with path.open("r+b") as fh:
        fh.truncate(path.stat().st_size // 2)
    rec = Recorder()
    source = VideoSource(SourceSpec.parse(str(path)), status_handlers=[rec])
    with source:
        kept = list(source)
    assert source.state is SourceState.ERROR
    broken = rec.of(VideoBroken)
    assert len(broken) == 1
    assert 0 < broken[0].frame_index < 60 and broken[0].expected_frames == 60
    assert len(kept) == broken[0].frame_index  # everything read before the break is kept
    assert str(path) in source.error and f"frame {broken[0].frame_index} of 60" in source.error
    assert broken[0].is_fault


def test_corrupt_mp4_middle(tmp_path: Path) -> None:
    path = write_video(tmp_path / "bad.mp4", frames=60, fourcc="mp4v")
    size = path.stat().st_size
    with path.open("r+b") as fh:
        fh.seek(size // 2)
        fh.write(bytes(np.random.default_rng(7).integers(0, 256, size // 8, dtype=np.uint8)))
    source = VideoSource(SourceSpec.parse(str(path)))
    with source:
        kept = list(source)
    assert source.state is SourceState.ERROR
    assert 0 < len(kept) < 60
    assert f"frame {len(kept)} of 60" in (source.error or "")


@pytest.mark.parametrize(
    ("content", "expected"),
    [(None, "does not exist"), (b"", "is empty"), (b"\x00garbage" * 300, "cannot be opened")],
)
def test_unopenable_file_fails_with_reason(tmp_path: Path, content: bytes | None, expected: str) -> None:
    path = tmp_path / "x.mp4"
    if content is not None:
        path.write_bytes(content)
    rec = Recorder()
    source = VideoSource(SourceSpec.parse(str(path)), status_handlers=[rec])
    with source:
        assert list(source) == []
    assert source.state is SourceState.ERROR
    assert expected in (source.error or "") and str(path) in (source.error or "")
    assert rec.of(SourceFailed)


def test_camera_drops_and_returns() -> None:
    cam = FakeCamera([5, 5], failed_opens_between=2)
    rec = Recorder()
    source = live_source(cam, rec, fill=FillPolicy.WAIT, consume=ConsumePolicy.LAZY)
    with source:
        frames = [source.read(timeout=5) for _ in range(14)]
    indices = [f.index for f in frames if f is not None]
    assert indices == list(range(14))  # numbering continues across the reconnect
    lost = rec.of(SourceLost)
    recovered = rec.of(SourceRecovered)
    assert len(lost) >= 2 and lost[0].last_frame_index == 4 and lost[0].is_fault
    assert recovered[0].attempts == 3 and not recovered[0].is_fault
    assert "recovered" in recovered[0].message
    assert source.metrics().reconnects >= 2
    states = [e.new for e in rec.of(StateChanged)]
    assert states[:4] == [
        SourceState.CONNECTING,
        SourceState.RUNNING,
        SourceState.RECONNECTING,
        SourceState.RUNNING,
    ]


def test_camera_missing_at_start_then_plugged_in() -> None:
    cam = FakeCamera([10**6])
    cam.session = 0  # pretend an earlier session so the first opens fail
    cam.failed_opens_between = 3
    rec = Recorder()
    source = live_source(cam, rec)
    with source:
        assert source.read(timeout=5) is not None
        assert source.state is SourceState.RUNNING
    assert rec.of(SourceLost)[0].last_frame_index == -1
    assert rec.of(SourceRecovered)
    assert source.state is SourceState.ENDED


def test_gives_up_after_max_attempts() -> None:
    cam = FakeCamera([2], failed_opens_between=100)
    rec = Recorder()
    source = live_source(cam, rec, backoff=Backoff(initial_s=0.001, maximum_s=0.002, max_attempts=3))
    source.start()
    assert source.join(timeout=10)
    assert source.state is SourceState.ERROR
    assert "gave up after 3 attempts" in (source.error or "")
    assert rec.of(SourceFailed)
    # what was captured before the loss stays readable (live mode hands out the newest)
    assert [f.index for f in source] == [1]


def test_slow_consumer_never_blocks_live_capture() -> None:
    cam = FakeCamera([50, 10**6])
    cam_halt_after = 50
    rec = Recorder()
    source = live_source(cam, rec, buffer_size=2)

    original = cam.factory

    def factory():  # halt the camera after 50 frames: no reader touches the source meanwhile
        backend = original()
        read = backend.read

        def halting_read():
            if source.metrics().captured >= cam_halt_after:
                cam.halt.set()
            return read()

        backend.read = halting_read
        return backend

    cam.factory = factory  # type: ignore[method-assign]
    source.start()
    wait_until(lambda: source.metrics().captured == 50)
    newest = source.read(timeout=1)
    assert newest is not None and newest.index == 49  # newest frame wins
    m = source.metrics()
    assert (m.captured, m.consumed, m.dropped) == (50, 1, 49)
    assert len(rec.of(FrameDropped)) == 49
    cam.halt.clear()
    source.stop()


def test_broken_status_handler_does_not_stop_capture(tmp_path: Path) -> None:
    def bad_handler(status: SourceStatus) -> None:
        raise RuntimeError("handler bug")

    path = write_video(tmp_path / "h.avi", frames=6)
    source = VideoSource(SourceSpec.parse(str(path)), status_handlers=[bad_handler])
    with source:
        assert len(list(source)) == 6


def test_bounded_buffer_policies() -> None:
    dropped: list[int] = []
    buf: BoundedBuffer[int] = BoundedBuffer(3, FillPolicy.DROP_OLDEST, ConsumePolicy.LAZY, dropped.append)
    for i in range(5):
        assert buf.put(i)
    assert dropped == [0, 1] and buf.get(0) == 2
    buf.consume = ConsumePolicy.EAGER
    assert buf.get(0) == 4 and dropped == [0, 1, 3]
    assert buf.get(0.01) is None
    buf.close()
    assert not buf.put(9)
    with pytest.raises(ValueError, match="capacity must be at least 1"):
        BoundedBuffer(0, FillPolicy.WAIT, ConsumePolicy.LAZY)


def test_file_played_as_a_live_camera_accounts_for_every_frame(tmp_path: Path) -> None:
    path = write_video(tmp_path / "demo.avi", frames=20, fps=100.0)
    source = VideoSource(SourceSpec.parse(str(path)), SourceOptions.live_playback())
    seen = []
    with source:
        for frame in source:
            seen.append(frame.index)
            time.sleep(0.02)  # a consumer slower than the file's frame rate
    m = source.metrics()
    assert seen == sorted(set(seen)) and seen[-1] == 19  # newest wins, never goes back, ends at the end
    assert m.captured == 20 and m.consumed + m.dropped == 20 and m.consumed == len(seen)


@pytest.mark.parametrize("fourcc", ["MJPG", "mp4v"])
def test_resume_from_a_frame(tmp_path: Path, fourcc: str) -> None:
    name = f"r.{'avi' if fourcc == 'MJPG' else 'mp4'}"
    path = write_video(tmp_path / name, frames=40, fps=25.0, fourcc=fourcc)
    with VideoSource(SourceSpec.parse(str(path))) as full:
        reference = {f.index: f.image for f in full}
    source = VideoSource(SourceSpec.parse(str(path)), SourceOptions(start_frame=25))
    with source:
        frames = list(source)
    assert [f.index for f in frames] == list(range(25, 40))  # indices stay the file's frame numbers
    assert frames[0].media_time_s == pytest.approx(1.0)
    # the same picture as frame 25 of a full read (lossy codecs decode identically from a keyframe seek)
    assert np.abs(frames[0].image.astype(int) - reference[25].astype(int)).mean() < 2.0
    assert source.state is SourceState.ENDED


def test_resume_decodes_forward_when_the_backend_cannot_seek(tmp_path: Path) -> None:
    path = write_video(tmp_path / "n.avi", frames=12)
    spec = SourceSpec.parse(str(path))

    class NoSeek:  # the protocol's required parts only
        def __init__(self) -> None:
            self.inner = OpenCVCapture(spec)

        def open(self) -> None:
            self.inner.open()

        def read(self) -> np.ndarray | None:
            return self.inner.read()

        def close(self) -> None:
            self.inner.close()

        fps = property(lambda self: self.inner.fps)
        frame_count = property(lambda self: self.inner.frame_count)

    source = VideoSource(spec, SourceOptions(start_frame=9), backend_factory=NoSeek)
    with source:
        assert [f.index for f in source] == [9, 10, 11]
