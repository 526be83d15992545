"""Played rounds -> a video file, per-frame ground truth, the true events and the alerts.

Output folder (``table-monitor render-round``):

- ``video.mp4``: H.264 (yuv420p, ``-crf`` sets the size) through the ffmpeg program when it is
  installed, else through PyAV's libx264, else OpenCV's MPEG-4 writer.
- ``truth.jsonl``: one line per frame, ``{"frame", "time", "objects": [...]}``; each object has a
  stable ``track`` id across frames ("r0:12": round 0, object 12), its kind, detection label,
  identity, image polygon (px), table zone, visible share and, for cards, face up or down. A frame
  where nothing moved is ``{"frame", "time", "same_as": n}``.
- ``events.jsonl``: the true events, in the event contract, ``media_time`` and ``frame`` matching
  the video.
- ``alerts.jsonl``: what the procedure monitor raises on those events; ``check.json``: each
  round's expected alert codes against the raised ones.

Only frames where something moved are rendered; the others repeat the previous picture.
"""

from __future__ import annotations

import gzip
import json
import math
import multiprocessing as mp
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

import cv2
import numpy as np

from monitor.calibration import TableCalibration
from monitor.geometry import TableLayout
from monitor.render.camera import RESOLUTIONS, Camera, default_camera
from monitor.render.codec import H264_PRESET
from monitor.render.effects import Effects
from monitor.render.renderer import Frame, Renderer
from monitor.render.rounds.play import AlertCheck, PlayedRound, judge
from monitor.render.rounds.play_base import EventDict
from monitor.render.rounds.script import Script
from monitor.render.scene import CardObj, Occluder


def studio_effects() -> Effects:
    """A fixed, mild camera look for recordings (the same every frame, so nothing flickers)."""
    return Effects(
        exposure=1.03,
        white_balance=(1.0, 1.0, 1.02),
        vignette=0.15,
        unevenness=0.06,
        glare=[(0.62, 0.35, 0.12, 35.0)],
        noise=1.5,
        seed=7,
    )


# Rooms light their tables differently; each look is fixed for a whole recording (B, G, R gains).
LIGHTS: dict[str, Callable[[], Effects]] = {
    "studio": studio_effects,
    "dim": lambda: Effects(exposure=0.62, white_balance=(0.95, 1.0, 1.08), gamma=1.1, vignette=0.3,
                           unevenness=0.12, noise=3.5, seed=11),
    "warm": lambda: Effects(exposure=0.95, white_balance=(0.78, 0.95, 1.2), vignette=0.2, unevenness=0.1,
                            glare=[(0.3, 0.4, 0.1, 30.0)], noise=2.0, seed=12),
    "bright": lambda: Effects(exposure=1.3, white_balance=(1.1, 1.02, 0.95), vignette=0.05,
                              unevenness=0.04, glare=[(0.5, 0.3, 0.2, 70.0), (0.2, 0.6, 0.08, 50.0)],
                              noise=1.0, seed=13),
}


@dataclass
class RenderOptions:
    resolution: str = "1080p"
    fps: int = 30
    effects: bool = True
    crf: int = 28  # H.264 quality: higher is smaller
    camera: Camera | None = None  # None: the renderer's camera over the rounds' layout (room.camera_for)
    shutter: float = 0.5  # exposure as a share of the frame interval (at most 1/60 s): what moves blurs
    light: str = "studio"  # one of LIGHTS

    def look(self) -> Effects | None:
        """The light and sensor every frame shares (None: no effects)."""
        if not self.effects:
            return None
        if self.light not in LIGHTS:
            raise ValueError(f"light {self.light!r}: unknown (known: {', '.join(LIGHTS)})")
        return LIGHTS[self.light]()

    def size(self) -> tuple[int, int]:
        if self.resolution in RESOLUTIONS:
            return RESOLUTIONS[self.resolution]
        try:
            w, h = (int(v) for v in self.resolution.lower().split("x"))
        except ValueError:
            raise ValueError(f"resolution {self.resolution!r}: use 720p, 1080p, 4k or WIDTHxHEIGHT") from None
        if not (64 <= w <= 7680 and 64 <= h <= 4320):
            raise ValueError(f"resolution {self.resolution!r} is out of range (64..7680 x 64..4320)")
        if w % 2 or h % 2:
            raise ValueError(f"resolution {self.resolution!r}: H.264 (4:2:0) needs an even width and height")
        return w, h

    def exposure(self) -> float:
        """Seconds the shutter is open: ``shutter`` of the frame interval, at most 1/60 s (a camera
        at a low frame rate still exposes briefly)."""
        return min(self.shutter / self.fps, 1.0 / 60.0)

    def make_camera(self, layout: TableLayout | None = None) -> Camera:
        if self.camera is not None:
            return self.camera
        if layout is None:
            return default_camera(*self.size())
        from monitor.render.rounds.room import camera_for

        return camera_for(layout, self.size())


@dataclass
class RenderedFrame:
    index: int
    time: float
    image: np.ndarray
    truth: dict[str, Any]
    frame: Frame | None  # None when the picture repeats the previous one


def truth_objects(frame: Frame, orders: list[int], round_no: int) -> list[dict[str, Any]]:
    """The renderer's ground truth with stable track ids (scene position -> the timeline's object)."""
    out = []
    for o in frame.objects:
        if o.kind == "pile":
            track = f"r{round_no}:pile:{o.identity}"
            members = [f"r{round_no}:{orders[m - 1]}" for m in o.members]
        else:
            order = orders[o.oid - 1]
            track = f"r{round_no}:{order}" if order >= 0 else f"r{round_no}:arm{o.oid}"
            members = []
        d: dict[str, Any] = {
            "track": track,
            "kind": o.kind,
            "label": o.label,
            "identity": o.identity,
            "polygon": [[round(x, 1), round(y, 1)] for x, y in o.polygon],
            "zone": o.zone,
            "visible_share": round(o.visible_share, 3),
            "visible_px": o.visible_px,
        }
        if o.face_up is not None:
            d["face_up"] = o.face_up
        if o.count is not None:
            d["count"] = o.count
        if members:
            d["members"] = members
        out.append(d)
    return out


def round_at(rounds: list[PlayedRound], t: float) -> int:
    for i, r in enumerate(rounds):
        if t < r.end or i == len(rounds) - 1:
            return i
    return len(rounds) - 1


def total_frames(rounds: list[PlayedRound], fps: int) -> int:
    return math.ceil(rounds[-1].end * fps) + 1


def frames(
    rounds: list[PlayedRound],
    opts: RenderOptions,
    only: list[int] | None = None,
    renderer: Renderer | None = None,
) -> Iterator[RenderedFrame]:
    """Render the recording frame by frame (or only the frame numbers in ``only``)."""
    renderer = renderer or Renderer()
    cam = opts.make_camera(rounds[0].timeline.layout)
    fx = opts.look()
    n = total_frames(rounds, opts.fps)
    todo = range(n) if only is None else sorted(set(only))
    prev_sig: object = None
    prev: RenderedFrame | None = None
    for i in todo:
        if not 0 <= i < n:
            raise ValueError(f"frame {i} is outside the recording (0..{n - 1})")
        t = i / opts.fps
        k = round_at(rounds, t)
        tl = rounds[k].timeline
        sig = (k, tl.signature(t))
        if prev is not None and sig == prev_sig:
            yield RenderedFrame(
                i, t, prev.image, {"frame": i, "time": round(t, 4), "same_as": prev.index}, None
            )
            continue
        prev = _render_one(rounds, renderer, cam, fx, i, t, k, opts.exposure())
        prev_sig = sig
        yield prev


def _render_one(
    rounds: list[PlayedRound],
    renderer: Renderer,
    cam: Camera,
    fx: Effects | None,
    i: int,
    t: float,
    k: int,
    shutter: float = 0.0,
) -> RenderedFrame:
    """Frame ``i`` at time ``t`` of round ``k``; ``shutter`` (s) > 0 blurs what moves meanwhile."""
    tl = rounds[k].timeline
    scene, orders = tl.scene_at(t)
    if shutter > 0:
        for obj, travel in zip(scene.objects, tl.motion_at(t, shutter), strict=True):
            if isinstance(obj, CardObj | Occluder) and math.hypot(*travel) > 0.5:
                obj.motion = travel
    # the same light every frame, fresh sensor noise (a fixed noise pattern would be a tell)
    fr = renderer.render(scene, cam, replace(fx, frame=i) if fx is not None else None)
    truth = {"frame": i, "time": round(t, 4), "round": k, "objects": truth_objects(fr, orders, k)}
    return RenderedFrame(i, t, fr.image, truth, fr)


# What each rendering worker holds: its own replay of the rounds (their timelines hold closures,
# which cannot be pickled), the camera, the effects and the shutter.
_SHARED: dict[str, Any] = {}


@dataclass(frozen=True)
class _Recipe:
    """What a worker needs to replay the rounds exactly: each script, its source and start, the layout
    and the profile it was dealt by."""

    rounds: list[tuple[Script, str, float, TableLayout, Any]]
    opts: RenderOptions


def _recipe(rounds: list[PlayedRound], opts: RenderOptions) -> _Recipe:
    return _Recipe([(r.script, r.source, r.start, r.timeline.layout, r.profile) for r in rounds], opts)


def _init_worker(recipe: _Recipe) -> None:
    from monitor.render.rounds.play import play_script

    cv2.setNumThreads(1)  # one process per core already
    opts = recipe.opts
    rounds = [play_script(s, src, None, t0, layout, prof) for s, src, t0, layout, prof in recipe.rounds]
    _SHARED.update(
        rounds=rounds,
        camera=opts.make_camera(rounds[0].timeline.layout),
        effects=opts.look(),
        shutter=opts.exposure(),
        renderer=Renderer(),
    )


def _render_job(job: tuple[int, float, int]) -> tuple[int, np.ndarray, dict[str, Any]]:
    i, t, k = job
    s = _SHARED
    fr = _render_one(s["rounds"], s["renderer"], s["camera"], s["effects"], i, t, k, s["shutter"])
    return i, fr.image, fr.truth


def frames_parallel(rounds: list[PlayedRound], opts: RenderOptions, workers: int) -> Iterator[RenderedFrame]:
    """:func:`frames` rendered by ``workers`` processes, yielded in order (``frame`` is None: only
    the image and the truth come back). The frames to render are planned here, so each worker
    renders only pictures that changed. Workers are spawned, not forked: a fork of a process whose
    native runtimes (ONNX Runtime, OpenVINO, OpenCV) run thread pools can crash. Each worker replays
    the rounds from their scripts instead, which is exact (the play is deterministic; the tests
    check the frames equal the sequential path's)."""
    n = total_frames(rounds, opts.fps)
    plan: list[tuple[int, float, int, bool]] = []  # frame, time, round, rendered
    prev_sig: object = None
    for i in range(n):
        t = i / opts.fps
        k = round_at(rounds, t)
        sig = (k, rounds[k].timeline.signature(t))
        plan.append((i, t, k, sig != prev_sig))
        prev_sig = sig
    jobs = [(i, t, k) for i, t, k, new in plan if new]
    ctx = mp.get_context("spawn")
    with ctx.Pool(workers, initializer=_init_worker, initargs=(_recipe(rounds, opts),)) as pool:
        done = pool.imap(_render_job, jobs, chunksize=2)
        last: tuple[int, np.ndarray] | None = None
        for i, t, _k, new in plan:
            if new:
                j, img, truth = next(done)
                assert j == i
                last = (i, img)
                yield RenderedFrame(i, t, img, truth, None)
            else:
                assert last is not None
                same = {"frame": i, "time": round(t, 4), "same_as": last[0]}
                yield RenderedFrame(i, t, last[1], same, None)


class VideoWriter:
    """mp4, H.264 yuv420p: through the ffmpeg program when installed (it encodes in its own process,
    so encoding overlaps the rendering), else through PyAV's libx264 in this process, else OpenCV's
    mp4v (not H.264: the ``codec`` attribute says which)."""

    def __init__(self, path: Path, size: tuple[int, int], fps: int, crf: int = 28) -> None:
        self.path = path
        self.size = size
        self.proc: subprocess.Popen[bytes] | None = None
        self.cv: cv2.VideoWriter | None = None
        self.av: Any = None  # (container, stream) when writing through PyAV
        exe = shutil.which("ffmpeg")
        w, h = size
        if exe is not None:
            cmd = [
                exe,
                "-y",
                "-loglevel",
                "error",
                "-f",
                "rawvideo",
                "-pix_fmt",
                "bgr24",
                "-s",
                f"{w}x{h}",
                "-r",
                str(fps),
                "-i",
                "-",
                "-c:v",
                "libx264",
                "-preset",
                H264_PRESET,
                "-crf",
                str(crf),
                "-pix_fmt",
                "yuv420p",
                "-movflags",
                "+faststart",
                str(path),
            ]
            self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
            self.codec = "h264 (ffmpeg)"
        elif _pyav_has_x264():
            import av

            container = av.open(str(path), "w")
            stream = container.add_stream("libx264", rate=fps)
            stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
            stream.options = {"crf": str(crf), "preset": H264_PRESET}
            self.av = (container, stream)
            self.codec = "h264 (PyAV)"
        else:
            self.cv = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), fps, size)
            if not self.cv.isOpened():
                raise OSError(f"cannot open a video writer for {path}")
            self.codec = "mp4v (OpenCV)"

    def write(self, img: np.ndarray) -> None:
        if img.shape[1::-1] != self.size:
            raise ValueError(
                f"frame is {img.shape[1]}x{img.shape[0]}, the video is {self.size[0]}x{self.size[1]}"
            )
        if self.proc is not None:
            assert self.proc.stdin is not None
            self.proc.stdin.write(np.ascontiguousarray(img).tobytes())
        elif self.av is not None:
            import av

            container, stream = self.av
            for packet in stream.encode(
                av.VideoFrame.from_ndarray(np.ascontiguousarray(img), format="bgr24")
            ):
                container.mux(packet)
        else:
            assert self.cv is not None
            self.cv.write(img)

    def close(self) -> None:
        if self.proc is not None:
            assert self.proc.stdin is not None and self.proc.stderr is not None
            self.proc.stdin.close()
            err = self.proc.stderr.read().decode(errors="replace")
            if self.proc.wait() != 0:
                raise OSError(f"ffmpeg failed writing {self.path}: {err.strip()[:500]}")
        elif self.av is not None:
            container, stream = self.av
            for packet in stream.encode(None):
                container.mux(packet)
            container.close()
            self.av = None
        elif self.cv is not None:
            self.cv.release()


def _pyav_has_x264() -> bool:
    try:
        import av
    except ImportError:
        return False
    return "libx264" in av.codecs_available


@dataclass
class RecordingResult:
    out: Path
    frames: int
    rendered: int
    seconds: float
    events: int
    checks: list[tuple[str, AlertCheck]] = field(default_factory=list)
    codec: str = ""

    @property
    def ok(self) -> bool:
        return all(c.ok for _, c in self.checks)


def events_with_frames(events: list[EventDict], fps: int) -> list[EventDict]:
    # the first frame at or after the moment: the frame that shows what the event says
    return [{**e, "frame": math.ceil(e["media_time"] * fps - 1e-6)} for e in events]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")


def write_recording(
    rounds: list[PlayedRound],
    out: Path,
    opts: RenderOptions,
    progress: Callable[[int], None] | None = None,
    video_name: str = "video.mp4",
    gzip_truth: bool = False,
    video: bool = True,
    workers: int = 1,
    table: TableCalibration | None = None,
) -> RecordingResult:
    """Render ``rounds`` (played one after another on one clock) into ``out``; see the module doc.
    With ``video`` False only the events, alerts and checks are written (no frames rendered).
    ``workers`` > 1 renders in that many worker processes while this one feeds the encoder (which
    runs in its own process when the ffmpeg program is installed): rendering and encoding overlap.
    ``table``: the table file the chain reads this recording with (its profile the one the rounds were
    dealt by), written as ``table.yaml``."""
    out.mkdir(parents=True, exist_ok=True)
    if table is not None:
        table.save(out / "table.yaml", header="the table file this recording is read with (render-round)")
    fps = opts.fps
    events = events_with_frames([e for r in rounds for e in r.events], fps)
    write_jsonl(out / "events.jsonl", events)
    from monitor.procedure.monitor import Monitor

    checks = [(r.source, judge(r.events, r.script, r.source, r.rules_profile())) for r in rounds]
    m = Monitor(profile=rounds[0].rules_profile())
    for e in events:
        m.feed_dict(e)
    m.finish()
    write_jsonl(out / "alerts.jsonl", [a.model_dump(mode="json") for a in m.alerts])
    (out / "check.json").write_text(
        json.dumps(
            [
                {"script": s, "expected": c.expected, "raised": c.got, "ok": c.ok, "explain": c.explain()}
                for s, c in checks
            ],
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    n = total_frames(rounds, fps)
    if not video:
        return RecordingResult(out, n, 0, n / fps, len(events), checks, "")
    writer = VideoWriter(out / video_name, opts.size(), fps, opts.crf)
    rendered = 0
    try:
        truth_path = out / ("truth.jsonl.gz" if gzip_truth else "truth.jsonl")
        opener = gzip.open if gzip_truth else open
        with opener(truth_path, "wt", encoding="utf-8") as tf:
            stream = frames_parallel(rounds, opts, workers) if workers > 1 else frames(rounds, opts)
            for fr in stream:
                writer.write(fr.image)
                _write_line(tf, fr.truth)
                rendered += "same_as" not in fr.truth
                if progress is not None:
                    progress(1)
    finally:
        writer.close()
    return RecordingResult(out, n, rendered, n / fps, len(events), checks, writer.codec)


def _write_line(f: IO[str], row: dict[str, Any]) -> None:
    f.write(json.dumps(row, separators=(",", ":")) + "\n")
