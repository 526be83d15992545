"""One session from its files: hands and alerts on one timeline, and the session's summary.

Files are the session's recordings in order; a file's media time starts at 0, and the session time
of a moment is its media time plus the length of the files before it. Every alert and hand keeps
both: the file and media time to open the recording at the moment, the session time to place it.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from monitor.review.jobs import FileJob, FileResult


@dataclass
class Session:
    name: str
    table_id: str
    out: Path
    files: list[dict[str, Any]] = field(default_factory=list)
    hands: list[dict[str, Any]] = field(default_factory=list)
    alerts: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"session": self.name, "table_id": self.table_id, "summary": self.summary, "files": self.files,
                "hands": self.hands, "alerts": self.alerts}


def _rel(path: Path, start: Path) -> str:
    """A link from the report's folder (works from disk, and when both move together)."""
    try:
        return Path(os.path.relpath(path.resolve(), start.resolve())).as_posix()
    except ValueError:  # another drive (Windows)
        return path.resolve().as_uri()


def merge(name: str, table_id: str, out: Path, jobs: list[FileJob], results: list[FileResult],
          wall_s: float) -> Session:
    session = Session(name, table_id, out)
    offset = 0.0
    by_id: dict[str, dict[str, Any]] = {}
    for job, r in zip(jobs, results, strict=True):
        duration = (r.frames_total or r.next_frame) / r.fps if r.fps else 0.0
        reviewed = r.next_frame / r.fps if r.fps else 0.0
        video_link = _rel(Path(job.video), out)
        session.files.append({
            "video": job.video, "link": video_link, "key": job.key, "offset_s": round(offset, 3),
            "duration_s": round(duration, 3), "reviewed_s": round(reviewed, 3), "fps": r.fps,
            "frames_total": r.frames_total, "frames_read": r.frames_read, "frames_kept": r.frames_kept,
            "stride": r.stride,
            "perception": r.perception, "seconds": round(r.seconds, 2), "error": r.error,
            "resumed_from": r.resumed_from, "warnings": r.warnings, "hands": len(r.hands),
            "alerts": len(r.alerts), "speed": round(reviewed / r.seconds, 2) if r.seconds else None,
        })
        folder = f"files/{job.key}"
        for a in r.alerts:
            media = a.get("media") or {}
            alert = {**a, "file": job.video, "file_key": job.key, "session_time": None, "link": None}
            if media:
                alert["session_time"] = round(offset + float(media["trigger"]), 3)
                alert["link"] = f"{video_link}#t={max(0.0, float(media['begin']) - 1.0):.2f}"
            if a.get("snapshot_path"):
                alert["snapshot"] = f"{folder}/snapshots/{a['snapshot_path']}"
            if a.get("clip"):
                alert["clip_link"] = f"{folder}/clips/{a['clip']['path']}"
            by_id[a["id"]] = alert
            session.alerts.append(alert)
        for h in r.hands:
            session.hands.append({
                "file": job.video, "file_key": job.key,
                "link": f"{video_link}#t={float(h['media_begin']):.2f}",
                "session_begin": round(offset + float(h["media_begin"]), 3),
                "session_end": round(offset + float(h["media_end"]), 3), "history": h,
            })
        offset += duration
    session.alerts.sort(key=lambda a: (a["session_time"] is None, a["session_time"] or 0.0))
    media_s = sum(f["reviewed_s"] for f in session.files)
    severity = Counter(a["severity"] for a in session.alerts)
    perceptions = sorted({f["perception"] for f in session.files if f["perception"]})
    session.summary = {
        "files": len(session.files),
        "files_with_errors": sum(1 for f in session.files if f["error"]),
        "media_s": round(media_s, 2),
        "wall_s": round(wall_s, 2),
        "media_this_run_s": round(sum(r.media_this_run_s for r in results), 2),
        "speed": round(sum(r.media_this_run_s for r in results) / wall_s, 2) if wall_s > 0 else None,
        "frames_read": sum(f["frames_read"] for f in session.files),
        "frames_kept": sum(f["frames_kept"] for f in session.files),
        "hands": len(session.hands),
        "hands_complete": sum(1 for h in session.hands if h["history"].get("complete")),
        "alerts": len(session.alerts),
        "alerts_by_severity": dict(sorted(severity.items())),
        "alerts_by_code": dict(sorted(Counter(a["code"] for a in session.alerts).items())),
        "perception": perceptions,
        "oracle": any(p.startswith("ORACLE") for p in perceptions),
    }
    return session
