"""What lies beside a recording: its ground truth (rendered recordings) and its console and dice log.

A rendered recording is a folder with ``video.mp4``, ``truth.jsonl`` (or ``.jsonl.gz``) and
``events.jsonl``. A real recording may come with a log of the dealer's console presses and the dice
reader's rolls, named ``<video stem>.events.jsonl`` (or ``events.jsonl`` in its folder). The truth
lets the review run with oracle perception (labelled so everywhere); the log gives the events a
camera does not see (round start with the banker's seat, no more bets, misdeal, round end, dice),
read by :func:`monitor.events.outside.read_outside_events`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


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
