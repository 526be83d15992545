"""Progress of a review: one bar per file and one for the whole session, with the time left.

Workers report (frames read, frames in the file) per file; in a Dask run they write it to a small
file in the file's output folder (the output folder is shared by every worker), which the client
reads. The bars show the speed relative to real time, the figure an investigator plans with.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from types import TracebackType

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from monitor.review.jobs import FileJob

PROGRESS_FILE = "progress.json"


class _Speed(ProgressColumn):
    """Media seconds reviewed per wall second ('12.3x real time')."""

    def render(self, task: Task) -> Text:
        fps = task.fields.get("fps", 30.0)
        speed = task.speed
        if not speed:
            return Text("-", style="progress.data.speed")
        return Text(f"{speed / fps:.1f}x real time", style="progress.data.speed")


class ReviewProgress:
    def __init__(self, jobs: list[FileJob], totals: dict[str, int | None], fps: dict[str, float],
                 enabled: bool = True) -> None:
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("frames"), _Speed(), TimeRemainingColumn(), disable=not enabled)
        overall_fps = next(iter(fps.values()), 30.0)
        self.total = self.bar.add_task("all recordings", total=sum(t or 0 for t in totals.values()) or None,
                                       fps=overall_fps)
        self.tasks = {j.key: self.bar.add_task(f"  {Path(j.video).name}", total=totals.get(j.key),
                                               fps=fps.get(j.key, 30.0)) for j in jobs}
        self.done: dict[str, int] = {j.key: 0 for j in jobs}

    def __enter__(self) -> ReviewProgress:
        self.bar.__enter__()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.bar.__exit__(exc_type, exc, tb)

    def update(self, key: str, frames: int, total: int | None) -> None:
        before = self.done.get(key, 0)
        self.done[key] = frames
        task = self.tasks[key]
        if total is not None:
            self.bar.update(task, total=total)
        self.bar.update(task, completed=frames)
        self.bar.update(self.total, advance=max(0, frames - before))

    def poll_files(self, jobs: list[FileJob]) -> None:
        """Read the progress files Dask workers write."""
        for job in jobs:
            read = read_progress_file(job)
            if read is not None:
                self.update(job.key, *read)


def write_progress_file(job: FileJob, frames: int, total: int | None) -> None:
    job.folder.mkdir(parents=True, exist_ok=True)
    path = job.folder / PROGRESS_FILE
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"frames": frames, "total": total, "at": time.time()}), encoding="utf-8")
    os.replace(tmp, path)


def read_progress_file(job: FileJob) -> tuple[int, int | None] | None:
    try:
        data = json.loads((job.folder / PROGRESS_FILE).read_text(encoding="utf-8"))
        return int(data["frames"]), data.get("total")
    except (OSError, ValueError, KeyError, TypeError):
        return None
