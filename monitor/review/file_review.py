"""One recording reviewed frame by frame: the live chain, unpaced, behind a motion gate.

The same parts as the live run (:mod:`monitor.pipeline`): the video source (a file, read as fast as
the chain takes frames, from ``start_frame`` on a resume), perception as chosen for the run (models,
or a rendered recording's ground truth as oracle), table state and event extraction
(:class:`~monitor.pipeline.chain.TableChain`), the console and dice events merged in media-time
order, and the procedure monitor with snapshots. One thread runs the chain (the source decodes
ahead on its own), so the events, their numbers and the alerts are the same on every run: a
review is reproducible, and a resumed one matches an uninterrupted one.

Spans where nothing moves skip perception and table state (the motion gate); the outside events
are still released at their media time.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

from monitor.calibration import load_table
from monitor.events.outside import read_outside_events
from monitor.events.schema import EventBase, parse_event
from monitor.perception.models_home import models_home
from monitor.pipeline.chain import TableChain
from monitor.pipeline.extract import EventExtractor, ExtractorSettings
from monitor.pipeline.perceive import choose
from monitor.pipeline.perception_cache import CachedPerception, fingerprint
from monitor.pipeline.snapshots import FrameRing, SnapshotFeed
from monitor.pipeline.watchers.view import TableLayout
from monitor.procedure.feed import MonitorFeed
from monitor.review import checkpoint
from monitor.review.clip_cutter import ClipCutter
from monitor.review.clips import ClipSpec, attach_media
from monitor.review.gate import SampledMotionGate
from monitor.review.jobs import FileJob, FileResult
from monitor.review.zones import RasterCalibration
from monitor.sources.status import SourceEnded, SourceStatus
from monitor.sources.to_events import SourceEventMapper
from monitor.sources.video_source import SourceOptions, open_source

log = logging.getLogger(__name__)

Progress = Callable[[int, int | None], None]  # (frames read so far in this file, frames in the file)


class ReviewInterrupted(Exception):
    """Asked to stop (Ctrl-C, a test); the checkpoint on disk says where to resume."""


def probe(video: Path) -> tuple[float, int | None]:
    """The frame rate and frame count a container announces (30 fps when it does not say)."""
    import cv2

    cap = cv2.VideoCapture(str(video))
    try:
        fps = float(cap.get(cv2.CAP_PROP_FPS)) if cap.isOpened() else 0.0
        count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) if cap.isOpened() else 0
    finally:
        cap.release()
    return (fps if 0 < fps < 1000 else 30.0), (count if count > 0 else None)


class _Counter:
    def __init__(self, start: int) -> None:
        self.value = start

    def __call__(self) -> int:
        self.value += 1
        return self.value - 1


class _EventLog:
    """This file's events.jsonl: appended as the review goes, cut back to the checkpoint on resume."""

    def __init__(self, path: Path, keep_lines: int) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True) if path.exists() else []
        if len(lines) != keep_lines:
            # events written after the last checkpoint: the resumed review makes them again
            path.write_text("".join(lines[:keep_lines]), encoding="utf-8")
        self.count = min(keep_lines, len(lines))
        self.pending: list[str] = []

    def add(self, event: EventBase) -> None:
        self.pending.append(event.model_dump_json() + "\n")

    def sync(self) -> int:
        if self.pending:
            with self.path.open("a", encoding="utf-8") as f:
                f.writelines(self.pending)
            self.count += len(self.pending)
            self.pending.clear()
        return self.count


def review_file(job: FileJob, progress: Progress | None = None,
                should_stop: Callable[[], bool] | None = None) -> FileResult:
    """Review one file (resuming from its checkpoint); the result is also the final checkpoint."""
    video = Path(job.video)
    previous = checkpoint.load(job)
    if previous is not None and previous.done:
        if progress is not None:
            progress(previous.next_frame, previous.frames_total)
        previous.media_this_run_s = 0.0
        return previous
    fps, frames_total = probe(video) if video.is_file() else (30.0, None)
    result = previous or FileResult(job.video, job.index, job.key, fps=fps, frames_total=frames_total,
                                    next_seq=job.seq_base)
    try:
        result.identity = checkpoint.video_identity(video)
    except OSError:
        result.identity = {}
    if previous is not None:
        result.resumed_from.append(previous.next_frame)
    calibration = load_table(Path(job.table))
    # none given: this worker's models home (a Dask worker may run another machine's install)
    models = Path(job.models) if job.models else models_home()
    from monitor.perception.card_scale import live_factor

    perception = choose(job.perception, Path(job.truth) if job.truth else None,  # type: ignore[arg-type]
                        calibration.image_size, models, threads=job.threads, whole_frames=job.whole_frames,
                        backend=job.backend, factor=live_factor(calibration))
    cached: CachedPerception | None = None
    if job.detections_cache and not perception.label.startswith("ORACLE"):
        header = fingerprint(video, models, getattr(perception, "cache_mode", ""))
        perception = cached = CachedPerception(perception, Path(job.detections_cache) / f"{job.key}.jsonl",
                                               header)
    result.perception = perception.label
    result.warnings = list(getattr(perception, "warnings", []))
    outside = read_outside_events(Path(job.events)) if job.events else []
    table_id = job.table_id or calibration.table
    log_file = _EventLog(job.folder / "events.jsonl", result.events)

    seq = _Counter(result.next_seq)  # one counter for vision, console and device events
    # rounds come from the console where its log has them; a log of dice rolls alone leaves them to vision
    settings = ExtractorSettings(round_from_vision=not any(e.get("type") == "round_started" for e in outside),
                                 count_deal=getattr(perception, "sees_hands", True),
                                 count_face_down=getattr(perception, "counts_face_down", True))
    raster = RasterCalibration.of(calibration)
    extractor = EventExtractor(table_id, settings, next_seq=seq,
                               layout=TableLayout.of(raster.zones, raster.zone_rules))
    stride = result.stride = job.gate.stride_for(fps)
    # a perception with models may read fanned hands by their indices (when the models hold a reader)
    index_reader = getattr(perception, "index_reader", None)
    chain = TableChain(raster, extractor, fps=fps / stride,
                       index_reader=index_reader, track_conf=getattr(perception, "track_conf", None))
    if not perception.label.startswith("ORACLE"):
        chain.warm_up()
    ring = FrameRing(size=8, lazy=True)
    # the table file's profile judges every event of the review; the file starts at its own seq
    feed = SnapshotFeed(MonitorFeed(profile=calibration.profile, starts_mid_stream=True), ring,
                        job.folder / "snapshots")
    gate = SampledMotionGate(min_changed=job.gate.min_changed, settle_s=job.gate.settle_s,
                             keepalive_s=job.gate.keepalive_s)
    statuses: list[SourceStatus] = []
    source = open_source(str(video), SourceOptions(realtime=False, start_frame=result.next_frame,
                                                   deliver_every=stride),
                         status_handlers=[statuses.append])
    last_media = result.next_frame / fps
    mapper = SourceEventMapper(table_id, lambda: last_media)
    k = result.outside_done
    first_frame = result.next_frame
    started = time.perf_counter()
    hand_closed = False
    spec = ClipSpec(job.clip_before_s, job.clip_after_s)
    clipper = ClipCutter(video, job.folder, spec) if job.clips else None

    def push(event: EventBase) -> None:
        nonlocal hand_closed
        log_file.add(event)
        out = feed.push(event)  # type: ignore[arg-type]  # every EventBase made here is an Event
        if out.alerts:
            raised = [a.model_dump(mode="json") for a in out.alerts]
            result.alerts.extend(raised)
            if clipper is not None:
                clipper.offer(raised)
        if out.histories:
            result.hands.extend(h.data for h in out.histories)
            hand_closed = True

    def outside_until(media_time: float) -> None:
        nonlocal k
        while k < len(outside) and float(outside[k]["media_time"]) <= media_time:
            raw = {**outside[k], "seq": 0, "table_id": table_id}
            raw.pop("frame", None)
            event = parse_event(raw)
            for e in extractor.told(event, seq):  # a round the roll opens goes first
                push(e)
            k += 1

    def save(done: bool) -> None:
        nonlocal started
        result.events = log_file.sync()
        result.next_seq = seq.value
        result.outside_done = k
        now = time.perf_counter()
        result.seconds += now - started
        started = now
        result.done = done
        result.media_this_run_s = (result.next_frame - first_frame) / fps
        checkpoint.save(job, result)

    try:
        source.start()
        last_report = 0.0
        for frame in source.frames():
            if should_stop is not None and should_stop():
                raise ReviewInterrupted(f"{video}: stopped at frame {frame.index}")
            last_media = frame.media_time_s
            outside_until(frame.media_time_s)
            result.frames_read += 1
            if frame.index % stride == 0 and (not job.gate.enabled or gate.keep(frame)):
                result.frames_kept += 1
                detections, tracks = perception.see(frame.index, frame.image)
                ring.add(frame.media_time_s, frame.index, frame.image)
                for event in chain.step(frame.index, frame.media_time_s, detections, tracks, frame.image):
                    push(event)
            result.next_frame = frame.index + 1
            if clipper is not None:
                clipper.advance(frame.media_time_s)
            if hand_closed:
                hand_closed = False
                save(done=False)
            now = time.perf_counter()
            if progress is not None and now - last_report >= 0.25:
                last_report = now
                progress(result.next_frame, frames_total)
    except BaseException:  # interrupted or failed: the checkpoint on disk is where to resume
        source.stop()
        if clipper is not None:
            clipper.abandon()
        raise
    finally:
        if cached is not None:
            cached.close()
    source.stop()
    if source.error is None:
        # at a stride the last frames may be decoded but not handed out: the file is still read to its end
        ends = [st.frames for st in statuses if isinstance(st, SourceEnded)]
        result.next_frame = max([result.next_frame, *ends])
    reviewed_s = result.next_frame / fps
    if source.error is not None:
        kept = (f"the review keeps what it saw up to frame {result.next_frame} ({reviewed_s:.1f} s)"
                if result.next_frame else "nothing in it could be reviewed")
        result.error = f"{source.error}; {kept}"
        for status in statuses:
            lost = mapper.from_source(status)
            if lost is not None:
                push(lost.model_copy(update={"seq": seq()}))
        # the console and dice log goes on past the break: what the camera did not show is not judged
        outside_until(reviewed_s)
    else:
        outside_until(reviewed_s + 1.0)  # a log may end a moment after the last frame
    out = feed.close()
    result.alerts.extend(a.model_dump(mode="json") for a in out.alerts)
    result.hands.extend(h.data for h in out.histories)
    if clipper is not None:
        clipper.finish(reviewed_s + 0.5)
    if job.clips and result.next_frame:
        shown = [a for a in result.alerts if a.get("media") and a["media"]["trigger"] <= reviewed_s + 0.5]
        result.warnings += attach_media(video, shown, job.folder, spec)
    save(done=True)
    if progress is not None:
        progress(result.next_frame, frames_total)
    return result

