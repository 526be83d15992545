"""The dashboard's table state: what the camera could not judge is a state shown, not a blank."""

from __future__ import annotations

from typing import Any

from monitor.events.schema import parse_event
from monitor.store.table_state import apply, empty_state

BASE = {"table_id": "T1", "media_time": 1.0, "wall_time": "2026-01-01T20:00:00Z", "source": "vision"}


def _fold(state: dict[str, Any], *events: dict[str, Any]) -> dict[str, Any]:
    for i, e in enumerate(events):
        apply(state, parse_event({**BASE, "seq": i, **e}))
    return state


def test_a_stub_not_countable_shows_as_not_judged_until_counted_or_the_next_round() -> None:
    state = _fold(empty_state("T1"), {"type": "round_started", "game": "paigow"},
                  {"type": "stub_not_countable", "reason": "squared"})
    assert state["not_judged"] == ["stub not counted: squared"] and state["phase"] == "dealt"
    _fold(state, {"type": "stub_counted", "n": 4})  # spread after all, and counted
    assert "not_judged" not in state
    _fold(state, {"type": "stub_not_countable", "reason": "unreadable", "detail": "uneven strips"})
    assert state["not_judged"] == ["stub not counted: unreadable (uneven strips)"]
    _fold(state, {"type": "round_started", "game": "paigow"})
    assert "not_judged" not in state


def test_a_stub_not_seen_reads_in_words() -> None:
    state = _fold(empty_state("T1"), {"type": "stub_not_countable", "reason": "not_seen"})
    assert state["not_judged"] == ["stub not counted: not seen"]
