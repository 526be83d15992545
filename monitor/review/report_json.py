"""The session as files: ``review.json`` (everything), ``hands.jsonl`` and ``alerts.jsonl`` (one per line)."""

from __future__ import annotations

import json
from pathlib import Path

from monitor.review.merge import Session


def write_json(session: Session, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "review.json", out / "hands.jsonl", out / "alerts.jsonl"]
    paths[0].write_text(json.dumps(session.to_json(), indent=1), encoding="utf-8")
    paths[1].write_text("".join(json.dumps(h) + "\n" for h in session.hands), encoding="utf-8")
    paths[2].write_text("".join(json.dumps(a) + "\n" for a in session.alerts), encoding="utf-8")
    return paths
