"""The extractor's watchers one at a time, each on a small hand-built sequence of frames."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.calibration.table_file import load_table
from monitor.pipeline.watchers.view import FrameView, TableLayout

TABLE = Path(__file__).resolve().parents[1] / "calibration" / "default-table.yaml"


def test_a_tables_layout_is_its_pile_slots_and_the_stubs_place() -> None:
    cal = load_table(TABLE)
    layout = TableLayout.of(cal.zones)
    assert sorted(layout.slot_centers) == list(range(1, 8))
    assert layout.slot_centers[3] == cal.zones["pile3"].center
    assert layout.deck_at == cal.zones["stub"].center
    bare = TableLayout.of({k: v for k, v in cal.zones.items() if k != "stub"})
    assert bare.deck_at is None and bare.slot_centers == layout.slot_centers


def test_a_frame_view_is_a_value() -> None:
    view = FrameView(3, 0.1)
    assert (view.objects, dict(view.spots), view.stub, view.settled) == ((), {}, None, ())
    with pytest.raises(AttributeError):
        view.index = 4  # type: ignore[misc]
