"""Shared pieces of the dataset exporters: splits (held-out designs and tables), frame sampling."""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import cv2
import numpy as np

from monitor.render.camera import RESOLUTIONS, Camera
from monitor.render.effects import Effects
from monitor.render.random_scene import random_camera, random_scene
from monitor.render.renderer import Frame, Renderer
from monitor.render.scene import Scene
from monitor.render.table_art import TEST_STYLES, TRAIN_STYLES

TABLE_VARIANTS = 2  # texture variants per table style (wear, felt shade, floor)
FRAMES_PER_TABLE = 60  # frames rendered on one table texture before switching (textures are costly)
# Frames one random camera sees before the next is drawn. A room's cameras are fixed, so a real
# dataset has many moments per view; reusing the view reuses the warped table, the costliest step
# of a frame (a full-frame warp). Scenes, light and sensor still change every frame.
FRAMES_PER_CAMERA = 8


def write_image(path: Path, img: np.ndarray, params: list[int] | None = None) -> None:
    """Encode, then write and rename: a reader (a training run on the folder) never sees half a file."""
    import cv2

    ok, buf = cv2.imencode(path.suffix, img, params or [])
    if not ok:
        raise OSError(f"cannot encode image for {path}")
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(buf.tobytes())
    os.replace(tmp, path)


@dataclass(frozen=True)
class SplitSpec:
    """Which designs and table styles one split draws from."""

    name: str
    designs: tuple[str, ...]
    tables: tuple[str, ...]


def standard_splits(designs: list[str], test_designs: list[str]) -> dict[str, SplitSpec]:
    """train/val: training designs on training tables; test: held-out designs on held-out tables;
    test_table: training designs on held-out tables; test_design: held-out designs on training tables."""
    out = {
        "train": SplitSpec("train", tuple(designs), TRAIN_STYLES),
        "val": SplitSpec("val", tuple(designs), TRAIN_STYLES),
    }
    if test_designs:
        out["test"] = SplitSpec("test", tuple(test_designs), TEST_STYLES)
        out["test_design"] = SplitSpec("test_design", tuple(test_designs), TRAIN_STYLES)
    out["test_table"] = SplitSpec("test_table", tuple(designs), TEST_STYLES)
    return out


@dataclass
class Sample:
    frame: Frame
    scene: Scene
    design: str
    table: str
    resolution: str
    seed: int
    effects: Effects | None = None


def sample_frames(
    renderer: Renderer,
    spec: SplitSpec,
    rng: np.random.Generator,
    resolutions: dict[str, float],
    phases: dict[str, float] | None = None,
    oblique: float = 0.3,
    arms: float = 0.35,
    effects_strength: float = 1.0,
    card_px_1080: tuple[float, float] = (40.0, 70.0),
    sensor_jpeg: bool = False,
    window: float | None = None,
    h264: float = 0.0,
) -> Iterator[Sample]:
    """Endless random frames for one split; stays on one table texture for a few frames at a time.

    ``window`` (0..1) renders only that fraction of the frame's width and height, placed over a
    random face-up card: the pixels a crop needs at a quarter of the cost (a 4K frame especially).
    ``h264`` is the share of frames put through an H.264 round trip (CRF 18-35) as a camera's
    stream would be.
    """
    res_names = list(resolutions)
    res_p = np.array([resolutions[k] for k in res_names], float)
    res_p /= res_p.sum()
    ph_names = list(phases) if phases else None
    ph_p = (
        np.array([phases[k] for k in ph_names], float) / sum(phases.values()) if phases and ph_names else None
    )
    while True:
        table = str(rng.choice(spec.tables))
        variant = int(rng.integers(TABLE_VARIANTS))
        view: Camera | None = None
        res = res_names[0]
        for k in range(FRAMES_PER_TABLE):
            seed = int(rng.integers(2**31))
            r = np.random.default_rng(seed)
            design = str(r.choice(spec.designs))
            phase = str(r.choice(ph_names, p=ph_p)) if ph_names else None
            nvar = renderer.design(design).variants.get("Jk", 1)
            scene = random_scene(r, design, table, variant, phase=phase, arms=arms, variants=nvar)
            if view is None or k % FRAMES_PER_CAMERA == 0:
                res = str(r.choice(res_names, p=res_p))
                view = random_camera(r, RESOLUTIONS[res], card_px_1080=card_px_1080, oblique=oblique)
            cam: Camera = view
            if window is not None and window < 1.0:
                cam = _window_on_cards(cam, scene, window, r)
            eff = Effects.random(r, effects_strength, h264=h264)
            if not sensor_jpeg:
                eff.jpeg_quality = None
            yield Sample(renderer.render(scene, cam, eff), scene, design, table, res, seed, eff)


def _window_on_cards(cam: Camera, scene: Scene, frac: float, rng: np.random.Generator) -> Camera:
    ww, wh = int(cam.width * frac) // 8 * 8, int(cam.height * frac) // 8 * 8
    ups = [c for c in scene.cards() if c.face_up] or scene.cards()
    centres = cam.project(np.array([[c.x, c.y, c.z] for c in ups])) if ups else np.zeros((0, 2))
    inside = [p for p in centres if 0 <= p[0] < cam.width and 0 <= p[1] < cam.height]
    if inside:
        cx, cy = inside[int(rng.integers(len(inside)))] + rng.normal(0, (ww / 6, wh / 6))
    else:
        cx, cy = cam.width / 2, cam.height / 2
    x0 = int(np.clip(cx - ww / 2, 0, cam.width - ww)) // 8 * 8
    y0 = int(np.clip(cy - wh / 2, 0, cam.height - wh)) // 8 * 8
    return cam.window(x0, y0, ww, wh)


_T = TypeVar("_T")
_R = TypeVar("_R")


def _init_worker(threads: int) -> None:
    cv2.setNumThreads(threads)


def run_chunks(fn: Callable[[_T], _R], chunks: list[_T], workers: int = 1, threads: int = 1,
               progress: Callable[[_R], None] | None = None) -> list[_R]:
    """``fn`` over dataset chunks, in this process or in ``workers`` spawned ones (one per core), in
    the order they finish; ``progress`` is told of each. Each chunk draws from its own random stream,
    so the dataset is the same whatever the worker count."""
    done: list[_R] = []
    if workers <= 1:
        _init_worker(threads)
        results: Iterable[_R] = map(fn, chunks)
        for r in results:
            done.append(r)
            if progress:
                progress(r)
        return done
    ctx = mp.get_context("spawn")  # a clean interpreter: no inherited OpenCV threads or locks
    with ctx.Pool(workers, initializer=_init_worker, initargs=(threads,)) as pool:
        for r in pool.imap_unordered(fn, chunks):
            done.append(r)
            if progress:
                progress(r)
    return done
