"""Where a file's review stopped: a JSON checkpoint per file, written at every finished hand.

The checkpoint is written atomically (a temporary file renamed over the old one) after the
file's events up to that point are on disk, so an interruption at any moment (Ctrl-C, a killed
worker, a power cut) leaves a checkpoint that matches the event log it counts. A resumed review
starts a fresh chain at the frame after the hand that closed: between hands the table is clear,
so a fresh chain sees what a continuing one would.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from monitor.review.jobs import FileJob, FileResult

NAME = "checkpoint.json"


def video_identity(video: Path) -> dict[str, Any]:
    st = video.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def load(job: FileJob) -> FileResult | None:
    """The checkpoint of ``job``'s file, or None if there is none or it is of another file."""
    path = job.folder / NAME
    if not path.exists():
        return None
    try:
        result = FileResult.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError) as e:
        raise ValueError(f"checkpoint {path} is unreadable ({e}); delete it to review {job.video} afresh") \
            from None
    if result.video != job.video:
        return None
    try:
        if result.identity and result.identity != video_identity(Path(job.video)):
            return None  # the file changed since: review it afresh
    except OSError:
        pass
    return result


def save(job: FileJob, result: FileResult) -> None:
    job.folder.mkdir(parents=True, exist_ok=True)
    path = job.folder / NAME
    tmp = path.with_suffix(".json.tmp")
    with tmp.open("w", encoding="utf-8") as f:
        json.dump(result.to_json(), f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
