"""What lies beside a recording: its ground truth (rendered recordings) and its console and dice log.

A rendered recording is a folder with ``video.mp4``, ``truth.jsonl`` (or ``.jsonl.gz``) and
``events.jsonl``. A real recording may come with a log of the dealer's console presses and the dice
reader's rolls, named ``<video stem>.events.jsonl`` (or ``events.jsonl`` in its folder). The truth
lets the review run with oracle perception (labelled so everywhere); the log gives the events a
camera does not see (round start with the banker's seat, no more bets, misdeal, round end, dice).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from monitor.pipeline.scripted import outside_events


class SidecarError(ValueError):
    """A sidecar file that cannot be read; names the file and the line."""


@dataclass(frozen=True, slots=True)
class Sidecars:
    truth: Path | None
    events: Path | None


def _first(candidates: list[Path]) -> Path | None:
    return next((p for p in candidates if p.is_file()), None)


def find_sidecars(video: Path) -> Sidecars:
    """The truth and event log of ``video``, when they are there."""
    stem, folder = video.stem, video.parent
    truth = _first([folder / f"{stem}.truth.jsonl", folder / f"{stem}.truth.jsonl.gz",
                    folder / "truth.jsonl", folder / "truth.jsonl.gz"])
    events = _first([folder / f"{stem}.events.jsonl", folder / "events.jsonl"])
    return Sidecars(truth, events)


def read_outside_events(path: Path) -> list[dict[str, Any]]:
    """The console and dice events of a log, in media-time order (vision events in it are ignored:
    the review sees for itself)."""
    rows: list[dict[str, Any]] = []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise SidecarError(f"cannot read the event log {path}: {e.strerror or e}") from None
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            float(row["media_time"])
            str(row["type"])
            row.setdefault("source", "")
        except (ValueError, KeyError, TypeError) as e:
            raise SidecarError(f"{path} line {n}: not an event ({e})") from None
        rows.append(row)
    chosen = outside_events(rows)
    return sorted(chosen, key=lambda e: float(e["media_time"]))
