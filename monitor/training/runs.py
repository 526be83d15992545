"""Run bookkeeping: where a run's checkpoints live and a small JSON log of its wall time."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def run_dir(project: Path, name: str) -> Path:
    return project / name


def last_checkpoint(project: Path, name: str) -> Path | None:
    p = run_dir(project, name) / "weights" / "last.pt"
    return p if p.exists() else None


class RunLog:
    """Appends one record per training session (start, end, seconds, arguments) to ``run_log.json``."""

    def __init__(self, project: Path, name: str, args: dict[str, Any]) -> None:
        self.path = run_dir(project, name) / "run_log.json"
        self.args = {k: str(v) if isinstance(v, Path) else v for k, v in args.items()}
        self.t0 = time.time()
        self.started = datetime.now(UTC).isoformat(timespec="seconds")

    def finish(self, status: str, extra: dict[str, Any] | None = None) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        records: list[dict[str, Any]] = json.loads(self.path.read_text()) if self.path.exists() else []
        records.append({
            "started": self.started,
            "ended": datetime.now(UTC).isoformat(timespec="seconds"),
            "seconds": round(time.time() - self.t0, 1),
            "status": status,
            "args": self.args,
            **(extra or {}),
        })
        self.path.write_text(json.dumps(records, indent=2))

    @staticmethod
    def total_seconds(project: Path, name: str) -> float:
        p = run_dir(project, name) / "run_log.json"
        if not p.exists():
            return 0.0
        return float(sum(r.get("seconds", 0.0) for r in json.loads(p.read_text())))
