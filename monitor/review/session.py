"""A review from start to end: the recordings as one session, reviewed, merged, reported, stored.

``DIR/session.json`` pins the session's recordings (in order) and settings at the first run: a run
into the same folder with the same recordings resumes it; with other recordings it is refused
(``restart`` starts over).
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from monitor.calibration import load_table
from monitor.perception.models_home import models_home, models_problem
from monitor.review.file_review import probe
from monitor.review.jobs import REVIEW_BACKEND, REVIEW_THREADS, FileJob, FileResult, GateSettings
from monitor.review.merge import Session, merge
from monitor.review.progress import ReviewProgress
from monitor.review.sidecars import find_sidecars
from monitor.rules.profile import DEFAULT_PROFILE, PaiGowProfile
from monitor.rules.table_profile import profile_data, profile_summary

PERCEPTIONS = ("auto", "models", "oracle")


class ReviewSetupError(ValueError):
    """A review that cannot start as asked; the message says why."""


@dataclass
class ReviewOptions:
    videos: list[Path]
    table: Path
    out: Path
    perception: str = "auto"
    models: Path | None = None
    name: str | None = None  # the session's name (default: the output folder's)
    db_url: str | None = None
    snapshot_dir: Path | None = None
    workers: int | None = None  # None: this process; N: a local Dask cluster of N processes
    scheduler: str | None = None
    gate: GateSettings = field(default_factory=GateSettings)
    clips: bool = True
    restart: bool = False
    progress: bool = True
    threads: int = REVIEW_THREADS
    backend: str = REVIEW_BACKEND  # the models' inference runtime: openvino or onnxruntime
    detections_cache: Path | None = None  # keep the models' detections here and replay them next time
    whole_frames: bool = False  # perceive every kept frame whole, not only where it changed


@dataclass
class ReviewOutcome:
    session: Session
    results: list[FileResult]
    paths: list[Path]
    stored: dict[str, int] | None
    wall_s: float


def session_name(opts: ReviewOptions) -> str:
    raw = opts.name or opts.out.resolve().name or "review"
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", raw).strip("-") or "review"


def session_table_id(table: str, name: str) -> str:
    return f"{table}:review:{name}"[:64]


def build_jobs(opts: ReviewOptions, table_id: str) -> list[FileJob]:
    if opts.perception not in PERCEPTIONS:
        raise ReviewSetupError(f"unknown perception {opts.perception!r}: {', '.join(PERCEPTIONS)}")
    if not opts.videos:
        raise ReviewSetupError("no recording given")
    jobs = []
    for i, video in enumerate(opts.videos):
        if not video.exists():
            raise ReviewSetupError(f"recording {video} does not exist")
        if video.is_dir():
            video = video / "video.mp4"  # a rendered recording's folder
            if not video.exists():
                raise ReviewSetupError(f"{video.parent} is a folder without a video.mp4")
        side = find_sidecars(video)
        truth = side.truth if opts.perception != "models" else None
        if opts.perception == "oracle" and truth is None:
            raise ReviewSetupError(f"oracle perception needs the ground truth of {video} "
                                   "(truth.jsonl or truth.jsonl.gz beside it)")
        if truth is None and (problem := models_problem(opts.models or models_home())):
            raise ReviewSetupError(problem)  # refused before any file is reviewed, not once per file
        jobs.append(FileJob(
            index=i, video=str(video.resolve()), table=str(opts.table.resolve()), out=str(opts.out.resolve()),
            table_id=table_id, perception=opts.perception, truth=str(truth) if truth else None,
            events=str(side.events) if side.events else None,
            models=str(opts.models.resolve()) if opts.models else None, gate=opts.gate, clips=opts.clips,
            threads=opts.threads, backend=opts.backend, whole_frames=opts.whole_frames,
            detections_cache=str(opts.detections_cache.resolve()) if opts.detections_cache else None))
    return jobs


def pin_session(opts: ReviewOptions, jobs: list[FileJob], profile: PaiGowProfile = DEFAULT_PROFILE) -> None:
    """Write or check DIR/session.json (the session's recordings and settings)."""
    path = opts.out / "session.json"
    pinned = {"videos": [j.video for j in jobs], "table": jobs[0].table, "table_id": jobs[0].table_id,
              "perception": opts.perception, "gate": asdict(opts.gate)}
    if profile != DEFAULT_PROFILE:
        # a review resumed under other rules would judge its files two ways (the default is left out,
        # so a folder reviewed before tables had profiles still resumes)
        pinned["profile"] = profile_data(profile)
    if opts.restart and opts.out.exists():
        shutil.rmtree(opts.out / "files", ignore_errors=True)
        path.unlink(missing_ok=True)
    if path.exists():
        try:
            before = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            before = None
        if before != pinned:
            raise ReviewSetupError(
                f"{opts.out} holds a review of other recordings or settings ({path}); give another --out, "
                "or --restart to review afresh into it")
        return
    opts.out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(pinned, indent=1), encoding="utf-8")


def run_review(opts: ReviewOptions, should_stop: Callable[[], bool] | None = None) -> ReviewOutcome:
    from monitor.review.fanout import run_serial
    from monitor.review.report_html import render_html
    from monitor.review.report_json import write_json

    calibration = load_table(opts.table)
    name = session_name(opts)
    table_id = session_table_id(calibration.table, name)
    jobs = build_jobs(opts, table_id)
    pin_session(opts, jobs, calibration.profile)
    probes = {j.key: probe(Path(j.video)) for j in jobs}
    started = time.perf_counter()
    with ReviewProgress(jobs, {k: p[1] for k, p in probes.items()}, {k: p[0] for k, p in probes.items()},
                        enabled=opts.progress) as bars:
        if opts.workers is None and opts.scheduler is None:
            results = run_serial(jobs, bars, should_stop)
        else:
            from monitor.review.fanout import run_dask

            results = run_dask(jobs, bars, opts.workers, opts.scheduler)
    wall_s = time.perf_counter() - started
    session = merge(name, table_id, opts.out, jobs, results, wall_s)
    session.summary["profile"] = profile_summary(calibration.profile)
    paths = write_json(session, opts.out)
    paths.append(render_html(session, opts.out))
    stored = None
    if opts.db_url:
        from monitor.review.store_writer import write_store

        stored = write_store(opts.db_url, session, opts.out, opts.snapshot_dir)
    return ReviewOutcome(session, results, paths, stored, wall_s)
