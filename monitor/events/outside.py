"""The events a camera is not asked to see: the dealer's console presses and the dice reader's rolls.

At a live table they arrive on their own (the console's buttons, the reader's serial line); a
recording carries them in an event log beside the video (``events.jsonl``: every event of the
round, in the event contract, with its media time), which the demo's console replay and a review
take them from. Which events those are is part of the contract: the extractor leaves them to the
console (``round_from_vision`` off) and a review merges them with what it sees.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

# Events a camera is not asked to produce: they come from the dealer's console (or the dice reader).
CONSOLE_TYPES = frozenset({"round_started", "bets_closed", "misdeal_declared", "round_ended", "shuffle_done"})

EventRow = dict[str, Any]


class EventLogError(ValueError):
    """An event log that cannot be read; names the file and the line."""


def console_events(rows: Iterable[EventRow]) -> list[EventRow]:
    """The dealer's console presses among ``rows`` (event dicts), in their order."""
    return [e for e in rows if e.get("type") in CONSOLE_TYPES]


def outside_events(rows: Iterable[EventRow]) -> list[EventRow]:
    """The events among ``rows`` that reach the monitor from the console or the dice reader, not vision."""
    return [e for e in rows if e.get("type") in CONSOLE_TYPES or e.get("source") == "dice_reader"]


def read_event_log(path: Path) -> list[EventRow]:
    """Every event of a recording's log, as dicts in file order; each has a type and a media time."""
    rows: list[EventRow] = []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise EventLogError(f"cannot read the event log {path}: {e.strerror or e}") from None
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            float(row["media_time"])
            str(row["type"])
            row.setdefault("source", "")
        except (ValueError, KeyError, TypeError) as e:
            raise EventLogError(f"{path} line {n}: not an event ({e})") from None
        rows.append(row)
    return rows


def read_outside_events(path: Path) -> list[EventRow]:
    """The console and dice events of a log, in media-time order (its vision events are left out:
    whoever reads it sees for itself)."""
    return sorted(outside_events(read_event_log(path)), key=lambda e: float(e["media_time"]))
