"""The console and dice events of a recording's log: which they are, read with errors that say where."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from monitor.events.outside import EventLogError, console_events, outside_events, read_event_log

ROWS = [
    {"type": "round_started", "media_time": 0.0, "source": "operator", "banker_seat": 3},
    {"type": "bet_placed", "media_time": 0.5, "source": "vision", "seat": 1, "amount": 25},
    {"type": "bets_closed", "media_time": 1.0, "source": "operator"},
    {"type": "dice_rolled", "media_time": 1.5, "source": "dice_reader", "values": [1, 2, 3]},
    {"type": "dice_rolled", "media_time": 1.6, "source": "vision", "values": [1, 2, 3]},
    {"type": "round_ended", "media_time": 9.0, "source": "operator"},
]


def test_console_presses_and_the_dice_readers_rolls_not_what_a_camera_sees() -> None:
    assert [e["type"] for e in console_events(ROWS)] == ["round_started", "bets_closed", "round_ended"]
    outside = outside_events(ROWS)
    assert [(e["type"], e["source"]) for e in outside] == [
        ("round_started", "operator"), ("bets_closed", "operator"), ("dice_rolled", "dice_reader"),
        ("round_ended", "operator")]


def test_a_log_is_read_in_file_order_and_a_bad_line_is_named(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n\n", encoding="utf-8")
    assert read_event_log(log) == ROWS
    log.write_text(json.dumps(ROWS[0]) + "\n" + '{"type": "bets_closed", "media_time": "soon"}\n')
    with pytest.raises(EventLogError, match=r"events.jsonl line 2: not an event"):
        read_event_log(log)
    with pytest.raises(EventLogError, match=r"cannot read the event log .*missing.jsonl"):
        read_event_log(tmp_path / "missing.jsonl")
