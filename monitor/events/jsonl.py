"""Events as JSON Lines: one event per line, read leniently, written strictly.

Reading never stops at a bad line: each line becomes either an event or a
:class:`RejectedLine` that says where (file and line), which field and what was wrong,
so the monitor can raise a data alert and carry on with the round.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from pydantic import ValidationError

from monitor.events.schema import Event, EventBase, event_to_json, parse_event_json

RAW_KEEP = 300  # characters of a rejected line kept as evidence


@dataclass(frozen=True, slots=True)
class RejectedLine:
    """An input line that is not a valid event."""

    location: str  # 'events.jsonl line 12'
    field: str  # 'card_dealt.pile' or '(line)' when the line is not JSON at all
    problem: str
    raw: str
    # What could still be read from the broken line, to place the data alert in its round.
    table_id: str | None = None
    seq: int | None = None
    media_time: float | None = None


def _field_path(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(p) for p in loc) or "(event)"


def _salvage(raw: str) -> tuple[str | None, int | None, float | None]:
    """Table id, seq and media time of a rejected line if they are readable, else None."""
    try:
        obj = json.loads(raw)
    except ValueError:
        return None, None, None
    if not isinstance(obj, dict):
        return None, None, None
    table = obj.get("table_id")
    seq = obj.get("seq")
    media = obj.get("media_time")
    return (
        table if isinstance(table, str) and table else None,
        seq if isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0 else None,
        float(media) if isinstance(media, int | float) and not isinstance(media, bool) and media >= 0
        else None,
    )


def reject(raw: str, location: str, exc: ValidationError) -> RejectedLine:
    """Turn a validation error into a RejectedLine naming the first failing field."""
    errors = exc.errors(include_url=False)
    first = errors[0] if errors else {"loc": (), "msg": str(exc), "type": ""}
    field = _field_path(tuple(first["loc"]))
    problem = str(first["msg"]).removeprefix("Value error, ")
    if first.get("type") == "json_invalid":
        field = "(line)"
        problem = problem.replace("Invalid JSON: ", "not valid JSON: ")
    if len(errors) > 1:
        problem += f" (and {len(errors) - 1} more problem(s))"
    table, seq, media = _salvage(raw)
    return RejectedLine(location, field, problem, raw[:RAW_KEEP], table, seq, media)


def parse_line(line: str, location: str) -> Event | RejectedLine | None:
    """One line: an event, a rejection, or None for a blank line or a ``#`` comment."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    try:
        return parse_event_json(text)
    except ValidationError as exc:
        return reject(text, location, exc)


def iter_lines(lines: Iterable[str], name: str = "<stream>") -> Iterator[Event | RejectedLine]:
    for number, line in enumerate(lines, start=1):
        item = parse_line(line, f"{name} line {number}")
        if item is not None:
            yield item


def read_events(path: Path | str) -> Iterator[Event | RejectedLine]:
    """Events and rejections of a JSONL file, in file order; undecodable bytes are rejected, not fatal."""
    p = Path(path)
    with p.open("r", encoding="utf-8", errors="replace") as fh:
        yield from iter_lines(fh, p.name)


def write_events(events: Iterable[EventBase], out: IO[str]) -> int:
    n = 0
    for event in events:
        out.write(event_to_json(event))
        out.write("\n")
        n += 1
    return n
