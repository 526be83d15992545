"""Benchmark of review (``table-monitor bench-review``): speed relative to real time, and scaling.

On the 1080p, 30 fps bench recording of scripted faults (``bench-pipeline``'s, rendered once):

- the peer: the live run on the same file, unpaced (``bench-pipeline``'s throughput figure);
- one process, oracle perception (decode, motion gate, table state, events, monitor, snapshots, the
  report): the review's own cost; at stride 2 (15 of 30 fps perceived); and with a clip cut per
  alert (each decodes the recording again from the keyframe before it);
- one process, the shipped models (classical card finder and card classifier when no detector is
  shipped), on the recording's first seconds: the cost with perception, at strides chosen, and as
  ``review`` runs by default (``models-default``: 15 frames a second perceived, a clip per alert);
- the same recording twice as one session, fanned out over a local Dask cluster of 1 and then 2
  worker processes: how review scales with the cores.

Every figure is media seconds reviewed per wall second ("4x": an hour of video in 15 minutes).
"""

from __future__ import annotations

import resource
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from monitor.review.jobs import REVIEW_BACKEND, REVIEW_THREADS
from monitor.review.session import ReviewOptions, run_review

TABLE = Path(__file__).resolve().parents[1] / "calibration" / "default-table.yaml"  # package data


@dataclass
class BenchLine:
    name: str
    files: int
    media_s: float
    wall_s: float
    frames: int
    kept: int
    perception: str
    hands: int
    alerts: int
    cpu_s: float = 0.0  # CPU time of this process and its children (Dask workers, ffmpeg) during the run
    found: tuple[str, ...] = ()  # each alert's code and media time: what a faster run must still find

    @property
    def speed(self) -> float:
        return self.media_s / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def cpu_per_media_s(self) -> float:
        """CPU seconds per second of video: the cost, whatever else the machine runs."""
        return self.cpu_s / self.media_s if self.media_s > 0 else 0.0


def _run(name: str, videos: list[Path], out: Path, perception: str = "auto", workers: int | None = None,
         gate: bool = True, stride: int | None = 1, clips: bool = False, whole_frames: bool = False,
         threads: int = REVIEW_THREADS, backend: str = REVIEW_BACKEND) -> BenchLine:
    from monitor.review.jobs import GateSettings

    opts = ReviewOptions(videos=videos, table=TABLE, out=out, perception=perception, workers=workers,
                         progress=False, gate=GateSettings(enabled=gate, stride=stride), restart=True,
                         clips=clips, whole_frames=whole_frames, threads=threads, backend=backend)
    cpu0 = _cpu()
    start = time.perf_counter()
    outcome = run_review(opts)
    wall = time.perf_counter() - start  # with the report written, and for Dask the cluster's start
    s = outcome.session.summary
    found = tuple(f"{a['code']}@{float((a.get('media') or {}).get('trigger', -1)):.1f}"
                  for a in outcome.session.alerts)
    return BenchLine(name, s["files"], s["media_s"], wall, s["frames_read"], s["frames_kept"],
                     "; ".join(s["perception"]), s["hands"], s["alerts"], _cpu() - cpu0, found)


def _live(recording: Path) -> BenchLine:
    """The peer: the live run (``table-monitor run --review``: threads, the API, the store) on the
    same file, unpaced, as ``bench-pipeline`` measures it."""
    from monitor.lab.pipeline_bench import throughput
    from monitor.review.file_review import probe

    fps, count = probe(recording / "video.mp4")
    cpu0 = _cpu()
    r = throughput(recording, "oracle")
    media = (count or r.frames) / fps
    return BenchLine("peer: live run unpaced (bench-pipeline), oracle", 1, media, r.seconds, r.frames,
                     r.frames, r.perception, 0, 0, _cpu() - cpu0)


def _cpu() -> float:
    """CPU seconds used so far by this process and its finished children (workers, ffmpeg)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def cut(recording: Path, seconds: float, folder: Path, sidecars: bool = True) -> Path:
    """The first ``seconds`` of a recording (stream copy) in a folder of its own, with links to its
    truth and event log (frame numbers and media times start at 0 in both)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / "video.mp4"
    cmd = ["ffmpeg", "-v", "error", "-y", "-i", str(recording / "video.mp4"), "-t", f"{seconds}",
           "-c", "copy", str(out)]
    subprocess.run(cmd, check=True)
    for name in ("truth.jsonl", "truth.jsonl.gz", "events.jsonl") if sidecars else ():
        if (recording / name).exists():
            (folder / name).symlink_to((recording / name).resolve())
    return out


def run_bench(recording: Path, models_seconds: float = 10.0, scale_files: int = 2,
              scale_seconds: float = 30.0,
              parts: tuple[str, ...] = ("oracle", "stride2", "clips", "models", "scale"),
              threads: int = REVIEW_THREADS, backend: str = REVIEW_BACKEND) -> list[BenchLine]:
    """``threads``: perception threads of the model runs (review's default 1: the other core decodes
    and runs the chain); ``backend``: their inference runtime (review's default: ONNX Runtime)."""
    lines: list[BenchLine] = []
    with tempfile.TemporaryDirectory(prefix="bench-review-") as tmp:
        root = Path(tmp)
        if "live" in parts:
            lines.append(_live(recording))
        if "oracle" in parts:
            lines.append(_run("1 process, oracle, gate", [recording], root / "oracle"))
        if "stride2" in parts:
            lines.append(_run("1 process, oracle, gate, stride 2", [recording], root / "stride2", stride=2))
        if "clips" in parts:
            lines.append(_run("1 process, oracle, gate, with clips", [recording], root / "clips", clips=True))
        if "nogate" in parts:
            lines.append(_run("1 process, oracle, no gate", [recording], root / "nogate", gate=False))
        model_parts = [p for p in parts if p.startswith("models") or p == "scale-models"]
        short = cut(recording, models_seconds, root / "short", sidecars=False) if model_parts else None
        secs = f"{models_seconds:.0f} s, {backend}, {threads} thread(s)"
        if "models-whole" in parts and short is not None:  # the peer: every kept frame perceived whole
            lines.append(_run(f"1 process, models, whole frames ({secs})", [short], root / "models-whole",
                              perception="models", whole_frames=True, threads=threads, backend=backend))
        if "models" in parts and short is not None:
            lines.append(_run(f"1 process, models, changed regions ({secs})", [short], root / "models",
                              perception="models", threads=threads, backend=backend))
        for stride in sorted(int(p.removeprefix("models-stride")) for p in parts
                             if p.startswith("models-stride") and p.removeprefix("models-stride").isdigit()):
            if short is not None:
                lines.append(_run(f"1 process, models, changed regions, stride {stride} ({secs})", [short],
                                  root / f"models{stride}", perception="models", stride=stride,
                                  threads=threads, backend=backend))
        if "models-default" in parts and short is not None:  # `review`'s defaults: 15 fps perceived, clips
            lines.append(_run(f"1 process, models, review's defaults: 15 fps perceived, a clip per alert "
                              f"({secs})", [short], root / "models-default", perception="models",
                              stride=None, clips=True, threads=threads, backend=backend))
        if "scale-models" in parts and short is not None:
            for workers in (1, 2):
                lines.append(_run(f"Dask, {workers} worker(s), 2 x {secs}, models, stride 2", [short, short],
                                  root / f"daskm{workers}", perception="models", workers=workers, stride=2,
                                  threads=threads, backend=backend))
        if "scale" in parts:
            videos = [cut(recording, scale_seconds, root / f"part{i + 1}") for i in range(scale_files)]
            for workers in (1, 2):
                lines.append(_run(f"Dask, {workers} worker(s), {scale_files} x {scale_seconds:.0f} s, oracle",
                                  videos, root / f"dask{workers}", workers=workers))
        shutil.rmtree(root, ignore_errors=True)
    return lines
