# mypy: disable-error-code="no-untyped-call"
# (dask.distributed ships no type hints for Client, LocalCluster and as_completed)
"""Running a session's files: one after another in this process, or fanned out over Dask.

The single-process default imports nothing of Dask. ``workers=N`` starts a local Dask cluster of N
single-threaded worker processes (the cores of this machine); ``scheduler=ADDRESS`` uses a running
cluster (``dask scheduler`` / ``dask worker ADDRESS`` on each machine), where the recordings and the
output folder must be at the same path on every worker (a shared filesystem). Each file is one
task; its checkpoint makes a task that is retried elsewhere, or a review run again, resume.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace

from monitor.review.file_review import review_file
from monitor.review.jobs import FileJob, FileResult
from monitor.review.progress import ReviewProgress, write_progress_file

log = logging.getLogger(__name__)


def _failed(job: FileJob, e: BaseException) -> FileResult:
    """A file whose review could not even start (bad truth, unreadable log): said, the others go on."""
    return FileResult(job.video, job.index, job.key, done=True, error=f"{job.video}: {e}")


def run_job(job: FileJob) -> FileResult:
    """One file on a Dask worker: progress goes to a file the client reads."""
    last = [0.0]

    def progress(frames: int, total: int | None) -> None:
        now = time.monotonic()
        if now - last[0] >= 0.5:
            last[0] = now
            write_progress_file(job, frames, total)

    try:
        result = review_file(job, progress)
    except (ValueError, OSError) as e:
        return _failed(job, e)
    write_progress_file(job, result.next_frame, result.frames_total)
    return result


def run_serial(jobs: list[FileJob], bars: ReviewProgress,
               should_stop: Callable[[], bool] | None = None) -> list[FileResult]:
    results = []
    for job in jobs:
        try:
            result = review_file(job, lambda n, total, key=job.key: bars.update(key, n, total),  # type: ignore[misc]
                                 should_stop)
        except (ValueError, OSError) as e:
            result = _failed(job, e)
        bars.update(job.key, result.next_frame, result.frames_total)
        results.append(result)
    return results


def run_dask(jobs: list[FileJob], bars: ReviewProgress, workers: int | None = None,
             scheduler: str | None = None) -> list[FileResult]:
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:  # pragma: no cover - the 'scale' extra is not installed
        raise RuntimeError("fanning out needs Dask: pip install 'table-monitor[scale]'") from None
    cluster = None
    if scheduler is not None:
        client = Client(scheduler, timeout="20s")
    else:
        cluster = LocalCluster(n_workers=workers or 2, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
    try:
        n = max(1, len(client.scheduler_info().get("workers", {})) or (workers or 1))
        # the cores are shared: perception gets its share of them per worker
        jobs = [replace(j, threads=max(1, j.threads // min(n, len(jobs)))) for j in jobs]
        futures = {client.submit(run_job, job, pure=False, key=f"review-{job.key}-{time.time_ns()}"): job
                   for job in jobs}
        by_key: dict[str, FileResult] = {}
        pending = as_completed(futures)
        while not pending.is_empty():
            bars.poll_files(jobs)
            for future in pending.next_batch(block=False):
                job = futures[future]
                try:
                    result = future.result()
                except Exception as e:  # a worker that died: the file's checkpoint is kept for a rerun
                    result = _failed(job, e)
                by_key[job.key] = result
                bars.update(job.key, result.next_frame, result.frames_total)
            time.sleep(0.25)
        bars.poll_files(jobs)
        return [by_key[j.key] for j in jobs]
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
