"""Renderer throughput: frames per second at 1080p, per process and over two worker processes.

Modes: ``video`` (the default overhead camera and one light for every frame, as a scripted round
renders), ``dataset`` (every frame a new random scene and light, a new random camera every
``FRAMES_PER_CAMERA`` frames, as the dataset exporters draw them) and ``dataset-fresh`` (a new camera
every frame: the table re-warped each time, the worst case).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

MODES = ("dataset", "dataset-fresh", "video")


@dataclass
class BenchResult:
    mode: str
    frames: int
    cpu_s_per_frame: float  # one process, one OpenCV thread
    wall_fps_1proc: float
    wall_fps_2proc: float
    floor_cpu_s: float  # a bare full-frame table warp (the least a frame can cost), same run
    jpeg_cpu_s: float  # encoding the frame as JPEG q90, for reference (not in the frame time)
    h264_cpu_s: float  # an H.264 round trip of the frame at CRF 28 (the h264_crf effect), for reference
    objects_per_frame: float
    load_avg: float


def median_result(runs: list[BenchResult]) -> BenchResult:
    """Each figure's median over repeated runs of one mode (the machine's speed drifts run to run)."""
    if not runs:
        raise ValueError("median_result: no runs")

    def med(f: str) -> float:
        return float(np.median([getattr(r, f) for r in runs]))

    return BenchResult(
        runs[0].mode,
        runs[0].frames,
        med("cpu_s_per_frame"),
        med("wall_fps_1proc"),
        med("wall_fps_2proc"),
        med("floor_cpu_s"),
        med("jpeg_cpu_s"),
        med("h264_cpu_s"),
        med("objects_per_frame"),
        med("load_avg"),
    )


def _setup(seed: int, n: int, mode: str, resolution: tuple[int, int]):  # type: ignore[no-untyped-def]
    import cv2

    cv2.setNumThreads(1)
    from monitor.render.camera import default_camera
    from monitor.render.datasets import FRAMES_PER_CAMERA
    from monitor.render.effects import Effects, warm_noise
    from monitor.render.random_scene import random_camera, random_scene
    from monitor.render.renderer import Renderer

    rng = np.random.default_rng(seed)
    r = Renderer()
    items = []
    cam = default_camera(*resolution)
    steady = Effects.random(rng)  # a video keeps its light; only the sensor noise changes per frame
    steady.jpeg_quality = None
    for i in range(n):
        scene = random_scene(rng, "classic", "green", 0)
        if mode == "dataset-fresh" or (mode == "dataset" and i % FRAMES_PER_CAMERA == 0):
            cam = random_camera(rng, resolution)
        if mode == "video":
            eff = replace(steady, frame=i + 1)
        else:
            eff = Effects.random(rng)
            eff.jpeg_quality = None
        items.append((scene, cam, eff))
    # warm the caches: all 54 card textures (drawn once per design and process, ~20 ms each, which
    # a short run would otherwise count), chip and die faces, the table texture
    r.design("classic").preload()
    warm_noise(resolution[1], resolution[0], [e.noise for _, _, e in items])
    for it in items[:2]:
        r.render(*it)
    if mode != "video":  # but each dataset camera pays for its own table warp and lens maps
        r.forget_views()
    return r, items


def _worker(args: tuple[int, int, str, tuple[int, int], Any]) -> tuple[float, float, int]:
    seed, n, mode, res, barrier = args
    r, items = _setup(seed, n, mode, res)
    barrier.wait()  # both workers render at the same time: the 2-core case, not two 1-core turns
    t0, c0 = time.perf_counter(), time.process_time()
    for it in items:
        r.render(*it)
    return time.perf_counter() - t0, time.process_time() - c0, n


def bench(
    frames: int = 40, mode: str = "dataset", resolution: tuple[int, int] = (1920, 1080), seed: int = 0
) -> BenchResult:
    import cv2

    from monitor.render.table_art import table_texture

    if mode not in MODES:
        raise ValueError(f"bench mode {mode!r}: use one of {', '.join(MODES)}")
    r, items = _setup(seed, frames, mode, resolution)
    nobj = float(np.mean([len(s.objects) for s, _, _ in items]))
    t0, c0 = time.perf_counter(), time.process_time()
    last = None
    for it in items:
        last = r.render(*it)
    wall1, cpu1 = time.perf_counter() - t0, time.process_time() - c0
    # floor: warping the table texture into a full frame, the one step no frame can skip
    cam = items[0][1]
    tex = table_texture(items[0][0].layout, "green", 1.0, 0)
    H = cam.plane_homography(0.0) @ np.linalg.inv(tex.table_to_tex())
    c = time.process_time()
    for _ in range(10):
        cv2.warpPerspective(tex.image, H, resolution, flags=cv2.INTER_LINEAR)
    floor = (time.process_time() - c) / 10
    assert last is not None
    c = time.process_time()
    for _ in range(5):
        cv2.imencode(".jpg", last.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    jpeg = (time.process_time() - c) / 5
    from monitor.render.codec import h264_roundtrip

    c = time.process_time()
    for _ in range(3):
        h264_roundtrip(last.image, 28)
    h264 = (time.process_time() - c) / 3
    # two worker processes, each rendering half the frames (the 2-core case)
    half = max(1, frames // 2)
    ctx = mp.get_context("spawn")
    with ctx.Manager() as manager, ctx.Pool(2) as pool:
        # both workers build their scenes first; time only the rendering, from a common start
        barrier = manager.Barrier(2)
        res = pool.map(
            _worker,
            [(seed + 1, half, mode, resolution, barrier), (seed + 2, half, mode, resolution, barrier)],
        )
    wall2 = max(w for w, _, _ in res)
    return BenchResult(
        mode,
        frames,
        cpu1 / frames,
        frames / wall1,
        2 * half / wall2,
        floor,
        jpeg,
        h264,
        nobj,
        os.getloadavg()[0],
    )


def _scaling_worker(args: tuple[str, tuple[int, int], Any]) -> float:
    import cv2

    kind, res, barrier = args
    cv2.setNumThreads(1)
    w, h = res
    a = np.random.default_rng(0).integers(0, 255, (h, w, 3), np.uint8)
    b = a.copy()
    if barrier is not None:
        barrier.wait()
    t = time.perf_counter()
    if kind == "memory":  # one full-frame pass at a time: 12 MB read, 6 MB written
        for _ in range(60):
            cv2.multiply(a, b, scale=1 / 128)
    else:  # compute in registers and L1: the interpreter's own loop
        s = 0
        for i in range(2_000_000):
            s += i * i
    return time.perf_counter() - t


def bench_scaling(resolution: tuple[int, int] = (1920, 1080)) -> dict[str, float]:
    """How much a second process adds on this machine: the speed-up of two processes over one for a
    memory-bound full-frame pass and for a compute-bound loop (2.0 = two full cores)."""
    out = {}
    ctx = mp.get_context("spawn")
    for kind in ("memory", "compute"):
        with ctx.Manager() as manager, ctx.Pool(2) as pool:
            one = pool.apply(_scaling_worker, ((kind, resolution, None),))
            barrier = manager.Barrier(2)
            two = pool.map(_scaling_worker, [(kind, resolution, barrier)] * 2)
        out[kind] = 2 * one / max(two)
    return out


@dataclass
class RecordingBench:
    script: str
    workers: int
    frames: int  # frames in the video
    rendered: int  # frames that had to be rendered (the others repeat a still picture)
    wall_s: float
    cpu_s: float  # this process, its workers and the encoder
    codec: str

    @property
    def rendered_fps(self) -> float:
        return self.rendered / self.wall_s


def bench_recording(
    script: str, resolution: str = "1080p", fps: int = 10, workers: int = 1
) -> RecordingBench:
    """Time the whole video path on a shipped script: play, render, encode (H.264), write truth."""
    import resource
    import tempfile
    from pathlib import Path

    from monitor.render.rounds.play import play_many
    from monitor.render.rounds.script import load_script, shipped_scripts
    from monitor.render.rounds.video import RenderOptions, write_recording

    scripts = shipped_scripts()
    if script not in scripts:
        raise ValueError(f"no shipped script {script!r} (have: {', '.join(sorted(scripts))})")
    rounds = play_many([(load_script(scripts[script]), script)])

    def cpu() -> float:
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    with tempfile.TemporaryDirectory() as tmp:
        t0, c0 = time.perf_counter(), cpu()
        res = write_recording(rounds, Path(tmp), RenderOptions(resolution, fps), workers=workers)
        wall, used = time.perf_counter() - t0, cpu() - c0
    return RecordingBench(script, workers, res.frames, res.rendered, wall, used, res.codec)
